"""Niuniu hands: categories, multipliers, the arrangement (拼牛) and the comparison.

Sources (one section each, all read; they differ): ``000_d16ad353ba467b8a.txt``,
百人牛牛游戏规则 / 牛牛游戏规则 / 通比牛牛; ``001_5f10773fec037198.txt``, 经典牛牛（Niuniu）;
``004_5b64d410fb5765b6.txt``, 牛牛游戏规则.

Shared by all five: 52 cards, 5 per hand; A counts 1, 2-9 their pips, 10/J/Q/K count 10
for sums; three cards adding up to a multiple of 10 make 牛 and the other two give the
niu number (their sum's last digit, 0 = 牛牛). For comparison the ranks run
K > Q > J > 10 > ... > A and the suits ♠ > ♥ > ♣ > ♦.

Every category depends on the ranks alone. Which special categories a variant has, their
order and their multipliers are :class:`HandRules` values read from the variant's
config. A hand takes the highest category of its variant that it satisfies (004 item 12:
a hand that is both 四炸 and 五花牛 counts as the larger).

Within one category two hands compare by their highest card - rank, then suit - unless
the variant compares 四炸 by the rank of the four (004 item 10). One deck never holds the
same card twice, so two hands of one deal never tie.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from croupier.cards import parse_card
from croupier.errors import ConfigError, InvalidInput, NotationError
from croupier.games.memo import recall

RANKS = "A23456789TJQK"
"""Comparison order, lowest first (000 牌型大小: K > Q > J > 10 > ... > A)."""
SUITS = "dchs"
"""Suit order, lowest first: ♦ < ♣ < ♥ < ♠ (黑桃 > 红桃 > 梅花/草花 > 方块)."""
POINTS = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}
"""What a rank counts in a sum: A = 1, 2-9 their pips, 10/J/Q/K = 10."""
FACES = frozenset("JQK")
SMALL = frozenset("A234")  # 小牛牛 / 五小牛: every card below 5


class Category(enum.Enum):
    """Every category any of the five variants knows, by config name."""

    NO_NIU = "no_niu"
    NIU_1 = "niu1"
    NIU_2 = "niu2"
    NIU_3 = "niu3"
    NIU_4 = "niu4"
    NIU_5 = "niu5"
    NIU_6 = "niu6"
    NIU_7 = "niu7"
    NIU_8 = "niu8"
    NIU_9 = "niu9"
    NIUNIU = "niuniu"
    FOUR_FLOWER = "four_flower"  # 四花牛: four of J/Q/K and a 10
    FIVE_FLOWER = "five_flower"  # 五花牛: five of J/Q/K
    FOUR_BOMB = "four_bomb"  # 四炸 / 四炸弹: four of a rank, no niu needed
    FIVE_SMALL = "five_small"  # 小牛牛 / 五小牛: all below 5, sum <= 10

    @property
    def chinese(self) -> str:
        return _CHINESE[self]


_CHINESE = {
    Category.NO_NIU: "无牛",
    **{Category(f"niu{n}"): f"牛{n}" for n in range(1, 10)},
    Category.NIUNIU: "牛牛",
    Category.FOUR_FLOWER: "四花牛",
    Category.FIVE_FLOWER: "五花牛",
    Category.FOUR_BOMB: "四炸",
    Category.FIVE_SMALL: "小牛牛",
}
SPECIAL = (Category.FOUR_FLOWER, Category.FIVE_FLOWER, Category.FOUR_BOMB, Category.FIVE_SMALL)
"""Categories a variant may or may not have."""
NIU_LADDER = (Category.NO_NIU, *(Category(f"niu{n}") for n in range(1, 10)), Category.NIUNIU)
"""Every variant has these, in this order, lowest first."""


class FourBombTies(enum.Enum):
    HIGHEST_CARD = "highest_card"
    QUAD_RANK = "quad_rank"


@dataclass(frozen=True, slots=True)
class HandRules:
    """A variant's categories (``order``, lowest first), their multipliers (``mults``,
    as pairs, so the rules are hashable) and the 四炸 tie rule."""

    order: tuple[Category, ...]
    mults: tuple[tuple[Category, int], ...]
    four_bomb_ties: FourBombTies = FourBombTies.HIGHEST_CARD
    rank_of: Mapping[Category, int] = field(init=False, compare=False, hash=False)
    multipliers: Mapping[Category, int] = field(init=False, compare=False, hash=False)
    evaluated: dict[tuple[str, ...], Hand] = field(
        init=False, compare=False, hash=False, repr=False
    )
    """Hands evaluated under these rules (:func:`evaluate`)."""

    def __post_init__(self) -> None:
        if self.order[: len(NIU_LADDER)] != NIU_LADDER:
            raise ConfigError("niuniu: the order starts no_niu, niu1..niu9, niuniu")
        if len(set(self.order)) != len(self.order):
            raise ConfigError("niuniu: a category is listed twice")
        mults = dict(self.mults)
        if set(mults) != set(self.order):
            raise ConfigError("niuniu: give a multiplier for exactly the listed categories")
        for c in self.order:
            m = mults[c]
            if not isinstance(m, int) or isinstance(m, bool) or m < 1:
                raise ConfigError(f"niuniu: {c.value} needs a whole multiplier >= 1")
        object.__setattr__(self, "rank_of", {c: i for i, c in enumerate(self.order)})
        object.__setattr__(self, "multipliers", mults)
        object.__setattr__(self, "evaluated", {})

    def evaluate_new(self, cards: tuple[str, ...]) -> Hand:
        """:func:`evaluate`, not remembered."""
        return _evaluate(cards, self)

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> HandRules:
        try:
            hands = raw["hands"]
            order = tuple(Category(str(c)) for c in hands["order"])
            mults = tuple((Category(str(k)), v) for k, v in hands["multipliers"].items())
            ties = FourBombTies(str(hands.get("four_bomb_ties", "highest_card")))
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"niuniu hands config: {e!r}") from e
        return cls(order, mults, ties)

    @property
    def max_multiplier(self) -> int:
        return max(self.multipliers.values())

    def multiplier(self, category: Category) -> int:
        return self.multipliers[category]


def card_key(card: str) -> tuple[int, int]:
    """(rank index, suit index): a card's place in the comparison order."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def category_of_ranks(ranks: Sequence[str], rules: HandRules) -> Category:
    """The category five ranks make under ``rules`` (the highest that applies)."""
    counts: dict[str, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    pts = [POINTS[r] for r in ranks]
    total = sum(pts)
    found: list[Category] = []
    if all(r in SMALL for r in ranks) and total <= 10:
        found.append(Category.FIVE_SMALL)
    if max(counts.values()) == 4:
        found.append(Category.FOUR_BOMB)
    faces = sum(1 for r in ranks if r in FACES)
    if faces == 5:
        found.append(Category.FIVE_FLOWER)
    if faces == 4 and "T" in counts:
        found.append(Category.FOUR_FLOWER)
    niu = niu_triple(pts)
    if niu is not None:
        found.append(Category.NIUNIU if total % 10 == 0 else Category(f"niu{total % 10}"))
    else:
        found.append(Category.NO_NIU)
    rank = rules.rank_of
    return max((c for c in found if c in rank), key=rank.__getitem__)


def niu_triple(points: Sequence[int]) -> tuple[int, int, int] | None:
    """Indices of the first three cards whose points add up to a multiple of 10."""
    return _niu_triple(tuple(points))


@lru_cache(maxsize=1 << 14)
def _niu_triple(points: tuple[int, ...]) -> tuple[int, int, int] | None:
    """:func:`niu_triple`, remembered by the points in card order (at most 10**5 of
    five cards; a hand's evaluation asks twice, its outcome and settlement again)."""
    for idx in itertools.combinations(range(len(points)), 3):
        if sum(points[i] for i in idx) % 10 == 0:
            return idx[0], idx[1], idx[2]
    return None


@dataclass(frozen=True, slots=True)
class Hand:
    """An evaluated hand: its cards, category, multiplier, a 牛 arrangement (the three
    cards, or empty without niu) and its comparison key."""

    cards: tuple[str, ...]
    category: Category
    multiplier: int
    three: tuple[str, ...]
    high: str
    key: tuple[int, int, int]

    def beats(self, other: Hand) -> bool:
        return self.key > other.key

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "category": self.category.value,
            "name": self.category.chinese,
            "multiplier": self.multiplier,
            "three": list(self.three),
            "high": self.high,
        }


def parse_hand(cards: Iterable[str]) -> tuple[str, ...]:
    """Five distinct cards of a 52-card deck, canonical; :class:`InvalidInput` else."""
    try:
        out = tuple(parse_card(str(c)) for c in cards)
    except NotationError as e:
        raise InvalidInput(e.message, reason="bad_card") from e
    if any(c in ("BJ", "RJ") for c in out):
        raise InvalidInput("niuniu is played without jokers", reason="bad_card")
    if len(out) != 5 or len(set(out)) != 5:
        raise InvalidInput(f"a niuniu hand is five distinct cards, got {list(out)}")
    return out


def evaluate(cards: Sequence[str], rules: HandRules) -> Hand:
    """Evaluate five canonical cards (see :func:`parse_hand`); remembered per rules
    (:func:`~croupier.games.memo.recall`)."""
    return recall(rules.evaluated, tuple(cards), rules.evaluate_new)


def _evaluate(cards: tuple[str, ...], rules: HandRules) -> Hand:
    ranks = [c[0] for c in cards]
    cat = category_of_ranks(ranks, rules)
    high = max(cards, key=card_key)
    r, s = card_key(high)
    if cat is Category.FOUR_BOMB and rules.four_bomb_ties is FourBombTies.QUAD_RANK:
        quad = next(x for x in ranks if ranks.count(x) == 4)
        r, s = RANKS.index(quad), 0
    trip = niu_triple([POINTS[x] for x in ranks])
    three = tuple(cards[i] for i in trip) if trip is not None else ()
    return Hand(cards, cat, rules.multiplier(cat), three, high, (rules.rank_of[cat], r, s))


def check_arrangement(cards: Sequence[str], three: Sequence[str]) -> tuple[str, ...]:
    """A player's 拼牛 claim: three of their cards adding up to a multiple of 10, or no
    cards for a hand without niu. Raises :class:`InvalidInput` (reason ``bad_arrangement``
    or ``not_niu``) when the claim does not match the cards. Any valid three give the same
    niu number (the other two's sum is the total less a multiple of 10), so a valid claim
    never changes the category."""
    if not three:
        if niu_triple([POINTS[c[0]] for c in cards]) is not None:
            raise InvalidInput(
                f"{' '.join(cards)} has 牛: show the three cards that make it",
                reason="has_niu",
            )
        return ()
    try:
        picked = tuple(parse_card(str(c)) for c in three)
    except NotationError as e:
        raise InvalidInput(e.message, reason="bad_arrangement") from e
    if len(picked) != 3 or len(set(picked)) != 3:
        raise InvalidInput("an arrangement names three distinct cards", reason="bad_arrangement")
    missing = [c for c in picked if c not in cards]
    if missing:
        raise InvalidInput(
            f"{' '.join(missing)} not in the hand {' '.join(cards)}", reason="bad_arrangement"
        )
    total = sum(POINTS[c[0]] for c in picked)
    if total % 10:
        raise InvalidInput(
            f"{' '.join(picked)} add up to {total}, not a multiple of 10", reason="not_niu"
        )
    return picked


def winner_multiplier(a: Hand, b: Hand) -> tuple[bool, int]:
    """Does ``a`` beat ``b``, and the winner's multiplier."""
    a_wins = a.beats(b)
    return a_wins, (a if a_wins else b).multiplier
