"""Exact Sangong probabilities: the category distribution over the C(52, 3) = 22,100
three-card hands, and the banker-versus-player expectation over every ordered pair of
disjoint hands (22,100 x C(49, 3) = 22,100 x 18,424 = 407,170,400 pairs).

Sources: the hands and tie rules of :mod:`croupier.games.sangong.hands` (000
百人三公游戏规则, 比牌规则; 001 抢庄玩法介绍 and 三公); the money of one banker-player
pair (000 百人三公 结算: the loser pays the winner's multiplier; 001 结算公式: A*M*Y and
A*N*Y).

Model: the banker's and the player's hands are two disjoint 3-card hands of one
shuffled deck; every ordered pair is equally likely (the other hands dealt do not change
the pair's distribution). A unit stake on the player (the hundred-player spot's bet, or
``A * Y`` at a grab table) wins the player's multiplier ``N`` when the player's hand is
stronger and loses the banker's multiplier ``M`` otherwise. Caps and limited liability
(which need balances) are left out: they never bind with enough money on the table.

Counting without visiting 407 million pairs: every hand gets its *strength*, the dense
rank of its comparison key. For a banker hand ``b`` the player wins against the hands
of strength above a threshold ``t`` (``b`` 's strength, or under 001 抢庄's
both-0-points rule the top strength of the 0-point hands when ``b`` has 0 points). The
disjoint hands above ``t`` are counted by inclusion-exclusion over ``b`` 's cards:
all hands above ``t``, less those holding one of ``b`` 's cards, plus those holding two
(``b`` itself, which holds all three, is never above its own threshold). Each term is a
suffix of a list sorted by strength (per card: 1,176 hands; per pair of cards: 50), so
counts and multiplier sums come from a binary search and a suffix sum.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from croupier.cards import CARDS52
from croupier.games.sangong.hands import (
    Category,
    Hand,
    HandRules,
    banker_wins,
    evaluate_unchecked,
)

__all__ = [
    "Matchup",
    "all_hands",
    "category_counts",
    "label_counts",
    "matchup",
    "matchup_brute_force",
]


def all_hands(rules: HandRules, deck: Sequence[str] = CARDS52) -> list[Hand]:
    """Every 3-card hand of ``deck`` (22,100 for 52 cards), evaluated."""
    return [evaluate_unchecked(tuple(c), rules) for c in itertools.combinations(deck, 3)]


def category_counts(rules: HandRules, deck: Sequence[str] = CARDS52) -> dict[Category, int]:
    """How many hands of each category, high to low."""
    counts = Counter(h.category for h in all_hands(rules, deck))
    return {c: counts[c] for c in reversed(Category) if c in counts}


def label_counts(rules: HandRules, deck: Sequence[str] = CARDS52) -> dict[str, int]:
    """How many hands of each label (``baojiu``, ``bomb``, ``sangong``, ``points:9`` ...
    ``points:0``), high to low."""
    counts = Counter(h.label for h in all_hands(rules, deck))
    order = [c.value for c in reversed(Category) if c is not Category.POINTS]
    order += [f"points:{p}" for p in range(9, -1, -1)]
    return {k: counts[k] for k in order if k in counts}


@dataclass(frozen=True, slots=True)
class Matchup:
    """Banker against one player, over all ordered pairs of disjoint hands."""

    pairs: int
    """Ordered (banker hand, player hand) pairs, disjoint."""
    player_wins: int
    """Pairs the player wins."""
    player_win_multiples: int
    """Sum of the player's multiplier ``N`` over the pairs the player wins."""
    banker_win_multiples: int
    """Sum of the banker's multiplier ``M`` over the pairs the banker wins."""

    @property
    def p_player(self) -> Fraction:
        return Fraction(self.player_wins, self.pairs)

    @property
    def ev(self) -> Fraction:
        """The player's expected result per unit staked, before rake."""
        return Fraction(self.player_win_multiples - self.banker_win_multiples, self.pairs)

    @property
    def rtp(self) -> Fraction:
        """Return per unit staked, before rake: ``1 + ev``."""
        return 1 + self.ev

    def rtp_after_rake(self, rate: Fraction) -> Fraction:
        """Return per unit staked when ``rate`` of every win is raked (one bet alone: the
        rake is on the hand's net profit, which is then this bet's win)."""
        return self.rtp - rate * Fraction(self.player_win_multiples, self.pairs)

    @property
    def banker_ev(self) -> Fraction:
        """The banker's expected result per unit the player stakes, before rake."""
        return -self.ev


def _threshold(hands: Sequence[Hand], strength: Sequence[int], rules: HandRules) -> int | None:
    """The strength a 0-point banker hand counts as (001 抢庄: both 0 points, the banker
    wins), or None when the variant has no such rule."""
    if not rules.zero_points_banker_wins:
        return None
    return max((s for h, s in zip(hands, strength, strict=True) if h.zero_points), default=None)


@dataclass(frozen=True, slots=True)
class _Sorted:
    """Strengths ascending, and suffix sums of multipliers (``tail[i]``: from i on)."""

    strengths: list[int]
    tail: list[int]

    @classmethod
    def of(cls, rows: Iterable[tuple[int, int]]) -> _Sorted:
        rs = sorted(rows)
        tail = [0] * (len(rs) + 1)
        for i in range(len(rs) - 1, -1, -1):
            tail[i] = tail[i + 1] + rs[i][1]
        return cls([s for s, _ in rs], tail)

    def above(self, t: int) -> tuple[int, int]:
        """(count, multiplier sum) of the entries with strength > t."""
        i = bisect.bisect_right(self.strengths, t)
        return len(self.strengths) - i, self.tail[i]


def matchup(rules: HandRules, deck: Sequence[str] = CARDS52) -> Matchup:
    """The exact :class:`Matchup` for ``deck`` (all 52 cards by default)."""
    return _matchup(rules, tuple(deck))


@cache
def _matchup(rules: HandRules, deck: tuple[str, ...]) -> Matchup:
    hands = all_hands(rules, deck)
    keys = sorted({h.key for h in hands})
    rank_of = {k: i for i, k in enumerate(keys)}
    strength = [rank_of[h.key] for h in hands]
    by_card: dict[str, list[tuple[int, int]]] = {c: [] for c in deck}
    by_pair: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for h, s in zip(hands, strength, strict=True):
        row = (s, h.multiplier)
        for c in h.cards:
            by_card[c].append(row)
        for pair in itertools.combinations(h.cards, 2):
            by_pair.setdefault(pair, []).append(row)
    everyone = _Sorted.of(zip(strength, (h.multiplier for h in hands), strict=True))
    cards = {c: _Sorted.of(v) for c, v in by_card.items()}
    pairs = {p: _Sorted.of(v) for p, v in by_pair.items()}
    zero_top = _threshold(hands, strength, rules)
    n = len(deck)
    disjoint = (n - 3) * (n - 4) * (n - 5) // 6
    wins = win_mult = bank_mult = 0
    for h, s in zip(hands, strength, strict=True):
        t = zero_top if zero_top is not None and h.zero_points else s
        count, mult = everyone.above(t)
        for c in h.cards:
            k, m = cards[c].above(t)
            count, mult = count - k, mult - m
        for p in itertools.combinations(h.cards, 2):
            k, m = pairs[p].above(t)
            count, mult = count + k, mult + m
        wins += count
        win_mult += mult
        bank_mult += (disjoint - count) * h.multiplier
    return Matchup(len(hands) * disjoint, wins, win_mult, bank_mult)


def matchup_brute_force(rules: HandRules, deck: Sequence[str]) -> Matchup:
    """:func:`matchup` by visiting every ordered pair (small decks only: the oracle the
    tests hold the counting against)."""
    hands = all_hands(rules, deck)
    pairs = wins = win_mult = bank_mult = 0
    for b in hands:
        for p in hands:
            if set(b.cards) & set(p.cards):
                continue
            pairs += 1
            if banker_wins(b, p, rules):
                bank_mult += b.multiplier
            else:
                wins += 1
                win_mult += p.multiplier
    return Matchup(pairs, wins, win_mult, bank_mult)
