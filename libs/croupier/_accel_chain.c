/* croupier._accel, its second part: canonical text and the event chain.
 *
 * canonical_text(data) -> bool: True when ``data`` is provably canonical JSON with an
 * object at its top, i.e. croupier.canonical.parse(data) returns a dict and
 * croupier.canonical.dumps(that dict) == data. False means "not proven": the caller then
 * takes the pure-Python path, which decides. So it answers True only for the text it
 * fully understands: integers of at most 18 digits (no "-0", no fraction, no exponent),
 * strings of valid UTF-8 with exactly the escapes the encoder writes (\" \\ \b \f \n \r
 * \t and \u00XX, lower-case hex, for the other control characters), true, false, null,
 * no white space, object keys strictly increasing in code-point order (no duplicate),
 * nesting at most MAX_DEPTH deep. A key with an escape in it is not compared here (its
 * order is of the decoded text): such a text is "not proven".
 *
 * plain_value(value) -> bool: True when ``value`` holds only exact dicts with str keys,
 * lists, tuples, strs, ints, bools and None (what croupier.canonical._valid accepts
 * without its slow walk); False: the pure path decides.
 *
 * event_hash(stream, seq, type, producer, key_id, prev, payload) -> bytes | None: the
 * hash croupier.events._event_hash(_header(...), payload) computes -- SHA-256 (Python's
 * hashlib) over the tag, the canonical header and the payload -- or None where a name
 * would need a JSON escape or seq is not a plain int (the pure path then computes it).
 *
 * bind_event(cls, names), new_event(*fields), events_of(rows): events built as the frozen
 * dataclass's __init__ builds them (each slot set once, nothing checked), without its
 * eight calls of object.__setattr__.
 *
 * bind_seal_entry(cls, names, tag), seal_entries(data), seal_root(entries): a seal's
 * entries decoded from their stored text (croupier.store.events._row_seal: the canonical
 * JSON [[stream, seq, hash hex], ...], entries built as the frozen dataclass's __init__
 * builds them) and a version-2 seal's Merkle root over them (croupier.events.Seal.root:
 * RFC 6962's tree over SHA-256(0x00 || tag || canonical [stream, seq, hash hex]) of each
 * entry). None where the text is not that plain form (an escape, upper-case hex, a
 * negative or long seq: croupier.canonical decides) or an entry's fields are not plain
 * (the pure path computes).
 *
 * sha256(data) -> bytes: SHA-256 of a bytes-like object. Every digest here (an event's
 * hash, a seal's leaves and nodes) is taken by OpenSSL's SHA-256 block functions
 * (SHA256_Init / _Update / _Final) of the very libcrypto Python's hashlib has loaded,
 * found at import (dlopen with RTLD_NOLOAD: never another library) and checked against
 * hashlib on four inputs; where they are not found or differ, through hashlib as before.
 * hashlib's way costs ~0.6 us a digest on top of the hash (a hash object made, OpenSSL's
 * algorithm fetched, a method called, the object freed); the direct way ~0.05.
 * sha256_direct() says which way is taken (the name of the library, or None).
 *
 * slotted_maker(cls, names) -> callable: builds ``cls`` (a frozen dataclass with slots,
 * croupier.accel.maker checks) from its fields in order, each slot set once, as the
 * events are built, without __init__'s calls of object.__setattr__.
 *
 * chain_intact(events, check_payloads) -> bool: True when croupier.events.verify_chain
 * would accept ``events`` (one stream, seq 0.., each previous hash the one before's
 * hash, each payload canonical with an object at its top when ``check_payloads``, each
 * hash its content's). False: "not proven"; the pure path runs and names what is wrong.
 */
#include "_accel.h"

#include <dlfcn.h>
#include <string.h>
#include <structmember.h>

#define MAX_DEPTH 64
#define MAX_DIGITS 18

static const char EVENT_TAG[] = "croupier:event:v1\n";
#define EVENT_TAG_LEN ((Py_ssize_t)(sizeof EVENT_TAG - 1))

/* ------------------------------------------------------------ canonical text */

typedef struct {
    const unsigned char *p, *end;
} Scan;

/* One UTF-8 sequence starting at s->p (a byte >= 0x80): 1 and past it, or 0. */
static int utf8_seq(Scan *s) {
    const unsigned char *p = s->p, *end = s->end;
    unsigned char c = p[0];
    Py_ssize_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;      /* no overlong form */
        else if (c == 0xED) hi = 0x9F; /* no surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;      /* no overlong form */
        else if (c == 0xF4) hi = 0x8F; /* nothing past U+10FFFF */
    } else
        return 0;
    if (end - p < n || p[1] < lo || p[1] > hi) return 0;
    for (Py_ssize_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    s->p = p + n;
    return 1;
}

static int hex_lower(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* A string at s->p (its opening quote): 1 and past its closing quote, or 0. *escaped
 * says whether it held an escape. */
static int scan_string(Scan *s, int *escaped) {
    const unsigned char *p = s->p + 1, *end = s->end;
    *escaped = 0;
    while (p < end) {
        unsigned char c = *p;
        if (c == '"') {
            s->p = p + 1;
            return 1;
        }
        if (c < 0x20) return 0; /* the encoder escapes every control character */
        if (c == '\\') {
            if (end - p < 2) return 0;
            unsigned char e = p[1];
            *escaped = 1;
            if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                e == 't') {
                p += 2;
                continue;
            }
            /* \u00XX: only for a control character without a short escape */
            if (e != 'u' || end - p < 6 || p[2] != '0' || p[3] != '0') return 0;
            int h = hex_lower(p[4]), l = hex_lower(p[5]);
            if (h < 0 || l < 0) return 0;
            int code = h * 16 + l;
            if (code >= 0x20 || code == 0x08 || code == 0x09 || code == 0x0A || code == 0x0C ||
                code == 0x0D)
                return 0;
            p += 6;
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        s->p = p;
        if (!utf8_seq(s)) return 0;
        p = s->p;
    }
    return 0; /* no closing quote */
}

static int scan_value(Scan *s, int depth);

/* An object at s->p ("{"): its keys strictly increasing, each key's raw bytes compared
 * (UTF-8's byte order is the code points' order); a key with an escape: not proven. */
static int scan_object(Scan *s, int depth) {
    s->p++;
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return 1;
    }
    const unsigned char *prev = NULL;
    Py_ssize_t prev_n = 0;
    for (;;) {
        if (s->p >= s->end || *s->p != '"') return 0;
        const unsigned char *key = s->p + 1;
        int escaped;
        if (!scan_string(s, &escaped) || escaped) return 0;
        Py_ssize_t key_n = (s->p - 1) - key;
        if (prev != NULL) {
            Py_ssize_t m = prev_n < key_n ? prev_n : key_n;
            int c = memcmp(prev, key, (size_t)m);
            if (c > 0 || (c == 0 && prev_n >= key_n)) return 0; /* out of order, or twice */
        }
        prev = key;
        prev_n = key_n;
        if (s->p >= s->end || *s->p != ':') return 0;
        s->p++;
        if (!scan_value(s, depth + 1)) return 0;
        if (s->p >= s->end) return 0;
        if (*s->p == '}') {
            s->p++;
            return 1;
        }
        if (*s->p != ',') return 0;
        s->p++;
    }
}

static int scan_array(Scan *s, int depth) {
    s->p++;
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 1;
    }
    for (;;) {
        if (!scan_value(s, depth + 1)) return 0;
        if (s->p >= s->end) return 0;
        if (*s->p == ']') {
            s->p++;
            return 1;
        }
        if (*s->p != ',') return 0;
        s->p++;
    }
}

static int scan_literal(Scan *s, const char *word, Py_ssize_t n) {
    if (s->end - s->p < n || memcmp(s->p, word, (size_t)n) != 0) return 0;
    s->p += n;
    return 1;
}

static int scan_int(Scan *s) {
    const unsigned char *p = s->p, *end = s->end;
    if (*p == '-') p++;
    if (p >= end) return 0;
    if (*p == '0') {
        if (p != s->p) return 0; /* "-0": the encoder writes 0 */
        p++;
    } else if (*p >= '1' && *p <= '9') {
        const unsigned char *first = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p - first > MAX_DIGITS) return 0; /* past int64 maybe: not proven */
    } else
        return 0;
    /* a fraction or an exponent would follow directly */
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')))
        return 0;
    s->p = p;
    return 1;
}

static int scan_value(Scan *s, int depth) {
    if (s->p >= s->end || depth > MAX_DEPTH) return 0;
    int escaped;
    switch (*s->p) {
    case '{':
        return scan_object(s, depth);
    case '[':
        return scan_array(s, depth);
    case '"':
        return scan_string(s, &escaped);
    case 't':
        return scan_literal(s, "true", 4);
    case 'f':
        return scan_literal(s, "false", 5);
    case 'n':
        return scan_literal(s, "null", 4);
    default:
        return scan_int(s);
    }
}

static int canonical_object(const char *data, Py_ssize_t n) {
    Scan s = {(const unsigned char *)data, (const unsigned char *)data + n};
    if (n < 2 || data[0] != '{') return 0;
    return scan_value(&s, 0) && s.p == s.end;
}

PyObject *accel_canonical_text(PyObject *self, PyObject *arg) {
    if (!PyBytes_CheckExact(arg)) Py_RETURN_FALSE;
    if (canonical_object(PyBytes_AS_STRING(arg), PyBytes_GET_SIZE(arg))) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* ------------------------------------------------------------------ plain values */

/* 1 when ``v`` holds only what canonical JSON writes as itself -- a dict with str keys,
 * a list or tuple, str, int, bool, None, each of exactly that type -- at most MAX_DEPTH
 * deep; 0 otherwise (a float, a subclass, another type: the pure path's walk decides). */
static int plain_value(PyObject *v, int depth) {
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type || t == &PyLong_Type || t == &PyBool_Type || v == Py_None)
        return 1;
    if (depth >= MAX_DEPTH) return 0;
    if (t == &PyDict_Type) {
        Py_ssize_t pos = 0;
        PyObject *k, *x;
        while (PyDict_Next(v, &pos, &k, &x))
            if (!PyUnicode_CheckExact(k) || !plain_value(x, depth + 1)) return 0;
        return 1;
    }
    if (t == &PyList_Type || t == &PyTuple_Type) {
        /* a list cannot change under the walk: nothing here runs Python code */
        Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
        PyObject **items = PySequence_Fast_ITEMS(v);
        for (Py_ssize_t i = 0; i < n; i++)
            if (!plain_value(items[i], depth + 1)) return 0;
        return 1;
    }
    return 0;
}

PyObject *accel_plain_value(PyObject *self, PyObject *arg) {
    return PyBool_FromLong(plain_value(arg, 0));
}

/* ------------------------------------------------------------------ event hash */

static PyObject *sha256_new; /* hashlib.sha256 */
static PyObject *s_digest;
static PyObject *s_stream, *s_seq, *s_type, *s_producer, *s_key_id, *s_prev_hash,
    *s_payload_bytes, *s_hash;

/* A str's UTF-8 when JSON writes it as itself (no character it escapes), else NULL
 * (and no exception set). */
static const char *plain_utf8(PyObject *o, Py_ssize_t *n) {
    if (!PyUnicode_CheckExact(o)) return NULL;
    const char *u = PyUnicode_AsUTF8AndSize(o, n);
    if (u == NULL) {
        PyErr_Clear(); /* a lone surrogate */
        return NULL;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        unsigned char c = (unsigned char)u[i];
        if (c < 0x20 || c == '"' || c == '\\') return NULL;
    }
    return u;
}

static const char HEX[] = "0123456789abcdef";

/* An exact int's decimal text, as JSON writes it, in ``num`` (at least 24 bytes): its
 * start (the text runs to num + 24), or NULL, no exception set, where it is not one or
 * not within 64 bits. */
static const char *int_text(PyObject *o, char *num, Py_ssize_t *n) {
    if (!PyLong_CheckExact(o)) return NULL;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return NULL;
    }
    char *end = num + 24, *q = end;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--q = '-';
    *n = end - q;
    return q;
}

/* OpenSSL's SHA-256 block functions, in the libcrypto hashlib loaded (NULL: hashlib's
 * way). Their context is OpenSSL's SHA256_CTX (112 bytes in 1.1 and 3.x), given room. */
typedef struct {
    _Alignas(16) unsigned char opaque[256];
} Sha256Ctx;
static int (*ossl_sha256_init)(void *);
static int (*ossl_sha256_update)(void *, const void *, size_t);
static int (*ossl_sha256_final)(unsigned char *, void *);
static const char *ossl_library; /* the library's name, for sha256_direct() */

/* SHA-256 of data[0..n) into out by OpenSSL directly: 1 done, 0 not (hashlib's way). */
static int sha256_direct(const void *data, size_t n, unsigned char out[32]) {
    Sha256Ctx c;
    if (ossl_sha256_init == NULL) return 0;
    return ossl_sha256_init(&c) == 1 && ossl_sha256_update(&c, data, n) == 1 &&
           ossl_sha256_final(out, &c) == 1;
}

/* SHA-256 (Python's hashlib) of a bytes object: a new bytes of its digest. */
static PyObject *sha256_hashlib(PyObject *data) {
    PyObject *h = PyObject_CallOneArg(sha256_new, data);
    if (h == NULL) return NULL;
    PyObject *d = PyObject_CallMethodNoArgs(h, s_digest);
    Py_DECREF(h);
    return d;
}

/* SHA-256 of data[0..n): a new bytes of its digest (``obj``, when not NULL, the same
 * bytes as an object, for hashlib's way). */
static PyObject *sha256_bytes(const char *data, Py_ssize_t n, PyObject *obj) {
    unsigned char md[32];
    if (sha256_direct(data, (size_t)n, md)) return PyBytes_FromStringAndSize((char *)md, 32);
    if (obj != NULL) return sha256_hashlib(obj);
    PyObject *b = PyBytes_FromStringAndSize(data, n);
    if (b == NULL) return NULL;
    PyObject *d = sha256_hashlib(b);
    Py_DECREF(b);
    return d;
}

/* SHA-256 of a bytes object: a new bytes of its digest. */
static PyObject *sha256_digest(PyObject *data) {
    return sha256_bytes(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), data);
}

PyObject *accel_sha256(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *d;
    unsigned char md[32];
    if (sha256_direct(view.buf, (size_t)view.len, md))
        d = PyBytes_FromStringAndSize((char *)md, 32);
    else
        d = sha256_hashlib(arg);
    PyBuffer_Release(&view);
    return d;
}

PyObject *accel_sha256_direct(PyObject *self, PyObject *unused) {
    if (ossl_sha256_init == NULL) Py_RETURN_NONE;
    return PyUnicode_FromString(ossl_library);
}

/* Find OpenSSL's SHA-256 functions in the libcrypto already loaded (by hashlib's
 * _hashlib) and check them against hashlib; on any doubt leave them unset. */
static void sha256_bind_direct(void) {
    static const char *names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.3.dylib",
                                  "libcrypto.1.1.dylib", NULL};
    PyObject *hl = PyImport_ImportModule("_hashlib"); /* loads libcrypto, if it is one */
    if (hl == NULL) {
        PyErr_Clear();
        return;
    }
    Py_DECREF(hl);
    for (int i = 0; names[i] != NULL; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
        if (lib == NULL) continue;
        ossl_sha256_init = (int (*)(void *))dlsym(lib, "SHA256_Init");
        ossl_sha256_update = (int (*)(void *, const void *, size_t))dlsym(lib, "SHA256_Update");
        ossl_sha256_final = (int (*)(unsigned char *, void *))dlsym(lib, "SHA256_Final");
        if (ossl_sha256_init && ossl_sha256_update && ossl_sha256_final) {
            ossl_library = names[i];
            break;
        }
        ossl_sha256_init = NULL;
        dlclose(lib);
    }
    if (ossl_sha256_init == NULL) return;
    /* the same digests as hashlib's, or not used: empty, one block, a block's edge, more */
    static const Py_ssize_t sizes[] = {0, 3, 55, 1000};
    char data[1000];
    for (int i = 0; i < 1000; i++) data[i] = (char)(i * 7 + 1);
    for (int k = 0; k < 4; k++) {
        unsigned char md[32];
        PyObject *b = PyBytes_FromStringAndSize(data, sizes[k]);
        PyObject *want = b ? sha256_hashlib(b) : NULL;
        Py_XDECREF(b);
        int same = want != NULL && sha256_direct(data, (size_t)sizes[k], md) &&
                   PyBytes_GET_SIZE(want) == 32 && memcmp(PyBytes_AS_STRING(want), md, 32) == 0;
        Py_XDECREF(want);
        if (!same) {
            PyErr_Clear();
            ossl_sha256_init = NULL;
            return;
        }
    }
}

/* The hash, or NULL: with an exception set on failure, without one for "not proven". */
static PyObject *event_hash_of(PyObject *stream, PyObject *seq, PyObject *type,
                               PyObject *producer, PyObject *key_id, PyObject *prev,
                               PyObject *payload) {
    Py_ssize_t ns, nt, np, nk, nn;
    char num[24];
    const char *us = plain_utf8(stream, &ns), *ut = plain_utf8(type, &nt),
               *up = plain_utf8(producer, &np), *uk = plain_utf8(key_id, &nk),
               *q = int_text(seq, num, &nn);
    if (!us || !ut || !up || !uk || !q || !PyBytes_CheckExact(prev) ||
        !PyBytes_CheckExact(payload))
        return NULL;
    Py_ssize_t nprev = PyBytes_GET_SIZE(prev), npay = PyBytes_GET_SIZE(payload);
    static const char K1[] = "{\"key_id\":\"", K2[] = "\",\"prev\":\"",
                      K3[] = "\",\"producer\":\"", K4[] = "\",\"seq\":", K5[] = ",\"stream\":\"",
                      K6[] = "\",\"type\":\"", K7[] = "\"}\n";
#define L(k) ((Py_ssize_t)(sizeof k - 1))
    Py_ssize_t total = EVENT_TAG_LEN + L(K1) + nk + L(K2) + 2 * nprev + L(K3) + np + L(K4) +
                       nn + L(K5) + ns + L(K6) + nt + L(K7) + npay;
    PyObject *pre = PyBytes_FromStringAndSize(NULL, total);
    if (pre == NULL) return NULL;
    char *w = PyBytes_AS_STRING(pre);
#define W(src, len)                      \
    do {                                 \
        memcpy(w, (src), (size_t)(len)); \
        w += (len);                      \
    } while (0)
    W(EVENT_TAG, EVENT_TAG_LEN);
    W(K1, L(K1));
    W(uk, nk);
    W(K2, L(K2));
    const unsigned char *pb = (const unsigned char *)PyBytes_AS_STRING(prev);
    for (Py_ssize_t i = 0; i < nprev; i++) {
        *w++ = HEX[pb[i] >> 4];
        *w++ = HEX[pb[i] & 15];
    }
    W(K3, L(K3));
    W(up, np);
    W(K4, L(K4));
    W(q, nn);
    W(K5, L(K5));
    W(us, ns);
    W(K6, L(K6));
    W(ut, nt);
    W(K7, L(K7));
    W(PyBytes_AS_STRING(payload), npay);
#undef W
#undef L
    PyObject *d = sha256_digest(pre);
    Py_DECREF(pre);
    return d;
}

PyObject *accel_event_hash(PyObject *self, PyObject *args) {
    PyObject *stream, *seq, *type, *producer, *key_id, *prev, *payload;
    if (!PyArg_UnpackTuple(args, "event_hash", 7, 7, &stream, &seq, &type, &producer, &key_id,
                           &prev, &payload))
        return NULL;
    PyObject *h = event_hash_of(stream, seq, type, producer, key_id, prev, payload);
    if (h == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return h;
}

/* ------------------------------------------------------------------ events */

/* The Event class and its eight fields' slots, in the order of its fields (bind_event):
 * an event is built as its frozen __init__ builds it -- each slot set once, no check --
 * without the eight calls of object.__setattr__. */
#define EVENT_FIELDS 8
static PyTypeObject *event_type;
static PyMemberDef *event_slots[EVENT_FIELDS];

/* ``cls``'s slots named ``names`` (a tuple of ``n``), each a writable object slot of
 * ``cls`` itself, into ``slots``: 0, or -1 with an exception. */
static int bind_slots(PyObject *cls, PyObject *names, int n, const char *what,
                      PyMemberDef **slots) {
    if (PyTuple_GET_SIZE(names) != n) {
        PyErr_Format(PyExc_ValueError, "%s has %d fields", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *d = PyObject_GetAttr(cls, PyTuple_GET_ITEM(names, i));
        if (d == NULL) return -1;
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type);
        if (ok) {
            PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
            ok = m->type == T_OBJECT_EX && !(m->flags & READONLY) &&
                 ((PyMemberDescrObject *)d)->d_common.d_type == (PyTypeObject *)cls;
            slots[i] = m;
        }
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "%R is not a slot of %R", PyTuple_GET_ITEM(names, i),
                         cls);
            return -1;
        }
    }
    return 0;
}

/* An instance of ``type`` with its ``n`` slots set to ``fields``, as a frozen
 * dataclass's __init__ sets them (nothing checked). */
static PyObject *slotted_of(PyTypeObject *type, PyMemberDef **slots, int n,
                            PyObject *const *fields) {
    PyObject *e = type->tp_alloc(type, 0);
    if (e == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        if (PyMember_SetOne((char *)e, slots[i], fields[i]) < 0) {
            Py_DECREF(e);
            return NULL;
        }
    }
    return e;
}

/* slotted_maker(cls, names): a callable that builds ``cls`` from its fields given
 * positionally, as slotted_of builds an event (croupier.accel.maker checks that ``cls``
 * is a frozen dataclass with slots whose __init__ does nothing more). Its state rides in
 * a capsule, the callable's self. */
typedef struct {
    PyTypeObject *type;
    int n;
    PyMemberDef *slots[];
} Maker;

#define MAKER_NAME "croupier._accel.maker"

static void maker_free(PyObject *capsule) {
    Maker *m = PyCapsule_GetPointer(capsule, MAKER_NAME);
    if (m == NULL) return;
    Py_XDECREF(m->type);
    PyMem_Free(m);
}

static PyObject *maker_call(PyObject *capsule, PyObject *const *args, Py_ssize_t nargs) {
    Maker *m = PyCapsule_GetPointer(capsule, MAKER_NAME);
    if (m == NULL) return NULL;
    if (nargs != m->n) {
        PyErr_Format(PyExc_TypeError, "%s takes %d fields, not %zd", m->type->tp_name, m->n,
                     nargs);
        return NULL;
    }
    return slotted_of(m->type, m->slots, m->n, args);
}

static PyMethodDef maker_def = {
    "make", (PyCFunction)(void (*)(void))maker_call, METH_FASTCALL,
    "An instance from its fields in order (croupier.accel.maker)."};

PyObject *accel_slotted_maker(PyObject *self, PyObject *args) {
    PyObject *cls, *names;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &PyTuple_Type, &names)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (n > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 fields");
        return NULL;
    }
    Maker *m = PyMem_Calloc(1, sizeof(Maker) + (size_t)n * sizeof(PyMemberDef *));
    if (m == NULL) return PyErr_NoMemory();
    if (bind_slots(cls, names, (int)n, ((PyTypeObject *)cls)->tp_name, m->slots) < 0) {
        PyMem_Free(m);
        return NULL;
    }
    m->type = (PyTypeObject *)Py_NewRef(cls);
    m->n = (int)n;
    PyObject *capsule = PyCapsule_New(m, MAKER_NAME, maker_free);
    if (capsule == NULL) {
        Py_DECREF(m->type);
        PyMem_Free(m);
        return NULL;
    }
    PyObject *f = PyCFunction_New(&maker_def, capsule);
    Py_DECREF(capsule);
    return f;
}

PyObject *accel_bind_event(PyObject *self, PyObject *args) {
    PyObject *cls, *names;
    if (!PyArg_ParseTuple(args, "O!O!:bind_event", &PyType_Type, &cls, &PyTuple_Type, &names))
        return NULL;
    PyMemberDef *slots[EVENT_FIELDS];
    if (bind_slots(cls, names, EVENT_FIELDS, "an event", slots) < 0) return NULL;
    Py_INCREF(cls);
    Py_XSETREF(event_type, (PyTypeObject *)cls);
    memcpy(event_slots, slots, sizeof slots);
    Py_RETURN_NONE;
}

static PyObject *event_of(PyObject *const *fields) {
    return slotted_of(event_type, event_slots, EVENT_FIELDS, fields);
}

static int event_bound(void) {
    if (event_type != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "bind_event() was not called");
    return 0;
}

PyObject *accel_new_event(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!event_bound()) return NULL;
    if (nargs != EVENT_FIELDS) {
        PyErr_Format(PyExc_TypeError, "new_event takes %d fields, not %zd", EVENT_FIELDS,
                     nargs);
        return NULL;
    }
    return event_of(args);
}

PyObject *accel_events_of(PyObject *self, PyObject *rows) {
    if (!event_bound()) return NULL;
    PyObject *seq = PySequence_Fast(rows, "rows must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "a row must be a sequence");
        if (row == NULL) goto fail;
        PyObject *e = NULL;
        if (PySequence_Fast_GET_SIZE(row) != EVENT_FIELDS)
            PyErr_Format(PyExc_TypeError, "a row of %zd values for an event's %d fields",
                         PySequence_Fast_GET_SIZE(row), EVENT_FIELDS);
        else
            e = event_of(PySequence_Fast_ITEMS(row));
        Py_DECREF(row);
        if (e == NULL) goto fail;
        PyList_SET_ITEM(out, i, e);
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(seq);
    return NULL;
}

/* ------------------------------------------------------------------ seal entries */

#define ENTRY_FIELDS 3 /* stream, seq, hash */
static PyTypeObject *entry_type;
static PyMemberDef *entry_slots[ENTRY_FIELDS];
static PyObject *entry_tag; /* bytes: a version-2 leaf's tag */

PyObject *accel_bind_seal_entry(PyObject *self, PyObject *args) {
    PyObject *cls, *names, *tag;
    if (!PyArg_ParseTuple(args, "O!O!O!:bind_seal_entry", &PyType_Type, &cls, &PyTuple_Type,
                          &names, &PyBytes_Type, &tag))
        return NULL;
    PyMemberDef *slots[ENTRY_FIELDS];
    if (bind_slots(cls, names, ENTRY_FIELDS, "a seal entry", slots) < 0) return NULL;
    Py_INCREF(cls);
    Py_XSETREF(entry_type, (PyTypeObject *)cls);
    memcpy(entry_slots, slots, sizeof slots);
    Py_INCREF(tag);
    Py_XSETREF(entry_tag, tag);
    Py_RETURN_NONE;
}

static int entry_bound(void) {
    if (entry_type != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "bind_seal_entry() was not called");
    return 0;
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1; /* upper case too: hash.hex() writes lower case */
}

/* One entry ["stream",seq,"hex"] at s->p: a new SealEntry past it, NULL with no exception
 * for "not the plain form", NULL with one for an error. */
static PyObject *entry_at(Scan *s) {
    const unsigned char *p = s->p, *end = s->end;
    if (end - p < 2 || p[0] != '[' || p[1] != '"') return NULL;
    p += 2;
    const unsigned char *name = p;
    while (p < end && *p != '"') {
        if (*p < 0x20 || *p > 0x7E || *p == '\\') return NULL; /* printable ASCII only */
        p++;
    }
    if (p >= end) return NULL;
    Py_ssize_t nname = p - name;
    p++; /* the closing quote */
    if (p >= end || *p++ != ',') return NULL;
    const unsigned char *digits = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    Py_ssize_t ndigits = p - digits;
    if (ndigits == 0 || ndigits > MAX_DIGITS || (digits[0] == '0' && ndigits > 1)) return NULL;
    long long seq = 0;
    for (Py_ssize_t i = 0; i < ndigits; i++) seq = seq * 10 + (digits[i] - '0');
    if (end - p < 2 || p[0] != ',' || p[1] != '"') return NULL;
    p += 2;
    const unsigned char *hex = p;
    while (p < end && *p != '"') {
        if (hex_value(*p) < 0) return NULL;
        p++;
    }
    Py_ssize_t nhex = p - hex;
    if (p >= end || nhex % 2 != 0) return NULL;
    p++;
    if (p >= end || *p++ != ']') return NULL;
    PyObject *f[ENTRY_FIELDS];
    f[0] = PyUnicode_FromStringAndSize((const char *)name, nname);
    f[1] = PyLong_FromLongLong(seq);
    f[2] = PyBytes_FromStringAndSize(NULL, nhex / 2);
    PyObject *e = NULL;
    if (f[0] && f[1] && f[2]) {
        unsigned char *w = (unsigned char *)PyBytes_AS_STRING(f[2]);
        for (Py_ssize_t i = 0; i < nhex / 2; i++)
            w[i] = (unsigned char)(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
        e = slotted_of(entry_type, entry_slots, ENTRY_FIELDS, f);
    }
    for (int k = 0; k < ENTRY_FIELDS; k++) Py_XDECREF(f[k]);
    if (e != NULL) s->p = p;
    return e;
}

PyObject *accel_seal_entries(PyObject *self, PyObject *data) {
    if (!entry_bound()) return NULL;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "seal_entries takes bytes");
        return NULL;
    }
    Scan s = {(const unsigned char *)PyBytes_AS_STRING(data),
              (const unsigned char *)PyBytes_AS_STRING(data) + PyBytes_GET_SIZE(data)};
    if (s.end - s.p < 2 || *s.p != '[') Py_RETURN_NONE;
    s.p++;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    if (*s.p != ']') {
        for (;;) {
            PyObject *e = entry_at(&s);
            if (e == NULL) goto not_plain;
            int r = PyList_Append(out, e);
            Py_DECREF(e);
            if (r < 0) goto fail;
            if (s.p < s.end && *s.p == ',') {
                s.p++;
                continue;
            }
            break;
        }
    }
    if (s.p >= s.end || *s.p != ']' || s.p + 1 != s.end) goto not_plain;
    PyObject *t = PyList_AsTuple(out);
    Py_DECREF(out);
    return t;
not_plain:
    if (PyErr_Occurred()) goto fail;
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *sha256_of(const char *data, Py_ssize_t n) {
    return sha256_bytes(data, n, NULL);
}

/* The leaf hash of one entry: a new bytes, NULL with no exception for "not plain". */
static PyObject *entry_leaf(PyObject *e) {
    PyObject *stream = PyObject_GetAttr(e, s_stream);
    PyObject *seq = stream ? PyObject_GetAttr(e, s_seq) : NULL;
    PyObject *hash = seq ? PyObject_GetAttr(e, s_hash) : NULL;
    PyObject *leaf = NULL;
    char *buf = NULL;
    if (hash == NULL) goto done;
    Py_ssize_t ns, nn;
    char num[24];
    const char *us = plain_utf8(stream, &ns), *q = int_text(seq, num, &nn);
    if (us == NULL || q == NULL || !PyBytes_CheckExact(hash)) goto done;
    Py_ssize_t nh = PyBytes_GET_SIZE(hash), ntag = PyBytes_GET_SIZE(entry_tag);
    /* 0x00 tag ["stream",seq,"hex"] */
    Py_ssize_t total = 1 + ntag + 2 + ns + 2 + nn + 2 + 2 * nh + 2;
    buf = PyMem_Malloc((size_t)total);
    if (buf == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    char *w = buf;
    *w++ = 0;
    memcpy(w, PyBytes_AS_STRING(entry_tag), (size_t)ntag);
    w += ntag;
    *w++ = '[';
    *w++ = '"';
    memcpy(w, us, (size_t)ns);
    w += ns;
    *w++ = '"';
    *w++ = ',';
    memcpy(w, q, (size_t)nn);
    w += nn;
    *w++ = ',';
    *w++ = '"';
    const unsigned char *hb = (const unsigned char *)PyBytes_AS_STRING(hash);
    for (Py_ssize_t i = 0; i < nh; i++) {
        *w++ = HEX[hb[i] >> 4];
        *w++ = HEX[hb[i] & 15];
    }
    *w++ = '"';
    *w++ = ']';
    leaf = sha256_of(buf, total);
done:
    PyMem_Free(buf);
    Py_XDECREF(stream);
    Py_XDECREF(seq);
    Py_XDECREF(hash);
    return leaf;
}

PyObject *accel_seal_root(PyObject *self, PyObject *entries) {
    if (!entry_bound()) return NULL;
    PyObject *seq = PySequence_Fast(entries, "entries must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n == 0) { /* the empty tree's root: the pure path's constant */
        Py_DECREF(seq);
        Py_RETURN_NONE;
    }
    PyObject **level = PyMem_Calloc((size_t)n, sizeof *level);
    PyObject *root = NULL;
    Py_ssize_t have = 0;
    if (level == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; have < n; have++) {
        level[have] = entry_leaf(PySequence_Fast_GET_ITEM(seq, have));
        if (level[have] == NULL) goto done; /* not plain, or an error */
    }
    char node[1 + 64];
    node[0] = 1;
    for (Py_ssize_t m = n; m > 1;) {
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i + 1 < m; i += 2) {
            memcpy(node + 1, PyBytes_AS_STRING(level[i]), 32);
            memcpy(node + 33, PyBytes_AS_STRING(level[i + 1]), 32);
            PyObject *h = sha256_of(node, sizeof node);
            if (h == NULL) goto done;
            Py_CLEAR(level[i]);
            Py_CLEAR(level[i + 1]);
            level[k++] = h; /* k <= i: a slot cleared before */
        }
        if (m % 2) { /* the odd node, carried up */
            PyObject *odd = level[m - 1];
            level[m - 1] = NULL;
            level[k++] = odd;
        }
        m = k;
    }
    root = level[0];
    level[0] = NULL;
done:
    if (level != NULL) {
        for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(level[i]);
        PyMem_Free(level);
    }
    Py_DECREF(seq);
    if (root == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return root;
}

/* ------------------------------------------------------------------ the chain */

/* 1: this event is proven right at index i after ``prev`` (a borrowed bytes or NULL
 * for the genesis); 0: not proven; -1: an exception. *hash_out: a new reference to the
 * event's hash attribute on 1. */
static int event_intact(PyObject *e, Py_ssize_t i, PyObject *stream0, PyObject *prev,
                        int check_payload, PyObject **hash_out) {
    PyObject *f[8] = {NULL};
    PyObject *names[8] = {s_stream, s_seq,         s_type,         s_producer,
                          s_key_id, s_prev_hash, s_payload_bytes, s_hash};
    int ok = -1;
    for (int k = 0; k < 8; k++)
        if ((f[k] = PyObject_GetAttr(e, names[k])) == NULL) goto done;
    PyObject *stream = f[0], *seq = f[1], *prev_hash = f[5], *payload = f[6], *hash = f[7];
    ok = 0;
    if (!PyUnicode_CheckExact(stream) || !PyBytes_CheckExact(prev_hash) ||
        !PyBytes_CheckExact(payload) || !PyBytes_CheckExact(hash) || !PyLong_CheckExact(seq))
        goto done;
    if (stream0 != NULL && stream != stream0 && PyUnicode_Compare(stream, stream0) != 0)
        goto done;
    if (PyLong_AsSsize_t(seq) != i) {
        PyErr_Clear();
        goto done;
    }
    if (PyBytes_GET_SIZE(prev_hash) != 32) goto done;
    if (prev == NULL) {
        static const char zero[32] = {0};
        if (memcmp(PyBytes_AS_STRING(prev_hash), zero, 32) != 0) goto done;
    } else if (PyBytes_GET_SIZE(prev) != 32 ||
               memcmp(PyBytes_AS_STRING(prev_hash), PyBytes_AS_STRING(prev), 32) != 0)
        goto done;
    if (check_payload &&
        !canonical_object(PyBytes_AS_STRING(payload), PyBytes_GET_SIZE(payload)))
        goto done;
    PyObject *h = event_hash_of(stream, seq, f[2], f[3], f[4], prev_hash, payload);
    if (h == NULL) {
        ok = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    if (PyBytes_GET_SIZE(h) == PyBytes_GET_SIZE(hash) &&
        memcmp(PyBytes_AS_STRING(h), PyBytes_AS_STRING(hash), (size_t)PyBytes_GET_SIZE(h)) ==
            0) {
        ok = 1;
        Py_INCREF(hash);
        *hash_out = hash;
    }
    Py_DECREF(h);
done:
    for (int k = 0; k < 8; k++) Py_XDECREF(f[k]);
    return ok;
}

PyObject *accel_chain_intact(PyObject *self, PyObject *args) {
    PyObject *events;
    int check_payloads;
    if (!PyArg_ParseTuple(args, "Op:chain_intact", &events, &check_payloads)) return NULL;
    PyObject *seq = PySequence_Fast(events, "events must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *stream0 = NULL, *prev = NULL;
    int ok = 1;
    for (Py_ssize_t i = 0; i < n && ok == 1; i++) {
        PyObject *hash = NULL;
        ok = event_intact(items[i], i, stream0, prev, check_payloads, &hash);
        if (ok == 1) {
            if (stream0 == NULL) stream0 = PyObject_GetAttr(items[i], s_stream);
            if (stream0 == NULL) ok = -1;
            Py_XDECREF(prev);
            prev = hash;
        }
    }
    Py_XDECREF(stream0);
    Py_XDECREF(prev);
    Py_DECREF(seq);
    if (ok < 0) return NULL;
    return PyBool_FromLong(ok);
}

int accel_chain_init(void) {
    PyObject *hashlib = PyImport_ImportModule("hashlib");
    if (hashlib == NULL) return -1;
    sha256_new = PyObject_GetAttrString(hashlib, "sha256");
    Py_DECREF(hashlib);
    s_digest = PyUnicode_InternFromString("digest");
    s_stream = PyUnicode_InternFromString("stream");
    s_seq = PyUnicode_InternFromString("seq");
    s_type = PyUnicode_InternFromString("type");
    s_producer = PyUnicode_InternFromString("producer");
    s_key_id = PyUnicode_InternFromString("key_id");
    s_prev_hash = PyUnicode_InternFromString("prev_hash");
    s_payload_bytes = PyUnicode_InternFromString("payload_bytes");
    s_hash = PyUnicode_InternFromString("hash");
    if (!sha256_new || !s_digest || !s_stream || !s_seq || !s_type || !s_producer ||
        !s_key_id || !s_prev_hash || !s_payload_bytes || !s_hash)
        return -1;
    if (getenv("CROUPIER_SHA256_HASHLIB") == NULL) sha256_bind_direct();
    return 0;
}
