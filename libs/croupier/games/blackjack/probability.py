"""Exact blackjack probabilities: the dealer's final hand and the player's expected
return under basic strategy, for a variant's :class:`~.rules.Rules`.

Model
-----
*Dealer outcomes* are computed by recursion over the dealer's drawing rule, either from
an **infinite deck** (every card value drawn with probability 1/13, tens 4/13) or from
a **shoe composition** (counts per value, drawn without replacement):
:func:`dealer_distribution` and :func:`dealer_distribution_shoe`. Both call
:meth:`Rules.dealer_draws` and :meth:`Rules.dealer_final`, the functions the engine
uses to play the dealer's hand. The shoe version reproduces published tables (see
``tests/unit/games/test_blackjack_probability.py``).

*The player* is analysed over an infinite deck (:class:`Analysis`). For every dealer up
card and every player hand the value of standing, hitting, doubling and splitting is
computed exactly (``Fraction``); basic strategy is the action of highest value, ties
going to the first of stand, hit, double, split. The dealer's hole card is not known:
under basic strategy nobody insures, so the 多人21点 dealer never peeks, and a dealer
blackjack takes every stake on the table except a player blackjack's (a push). With a
hand limit and five-card charlie the player's state includes the number of cards.

The house edge is minus the expected net result per round and unit of the seat's
initial bet, doubles and splits included. The rake (多人21点: 2% of each winner's net
profit for the hand) is not linear in the outcome when a seat splits, so it is computed
from the exact distribution of the seat's net result: the distribution of each finished
player hand is independent of the dealer's outcome in an infinite deck, and the two
halves of a split are independent given the dealer's outcome. For the strategy itself a
win counts ``1 - rate`` of its profit.

An infinite deck differs from the real shoes by the effect of removed cards:
``bench/bench_blackjack_edge.py`` simulates them (2,000,000 rounds each: 多人21点 with a
fresh 4-deck shuffle -0.06% +- 0.15%, against -0.05% exact over an infinite deck;
幸运21点's 2-deck shoe 0.38% +- 0.15%, against 0.70%). :meth:`Analysis.summary` gives
the figures the configs and tests quote.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from croupier.games.blackjack.rules import (
    VALUES,
    Action,
    Final,
    Kind,
    PairMatch,
    Rules,
    Tally,
)

P_VALUE: Mapping[int, Fraction] = {v: Fraction(4 if v == 10 else 1, 13) for v in VALUES}
"""Probability of each card value from an infinite deck."""

Dist = dict[Final, Fraction]


# -- the dealer -------------------------------------------------------------------------
@cache
def _dealer_inf(rules: Rules, t: Tally) -> tuple[tuple[Final, Fraction], ...]:
    if not rules.dealer_draws(t):
        return ((rules.dealer_final(t), Fraction(1)),)
    out: dict[Final, Fraction] = defaultdict(Fraction)
    for v in VALUES:
        for f, p in _dealer_inf(rules, t.add(v)):
            out[f] += P_VALUE[v] * p
    return tuple(out.items())


def dealer_distribution(rules: Rules, up: int, *, no_blackjack: bool = False) -> Dist:
    """The dealer's final hand given the up card's value, infinite deck. With
    ``no_blackjack`` it is conditioned on the dealer having no blackjack (after a peek)."""
    d = dict(_dealer_inf(rules, Tally().add(up)))
    if no_blackjack:
        bj = Final(Kind.BLACKJACK, 21)
        rest = 1 - d.pop(bj, Fraction(0))
        d = {f: p / rest for f, p in d.items()}
    return d


@cache
def _dealer_shoe(
    rules: Rules, t: Tally, counts: tuple[int, ...]
) -> tuple[tuple[Final, Fraction], ...]:
    if not rules.dealer_draws(t):
        return ((rules.dealer_final(t), Fraction(1)),)
    n = sum(counts)
    out: dict[Final, Fraction] = defaultdict(Fraction)
    for i, c in enumerate(counts):
        if not c:
            continue
        rest = (*counts[:i], c - 1, *counts[i + 1 :])
        for f, p in _dealer_shoe(rules, t.add(i + 1), rest):
            out[f] += Fraction(c, n) * p
    return tuple(out.items())


def shoe_counts(decks: int) -> tuple[int, ...]:
    """Cards per value (ace .. ten) in ``decks`` full 52-card decks."""
    return tuple(16 * decks if v == 10 else 4 * decks for v in VALUES)


def dealer_distribution_shoe(rules: Rules, up: int, counts: tuple[int, ...]) -> Dist:
    """The dealer's final hand given the up card's value, drawing without replacement
    from ``counts`` (per value ace .. ten, the up card already removed)."""
    return dict(_dealer_shoe(rules, Tally().add(up), counts))


# -- the player -------------------------------------------------------------------------
Outcome = tuple[Final, int]  # a finished hand and its stake multiple (2 when doubled)


@dataclass(frozen=True, slots=True)
class Summary:
    """Figures of a variant under basic strategy, infinite deck, per unit of initial bet."""

    ev: Fraction  # expected net result before rake
    rake: Fraction  # expected rake
    spot_rtp: Mapping[str, Fraction]  # return per unit staked on each wager spot
    p_double: Fraction
    p_split: Fraction

    @property
    def house_edge(self) -> Fraction:
        return self.rake - self.ev

    @property
    def rtp(self) -> Fraction:
        return 1 + self.ev - self.rake


class Analysis:
    """Basic strategy and its exact expected return over an infinite deck."""

    def __init__(self, rules: Rules, *, dealer_checked: bool = False) -> None:
        self.rules = rules
        self.dealer_checked = dealer_checked  # the dealer peeked: no blackjack (ace up)
        self.win_factor = 1 - rules.rake
        self._stand: dict[tuple[int, Final], Fraction] = {}
        self._choice: dict[tuple[int, Tally, bool, bool, bool], tuple[Action, Fraction]] = {}
        self._dist: dict[tuple[int, Tally, bool, bool, bool], dict[Outcome, Fraction]] = {}

    def dealer(self, up: int) -> Dist:
        return dealer_distribution(self.rules, up, no_blackjack=self.dealer_checked and up == 1)

    def stand_value(self, up: int, final: Final) -> Fraction:
        """Expected result of one unit on a finished hand (wins count ``1 - rake``)."""
        key = (up, final)
        got = self._stand.get(key)
        if got is None:
            got = Fraction(0)
            for d, p in self.dealer(up).items():
                x = self.rules.pay(final, d)
                got += p * (x * self.win_factor if x > 0 else x)
            self._stand[key] = got
        return got

    def choose(
        self, up: int, t: Tally, from_split: bool, can_double: bool, can_split: bool
    ) -> tuple[Action, Fraction]:
        """Basic strategy's action for a hand and its value per unit of the hand's bet."""
        key = (up, t, from_split, can_double, can_split)
        got = self._choice.get(key)
        if got is not None:
            return got
        r = self.rules
        if t.bust:
            got = (Action.STAND, Fraction(-1))
        elif r.player_done(t, from_split=from_split):
            got = (Action.STAND, self.stand_value(up, r.player_final(t, from_split=from_split)))
        else:
            options = [(Action.STAND, self.stand_value(up, Final(Kind.POINTS, t.total)))]
            hit = sum(
                (
                    P_VALUE[v] * self.choose(up, t.add(v), from_split, False, False)[1]
                    for v in VALUES
                ),
                Fraction(0),
            )
            options.append((Action.HIT, hit))
            if can_double and r.double_refusal(t, from_split=from_split) is None:
                dbl = sum(
                    (
                        P_VALUE[v]
                        * self.stand_value(up, r.player_final(t.add(v), from_split=from_split))
                        for v in VALUES
                    ),
                    Fraction(0),
                )
                options.append((Action.DOUBLE, 2 * dbl))
            if can_split and t.n == 2 and r.max_splits > 0:
                half = t.hard // 2 if not t.ace else 1
                options.append((Action.SPLIT, 2 * self._split_hand_value(up, half)))
            got = options[0]
            for o in options[1:]:
                if o[1] > got[1]:
                    got = o
        self._choice[key] = got
        return got

    def _split_hand_value(self, up: int, v: int) -> Fraction:
        das = self.rules.double_after_split
        return sum(
            (P_VALUE[c] * self.choose(up, Tally.of((v, c)), True, das, False)[1] for c in VALUES),
            Fraction(0),
        )

    def distribution(
        self, up: int, t: Tally, from_split: bool, can_double: bool, can_split: bool
    ) -> dict[Outcome, Fraction]:
        """How a hand finishes under basic strategy (not for a hand basic strategy
        splits: see :meth:`split_hand_distribution`)."""
        key = (up, t, from_split, can_double, can_split)
        got = self._dist.get(key)
        if got is not None:
            return got
        r = self.rules
        action, _ = self.choose(up, t, from_split, can_double, can_split)
        out: dict[Outcome, Fraction] = defaultdict(Fraction)
        if t.bust or r.player_done(t, from_split=from_split) or action is Action.STAND:
            out[(r.player_final(t, from_split=from_split), 1)] += 1
        elif action is Action.HIT:
            for v in VALUES:
                for o, p in self.distribution(up, t.add(v), from_split, False, False).items():
                    out[o] += P_VALUE[v] * p
        elif action is Action.DOUBLE:
            for v in VALUES:
                out[(r.player_final(t.add(v), from_split=from_split), 2)] += P_VALUE[v]
        else:
            raise ValueError("a split hand has no single-hand distribution")
        self._dist[key] = dict(out)
        return self._dist[key]

    def split_hand_distribution(self, up: int, v: int) -> dict[Outcome, Fraction]:
        """How one half of a split pair of value ``v`` finishes."""
        das = self.rules.double_after_split
        out: dict[Outcome, Fraction] = defaultdict(Fraction)
        for c in VALUES:
            for o, p in self.distribution(up, Tally.of((v, c)), True, das, False).items():
                out[o] += P_VALUE[c] * p
        return dict(out)

    def initial_hands(self) -> list[tuple[Tally, bool, Fraction]]:
        """Every two-card start by value: (tally, splittable, probability). Two tens
        are a pair under value matching and with probability 1/4 (same rank) under
        rank matching."""
        out = []
        for a in VALUES:
            for b in VALUES:
                p = P_VALUE[a] * P_VALUE[b]
                t = Tally.of((a, b))
                if a != b:
                    out.append((t, False, p))
                elif a == 10 and self.rules.split_match is PairMatch.RANK:
                    out += [(t, True, p / 4), (t, False, p * 3 / 4)]
                else:
                    out.append((t, True, p))
        return out

    def hands_of(self, up: int, t: Tally, pair: bool) -> list[dict[Outcome, Fraction]]:
        """How the seat's hands finish from a two-card start under basic strategy: one
        distribution, or two (identical, independent) for the halves of a split."""
        action, _ = self.choose(up, t, False, True, pair)
        if action is Action.SPLIT:
            half = self.split_hand_distribution(up, 1 if t.ace else t.hard // 2)
            return [half, half]
        return [self.distribution(up, t, False, True, pair)]

    def start_value(self, up: int, t: Tally, pair: bool) -> tuple[Fraction, Fraction]:
        """Exact expected net result (before rake) and expected rake of a seat's round
        from a two-card start, per unit of initial bet."""
        r = self.rules
        ev = rake = Fraction(0)
        hands = self.hands_of(up, t, pair)
        for d, pd in self.dealer(up).items():
            net = {Fraction(0): Fraction(1)}
            for h in hands:
                res: dict[Fraction, Fraction] = defaultdict(Fraction)
                for (f, m), ph in h.items():
                    res[m * r.pay(f, d)] += ph
                net = _convolve(net, res)
            for x, px in net.items():
                ev += pd * px * x
                if x > 0:
                    rake += pd * px * x * r.rake
        return ev, rake

    @cache  # noqa: B019 - one Analysis per rule set, kept for the process
    def summary(self) -> Summary:
        r = self.rules
        ev = rake_sum = Fraction(0)
        spot_sum: dict[str, Fraction] = defaultdict(Fraction)
        spot_p: dict[str, Fraction] = defaultdict(Fraction)
        names = (("main", "double"), ("main.split", "double.split"))
        for up in VALUES:
            dealer = self.dealer(up)
            for t, pair, p in self.initial_hands():
                w = P_VALUE[up] * p
                for i, h in enumerate(self.hands_of(up, t, pair)):
                    for (f, m), ph in h.items():
                        pay = sum((pd * r.pay(f, d) for d, pd in dealer.items()), Fraction(0))
                        spot_sum[names[i][0]] += w * ph * pay
                        spot_p[names[i][0]] += w * ph
                        if m == 2:
                            spot_sum[names[i][1]] += w * ph * pay
                            spot_p[names[i][1]] += w * ph
                x, k = self.start_value(up, t, pair)
                ev += w * x
                rake_sum += w * k
        p_ins_win = dealer_distribution(r, 1).get(Final(Kind.BLACKJACK, 21), Fraction(0))
        spot_rtp = {s: 1 + spot_sum[s] / spot_p[s] for s in spot_sum if spot_p[s]}
        spot_rtp["insurance"] = 1 + p_ins_win * r.insurance_pays - (1 - p_ins_win)
        return Summary(ev, rake_sum, spot_rtp, spot_p["double"], spot_p["main.split"])


def _convolve(
    a: Mapping[Fraction, Fraction], b: Mapping[Fraction, Fraction]
) -> dict[Fraction, Fraction]:
    """Distribution of the sum of two independent results."""
    out: dict[Fraction, Fraction] = defaultdict(Fraction)
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] += px * py
    return dict(out)
