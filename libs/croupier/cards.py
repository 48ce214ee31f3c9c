"""Cards, tiles and dice in the project's notation, and the ordered sets shuffled.

Cards: rank ``A23456789TJQK`` + suit ``s h d c`` (♠ ♥ ♦ ♣), e.g. ``As``, ``Td``; jokers
``BJ`` (small/black, 小王) and ``RJ`` (big/red, 大王). Mahjong tiles ``1m``-``9m``,
``1p``-``9p``, ``1s``-``9s``, honours ``1z``-``7z`` (E S W N, White, Green, Red).
Dice are integers 1-6.

A *deck spec* names an ordered set before shuffling: ``cards52``, ``cards54`` (with both
jokers), ``mahjong108`` (suited tiles only), ``mahjong136``, ``tongzi40`` (1p-9p and 5z,
four each, for 二八杠/推筒子), each times ``copies``. The canonical order is fixed here and
is part of the fair-dealing algorithm: changing it changes every deal, so it is versioned
with :data:`croupier.fair.ALGORITHM`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TypeGuard

from croupier.errors import NotationError

RANKS = "A23456789TJQK"
SUITS = "shdc"
JOKERS = ("BJ", "RJ")
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}

CARDS52: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARDS54: tuple[str, ...] = (*CARDS52, *JOKERS)
TILES_SUITED: tuple[str, ...] = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10))
TILES_HONOURS: tuple[str, ...] = tuple(f"{n}z" for n in range(1, 8))
TILES_TONGZI: tuple[str, ...] = (*(f"{n}p" for n in range(1, 10)), "5z")

_VALID_CARDS = frozenset(CARDS54)
_VALID_TILES = frozenset(TILES_SUITED + TILES_HONOURS)

_BASE: dict[str, tuple[str, ...]] = {
    "cards52": CARDS52,
    "cards54": CARDS54,
    "mahjong108": tuple(t for t in TILES_SUITED for _ in range(4)),
    "mahjong136": tuple(t for t in (*TILES_SUITED, *TILES_HONOURS) for _ in range(4)),
    "tongzi40": tuple(t for t in TILES_TONGZI for _ in range(4)),
}


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """What is shuffled: a base set and how many copies of it."""

    base: str = "cards52"
    copies: int = 1

    def __post_init__(self) -> None:
        if self.base not in _BASE:
            raise NotationError(f"unknown deck base {self.base!r}; one of {sorted(_BASE)}")
        if not 1 <= self.copies <= 16:
            raise NotationError(f"deck copies must be 1..16, got {self.copies}")

    @property
    def size(self) -> int:
        return len(_BASE[self.base]) * self.copies

    def ordered(self) -> tuple[str, ...]:
        return _ordered(self.base, self.copies)

    def to_json_dict(self) -> dict[str, object]:
        return {"base": self.base, "copies": self.copies}


@cache
def _ordered(base: str, copies: int) -> tuple[str, ...]:
    return _BASE[base] * copies


def parse_card(text: str) -> str:
    """Validate one card; accepts lower-case ranks (``ts``) and returns the canonical form."""
    t = text.strip()
    if t.upper() in JOKERS:
        return t.upper()
    if len(t) == 2:
        c = t[0].upper() + t[1].lower()
        if c in _VALID_CARDS:
            return c
    raise NotationError(f"{text!r} is not a card (rank A23456789TJQK + suit shdc, or BJ/RJ)")


def is_card(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a card written canonically (``parse_card(value) == value``),
    by one look-up."""
    return isinstance(value, str) and value in _VALID_CARDS


def parse_cards(text: str) -> list[str]:
    """``"As Td"`` or ``"AsTd"`` → ``["As", "Td"]``."""
    s = text.replace(",", " ").split()
    if len(s) == 1 and len(s[0]) > 2 and s[0].upper() not in JOKERS:
        s = [s[0][i : i + 2] for i in range(0, len(s[0]), 2)]
    return [parse_card(c) for c in s]


def parse_tile(text: str) -> str:
    t = text.strip().lower()
    if t in _VALID_TILES:
        return t
    raise NotationError(f"{text!r} is not a tile (1m-9m, 1p-9p, 1s-9s, 1z-7z)")


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    return card[1]


def pretty(card: str) -> str:
    if card in JOKERS:
        return card
    return card[0] + SUIT_SYMBOLS[card[1]]
