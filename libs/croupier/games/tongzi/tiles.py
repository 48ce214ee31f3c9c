"""The 筒子 tiles and the two-tile hands of 二八杠 and 推筒子: one evaluator, one ranking,
every difference between the games a value of :class:`TileRules`.

The tile set (``tongzi40``): ``1p``-``9p`` (一筒 ... 九筒) and ``5z`` (白板), four of each,
40 tiles (000_d16ad353ba467b8a.txt, 二八杠 用牌 and 推筒子游戏规则 一、牌型介绍;
001_5f10773fec037198.txt, first section 用牌).

A hand is two tiles. Its class, highest first:

1. a **pair** (对子 / 豹子): two identical tiles, ranked by the tile, 白板 highest, then
   九筒 ... 一筒. 二八杠 names the 白板 pair 天王 and lists it above every other pair
   (000, 二八杠 牌型大小: 天王 > 对子); 推筒子 calls every pair 豹子 and ranks single
   tiles 白板 > 九筒 > ... > 一筒 (比牌说明 3), which gives the same order;
2. **二八杠**: 二筒 + 八筒, below every pair and above every point hand (000 二八杠 牌型大小;
   推筒子 比牌说明 1; 001 first section: 二筒配八筒 is the best hand after the pairs);
3. a **point hand**: the two tiles' points added, counted modulo 10 (one-digit
   points), higher better; 0 points is 鳖十, the lowest hand of 二八杠. Tiles count their
   number of 筒; 白板 counts :attr:`TileRules.white_points` (0 in both games, see the
   variant configs).

Hands of the same class and points: with :attr:`SamePoints.HIGH_TILE` the hand whose
higher tile ranks higher wins (推筒子 比牌说明 3, single tiles 白板 > 九筒 > ... > 一筒);
hands equal after that hold the same tiles. With :attr:`SamePoints.EQUAL` equal
points are equal hands. What an equal hand means (the banker wins, or a split) is the
game's rule, not the evaluator's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from croupier.cards import TILES_TONGZI
from croupier.errors import ConfigError, NotationError
from croupier.games.common import plain_fraction
from croupier.games.memo import recall

WHITE = "5z"
"""白板."""
TILES: tuple[str, ...] = TILES_TONGZI
"""The ten tile kinds, ``1p`` ... ``9p`` and ``5z``."""
COPIES = 4
"""Copies of each kind in the 40-tile set."""
ERBA = frozenset({"2p", "8p"})

_TILE_SET = frozenset(TILES)


def parse_tile(text: object) -> str:
    """Validate one 筒子 tile (``1p`` ... ``9p``, ``5z`` for 白板; case-insensitive)."""
    if isinstance(text, str):
        t = text.strip().lower()
        if t in _TILE_SET:
            return t
    raise NotationError(f"{text!r} is not a 筒子 tile (1p-9p, or 5z for 白板)")


def parse_hand(tiles: Sequence[object]) -> tuple[str, str]:
    """Two tiles; each kind at most four times is the caller's concern."""
    if len(tiles) != 2:
        raise NotationError(f"a hand is two tiles, got {len(tiles)}")
    a, b = (parse_tile(t) for t in tiles)
    return a, b


def tile_rank(tile: str) -> int:
    """Single-tile order: 一筒 1 ... 九筒 9, 白板 10 (推筒子 比牌说明 3)."""
    return 10 if tile == WHITE else int(tile[0])


class Category(StrEnum):
    """Hand classes, highest first. ``white_pair`` is 二八杠's 天王."""

    WHITE_PAIR = "white_pair"
    PAIR = "pair"
    ERBA = "erba"
    POINTS = "points"
    ZERO = "zero"


class SamePoints(StrEnum):
    """How two point hands with equal points compare."""

    HIGH_TILE = "high_tile"
    EQUAL = "equal"


_CLASS_RANK = {
    Category.WHITE_PAIR: 3,
    Category.PAIR: 3,
    Category.ERBA: 2,
    Category.POINTS: 1,
    Category.ZERO: 1,
}


@dataclass(frozen=True, slots=True)
class PairHand:
    """An evaluated two-tile hand. ``key`` orders hands: the higher key wins, equal keys
    are equal hands."""

    tiles: tuple[str, str]
    category: Category
    points: Fraction
    key: tuple[int, Fraction, int]
    name: str

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "tiles": list(self.tiles),
            "category": self.category.value,
            "name": self.name,
            "points": plain_fraction(self.points),
        }


@dataclass(frozen=True, slots=True)
class TileRules:
    """The variant's reading of the tiles: 白板's points, how equal points compare and
    the names the game gives its classes (``{points}`` is replaced by the points)."""

    white_points: Fraction = Fraction(0)
    same_points: SamePoints = SamePoints.HIGH_TILE
    names: tuple[tuple[Category, str], ...] = ()
    evaluated: dict[tuple[str, ...], PairHand] = field(
        init=False, compare=False, hash=False, repr=False
    )
    """Hands evaluated under these rules (:meth:`evaluate`)."""

    def __post_init__(self) -> None:
        if not 0 <= self.white_points < 1:
            raise ConfigError(f"白板 points must be in [0, 1), got {self.white_points}")
        given = dict(self.names)
        object.__setattr__(self, "names", tuple((c, given.get(c, c.value)) for c in Category))
        object.__setattr__(self, "evaluated", {})

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> TileRules:
        """From a variant config's ``tiles`` object."""
        try:
            t = raw["tiles"]
            names = tuple((Category(k), str(v)) for k, v in t.get("names", {}).items())
            return cls(
                white_points=Fraction(str(t["white_points"])),
                same_points=SamePoints(str(t["same_points"])),
                names=names,
            )
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            raise ConfigError(f"tiles config: {e!r}") from e

    def point_value(self, tile: str) -> Fraction:
        return self.white_points if tile == WHITE else Fraction(int(tile[0]))

    def name_of(self, category: Category, points: Fraction) -> str:
        return dict(self.names)[category].replace("{points}", plain_fraction(points))

    def evaluate(self, tiles: Sequence[str]) -> PairHand:
        """Evaluate two tiles (already valid); remembered (:func:`~croupier.games.memo.
        recall`: at most 100 pairs in order)."""
        return recall(self.evaluated, tuple(tiles), self._evaluate)

    def _evaluate(self, tiles: tuple[str, ...]) -> PairHand:
        a, b = sorted(tiles, key=tile_rank, reverse=True)
        hi = tile_rank(a)
        points = (self.point_value(a) + self.point_value(b)) % 10
        key: tuple[int, Fraction, int]
        if a == b:
            cat = Category.WHITE_PAIR if a == WHITE else Category.PAIR
            key = (_CLASS_RANK[cat], Fraction(hi), 0)
        elif {a, b} == ERBA:
            cat = Category.ERBA
            key = (_CLASS_RANK[cat], Fraction(0), 0)
        else:
            cat = Category.POINTS if points else Category.ZERO
            tie = hi if self.same_points is SamePoints.HIGH_TILE else 0
            key = (_CLASS_RANK[cat], points, tie)
        return PairHand((a, b), cat, points, key, self.name_of(cat, points))

    def compare(self, x: Sequence[str], y: Sequence[str]) -> int:
        """1 if ``x`` beats ``y``, -1 if ``y`` beats ``x``, 0 if they are equal."""
        kx, ky = self.evaluate(x).key, self.evaluate(y).key
        return (kx > ky) - (kx < ky)


def kind_pairs() -> list[tuple[tuple[str, str], int]]:
    """Every unordered pair of tile kinds and how many two-tile hands of the 40 make it
    (C(4,2) = 6 for a pair, 4 x 4 = 16 otherwise); the counts add up to C(40,2) = 780."""
    out: list[tuple[tuple[str, str], int]] = []
    for i, a in enumerate(TILES):
        for b in TILES[i:]:
            out.append(((a, b), 6 if a == b else COPIES * COPIES))
    return out
