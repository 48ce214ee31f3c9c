"""Exact Niuniu probabilities: the category distribution of one hand over all
C(52,5) = 2,598,960 hands, and the banker-versus-spot game of 百人牛牛 over all ordered
pairs of disjoint hands, C(52,5) x C(47,5) = 3,986,646,103,440.

Method: every category depends on the ranks alone (:mod:`.hands`), so hands are counted
by **rank multiset** (13 counts of 0-4 adding up to 5; 6,175 of them) with suit
combinatorics: a multiset with counts ``c`` stands for ``prod C(4, c_r)`` hands.

Banker against spot (:func:`pair_odds`): hand ``S`` beats ``B`` when its (category,
highest rank) is larger, or both are equal and ``S`` holds the highest suit among the
``a + b`` cards of that rank the two hands share (``a`` in ``S``, ``b`` in ``B``). For
disjoint hands with given rank multisets every placement of those ``a + b`` cards on
``a + b`` of the 4 suits is equally likely, so ``S`` wins with probability
``a / (a + b)``. Disjointness is handled by inclusion-exclusion over the cards the two
hands share, ``T``::

    sum over disjoint (S, B) of f(S, B) = sum over T of (-1)^|T| * sum over S, B ⊇ T of f

which holds for any function ``f`` of the two hands' classes, and the inner sum depends
on ``T`` only through its rank multiset (``prod C(4, t_r)`` sets ``T`` each): per rank
multiset ``t`` of at most 5 cards the class distribution ``D_t`` of the 5-card hands
containing one such ``T`` is accumulated once, and the pair sum is a sort and a prefix
sum over ``D_t``. All arithmetic is in integers (probabilities ``a / (a + b)`` scaled by
840 = lcm(1..8)); nothing is sampled. A few seconds in pure Python; cached.

Exact by construction, and checked: the identity gives the number of disjoint pairs and
P(spot wins) = 1/2 (the two hands are exchangeable), and ``bench/bench_niuniu_pairs.py``
recomputes the sums by the direct double loop over all pairs of rank multisets.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from croupier.games.niuniu.hands import RANKS, Category, FourBombTies, HandRules
from croupier.games.niuniu.hands import category_of_ranks as _category

HANDS = math.comb(52, 5)
"""2,598,960 five-card hands."""
PAIRS = math.comb(52, 5) * math.comb(47, 5)
"""Ordered pairs of disjoint five-card hands (banker, spot)."""
SCALE = 840  # lcm(1..8): a / (a + b) with a, b in 1..4, exact in integers

Counts = tuple[int, ...]


def rank_multisets(size: int) -> Iterator[Counts]:
    """Every vector of 13 rank counts (each 0-4) adding up to ``size``."""

    def rec(i: int, left: int) -> Iterator[tuple[int, ...]]:
        if i == 12:
            if left <= 4:
                yield (left,)
            return
        for c in range(min(4, left) + 1):
            for rest in rec(i + 1, left - c):
                yield (c, *rest)

    yield from rec(0, size)


def ways(counts: Counts) -> int:
    """Hands (sets of cards) with these rank counts: ``prod C(4, c_r)``."""
    return math.prod(math.comb(4, c) for c in counts)


def ranks_of(counts: Counts) -> list[str]:
    return [RANKS[r] for r, c in enumerate(counts) for _ in range(c)]


@cache
def multiset_categories(rules: HandRules) -> dict[Counts, Category]:
    return {c: _category(ranks_of(c), rules) for c in rank_multisets(5)}


def category_counts(rules: HandRules) -> dict[Category, int]:
    """Hands of each category (highest first) among all 2,598,960."""
    out = {c: 0 for c in reversed(rules.order)}
    for counts, cat in multiset_categories(rules).items():
        out[cat] += ways(counts)
    return out


def category_probabilities(rules: HandRules) -> dict[Category, Fraction]:
    return {c: Fraction(n, HANDS) for c, n in category_counts(rules).items()}


# -- banker against spot -------------------------------------------------------------
Klass = tuple[int, int, int]
"""(category rank, tie rank, cards of the tie rank - 0 when suits never decide)."""


def pair_class(counts: Counts, cat: Category, rules: HandRules) -> Klass:
    if cat is Category.FOUR_BOMB and rules.four_bomb_ties is FourBombTies.QUAD_RANK:
        return rules.rank_of[cat], counts.index(4), 0
    top = max(r for r, c in enumerate(counts) if c)
    return rules.rank_of[cat], top, counts[top]


def _sub_multisets(counts: Counts) -> Iterator[Counts]:
    yield from itertools.product(*(range(c + 1) for c in counts))


def _class_tables(rules: HandRules) -> dict[Counts, dict[Klass, int]]:
    """``D_t``: for each rank multiset ``t`` (0-5 cards), how many 5-card hands holding a
    given card set of ranks ``t`` fall in each class."""
    tables: dict[Counts, dict[Klass, int]] = {}
    for h, cat in multiset_categories(rules).items():
        k = pair_class(h, cat, rules)
        for t in _sub_multisets(h):
            n = math.prod(math.comb(4 - tr, hr - tr) for tr, hr in zip(t, h, strict=True))
            row = tables.setdefault(t, {})
            row[k] = row.get(k, 0) + n
    return tables


@dataclass(frozen=True, slots=True)
class PairOdds:
    """Banker against one spot, over all ordered pairs of disjoint hands.

    ``spot_wins[c]``: pairs in which the spot wins holding category ``c``; by exchange
    of the two hands it is also the number in which the banker wins holding ``c``."""

    pairs: int
    spot_wins: dict[Category, Fraction]

    @property
    def p_spot_wins(self) -> Fraction:
        return sum(self.spot_wins.values(), Fraction(0)) / self.pairs

    def expected_win_multiple(self, rules: HandRules) -> Fraction:
        """E[multiplier x 1(spot wins)]: what a unit on a spot wins on average."""
        return (
            sum((rules.multiplier(c) * n for c, n in self.spot_wins.items()), Fraction(0))
            / self.pairs
        )

    def rtp(self, rules: HandRules, rake: Fraction = Fraction(0)) -> Fraction:
        """Return per unit staked on a spot: the spot wins its own multiplier and loses
        the banker's; ``rake`` is taken from a win (a bet on one spot alone)."""
        win = self.expected_win_multiple(rules)
        lose = win  # the banker's side is the same sum (exchangeable hands)
        return 1 + win * (1 - rake) - lose


@cache
def pair_odds(rules: HandRules) -> PairOdds:
    """Exact banker-versus-spot odds (module docstring)."""
    tables = _class_tables(rules)
    wins = {c: 0 for c in rules.order}
    pairs = 0
    order = rules.order
    for t, row in tables.items():
        size = sum(t)
        sign = -1 if size % 2 else 1
        mult = ways(t)
        total = sum(row.values())
        pairs += sign * mult * total * total
        groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for (cr, r, a), n in row.items():
            groups.setdefault((cr, r), []).append((a, n))
        below = 0
        for key in sorted(groups):
            members = groups[key]
            for a1, n1 in members:
                tie = 0
                for a2, n2 in members:
                    tie += n2 * (SCALE * a1 // (a1 + a2) if a1 + a2 else SCALE // 2)
                wins[order[key[0]]] += sign * mult * n1 * (below * SCALE + tie)
            below += sum(n for _, n in members)
    return PairOdds(pairs, {c: Fraction(wins[c], SCALE) for c in reversed(order)})
