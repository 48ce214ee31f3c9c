"""Poker hand evaluators: hold'em 5 of 5..7 cards and the 3-card rankings.

Hold'em (standard ranking)
--------------------------
A *strength* is a plain ``int``: higher is better, equal ints tie. Its layout is readable::

    category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

with ``category`` a :class:`Category` (0 = high card .. 8 = straight flush) and ``r1..r5``
rank values (``2`` = 0 .. ``A`` = 12) in order of significance: quads rank then kicker;
trips rank then pair rank (full house); the top card of a straight (``5`` for the wheel
A-2-3-4-5); the pair ranks then the kickers; unused trailing slots are 0. A royal flush is
a straight flush with the ace on top (:func:`is_royal`).

How it is fast: every card maps to one integer key holding three bits per rank (a rank
count, 0..4) and, above bit 39, three bits per suit (a suit count, 0..7). The sum of the
keys of a hand therefore holds its rank multiset and its suit counts at once. A
4,096-entry list maps the suit counts to the flush suit (or -1); without a flush (97 % of
7-card hands) one dict lookup on the rank multiset returns the best 5-card strength,
precomputed on first use for every multiset of 5, 6 and 7 ranks (73,775 entries). With
five or more cards of one suit the best hand is always the flush or straight flush (quads
and a full house would need three cards outside the suit), read from an 8,192-entry table
of rank masks. Cards must be distinct; an unknown card raises :class:`NotationError`.

3-card rankings (炸金花, 德州2+3)
---------------------------------
Seed ``000_d16ad353ba467b8a.txt``, 炸金花, 牌型大小 / 牌型的比较: 豹子 > 顺金 > 金花 > 顺子 >
对子 > 单张; AKQ is the highest and A23 the lowest straight; suits never rank; a pair
compares its pair rank, everything else its cards from the highest down. Seed
``001_5f10773fec037198.txt``, 德州2+3, 牌型大小: 豹子 > 同花顺 > 同花(金花) > 顺子 > 对子 > 散牌
(单张), suits never rank, best 3 of the 2 hole and 3 board cards. The two rankings are
the same order; what the seeds leave open is a :class:`ThreeCardRules` field.

A 3-card strength is ``category3 << 12 | r1 << 8 | r2 << 4 | r3`` with ``category3`` a
:class:`Category3` (0 = high card .. 5 = trips).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from functools import cached_property
from itertools import combinations, combinations_with_replacement
from types import MappingProxyType

from croupier.accel import native as _native
from croupier.errors import ConfigError, NotationError

__all__ = [
    "CARD_KEYS",
    "RANK_MASK",
    "SUIT_SHIFT",
    "TWO_PLUS_THREE",
    "ZHAJINHUA",
    "Category",
    "Category3",
    "ThreeCardRules",
    "best3_of5",
    "best_five",
    "best_of",
    "best_three",
    "card_codes",
    "category",
    "category3",
    "describe",
    "describe3",
    "flush_strength",
    "flush_suit_of",
    "is_royal",
    "nonflush_table",
    "rank3",
    "rank5",
    "ranks_of",
    "rows5",
    "rules_from_config",
    "strength_from_key",
]

RANK_ORDER = "23456789TJQKA"
"""Rank characters by value: ``2`` = 0 .. ``A`` = 12."""
SUIT_ORDER = "shdc"

_SUIT_SHIFT = 39
_RANK_MASK = (1 << _SUIT_SHIFT) - 1


class Category(IntEnum):
    """Hold'em hand categories, weakest first (the top field of a strength)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


class Category3(IntEnum):
    """3-card categories, weakest first: 单张/散牌, 对子, 顺子, 金花/同花, 顺金/同花顺, 豹子."""

    HIGH_CARD = 0
    PAIR = 1
    STRAIGHT = 2
    FLUSH = 3
    STRAIGHT_FLUSH = 4
    TRIPS = 5


# ---------------------------------------------------------------------------- card keys

_CARD_KEY: dict[str, int] = {}
_CARD_SUIT: dict[str, int] = {}
_CARD_BIT: dict[str, int] = {}
for _s, _sc in enumerate(SUIT_ORDER):
    for _v, _rc in enumerate(RANK_ORDER):
        _c = _rc + _sc
        _CARD_KEY[_c] = (1 << (3 * _v)) + (1 << (_SUIT_SHIFT + 3 * _s))
        _CARD_SUIT[_c] = _s
        _CARD_BIT[_c] = 1 << _v


_RANK_VALUE = {r: v for v, r in enumerate(RANK_ORDER)}
_SUIT_INDEX = {c: s for s, c in enumerate(SUIT_ORDER)}


def _pack(cat: int, ranks: Iterable[int]) -> int:
    s = cat
    n = 0
    for r in ranks:
        s = s << 4 | r
        n += 1
    return s << (4 * (5 - n))


def _straight_top(mask: int) -> int:
    """Top rank value of the best straight in a 13-bit rank mask, or -1."""
    for top in range(12, 3, -1):
        window = 0b11111 << (top - 4)
        if mask & window == window:
            return top
    if mask & 0b1000000001111 == 0b1000000001111:  # A 2 3 4 5
        return 3
    return -1


def _eval_counts(counts: Sequence[int]) -> int:
    """Best non-flush 5-card strength from rank counts (5..7 cards in all)."""
    desc = [v for v in range(12, -1, -1) if counts[v]]
    quads = [v for v in desc if counts[v] >= 4]
    trips = [v for v in desc if counts[v] == 3]
    pairs = [v for v in desc if counts[v] == 2]
    if quads:
        q = quads[0]
        return _pack(Category.QUADS, (q, next(v for v in desc if v != q)))
    if trips and (len(trips) >= 2 or pairs):
        t = trips[0]
        p = max([*trips[1:], *pairs])
        return _pack(Category.FULL_HOUSE, (t, p))
    mask = 0
    for v in desc:
        mask |= 1 << v
    top = _straight_top(mask)
    if top >= 0:
        return _pack(Category.STRAIGHT, (top,))
    if trips:
        t = trips[0]
        return _pack(Category.TRIPS, (t, *[v for v in desc if v != t][:2]))
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        return _pack(Category.TWO_PAIR, (hi, lo, next(v for v in desc if v not in (hi, lo))))
    if pairs:
        p = pairs[0]
        return _pack(Category.PAIR, (p, *[v for v in desc if v != p][:3]))
    return _pack(Category.HIGH_CARD, desc[:5])


def _eval_flush_mask(mask: int) -> int:
    """Best flush or straight flush from the rank mask of >= 5 cards of one suit."""
    top = _straight_top(mask)
    if top >= 0:
        return _pack(Category.STRAIGHT_FLUSH, (top,))
    return _pack(Category.FLUSH, [v for v in range(12, -1, -1) if mask >> v & 1][:5])


def _fill_nonflush(nonflush: dict[int, int]) -> None:
    for n in (5, 6, 7):
        for combo in combinations_with_replacement(range(13), n):
            counts = [0] * 13
            for v in combo:
                counts[v] += 1
            if max(counts) > 4:
                continue
            key = sum(c << (3 * v) for v, c in enumerate(counts))
            nonflush[key] = _eval_counts(counts)


def _fill_flush(flush: list[int]) -> None:
    for mask in range(8192):
        if mask.bit_count() >= 5:
            flush[mask] = _eval_flush_mask(mask)


def _build_tables() -> tuple[list[int], list[int]]:
    flush_suit = [-1] * 4096
    for idx in range(4096):
        for s in range(4):
            if (idx >> (3 * s)) & 7 >= 5:
                flush_suit[idx] = s
    if _native is not None:  # the same table (tests/property/test_accel_poker.py)
        return flush_suit, _native.poker_flush()
    flush = [0] * 8192
    _fill_flush(flush)
    return flush_suit, flush


_FLUSH_SUIT, _FLUSH = _build_tables()
_NONFLUSH: dict[int, int] = {}
"""Filled on first use, so importing the module stays cheap: natively in ~20 ms where
the accelerator is built (:mod:`croupier.accel`; the same table), else by
:func:`_fill_nonflush` in about half a second."""


def _ready() -> bool:
    """Fill :data:`_NONFLUSH` if it is still empty; True if it was (retry the lookup)."""
    if _NONFLUSH:
        return False
    if _native is not None:
        _NONFLUSH.update(_native.poker_nonflush())
    else:
        _fill_nonflush(_NONFLUSH)
    return True


def card_codes(cards: Sequence[str]) -> tuple[list[int], list[int]]:
    """The cards' rank values (``2`` = 0 .. ``A`` = 12) and suit indexes (``s h d c`` = 0
    .. 3), as the native evaluator takes them; a card off the deck is refused."""
    try:
        return [_RANK_VALUE[c[0]] for c in cards], [_SUIT_INDEX[c[1]] for c in cards]
    except (KeyError, IndexError, TypeError):
        raise _bad(cards, str(len(cards))) from None


def rows5(cards: Sequence[str]) -> list[int]:
    """:func:`rank5` of every 5 of ``cards`` (distinct cards of the 52-card deck), in the
    order ``itertools.combinations(cards, 5)`` gives them: natively where the accelerator
    is built, the same strengths."""
    if _native is not None:
        out: list[int] | None = _native.poker_rows5(*card_codes(cards))
        if out is not None:
            return out
    # the pure path: each row's strength from its cards' key sum, as rank5 reads it (the
    # cards read only for a flush; each card's key looked up once)
    try:
        keys = [_CARD_KEY[c] for c in cards]
    except (KeyError, TypeError):
        raise _bad(cards, str(len(cards))) from None
    _ready()
    nonflush, flush_suit = _NONFLUSH, _FLUSH_SUIT
    strengths: list[int] = []
    for a, b, c, d, e in combinations(range(len(keys)), 5):
        k = keys[a] + keys[b] + keys[c] + keys[d] + keys[e]
        fs = flush_suit[k >> _SUIT_SHIFT]
        if fs < 0:
            strengths.append(nonflush[k & _RANK_MASK])
        else:
            strengths.append(
                _flush_strength((cards[a], cards[b], cards[c], cards[d], cards[e]), fs)
            )
    return strengths


def _bad(cards: Sequence[str], n: str) -> NotationError:
    for c in cards:
        if c not in _CARD_KEY:
            return NotationError(f"{c!r} is not a card of the 52-card deck")
    return NotationError(f"expected {n} distinct cards, got {list(cards)}")


def _flush_strength(cards: Sequence[str], suit: int) -> int:
    mask = 0
    for c in cards:
        if _CARD_SUIT[c] == suit:
            mask |= _CARD_BIT[c]
    return _FLUSH[mask]


CARD_KEYS: Mapping[str, int] = MappingProxyType(_CARD_KEY)
"""Each card's key; the sum of a hand's keys is what :func:`strength_from_key` reads."""


def strength_from_key(key: int, cards: Sequence[str]) -> int:
    """Best strength of 5..7 distinct cards from the sum of their :data:`CARD_KEYS`.

    ``cards`` is only read when the hand holds a flush (for bulk enumerations that keep
    running key sums)."""
    fs = _FLUSH_SUIT[key >> _SUIT_SHIFT]
    if fs < 0:
        _ready()
        return _NONFLUSH[key & _RANK_MASK]
    return _flush_strength(cards, fs)


def nonflush_table() -> Mapping[int, int]:
    """Rank-multiset part of a key sum (``key & RANK_MASK``) -> best non-flush strength."""
    _ready()
    return MappingProxyType(_NONFLUSH)


def flush_strength(mask: int) -> int:
    """The best flush or straight flush of five or more ranks of one suit, by their
    13-bit rank mask (bit ``v`` for rank value ``v``); 0 below five ranks."""
    return _FLUSH[mask]


def flush_suit_of(key: int) -> int:
    """The suit index (``s h d c`` = 0..3) holding 5+ cards of a key sum, or -1."""
    return _FLUSH_SUIT[key >> _SUIT_SHIFT]


RANK_MASK = _RANK_MASK
SUIT_SHIFT = _SUIT_SHIFT


def rank5(cards: Sequence[str]) -> int:
    """Hold'em strength of exactly 5 cards (higher is better, equal = tie)."""
    try:
        a, b, c, d, e = cards
        s = _CARD_KEY[a] + _CARD_KEY[b] + _CARD_KEY[c] + _CARD_KEY[d] + _CARD_KEY[e]
        fs = _FLUSH_SUIT[s >> _SUIT_SHIFT]
        if fs < 0:
            return _NONFLUSH[s & _RANK_MASK]
    except (KeyError, ValueError, TypeError):
        if _ready():
            return rank5(cards)
        raise _bad(cards, "5") from None
    return _flush_strength(cards, fs)


def best_of(cards: Sequence[str]) -> int:
    """Strength of the best 5 of 5, 6 or 7 distinct cards."""
    try:
        if len(cards) == 7:
            a, b, c, d, e, f, g = cards
            s = (
                _CARD_KEY[a]
                + _CARD_KEY[b]
                + _CARD_KEY[c]
                + _CARD_KEY[d]
                + _CARD_KEY[e]
                + _CARD_KEY[f]
                + _CARD_KEY[g]
            )
        elif 5 <= len(cards) <= 6:
            s = sum(map(_CARD_KEY.__getitem__, cards))
        else:
            raise ValueError
        fs = _FLUSH_SUIT[s >> _SUIT_SHIFT]
        if fs < 0:
            return _NONFLUSH[s & _RANK_MASK]
    except (KeyError, ValueError, TypeError):
        if _ready():
            return best_of(cards)
        raise _bad(cards, "5 to 7") from None
    return _flush_strength(cards, fs)


def best_five(cards: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    """The best strength of 5..7 cards and the 5 cards that make it.

    Among equal 5-card subsets the first in the input's combination order is returned.
    """
    best = best_of(cards)
    for five in combinations(cards, 5):
        if rank5(five) == best:
            return best, tuple(five)
    raise AssertionError("unreachable: best_of found no 5-card subset")  # pragma: no cover


def category(strength: int) -> Category:
    """The hold'em category of a strength from :func:`rank5` / :func:`best_of`."""
    return Category(strength >> 20)


def is_royal(strength: int) -> bool:
    """A royal flush: the ace-high straight flush."""
    return strength >> 16 == (Category.STRAIGHT_FLUSH << 4 | 12)


def ranks_of(strength: int) -> tuple[str, ...]:
    """The significant rank characters of a strength, most significant first."""
    cat = strength >> 20
    used = {0: 5, 1: 4, 2: 3, 3: 3, 4: 1, 5: 5, 6: 2, 7: 2, 8: 1}[cat]
    return tuple(RANK_ORDER[(strength >> (16 - 4 * i)) & 15] for i in range(used))


_CATEGORY_NAMES = {
    Category.HIGH_CARD: "high card",
    Category.PAIR: "one pair",
    Category.TWO_PAIR: "two pair",
    Category.TRIPS: "three of a kind",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full house",
    Category.QUADS: "four of a kind",
    Category.STRAIGHT_FLUSH: "straight flush",
}


def describe(strength: int) -> str:
    """E.g. ``"two pair: K Q 9"``, ``"straight: 5"`` (the wheel), ``"royal flush"``."""
    if is_royal(strength):
        return "royal flush"
    return f"{_CATEGORY_NAMES[category(strength)]}: {' '.join(ranks_of(strength))}"


# ------------------------------------------------------------------------ 3-card ranking


@dataclass(frozen=True)
class ThreeCardRules:
    """What differs between the 3-card rankings.

    ``ace_low_straight``: A-2-3 is a straight (the lowest one); the 炸金花 seed says so
    (最小的顺子为花色不同的 A23); the 德州2+3 seed is silent and its config keeps the same.
    ``pair_kicker_counts``: two equal pairs are separated by the third card. The 炸金花
    seed says pairs compare the pair (对子时比对子的大小) and that 对子 is compared card by
    card in order (按照顺序比点); the reading kept is pair first, then the kicker.
    ``names``: the category names, weakest first, for descriptions.
    """

    name: str
    ace_low_straight: bool = True
    pair_kicker_counts: bool = True
    names: tuple[str, str, str, str, str, str] = ("单张", "对子", "顺子", "金花", "顺金", "豹子")

    @cached_property
    def _table(self) -> dict[int, int]:
        table: dict[int, int] = {}
        for trio in combinations(_CARD_KEY, 3):
            key = _CARD_KEY[trio[0]] + _CARD_KEY[trio[1]] + _CARD_KEY[trio[2]]
            if key not in table:
                table[key] = _eval3(trio, self)
        return table

    def table(self) -> dict[int, int]:
        """Card-key sum -> strength for every 3-card hand (built once per rules)."""
        return self._table

    @cached_property
    def _best3(self) -> tuple[dict[int, int], list[int]]:
        """The :func:`best3_of5` tables, built on first use (about 20 ms)."""
        return _build_best3(self)


ZHAJINHUA = ThreeCardRules(name="zhajinhua")
TWO_PLUS_THREE = ThreeCardRules(
    name="two_plus_three", names=("散牌", "对子", "顺子", "同花", "同花顺", "豹子")
)

_RULES_FIELDS = frozenset(f for f in ThreeCardRules.__dataclass_fields__)


def _eval3(cards: Sequence[str], rules: ThreeCardRules) -> int:
    vals = sorted((RANK_ORDER.index(c[0]) for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    a, b, c = vals
    if a == c:
        return Category3.TRIPS << 12 | a << 8 | a << 4 | a
    if a == b or b == c:
        p, k = (a, c) if a == b else (b, a)
        return Category3.PAIR << 12 | p << 8 | p << 4 | (k if rules.pair_kicker_counts else 0)
    top = -1
    if a - c == 2:
        top = a
    elif rules.ace_low_straight and (a, b, c) == (12, 1, 0):
        top = 1  # A-2-3: the lowest straight, topped by the 3
    if top >= 0:
        cat = Category3.STRAIGHT_FLUSH if flush else Category3.STRAIGHT
        return cat << 12 | top << 8
    cat = Category3.FLUSH if flush else Category3.HIGH_CARD
    return cat << 12 | a << 8 | b << 4 | c


def rank3(cards: Sequence[str], rules: ThreeCardRules) -> int:
    """3-card strength under ``rules`` (higher is better, equal = tie)."""
    try:
        a, b, c = cards
        if a in (b, c) or b == c:
            raise ValueError
        return rules._table[_CARD_KEY[a] + _CARD_KEY[b] + _CARD_KEY[c]]
    except (KeyError, ValueError, TypeError):
        raise _bad(cards, "3") from None


def category3(strength: int) -> Category3:
    return Category3(strength >> 12)


def describe3(strength: int, rules: ThreeCardRules) -> str:
    cat = category3(strength)
    ranks = [(strength >> s) & 15 for s in (8, 4, 0)]
    if cat in (Category3.STRAIGHT, Category3.STRAIGHT_FLUSH):
        top = ranks[0]
        shown = "A23" if top == 1 else "".join(RANK_ORDER[top - i] for i in range(3))
    elif cat == Category3.PAIR:
        shown = RANK_ORDER[ranks[0]] * 2 + (
            RANK_ORDER[ranks[2]] if rules.pair_kicker_counts else ""
        )
    else:
        shown = "".join(RANK_ORDER[r] for r in ranks)
    return f"{rules.names[cat]} {shown}"


# best3_of5 keys: bits 0..51 one bit per card (13 per suit, suit-major), bits 52..90 three
# bits per rank (rank counts), bits 91..102 three bits per suit (suit counts). For distinct
# cards the sum of five keys holds the card set, the rank multiset and the suit counts.
_ONEHOT35 = (1 << 52) - 1
_RANKS35_SHIFT = 52
_RANKS35 = ((1 << 39) - 1) << _RANKS35_SHIFT
_SUITS35_SHIFT = 91
_KEY35: dict[str, int] = {}
for _s, _sc in enumerate(SUIT_ORDER):
    for _v, _rc in enumerate(RANK_ORDER):
        _KEY35[_rc + _sc] = (
            (1 << (13 * _s + _v))
            + (1 << (_RANKS35_SHIFT + 3 * _v))
            + (1 << (_SUITS35_SHIFT + 3 * _s))
        )
_SUITED3_SHIFT = [-1] * 4096
"""Suit counts of 5 cards -> ``13 * suit`` of the one suit holding 3+ of them, or -1."""
for _idx in range(4096):
    for _s in range(4):
        if (_idx >> (3 * _s)) & 7 >= 3:
            _SUITED3_SHIFT[_idx] = 13 * _s


def _build_best3(rules: ThreeCardRules) -> tuple[dict[int, int], list[int]]:
    """Tables for :func:`best3_of5` under ``rules``.

    ``nonflush``: the rank-count field of a 5-card key sum (``key & _RANKS35``) -> the best
    strength of its 10 trios read as unsuited, for all 6,175 rank multisets of 5 cards.
    ``suited``: a 13-bit rank mask of 3..5 cards of one suit -> the best flush or straight
    flush among its trios (0 for masks of fewer than 3 ranks).

    The best trio of 5 cards is the larger of the two lookups: a trio of one suit scores at
    least as much read as suited as read as unsuited (同花顺 > 顺子, 同花 > 散牌; it holds no
    pair), and every other trio is unsuited. Each entry is the max over smaller hands, so
    every value is an :func:`_eval3` strength, the same as :func:`rank3` gives.
    """
    unsuited = ("s", "h", "d")
    level: dict[int, int] = {}
    suited = [0] * 8192
    for trio in combinations_with_replacement(range(13), 3):
        key = sum(1 << (_RANKS35_SHIFT + 3 * v) for v in trio)
        level[key] = _eval3([RANK_ORDER[v] + s for v, s in zip(trio, unsuited, strict=True)], rules)
        if len(set(trio)) == 3:
            mask = sum(1 << v for v in trio)
            suited[mask] = _eval3([RANK_ORDER[v] + "s" for v in trio], rules)
    for _ in (4, 5):
        grown: dict[int, int] = {}
        for key, x in level.items():
            for v in range(13):
                if (key >> (_RANKS35_SHIFT + 3 * v)) & 7 == 4:
                    continue
                k2 = key + (1 << (_RANKS35_SHIFT + 3 * v))
                if grown.get(k2, -1) < x:
                    grown[k2] = x
        level = grown
    for n in (4, 5):
        for mask in range(8192):
            if mask.bit_count() == n:
                rest = mask
                best = 0
                while rest:
                    low = rest & -rest
                    rest ^= low
                    best = max(best, suited[mask ^ low])
                suited[mask] = best
    return level, suited


def best3_of5(cards: Sequence[str], rules: ThreeCardRules) -> int:
    """Best 3-card strength among the 10 trios of 5 distinct cards (德州2+3 showdown).

    Two table lookups (see :func:`_build_best3`): the rank multiset gives the best unsuited
    trio; when 3+ cards share a suit, their rank mask gives the best suited trio.
    """
    try:
        a, b, c, d, e = cards
        k = _KEY35[a] + _KEY35[b] + _KEY35[c] + _KEY35[d] + _KEY35[e]
        if (k & _ONEHOT35).bit_count() != 5:  # a repeated card carries into a neighbour bit
            raise ValueError
        nonflush, suited = rules._best3
        best = nonflush[k & _RANKS35]
        shift = _SUITED3_SHIFT[k >> _SUITS35_SHIFT]
        if shift >= 0:
            f = suited[(k >> shift) & 8191]
            if f > best:
                return f
        return best
    except (KeyError, ValueError, TypeError):
        raise _bad(cards, "5") from None


def _best3_of5_reference(cards: Sequence[str], rules: ThreeCardRules) -> int:
    """The straightforward :func:`best3_of5`: the max of :func:`rank3` over the 10 trios.

    Kept as the reference the tests compare the table-driven version with."""
    try:
        if len(cards) != 5 or len(set(cards)) != 5:
            raise ValueError
        a, b, c, d, e = map(_CARD_KEY.__getitem__, cards)
        t = rules._table
        ab, ac, bc = a + b, a + c, b + c
        return max(
            t[ab + c],
            t[ab + d],
            t[ab + e],
            t[ac + d],
            t[ac + e],
            t[a + d + e],
            t[bc + d],
            t[bc + e],
            t[b + d + e],
            t[c + d + e],
        )
    except (KeyError, ValueError, TypeError):
        raise _bad(cards, "5") from None


def best_three(cards: Sequence[str], rules: ThreeCardRules) -> tuple[int, tuple[str, ...]]:
    """Best 3-card strength among 3..5 cards and the trio that makes it (first in order)."""
    best = max(rank3(t, rules) for t in combinations(cards, 3))
    for trio in combinations(cards, 3):
        if rank3(trio, rules) == best:
            return best, tuple(trio)
    raise AssertionError("unreachable")  # pragma: no cover


def rules_from_config(value: Mapping[str, object], name: str) -> ThreeCardRules:
    """Build :class:`ThreeCardRules` from a config mapping of field -> value (a
    ``source`` note is ignored)."""
    fields = {k: v for k, v in value.items() if k not in ("source", "name")}
    unknown = set(fields) - _RULES_FIELDS
    if unknown:
        raise ConfigError(f"unknown 3-card rule fields {sorted(unknown)}")
    flags = {}
    for flag in ("ace_low_straight", "pair_kicker_counts"):
        v = fields.get(flag, True)
        if not isinstance(v, bool):
            raise ConfigError(f"3-card rule {flag} must be true or false")
        flags[flag] = v
    out = ThreeCardRules(
        name=name,
        ace_low_straight=flags["ace_low_straight"],
        pair_kicker_counts=flags["pair_kicker_counts"],
    )
    if "names" in fields:
        names = fields["names"]
        if not isinstance(names, list | tuple) or len(names) != 6:
            raise ConfigError("3-card rule names: six category names, weakest first")
        n = tuple(str(x) for x in names)
        out = replace(out, names=(n[0], n[1], n[2], n[3], n[4], n[5]))
    return out
