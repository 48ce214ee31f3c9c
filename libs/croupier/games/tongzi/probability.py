"""Exact distributions of the 筒子 two-tile hands, over all hands from the 40 tiles.

Enumeration is by tile *kind* (ten kinds, four copies each) with multiplicities, never
by physical tile: a hand of two kinds ``a != b`` is made by 4 x 4 = 16 pairs of tiles, a
pair ``a == a`` by C(4,2) = 6; after one hand is taken the second is counted from what
is left of each kind. So

* one hand: 55 kind pairs, 780 = C(40,2) tile pairs;
* two disjoint hands in order (the banker's, then a player's): 780 x C(38,2) = 780 x 703
  = 548,340 ordered pairs of tile pairs.

Every probability is an exact :class:`~fractions.Fraction`, and the hands are ranked by
:meth:`croupier.games.tongzi.tiles.TileRules.evaluate`, the very function the engines
settle with. Dealing order does not matter: the shuffle is uniform, so the two hands
are two uniformly drawn disjoint pairs whichever seats they go to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

from croupier.games.common import plain_fraction
from croupier.games.tongzi.tiles import (
    COPIES,
    TILES,
    Category,
    TileRules,
    kind_pairs,
)

HANDS = comb(len(TILES) * COPIES, 2)
"""C(40,2) = 780 two-tile hands."""
ORDERED_PAIRS = HANDS * comb(len(TILES) * COPIES - 2, 2)
"""780 x 703 = 548,340 (banker hand, player hand) pairs of disjoint hands."""


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the distribution: a class (and its points or its tile), how many of
    the 780 hands, and the probability."""

    label: str
    category: Category
    count: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.count, HANDS)


@lru_cache(maxsize=16)
def category_table(rules: TileRules) -> tuple[Row, ...]:
    """The distribution of one hand, best class first: each pair by its tile, 二八杠,
    then each number of points (0 = 鳖十 last). A name the game gives to several
    numbers of points (推筒子's 散牌) is followed by the points."""
    groups: dict[tuple[object, ...], tuple[str, Category, int, Fraction]] = {}
    for tiles, n in kind_pairs():
        h = rules.evaluate(tiles)
        if h.category in (Category.WHITE_PAIR, Category.PAIR):
            gkey: tuple[object, ...] = (h.key[0], h.key[1])
            label = f"{h.name} {h.tiles[0]}"
        else:
            gkey = (h.key[0], h.points)
            label = h.name
        old = groups.get(gkey)
        groups[gkey] = (label, h.category, n + (old[2] if old else 0), h.points)
    names = [label for label, _, _, _ in groups.values()]
    rows = []
    for _, (label, cat, n, points) in sorted(groups.items(), reverse=True):
        if names.count(label) > 1 and cat in (Category.POINTS, Category.ZERO):
            label = f"{label} {plain_fraction(points)}"
        rows.append(Row(label, cat, n))
    return tuple(rows)


def format_distribution(rows: tuple[Row, ...], places: int = 6) -> str:
    lines = [f"  {'hand':<16}{'count':>8}{'probability':>16}"]
    lines += [f"  {r.label:<16}{r.count:>8}{float(r.probability):>16.{places}f}" for r in rows]
    return "\n".join(lines)


@lru_cache(maxsize=16)
def head_to_head(rules: TileRules) -> tuple[int, int, int]:
    """Over all 548,340 ordered pairs (first hand, second hand) of disjoint hands: how
    many the second hand wins, how many are equal hands, how many the first wins."""
    pairs = kind_pairs()
    keys = {tiles: rules.evaluate(tiles).key for tiles, _ in pairs}
    win = equal = lose = 0
    for a, na in pairs:
        left = dict.fromkeys(TILES, COPIES)
        for t in a:
            left[t] -= 1
        ka = keys[a]
        for b, _ in pairs:
            x, y = b
            nb = comb(left[x], 2) if x == y else left[x] * left[y]
            if not nb:
                continue
            w = na * nb
            kb = keys[b]
            if kb > ka:
                win += w
            elif kb == ka:
                equal += w
            else:
                lose += w
    assert win + equal + lose == ORDERED_PAIRS
    return win, equal, lose


@dataclass(frozen=True, slots=True)
class ErbagangOdds:
    """A player's bet against the banker, per unit staked: an equal hand goes to the
    banker; a win pays ``payout`` and the rake takes ``rake`` of that profit."""

    total: int
    win: Fraction
    equal: Fraction
    lose: Fraction
    rtp_before_rake: Fraction
    rtp: Fraction


def erbagang_odds(rules: TileRules, payout: Fraction, rake: Fraction) -> ErbagangOdds:
    w, e, lose = head_to_head(rules)
    win = Fraction(w, ORDERED_PAIRS)
    return ErbagangOdds(
        ORDERED_PAIRS,
        win,
        Fraction(e, ORDERED_PAIRS),
        Fraction(lose, ORDERED_PAIRS),
        win * (1 + payout),
        win * (1 + payout * (1 - rake)),
    )


@dataclass(frozen=True, slots=True)
class TuitongziOdds:
    """Two players, one ante each, no raise: the better hand takes both antes, equal
    hands split them; the rake takes ``rake`` of the winner's profit. Per unit ante."""

    total: int
    win: Fraction
    split: Fraction
    rtp: Fraction


def tuitongzi_heads_up(rules: TileRules, rake: Fraction) -> TuitongziOdds:
    w, e, lose = head_to_head(rules)
    assert w == lose  # the two hands are exchangeable
    win, split = Fraction(w, ORDERED_PAIRS), Fraction(e, ORDERED_PAIRS)
    return TuitongziOdds(ORDERED_PAIRS, win, split, win * (2 - rake) + split)


# -- several hands ------------------------------------------------------------------
_KINDS = {t: i for i, t in enumerate(TILES)}


def _mult(c: Sequence[int], x: int, y: int) -> int:
    """Tile pairs of kinds ``x``, ``y`` left in the counts ``c``."""
    return c[x] * (c[x] - 1) // 2 if x == y else c[x] * c[y]


def _tuples(c: tuple[int, ...], k: int, allowed: Sequence[tuple[int, int, bool]]) -> list[int]:
    """Ordered ``k``-tuples of disjoint hands from the counts ``c``, every hand among
    ``allowed`` (kind pairs, flagged when they are *marked*), counted by how many
    marked hands the tuple holds: entry ``j`` of the result is the count with ``j``."""
    if k == 0:
        return [1]
    out = [0] * (k + 1)
    if k == 1:
        for x, y, marked in allowed:
            out[1 if marked else 0] += _mult(c, x, y)
        return out
    cl = list(c)
    for x, y, marked in allowed:
        m = _mult(c, x, y)
        if not m:
            continue
        cl[x] -= 1
        cl[y] -= 1
        for j, n in enumerate(_tuples(tuple(cl), k - 1, allowed)):
            out[j + marked] += m * n
        cl[x] += 1
        cl[y] += 1
    return out


def _ordered_hands(n: int) -> int:
    """Ordered ``n``-tuples of disjoint hands from the 40 tiles."""
    total = 1
    for i in range(n):
        total *= comb(len(TILES) * COPIES - 2 * i, 2)
    return total


Key = tuple[int, Fraction, int]


def _split_by_first(rules: TileRules) -> list[tuple[int, tuple[int, ...], Key]]:
    """For each kind pair of the first hand: how many tile pairs make it, the counts
    of each kind left, and its key."""
    out = []
    for tiles, n in kind_pairs():
        x, y = _KINDS[tiles[0]], _KINDS[tiles[1]]
        c = [COPIES] * len(TILES)
        c[x] -= 1
        c[y] -= 1
        out.append((n, tuple(c), rules.evaluate(tiles).key))
    return out


@dataclass(frozen=True, slots=True)
class Sweeps:
    """二八杠 at a full table (the banker and three players): the chance the banker
    beats all three (通杀; an equal hand counts for the banker) or loses to all three
    (通赔), over all ordered deals of four disjoint hands."""

    total: int
    tongsha: Fraction
    tongpei: Fraction


@lru_cache(maxsize=16)
def full_table_sweeps(rules: TileRules, players: int = 3) -> Sweeps:
    pairs = [((_KINDS[t[0]], _KINDS[t[1]]), rules.evaluate(t).key) for t, _ in kind_pairs()]
    sha = pei = 0
    for nb, c, kb in _split_by_first(rules):
        lower = [(x, y, False) for (x, y), k in pairs if k <= kb]
        higher = [(x, y, False) for (x, y), k in pairs if k > kb]
        sha += nb * _tuples(c, players, lower)[0]
        pei += nb * _tuples(c, players, higher)[0]
    total = _ordered_hands(players + 1)
    return Sweeps(total, Fraction(sha, total), Fraction(pei, total))


@lru_cache(maxsize=32)
def tuitongzi_ante_rtp(rules: TileRules, rake: Fraction, players: int) -> Fraction:
    """推筒子 with ``players`` players, antes only (nobody raises), per unit ante: the
    best hand takes the pot, ``j + 1`` equal best hands split it, and the rake takes
    ``rake`` of each winner's profit (``players / (j + 1) - 1`` antes). Exact over all
    ordered deals; one player's view, the others' hands counted by how many equal it
    (marked) with none above it. Two to four players (five would take minutes)."""
    if not 2 <= players <= 4:
        raise ValueError("exact for 2 to 4 players")
    pairs = [((_KINDS[t[0]], _KINDS[t[1]]), rules.evaluate(t).key) for t, _ in kind_pairs()]
    expected_profit = Fraction(0)
    for n1, c, k1 in _split_by_first(rules):
        others = [(x, y, k == k1) for (x, y), k in pairs if k <= k1]
        for j, n in enumerate(_tuples(c, players - 1, others)):
            expected_profit += n1 * n * (Fraction(players, j + 1) - 1)
    return 1 - rake * expected_profit / _ordered_hands(players)


__all__ = [
    "HANDS",
    "ORDERED_PAIRS",
    "ErbagangOdds",
    "Row",
    "Sweeps",
    "TuitongziOdds",
    "category_table",
    "erbagang_odds",
    "format_distribution",
    "full_table_sweeps",
    "head_to_head",
    "tuitongzi_ante_rtp",
    "tuitongzi_heads_up",
]
