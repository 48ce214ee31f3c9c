"""Exact return of 幸运五张 under the automatic hold, by enumeration without replacement.

Model: a fresh 52-card deck every hand; 5 cards dealt; the :func:`.rules.auto_hold`
cards kept; the others replaced from the 47 unseen cards; every draw equally likely.

* :func:`draw_distribution` - the paytable lines of every possible draw for one deal and
  one hold (``C(47, 5 - held)`` draws: 1 to 1,533,939), exact.
* :func:`auto_hold_rtp` - the return per unit staked over all ``C(52,5)`` = 2,598,960
  deals. A deal that wins keeps its winning cards, and the value of the draw is the
  same for every deal of its line (what is left in the deck only matters through rank
  counts that the line fixes: e.g. a pair of Jacks or better leaves 2 of its rank, 3 of
  each discarded rank and 4 of the other nine), so each winning line is priced once
  with :func:`draw_distribution`. A deal that does not win throws all five cards and
  draws five fresh ones from the 47 left: summed over those deals, with ``T`` the total
  paytable value of all 5-card hands,

      sum over losing deals D of (value of the hands disjoint from D)
        = T * C(47,5) - sum over winning deals D of (value of the hands disjoint from D)

  and each term on the right comes from inclusion-exclusion over the 31 non-empty
  subsets ``S`` of ``D`` with ``P(S)`` = the total value of the hands containing ``S``.
  Tables ``P`` are built once from the 536,100 winning hands. About a minute in pure
  Python: ``bench/bench_videopoker_rtp.py`` runs it and prints the fractions stored in
  the config (``auto_hold_rtp``); the unit tests check the per-line values and the
  counts, and a sampled estimate of the whole.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, combinations_with_replacement

from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.poker.hands import rank5
from croupier.games.videopoker.rules import PayHand, Paytable, auto_hold, classify_strength

__all__ = [
    "AutoHoldReturn",
    "auto_hold_rtp",
    "deals_by_line",
    "draw_distribution",
    "draw_value",
    "line_values",
]

DEALS = math.comb(52, 5)
FRESH = math.comb(47, 5)


def draw_distribution(dealt: Sequence[str], hold: Sequence[str]) -> Counter[PayHand]:
    """How many of the possible draws end on each paytable line, holding ``hold``."""
    if len(dealt) != 5 or len(set(dealt)) != 5 or any(c not in CARDS52 for c in dealt):
        raise InvalidInput(f"a deal is 5 distinct cards, got {list(dealt)}")
    if not set(hold) <= set(dealt) or len(set(hold)) != len(hold):
        raise InvalidInput(f"held cards {list(hold)} are not distinct cards of the deal")
    seen = set(dealt)
    rest = [c for c in CARDS52 if c not in seen]
    held = tuple(hold)
    out: Counter[PayHand] = Counter()
    for draw in combinations(rest, 5 - len(held)):
        out[classify_strength(rank5((*held, *draw)))] += 1
    return out


def draw_value(dealt: Sequence[str], hold: Sequence[str], paytable: Paytable) -> Fraction:
    """Expected paytable value (per unit staked, stake included) of a hold."""
    dist = draw_distribution(dealt, hold)
    n = sum(dist.values())
    return Fraction(sum(paytable[h] * k for h, k in dist.items()), n)


def deals_by_line() -> dict[PayHand, int]:
    """How many of the C(52,5) deals fall on each paytable line, counted by rank
    pattern: one representative of each of the 6,175 rank multisets, weighted by its
    suit assignments (five distinct ranks: 4 in one suit, 1,020 not)."""
    out: Counter[PayHand] = Counter()
    for ranks in combinations_with_replacement("23456789TJQKA", 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        if len(counts) == 5:
            out[classify_strength(rank5([r + "s" for r in ranks]))] += 4
            mixed = [r + ("h" if i == 0 else "s") for i, r in enumerate(ranks)]
            out[classify_strength(rank5(mixed))] += 4**5 - 4
            continue
        used: Counter[str] = Counter()
        cards = []
        for r in ranks:
            cards.append(r + "shdc"[used[r]])
            used[r] += 1
        out[classify_strength(rank5(cards))] += math.prod(math.comb(4, n) for n in counts.values())
    return dict(out)


_EXAMPLES = {
    PayHand.ROYAL_FLUSH: ("As", "Ks", "Qs", "Js", "Ts"),
    PayHand.STRAIGHT_FLUSH: ("9s", "8s", "7s", "6s", "5s"),
    PayHand.FOUR_OF_A_KIND: ("9s", "9h", "9d", "9c", "5s"),
    PayHand.FULL_HOUSE: ("9s", "9h", "9d", "5c", "5s"),
    PayHand.FLUSH: ("Ks", "9s", "7s", "4s", "2s"),
    PayHand.STRAIGHT: ("9s", "8h", "7s", "6s", "5s"),
    PayHand.THREE_OF_A_KIND: ("9s", "9h", "9d", "Kc", "5s"),
    PayHand.TWO_PAIR: ("9s", "9h", "Kd", "Kc", "5s"),
    PayHand.JACKS_OR_BETTER: ("Js", "Jh", "Kd", "7c", "5s"),
}


def line_values(paytable: Paytable) -> dict[PayHand, Fraction]:
    """The exact value of the automatic hold's draw for each winning line (the same for
    every deal of the line; see the module docstring)."""
    return {line: draw_value(hand, auto_hold(hand), paytable) for line, hand in _EXAMPLES.items()}


@dataclass(frozen=True, slots=True)
class AutoHoldReturn:
    """The exact result: deals per dealt line, the value of each winning line's draw,
    the summed value of the losing deals' fresh draws, and the RTP."""

    deals: dict[PayHand, int]
    line_value: dict[PayHand, Fraction]
    losing_value: Fraction  # sum over losing deals of their expected value
    rtp: Fraction


_SUBSETS = tuple(tuple(k for k in range(5) if m >> k & 1) for m in range(1, 32))
_SIGNS = tuple(1 if len(idx) % 2 else -1 for idx in _SUBSETS)


def _subset_masks(masks: Sequence[int]) -> list[int]:
    """The bit masks of the 31 non-empty subsets of 5 cards, in :data:`_SUBSETS` order."""
    return [sum(masks[k] for k in idx) for idx in _SUBSETS]


def auto_hold_rtp(paytable: Paytable) -> AutoHoldReturn:
    """See the module docstring (about a minute)."""
    scale = math.lcm(*(v.denominator for v in paytable.values()))
    pay_int = {h: int(v * scale) for h, v in paytable.items()}
    bit = {c: 1 << i for i, c in enumerate(CARDS52)}
    deals: Counter[PayHand] = Counter()
    example: dict[PayHand, tuple[str, ...]] = {}
    winning: list[tuple[int, ...]] = []  # the card bits of each winning hand
    pay_of: list[int] = []
    for hand in combinations(CARDS52, 5):
        line = classify_strength(rank5(hand))
        deals[line] += 1
        example.setdefault(line, hand)
        if pay_int[line]:
            winning.append(tuple(bit[c] for c in hand))
            pay_of.append(pay_int[line])
    total = sum(pay_of)
    containing: dict[int, int] = {}
    for masks, pay in zip(winning, pay_of, strict=True):
        for m in _subset_masks(masks):
            containing[m] = containing.get(m, 0) + pay
    disjoint_of_winning = 0
    for masks in winning:
        inter = 0
        for m, sign in zip(_subset_masks(masks), _SIGNS, strict=True):
            inter += sign * containing[m]
        disjoint_of_winning += total - inter
    losing_sum = total * FRESH - disjoint_of_winning  # in 1/scale units, over C(47,5)
    losing_value = Fraction(losing_sum, scale * FRESH)
    line_value: dict[PayHand, Fraction] = {}
    for line, rep in example.items():
        if line is not PayHand.NOTHING:
            line_value[line] = draw_value(rep, auto_hold(rep), paytable)
    value = losing_value + sum(
        (line_value[h] * n for h, n in deals.items() if h is not PayHand.NOTHING), Fraction(0)
    )
    return AutoHoldReturn(dict(deals), line_value, losing_value, value / DEALS)
