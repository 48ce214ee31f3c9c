/* croupier._accel: whether wild-free mahjong tiles win, natively.
 *
 * mahjong_win() is croupier.games.mahjong.win.Shape.is_win for a hand without wilds:
 * the concealed tiles as 34 counts and the number of exposed melds (a meld is three or
 * four of one tile and stands as a set whatever its tile, so only their number is
 * read). The forms are those of win.py:
 *
 *  - standard (four sets and a pair, the melds among the sets): the tile count of a
 *    finished hand (3k + 2 concealed, 14 with three a meld), then suit by suit as
 *    win._std_plain reads it -- a suit's count mod 3 says whether it holds the pair (2),
 *    none (0) or cannot be sets (1); a suit's tiles are sets, and the pair where it
 *    holds it, when its lowest tile left stands in a 刻子, the pair or the 顺子 it starts
 *    (win._suit_sets); an honour is a 刻子 or the pair;
 *  - seven pairs when played: no meld, fourteen tiles, every count even (four of a
 *    kind is two pairs);
 *  - thirteen orphans when played: no meld, fourteen tiles, every one a 1, a 9 or an
 *    honour, none held three times, at most one held twice.
 *
 * mahjong_waits() is the tiles (0..33, ascending) that one more of would make such a
 * hand win, a tile already held four times left out (no fifth copy comes).
 *
 * Each answers None where the pure path must judge: counts that are not a tuple of 34
 * ints from 0 to 4, melds that are not an int from 0 to 4.
 * tests/property/test_accel_mahjong.py compares both with the pure path over random
 * hands, every wait of them, and every count of a suit.
 */
#include "_accel.h"

#define N_TILES 34
#define N_SUITED 27

/* win._suit_sets: one suit's nine counts as sets, and one pair when with_pair */
static int suit_sets(int *p, int with_pair) {
    int i = 0;
    while (i < 9 && !p[i]) i++;
    if (i == 9) return !with_pair;
    int n = p[i], r;
    if (n >= 3) {
        p[i] -= 3;
        r = suit_sets(p, with_pair);
        p[i] += 3;
        if (r) return 1;
    }
    if (with_pair && n >= 2) {
        p[i] -= 2;
        r = suit_sets(p, 0);
        p[i] += 2;
        if (r) return 1;
    }
    if (i <= 6 && p[i + 1] && p[i + 2]) {
        p[i]--;
        p[i + 1]--;
        p[i + 2]--;
        r = suit_sets(p, with_pair);
        p[i]++;
        p[i + 1]++;
        p[i + 2]++;
        return r;
    }
    return 0;
}

/* win._std_plain: four sets and a pair among the concealed counts' suits and honours */
static int std_plain(int *c) {
    int pair = 0;
    for (int base = 0; base < N_SUITED; base += 9) {
        int total = 0;
        for (int k = 0; k < 9; k++) total += c[base + k];
        int left = total % 3;
        if (left == 1) return 0;
        if (left == 2) {
            if (pair) return 0;
            pair = 1;
        }
        if (total && !suit_sets(c + base, left == 2)) return 0;
    }
    for (int t = N_SUITED; t < N_TILES; t++) {
        int n = c[t];
        if (n == 2) {
            if (pair) return 0;
            pair = 1;
        } else if (n && n != 3) {
            return 0;
        }
    }
    return pair;
}

static int is_orphan(int t) { return t >= N_SUITED || t % 9 == 0 || t % 9 == 8; }

/* Shape.is_win of wild-free counts: n is their sum */
static int wins(int *c, int n, int melds, int seven, int orphans) {
    if (n % 3 == 2 && n + 3 * melds == 14 && std_plain(c)) return 1;
    if (melds || n != 14) return 0;
    if (seven) {
        int odd = 0;
        for (int t = 0; t < N_TILES; t++) odd += c[t] & 1;
        if (!odd) return 1;
    }
    if (orphans) {
        int twos = 0;
        for (int t = 0; t < N_TILES; t++) {
            if (!c[t]) continue;
            if (!is_orphan(t) || c[t] > 2) return 0;
            twos += c[t] == 2;
        }
        return twos <= 1;
    }
    return 0;
}

/* the counts and melds read: 1, 0 not such (the pure path judges), -1 an error */
static int read_hand(PyObject *args, int *c, int *n, int *melds, int *seven, int *orphans) {
    PyObject *counts;
    if (!PyArg_ParseTuple(args, "Oipp", &counts, melds, seven, orphans)) return -1;
    if (!PyTuple_CheckExact(counts) || PyTuple_GET_SIZE(counts) != N_TILES || *melds < 0 ||
        *melds > 4)
        return 0;
    *n = 0;
    for (int t = 0; t < N_TILES; t++) {
        PyObject *v = PyTuple_GET_ITEM(counts, t);
        if (!PyLong_CheckExact(v)) return 0;
        long x = PyLong_AsLong(v);
        if (x < 0 || x > 4) {
            if (x == -1 && PyErr_Occurred()) PyErr_Clear();
            return 0;
        }
        c[t] = (int)x;
        *n += (int)x;
    }
    return 1;
}

PyObject *accel_mahjong_win(PyObject *self, PyObject *args) {
    (void)self;
    int c[N_TILES], n, melds, seven, orphans;
    int ok = read_hand(args, c, &n, &melds, &seven, &orphans);
    if (ok < 0) return NULL;
    if (!ok) Py_RETURN_NONE;
    return PyBool_FromLong(wins(c, n, melds, seven, orphans));
}

PyObject *accel_mahjong_waits(PyObject *self, PyObject *args) {
    (void)self;
    int c[N_TILES], n, melds, seven, orphans;
    int ok = read_hand(args, c, &n, &melds, &seven, &orphans);
    if (ok < 0) return NULL;
    if (!ok) Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int t = 0; t < N_TILES; t++) {
        if (c[t] >= 4) continue;
        c[t]++;
        int w = wins(c, n + 1, melds, seven, orphans);
        c[t]--;
        if (!w) continue;
        PyObject *x = PyLong_FromLong(t);
        if (x == NULL || PyList_Append(out, x) < 0) {
            Py_XDECREF(x);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(x);
    }
    return out;
}
