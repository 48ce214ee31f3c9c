"""A mahjong variant's rules, read from its config (``seeds/variants/mahjong.*.json``).

Every difference between 血战麻将 (000), 血战到底麻将 (004) and 广东麻将推倒胡 (000) is a
field here; the engine has no variant names in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError
from croupier.games.mahjong.fan import FanTable
from croupier.games.mahjong.win import Forms

DEALER_ROTATIONS = ("first_winner", "dealer_or_next")
SWAP_DIRECTIONS = ("next", "opposite", "previous")
CALL_TRANSFERS = ("each_winner", "none")
HUA_ZHU_MODES = ("que_suit", "three_suits", "none")


@dataclass(frozen=True, slots=True)
class GangPay:
    """A 杠's immediate payment: ``units`` x base from the discarder (``discarder``)
    or from every other player still in play (``others``)."""

    units: int
    payers: str  # "discarder" | "others"


@dataclass(frozen=True, slots=True)
class Rules:
    base: int
    seats: int
    deal: int
    indicator: bool  # 广东: a face-up tile names the ghost (鬼牌)
    first_dealer_die: bool
    rotation: str
    swap_three: bool
    swap_directions: tuple[str, ...]
    ding_que: bool
    max_suits: int  # a win holds at most this many suits (3: no limit)
    bloody: bool  # 血战: play on until all but one have won
    forms: Forms
    gang_ming: GangPay
    gang_bu: GangPay
    gang_an: GangPay
    call_transfer: str
    self_draw_payers: str  # "in_play" (血战: players not yet won) | "all_others"
    leave_forfeits_win: bool  # a winner who leaves before the end loses the fan won
    discard_win_needs_fan: bool  # 广东: 鸡胡 only by self-draw or 抢杠
    ghost_only_wins: bool  # 广东: a hand of ghosts only may win on any tile
    di_hu_on_dealer_discard: bool
    pass_waits_own_draw: bool  # 004 过手
    forced_win_tiles: int  # 004: within the last N tiles a win must be taken
    hua_zhu: str
    hua_zhu_units: int  # 000: x base (16)
    hua_zhu_fan: int  # 004: fan (3)
    hua_zhu_plus_cha: bool  # 000: a 花猪 also pays 查大叫 to listeners
    cha_da_jiao: bool
    cha_by_fan_share: bool  # 000: 查大叫 short balance by fan share, 花猪 equal split
    refund_gang_unready: bool  # 004: an unready player at exhaustion refunds gang income
    max_fan: int | None
    pair_cap_units: int | None  # 004: 24 x base from one payer to one payee
    rake: Fraction
    fan: FanTable
    rake_source: str
    cap_source: str


def _v(raw: Mapping[str, Any], *path: str) -> Any:
    node: Any = raw
    for p in path:
        if not isinstance(node, Mapping) or p not in node:
            raise ConfigError(f"mahjong config has no {'.'.join(path)}")
        node = node[p]
    if isinstance(node, Mapping) and "value" in node:
        return node["value"]
    return node


def _gang(raw: Mapping[str, Any], kind: str) -> GangPay:
    g = _v(raw, "gang_pay", kind)
    p = GangPay(int(g["units"]), str(g["payers"]))
    if p.payers not in ("discarder", "others") or p.units < 0:
        raise ConfigError(f"gang_pay.{kind}: {g!r}")
    return p


def rules_from_config(raw: Mapping[str, Any]) -> Rules:
    try:
        forms = Forms(
            bool(_v(raw, "forms", "seven_pairs")), bool(_v(raw, "forms", "thirteen_orphans"))
        )
        max_fan = _v(raw, "fan_cap", "max_fan")
        pair_cap = _v(raw, "pair_cap", "units")
        r = Rules(
            base=int(_v(raw, "base")),
            seats=int(_v(raw, "seats", "max")),
            deal=int(_v(raw, "deal", "tiles")),
            indicator=bool(_v(raw, "ghost", "indicator")),
            first_dealer_die=bool(_v(raw, "dealer", "first_by_die")),
            rotation=str(_v(raw, "dealer", "rotation")),
            swap_three=bool(_v(raw, "swap_three", "enabled")),
            swap_directions=tuple(_v(raw, "swap_three", "directions")),
            ding_que=bool(_v(raw, "ding_que")),
            max_suits=int(_v(raw, "max_suits")),
            bloody=bool(_v(raw, "bloody")),
            forms=forms,
            gang_ming=_gang(raw, "ming"),
            gang_bu=_gang(raw, "bu"),
            gang_an=_gang(raw, "an"),
            call_transfer=str(_v(raw, "call_transfer")),
            self_draw_payers=str(_v(raw, "self_draw_payers")),
            leave_forfeits_win=bool(_v(raw, "leave_forfeits_win")),
            discard_win_needs_fan=bool(_v(raw, "discard_win_needs_fan")),
            ghost_only_wins=bool(_v(raw, "ghost", "only_ghosts_win")),
            di_hu_on_dealer_discard=bool(_v(raw, "di_hu_on_dealer_discard")),
            pass_waits_own_draw=bool(_v(raw, "pass_waits_own_draw")),
            forced_win_tiles=int(_v(raw, "forced_win_tiles")),
            hua_zhu=str(_v(raw, "exhaustion", "hua_zhu")),
            hua_zhu_units=int(_v(raw, "exhaustion", "hua_zhu_units")),
            hua_zhu_fan=int(_v(raw, "exhaustion", "hua_zhu_fan")),
            hua_zhu_plus_cha=bool(_v(raw, "exhaustion", "hua_zhu_plus_cha")),
            cha_da_jiao=bool(_v(raw, "exhaustion", "cha_da_jiao")),
            cha_by_fan_share=bool(_v(raw, "exhaustion", "short_balance_by_fan_share")),
            refund_gang_unready=bool(_v(raw, "exhaustion", "refund_gang_unready")),
            max_fan=None if max_fan is None else int(max_fan),
            pair_cap_units=None if pair_cap is None else int(pair_cap),
            rake=Fraction(str(_v(raw, "rake", "rate"))),
            fan=FanTable.from_config(_v(raw, "fan"), forms),
            rake_source=str(raw["rake"]["source"]),
            cap_source=str(raw["fan_cap"]["source"]),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ConfigError(f"mahjong config: {e!r}") from e
    if r.rotation not in DEALER_ROTATIONS:
        raise ConfigError(f"dealer.rotation must be one of {DEALER_ROTATIONS}")
    if not set(r.swap_directions) <= set(SWAP_DIRECTIONS):
        raise ConfigError(f"swap_three.directions must be among {SWAP_DIRECTIONS}")
    if r.swap_three and len(r.swap_directions) < 2:
        raise ConfigError("swap_three needs at least two directions")
    if r.call_transfer not in CALL_TRANSFERS:
        raise ConfigError(f"call_transfer must be one of {CALL_TRANSFERS}")
    if r.self_draw_payers not in ("in_play", "all_others"):
        raise ConfigError("self_draw_payers must be in_play or all_others")
    if r.hua_zhu not in HUA_ZHU_MODES:
        raise ConfigError(f"exhaustion.hua_zhu must be one of {HUA_ZHU_MODES}")
    if _v(raw, "liability") != "proportional_to_carried":
        raise ConfigError("mahjong: liability is proportional_to_carried (the only one wired)")
    if r.seats != 4 or r.deal != 13 or r.base <= 0 or not 1 <= r.max_suits <= 4:
        raise ConfigError("mahjong: 4 seats, 13 tiles each, a positive base")
    return r
