"""A 斗地主 variant's rules, read from ``seeds/variants/doudizhu.*.json``: everything in
which 斗地主 (000), 加倍斗地主 (000) and 三人斗地主 (004) differ is a field here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError
from croupier.games.shedding.common import Direction, play_direction
from croupier.games.shedding.moves import MoveRules


class FirstBidder(StrEnum):
    RANDOM = "random"  # a die every hand (004 2、第一个叫牌的玩家: 由系统选定)
    RANDOM_THEN_WINNER = "random_then_winner"  # 000: 首盘系统随机, then the last winner


class Doubling(StrEnum):
    NONE = "none"  # 000 斗地主: no 加倍
    FARMERS = "farmers"  # 000 加倍斗地主 1.1.4: farmers only, each for themselves
    ALL = "all"  # 004 4、加倍: every player


class AutoBid(StrEnum):
    NEVER = "never"  # 000 加倍斗地主 1.1.7: 系统托管不会对用户进行自动叫分
    STRENGTH = "strength"  # bid by a count of the hand's high cards and bombs


class Cap(StrEnum):
    NONE = "none"
    DOUDIZHU = "doudizhu_cap"  # 000 斗地主 1.4.1: 叫分 x 倍数 <= 30
    DOUBLING = "doudizhu_doubling_caps"  # 000 加倍斗地主 1.3.1: 128 / 256


@dataclass(frozen=True, slots=True)
class Rules:
    hand_cards: int
    kitty_cards: int
    base: int
    first_bidder: FirstBidder
    bids: tuple[int, ...]
    grab: bool
    grab_factor: int
    doubling: Doubling
    double_factor: int
    double_before_reveal: bool
    auto_bid: AutoBid
    bomb_factor: int
    rocket_factor: int
    spring_factor: int
    anti_spring_factor: int
    cap: Cap
    rake: Fraction
    rake_source: str
    liability_source: str
    moves: MoveRules
    direction: Direction = Direction.CLOCKWISE  # the way bids, 加倍 and play go round

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> Rules:
        def v(node: Any) -> Any:
            return node["value"] if isinstance(node, Mapping) and "value" in node else node

        try:
            mult = raw["multiple"]
            rules = cls(
                hand_cards=int(raw["deal"]["hand"]),
                kitty_cards=int(raw["deal"]["kitty"]),
                base=int(v(raw["base"])),
                first_bidder=FirstBidder(str(v(raw["first_bidder"]))),
                bids=tuple(int(x) for x in raw["bidding"]["bids"]),
                grab=bool(v(raw["grab"])),
                grab_factor=int(raw["grab"]["factor"]),
                doubling=Doubling(str(v(raw["doubling"]))),
                double_factor=int(raw["doubling"]["factor"]),
                double_before_reveal=bool(raw["doubling"]["before_kitty"]),
                auto_bid=AutoBid(str(v(raw["auto_bid"]))),
                bomb_factor=int(mult["bomb"]),
                rocket_factor=int(mult["rocket"]),
                spring_factor=int(mult["spring"]),
                anti_spring_factor=int(mult["anti_spring"]),
                cap=Cap(str(v(raw["cap"]))),
                rake=Fraction(str(v(raw["rake"]))),
                rake_source=str(raw["rake"]["source"]),
                liability_source=str(raw["liability"]["source"]),
                moves=MoveRules.from_config(raw["moves"]),
                direction=play_direction(raw),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"doudizhu config: {e!r}") from e
        if rules.bids != (1, 2, 3):
            raise ConfigError("doudizhu bids are 1, 2 and 3 (the kernel's doudizhu_claims)")
        if rules.base <= 0 or not 0 <= rules.rake < 1:
            raise ConfigError("doudizhu: base > 0 and 0 <= rake < 1")
        if v(raw["liability"]) != "doudizhu_three_step":
            raise ConfigError("doudizhu liability is doudizhu_three_step")
        if rules.grab and (rules.grab_factor != 2 or rules.doubling is not Doubling.FARMERS):
            raise ConfigError("grabbing (抢地主) doubles, with farmers' 加倍 (000 加倍斗地主)")
        if rules.double_factor != 2:
            raise ConfigError("加倍 doubles (the kernel's 加倍翻倍数 is 1 or 2)")
        return rules
