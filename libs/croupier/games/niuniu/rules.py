"""The Niuniu table rules a variant's config fixes: the mode of play, how the banker is
chosen, the room base, the bet multiples, the limited-liability rule, the rake, the
百人牛牛 spots and banker queue, and what a timeout does. :mod:`.hands` holds the hand
rules; :mod:`.engine` runs a hand with both.

Modes:

* ``tongbi`` (通比牛牛): no banker; the best hand collects from every other player.
* ``banker``: a banker against each player (000 牛牛游戏规则, 001 经典牛牛, 004 牛牛).
* ``hundred`` (百人牛牛): a banker hand against four spots players bet on.

Banker choice (``banker.choice``): ``none``; ``grab`` (抢庄: every player says whether
they grab, the game picks one of the grabbers - all players if nobody grabs - with a die
of as many faces as candidates; the banker keeps the bank until they leave or a 牛九
appears, see ``regrab_on``); ``random`` (a die picks the banker every hand); ``offer``
(a die picks the first seat offered the bank, who may decline, then the next seat in
seat order; nobody accepting dissolves the group); ``queue`` (百人牛牛 上下庄: player bankers
from a queue, else the system).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError
from croupier.games.niuniu.hands import Category

HUNDRED_SPOTS = ("fu", "lu", "shou", "xi")
"""百人牛牛's four spots 福禄寿禧, in the order they are dealt and opened."""
BANKER = "banker"


class Mode(enum.Enum):
    TONGBI = "tongbi"
    BANKER = "banker"
    HUNDRED = "hundred"


class Choice(enum.Enum):
    NONE = "none"
    GRAB = "grab"
    RANDOM = "random"
    OFFER = "offer"
    QUEUE = "queue"


class Liability(enum.Enum):
    PROPORTIONAL = "proportional_to_carried"
    BANKER_COVER = "banker_cover"


class BetLimits(enum.Enum):
    NONE = "none"
    CLASSIC = "classic"  # 001 经典牛牛: classic_niuniu_bet_limits


@dataclass(frozen=True, slots=True)
class HundredRules:
    spots: tuple[str, ...]
    min_bet: int
    max_bet: int
    step: int
    requirement: int  # 上庄要求: the balance a player banker needs
    max_rounds: int  # hands a player banks before the system steps them down
    system_limit: int  # the most all players may stake in a hand against the system


@dataclass(frozen=True, slots=True)
class TableRules:
    mode: Mode
    choice: Choice
    min_seats: int
    max_seats: int | None
    base: int
    multiples: tuple[int, ...]
    bet_limits: BetLimits
    liability: Liability
    rake: Fraction
    rake_source: str
    regrab_on: frozenset[Category]
    grab_timeout: bool
    bank_timeout: bool
    hundred: HundredRules | None

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> TableRules:
        try:
            mode = Mode(str(_v(raw["mode"])))
            banker = raw["banker"]
            choice = Choice(str(banker["choice"]))
            seats = raw["seats"]
            mx = seats.get("max")
            hundred = None
            if mode is Mode.HUNDRED:
                h = raw["spots"]
                q = raw["banker"]
                hundred = HundredRules(
                    spots=tuple(str(s) for s in h["names"]),
                    min_bet=int(h["min"]),
                    max_bet=int(h["max"]),
                    step=int(h["step"]),
                    requirement=int(q["requirement"]),
                    max_rounds=int(q["max_rounds"]),
                    system_limit=int(q["system_limit"]),
                )
            bets = raw.get("bet_multiples", {"value": [1], "limits": "none"})
            rules = cls(
                mode=mode,
                choice=choice,
                min_seats=int(seats["min"]),
                max_seats=None if mx is None else int(mx),
                base=int(_v(raw.get("base", 0))),
                multiples=tuple(int(m) for m in _v(bets)),
                bet_limits=BetLimits(str(bets.get("limits", "none"))),
                liability=Liability(str(_v(raw["liability"]))),
                rake=Fraction(str(raw["rake"]["rate"])),
                rake_source=str(raw["rake"]["source"]),
                regrab_on=frozenset(Category(str(c)) for c in banker.get("regrab_on", [])),
                grab_timeout=bool(banker.get("grab_on_timeout", False)),
                bank_timeout=bool(banker.get("accept_on_timeout", False)),
                hundred=hundred,
            )
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"niuniu table config: {e!r}") from e
        rules.check()
        return rules

    def check(self) -> None:
        ok_choice = {
            Mode.TONGBI: {Choice.NONE},
            Mode.BANKER: {Choice.GRAB, Choice.RANDOM, Choice.OFFER},
            Mode.HUNDRED: {Choice.QUEUE},
        }[self.mode]
        if self.choice not in ok_choice:
            raise ConfigError(f"niuniu: {self.mode.value} cannot choose a banker by {self.choice}")
        if self.mode is Mode.TONGBI and self.liability is Liability.BANKER_COVER:
            raise ConfigError("niuniu: 通比 has no banker to cover; use proportional_to_carried")
        if self.min_seats < (1 if self.mode is Mode.HUNDRED else 2):
            raise ConfigError("niuniu: too few seats")
        if self.mode is not Mode.HUNDRED:
            if self.base <= 0:
                raise ConfigError("niuniu: the room base must be positive")
            if not self.multiples or sorted(set(self.multiples)) != list(self.multiples):
                raise ConfigError("niuniu: bet multiples must be increasing")
            if self.multiples[0] < 1:
                raise ConfigError("niuniu: bet multiples must be >= 1")
        if not 0 <= self.rake < 1:
            raise ConfigError("niuniu: rake rate must be in [0, 1)")
        h = self.hundred
        if h is not None and not (0 < h.step <= h.min_bet <= h.max_bet and h.min_bet % h.step == 0):
            raise ConfigError("niuniu: spot bets need 0 < step <= min <= max, min a multiple")
        if h is not None and (h.max_rounds < 1 or h.requirement < 0 or h.system_limit < 0):
            raise ConfigError("niuniu: bad banker queue settings")


def _v(node: Any) -> Any:
    if isinstance(node, Mapping) and "value" in node:
        return node["value"]
    return node
