"""Blackjack house edge by simulation, against the exact infinite-deck figure.

Plays rounds of 多人21点 and 幸运21点 with basic strategy (the project's advisor) through
the variant's own rules (:class:`croupier.games.blackjack.rules.Rules`: drawing, hand
classes, pays, rake), dealing from

* ``--shoe real`` (default): the variant's real shoe - 多人21点 a fresh 4-deck shuffle
  every round, 幸运21点 a 2-deck shoe reshuffled when fewer than 26 cards remain;
* ``--shoe infinite``: cards drawn with replacement, the exact analysis' model,

and prints the mean result per unit of initial bet with its 95% confidence interval,
next to the exact infinite-deck house edge (``croupier.games.blackjack.probability``).
The infinite mode checks the analysis; the real mode measures what removing cards from a
finite shoe changes. One seat per round (a player on one seat); no insurance (basic
strategy declines it).

``--seats N`` also plays N seats per 幸运21点 round from the shared shoe and reports how
many cards a round takes: the largest round seen, and how many rounds begun with 26
cards left would have needed more than that (the shoe would run dry).

``--trees`` instead walks whole game trees through the engine (every card the engine
asks for, infinite deck, basic strategy deciding, each leaf settled by the engine) from
starts that split, and compares the expected result with the analysis, exactly. Slow:
minutes per start.

Run: ``.venv/bin/python bench/bench_blackjack_edge.py [--rounds N] [--shoe real|infinite]
[--seats N] [--seed S] [--trees]``
"""

from __future__ import annotations

import argparse
import copy
import itertools
import math
import random
import sys
import time
from fractions import Fraction

from croupier.games import base as g
from croupier.games.blackjack.engine import BlackjackEngine, BlackjackState
from croupier.games.blackjack.probability import P_VALUE, Analysis
from croupier.games.blackjack.rules import (
    VALUES,
    Action,
    AllBust,
    Rules,
    SplitDeal,
    Tally,
    card_value,
)
from croupier.games.blackjack.strategy import analysis
from croupier.games.registry import engine

RANKS = "A23456789TJQK"
VARIANTS = ("blackjack.multi", "blackjack.lucky")


class Shoe:
    def __init__(self, rules: Rules, mode: str, rng: random.Random) -> None:
        self.rules, self.mode, self.rng = rules, mode, rng
        self.cards: list[str] = []
        self.used = 0

    def new_round(self) -> int:
        """Shuffle if the variant would; returns the cards left."""
        if self.mode == "real":
            per_hand = self.rules.dealer_hole_card  # 多人21点 shuffles every hand
            if per_hand or len(self.cards) < 26:
                self.cards = [r for r in RANKS for _ in range(4 * self.rules.decks)]
                self.rng.shuffle(self.cards)
        self.used = 0
        return len(self.cards)

    def draw(self) -> str:
        self.used += 1
        if self.mode == "infinite":
            return self.rng.choice(RANKS)
        return self.cards.pop()


def play_box(
    rules: Rules,
    a: Analysis,
    up: int,
    cards: list[str],
    shoe: Shoe,
    *,
    from_split: bool,
    can_split: bool,
) -> list[tuple[list[str], int, bool]]:
    """Play one hand to the end; returns its hands as (cards, stake multiple, split)."""
    t = Tally.of_cards(cards)
    can_double = not from_split or rules.double_after_split
    while not rules.player_done(t, from_split=from_split):
        pair = can_split and rules.is_pair(cards)
        action, _ = a.choose(up, t, from_split, can_double and t.n == 2, pair)
        if action is Action.STAND:
            break
        if action is Action.SPLIT:
            left, right = [cards[0]], [cards[1]]
            if rules.split_deal is SplitDeal.BOTH:
                left.append(shoe.draw())
                right.append(shoe.draw())
            else:
                left.append(shoe.draw())
            out = play_box(rules, a, up, left, shoe, from_split=True, can_split=False)
            if len(right) < 2:
                right.append(shoe.draw())
            return out + play_box(rules, a, up, right, shoe, from_split=True, can_split=False)
        cards.append(shoe.draw())
        t = Tally.of_cards(cards)
        if action is Action.DOUBLE:
            return [(cards, 2, from_split)]
    return [(cards, 1, from_split)]


def play_round(rules: Rules, a: Analysis, shoe: Shoe, seats: int = 1) -> list[Fraction]:
    """One round; each seat's net result per unit bet, after rake."""
    first = [[shoe.draw()] for _ in range(seats)]
    for f in first:
        f.append(shoe.draw())
    dealer = [shoe.draw()]
    if rules.dealer_hole_card:
        dealer.append(shoe.draw())
    up = card_value(dealer[0])
    boxes = [play_box(rules, a, up, f, shoe, from_split=False, can_split=True) for f in first]
    every_bust = all(Tally.of_cards(c).bust for seat in boxes for c, _, _ in seat)
    d = Tally.of_cards(dealer)
    while rules.dealer_draws(d):
        if d.n >= 2 and rules.all_bust is AllBust.SECOND_CARD_ONLY and every_bust:
            break
        dealer.append(shoe.draw())
        d = Tally.of_cards(dealer)
    df = rules.dealer_final(d)
    out = []
    for seat in boxes:
        net = sum(
            (
                m * rules.pay(rules.player_final(Tally.of_cards(c), from_split=s), df)
                for c, m, s in seat
            ),
            Fraction(0),
        )
        out.append(net - (net * rules.rake if net > 0 else 0))
    return out


def simulate(variant: str, rounds: int, mode: str, seed: int) -> None:
    eng = engine(variant)
    assert isinstance(eng, BlackjackEngine)
    rules = eng.rules
    a = analysis(rules)
    exact = eng.summary()
    shoe = Shoe(rules, mode, random.Random(seed))
    s = s2 = 0.0
    t0 = time.perf_counter()
    for _ in range(rounds):
        shoe.new_round()
        x = float(play_round(rules, a, shoe)[0])
        s += x
        s2 += x * x
    dt = time.perf_counter() - t0
    mean = s / rounds
    se = math.sqrt(max(s2 / rounds - mean * mean, 0.0) / (rounds - 1))
    he, lo, hi = -mean, -mean - 1.96 * se, -mean + 1.96 * se
    print(
        f"{variant:<16} {mode:<8} {rounds:>10,} rounds  house edge {he * 100:+.3f}% "
        f"(95% CI {lo * 100:+.3f}% .. {hi * 100:+.3f}%)   exact infinite deck "
        f"{float(exact.house_edge) * 100:+.4f}%   {rounds / dt:,.0f} rounds/s"
    )


def cards_per_round(rounds: int, seats: int, seed: int) -> None:
    eng = engine("blackjack.lucky")
    assert isinstance(eng, BlackjackEngine)
    rules, a = eng.rules, analysis(eng.rules)
    shoe = Shoe(rules, "infinite", random.Random(seed))
    used: dict[int, int] = {}
    for _ in range(rounds):
        shoe.new_round()
        play_round(rules, a, shoe, seats)
        used[shoe.used] = used.get(shoe.used, 0) + 1
    tail = {k: sum(n for u, n in used.items() if u > k) for k in (20, 22, 24, 26)}
    print(
        f"blackjack.lucky  {seats} seat(s): {rounds:,} rounds, at most {max(used)} cards in a "
        f"round; rounds taking more than 20/22/24/26 cards: "
        + "/".join(str(n) for n in tail.values())
    )


# -- exact trees through the engine ----------------------------------------------------------
RANK = {1: "A", **{v: str(v) for v in range(2, 10)}, 10: "T"}


def tree_value(eng: BlackjackEngine, start: tuple[str, str, str]) -> Fraction:
    op = {
        "variant": eng.variant, "config_version": 1, "table": "t", "shoe": "s",
        "commitment": "", "hand_no": 1, "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p", "stack": 10**9}],
    }  # fmt: skip
    st = eng.open("h", op)
    eng.step(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 1000})
    eng.step(st, g.BETTING_CLOSED, {})
    to = ("seat:1", "seat:1", "dealer")
    eng.step(
        st,
        g.CARD_DEALT,
        {
            "cards": [
                {"to": t, "card": c, "pos": i, "up": True}
                for i, (t, c) in enumerate(zip(to, start, strict=True))
            ]
        },
    )

    def value(st: BlackjackState) -> Fraction:
        req = eng.next_deal(st)
        if req is not None and req.reveal:
            eng.step(st, g.CARDS_REVEALED, {"to": "dealer", "cards": [st.hole]})
            return value(st)
        if req is not None:
            total = Fraction(0)
            for vs in itertools.product(VALUES, repeat=len(req.cards)):
                s2 = copy.deepcopy(st)
                cards = [
                    {"to": d.to, "card": RANK[v] + "shdc"[i], "pos": 3 + i, "up": d.up}
                    for i, (d, v) in enumerate(zip(req.cards, vs, strict=True))
                ]
                eng.step(s2, g.CARD_DEALT, {"cards": cards})
                total += math.prod((P_VALUE[v] for v in vs), start=Fraction(1)) * value(s2)
            return total
        if eng.is_over(st):
            return Fraction(eng.settle(st).deltas["p"], 1000)
        turn = eng.to_act(st)
        assert turn is not None
        eng.step(st, g.ACTION_TAKEN, {"seat": 1, "action": eng.advise(st, turn).value, "args": {}})
        return value(st)

    return value(st)


def trees() -> None:
    for variant in VARIANTS:
        eng = engine(variant)
        assert isinstance(eng, BlackjackEngine)
        for start in (("8c", "8d", "6h"), ("2c", "3d", "7h")):
            t0 = time.perf_counter()
            got = tree_value(eng, start)
            t = Tally.of_cards(start[:2])
            ev, rake = analysis(eng.rules).start_value(
                card_value(start[2]), t, eng.rules.is_pair(start[:2])
            )
            ok = "equal" if got == ev - rake else f"DIFFERENT (analysis {float(ev - rake):.12f})"
            print(
                f"{variant:<16} {' '.join(start)}: engine {float(got):+.12f}  {ok}  "
                f"({time.perf_counter() - t0:.0f}s)"
            )
            if got != ev - rake:
                sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=200_000)
    p.add_argument("--shoe", choices=("real", "infinite"), default="real")
    p.add_argument("--seats", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--trees", action="store_true")
    a = p.parse_args(argv)
    if a.trees:
        trees()
        return
    for variant in VARIANTS:
        simulate(variant, a.rounds, a.shoe, a.seed)
    if a.seats:
        cards_per_round(a.rounds, a.seats, a.seed)


if __name__ == "__main__":
    main()
