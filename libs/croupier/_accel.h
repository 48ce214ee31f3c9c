/* croupier._accel: what its parts share (the module is _accel.c; see croupier.accel). */
#ifndef CROUPIER_ACCEL_H
#define CROUPIER_ACCEL_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* The functions and their arguments as croupier.accel.INTERFACE names them: raised with
 * every change of what the Python side calls. */
#define ACCEL_INTERFACE 8

/* _accel_chain.c: canonical text and the event chain */
int accel_chain_init(void);
PyObject *accel_canonical_text(PyObject *self, PyObject *arg);
PyObject *accel_plain_value(PyObject *self, PyObject *arg);
PyObject *accel_event_hash(PyObject *self, PyObject *args);
PyObject *accel_bind_event(PyObject *self, PyObject *args);
PyObject *accel_new_event(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *accel_events_of(PyObject *self, PyObject *rows);
PyObject *accel_chain_intact(PyObject *self, PyObject *args);
PyObject *accel_bind_seal_entry(PyObject *self, PyObject *args);
PyObject *accel_seal_entries(PyObject *self, PyObject *data);
PyObject *accel_seal_root(PyObject *self, PyObject *entries);
PyObject *accel_sha256(PyObject *self, PyObject *arg);
PyObject *accel_sha256_direct(PyObject *self, PyObject *unused);
PyObject *accel_slotted_maker(PyObject *self, PyObject *args);

/* _accel_baccarat.c: a baccarat hand's events stepped */
int accel_baccarat_init(void);
PyObject *accel_baccarat_steps(PyObject *self, PyObject *args);

/* _accel_shisanshui.c: 十三水's automatic arrangement searched */
PyObject *accel_shisanshui_split(PyObject *self, PyObject *args);
PyObject *accel_shisanshui_bind(PyObject *self, PyObject *args);
PyObject *accel_shisanshui_best(PyObject *self, PyObject *args);

/* _accel_poker.c: the Hold'em evaluator's tables and 5-card rows */
PyObject *accel_poker_nonflush(PyObject *self, PyObject *unused);
PyObject *accel_poker_flush(PyObject *self, PyObject *unused);
PyObject *accel_poker_rows5(PyObject *self, PyObject *args);
PyObject *accel_poker_runout(PyObject *self, PyObject *args);
/* _accel_mahjong.c: whether mahjong tiles win, and a wild-free hand's waits */
PyObject *accel_mahjong_win(PyObject *self, PyObject *args);
PyObject *accel_mahjong_waits(PyObject *self, PyObject *args);

#define ACCEL_MAX_CARDS 16
/* distinct cards as rank values and suit indexes: 1 read, 0 not such, -1 an error */
int accel_read_cards(PyObject *ranks, PyObject *suits, int *rank, int *suit, Py_ssize_t *n,
                     int seen[4]);
/* rank5 of the cards at[0..4] of rank values and suit indexes (distinct cards) */
int64_t accel_rank5_codes(const int *rank, const int *suit, const int *at);

#endif
