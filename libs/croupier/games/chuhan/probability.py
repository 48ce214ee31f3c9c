"""Exact probabilities of 楚汉德州: who wins, and with which hand type.

Rules source: ``000_d16ad353ba467b8a.txt``, 楚汉德州 and 保险楚汉德州规则: Chu (楚) and Han
(汉) each hold 2 cards, 5 board cards are shared, each side plays its best 5 of 7 by the
hold'em ranking (:func:`croupier.games.poker.hands.best_of`), equal strengths tie.

Two computations, both exact (``Fraction``), both by enumeration without replacement:

* :func:`runout_odds` - the win / lose / tie probabilities **given the cards shown**
  (both sides' hole cards and 0-5 board cards): every completion of the board from the
  unseen cards is enumerated, ``C(48 - k, 5 - k)`` of them for ``k`` board cards shown
  (990 on the flop, 44 on the turn). Results are cached by the cards shown, so the
  dealer, the rule service, settlement and the auditor pay for each position once.
* :func:`board_counts` / :func:`prior` - the probabilities **before any card is shown**
  (保险楚汉德州 round 1 and 楚汉德州's single betting round): over a board, every ordered
  pair of disjoint hole-card pairs ``(chu, han)`` from the 47 other cards, counted in
  ``O(1081 log 1081)`` per board after 1,081 evaluations (the pairs sharing a card are
  removed by per-card counters). Summed over all ``C(52,5)`` boards (grouped by suit
  relabelling) this is the prior; the full run lives in ``bench/bench_chuhan_prior.py``
  and its result is stored in the variants' configs (``prior``), which the tests
  re-check on sampled boards.

The winning hand type (获胜牌型) is the category of the better of the two hands; on a
tie both hands have the same category, and that is the type.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb

from croupier.accel import native as _native
from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.poker.hands import (
    CARD_KEYS,
    RANK_MASK,
    Category,
    best_of,
    card_codes,
    flush_suit_of,
    nonflush_table,
    strength_from_key,
)

__all__ = [
    "PAIRS_PER_BOARD",
    "BoardCounts",
    "Prior",
    "RunoutOdds",
    "board_counts",
    "canonical_board",
    "prior_from_counts",
    "runout_odds",
]

PAIRS_PER_BOARD = comb(47, 2) * comb(45, 2)
"""Ordered (chu, han) deals of disjoint hole pairs around one board: 1,081 x 990."""
N_CATEGORIES = len(Category)


@dataclass(frozen=True, slots=True)
class RunoutOdds:
    """Exact probabilities of the three results given the cards shown, and how many
    board completions were enumerated."""

    chu: Fraction
    han: Fraction
    tie: Fraction
    runouts: int


def _check_cards(cards: Sequence[str]) -> None:
    valid = frozenset(CARDS52)
    for c in cards:
        if c not in valid:
            raise InvalidInput(f"{c!r} is not a card of the 52-card deck")
    if len(set(cards)) != len(cards):
        raise InvalidInput(f"cards repeat: {list(cards)}")


def runout_odds(chu: Sequence[str], han: Sequence[str], board: Sequence[str]) -> RunoutOdds:
    """Chu / Han / tie probabilities with both hole pairs and ``board`` (0-5 cards) known,
    enumerating every completion of the board from the unseen cards."""
    if len(chu) != 2 or len(han) != 2 or len(board) > 5:
        raise InvalidInput("runout odds need 2 Chu cards, 2 Han cards and at most 5 board cards")
    _check_cards([*chu, *han, *board])
    return _runout_odds(tuple(sorted(chu)), tuple(sorted(han)), tuple(sorted(board)))


@lru_cache(maxsize=4096)
def _runout_odds(chu: tuple[str, ...], han: tuple[str, ...], board: tuple[str, ...]) -> RunoutOdds:
    """Each completion's two hands judged by their keys' sums (what ``best_of`` sums
    for each hand, here the known cards' summed once and each completion's added:
    :func:`~croupier.games.poker.hands.strength_from_key`, the cards read only for a
    flush). Counted natively where the accelerator is built (:mod:`croupier.accel`:
    the same counts, ~7x faster after the flop), by this loop otherwise."""
    if _native is not None:  # the same counts (tests/property/test_accel_poker.py)
        counted = _native.poker_runout(*card_codes((*chu, *han, *board)), len(chu), len(han))
        if counted is not None:
            return _odds(*counted)
    seen = frozenset((*chu, *han, *board))
    rest = [c for c in CARDS52 if c not in seen]
    need = 5 - len(board)
    key = CARD_KEYS.__getitem__
    known_chu = sum(map(key, (*chu, *board)))
    known_han = sum(map(key, (*han, *board)))
    nonflush = nonflush_table()
    chu_wins = han_wins = ties = 0
    for extra in combinations(rest, need):
        added = sum(map(key, extra))
        k = known_chu + added
        if flush_suit_of(k) < 0:
            a = nonflush[k & RANK_MASK]
        else:
            a = strength_from_key(k, (*chu, *board, *extra))
        k = known_han + added
        if flush_suit_of(k) < 0:
            b = nonflush[k & RANK_MASK]
        else:
            b = strength_from_key(k, (*han, *board, *extra))
        if a > b:
            chu_wins += 1
        elif b > a:
            han_wins += 1
        else:
            ties += 1
    return _odds(chu_wins, han_wins, ties)


def _odds(chu_wins: int, han_wins: int, ties: int) -> RunoutOdds:
    n = chu_wins + han_wins + ties
    return RunoutOdds(Fraction(chu_wins, n), Fraction(han_wins, n), Fraction(ties, n), n)


@dataclass(frozen=True, slots=True)
class BoardCounts:
    """Over the ordered (chu, han) deals around some boards: deals Chu wins, by the
    category of Chu's (winning) hand, and tied deals by their category. Han's wins are
    the mirror image of Chu's (same counts), so they are not kept."""

    boards: int
    chu_wins: tuple[int, ...]
    ties: tuple[int, ...]

    def __add__(self, other: BoardCounts) -> BoardCounts:
        return BoardCounts(
            self.boards + other.boards,
            tuple(a + b for a, b in zip(self.chu_wins, other.chu_wins, strict=True)),
            tuple(a + b for a, b in zip(self.ties, other.ties, strict=True)),
        )

    def scaled(self, k: int) -> BoardCounts:
        return BoardCounts(
            self.boards * k, tuple(x * k for x in self.chu_wins), tuple(x * k for x in self.ties)
        )

    @property
    def deals(self) -> int:
        return self.boards * PAIRS_PER_BOARD


EMPTY_COUNTS = BoardCounts(0, (0,) * N_CATEGORIES, (0,) * N_CATEGORIES)


def board_counts(board: Sequence[str]) -> BoardCounts:
    """Count, around one 5-card ``board``, every ordered pair of disjoint hole pairs
    ``(chu, han)`` drawn from the other 47 cards: Chu's wins by category and the ties
    by category."""
    if len(board) != 5:
        raise InvalidInput("a board has 5 cards")
    _check_cards(board)
    b = tuple(board)
    rest = [c for c in CARDS52 if c not in b]
    ranked = sorted((best_of((*b, x, y)), x, y) for x, y in combinations(rest, 2))
    wins = [0] * N_CATEGORIES
    ties = [0] * N_CATEGORIES
    below = 0
    below_card = dict.fromkeys(rest, 0)
    i, n = 0, len(ranked)
    while i < n:
        j = i
        strength = ranked[i][0]
        while j < n and ranked[j][0] == strength:
            j += 1
        group = ranked[i:j]
        cat = strength >> 20
        in_group: dict[str, int] = {}
        for _, x, y in group:
            in_group[x] = in_group.get(x, 0) + 1
            in_group[y] = in_group.get(y, 0) + 1
        size = len(group)
        w = t = 0
        for _, x, y in group:
            w += below - below_card[x] - below_card[y]
            t += size - in_group[x] - in_group[y] + 1
        wins[cat] += w
        ties[cat] += t
        for _, x, y in group:
            below_card[x] += 1
            below_card[y] += 1
        below += size
        i = j
    return BoardCounts(1, tuple(wins), tuple(ties))


_SUIT_PERMS: tuple[dict[str, str], ...] = ()


def canonical_board(board: Iterable[str]) -> tuple[str, ...]:
    """The least (sorted) relabelling of ``board`` over the 24 suit permutations: boards
    with equal canonical forms have equal :func:`board_counts`."""
    global _SUIT_PERMS
    if not _SUIT_PERMS:
        from itertools import permutations

        _SUIT_PERMS = tuple(dict(zip("shdc", p, strict=True)) for p in permutations("shdc"))
    cards = tuple(board)
    return min(tuple(sorted(c[0] + p[c[1]] for c in cards)) for p in _SUIT_PERMS)


@dataclass(frozen=True, slots=True)
class Prior:
    """The probabilities before any card is shown."""

    chu: Fraction
    han: Fraction
    tie: Fraction
    winner_category: dict[Category, Fraction]


def prior_from_counts(counts: BoardCounts) -> Prior:
    """Probabilities from counts summed over boards (all ``C(52,5)`` of them for the
    exact prior, or a sample for an estimate)."""
    total = counts.deals
    if total == 0:
        raise InvalidInput("no boards counted")
    win = sum(counts.chu_wins)
    tie = sum(counts.ties)
    cats = {c: Fraction(2 * counts.chu_wins[c] + counts.ties[c], total) for c in Category}
    return Prior(Fraction(win, total), Fraction(win, total), Fraction(tie, total), cats)
