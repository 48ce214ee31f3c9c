/* croupier._accel: 十三水's automatic arrangement searched natively.
 *
 * shisanshui_split() is the search of croupier.games.shisanshui.hands._best_normal over
 * the rows it has already read: every 5-card row (back or middle) and every 3-card row
 * (front) of the 13 cards, each as (strength, share), in the order
 * itertools.combinations(range(13), k) gives them. It tries every back, in that order,
 * with every middle of the 8 cards left (combinations of them in ascending order), the
 * front being the 3 cards after that; a split is legal when the middle is no stronger
 * than the back and the front no stronger than the middle; the best is the greatest
 * (front share + middle share + back share, back strength, middle strength, front
 * strength), the first found among equals -- the pure loop's order and comparison, so
 * the same split. It answers the three rows' card masks (front, middle, back: bit i for
 * the i-th card), or None where the pure path must search: a strength or share that is
 * not an int within 62 bits, or rows not of the counts 13 cards give.
 * tests/property/test_accel_shisanshui.py compares the two over random hands.
 */
#include "_accel.h"

#include <stdint.h>

#define N_CARDS 13
#define N_FIVE 1287 /* C(13, 5) */
#define N_THREE 286 /* C(13, 3) */
#define LIMIT ((int64_t)1 << 62)

static int five_mask[N_FIVE];
static int16_t five_at[1 << N_CARDS];  /* a 5-card mask's index in combinations order */
static int16_t three_at[1 << N_CARDS]; /* a 3-card mask's index */
static int ready = 0;

static void tables(void) {
    int n5 = 0, n3 = 0;
    for (int m = 0; m < (1 << N_CARDS); m++) five_at[m] = three_at[m] = -1;
    /* combinations(range(13), k) in lexicographic order of the index tuples */
    for (int a = 0; a < N_CARDS; a++)
        for (int b = a + 1; b < N_CARDS; b++)
            for (int c = b + 1; c < N_CARDS; c++) {
                three_at[(1 << a) | (1 << b) | (1 << c)] = (int16_t)n3++;
                for (int d = c + 1; d < N_CARDS; d++)
                    for (int e = d + 1; e < N_CARDS; e++) {
                        int m = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e);
                        five_mask[n5] = m;
                        five_at[m] = (int16_t)n5++;
                    }
            }
    /* the 5-card loop above visits (a, b, c, d, e) in lexicographic order too */
    ready = 1;
}

/* (strength, share) pairs of a list as int64 pairs; 0 when any is not an int within
 * LIMIT (or not a pair), -1 on an error raised. */
static int read_rows(PyObject *rows, Py_ssize_t n, int64_t *strength, int64_t *share) {
    if (!PyList_Check(rows) || PyList_GET_SIZE(rows) != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 2) return 0;
        PyObject *s = PyTuple_GET_ITEM(row, 0), *p = PyTuple_GET_ITEM(row, 1);
        if (!PyLong_CheckExact(s) || !PyLong_CheckExact(p)) return 0;
        int overflow = 0;
        long long sv = PyLong_AsLongLongAndOverflow(s, &overflow);
        if (overflow || sv >= LIMIT || sv <= -LIMIT) return 0;
        long long pv = PyLong_AsLongLongAndOverflow(p, &overflow);
        if (overflow || pv >= LIMIT || pv <= -LIMIT) return 0;
        if ((sv == -1 || pv == -1) && PyErr_Occurred()) return -1;
        strength[i] = sv;
        share[i] = pv;
    }
    return 1;
}

PyObject *accel_shisanshui_split(PyObject *self, PyObject *args) {
    PyObject *five, *three;
    if (!PyArg_ParseTuple(args, "OO", &five, &three)) return NULL;
    if (!ready) tables();
    static int64_t s5[N_FIVE], p5[N_FIVE], s3[N_THREE], p3[N_THREE];
    int ok = read_rows(five, N_FIVE, s5, p5);
    if (ok == 1) ok = read_rows(three, N_THREE, s3, p3);
    if (ok < 0) return NULL;
    if (ok == 0) Py_RETURN_NONE;
    /* shares are each below 2**62 but their sum may not be: three of them must fit */
    for (int i = 0; i < N_FIVE; i++)
        if (p5[i] < 0 || p5[i] >= ((int64_t)1 << 60)) Py_RETURN_NONE;
    for (int i = 0; i < N_THREE; i++)
        if (p3[i] < 0 || p3[i] >= ((int64_t)1 << 60)) Py_RETURN_NONE;
    const int full = (1 << N_CARDS) - 1;
    int found = 0, best_f = 0, best_m = 0, best_b = 0;
    int64_t bt = 0, bsb = 0, bsm = 0, bsf = 0;
    for (int bi = 0; bi < N_FIVE; bi++) {
        int b_mask = five_mask[bi];
        int64_t sb = s5[bi], pb = p5[bi];
        int rest[8], k = 0;
        for (int i = 0; i < N_CARDS; i++)
            if (!(b_mask >> i & 1)) rest[k++] = 1 << i;
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++)
                for (int c = b + 1; c < 8; c++)
                    for (int d = c + 1; d < 8; d++)
                        for (int e = d + 1; e < 8; e++) {
                            int m_mask = rest[a] | rest[b] | rest[c] | rest[d] | rest[e];
                            int mi = five_at[m_mask];
                            int64_t sm = s5[mi];
                            if (sm > sb) continue;
                            int f_mask = full ^ b_mask ^ m_mask;
                            int fi = three_at[f_mask];
                            int64_t sf = s3[fi];
                            if (sf > sm) continue;
                            int64_t total = p3[fi] + p5[mi] + pb;
                            int better = !found || total > bt ||
                                         (total == bt &&
                                          (sb > bsb ||
                                           (sb == bsb && (sm > bsm || (sm == bsm && sf > bsf)))));
                            if (better) {
                                found = 1;
                                bt = total, bsb = sb, bsm = sm, bsf = sf;
                                best_f = f_mask, best_m = m_mask, best_b = b_mask;
                            }
                        }
    }
    if (!found) Py_RETURN_NONE;
    return Py_BuildValue("(iii)", best_f, best_m, best_b);
}
