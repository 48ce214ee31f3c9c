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
 * not an int within 62 bits, or rows not of the counts 13 cards give. The backs are
 * met greatest share first and those (and the middles) that cannot reach the best total
 * found are passed over where the shares grow with the strengths, as real rows' do; the
 * answer is still the pure loop's (see split()).
 *
 * shisanshui_best() reads the rows itself from the 13 cards (rank values and suit
 * indexes): each 5-card row's strength as rank5 gives it (_accel_poker.c) and its share
 * from the table shisanshui_bind() was given once (every 5-card strength's share), each
 * front's (strength, share) from the bound table by its ranks -- what hands._rows reads
 * -- then searches them as shisanshui_split() does.
 * tests/property/test_accel_shisanshui.py compares these with the pure search and
 * reading over random hands and rows.
 */
#include "_accel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_CARDS 13
#define N_FIVE 1287 /* C(13, 5) */
#define N_THREE 286 /* C(13, 3) */
#define LIMIT ((int64_t)1 << 62)

static int five_mask[N_FIVE];
static int16_t five_at[1 << N_CARDS];  /* a 5-card mask's index in combinations order */
static int16_t three_at[1 << N_CARDS]; /* a 3-card mask's index */
static int three_mask[N_THREE];
static int ready = 0;

static void tables(void) {
    int n5 = 0, n3 = 0;
    for (int m = 0; m < (1 << N_CARDS); m++) five_at[m] = three_at[m] = -1;
    /* combinations(range(13), k) in lexicographic order of the index tuples */
    for (int a = 0; a < N_CARDS; a++)
        for (int b = a + 1; b < N_CARDS; b++)
            for (int c = b + 1; c < N_CARDS; c++) {
                three_mask[n3] = (1 << a) | (1 << b) | (1 << c);
                three_at[three_mask[n3]] = (int16_t)n3;
                n3++;
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

/* the backs by share, greatest first, then by index (the order stable) */
static const int64_t *sort_share;
static int by_share(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (sort_share[x] != sort_share[y]) return sort_share[x] < sort_share[y] ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* The search over read rows: the best split's masks in f, m, b; 0 where no split is
 * legal. */
static int split(const int64_t *s5, const int64_t *p5, const int64_t *s3, const int64_t *p3,
                 int *out_f, int *out_m, int *out_b) {
    /* The backs are tried strongest share first, and the search keeps the pure loop's
     * answer: among splits equal on the whole key the first in the pure loop's order
     * (back index, then middle index: the middles of a back come in ascending index)
     * wins, whatever order they are met in. A back, or a middle, is passed over when
     * no split of it can reach the best total found: shares grow with strength, so a
     * legal middle's share is at most its back's, and a front's at most the greatest
     * front share. Equal totals are never passed over (their strengths decide). Rows
     * whose shares do not grow with strength are searched whole, in the same order. */
    static int order[N_FIVE];
    for (int i = 0; i < N_FIVE; i++) order[i] = i;
    sort_share = p5;
    qsort(order, N_FIVE, sizeof(int), by_share);
    /* shares grow with strength in every row real cards give; rows where they do not
     * (a test's) are searched whole: a higher share's row must be the stronger */
    int prune = 1;
    int64_t floor_s = INT64_MAX, group_min = INT64_MAX;
    for (int i = 0; i < N_FIVE && prune; i++) {
        int x = order[i];
        if (i > 0 && p5[x] != p5[order[i - 1]]) {
            if (group_min < floor_s) floor_s = group_min;
            group_min = INT64_MAX;
        }
        if (s5[x] >= floor_s) prune = 0;
        if (s5[x] < group_min) group_min = s5[x];
    }
    int64_t top3 = 0;
    for (int i = 0; i < N_THREE; i++)
        if (p3[i] > top3) top3 = p3[i];
    const int full = (1 << N_CARDS) - 1;
    int found = 0, best_f = 0, best_m = 0, best_b = 0, best_bi = 0, best_mi = 0;
    int64_t bt = 0, bsb = 0, bsm = 0, bsf = 0;
    for (int oi = 0; oi < N_FIVE; oi++) {
        int bi = order[oi];
        int b_mask = five_mask[bi];
        int64_t sb = s5[bi], pb = p5[bi];
        if (prune && found && pb + pb + top3 < bt) break; /* the backs after it share no more */
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
                            if (prune && found && pb + p5[mi] + top3 < bt) continue;
                            int f_mask = full ^ b_mask ^ m_mask;
                            int fi = three_at[f_mask];
                            int64_t sf = s3[fi];
                            if (sf > sm) continue;
                            int64_t total = p3[fi] + p5[mi] + pb;
                            int better =
                                !found || total > bt ||
                                (total == bt &&
                                 (sb > bsb ||
                                  (sb == bsb &&
                                   (sm > bsm ||
                                    (sm == bsm &&
                                     (sf > bsf ||
                                      (sf == bsf &&
                                       (bi < best_bi || (bi == best_bi && mi < best_mi)))))))));
                            if (better) {
                                found = 1;
                                bt = total, bsb = sb, bsm = sm, bsf = sf;
                                best_f = f_mask, best_m = m_mask, best_b = b_mask;
                                best_bi = bi, best_mi = mi;
                            }
                        }
    }
    *out_f = best_f, *out_m = best_m, *out_b = best_b;
    return found;
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
    int f, m, b;
    if (!split(s5, p5, s3, p3, &f, &m, &b)) Py_RETURN_NONE;
    return Py_BuildValue("(iii)", f, m, b);
}

/* The shares shisanshui_best reads, bound once by shisanshui_bind: every 5-card strength
 * (ascending) with its share, and a front's (strength, share) by its three rank values
 * (r1 * 169 + r2 * 13 + r3, in any order). */
#define N_FRONT (13 * 13 * 13)
static int64_t *bound_s5 = NULL, *bound_p5 = NULL;
static Py_ssize_t bound_n5 = 0;
static int64_t front_s[N_FRONT], front_p[N_FRONT];

PyObject *accel_shisanshui_bind(PyObject *self, PyObject *args) {
    PyObject *strengths, *shares, *fronts;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &strengths, &PyList_Type, &shares,
                          &PyList_Type, &fronts))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(strengths);
    if (n == 0 || PyList_GET_SIZE(shares) != n) {
        PyErr_SetString(PyExc_ValueError, "as many shares as strengths, at least one");
        return NULL;
    }
    int64_t *s = PyMem_Malloc(n * sizeof(int64_t)), *p = PyMem_Malloc(n * sizeof(int64_t));
    if (s == NULL || p == NULL) {
        PyMem_Free(s);
        PyMem_Free(p);
        return PyErr_NoMemory();
    }
    static int64_t fs[N_FRONT], fp[N_FRONT];
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        int overflow = 0;
        s[i] = PyLong_AsLongLongAndOverflow(PyList_GET_ITEM(strengths, i), &overflow);
        ok = !overflow && !PyErr_Occurred() && s[i] >= 0 && s[i] < LIMIT && (!i || s[i] > s[i - 1]);
        if (!ok) break;
        p[i] = PyLong_AsLongLongAndOverflow(PyList_GET_ITEM(shares, i), &overflow);
        ok = !overflow && !PyErr_Occurred() && p[i] >= 0 && p[i] < ((int64_t)1 << 60);
    }
    if (ok) ok = read_rows(fronts, N_FRONT, fs, fp) == 1;
    for (int i = 0; ok && i < N_FRONT; i++) ok = fp[i] >= 0 && fp[i] < ((int64_t)1 << 60);
    if (!ok) {
        PyMem_Free(s);
        PyMem_Free(p);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError,
                            "strengths ascending, shares and fronts' values within 60 bits");
        return NULL;
    }
    PyMem_Free(bound_s5);
    PyMem_Free(bound_p5);
    bound_s5 = s, bound_p5 = p, bound_n5 = n;
    memcpy(front_s, fs, sizeof fs);
    memcpy(front_p, fp, sizeof fp);
    Py_RETURN_NONE;
}

/* the share of a 5-card strength, or -1 where none is bound */
static int64_t share5(int64_t strength) {
    Py_ssize_t lo = 0, hi = bound_n5;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (bound_s5[mid] < strength) lo = mid + 1;
        else hi = mid;
    }
    return lo < bound_n5 && bound_s5[lo] == strength ? bound_p5[lo] : -1;
}

PyObject *accel_shisanshui_best(PyObject *self, PyObject *args) {
    PyObject *ranks_in, *suits_in;
    if (!PyArg_ParseTuple(args, "OO", &ranks_in, &suits_in)) return NULL;
    if (bound_s5 == NULL) Py_RETURN_NONE;
    int rank[ACCEL_MAX_CARDS], suit[ACCEL_MAX_CARDS], seen[4];
    Py_ssize_t n = 0;
    int ok = accel_read_cards(ranks_in, suits_in, rank, suit, &n, seen);
    if (ok < 0) return NULL;
    if (!ok || n != N_CARDS) Py_RETURN_NONE;
    if (!ready) tables();
    static int64_t s5[N_FIVE], p5[N_FIVE], s3[N_THREE], p3[N_THREE];
    for (int i = 0; i < N_FIVE; i++) {
        int at[5], k = 0;
        for (int j = 0; j < N_CARDS; j++)
            if (five_mask[i] >> j & 1) at[k++] = j;
        s5[i] = accel_rank5_codes(rank, suit, at);
        p5[i] = share5(s5[i]);
        if (p5[i] < 0) Py_RETURN_NONE;
    }
    for (int i = 0; i < N_THREE; i++) {
        int at[3], k = 0;
        for (int j = 0; j < N_CARDS; j++)
            if (three_mask[i] >> j & 1) at[k++] = j;
        int x = rank[at[0]] * 169 + rank[at[1]] * 13 + rank[at[2]];
        s3[i] = front_s[x], p3[i] = front_p[x];
    }
    int f, m, b;
    if (!split(s5, p5, s3, p3, &f, &m, &b)) Py_RETURN_NONE;
    return Py_BuildValue("(iii)", f, m, b);
}
