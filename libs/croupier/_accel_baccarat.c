/* croupier._accel, its third part: a baccarat hand's events stepped natively.
 *
 * baccarat_steps(steps, seats, shoe_hand_no, rules) -> tuple | None: what
 * croupier.games.baccarat.engine.BaccaratEngine.step does, event by event, to a state
 * just opened, for the events of a hand after its hand.opened -- bets.placed and
 * bet.placed (each bet checked against the seat, the spot, its amount and step, the
 * spot's closing after a shoe's hand, the spot's limits per seat, the seat's stack, the
 * table limit, then applied), betting.closed, card.dealt (each card the one the drawing
 * order asks for, to the side it asks for, face up, a card of the deal, at a position
 * >= 0) and hand.closed (the coup complete, no carry) -- or None: "not proven", where
 * the pure engine steps the events itself and decides (a refusal, worded there, or a
 * state). So it answers a state only for events the pure engine accepts, and the same
 * state; anything of another type or shape than the dealer writes is not proven (a
 * seat given as a string, a mapping that is not a dict, an amount past 63 bits...).
 *
 * The rules themselves are the pure engine's: which side draws is read from tables the
 * engine builds from its own functions (rules.py), card points from its CARD_POINTS,
 * limits from its config. This file holds only the order of the deal (the two first
 * cards each, then the player's third, then the banker's) and the bookkeeping.
 *
 * rules: (card_points: dict[str, int], player_draws: bytes[10], banker_draws: bytes[110]
 *         (banker's two-card total * 11 + the player's third card's points + 1, 0 for
 *         "the player stood"), natural: bytes[10], limits: dict[str, (min, max)],
 *         spot_of: dict[str, Spot], big_small: tuple[str, ...], big_small_last: int,
 *         stake_step: int, table_limit: int, player: str, banker: str)
 * answer: (bets [(seat, Spot, amount)], staked_by_seat {seat: n},
 *          staked_by_seat_spot {(seat, Spot): n}, total_staked, player cards,
 *          banker cards, positions, phase, closed)
 */
#include "_accel.h"

#include <string.h>

static PyObject *s_bets, *s_seat, *s_spot, *s_amount, *s_cards, *s_to, *s_up, *s_card,
    *s_pos, *s_carry, *t_bets_placed, *t_bet_placed, *t_betting_closed, *t_card_dealt,
    *t_hand_closed, *p_betting, *p_dealing, *p_closed;

#define MAX_CARDS 3  /* a side never holds more */
#define MAX_BETS 256 /* more in one hand: not proven (the pure engine steps it) */

typedef struct {
    PyObject *card_points, *limits, *spot_of, *big_small, *player_name, *banker_name;
    const unsigned char *player_draws, *banker_draws, *natural;
    long long big_small_last, stake_step, table_limit, shoe_hand_no;
} Rules;

typedef struct {
    long long seat;
    PyObject *spot; /* borrowed: a value of rules->spot_of */
    long long amount;
} Bet;

typedef struct {
    PyObject *player[MAX_CARDS], *banker[MAX_CARDS]; /* borrowed from the payloads */
    int player_pts[MAX_CARDS], banker_pts[MAX_CARDS];
    int n_player, n_banker;
} Cards;

typedef struct {
    Bet bets[MAX_BETS];
    Py_ssize_t n_bets;
    Cards cards;
    PyObject *positions; /* a list, owned */
    int phase;           /* 0 betting, 1 dealing, 2 closed */
} Hand;

/* An exact int that fits 63 bits, else 0 (no exception left set). */
static int exact_ll(PyObject *o, long long *out) {
    if (o == NULL || !PyLong_CheckExact(o)) return 0;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    *out = v;
    return 1;
}

static int over_add(long long a, long long b, long long *out) {
    return __builtin_add_overflow(a, b, out);
}

/* The stake of ``seat`` on ``spot`` so far (bets before this one), and on the seat. */
static void staked(const Hand *h, long long seat, PyObject *spot, long long *on_spot,
                   long long *on_seat) {
    *on_spot = *on_seat = 0;
    for (Py_ssize_t i = 0; i < h->n_bets; i++)
        if (h->bets[i].seat == seat) {
            *on_seat += h->bets[i].amount;
            if (h->bets[i].spot == spot) *on_spot += h->bets[i].amount;
        }
}

/* One bet (an exact dict) checked and applied: 1, or 0 for not proven. */
static int bet(Hand *h, const Rules *r, PyObject *seats, PyObject *b, long long *total) {
    if (!PyDict_CheckExact(b) || h->phase != 0 || h->n_bets >= MAX_BETS) return 0;
    long long seat, amount, stack, lo, hi;
    PyObject *seat_o = PyDict_GetItemWithError(b, s_seat);
    PyObject *name = PyDict_GetItemWithError(b, s_spot);
    PyObject *amount_o = PyDict_GetItemWithError(b, s_amount);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (!exact_ll(seat_o, &seat) || !exact_ll(amount_o, &amount) || name == NULL ||
        !PyUnicode_CheckExact(name))
        return 0;
    if (amount <= 0 || amount % r->stake_step != 0) return 0;
    PyObject *stack_o = PyDict_GetItemWithError(seats, seat_o);
    PyObject *spot = PyDict_GetItemWithError(r->spot_of, name);
    PyObject *lim = PyDict_GetItemWithError(r->limits, name);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (!exact_ll(stack_o, &stack) || spot == NULL || lim == NULL || !PyTuple_CheckExact(lim) ||
        PyTuple_GET_SIZE(lim) != 2 || !exact_ll(PyTuple_GET_ITEM(lim, 0), &lo) ||
        !exact_ll(PyTuple_GET_ITEM(lim, 1), &hi))
        return 0;
    int closing = PySequence_Contains(r->big_small, name);
    if (closing < 0) {
        PyErr_Clear();
        return 0;
    }
    if (closing && r->shoe_hand_no > r->big_small_last) return 0;
    long long on_spot, on_seat, t;
    staked(h, seat, spot, &on_spot, &on_seat);
    if (over_add(on_spot, amount, &on_spot) || on_spot < lo || on_spot > hi) return 0;
    if (over_add(on_seat, amount, &on_seat) || on_seat > stack) return 0;
    if (over_add(*total, amount, &t) || t > r->table_limit) return 0;
    *total = t;
    h->bets[h->n_bets++] = (Bet){seat, spot, amount};
    return 1;
}

/* Which side the next card goes to: 0 player, 1 banker, -1 none (the coup complete);
 * -2 for cards out of the order (which the stepping never lets happen). */
static int next_side(const Cards *h, const Rules *r) {
    int np = h->n_player, nb = h->n_banker;
    if (np < 2 || nb < 2) {
        if (np == nb) return 0;
        if (np == nb + 1) return 1;
        return -2;
    }
    int p2 = (h->player_pts[0] + h->player_pts[1]) % 10;
    int b2 = (h->banker_pts[0] + h->banker_pts[1]) % 10;
    int natural = r->natural[p2] || r->natural[b2];
    int player_takes = !natural && r->player_draws[p2];
    if (np > 2 + player_takes) return -2;
    if (player_takes && np == 2) return nb > 2 ? -2 : 0;
    int third = player_takes ? h->player_pts[2] + 1 : 0;
    int banker_takes = !natural && r->banker_draws[b2 * 11 + third];
    if (nb > 2 + banker_takes) return -2;
    if (banker_takes && nb == 2) return 1;
    return -1;
}

/* One card.dealt payload checked and applied whole (its cards, then the state): 1, or 0
 * for not proven. */
static int deal(Hand *h, const Rules *r, PyObject *p) {
    if (h->phase != 1 || !PyDict_CheckExact(p)) return 0;
    PyObject *cards = PyDict_GetItemWithError(p, s_cards);
    if (cards == NULL || !PyList_CheckExact(cards) || PyList_GET_SIZE(cards) == 0) {
        PyErr_Clear();
        return 0;
    }
    Cards trial = h->cards; /* the state changes only once every card passed */
    Py_ssize_t n = PyList_GET_SIZE(cards);
    long long pos[8];
    if (n > 8) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(cards, i);
        if (!PyDict_CheckExact(c)) return 0;
        int side = next_side(&trial, r);
        if (side < 0) return 0;
        PyObject *to = PyDict_GetItemWithError(c, s_to);
        PyObject *up = PyDict_GetItemWithError(c, s_up);
        PyObject *card = PyDict_GetItemWithError(c, s_card);
        PyObject *pos_o = PyDict_GetItemWithError(c, s_pos);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (to == NULL || !PyUnicode_CheckExact(to) ||
            PyUnicode_Compare(to, side == 0 ? r->player_name : r->banker_name) != 0)
            return 0;
        if (up != Py_True || card == NULL || !PyUnicode_CheckExact(card)) return 0;
        if (!exact_ll(pos_o, &pos[i]) || pos[i] < 0) return 0;
        PyObject *pts_o = PyDict_GetItemWithError(r->card_points, card);
        long long pts;
        if (pts_o == NULL || !exact_ll(pts_o, &pts) || pts < 0 || pts > 9) {
            PyErr_Clear();
            return 0;
        }
        if (side == 0) {
            if (trial.n_player >= MAX_CARDS) return 0;
            trial.player[trial.n_player] = card;
            trial.player_pts[trial.n_player++] = (int)pts;
        } else {
            if (trial.n_banker >= MAX_CARDS) return 0;
            trial.banker[trial.n_banker] = card;
            trial.banker_pts[trial.n_banker++] = (int)pts;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLongLong(pos[i]);
        if (v == NULL || PyList_Append(h->positions, v) < 0) {
            Py_XDECREF(v);
            return -1;
        }
        Py_DECREF(v);
    }
    h->cards = trial;
    return 1;
}

static int read_rules(PyObject *t, Rules *r) {
    PyObject *pd, *bd, *nat;
    if (!PyArg_ParseTuple(t, "O!SSSO!O!OLLLUU:rules", &PyDict_Type, &r->card_points, &pd, &bd,
                          &nat, &PyDict_Type, &r->limits, &PyDict_Type, &r->spot_of,
                          &r->big_small, &r->big_small_last, &r->stake_step, &r->table_limit,
                          &r->player_name, &r->banker_name))
        return -1;
    if (PyBytes_GET_SIZE(pd) != 10 || PyBytes_GET_SIZE(bd) != 110 ||
        PyBytes_GET_SIZE(nat) != 10 || r->stake_step <= 0) {
        PyErr_SetString(PyExc_ValueError, "baccarat rules: malformed tables");
        return -1;
    }
    r->player_draws = (const unsigned char *)PyBytes_AS_STRING(pd);
    r->banker_draws = (const unsigned char *)PyBytes_AS_STRING(bd);
    r->natural = (const unsigned char *)PyBytes_AS_STRING(nat);
    return 0;
}

/* The bets.placed / bet.placed payload's bets, each stepped: 1, or 0 for not proven. */
static int place(Hand *h, const Rules *r, PyObject *seats, PyObject *type, PyObject *p,
                 long long *total) {
    if (!PyDict_CheckExact(p)) return 0;
    if (type == t_bet_placed) return bet(h, r, seats, p, total);
    PyObject *bets = PyDict_GetItemWithError(p, s_bets);
    if (bets == NULL || PyDict_GET_SIZE(p) != 1 || !PyList_CheckExact(bets) ||
        PyList_GET_SIZE(bets) == 0) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(bets); i++)
        if (!bet(h, r, seats, PyList_GET_ITEM(bets, i), total)) return 0;
    return 1;
}

/* The intern'd type, or NULL for one not stepped here. */
static PyObject *known_type(PyObject *t) {
    PyObject *known[] = {t_bets_placed, t_bet_placed, t_betting_closed, t_card_dealt,
                         t_hand_closed};
    if (!PyUnicode_CheckExact(t)) return NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (t == known[i] || PyUnicode_Compare(t, known[i]) == 0) return known[i];
    return NULL;
}

static PyObject *answer(const Hand *h, long long total) {
    const Cards *c = &h->cards;
    PyObject *bets = PyList_New(h->n_bets), *by_seat = PyDict_New(), *by_spot = PyDict_New(),
             *player = PyList_New(c->n_player), *banker = PyList_New(c->n_banker);
    PyObject *out = NULL;
    if (!bets || !by_seat || !by_spot || !player || !banker) goto done;
    for (Py_ssize_t i = 0; i < h->n_bets; i++) {
        const Bet *b = &h->bets[i];
        PyObject *seat = PyLong_FromLongLong(b->seat), *amount = PyLong_FromLongLong(b->amount);
        PyObject *key = seat ? PyTuple_Pack(2, seat, b->spot) : NULL;
        PyObject *row = key ? PyTuple_Pack(3, seat, b->spot, amount) : NULL;
        int ok = row != NULL;
        for (int k = 0; ok && k < 2; k++) {
            PyObject *d = k ? by_spot : by_seat, *kk = k ? key : seat;
            PyObject *was = PyDict_GetItemWithError(d, kk);
            long long sum = b->amount, w;
            if (was != NULL && exact_ll(was, &w)) sum += w; /* bounded by the checks */
            PyObject *v = PyErr_Occurred() ? NULL : PyLong_FromLongLong(sum);
            ok = v != NULL && PyDict_SetItem(d, kk, v) == 0;
            Py_XDECREF(v);
        }
        Py_XDECREF(seat);
        Py_XDECREF(amount);
        Py_XDECREF(key);
        if (!ok) {
            Py_XDECREF(row);
            goto done;
        }
        PyList_SET_ITEM(bets, i, row);
    }
    for (int i = 0; i < c->n_player; i++) PyList_SET_ITEM(player, i, Py_NewRef(c->player[i]));
    for (int i = 0; i < c->n_banker; i++) PyList_SET_ITEM(banker, i, Py_NewRef(c->banker[i]));
    PyObject *phase = h->phase == 0 ? p_betting : h->phase == 1 ? p_dealing : p_closed;
    out = Py_BuildValue("(OOOLOOOOO)", bets, by_seat, by_spot, total, player, banker,
                        h->positions, phase, h->phase == 2 ? Py_True : Py_False);
done:
    Py_XDECREF(bets);
    Py_XDECREF(by_seat);
    Py_XDECREF(by_spot);
    Py_XDECREF(player);
    Py_XDECREF(banker);
    return out;
}

PyObject *accel_baccarat_steps(PyObject *self, PyObject *args) {
    PyObject *steps, *seats, *rules_t;
    long long shoe_hand_no;
    if (!PyArg_ParseTuple(args, "O!O!LO!:baccarat_steps", &PyList_Type, &steps, &PyDict_Type,
                          &seats, &shoe_hand_no, &PyTuple_Type, &rules_t))
        return NULL;
    Rules r;
    if (read_rules(rules_t, &r) < 0) return NULL;
    r.shoe_hand_no = shoe_hand_no;
    Hand hand; /* ~6 KB on the stack: what is read is set first */
    Hand *h = &hand;
    h->n_bets = 0;
    memset(&h->cards, 0, sizeof h->cards);
    h->phase = 0;
    h->positions = PyList_New(0);
    PyObject *out = NULL;
    long long total = 0;
    int ok = h->positions != NULL ? 1 : -1;
    /* the payloads (and their cards) stay alive while ``steps`` holds them */
    for (Py_ssize_t i = 0; ok == 1 && i < PyList_GET_SIZE(steps); i++) {
        PyObject *step = PyList_GET_ITEM(steps, i);
        if (!PyTuple_CheckExact(step) || PyTuple_GET_SIZE(step) != 2) {
            ok = 0;
            break;
        }
        PyObject *type = known_type(PyTuple_GET_ITEM(step, 0)), *p = PyTuple_GET_ITEM(step, 1);
        if (type == NULL || h->phase == 2) {
            ok = 0;
        } else if (type == t_bets_placed || type == t_bet_placed) {
            ok = place(h, &r, seats, type, p, &total);
        } else if (type == t_betting_closed) {
            ok = h->phase == 0;
            if (ok) h->phase = 1;
        } else if (type == t_card_dealt) {
            ok = deal(h, &r, p);
        } else { /* hand.closed: the coup complete, no carry (baccarat carries nothing) */
            ok = h->phase == 1 && next_side(&h->cards, &r) == -1 && PyDict_CheckExact(p);
            if (ok) {
                PyObject *carry = PyDict_GetItemWithError(p, s_carry);
                if (PyErr_Occurred()) {
                    PyErr_Clear();
                    ok = 0;
                } else if (carry != NULL) {
                    ok = PyDict_CheckExact(carry) && PyDict_GET_SIZE(carry) == 0;
                }
            }
            if (ok) h->phase = 2;
        }
    }
    if (ok == 1)
        out = answer(h, total);
    else if (ok == 0)
        out = Py_NewRef(Py_None);
    Py_XDECREF(h->positions);
    return out;
}

int accel_baccarat_init(void) {
    struct {
        PyObject **at;
        const char *s;
    } names[] = {
        {&s_bets, "bets"},
        {&s_seat, "seat"},
        {&s_spot, "spot"},
        {&s_amount, "amount"},
        {&s_cards, "cards"},
        {&s_to, "to"},
        {&s_up, "up"},
        {&s_card, "card"},
        {&s_pos, "pos"},
        {&s_carry, "carry"},
        {&t_bets_placed, "bets.placed"},
        {&t_bet_placed, "bet.placed"},
        {&t_betting_closed, "betting.closed"},
        {&t_card_dealt, "card.dealt"},
        {&t_hand_closed, "hand.closed"},
        {&p_betting, "betting"},
        {&p_dealing, "dealing"},
        {&p_closed, "closed"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].at = PyUnicode_InternFromString(names[i].s)) == NULL) return -1;
    return 0;
}
