/* croupier._accel: the optional native path of the house settlement (this file, which
 * holds the module), of canonical text and the event chain (_accel_chain.c), of a
 * baccarat hand's steps (_accel_baccarat.c), of 十三水's automatic arrangement
 * (_accel_shisanshui.c), of the Hold'em evaluator's tables (_accel_poker.c) and of
 * whether mahjong tiles win (_accel_mahjong.c).
 *
 * One function, house_rows(), computes what croupier.money.settle._settle_exact_rows
 * computes for wagers against the house whose rake is on each participant's net (no
 * per-unit basis): each participant's stake, the theoretical claims in 1/scale minor
 * units, the payments truncated from their receivers, the rake on the rounded nets
 * (rate, cap, exemptions), the deltas, and the settlement record at the current record
 * version as canonical JSON bytes (UTF-8, keys sorted by code point, no white space) --
 * byte for byte what the pure-Python kernel renders, which tests/property/test_accel_differential.py
 * checks over every variant's hands and over random wagers.
 *
 * It answers None, and the caller takes the pure-Python path, for anything it does not
 * do exactly: an amount past 63 bits, a string JSON would escape or that is not valid
 * UTF-8, a result that is not a Fraction. It never raises for such input; an exception
 * means a bug or no memory. The arithmetic is the pure path's, in int64 with every
 * operation checked for overflow.
 */
#include "_accel.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ output buffer */

typedef struct {
    char *p;
    Py_ssize_t n, cap;
    int failed; /* out of memory */
} Buf;

static int buf_grow(Buf *b, Py_ssize_t more) {
    if (b->failed) return -1;
    if (b->n + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 8192;
    while (cap < b->n + more) cap *= 2;
    char *p = PyMem_Realloc(b->p, (size_t)cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline void put(Buf *b, const char *s, Py_ssize_t n) {
    if (b->n + n > b->cap && buf_grow(b, n) < 0) return;
    memcpy(b->p + b->n, s, (size_t)n);
    b->n += n;
}

#define PUTS(b, lit) put((b), (lit), (Py_ssize_t)(sizeof(lit) - 1))

static inline void put_int(Buf *b, int64_t v) {
    char tmp[24], *end = tmp + sizeof tmp, *p = end;
    /* the magnitude as unsigned: -INT64_MIN does not fit an int64 */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    put(b, p, end - p);
}

/* "num/den" of value/scale, reduced (the sign on the numerator). */
static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void put_frac(Buf *b, int64_t value, int64_t scale) {
    int64_t g = value ? gcd64(value, scale) : scale;
    put(b, "\"", 1);
    put_int(b, value / g);
    put(b, "/", 1);
    put_int(b, scale / g);
    put(b, "\"", 1);
}

/* A string as UTF-8, checked once: valid and needing no JSON escape. */
typedef struct {
    const char *s;
    Py_ssize_t n;
} Text;

/* 1: ok; 0: not a plain str JSON writes as itself (the caller declines); -1: error. */
static int text_of(PyObject *o, Text *t) {
    if (!PyUnicode_Check(o)) return 0; /* a subclass (StrEnum) is written as its text */
    const char *s = PyUnicode_AsUTF8AndSize(o, &t->n);
    if (!s) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear(); /* a lone surrogate: the pure path words the error */
            return 0;
        }
        return -1;
    }
    for (Py_ssize_t i = 0; i < t->n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"' || c == '\\') return 0;
    }
    t->s = s;
    return 1;
}

static inline void put_text(Buf *b, const Text *t) {
    put(b, "\"", 1);
    put(b, t->s, t->n);
    put(b, "\"", 1);
}

/* {"name":value,...} over the participants in ``order`` (code-point order), leaving out
 * ``skip`` (-1: none) and, with ``nonzero``, the zeros; the values are integers, or the
 * fractions value/scale where ``scale`` > 0. */
static void put_map(Buf *b, const Py_ssize_t *order, Py_ssize_t np, const Text *names,
                    const int64_t *values, Py_ssize_t skip, int64_t scale, int nonzero) {
    int first = 1;
    put(b, "{", 1);
    for (Py_ssize_t i = 0; i < np; i++) {
        Py_ssize_t p = order[i];
        if (p == skip || (nonzero && !values[p])) continue;
        if (!first) put(b, ",", 1);
        first = 0;
        put_text(b, &names[p]);
        put(b, ":", 1);
        if (scale > 0)
            put_frac(b, values[p], scale);
        else
            put_int(b, values[p]);
    }
    put(b, "}", 1);
}

/* A line's last keys: "payee":..,"payer":..,"spot":..} */
static void put_parties(Buf *b, const Text *payee, const Text *payer, const Text *spot) {
    PUTS(b, "\"payee\":");
    put_text(b, payee);
    PUTS(b, ",\"payer\":");
    put_text(b, payer);
    PUTS(b, ",\"spot\":");
    put_text(b, spot);
    PUTS(b, "}");
}

/* A step's "rule":..,"source":..,"step":.. */
static void put_rule(Buf *b, const Text *rule, const Text *source, const Text *kind) {
    PUTS(b, "\"rule\":");
    put_text(b, rule);
    PUTS(b, ",\"source\":");
    put_text(b, source);
    PUTS(b, ",\"step\":");
    put_text(b, kind);
}

/* ------------------------------------------------------------------ the kernel */

typedef struct {
    PyObject *obj; /* the result object (rows share one per spot and outcome) */
    int64_t num, den;
    int pays;          /* the house pays (num >= 0) */
    int64_t per_unit;  /* |num| in 1/scale units per minor unit staked */
} Result;

typedef struct {
    Py_ssize_t player, result;
    PyObject *spot;
    Text spot_text;
    int64_t stake, amount;
} Row;

typedef struct {
    Py_ssize_t player; /* payer is the player when !pays */
    PyObject *spot;
    Text spot_text;
    int pays;
    int64_t amount;
} Owed;

typedef struct {
    Py_ssize_t who;
    PyObject *spot;
    Text spot_text;
    int64_t total;
} SpotTotal;

/* Code-point order (Python's for str); both are str objects, so no error path. */
static int str_cmp(PyObject *a, PyObject *b) {
    if (a == b) return 0;
    return PyUnicode_Compare(a, b);
}

static int str_eq(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    return PyUnicode_Compare(a, b) == 0;
}

static PyObject *s_numerator, *s_denominator, *s_numerator_slot, *s_denominator_slot;
static PyObject *fraction_type; /* fractions.Fraction */

static PyObject **sort_names; /* for the comparators below (the GIL is held) */

static int by_name(const void *x, const void *y) {
    Py_ssize_t i = *(const Py_ssize_t *)x, j = *(const Py_ssize_t *)y;
    return str_cmp(sort_names[i], sort_names[j]);
}

static int by_spot(const void *x, const void *y) {
    const SpotTotal *a = x, *b = y;
    return str_cmp(a->spot, b->spot);
}

#define CHECKED(expr)          \
    do {                       \
        if (expr) goto decline; \
    } while (0)

static int64_t lcm64(int64_t a, int64_t b, int *overflow) {
    int64_t g = gcd64(a, b);
    int64_t out;
    if (__builtin_mul_overflow(a / g, b, &out)) *overflow = 1;
    return out;
}

/* house_rows(rows, house, hand_id, rate_num, rate_den, cap, exempt, texts, version)
 *
 * rows:    list of (participant, spot, amount, result) as _settle_rows takes them
 * exempt:  the rake policy's exempt participants, sorted
 * texts:   (rule and source of the theoretical step, rule and source of the rounding
 *          step, rule and source of the rake step, the three step kinds' values)
 * Returns (record bytes, participants, deltas, rakes, total rake, staked, returned) or
 * None. */
static PyObject *house_rows(PyObject *self, PyObject *args) {
    PyObject *rows, *house, *hand_id, *cap_obj, *exempt, *texts;
    long long rate_num, rate_den;
    int version;
    if (!PyArg_ParseTuple(args, "O!UULLOO!O!i", &PyList_Type, &rows, &house, &hand_id,
                          &rate_num, &rate_den, &cap_obj, &PyTuple_Type, &exempt,
                          &PyTuple_Type, &texts, &version))
        return NULL;
    if (PyTuple_GET_SIZE(texts) != 9) {
        PyErr_SetString(PyExc_ValueError, "texts: nine strings");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(rows);
    PyObject *ret = NULL, *index = NULL, *body = NULL, *names_t = NULL;
    PyObject *deltas_d = NULL, *rakes_d = NULL, *staked_d = NULL, *returned_d = NULL;
    Buf b = {0};
    Row *row = NULL;
    Result *res = NULL;
    Owed *owed = NULL;
    SpotTotal *st = NULL;
    PyObject **names = NULL;
    Text *name_text = NULL;
    int64_t *staked = NULL, *theo = NULL, *nets = NULL, *kept = NULL, *rakes = NULL;
    int64_t *deltas = NULL, *returned = NULL;
    Py_ssize_t *order = NULL;
    int *is_exempt = NULL;
    Py_ssize_t np = 0, nr = 0, no = 0, ns = 0;
    int overflow = 0, ok;
    Text t_house, t_hand, tx[9];
    int64_t cap = -1;

    if (n == 0) Py_RETURN_NONE; /* nothing staked: the pure path's record */
    if (rate_num < 0 || rate_den <= 0) Py_RETURN_NONE;
    if (cap_obj != Py_None) {
        if (!PyLong_CheckExact(cap_obj)) Py_RETURN_NONE;
        cap = PyLong_AsLongLongAndOverflow(cap_obj, &overflow);
        if (overflow || cap < 0) Py_RETURN_NONE;
        if (cap == -1 && PyErr_Occurred()) return NULL;
    }
    if ((ok = text_of(house, &t_house)) != 1) return ok < 0 ? NULL : Py_NewRef(Py_None);
    if ((ok = text_of(hand_id, &t_hand)) != 1) return ok < 0 ? NULL : Py_NewRef(Py_None);
    for (int i = 0; i < 9; i++)
        if ((ok = text_of(PyTuple_GET_ITEM(texts, i), &tx[i])) != 1)
            return ok < 0 ? NULL : Py_NewRef(Py_None);

    row = PyMem_Calloc((size_t)n, sizeof *row);
    res = PyMem_Calloc((size_t)n, sizeof *res);
    owed = PyMem_Calloc((size_t)n, sizeof *owed);
    st = PyMem_Calloc((size_t)(2 * n), sizeof *st);
    names = PyMem_Calloc((size_t)(n + 1), sizeof *names);
    name_text = PyMem_Calloc((size_t)(n + 1), sizeof *name_text);
    staked = PyMem_Calloc((size_t)(n + 1), sizeof *staked);
    theo = PyMem_Calloc((size_t)(n + 1), sizeof *theo);
    nets = PyMem_Calloc((size_t)(n + 1), sizeof *nets);
    kept = PyMem_Calloc((size_t)(n + 1), sizeof *kept);
    rakes = PyMem_Calloc((size_t)(n + 1), sizeof *rakes);
    deltas = PyMem_Calloc((size_t)(n + 1), sizeof *deltas);
    returned = PyMem_Calloc((size_t)(n + 1), sizeof *returned);
    order = PyMem_Calloc((size_t)(n + 1), sizeof *order);
    is_exempt = PyMem_Calloc((size_t)(n + 1), sizeof *is_exempt);
    index = PyDict_New();
    if (!row || !res || !owed || !st || !names || !name_text || !staked || !theo || !nets ||
        !kept || !rakes || !deltas || !returned || !order || !is_exempt || !index) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }

    /* each row: its participant (in order of first stake), its result (each distinct
     * object once), its stake */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = PyList_GET_ITEM(rows, i);
        if (!PyTuple_CheckExact(r) || PyTuple_GET_SIZE(r) != 4) goto decline;
        PyObject *who = PyTuple_GET_ITEM(r, 0), *spot = PyTuple_GET_ITEM(r, 1);
        PyObject *amount = PyTuple_GET_ITEM(r, 2), *result = PyTuple_GET_ITEM(r, 3);
        Row *w = &row[i];
        if ((ok = text_of(spot, &w->spot_text)) != 1) goto decline_or_fail;
        w->spot = spot;
        if (!PyLong_CheckExact(amount)) goto decline;
        w->stake = PyLong_AsLongLongAndOverflow(amount, &overflow);
        if (overflow || w->stake < 0) goto decline;
        if (w->stake == -1 && PyErr_Occurred()) goto done;
        if (!PyUnicode_Check(who)) goto decline; /* the pure path words the error */
        PyObject *at = PyDict_GetItemWithError(index, who);
        if (at) {
            w->player = PyLong_AsSsize_t(at);
        } else {
            if (PyErr_Occurred()) goto done;
            if ((ok = text_of(who, &name_text[np])) != 1) goto decline_or_fail;
            PyObject *k = PyLong_FromSsize_t(np);
            if (!k || PyDict_SetItem(index, who, k) < 0) {
                Py_XDECREF(k);
                goto done;
            }
            Py_DECREF(k);
            names[np] = who;
            w->player = np++;
        }
        CHECKED(__builtin_add_overflow(staked[w->player], w->stake, &staked[w->player]));
        Py_ssize_t j = 0;
        while (j < nr && res[j].obj != result) j++;
        if (j == nr) {
            /* a Fraction's slots (its properties are Python functions); a subclass
             * through its properties */
            int plain = Py_TYPE(result) == (PyTypeObject *)fraction_type;
            PyObject *num = PyObject_GetAttr(result, plain ? s_numerator_slot : s_numerator);
            PyObject *den =
                num ? PyObject_GetAttr(result, plain ? s_denominator_slot : s_denominator)
                    : NULL;
            if (!num || !den) {
                Py_XDECREF(num);
                goto done;
            }
            long long nv = PyLong_AsLongLongAndOverflow(num, &overflow);
            int o2 = 0;
            long long dv = PyLong_AsLongLongAndOverflow(den, &o2);
            Py_DECREF(num);
            Py_DECREF(den);
            if (PyErr_Occurred()) goto done;
            if (overflow || o2 || dv <= 0 || nv == LLONG_MIN) goto decline;
            res[nr].obj = result;
            res[nr].num = nv;
            res[nr].den = dv;
            res[nr].pays = nv >= 0;
            nr++;
        }
        w->result = j;
    }
    Py_ssize_t house_at = np;
    names[np] = house;
    name_text[np] = t_house;
    np++;

    /* scale: the least common multiple of the results' denominators */
    int64_t scale = 1;
    for (Py_ssize_t j = 0; j < nr; j++) scale = lcm64(scale, res[j].den, &overflow);
    if (overflow) goto decline;
    for (Py_ssize_t j = 0; j < nr; j++) {
        int64_t m = res[j].num < 0 ? -res[j].num : res[j].num;
        CHECKED(__builtin_mul_overflow(m, scale / res[j].den, &res[j].per_unit));
    }

    /* the theoretical claims and what each (payer, payee, spot) is owed */
    int64_t house_theo = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Row *w = &row[i];
        Result *r = &res[w->result];
        CHECKED(__builtin_mul_overflow(w->stake, r->per_unit, &w->amount));
        if (r->pays) {
            CHECKED(__builtin_add_overflow(theo[w->player], w->amount, &theo[w->player]));
        } else {
            CHECKED(__builtin_sub_overflow(theo[w->player], w->amount, &theo[w->player]));
        }
        Py_ssize_t k = 0;
        for (; k < no; k++)
            if (owed[k].player == w->player && owed[k].pays == r->pays &&
                str_eq(owed[k].spot, w->spot))
                break;
        if (k == no) {
            owed[no].player = w->player;
            owed[no].spot = w->spot;
            owed[no].spot_text = w->spot_text;
            owed[no].pays = r->pays;
            owed[no].amount = 0;
            no++;
        }
        CHECKED(__builtin_add_overflow(owed[k].amount, w->amount, &owed[k].amount));
    }
    for (Py_ssize_t p = 0; p < house_at; p++)
        CHECKED(__builtin_sub_overflow(house_theo, theo[p], &house_theo));
    theo[house_at] = house_theo;

    /* rounding: each amount owed truncated from its receiver to whole minor units */
    for (Py_ssize_t k = 0; k < no; k++) {
        Owed *o = &owed[k];
        Py_ssize_t payer = o->pays ? house_at : o->player;
        Py_ssize_t payee = o->pays ? o->player : house_at;
        int64_t paid = o->amount / scale;
        CHECKED(__builtin_add_overflow(kept[payer], o->amount - paid * scale, &kept[payer]));
        CHECKED(__builtin_sub_overflow(nets[payer], paid, &nets[payer]));
        CHECKED(__builtin_add_overflow(nets[payee], paid, &nets[payee]));
        Py_ssize_t who[2] = {payee, payer};
        for (int s = 0; s < 2; s++) {
            Py_ssize_t m = 0;
            for (; m < ns; m++)
                if (st[m].who == who[s] && str_eq(st[m].spot, o->spot)) break;
            if (m == ns) {
                st[ns].who = who[s];
                st[ns].spot = o->spot;
                st[ns].spot_text = o->spot_text;
                st[ns].total = 0;
                ns++;
            }
            if (s == 0) {
                CHECKED(__builtin_add_overflow(st[m].total, paid, &st[m].total));
            } else {
                CHECKED(__builtin_sub_overflow(st[m].total, paid, &st[m].total));
            }
        }
    }

    /* rake on each participant's rounded net, truncated, then capped pro rata */
    for (Py_ssize_t e = 0; e < PyTuple_GET_SIZE(exempt); e++) {
        PyObject *x = PyTuple_GET_ITEM(exempt, e);
        Text unused;
        if ((ok = text_of(x, &unused)) != 1) goto decline_or_fail;
        for (Py_ssize_t p = 0; p < np; p++)
            if (str_eq(names[p], x)) is_exempt[p] = 1;
    }
    int64_t total = 0;
    for (Py_ssize_t p = 0; p < np; p++) {
        int64_t r = 0;
        if (nets[p] > 0 && rate_num && !is_exempt[p]) {
            __int128 q = (__int128)nets[p] * rate_num / rate_den;
            r = (int64_t)q;
        }
        rakes[p] = r;
        CHECKED(__builtin_add_overflow(total, r, &total));
    }
    if (cap >= 0 && total > cap) {
        int64_t capped = 0;
        for (Py_ssize_t p = 0; p < np; p++) {
            rakes[p] = (int64_t)((__int128)rakes[p] * cap / total);
            capped += rakes[p];
        }
        total = capped;
    }

    /* the deltas, and what each player is handed back (stake + rounded net) */
    for (Py_ssize_t p = 0; p < np; p++) {
        CHECKED(__builtin_sub_overflow(nets[p], rakes[p], &deltas[p]));
        CHECKED(__builtin_add_overflow(staked[p], nets[p], &returned[p]));
    }

    /* participants in code-point order, for the record's objects */
    for (Py_ssize_t p = 0; p < np; p++) order[p] = p;
    sort_names = names;
    qsort(order, (size_t)np, sizeof *order, by_name);
    if (PyErr_Occurred()) goto done;

    /* the record, its keys in code-point order */
#define KEY(lit) PUTS(&b, "\"" lit "\":")
#define SEP(i) \
    if (i) PUTS(&b, ",")
    PUTS(&b, "{");
    KEY("deltas");
    put_map(&b, order, np, name_text, deltas, -1, 0, 0);
    PUTS(&b, ",");
    KEY("hand_id");
    put_text(&b, &t_hand);
    PUTS(&b, ",");
    KEY("participants");
    PUTS(&b, "[");
    for (Py_ssize_t p = 0; p < np; p++) {
        SEP(p);
        put_text(&b, &name_text[p]);
    }
    PUTS(&b, "],");
    KEY("pots");
    PUTS(&b, "[],");
    KEY("rake");
    put_map(&b, order, np, name_text, rakes, -1, 0, 0);
    PUTS(&b, ",");
    KEY("record_version");
    put_int(&b, version);
    PUTS(&b, ",");
    KEY("returned");
    put_map(&b, order, np, name_text, returned, house_at, 0, 0);
    PUTS(&b, ",");
    KEY("spots");
    PUTS(&b, "[");
    {
        /* per participant in seat order, its spots in code-point order */
        int first = 1;
        SpotTotal *mine = PyMem_Calloc((size_t)(ns ? ns : 1), sizeof *mine);
        if (!mine) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t p = 0; p < np; p++) {
            Py_ssize_t m = 0;
            for (Py_ssize_t s = 0; s < ns; s++)
                if (st[s].who == p) mine[m++] = st[s];
            qsort(mine, (size_t)m, sizeof *mine, by_spot);
            for (Py_ssize_t s = 0; s < m; s++) {
                if (!first) PUTS(&b, ",");
                first = 0;
                PUTS(&b, "{");
                KEY("amount");
                put_int(&b, mine[s].total);
                PUTS(&b, ",");
                KEY("participant");
                put_text(&b, &name_text[p]);
                PUTS(&b, ",");
                KEY("spot");
                put_text(&b, &mine[s].spot_text);
                PUTS(&b, "}");
            }
        }
        PyMem_Free(mine);
        if (PyErr_Occurred()) goto done;
    }
    PUTS(&b, "],");
    KEY("staked");
    put_map(&b, order, np, name_text, staked, house_at, 0, 0);
    PUTS(&b, ",");
    KEY("steps");
    /* the theoretical step */
    PUTS(&b, "[{");
    KEY("claims");
    PUTS(&b, "[");
    for (Py_ssize_t i = 0; i < n; i++) {
        Row *w = &row[i];
        Result *r = &res[w->result];
        const Text *payer = r->pays ? &t_house : &name_text[w->player];
        const Text *payee = r->pays ? &name_text[w->player] : &t_house;
        SEP(i);
        PUTS(&b, "{");
        KEY("amount");
        put_frac(&b, w->amount, scale);
        PUTS(&b, ",");
        KEY("base");
        put_int(&b, w->stake);
        PUTS(&b, ",");
        KEY("factors");
        PUTS(&b, "[");
        put_frac(&b, r->num < 0 ? -r->num : r->num, r->den);
        PUTS(&b, "],");
        put_parties(&b, payee, payer, &w->spot_text);
    }
    PUTS(&b, "],");
    KEY("nets");
    put_map(&b, order, np, name_text, theo, -1, scale, 0);
    PUTS(&b, ",");
    put_rule(&b, &tx[0], &tx[1], &tx[6]);
    /* the rounding step */
    PUTS(&b, "},{");
    KEY("kept_by_payers");
    put_map(&b, order, np, name_text, kept, -1, scale, 1);
    PUTS(&b, ",");
    KEY("payments");
    PUTS(&b, "[");
    for (Py_ssize_t k = 0; k < no; k++) {
        Owed *o = &owed[k];
        const Text *payer = o->pays ? &t_house : &name_text[o->player];
        const Text *payee = o->pays ? &name_text[o->player] : &t_house;
        SEP(k);
        PUTS(&b, "{");
        KEY("exact");
        put_frac(&b, o->amount, scale);
        PUTS(&b, ",");
        KEY("paid");
        put_int(&b, o->amount / scale);
        PUTS(&b, ",");
        put_parties(&b, payee, payer, &o->spot_text);
    }
    PUTS(&b, "],");
    put_rule(&b, &tx[2], &tx[3], &tx[7]);
    PUTS(&b, ",");
    KEY("unit");
    PUTS(&b, "1");
    /* the rake step */
    PUTS(&b, "},{");
    if (cap >= 0) {
        KEY("cap");
        put_int(&b, cap);
        PUTS(&b, ",");
    }
    KEY("exempt");
    PUTS(&b, "[");
    for (Py_ssize_t e = 0; e < PyTuple_GET_SIZE(exempt); e++) {
        Text t;
        text_of(PyTuple_GET_ITEM(exempt, e), &t); /* checked above */
        SEP(e);
        put_text(&b, &t);
    }
    PUTS(&b, "],");
    KEY("profits");
    put_map(&b, order, np, name_text, nets, -1, 0, 0);
    PUTS(&b, ",");
    KEY("rakes");
    put_map(&b, order, np, name_text, rakes, -1, 0, 0);
    PUTS(&b, ",");
    KEY("rate");
    {
        int64_t g = rate_num ? gcd64(rate_num, rate_den) : rate_den;
        PUTS(&b, "\"");
        put_int(&b, rate_num / g);
        PUTS(&b, "/");
        put_int(&b, rate_den / g);
        PUTS(&b, "\",");
    }
    put_rule(&b, &tx[4], &tx[5], &tx[8]);
    PUTS(&b, "}],");
    KEY("total_rake");
    put_int(&b, total);
    PUTS(&b, "}");
#undef KEY
#undef SEP
    if (b.failed) {
        PyErr_NoMemory();
        goto done;
    }

    /* the maps the result keeps, in seat order */
    body = PyBytes_FromStringAndSize(b.p, b.n);
    names_t = PyTuple_New(np);
    deltas_d = PyDict_New();
    rakes_d = PyDict_New();
    staked_d = PyDict_New();
    returned_d = PyDict_New();
    if (!body || !names_t || !deltas_d || !rakes_d || !staked_d || !returned_d) goto done;
    for (Py_ssize_t p = 0; p < np; p++) {
        PyTuple_SET_ITEM(names_t, p, Py_NewRef(names[p]));
        PyObject *d = PyLong_FromLongLong(deltas[p]);
        PyObject *r = PyLong_FromLongLong(rakes[p]);
        int bad = !d || !r || PyDict_SetItem(deltas_d, names[p], d) < 0 ||
                  PyDict_SetItem(rakes_d, names[p], r) < 0;
        Py_XDECREF(d);
        Py_XDECREF(r);
        if (bad) goto done;
        if (p == house_at) continue;
        PyObject *s = PyLong_FromLongLong(staked[p]);
        PyObject *g = PyLong_FromLongLong(returned[p]);
        bad = !s || !g || PyDict_SetItem(staked_d, names[p], s) < 0 ||
              PyDict_SetItem(returned_d, names[p], g) < 0;
        Py_XDECREF(s);
        Py_XDECREF(g);
        if (bad) goto done;
    }
    ret = Py_BuildValue("(NNNNLNN)", body, names_t, deltas_d, rakes_d, (long long)total,
                        staked_d, returned_d);
    body = names_t = deltas_d = rakes_d = staked_d = returned_d = NULL; /* stolen */
    goto done;

decline_or_fail:
    if (ok < 0) goto done;
decline:
    if (!PyErr_Occurred()) ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(body);
    Py_XDECREF(names_t);
    Py_XDECREF(deltas_d);
    Py_XDECREF(rakes_d);
    Py_XDECREF(staked_d);
    Py_XDECREF(returned_d);
    Py_XDECREF(index);
    PyMem_Free(b.p);
    PyMem_Free(row);
    PyMem_Free(res);
    PyMem_Free(owed);
    PyMem_Free(st);
    PyMem_Free(names);
    PyMem_Free(name_text);
    PyMem_Free(staked);
    PyMem_Free(theo);
    PyMem_Free(nets);
    PyMem_Free(kept);
    PyMem_Free(rakes);
    PyMem_Free(deltas);
    PyMem_Free(returned);
    PyMem_Free(order);
    PyMem_Free(is_exempt);
    return ret;
}

static PyMethodDef methods[] = {
    {"house_rows", house_rows, METH_VARARGS,
     "The house settlement of checked wagers: (record bytes, participants, deltas, "
     "rakes, total rake, staked, returned), or None where the pure-Python path must "
     "settle (croupier.money.settle)."},
    {"canonical_text", accel_canonical_text, METH_O,
     "Whether bytes are provably canonical JSON with an object at the top (False: not "
     "proven; croupier.canonical decides)."},
    {"plain_value", accel_plain_value, METH_O,
     "Whether a value holds only exact JSON types canonical JSON writes (False: not "
     "proven; croupier.canonical decides)."},
    {"event_hash", accel_event_hash, METH_VARARGS,
     "An event's hash from its fields (croupier.events), or None where the pure path "
     "must compute it."},
    {"bind_event", accel_bind_event, METH_VARARGS,
     "The event class and its fields' names, in order (croupier.events, once)."},
    {"new_event", (PyCFunction)(void (*)(void))accel_new_event, METH_FASTCALL,
     "An event from its eight fields, as its class's __init__ builds it."},
    {"events_of", accel_events_of, METH_O, "Events from rows of their eight fields."},
    {"baccarat_steps", accel_baccarat_steps, METH_VARARGS,
     "A baccarat hand's events after hand.opened stepped as the engine steps them: the "
     "state's fields, or None where the pure engine must step them "
     "(croupier.games.baccarat.engine)."},
    {"shisanshui_split", accel_shisanshui_split, METH_VARARGS,
     "十三水's best split of 13 cards from its rows' (strength, share): the front, middle "
     "and back masks, or None where the pure path must search "
     "(croupier.games.shisanshui.hands)."},
    {"shisanshui_bind", accel_shisanshui_bind, METH_VARARGS,
     "Bind the shares shisanshui_best reads: every 5-card strength ascending, their "
     "shares, and a front's (strength, share) by its rank values (13**3 of them)."},
    {"shisanshui_best", accel_shisanshui_best, METH_VARARGS,
     "十三水's best split of 13 distinct cards given as rank values and suit indexes, "
     "their rows read natively: the front, middle and back masks, or None where the "
     "pure path must read and search (nothing bound, cards it does not take)."},
    {"poker_nonflush", accel_poker_nonflush, METH_NOARGS,
     "The Hold'em evaluator's non-flush table: the rank part of a key sum of 5, 6 or 7 "
     "cards -> the best non-flush strength (croupier.games.poker.hands)."},
    {"poker_flush", accel_poker_flush, METH_NOARGS,
     "The Hold'em evaluator's flush table: 8,192 strengths by rank mask, 0 below five "
     "ranks (croupier.games.poker.hands)."},
    {"poker_rows5", accel_poker_rows5, METH_VARARGS,
     "rank5 of every 5 of n distinct cards given as rank values and suit indexes, in "
     "combinations order, or None where the cards are not such "
     "(croupier.games.poker.hands)."},
    {"poker_runout", accel_poker_runout, METH_VARARGS,
     "Over every completion of the board, Chu's and Han's best hands counted as (Chu "
     "wins, Han wins, ties); the cards as rank values and suit indexes, Chu's n_chu, "
     "Han's n_han, then the board; None where not such (croupier.games.chuhan)."},
    {"mahjong_win", accel_mahjong_win, METH_VARARGS,
     "Whether mahjong tiles win (34 counts, the exposed melds' number, seven pairs "
     "played, thirteen orphans played; with wilds their number and each tile's cap), "
     "or None where the pure path must judge (croupier.games.mahjong.win)."},
    {"mahjong_waits", accel_mahjong_waits, METH_VARARGS,
     "The tiles one more of would make wild-free mahjong tiles win (mahjong_win's first "
     "four arguments), a tile held four times left out; None where not such."},
    {"bind_seal_entry", accel_bind_seal_entry, METH_VARARGS,
     "The seal entry class, its fields' names in order and a version-2 leaf's tag "
     "(croupier.events, once)."},
    {"seal_entries", accel_seal_entries, METH_O,
     "A seal's entries from their stored canonical text [[stream, seq, hash hex], ...], "
     "or None where croupier.canonical must decode it."},
    {"seal_root", accel_seal_root, METH_O,
     "A version-2 seal's Merkle root over its entries, or None where the pure path must "
     "compute it (no entries, or one not plain)."},
    {"sha256", accel_sha256, METH_O,
     "SHA-256 of a bytes-like object: its 32-byte digest (OpenSSL's block functions "
     "directly where found, else hashlib)."},
    {"sha256_direct", accel_sha256_direct, METH_NOARGS,
     "The libcrypto whose SHA-256 functions are called directly, or None (hashlib's way)."},
    {"slotted_maker", accel_slotted_maker, METH_VARARGS,
     "A callable building a frozen slotted class from its fields in order "
     "(croupier.accel.maker checks the class)."},
    {"chain_intact", accel_chain_intact, METH_VARARGS,
     "Whether one stream's events are proven intact (False: not proven; "
     "croupier.events.verify_chain decides and names what is wrong)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "croupier._accel",
    "The optional native path of the house settlement, canonical text and the event "
    "chain, and of the games' heaviest checks and searches (croupier.accel).",
    -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__accel(void) {
    s_numerator = PyUnicode_InternFromString("numerator");
    s_denominator = PyUnicode_InternFromString("denominator");
    s_numerator_slot = PyUnicode_InternFromString("_numerator");
    s_denominator_slot = PyUnicode_InternFromString("_denominator");
    PyObject *fractions = PyImport_ImportModule("fractions");
    if (!s_numerator || !s_denominator || !s_numerator_slot || !s_denominator_slot ||
        !fractions)
        return NULL;
    fraction_type = PyObject_GetAttrString(fractions, "Fraction");
    Py_DECREF(fractions);
    if (!fraction_type || accel_chain_init() < 0 || accel_baccarat_init() < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    /* what croupier.accel checks: an extension built from older sources is not used */
    if (m != NULL && PyModule_AddIntConstant(m, "INTERFACE", ACCEL_INTERFACE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
