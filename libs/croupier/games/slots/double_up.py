"""The double-up game (加倍玩法) of 多财多福.

Source: ``000_d16ad353ba467b8a.txt``, 多财多福规则, 1、游戏流程 3-8.

After a winning spin the win W is the double-up's stake. The player either collects
(收分: W is theirs, back to the reels) or guesses 童男 (``boy``) or 童女 (``girl``) at a
multiple ``times`` of 1 (no 加倍), 2, 3 or 5: the stake becomes ``times x W``, the
``(times - 1) x W`` beyond the win coming from the player's balance (5). The dealer rolls
one two-faced die (1 = 童男, 2 = 童女). A right guess doubles the stake: W becomes
``2 x times x W`` and the player chooses again; a wrong one loses the stake and ends
the double-up (6). After the 8th right guess the win is collected automatically (8),
and so it is when the player is idle for 15 s (the dealer's timeout: the engine's
``auto_action`` collects) or the balance is short (7): read as the balance not
covering the top-up of the smallest multiple above 1, i.e. below W; the alternative
reading (×1 needs no balance, so never collect for a short balance) changes no money
figure, only when the player may still guess.

Fairness: each guess is right with probability 1/2 and pays 2 for 1, so a guess
returns exactly its stake on average (RTP 1, :func:`guess_rtp`); whatever the player
does in the double-up, the house's expected profit stays the spin's edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from croupier.errors import ConfigError


class Pick(Enum):
    BOY = "boy"  # 童男
    GIRL = "girl"  # 童女


DIE_FACES = (2,)
_DRAWN = {1: Pick.BOY, 2: Pick.GIRL}


def drawn(die: int) -> Pick:
    """What the double-up die shows: 1 = 童男, 2 = 童女."""
    return _DRAWN[die]


@dataclass(frozen=True, slots=True)
class DoubleUp:
    enabled: bool
    multiples: tuple[int, ...]
    max_wins: int
    idle_seconds: int
    collect_when_short: bool

    def __post_init__(self) -> None:
        if not self.multiples or 1 not in self.multiples or any(m < 1 for m in self.multiples):
            raise ConfigError("slots: double-up multiples must include 1 and be >= 1")
        if len(set(self.multiples)) != len(self.multiples) or self.max_wins < 1:
            raise ConfigError("slots: double-up multiples unique, max_wins >= 1")

    def top_up(self, win: int, times: int) -> int:
        """What a guess at ``times`` takes from the balance beyond the win."""
        return (times - 1) * win

    def short(self, balance: int, win: int) -> bool:
        """The balance cannot cover the smallest multiple above 1 (auto-collect, 7)."""
        above = [m for m in self.multiples if m > 1]
        return self.collect_when_short and bool(above) and self.top_up(win, min(above)) > balance


def double_up_from_config(raw: Mapping[str, object]) -> DoubleUp:
    try:
        d = raw["double_up"]
        assert isinstance(d, Mapping)
        return DoubleUp(
            enabled=bool(d["enabled"]),
            multiples=tuple(int(m) for m in d["multiples"]),
            max_wins=int(d["max_wins"]),
            idle_seconds=int(d["idle_seconds"]),
            collect_when_short=bool(d["collect_when_short"]),
        )
    except (KeyError, TypeError, ValueError, AssertionError) as e:
        raise ConfigError(f"slots config double_up: {e!r}") from e


def guess_rtp() -> Fraction:
    """Return per unit staked on one guess: right on one face of two, paid 2 for 1."""
    faces = DIE_FACES[0]
    right = sum(1 for die in range(1, faces + 1) if drawn(die) is Pick.BOY)
    return Fraction(right, faces) * 2
