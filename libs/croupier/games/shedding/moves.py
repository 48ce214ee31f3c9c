"""The shedding move engine for 斗地主 (``000_d16ad353ba467b8a.txt``: 斗地主 1.3 出牌牌型及
大小比较, 加倍斗地主 1.2; ``004_5b64d410fb5765b6.txt``: 三人斗地主规则 6、牌型 and 7、牌型的
大小) and 百变双扣 (004, 百变双扣游戏规则 1、名词术语 and 3、牌型): which moves a set of
cards can be read as, and which move beats which. One detector, one comparison and one
generator (:mod:`.generator`) for all four variants; :class:`MoveRules` (the config's
``moves``) holds every difference - the kinds allowed, the wild card (双扣's 财神), bomb
sizes, chain minimums, how chains and bombs compare.

Ranks by value: 3..K = 3..13, A = 14, 2 = 15, BJ (小王) = 16, RJ (大王) = 17. Chains
(单顺, 双顺, 三顺 and the body of 飞机带翅膀) run from 3 to at most A, so never through 2
or a joker.

A set of cards may read as several moves (333444555666 is a 三顺 of four trios and, twice,
an airplane of three trios with three single wings), so a play declares its reading: a
:class:`Shape` (kind, key rank, chain length). The key is the lowest rank of a chain and
the main rank (the trio, the four) otherwise. A play must be one of the cards' readings and
beat the table's by :func:`beats`.

Readings this module takes where the seeds say less than a rule needs (pinned in the
tests):

* wings and kickers (三带一/三带二, 飞机带翅膀, 四带二) never share a rank with the body
  they go with (3333 is a bomb, not 333 with a 3); two single kickers may be a pair
  (5555+33 reads as 四带二 with two singles) and the two jokers may be kickers;
* 三人斗地主 (004) compares chains by their highest card, 000 by the lowest; two chains
  compare only at the same length, where both orders agree (``chain_key``);
* 004's 三带一 with "一张单牌或一对牌" is 000's 三带一 plus 三带二: a trio with a pair only
  beats a trio with a pair (004 7、牌型的大小: same kind and same number of cards);
* 双扣: the wild card stands for any card of 3..2 in a combination, never for a joker; a
  set of jokers only is jokers (a pair of big jokers is the highest pair, three or four
  jokers are 三王/天王); a chain of bombs runs 3..A like the other chains, and its X相 is
  the thickest the thinnest link can be made with the wild cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise
from typing import Any

from croupier.cards import parse_card
from croupier.errors import ActionRejected, ConfigError, InvalidInput, NotationError

RANK_VALUE: dict[str, int] = {
    **{r: i + 3 for i, r in enumerate("3456789TJQK")},
    "A": 14,
    "2": 15,
    "BJ": 16,
    "RJ": 17,
}
VALUE_RANK: dict[int, str] = {v: r for r, v in RANK_VALUE.items()}
ACE = 14
TWO = 15
SMALL_JOKER = 16
BIG_JOKER = 17


class Kind(StrEnum):
    SINGLE = "single"  # 单牌 / 单张
    PAIR = "pair"  # 对牌 / 对子
    TRIO = "trio"  # 三条 / 三张
    TRIO_SINGLE = "trio_single"  # 三带一
    TRIO_PAIR = "trio_pair"  # 三带二 (004: 三带一 with a pair)
    STRAIGHT = "straight"  # 单顺 / 顺子
    PAIR_STRAIGHT = "pair_straight"  # 双顺 / 连对
    TRIO_STRAIGHT = "trio_straight"  # 三顺 / 连三张
    AIRPLANE_SINGLES = "airplane_singles"  # 飞机带翅膀, single wings
    AIRPLANE_PAIRS = "airplane_pairs"  # 飞机带翅膀, pair wings
    FOUR_TWO_SINGLES = "four_two_singles"  # 四带二, two singles
    FOUR_TWO_PAIRS = "four_two_pairs"  # 四带二, two pairs
    BOMB = "bomb"  # 炸弹 (双扣: X相, X >= 4 cards)
    ROCKET = "rocket"  # 火箭 (斗地主)
    BOMB_CHAIN = "bomb_chain"  # 连炸 (双扣: X相Y连, Y >= 3)
    JOKERS = "jokers"  # 三王炸弹 / 天王炸弹 (双扣: 3 or 4 jokers)


CHAINS = frozenset(
    {
        Kind.STRAIGHT,
        Kind.PAIR_STRAIGHT,
        Kind.TRIO_STRAIGHT,
        Kind.AIRPLANE_SINGLES,
        Kind.AIRPLANE_PAIRS,
        Kind.BOMB_CHAIN,
    }
)
BOMBS = frozenset({Kind.BOMB, Kind.ROCKET, Kind.BOMB_CHAIN, Kind.JOKERS})
KICKERS = frozenset(
    {
        Kind.TRIO_SINGLE,
        Kind.TRIO_PAIR,
        Kind.AIRPLANE_SINGLES,
        Kind.AIRPLANE_PAIRS,
        Kind.FOUR_TWO_SINGLES,
        Kind.FOUR_TWO_PAIRS,
    }
)
DOUDIZHU_KINDS = frozenset(Kind) - {Kind.BOMB_CHAIN, Kind.JOKERS}
SHUANGKOU_KINDS = frozenset(
    {
        Kind.SINGLE,
        Kind.PAIR,
        Kind.TRIO,
        Kind.STRAIGHT,
        Kind.PAIR_STRAIGHT,
        Kind.TRIO_STRAIGHT,
        Kind.BOMB,
        Kind.BOMB_CHAIN,
        Kind.JOKERS,
    }
)
PER_LINK = {
    Kind.STRAIGHT: 1,
    Kind.PAIR_STRAIGHT: 2,
    Kind.TRIO_STRAIGHT: 3,
    Kind.AIRPLANE_SINGLES: 4,
    Kind.AIRPLANE_PAIRS: 5,
}


class BombOrder(StrEnum):
    RANK = "rank"  # 斗地主: bombs by rank, the rocket above all
    STARS = "stars"  # 双扣: by star level, then fewer cards, then the highest rank


@dataclass(frozen=True, slots=True)
class MoveRules:
    """The move rules of a variant (``moves`` in its config)."""

    min_straight: int = 5
    min_pair_straight: int = 3
    min_trio_straight: int = 2
    chain_key: str = "lowest"  # 000: 比较顺子起始张; 004: 顺牌按最大的一张牌
    kinds: frozenset[Kind] = DOUDIZHU_KINDS
    wild: str | None = None  # 双扣: the big joker (财神) stands for any card in a combination
    max_bomb: int | None = 4  # most cards in a one-rank bomb (None: no limit)
    min_bomb_chain: int = 3
    bomb_order: BombOrder = BombOrder.RANK

    def __post_init__(self) -> None:
        if self.chain_key not in ("lowest", "highest"):
            raise ConfigError(f"moves.chain_key is 'lowest' or 'highest', not {self.chain_key!r}")
        if min(self.min_straight, self.min_pair_straight, self.min_trio_straight) < 2:
            raise ConfigError("chains need at least two links")
        if self.wild is not None and self.kinds & KICKERS:
            raise ConfigError("moves: a wild card with kickers is not supported")
        if self.wild not in (None, "RJ", "BJ"):
            raise ConfigError(f"moves.wild is a joker or null, not {self.wild!r}")

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> MoveRules:
        try:
            kinds = raw.get("kinds")
            max_bomb = raw.get("max_bomb", 4)
            return cls(
                min_straight=int(raw["min_straight"]),
                min_pair_straight=int(raw["min_pair_straight"]),
                min_trio_straight=int(raw["min_trio_straight"]),
                chain_key=str(raw["chain_key"]),
                kinds=DOUDIZHU_KINDS if kinds is None else frozenset(Kind(k) for k in kinds),
                wild=raw.get("wild"),
                max_bomb=None if max_bomb is None else int(max_bomb),
                min_bomb_chain=int(raw.get("min_bomb_chain", 3)),
                bomb_order=BombOrder(str(raw.get("bomb_order", "rank"))),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"moves config: {e!r}") from e

    def min_links(self, unit: int) -> int:
        return {1: self.min_straight, 2: self.min_pair_straight, 3: self.min_trio_straight}[unit]


CLASSIC = MoveRules()
SHUANGKOU = MoveRules(
    min_trio_straight=3,
    chain_key="highest",
    kinds=SHUANGKOU_KINDS,
    wild="RJ",
    max_bomb=None,
    bomb_order=BombOrder.STARS,
)


_FIXED_SIZE = {
    Kind.SINGLE: 1,
    Kind.PAIR: 2,
    Kind.TRIO: 3,
    Kind.TRIO_SINGLE: 4,
    Kind.TRIO_PAIR: 5,
    Kind.FOUR_TWO_SINGLES: 6,
    Kind.FOUR_TWO_PAIRS: 8,
    Kind.ROCKET: 2,
}


@dataclass(frozen=True, slots=True, order=True)
class Shape:
    """A reading of a set of cards: its kind, key rank value (the lowest link of a
    chain, the main rank otherwise), chain length (links; 1 otherwise), width (cards in
    a bomb, or in the thinnest link of a chain of bombs, 双扣's X相; jokers in a joker
    bomb) and size (cards). Width and size follow from the rest where they can."""

    kind: Kind
    key: int
    length: int = 1
    width: int = 0
    size: int = 0

    def __post_init__(self) -> None:
        width, size = self.width, self.size
        if self.kind is Kind.BOMB:
            width = width or 4
            size = width
        elif self.kind is Kind.JOKERS:
            size = width
        elif self.kind in PER_LINK:
            size = PER_LINK[self.kind] * self.length
        elif self.kind in _FIXED_SIZE:
            size = _FIXED_SIZE[self.kind]
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "size", size)

    @property
    def rank(self) -> str:
        return VALUE_RANK[self.key]

    def to_json(self) -> dict[str, Any]:
        """The declared move in a play's args: ``{"move": kind, "rank": key rank}``
        (the chain length follows from the cards)."""
        return {"move": self.kind.value, "rank": self.rank}

    def text(self) -> str:
        out = f"{self.kind.value}:{self.rank}"
        if self.kind in CHAINS:
            out += f"x{self.length}"
        if self.kind in (Kind.BOMB, Kind.BOMB_CHAIN) and self.width != 4:
            out += f"w{self.width}"
        return out


@dataclass(frozen=True, slots=True)
class Play:
    """Cards played and the move they are declared as."""

    shape: Shape
    cards: tuple[str, ...]

    def args(self) -> dict[str, Any]:
        return {"cards": list(self.cards), **self.shape.to_json()}


def value_of(card: str) -> int:
    """Rank value of a card (``As`` -> 14, ``2h`` -> 15, ``BJ`` -> 16)."""
    if card in ("BJ", "RJ"):
        return RANK_VALUE[card]
    return RANK_VALUE[card[0]]


def counts(cards: Iterable[str]) -> Counter[int]:
    return Counter(value_of(c) for c in cards)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards by value, then suit (s h d c), the way a hand is shown."""
    return sorted(cards, key=lambda c: (value_of(c), "shdcJ".find(c[1])))


def _consecutive(values: Sequence[int]) -> bool:
    return all(b == a + 1 for a, b in pairwise(values))


def _kicker_readings(c: Counter[int], n: int, rules: MoveRules) -> set[Shape]:
    """三带一/三带二, 四带二 and 飞机带翅膀 (斗地主; no wild card)."""
    out: set[Shape] = set()
    for r in sorted(c):
        rest = c - Counter({r: c[r]})
        rest_n = n - c[r]
        if c[r] == 3:
            if rest_n == 1:
                out.add(Shape(Kind.TRIO_SINGLE, r))
            if rest_n == 2 and len(rest) == 1:
                out.add(Shape(Kind.TRIO_PAIR, r))
        if c[r] == 4:
            if rest_n == 2:
                out.add(Shape(Kind.FOUR_TWO_SINGLES, r))
            if rest_n == 4 and all(k % 2 == 0 for k in rest.values()):
                out.add(Shape(Kind.FOUR_TWO_PAIRS, r))
    for length in range(rules.min_trio_straight, n // 4 + 1):
        for kind, per in ((Kind.AIRPLANE_SINGLES, 1), (Kind.AIRPLANE_PAIRS, 2)):
            if n != (3 + per) * length:
                continue
            for start in range(3, ACE - length + 2):
                body = range(start, start + length)
                if any(c[v] != 3 for v in body):
                    continue
                wings = c - Counter(dict.fromkeys(body, 3))
                if per == 1 or all(k % 2 == 0 for k in wings.values()):
                    out.add(Shape(kind, start, length))
    return {x for x in out if x.kind in rules.kinds}


def _joker_readings(c: Counter[int], n: int, rules: MoveRules) -> set[Shape]:
    """Sets of jokers only: a single, a pair of one joker, the rocket, 三王/天王."""
    out: set[Shape] = set()
    if n == 1:
        out.add(Shape(Kind.SINGLE, max(c)))
    elif n == 2 and len(c) == 1:
        out.add(Shape(Kind.PAIR, max(c)))
    elif n == 2:
        out.add(Shape(Kind.ROCKET, BIG_JOKER))
    elif n in (3, 4):
        out.add(Shape(Kind.JOKERS, BIG_JOKER, 1, n))
    return out


def _best_width(c: Counter[int], links: range, wilds: int) -> int:
    """The widest X every link of ``links`` can reach with ``wilds`` filling in."""
    x = 4
    while sum(max(0, x + 1 - c[v]) for v in links) <= wilds:
        x += 1
    return x


def readings(cards: Sequence[str], rules: MoveRules = CLASSIC) -> list[Shape]:
    """Every move ``cards`` can be read as under ``rules`` (empty: not a legal move),
    sorted. With a wild card (双扣's 财神) in a combination, it stands for whatever card
    the reading needs (never a joker); alone, or among jokers only, it is itself.

    Remembered by the cards in their order and the rules (a bounded memory): a play is
    read by its check and again by its move, and a replay reads every play again."""
    return list(_readings(tuple(cards), rules))


@lru_cache(maxsize=4_096)
def _readings(cards: tuple[str, ...], rules: MoveRules) -> tuple[Shape, ...]:
    return tuple(_read(cards, rules))


def _read(cards: Sequence[str], rules: MoveRules) -> list[Shape]:
    n = len(cards)
    if n == 0:
        return []
    wild = rules.wild
    all_c = counts(cards)
    out: set[Shape] = set()
    if all(v >= SMALL_JOKER for v in all_c):
        out = _joker_readings(all_c, n, rules)
        return sorted(x for x in out if x.kind in rules.kinds)
    w = sum(1 for x in cards if x == wild) if wild is not None else 0
    c = counts(x for x in cards if x != wild) if w else all_c
    vals = sorted(c)
    lo, hi = vals[0], vals[-1]
    if len(c) == 1:
        k = n
        if k == 1:
            out.add(Shape(Kind.SINGLE, hi))
        elif k == 2:
            out.add(Shape(Kind.PAIR, hi))
        elif k == 3:
            out.add(Shape(Kind.TRIO, hi))
        elif k >= 4 and (rules.max_bomb is None or k <= rules.max_bomb):
            out.add(Shape(Kind.BOMB, hi, 1, k))
    if hi <= ACE:
        for unit, kind in ((1, Kind.STRAIGHT), (2, Kind.PAIR_STRAIGHT), (3, Kind.TRIO_STRAIGHT)):
            if n % unit or any(k > unit for k in c.values()):
                continue
            length = n // unit
            if length < rules.min_links(unit):
                continue
            for start in range(max(3, hi - length + 1), min(lo, ACE - length + 1) + 1):
                out.add(Shape(kind, start, length))
        if Kind.BOMB_CHAIN in rules.kinds:
            length = hi - lo + 1
            links = range(lo, hi + 1)
            need = sum(max(0, 4 - c[v]) for v in links)
            if length >= rules.min_bomb_chain and need <= w:
                out.add(Shape(Kind.BOMB_CHAIN, lo, length, _best_width(c, links, w), n))
    if not w:
        out |= _kicker_readings(c, n, rules)
    return sorted(x for x in out if x.kind in rules.kinds)


def stars(shape: Shape) -> int:
    """双扣 star level (星级) of a bomb: X相 = X; X相Y连 = X + Y; 三王 6, 天王 7; 0 for
    anything else (004 百变双扣游戏规则 3、牌型)."""
    if shape.kind is Kind.BOMB:
        return shape.width
    if shape.kind is Kind.BOMB_CHAIN:
        return shape.width + shape.length
    if shape.kind is Kind.JOKERS:
        return 6 if shape.width == 3 else 7
    return 0


def compare_key(shape: Shape, rules: MoveRules = CLASSIC) -> int:
    """The rank a shape is compared by: its key, or its highest link for chains when the
    variant compares chains by their highest card."""
    if shape.kind in CHAINS and rules.chain_key == "highest":
        return shape.key + shape.length - 1
    return shape.key


def bomb_power(shape: Shape, rules: MoveRules = SHUANGKOU) -> tuple[int, int, int, int]:
    """双扣 bombs in order: star level; among equals 天王 first and 三王 last; then fewer
    cards; then the highest rank (004 百变双扣游戏规则 牌型的大小 炸弹 and 特殊)."""
    tier = 0
    if shape.kind is Kind.JOKERS:
        tier = 1 if shape.width == 4 else -1
    return (stars(shape), tier, -shape.size, compare_key(shape, rules))


def beats(new: Shape, old: Shape, rules: MoveRules = CLASSIC) -> bool:
    """Whether ``new`` may follow ``old``. 斗地主: the rocket beats everything; a bomb
    beats any non-bomb and a lower bomb (000 斗地主 1.3.2, 004 7、牌型的大小). 双扣: a
    bomb beats any non-bomb; bombs by :func:`bomb_power`. Otherwise the same kind of the
    same size and a higher key."""
    new_bomb, old_bomb = new.kind in BOMBS, old.kind in BOMBS
    if rules.bomb_order is BombOrder.STARS:
        if new_bomb:
            return not old_bomb or bomb_power(new, rules) > bomb_power(old, rules)
        if old_bomb:
            return False
    else:
        if old.kind is Kind.ROCKET:
            return False
        if new.kind is Kind.ROCKET:
            return True
        if new.kind is Kind.BOMB:
            return old.kind is not Kind.BOMB or new.key > old.key
    if new.kind != old.kind or new.size != old.size:
        return False
    return compare_key(new, rules) > compare_key(old, rules)


def holds(hand: Sequence[str], cards: Sequence[str]) -> bool:
    """Whether ``hand`` holds every card of ``cards``, as often as they list it."""
    return all(cards.count(c) <= hand.count(c) for c in set(cards))


def parse_shape(args: Mapping[str, Any], n_cards: int) -> Shape:
    """The declared move of a play's args (``move``, ``rank``), its chain length worked
    out from the number of cards (a chain of bombs: 0, any)."""
    try:
        move = str(args["move"])
        found = _KINDS.get(move)
        kind = Kind(move) if found is None else found  # Kind() words a refusal
        key = RANK_VALUE[str(args["rank"]).upper()]
    except (KeyError, ValueError) as e:
        raise ActionRejected(
            f"a play declares its move (one of {[k.value for k in Kind]}) and its rank "
            f"(3-9 T J Q K A 2 BJ RJ): {e}",
            reason="bad_move",
        ) from e
    length = 1
    if kind in PER_LINK:
        length = max(1, n_cards // PER_LINK[kind])
    elif kind is Kind.BOMB_CHAIN:
        length = 0
    return Shape(kind, key, length)


_KINDS = {k.value: k for k in Kind}


def _matches(declared: Shape, reading: Shape) -> bool:
    return (
        declared.kind == reading.kind
        and declared.key == reading.key
        and declared.length in (0, reading.length)
    )


def check_play(
    cards: Sequence[str], declared: Shape, table: Shape | None, rules: MoveRules = CLASSIC
) -> Shape:
    """The reading of ``cards`` as ``declared`` (kind, key, chain length), if it may be
    played on ``table`` (None: the player leads); else :class:`ActionRejected`."""
    found = readings(cards, rules)
    if not found:
        raise ActionRejected(
            f"{' '.join(sort_cards(cards))} is not a legal move", reason="illegal_move"
        )
    match = next((r for r in found if _matches(declared, r)), None)
    if match is None:
        raise ActionRejected(
            f"{' '.join(sort_cards(cards))} does not read as {declared.text()}; it reads as "
            + ", ".join(s.text() for s in found),
            reason="wrong_reading",
        )
    if table is not None and not beats(match, table, rules):
        raise ActionRejected(
            f"{match.text()} does not beat {table.text()} on the table",
            reason="does_not_beat",
        )
    return match


def parse_play_cards(raw: object) -> list[str]:
    """The ``cards`` of a play: a non-empty list of canonical card strings."""
    if not isinstance(raw, list) or not raw:
        raise ActionRejected("a play lists its cards", reason="malformed")
    out = []
    for x in raw:
        try:
            card = parse_card(str(x))
        except NotationError as e:
            raise ActionRejected(e.message, reason="bad_card") from e
        if card != x:
            raise ActionRejected(f"{x!r} is not a card in canonical form", reason="bad_card")
        out.append(card)
    return out


def describe_moves(
    action: str,
    hands: Sequence[Sequence[str]],
    rules: MoveRules,
    copies: int,
    too_many: str,
    extra: Callable[[list[Shape]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``croupier rules`` for a shedding game. ``eval CARDS..``: every reading of each
    set of cards (and the ``extra`` fields of its readings); ``compare TABLE PLAY``:
    whether a reading of the second beats a reading of the first. A set holds each card
    at most ``copies`` times (:class:`InvalidInput` ``too_many`` otherwise)."""
    try:
        sets = [[parse_card(c) for c in h] for h in hands]
    except InvalidInput as e:
        raise InvalidInput(e.message) from e
    for s in sets:
        if any(v > copies for v in Counter(s).values()):
            raise InvalidInput(too_many)
    read = [readings(s, rules) for s in sets]
    rows = [
        {"cards": sort_cards(s), "moves": [x.text() for x in rs], **(extra(rs) if extra else {})}
        for s, rs in zip(sets, read, strict=True)
    ]
    if action == "eval":
        return {"hands": rows}
    if action != "compare":
        raise InvalidInput(f"unknown rules action {action!r}")
    if len(sets) != 2 or not read[0] or not read[1]:
        raise InvalidInput("compare takes two legal moves: the table's and the play")
    wins = [[a.text(), b.text()] for a in read[0] for b in read[1] if beats(b, a, rules)]
    return {"hands": rows, "beats": bool(wins), "readings_that_beat": wins}
