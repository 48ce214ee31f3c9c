/* croupier._accel: the Hold'em evaluator's tables and 5-card rows, natively.
 *
 * The strengths of croupier.games.poker.hands, computed as its pure functions compute
 * them (a strength is ``category << 20 | r1 << 16 | ... | r5``):
 *
 * - poker_nonflush() is _fill_nonflush(): a dict from the rank part of a key sum (three
 *   bits a rank, the count of that rank) to the best non-flush strength, for every
 *   multiset of 5, 6 and 7 ranks with at most four of a rank (_eval_counts);
 * - poker_flush() is the flush table of _build_tables(): a list of 8,192 strengths by
 *   13-bit rank mask, the best flush or straight flush of a mask of five or more ranks
 *   (_eval_flush_mask), 0 below five;
 * - poker_rows5(ranks, suits) is rank5 of every 5 of n distinct cards (given as their
 *   rank values 0..12 and suit indexes 0..3), in the order itertools.combinations(range(n),
 *   5) gives them: None where a rank or suit is out of range, a card repeats, or n is
 *   not 5..16.
 *
 * - poker_runout(ranks, suits, n_chu, n_han) is croupier.games.chuhan.probability's
 *   _runout_odds: the cards are Chu's n_chu, Han's n_han, then the board; over every
 *   completion of the board to five cards from the cards unseen, each side's best of its
 *   cards and the board (best_of: the flush of a suit holding five or more, else the best
 *   non-flush strength of the rank counts), counted as (Chu wins, Han wins, ties). None
 *   where a card repeats or is out of range, or a side would hold fewer than 5 or more
 *   than 7 cards.
 *
 * tests/property/test_accel_poker.py compares the two tables whole with the pure ones,
 * the rows with rank5 and the run-outs with the pure count over random hands.
 */
#include "_accel.h"

#include <stdint.h>

enum { HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH };

/* _pack(cat, ranks): the category then up to five rank values, four bits each */
static int64_t pack(int cat, const int *ranks, int n) {
    int64_t s = cat;
    for (int i = 0; i < n; i++) s = s << 4 | ranks[i];
    return s << (4 * (5 - n));
}

/* _straight_top(mask): the top rank of the best straight in a rank mask, or -1 */
static int straight_top(int mask) {
    for (int top = 12; top > 3; top--) {
        int window = 0x1f << (top - 4);
        if ((mask & window) == window) return top;
    }
    if ((mask & 0x100f) == 0x100f) return 3; /* A 2 3 4 5 */
    return -1;
}

/* _eval_counts(counts): the best non-flush strength of 5..7 cards' rank counts */
static int64_t eval_counts(const int counts[13]) {
    int desc[13], nd = 0, quads = -1, trips[3], nt = 0, pairs[4], np = 0, mask = 0, r[5] = {0};
    for (int v = 12; v >= 0; v--) {
        if (!counts[v]) continue;
        desc[nd++] = v;
        mask |= 1 << v;
        if (counts[v] >= 4) {
            if (quads < 0) quads = v;
        } else if (counts[v] == 3) {
            trips[nt++] = v;
        } else if (counts[v] == 2) {
            pairs[np++] = v;
        }
    }
    if (quads >= 0) {
        r[0] = quads;
        for (int i = 0; i < nd; i++)
            if (desc[i] != quads) {
                r[1] = desc[i];
                break;
            }
        return pack(QUADS, r, 2);
    }
    if (nt >= 2 || (nt && np)) {
        /* the pair part: the greatest of the other trips and the pairs */
        int p = -1;
        for (int i = 1; i < nt; i++)
            if (trips[i] > p) p = trips[i];
        for (int i = 0; i < np; i++)
            if (pairs[i] > p) p = pairs[i];
        r[0] = trips[0], r[1] = p;
        return pack(FULL_HOUSE, r, 2);
    }
    int top = straight_top(mask);
    if (top >= 0) {
        r[0] = top;
        return pack(STRAIGHT, r, 1);
    }
    int n = 0;
    if (nt) {
        r[n++] = trips[0];
        for (int i = 0; i < nd && n < 3; i++)
            if (desc[i] != trips[0]) r[n++] = desc[i];
        return pack(TRIPS, r, n);
    }
    if (np >= 2) {
        r[n++] = pairs[0], r[n++] = pairs[1];
        for (int i = 0; i < nd; i++)
            if (desc[i] != pairs[0] && desc[i] != pairs[1]) {
                r[n++] = desc[i];
                break;
            }
        return pack(TWO_PAIR, r, n);
    }
    if (np) {
        r[n++] = pairs[0];
        for (int i = 0; i < nd && n < 4; i++)
            if (desc[i] != pairs[0]) r[n++] = desc[i];
        return pack(PAIR, r, n);
    }
    for (int i = 0; i < nd && n < 5; i++) r[n++] = desc[i];
    return pack(HIGH_CARD, r, n);
}

/* _eval_flush_mask(mask): the best flush or straight flush of >= 5 ranks of one suit */
static int64_t eval_flush_mask(int mask) {
    int r[5], n = 0;
    int top = straight_top(mask);
    if (top >= 0) {
        r[0] = top;
        return pack(STRAIGHT_FLUSH, r, 1);
    }
    for (int v = 12; v >= 0 && n < 5; v--)
        if (mask >> v & 1) r[n++] = v;
    return pack(FLUSH, r, n);
}

/* every count vector of 13 ranks summing to ``left`` more cards, at most 4 a rank */
static int fill(PyObject *out, int counts[13], int v, int left, int64_t key) {
    if (v == 13) {
        if (left) return 0;
        PyObject *k = PyLong_FromLongLong(key), *s = PyLong_FromLongLong(eval_counts(counts));
        int rc = (k && s) ? PyDict_SetItem(out, k, s) : -1;
        Py_XDECREF(k);
        Py_XDECREF(s);
        return rc;
    }
    for (int c = 0; c <= 4 && c <= left; c++) {
        counts[v] = c;
        if (fill(out, counts, v + 1, left - c, key + ((int64_t)c << (3 * v))) < 0) return -1;
    }
    counts[v] = 0;
    return 0;
}

PyObject *accel_poker_nonflush(PyObject *self, PyObject *unused) {
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    int counts[13] = {0};
    for (int n = 5; n <= 7; n++)
        if (fill(out, counts, 0, n, 0) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    return out;
}

PyObject *accel_poker_flush(PyObject *self, PyObject *unused) {
    PyObject *out = PyList_New(8192);
    if (out == NULL) return NULL;
    for (int mask = 0; mask < 8192; mask++) {
        int64_t s = __builtin_popcount(mask) >= 5 ? eval_flush_mask(mask) : 0;
        PyObject *v = PyLong_FromLongLong(s);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, mask, v);
    }
    return out;
}

int64_t accel_rank5_codes(const int *rank, const int *suit, const int *at) {
    int counts[13] = {0}, s0 = suit[at[0]], flush = 1, mask = 0;
    for (int j = 0; j < 5; j++) {
        if (suit[at[j]] != s0) flush = 0;
        mask |= 1 << rank[at[j]];
        counts[rank[at[j]]]++;
    }
    return flush ? eval_flush_mask(mask) : eval_counts(counts);
}

#define MAX_CARDS ACCEL_MAX_CARDS

/* ints of a sequence into ``out`` (each within [0, bound), at most MAX_CARDS of them); 0
 * where not, -1 on an error raised */
static int small_ints(PyObject *seq, int *out, Py_ssize_t *n, int bound) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (fast == NULL) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    int ok = len <= MAX_CARDS;
    for (Py_ssize_t i = 0; ok && i < len; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyLong_CheckExact(x)) {
            ok = 0;
            break;
        }
        long v = PyLong_AsLong(x);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            ok = 0;
            break;
        }
        if (v < 0 || v >= bound) ok = 0;
        else out[i] = (int)v;
    }
    Py_DECREF(fast);
    *n = len;
    return ok;
}

/* distinct cards given as rank values (0..12) and suit indexes (0..3), at most MAX_CARDS:
 * 1 with them read into rank, suit, their count in n and each suit's ranks in seen; 0
 * where they are not such (a value out of range or not an int, the two of different
 * lengths, a card twice); -1 on an error raised */
int accel_read_cards(PyObject *ranks, PyObject *suits, int *rank, int *suit, Py_ssize_t *n,
                     int seen[4]) {
    Py_ssize_t ns = 0;
    int ok = small_ints(ranks, rank, n, 13);
    if (ok == 1) ok = small_ints(suits, suit, &ns, 4);
    if (ok != 1) return ok;
    if (*n != ns) return 0;
    for (int s = 0; s < 4; s++) seen[s] = 0;
    for (Py_ssize_t i = 0; i < *n; i++) {
        if (seen[suit[i]] >> rank[i] & 1) return 0; /* a card twice */
        seen[suit[i]] |= 1 << rank[i];
    }
    return 1;
}

PyObject *accel_poker_rows5(PyObject *self, PyObject *args) {
    PyObject *ranks_in, *suits_in;
    if (!PyArg_ParseTuple(args, "OO", &ranks_in, &suits_in)) return NULL;
    int rank[MAX_CARDS], suit[MAX_CARDS], seen[4];
    Py_ssize_t n = 0;
    int ok = accel_read_cards(ranks_in, suits_in, rank, suit, &n, seen);
    if (ok < 0) return NULL;
    if (!ok || n < 5) Py_RETURN_NONE;
    Py_ssize_t total = 1; /* C(n, 5) */
    for (int i = 0; i < 5; i++) total = total * (n - i) / (i + 1);
    PyObject *out = PyList_New(total);
    if (out == NULL) return NULL;
    Py_ssize_t at = 0;
    int idx[5];
    int m = (int)n;
    for (idx[0] = 0; idx[0] < m; idx[0]++)
        for (idx[1] = idx[0] + 1; idx[1] < m; idx[1]++)
            for (idx[2] = idx[1] + 1; idx[2] < m; idx[2]++)
                for (idx[3] = idx[2] + 1; idx[3] < m; idx[3]++)
                    for (idx[4] = idx[3] + 1; idx[4] < m; idx[4]++) {
                        int64_t s = accel_rank5_codes(rank, suit, idx);
                        PyObject *v = PyLong_FromLongLong(s);
                        if (v == NULL) {
                            Py_DECREF(out);
                            return NULL;
                        }
                        PyList_SET_ITEM(out, at++, v);
                    }
    return out;
}

/* best_of over cards given by rank and suit (5..7 distinct cards) */
static int64_t best_codes(const int *rank, const int *suit, int n) {
    int counts[13] = {0}, smask[4] = {0};
    for (int i = 0; i < n; i++) {
        counts[rank[i]]++;
        smask[suit[i]] |= 1 << rank[i];
    }
    for (int s = 0; s < 4; s++)
        if (__builtin_popcount(smask[s]) >= 5) return eval_flush_mask(smask[s]);
    return eval_counts(counts);
}

PyObject *accel_poker_runout(PyObject *self, PyObject *args) {
    PyObject *ranks_in, *suits_in;
    int n_chu, n_han;
    if (!PyArg_ParseTuple(args, "OOii", &ranks_in, &suits_in, &n_chu, &n_han)) return NULL;
    int rank[MAX_CARDS], suit[MAX_CARDS], seen[4];
    Py_ssize_t n = 0;
    int ok = accel_read_cards(ranks_in, suits_in, rank, suit, &n, seen);
    if (ok < 0) return NULL;
    if (!ok || n_chu < 0 || n_han < 0 || n_chu + n_han > n) Py_RETURN_NONE;
    int n_board = (int)n - n_chu - n_han, need = 5 - n_board;
    /* each side holds its own cards and the board's five: 5 to 7 in all */
    if (need < 0 || n_chu > 2 || n_han > 2) Py_RETURN_NONE;
    int rest_rank[52], rest_suit[52], k = 0;
    for (int s = 0; s < 4; s++)
        for (int r = 0; r < 13; r++)
            if (!(seen[s] >> r & 1)) rest_rank[k] = r, rest_suit[k] = s, k++;
    /* each side's cards: its own, the board, then the completion's (filled per run-out) */
    int cr[7], cs[7], hr[7], hs[7];
    int nc = 0, nh = 0;
    for (int i = 0; i < n_chu; i++) cr[nc] = rank[i], cs[nc++] = suit[i];
    for (int i = 0; i < n_han; i++) hr[nh] = rank[n_chu + i], hs[nh++] = suit[n_chu + i];
    for (int i = n_chu + n_han; i < n; i++) {
        cr[nc] = rank[i], cs[nc++] = suit[i];
        hr[nh] = rank[i], hs[nh++] = suit[i];
    }
    long long chu_wins = 0, han_wins = 0, ties = 0;
    int idx[5];
    for (int i = 0; i < need; i++) idx[i] = i;
    if (need > k) Py_RETURN_NONE;
    for (;;) {
        for (int i = 0; i < need; i++) {
            cr[nc + i] = hr[nh + i] = rest_rank[idx[i]];
            cs[nc + i] = hs[nh + i] = rest_suit[idx[i]];
        }
        int64_t a = best_codes(cr, cs, nc + need), b = best_codes(hr, hs, nh + need);
        if (a > b) chu_wins++;
        else if (b > a) han_wins++;
        else ties++;
        /* the next combination of ``need`` of the k unseen cards */
        int i = need - 1;
        while (i >= 0 && idx[i] == k - need + i) i--;
        if (i < 0) break;
        idx[i]++;
        for (int j = i + 1; j < need; j++) idx[j] = idx[j - 1] + 1;
    }
    return Py_BuildValue("(LLL)", chu_wins, han_wins, ties);
}
