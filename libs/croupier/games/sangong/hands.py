"""Sangong hands: card points, categories, multipliers and the tie rules.

Sources (cited as file, section):

* ``000_d16ad353ba467b8a.txt``, 百人三公游戏规则, 比牌规则 (``sangong.hundred``);
* ``001_5f10773fec037198.txt``, 抢庄玩法介绍, 牌型算法 / 牌型大小 / 牌型倍数
  (``sangong.grab``);
* ``001_5f10773fec037198.txt``, 三公 (``sangong.classic``).

Shared by all three: 52 cards, three each. ``T``, ``J``, ``Q`` and ``K`` count 0 points,
``A`` 1, ``2``-``9`` their number; a hand's points are the last digit of the sum.
``J``, ``Q`` and ``K`` are the face cards (公仔). Categories, high to low:

* 爆玖 (``baojiu``): three 3s, where the variant has it (000, 001 抢庄);
* 炸弹 (``bomb``): any other three cards of one rank;
* 三公 (``sangong``): three face cards, not all of one rank (``KKQ``, ``KQJ``);
* points 9 to 0.

Ranks compare ``K > Q > J > T > 9 > ... > 2 > A``; suits ``s > h > c > d``
(黑桃 > 红桃 > 梅花 > 方块). Within a category (every variant):

* points: more points; then more face cards (``J Q 9 > J T 9``); then the highest
  card's rank; then that card's suit;
* bombs: by rank, ``KKK`` highest, ``AAA`` lowest (001's list; see :class:`HandRules`);
* 三公: either the highest card, then its suit (000 and 001 抢庄: ``KQJ > QQJ``), or
  card by card from the highest, then the highest card's suit (001 三公: ``KQQ > KQJ``).

Within one deck every two disjoint hands differ by these keys (the highest card is a
single physical card), so a deal never ties - except 001 抢庄's rule that when banker
and player both have 0 points the banker wins (``zero_points_banker_wins``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from croupier.cards import parse_card
from croupier.errors import ConfigError, InvalidInput, NotationError
from croupier.games.memo import recall

RANK_ORDER = "A23456789TJQK"
"""Ranks from low to high (牌型点数大小: K > Q > J > 10 > 9 > ... > 2 > A)."""
SUIT_ORDER = "dchs"
"""Suits from low to high (花色大小: 黑桃 > 红桃 > 梅花 > 方片)."""
FACES = frozenset("JQK")
"""The face cards (公仔牌)."""
POINTS: Mapping[str, int] = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 0, "J": 0, "Q": 0, "K": 0,
}  # fmt: skip
HAND_SIZE = 3


class Category(StrEnum):
    """Hand categories, low to high."""

    POINTS = "points"
    SANGONG = "sangong"
    BOMB = "bomb"
    BAOJIU = "baojiu"


_CATEGORY_LEVEL = {c: i for i, c in enumerate(Category)}


class SangongTie(StrEnum):
    """How two 三公 hands compare."""

    HIGHEST_CARD = "highest_card"
    """The highest card's rank, then its suit (000 百人三公; 001 抢庄 三公大小比较)."""
    CARD_BY_CARD = "card_by_card"
    """Each card from the highest down, then the highest card's suit (001 三公)."""


class BombOrder(StrEnum):
    """How two bombs compare (they never meet within one deck: kept for ``compare``)."""

    RANK = "rank"
    """By rank, ``KKK`` highest, ``AAA`` lowest (001 炸弹大小比较)."""


@dataclass(frozen=True, slots=True)
class HandRules:
    """Everything in which the variants' hands differ, read from the config's ``hands``."""

    baojiu: int | None
    """Multiplier of 爆玖 (three 3s, above every bomb); None: the variant has no 爆玖 and
    ``333`` is an ordinary bomb."""
    bomb: int
    """Multiplier of 炸弹."""
    sangong: int
    """Multiplier of 三公."""
    point_multipliers: tuple[int, ...]
    """Multiplier of a points hand, indexed by its points 0-9."""
    sangong_tie: SangongTie
    bomb_order: BombOrder = BombOrder.RANK
    zero_points_banker_wins: bool = False
    """Banker and player both with 0 points: the banker wins outright (001 抢庄 特殊情况)."""
    evaluated: dict[tuple[str, ...], Hand] = field(
        init=False, compare=False, hash=False, repr=False
    )
    """Hands evaluated under these rules (:func:`evaluate_unchecked`)."""

    def __post_init__(self) -> None:
        if len(self.point_multipliers) != 10:
            raise ConfigError("sangong: point multipliers are ten numbers, for 0 to 9 points")
        extra: tuple[int, ...] = () if self.baojiu is None else (self.baojiu,)
        for m in (self.bomb, self.sangong, *extra, *self.point_multipliers):
            if isinstance(m, bool) or not isinstance(m, int) or m < 1:
                raise ConfigError(f"sangong: multipliers are integers >= 1, got {m!r}")
        object.__setattr__(self, "sangong_tie", SangongTie(self.sangong_tie))
        object.__setattr__(self, "bomb_order", BombOrder(self.bomb_order))
        object.__setattr__(self, "evaluated", {})

    def evaluate_new(self, cards: tuple[str, ...]) -> Hand:
        """:func:`evaluate_unchecked`, not remembered."""
        return _evaluate(cards, self)

    def multiplier(self, category: Category, points: int = 0) -> int:
        """The multiplier of a hand of ``category`` (and ``points``, for a points hand)."""
        if category is Category.POINTS:
            return self.point_multipliers[points]
        if category is Category.BOMB:
            return self.bomb
        if category is Category.SANGONG:
            return self.sangong
        if self.baojiu is None:
            raise InvalidInput("this variant has no 爆玖")
        return self.baojiu

    @property
    def max_multiplier(self) -> int:
        """The largest multiplier any hand has."""
        extra: tuple[int, ...] = () if self.baojiu is None else (self.baojiu,)
        return max((self.bomb, self.sangong, *extra, *self.point_multipliers))

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> HandRules:
        """Read ``hands`` of a ``seeds/variants/sangong.*.json`` config."""

        def value(node: Any) -> Any:
            return node["value"] if isinstance(node, Mapping) and "value" in node else node

        try:
            h = raw["hands"]
            m = h["multipliers"]
            return cls(
                baojiu=m["baojiu"] if value(h["baojiu"]) else None,
                bomb=m["bomb"],
                sangong=m["sangong"],
                point_multipliers=tuple(m["points"]),
                sangong_tie=SangongTie(value(h["sangong_tie"])),
                bomb_order=BombOrder(value(h["bomb_order"])),
                zero_points_banker_wins=bool(value(h["zero_points_banker_wins"])),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"sangong config hands: {e!r}") from e


def card_index(card: str) -> int:
    """A card's place in the single-card order: rank first, then suit (0 = ``Ad``)."""
    return RANK_ORDER.index(card[0]) * 4 + SUIT_ORDER.index(card[1])


@dataclass(frozen=True, slots=True)
class Hand:
    """A three-card hand, evaluated under one variant's :class:`HandRules`."""

    cards: tuple[str, ...]
    category: Category
    points: int
    faces: int
    """Number of face cards (公仔)."""
    multiplier: int
    key: tuple[int, ...]
    """Comparison key: a larger key is a stronger hand."""

    @property
    def label(self) -> str:
        """``baojiu``, ``bomb``, ``sangong`` or ``points:<n>``."""
        if self.category is Category.POINTS:
            return f"points:{self.points}"
        return self.category.value

    @property
    def zero_points(self) -> bool:
        """A points hand with 0 points (三公 and bombs of face cards count 0 too, but they
        are categories of their own)."""
        return self.category is Category.POINTS and self.points == 0

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "category": self.category.value,
            "points": self.points,
            "faces": self.faces,
            "multiplier": self.multiplier,
        }


def check_cards(cards: Sequence[str]) -> tuple[str, ...]:
    """Three distinct cards of a 52-card deck, canonical; :class:`InvalidInput` if not."""
    if len(cards) != HAND_SIZE:
        raise InvalidInput(f"a sangong hand has {HAND_SIZE} cards, got {len(cards)}")
    out = []
    for c in cards:
        try:
            card = parse_card(str(c))
        except NotationError as e:
            raise InvalidInput(e.message) from e
        if card in ("BJ", "RJ"):
            raise InvalidInput("sangong is played without jokers (大小王除外)")
        out.append(card)
    if len(set(out)) != HAND_SIZE:
        raise InvalidInput(f"a hand holds three different cards, got {out}")
    return tuple(out)


def evaluate(cards: Sequence[str], rules: HandRules) -> Hand:
    """Evaluate three distinct cards (checked) under ``rules``."""
    return evaluate_unchecked(check_cards(cards), rules)


def evaluate_unchecked(cards: tuple[str, ...], rules: HandRules) -> Hand:
    """:func:`evaluate` for cards already known to be three distinct canonical cards;
    remembered per rules (:func:`~croupier.games.memo.recall`)."""
    return recall(rules.evaluated, cards, rules.evaluate_new)


def _evaluate(cards: tuple[str, ...], rules: HandRules) -> Hand:
    ranks = [c[0] for c in cards]
    idx = sorted((card_index(c) for c in cards), reverse=True)
    top = idx[0]
    faces = sum(r in FACES for r in ranks)
    points = sum(POINTS[r] for r in ranks) % 10
    if ranks[0] == ranks[1] == ranks[2]:
        if rules.baojiu is not None and ranks[0] == "3":
            category = Category.BAOJIU
            tail: tuple[int, ...] = ()
        else:
            category = Category.BOMB
            tail = (top // 4,)
    elif faces == HAND_SIZE:
        category = Category.SANGONG
        if rules.sangong_tie is SangongTie.CARD_BY_CARD:
            tail = (*(i // 4 for i in idx), top % 4)
        else:
            tail = (top,)
    else:
        category = Category.POINTS
        tail = (points, faces, top)
    level = _CATEGORY_LEVEL[category]
    return Hand(cards, category, points, faces, rules.multiplier(category, points), (level, *tail))


def banker_wins(banker: Hand, player: Hand, rules: HandRules) -> bool:
    """Whether the banker beats the player (banker versus each player, 比牌).

    Both with 0 points under ``zero_points_banker_wins``: the banker. Two hands of one
    deck never have equal keys (the highest card decides last, and it is one physical
    card); were they equal, the banker would win, as on the one standoff rule the seeds
    give."""
    if rules.zero_points_banker_wins and banker.zero_points and player.zero_points:
        return True
    return banker.key >= player.key
