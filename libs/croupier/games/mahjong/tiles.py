"""Mahjong tiles as indices, and the few facts about them the rules need.

Notation (README.md conventions): ``1m-9m`` 万, ``1p-9p`` 筒, ``1s-9s`` 条, ``1z-7z`` = East, South,
West, North, White (白), Green (发), Red (中). Inside the engine a tile is an index
``0..33``: 万 0-8, 筒 9-17, 条 18-26, honours 27-33; a hand is a list of 34 counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from croupier.cards import parse_tile
from croupier.errors import NotationError

SUITS = ("m", "p", "s")
N_TILES = 34
SUITED = tuple(range(27))
HONOURS = tuple(range(27, 34))
WINDS = (27, 28, 29, 30)  # 1z-4z: East South West North
DRAGONS = (31, 32, 33)  # 5z-7z: White Green Red
TERMINALS = tuple(i for i in SUITED if i % 9 in (0, 8))
ORPHANS = (*TERMINALS, *HONOURS)  # 幺九: the thirteen kinds of 十三幺

# 000_d16ad353ba467b8a.txt, 广东麻将推倒胡, 鬼牌: the ghost is the indicator + 1 "in the
# order 1~9, 东南西北中发白"; the honours run East South West North 中(7z) 发(6z) 白(5z)
# and back to East (one cycle of seven, as written).
HONOUR_CYCLE = (27, 28, 29, 30, 33, 32, 31)


def tile_index(name: str) -> int:
    """``"5p"`` → 13. Raises :class:`NotationError` for anything but a tile."""
    i = _INDEX.get(name) if type(name) is str else None  # the 34 names as written
    if i is not None:
        return i
    t = parse_tile(name)
    n, s = int(t[0]), t[1]
    if s == "z":
        return 26 + n
    return "mps".index(s) * 9 + n - 1


_INDEX: dict[str, int] = {
    f"{n}{s}": k * 9 + n - 1 for k, s in enumerate(SUITS) for n in range(1, 10)
}
_INDEX.update({f"{n}z": 26 + n for n in range(1, 8)})


def tile_name(i: int) -> str:
    if not 0 <= i < N_TILES:
        raise NotationError(f"{i} is not a tile index")
    if i >= 27:
        return f"{i - 26}z"
    return f"{i % 9 + 1}{SUITS[i // 9]}"


def suit_of(i: int) -> str:
    """``m``, ``p``, ``s`` or ``z``."""
    return "z" if i >= 27 else SUITS[i // 9]


def is_terminal_or_honour(i: int) -> bool:
    return i >= 27 or i % 9 in (0, 8)


def counts_of(tiles: Iterable[int]) -> list[int]:
    c = [0] * N_TILES
    for t in tiles:
        c[t] += 1
    return c


def parse_tiles(text: str | Sequence[str]) -> list[int]:
    """``"123m 55p"`` or ``["1m", "2m"]`` → indices. The compact form groups digits
    before a suit letter (``"123m"`` = 1m 2m 3m)."""
    if not isinstance(text, str):
        return [tile_index(t) for t in text]
    out: list[int] = []
    digits = ""
    for ch in text.replace(",", " "):
        if ch.isdigit():
            digits += ch
        elif ch in "mpsz":
            if not digits:
                raise NotationError(f"{text!r}: suit {ch!r} without numbers")
            out += [tile_index(d + ch) for d in digits]
            digits = ""
        elif not ch.isspace():
            raise NotationError(f"{text!r} is not a list of tiles")
    if digits:
        raise NotationError(f"{text!r}: numbers without a suit")
    return out


def names(tiles: Iterable[int]) -> list[str]:
    return [tile_name(t) for t in tiles]


def ghost_of(indicator: int) -> int:
    """The ghost (鬼牌) for a turned-up indicator: the next tile, 9 → 1 within a suit."""
    if indicator < 27:
        return indicator - indicator % 9 + (indicator % 9 + 1) % 9
    k = HONOUR_CYCLE.index(indicator)
    return HONOUR_CYCLE[(k + 1) % len(HONOUR_CYCLE)]
