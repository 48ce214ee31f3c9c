"""Exact probabilities and spot RTPs of 开心摇摇乐 over all 6**6 = 46,656 rolls.

Source: ``000_d16ad353ba467b8a.txt``, 开心摇摇乐; spots and pays as in :mod:`.rules`.

The six dice are independent and fair, so each of the 46,656 ordered rolls (red's
three, blue's three) has weight 1. Every spot's result depends on a side's three dice
only through their total and their :class:`~.rules.Pattern`, so the 216 ordered rolls
of one side are grouped into (total, pattern) classes with their counts, and the roll
classes are the 216 x 216 products of a red and a blue class: the weights still add up
to 46,656 and every probability below is an exact :class:`~fractions.Fraction`. The
unit tests recompute all of it by brute force over the 46,656 rolls through
:func:`.rules.spot_result`.

Results (seed paytable, total-return reading; :data:`SEED_RTP`):

====================  ==================  =========
spot                  P(win)              RTP
====================  ==================  =========
red / blue            21,162 / 46,656     0.995424
tie                   4,332 / 46,656      0.742798
pair (per side)       90 / 216            0.958333
straight (per side)   24 / 216            0.888889
triple (per side)     6 / 216             0.833333
====================  ==================  =========

Red or blue wins with a total below 8 in 854 of the 46,656 rolls (427 each, paid 1.5),
and 4,332 rolls tie (red and blue refunded).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product

from croupier.games.dice.rules import (
    SEED_PAYTABLE,
    SIDE_SPOTS,
    Pattern,
    Paytable,
    Round,
    Spot,
    Winner,
    pattern,
    spot_result,
)

ROLLS = 6**6


@cache
def side_classes() -> Mapping[tuple[int, Pattern], int]:
    """(total, pattern) of three dice -> how many of the 216 ordered rolls give it."""
    c: Counter[tuple[int, Pattern]] = Counter()
    for dice in product(range(1, 7), repeat=3):
        c[(sum(dice), pattern(dice))] += 1
    return dict(sorted(c.items(), key=lambda kv: (kv[0][0], kv[0][1].value)))


def _representative(total: int, pat: Pattern) -> tuple[int, int, int]:
    for a, b, c in product(range(1, 7), repeat=3):
        if a + b + c == total and pattern((a, b, c)) is pat:
            return a, b, c
    raise AssertionError((total, pat))  # pragma: no cover - every class has a roll


@dataclass(frozen=True)
class YaoyaoOdds:
    """Exact weights (out of :data:`ROLLS`) and RTPs for one paytable."""

    paytable: Paytable
    winner: Mapping[Winner, int]
    low_wins: int  # rolls where red or blue wins with a total below paytable.low_below
    side_pattern: Mapping[Pattern, int]  # per side, out of ROLLS
    results: Mapping[Spot, Mapping[Fraction, int]]  # spot -> profit multiple -> weight
    rtp: Mapping[Spot, Fraction]

    def probability(self, weight: int) -> Fraction:
        return Fraction(weight, ROLLS)


@cache
def yaoyao_odds(paytable: Paytable = SEED_PAYTABLE) -> YaoyaoOdds:
    classes = side_classes()
    reps = {k: _representative(*k) for k in classes}
    winner: Counter[Winner] = Counter()
    side_pattern: Counter[Pattern] = Counter()
    results: dict[Spot, Counter[Fraction]] = {s: Counter() for s in Spot}
    low = 0
    for (rk, rn), (bk, bn) in product(classes.items(), repeat=2):
        w = rn * bn
        rnd = Round(reps[rk], reps[bk])
        winner[rnd.winner] += w
        side_pattern[rk[1]] += w
        t = rnd.winning_total
        if t is not None and t < paytable.low_below:
            low += w
        for spot in Spot:
            results[spot][spot_result(spot, rnd, paytable)] += w
    rtp = {
        s: sum((Fraction(w, ROLLS) * (1 + r) for r, w in results[s].items()), Fraction(0))
        for s in Spot
    }
    return YaoyaoOdds(
        paytable=paytable,
        winner=dict(winner),
        low_wins=low,
        side_pattern=dict(side_pattern),
        results={s: dict(sorted(c.items())) for s, c in results.items()},
        rtp=rtp,
    )


SEED_RTP: Mapping[Spot, Fraction] = {
    Spot.RED: Fraction(92885, 93312),
    Spot.BLUE: Fraction(92885, 93312),
    Spot.TIE: Fraction(361, 486),
    Spot.RED_PAIR: Fraction(23, 24),
    Spot.RED_STRAIGHT: Fraction(8, 9),
    Spot.RED_TRIPLE: Fraction(5, 6),
    Spot.BLUE_PAIR: Fraction(23, 24),
    Spot.BLUE_STRAIGHT: Fraction(8, 9),
    Spot.BLUE_TRIPLE: Fraction(5, 6),
}
"""The RTP of each spot under the seed's paytable read as total returns (pinned)."""


def profit_reading(paytable: Paytable = SEED_PAYTABLE) -> Paytable:
    """The same "1赔X" numbers read as profit multiples (X:1, stake back on top): each
    return becomes ``X + 1``. Only for showing why that reading is rejected."""
    return Paytable(
        main=paytable.main + 1,
        main_low=paytable.main_low + 1,
        low_below=paytable.low_below,
        tie=paytable.tie + 1,
        pair=paytable.pair + 1,
        straight=paytable.straight + 1,
        triple=paytable.triple + 1,
    )


def format_odds_table(odds: YaoyaoOdds, places: int = 6) -> str:
    p = odds.probability
    lines = [
        "开心摇摇乐: exact over all 46,656 rolls ('1赔X' = total returned per 1 staked)",
        f"  {'red wins':<22}{float(p(odds.winner[Winner.RED])):.{places}f}",
        f"  {'blue wins':<22}{float(p(odds.winner[Winner.BLUE])):.{places}f}",
        f"  {'tie':<22}{float(p(odds.winner[Winner.TIE])):.{places}f}",
        f"  {'win below ' + str(odds.paytable.low_below):<22}{float(p(odds.low_wins)):.{places}f}",
    ]
    for pat in (Pattern.PAIR, Pattern.STRAIGHT, Pattern.TRIPLE):
        lines.append(f"  {'side ' + pat.value:<22}{float(p(odds.side_pattern[pat])):.{places}f}")
    lines.append(f"{'spot':<16}{'P(win)':>12}{'RTP':>12}")
    for spot in Spot:
        won = sum(w for r, w in odds.results[spot].items() if r > 0)
        lines.append(
            f"{spot.value:<16}{float(p(won)):>12.{places}f}{float(odds.rtp[spot]):>12.{places}f}"
        )
    return "\n".join(lines)


__all__ = [
    "ROLLS",
    "SEED_RTP",
    "SIDE_SPOTS",
    "YaoyaoOdds",
    "format_odds_table",
    "profit_reading",
    "side_classes",
    "yaoyao_odds",
]
