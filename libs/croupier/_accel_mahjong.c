/* croupier._accel: whether mahjong tiles win, natively.
 *
 * mahjong_win() is croupier.games.mahjong.win.Shape.is_win: the real concealed tiles as
 * 34 counts, the number of exposed melds (a meld is three or four of one tile and
 * stands as a set whatever its tile, so only their number is read), the forms played
 * and, where the hand holds wilds (广东's 鬼牌), their number and how many may stand for
 * each tile (Shape.caps: never a fifth copy). The forms are those of win.py:
 *
 *  - standard (four sets and a pair, the melds among the sets): the tile count of a
 *    finished hand (3k + 2 concealed, 14 with three a meld); without wilds suit by
 *    suit as win._std_plain reads it -- a suit's count mod 3 says whether it holds the
 *    pair (2), none (0) or cannot be sets (1); a suit's tiles are sets, and the pair
 *    where it holds it, when its lowest tile left stands in a 刻子, the pair or the 顺子
 *    it starts (win._suit_sets); an honour is a 刻子 or the pair; with wilds as win._std
 *    searches without limits -- the lowest real tile left in a 刻子, the pair or a 顺子
 *    holding it, gaps filled with wilds within the caps, the wilds left making sets
 *    (and the pair) of their own (win._wild_only);
 *  - seven pairs when played: no meld, fourteen tiles, no more tiles held an odd
 *    number of times than wilds (four of a kind is two pairs);
 *  - thirteen orphans when played: no meld, fourteen tiles, every real one a 1, a 9 or
 *    an honour, none held three times, at most one held twice.
 *
 * mahjong_waits() is the tiles (0..33, ascending) that one more of would make a hand
 * without wilds win, a tile already held four times left out (no fifth copy comes).
 *
 * Each answers None where the pure path must judge: counts or caps that are not a
 * tuple of 34 ints from 0 to 4, melds that are not from 0 to 4, wilds past 14.
 * tests/property/test_accel_mahjong.py compares both with the pure path over random
 * hands with and without wilds, every wait of them, and every count of a suit.
 */
#include "_accel.h"

#include <string.h>

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

/* win._wild_only without limits: can w wilds alone make the sets left (and the pair, if
 * not done), each stand-in within the caps -- the roomiest tile taken for each */
static int wild_only(int w, int pair_done, const int *caps) {
    int sets, pair;
    if (pair_done) {
        if (w % 3) return 0;
        sets = w / 3, pair = 0;
    } else {
        if (w < 2 || (w - 2) % 3) return 0;
        sets = (w - 2) / 3, pair = 1;
    }
    int room[N_TILES];
    memcpy(room, caps, sizeof room);
    for (int k = 0; k < pair + sets; k++) {
        int need = k < pair ? 2 : 3, best = 0;
        for (int t = 1; t < N_TILES; t++)
            if (room[t] > room[best]) best = t;
        if (room[best] < need) return 0;
        room[best] -= need;
    }
    return 1;
}

/* win._std without limits: the lowest real tile left in a 刻子, the pair or a 顺子
 * holding it, gaps filled with wilds within the caps (a wild is never a fifth copy) */
static int std_wild(const int *c, int w, int pair_done, const int *caps) {
    int i = 0;
    while (i < N_TILES && !c[i]) i++;
    if (i == N_TILES) return wild_only(w, pair_done, caps);
    int n = c[i], cc[N_TILES], cp[N_TILES];
    for (int size = 3; size >= 2; size--) { /* the 刻子, then the pair */
        if (size == 2 && pair_done) break;
        int real = n < size ? n : size, need = size - real;
        if (need > w || need > caps[i]) continue;
        memcpy(cc, c, sizeof cc);
        memcpy(cp, caps, sizeof cp);
        cc[i] -= real;
        cp[i] -= need;
        if (std_wild(cc, w - need, pair_done || size == 2, cp)) return 1;
    }
    if (i >= N_SUITED) return 0;
    int base = i - i % 9;
    for (int start = i - 2; start <= i; start++) {
        if (start < base || start % 9 > 6) continue;
        int ww = w, ok = 1;
        memcpy(cc, c, sizeof cc);
        memcpy(cp, caps, sizeof cp);
        for (int t = start; t < start + 3 && ok; t++) {
            if (t == i || (t > i && cc[t] > 0)) {
                cc[t]--;
            } else if (ww > 0 && cp[t] > 0) {
                ww--;
                cp[t]--;
            } else {
                ok = 0;
            }
        }
        if (ok && std_wild(cc, ww, pair_done, cp)) return 1;
    }
    return 0;
}

/* Shape.is_win: c the real concealed counts, n their sum, w the wilds, caps how many
 * wilds may stand for each tile (read only where w > 0) */
static int wins(int *c, int n, int w, const int *caps, int melds, int seven, int orphans) {
    int all = n + w;
    if (all % 3 == 2 && all + 3 * melds == 14 && (w ? std_wild(c, w, 0, caps) : std_plain(c)))
        return 1;
    if (melds || all != 14) return 0;
    if (seven) {
        int odd = 0;
        for (int t = 0; t < N_TILES; t++) odd += c[t] & 1;
        if (odd <= w) return 1;
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

/* 34 counts from 0 to 4 read into c, their sum into n: 1, 0 not such */
static int read_counts(PyObject *counts, int *c, int *n) {
    if (!PyTuple_CheckExact(counts) || PyTuple_GET_SIZE(counts) != N_TILES) return 0;
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
    PyObject *counts, *caps_arg = Py_None;
    int c[N_TILES], caps[N_TILES] = {0}, n, capped, melds, seven, orphans, w = 0;
    if (!PyArg_ParseTuple(args, "Oipp|iO", &counts, &melds, &seven, &orphans, &w, &caps_arg))
        return NULL;
    if (melds < 0 || melds > 4 || w < 0 || w > 14 || !read_counts(counts, c, &n) ||
        (w && !read_counts(caps_arg, caps, &capped)))
        Py_RETURN_NONE;
    return PyBool_FromLong(wins(c, n, w, caps, melds, seven, orphans));
}

PyObject *accel_mahjong_waits(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *counts;
    int c[N_TILES], n, melds, seven, orphans;
    if (!PyArg_ParseTuple(args, "Oipp", &counts, &melds, &seven, &orphans)) return NULL;
    if (melds < 0 || melds > 4 || !read_counts(counts, c, &n)) Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (int t = 0; t < N_TILES; t++) {
        if (c[t] >= 4) continue;
        c[t]++;
        int w = wins(c, n + 1, 0, NULL, melds, seven, orphans);
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
