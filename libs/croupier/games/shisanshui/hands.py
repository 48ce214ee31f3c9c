"""十三水 hands: the three rows, the fouled-arrangement rule, the 13 special hands and
the automatic arrangement.

Source: ``000_d16ad353ba467b8a.txt``, 十三水规则, 基本规则 2)-5), 3、普通牌型 and 4、特殊牌型.

Rows. The front (头墩) holds 3 cards, the middle (中墩) and the back (尾墩) 5 each. A
5-card row is ranked by the shared hold'em evaluator
(:func:`croupier.games.poker.hands.rank5`: 同花顺 > 铁支 > 葫芦 > 同花 > 顺子 > 三条 >
两对 > 对子 > 乌龙; equal ranks tie, suits never count). The 3-card front knows only
乌龙, 对子 and 三条 (the seed's list has no 3-card straight or flush); its strength is
packed in the same integer layout as a 5-card strength (category, then the significant
ranks, missing kickers 0), so ``front <= middle`` is one integer comparison: a front pair
of kings with an ace beats a middle pair of kings with a queen, and a front equal to the
middle in every card it has is not fouled. An arrangement is legal when
``front <= middle <= back`` (头墩 <= 中墩 <= 尾墩; otherwise 倒水, refused).

Special hands (特殊牌型), in the seed's order from the largest; readings of the seed's
one-line definitions are recorded in ``seeds/variants/shisanshui.json``:

======  ==================  ====================================================
 id      name                13 cards
======  ==================  ====================================================
 1       清龙 qing_long       A..K, one of each rank, all one suit
 2       一条龙 yi_tiao_long  A..K, one of each rank
 3       十二皇族             every card J, Q, K or A
 4       三同花顺             the three rows all straight flushes
 5       三分天下             three fours of a kind and one more card
 6       全大                 every card 8 to A
 7       全小                 every card 2 to 8
 8       凑一色               every card red (hearts, diamonds) or every card black
 9       五对三条             five pairs and a three of a kind
 10      四套三条             four threes of a kind and one more card
 11      六对半               six pairs and one more card
 12      三顺子               the three rows all straights
 13      三同花               the three rows all flushes
======  ==================  ====================================================

A four of a kind counts as two pairs (六对半, 五对三条) or as a three of a kind and a
single card (四套三条). In the row-based specials a 3-card front is a straight when its
ranks are consecutive (A-2-3 and Q-K-A both count, as A does in 5-card straights).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement, product
from math import comb

from croupier.accel import native as _native
from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.poker.hands import (
    Category,
    card_codes,
    flush_strength,
    nonflush_table,
    rank5,
    rows5,
)

__all__ = [
    "Arrangement",
    "Special",
    "auto_arrange",
    "check_arrangement",
    "check_rows",
    "front_strength",
    "is_fouled",
    "row_strengths",
    "special_of",
    "special_rows",
]

RANK_ORDER = "23456789TJQKA"
_VAL = {r: i for i, r in enumerate(RANK_ORDER)}
_VALID = frozenset(CARDS52)


class Special(Enum):
    """The 13 special hands, largest first (the seed's order)."""

    QING_LONG = "qing_long"
    YI_TIAO_LONG = "yi_tiao_long"
    SHI_ER_HUANG_ZU = "shi_er_huang_zu"
    SAN_TONG_HUA_SHUN = "san_tong_hua_shun"
    SAN_FEN_TIAN_XIA = "san_fen_tian_xia"
    QUAN_DA = "quan_da"
    QUAN_XIAO = "quan_xiao"
    COU_YI_SE = "cou_yi_se"
    WU_DUI_SAN_TIAO = "wu_dui_san_tiao"
    SI_TAO_SAN_TIAO = "si_tao_san_tiao"
    LIU_DUI_BAN = "liu_dui_ban"
    SAN_SHUN_ZI = "san_shun_zi"
    SAN_TONG_HUA = "san_tong_hua"

    @property
    def order(self) -> int:
        """0 for the largest (清龙) .. 12 for the smallest (三同花)."""
        return list(Special).index(self)

    @property
    def by_rows(self) -> bool:
        """Decided by the three rows (the others by the 13 cards alone)."""
        return self in (Special.SAN_TONG_HUA_SHUN, Special.SAN_SHUN_ZI, Special.SAN_TONG_HUA)


# -- rows ------------------------------------------------------------------------------


def front_strength(cards: Sequence[str]) -> int:
    """Strength of a 3-card front, in the 5-card layout (see the module docstring)."""
    if len(cards) != 3 or len(set(cards)) != 3 or any(c not in _VALID for c in cards):
        raise InvalidInput(f"a front row is 3 distinct cards, got {list(cards)}")
    vals = sorted((_VAL[c[0]] for c in cards), reverse=True)
    a, b, c = vals
    ranks: tuple[int, ...]
    if a == c:
        cat, ranks = Category.TRIPS, (a,)
    elif a == b or b == c:
        p, k = (a, c) if a == b else (b, a)
        cat, ranks = Category.PAIR, (p, k)
    else:
        cat, ranks = Category.HIGH_CARD, (a, b, c)
    s = int(cat)
    for i in range(5):
        s = s << 4 | (ranks[i] if i < len(ranks) else 0)
    return s


def row_strengths(
    front: Sequence[str], middle: Sequence[str], back: Sequence[str]
) -> tuple[int, int, int]:
    return front_strength(front), rank5(middle), rank5(back)


def is_fouled(front: Sequence[str], middle: Sequence[str], back: Sequence[str]) -> bool:
    f, m, b = row_strengths(front, middle, back)
    return not f <= m <= b


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Three rows, their strengths, and the special hand declared (None: normal)."""

    front: tuple[str, ...]
    middle: tuple[str, ...]
    back: tuple[str, ...]
    special: Special | None = None

    @property
    def strengths(self) -> tuple[int, int, int]:
        return row_strengths(self.front, self.middle, self.back)

    @property
    def cards(self) -> tuple[str, ...]:
        return (*self.front, *self.middle, *self.back)


def check_rows(hand: Sequence[str], a: Arrangement) -> None:
    """Raise :class:`InvalidInput` unless ``a`` puts exactly ``hand`` in rows of 3/5/5."""
    if (len(a.front), len(a.middle), len(a.back)) != (3, 5, 5):
        raise InvalidInput("rows hold 3, 5 and 5 cards", reason="bad_rows")
    if sorted(a.cards) != sorted(hand) or len(set(a.cards)) != 13:
        raise InvalidInput("the rows must use exactly the 13 cards dealt", reason="not_in_hand")


def check_arrangement(hand: Sequence[str], a: Arrangement) -> None:
    """Raise :class:`InvalidInput` (with a reason) unless ``a`` uses exactly ``hand`` in
    rows of 3/5/5, is not fouled (a normal hand), and realises its declared special."""
    check_rows(hand, a)
    if a.special is None:
        f, m, b = a.strengths
        if not f <= m <= b:
            raise InvalidInput(
                "fouled (倒水): the rows must rank front <= middle <= back", reason="fouled"
            )
        return
    if a.special.by_rows:
        if not _rows_make(a.special, a.front, a.middle, a.back):
            raise InvalidInput(f"these rows do not make {a.special.value}", reason="no_special")
    elif a.special not in _card_specials(tuple(sorted(hand))):
        raise InvalidInput(f"the 13 cards are not {a.special.value}", reason="no_special")


# -- special hands ---------------------------------------------------------------------


def _counts(hand: Sequence[str]) -> Counter[int]:
    return Counter(_VAL[c[0]] for c in hand)


@cache
def _card_specials(hand: tuple[str, ...]) -> frozenset[Special]:
    """The card-based specials ``hand`` (13 cards) qualifies for."""
    counts = _counts(hand)
    suits = {c[1] for c in hand}
    out: set[Special] = set()
    if len(counts) == 13:
        out.add(Special.QING_LONG if len(suits) == 1 else Special.YI_TIAO_LONG)
    if all(v >= _VAL["J"] for v in counts):
        out.add(Special.SHI_ER_HUANG_ZU)
    cs = sorted(counts.values(), reverse=True)
    if cs[:3] == [4, 4, 4]:
        out.add(Special.SAN_FEN_TIAN_XIA)
    if all(v >= _VAL["8"] for v in counts):
        out.add(Special.QUAN_DA)
    if all(v <= _VAL["8"] for v in counts):
        out.add(Special.QUAN_XIAO)
    if suits <= {"h", "d"} or suits <= {"s", "c"}:
        out.add(Special.COU_YI_SE)
    if (
        any(n == 3 for n in cs)
        and sum(1 for n in cs if n == 3) == 1
        and all(n % 2 == 0 for n in cs if n != 3)
    ):
        out.add(Special.WU_DUI_SAN_TIAO)
    if sum(1 for n in cs if n >= 3) == 4:
        out.add(Special.SI_TAO_SAN_TIAO)
    if sum(n // 2 for n in cs) == 6:
        out.add(Special.LIU_DUI_BAN)
    return frozenset(out)


def _straight_windows(n: int) -> list[tuple[int, ...]]:
    """Rank-value windows of an ``n``-card straight, A high and A low."""
    out = [tuple(range(lo, lo + n)) for lo in range(0, 13 - n + 1)]
    out.append((12, *range(0, n - 1)))  # A-2-3(-4-5)
    return out


def _is_straight(cards: Sequence[str]) -> bool:
    vals = sorted(_VAL[c[0]] for c in cards)
    return any(sorted(w) == vals for w in _straight_windows(len(cards)))


def _is_flush(cards: Sequence[str]) -> bool:
    return len({c[1] for c in cards}) == 1


def _rows_make(special: Special, *rows: Sequence[str]) -> bool:
    if special is Special.SAN_TONG_HUA:
        return all(_is_flush(r) for r in rows)
    if special is Special.SAN_SHUN_ZI:
        return all(_is_straight(r) for r in rows)
    if special is Special.SAN_TONG_HUA_SHUN:
        return all(_is_flush(r) and _is_straight(r) for r in rows)
    return False


def special_rows(hand: Sequence[str], special: Special) -> tuple[tuple[str, ...], ...] | None:
    """Rows (front, middle, back) of ``hand`` that make a row-based ``special``, or None."""
    cards = sorted(hand)
    if special is Special.SAN_TONG_HUA:
        by_suit: dict[str, list[str]] = {}
        for c in cards:
            by_suit.setdefault(c[1], []).append(c)
        groups = sorted(by_suit.values(), key=len)
        sizes = [len(g) for g in groups]
        if any(n not in (3, 5, 8, 10, 13) for n in sizes):
            return None
        rows: list[list[str]] = []
        for g in groups:
            n = len(g)
            parts = {3: [3], 5: [5], 8: [3, 5], 10: [5, 5], 13: [3, 5, 5]}[n]
            i = 0
            for k in parts:
                rows.append(g[i : i + k])
                i += k
        rows.sort(key=len)
        if [len(r) for r in rows] != [3, 5, 5]:
            return None
        return tuple(tuple(r) for r in rows)
    need_flush = special is Special.SAN_TONG_HUA_SHUN
    if special not in (Special.SAN_SHUN_ZI, Special.SAN_TONG_HUA_SHUN):
        return None
    pool = Counter(cards)
    return _straight_split(pool, need_flush)


def _straight_split(pool: Counter[str], flush: bool) -> tuple[tuple[str, ...], ...] | None:
    """Split 13 cards into a 3-card and two 5-card straights (straight flushes)."""
    by_val: dict[int, list[str]] = {}
    for c in sorted(pool):
        by_val.setdefault(_VAL[c[0]], []).append(c)

    def take(
        window: tuple[int, ...], avail: dict[int, list[str]], suit: str | None
    ) -> list[str] | None:
        got = []
        for v in window:
            options = [c for c in avail.get(v, []) if suit is None or c[1] == suit]
            if not options:
                return None
            got.append(options[0])
        return got

    def remove(avail: dict[int, list[str]], cards: list[str]) -> dict[int, list[str]]:
        out = {v: list(cs) for v, cs in avail.items()}
        for c in cards:
            out[_VAL[c[0]]].remove(c)
        return out

    suits: tuple[str | None, ...] = ("s", "h", "d", "c") if flush else (None,)
    for w5a in _straight_windows(5):
        for sa in suits:
            a = take(w5a, by_val, sa)
            if a is None:
                continue
            rest_a = remove(by_val, a)
            for w5b in _straight_windows(5):
                for sb in suits:
                    b = take(w5b, rest_a, sb)
                    if b is None:
                        continue
                    rest_b = remove(rest_a, b)
                    left = sorted(c for cs in rest_b.values() for c in cs)
                    if _is_straight(left) and (not flush or _is_flush(left)):
                        rows = sorted([a, b], key=lambda r: rank5(r))
                        return tuple(left), tuple(rows[0]), tuple(rows[1])
    return None


def special_of(hand: Sequence[str]) -> tuple[Special, tuple[tuple[str, ...], ...] | None] | None:
    """The largest special hand of 13 cards and, for a row-based one, rows making it."""
    if len(hand) != 13 or len(set(hand)) != 13 or any(c not in _VALID for c in hand):
        raise InvalidInput(f"a 十三水 hand is 13 distinct cards, got {list(hand)}")
    found = _card_specials(tuple(sorted(hand)))
    for sp in Special:
        if sp.by_rows:
            rows = special_rows(hand, sp)
            if rows is not None:
                return sp, rows
        elif sp in found:
            return sp, None
    return None


# -- the automatic arrangement ------------------------------------------------------------


@cache
def _five_table() -> tuple[list[int], list[int]]:
    """Every distinct 5-card strength, sorted, with the cumulative number of the
    C(52,5) hands at or below it (by rank pattern: suit assignments are counted, not
    enumerated; a pattern's strength read from the evaluator's tables, as ``rank5``
    reads a hand of it)."""
    weight: Counter[int] = Counter()
    nonflush = nonflush_table()
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [ranks.count(v) for v in set(ranks)]
        if max(counts) > 4:
            continue
        plain = nonflush[sum(1 << (3 * v) for v in ranks)]
        if len(counts) == 5:
            weight[plain] += 4**5 - 4  # not all one suit
            weight[flush_strength(sum(1 << v for v in ranks))] += 4
        else:
            n = 1
            for c in counts:
                n *= comb(4, c)
            weight[plain] += n
    keys = sorted(weight)
    cum, run = [], 0
    for k in keys:
        run += weight[k]
        cum.append(run)
    return keys, cum


@cache
def _three_table() -> tuple[list[int], list[int]]:
    weight: Counter[int] = Counter()
    for ranks in combinations_with_replacement(range(13), 3):
        counts = Counter(ranks)
        n = 1
        for c in counts.values():
            n *= comb(4, c)
        used: Counter[int] = Counter()
        cards = []
        for v in ranks:
            cards.append(RANK_ORDER[v] + "shdc"[used[v]])
            used[v] += 1
        weight[front_strength(cards)] += n
    keys = sorted(weight)
    cum, run = [], 0
    for k in keys:
        run += weight[k]
        cum.append(run)
    return keys, cum


_SCALE = math.lcm(2 * comb(52, 5), 2 * comb(52, 3))  # 25,989,600


def _share(strength: int, table: tuple[list[int], list[int]]) -> int:
    """P(a random row of the same size is below ``strength``) + half P(equal), exactly,
    in units of ``1 / _SCALE`` (one scale for 3- and 5-card rows, so shares add up)."""
    keys, cum = table
    total = cum[-1]
    lo = bisect_left(keys, strength)
    hi = bisect_right(keys, strength)
    below = cum[lo - 1] if lo else 0
    upto = cum[hi - 1] if hi else 0
    return (below + upto) * (_SCALE // (2 * total))  # below + (upto - below) / 2


def row_score(front: int, middle: int, back: int) -> Fraction:
    """The automatic arrangement's measure: rows expected to be won against rows dealt at
    random from a full deck (each row by its share of the random rows it beats, half
    for a tie), summed over the three rows."""
    five, three = _five_table(), _three_table()
    return Fraction(_share(front, three) + _share(middle, five) + _share(back, five), _SCALE)


def best_normal(hand: Sequence[str]) -> Arrangement:
    """The legal arrangement with the highest :func:`row_score` (ties: the stronger
    back, then middle, then front; then the first found)."""
    if len(hand) != 13 or len(set(hand)) != 13 or any(c not in _VALID for c in hand):
        raise InvalidInput(f"a 十三水 hand is 13 distinct cards, got {list(hand)}")
    return _best_normal(tuple(sorted(hand, key=lambda c: (_VAL[c[0]], c[1]), reverse=True)))


# Every row of 13 cards by the positions it takes, in ``combinations`` order, and its
# mask (bit i: the i-th card).
_FIVE_MASKS = tuple(sum(1 << i for i in idx) for idx in combinations(range(13), 5))
_THREES = tuple(combinations(range(13), 3))
_THREE_MASKS = tuple(sum(1 << i for i in idx) for idx in _THREES)


@lru_cache(maxsize=4096)
def _best_normal(cards: tuple[str, ...]) -> Arrangement:
    masks = None if _native is None else _native_best(cards)
    if masks is None:
        fives, threes = _rows(cards)
        masks = None if _native is None else _native.shisanshui_split(fives, threes)
        if masks is None:
            five_rows = dict(zip(_FIVE_MASKS, fives, strict=True))
            masks = _search(five_rows, dict(zip(_THREE_MASKS, threes, strict=True)))
    f, m, b = masks

    def pick(mask: int) -> tuple[str, ...]:
        return tuple(cards[i] for i in range(13) if mask >> i & 1)

    return Arrangement(pick(f), pick(m), pick(b))


def _native_best(cards: tuple[str, ...]) -> tuple[int, int, int] | None:
    """The split the native search gives with the rows read natively too: their
    strengths by the evaluator's rules, their shares from the tables bound once
    (:func:`_bind_shares`); ``None`` where the native path does not take the cards."""
    assert _native is not None
    _bind_shares()
    out: tuple[int, int, int] | None = _native.shisanshui_best(*card_codes(cards))
    return out


@cache
def _bind_shares() -> None:
    """Give the native search, once a process, what :func:`_rows` reads."""
    assert _native is not None
    shares = _five_shares()
    _native.shisanshui_bind(list(shares), list(shares.values()), _fronts())


@cache
def _five_shares() -> dict[int, int]:
    """Every 5-card strength's share (7,462 of them), by strength ascending."""
    five = _five_table()
    return {s: _share(s, five) for s in five[0]}


@cache
def _fronts() -> list[tuple[int, int]]:
    """A front's (strength, share) by its three rank values ``r1 * 169 + r2 * 13 + r3``,
    in any order (455 rank multisets, 2,197 orders)."""
    three = _three_table()
    by_multiset: dict[tuple[int, ...], tuple[int, int]] = {}
    out: list[tuple[int, int]] = []
    for ranks in product(range(13), repeat=3):
        key = tuple(sorted(ranks))
        row = by_multiset.get(key)
        if row is None:
            cards3 = [RANK_ORDER[v] + "shdc"[key[:i].count(v)] for i, v in enumerate(key)]
            s = front_strength(cards3)
            row = by_multiset[key] = (s, _share(s, three))
        out.append(row)
    return out


def _rows(cards: tuple[str, ...]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Every 5-card row and every 3-card row of the 13 cards as (strength, share), in
    ``combinations`` order: the 5-card rows' strengths as ``rank5`` gives them, read
    together (:func:`~croupier.games.poker.hands.rows5`), their shares by strength, a
    front's strength and share by its ranks."""
    shares = _five_shares()
    fives = [(s, shares[s]) for s in rows5(cards)]
    fronts = _fronts()
    v = [_VAL[c[0]] for c in cards]
    threes = [fronts[v[a] * 169 + v[b] * 13 + v[c]] for a, b, c in _THREES]
    return fives, threes


def _search(s5: dict[int, tuple[int, int]], s3: dict[int, tuple[int, int]]) -> tuple[int, int, int]:
    """The best legal split's front, middle and back masks, from each 5-card row's and
    3-card row's (strength, share) by mask, in the order ``combinations`` gives them:
    every back in that order with every middle of the cards left, the first found
    among equals (the native search, :mod:`croupier.accel`, gives the same split)."""
    full = (1 << 13) - 1
    bits = [1 << i for i in range(13)]
    best: tuple[int, int, int, int] | None = None
    best_masks = (0, 0, 0)
    for b_mask, (sb, pb) in s5.items():
        rest = [x for x in bits if not b_mask & x]
        for m_mask in map(sum, combinations(rest, 5)):
            sm, pm = s5[m_mask]
            if sm > sb:
                continue
            f_mask = full ^ b_mask ^ m_mask
            sf, pf = s3[f_mask]
            if sf > sm:
                continue
            key = (pf + pm + pb, sb, sm, sf)
            if best is None or key > best:
                best = key
                best_masks = (f_mask, m_mask, b_mask)
    assert best is not None  # the best back, then the best middle, is always legal
    return best_masks


def auto_arrange(hand: Sequence[str]) -> Arrangement:
    """See :func:`_auto_arrange` (cached by the hand's cards)."""
    return _auto_arrange(tuple(sorted(hand)))


@lru_cache(maxsize=4096)
def _auto_arrange(hand: tuple[str, ...]) -> Arrangement:
    """自动比牌: the largest special hand when there is one (特殊牌型大于普通牌型),
    else :func:`best_normal`. A card-based special keeps the best normal rows for
    display."""
    found = special_of(hand)
    normal = best_normal(hand)
    if found is None:
        return normal
    sp, rows = found
    if rows is None:
        return Arrangement(normal.front, normal.middle, normal.back, sp)
    return Arrangement(rows[0], rows[1], rows[2], sp)
