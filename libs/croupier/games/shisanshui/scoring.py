"""十三水 water (水): what each pair of players owes each other.

Source: ``000_d16ad353ba467b8a.txt``, 十三水规则, 基本规则 6)-8), 4、特殊牌型 1)-3) and
5、计水规则. Numbers come from the variant config (:class:`WaterRules`).

Two normal hands (every pair of players, compared row by row):

* a row won earns 1 water from the other player, 0 on a tie (same ranks: 打和), and
  the winner's row may earn more instead of 1: a front three of a kind 3 (冲三), a
  middle full house 2 (中墩葫芦), a middle four of a kind 8 and a back four of a kind 4
  (铁支), a middle straight flush 10 and a back straight flush 5 (同花顺);
* 打枪: a player who wins all three rows against another takes twice the pair's water;
* 全垒打: with a full room (4 players) a player who shoots every other player takes
  twice that again from each.

A special hand (特殊牌型大于普通牌型) takes its water (清龙 60 .. 三同花 3) from every
normal hand, and from every smaller special hand; equal specials are even. Specials are
not compared row by row and take no part in 打枪 or 全垒打 (8) 特殊牌型不参与打枪与全垒打);
a 全垒打 needs every other player shot, so a special hand at the table rules it out.
This is the seed's 4、2)-3): normal hands are compared among themselves, then each pays
every special hand its water (平摊: each normal hand pays the same); a lone normal hand
pays the sum of all the specials' water.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier.errors import ConfigError
from croupier.games.poker.hands import Category, category
from croupier.games.shisanshui.hands import Arrangement, Special

__all__ = ["PairScore", "Scoring", "WaterRules", "score"]

ROWS = ("front", "middle", "back")


@dataclass(frozen=True, slots=True)
class WaterRules:
    row_win: int
    front_trips: int
    middle_full_house: int
    middle_quads: int
    middle_straight_flush: int
    back_quads: int
    back_straight_flush: int
    gun: int
    home_run: int
    home_run_players: int
    specials: Mapping[Special, int] = field(default_factory=dict)

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> WaterRules:
        try:
            w = raw["water"]
            specials = {Special(s["id"]): int(s["water"]) for s in raw["specials"]}
            rules = cls(
                row_win=int(w["row_win"]),
                front_trips=int(w["front_trips"]),
                middle_full_house=int(w["middle_full_house"]),
                middle_quads=int(w["middle_quads"]),
                middle_straight_flush=int(w["middle_straight_flush"]),
                back_quads=int(w["back_quads"]),
                back_straight_flush=int(w["back_straight_flush"]),
                gun=int(w["gun_multiplier"]),
                home_run=int(w["home_run_multiplier"]),
                home_run_players=int(w["home_run_players"]),
                specials=specials,
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"shisanshui water config: {e!r}") from e
        order = [Special(s["id"]) for s in raw["specials"]]
        if order != list(Special):
            raise ConfigError("shisanshui: specials must list all 13 in the seed's order")
        return rules

    def row_water(self, row: int, strength: int) -> int:
        """What winning ``row`` (0 front, 1 middle, 2 back) with ``strength`` earns."""
        cat = category(strength)
        if row == 0 and cat is Category.TRIPS:
            return self.front_trips
        if row == 1:
            if cat is Category.FULL_HOUSE:
                return self.middle_full_house
            if cat is Category.QUADS:
                return self.middle_quads
            if cat is Category.STRAIGHT_FLUSH:
                return self.middle_straight_flush
        if row == 2:
            if cat is Category.QUADS:
                return self.back_quads
            if cat is Category.STRAIGHT_FLUSH:
                return self.back_straight_flush
        return self.row_win


@dataclass(frozen=True, slots=True)
class PairScore:
    """Seats ``a`` < ``b``; every signed figure is from ``a``'s side."""

    a: int
    b: int
    rows: tuple[int, int, int]  # row water (normal hands); zeros otherwise
    special: int  # special-hand water
    gun: int | None  # the seat that shot the other (打枪), if any
    home_run: bool  # the shooter's 全垒打 doubles this pair again
    multipliers: tuple[int, ...]  # 打枪, then 全垒打, when they apply
    total: int

    @property
    def factors(self) -> tuple[int, ...]:
        """The positive factors of ``abs(total)``: the water, then the multipliers."""
        return (abs(self.special or sum(self.rows)), *self.multipliers)


@dataclass(frozen=True, slots=True)
class Scoring:
    pairs: tuple[PairScore, ...]
    water: dict[int, int]  # net water per seat
    home_run: int | None  # the seat with a 全垒打


def _rows_vs(rules: WaterRules, a: Arrangement, b: Arrangement) -> tuple[int, int, int]:
    out = []
    for i, (sa, sb) in enumerate(zip(a.strengths, b.strengths, strict=True)):
        if sa > sb:
            out.append(rules.row_water(i, sa))
        elif sb > sa:
            out.append(-rules.row_water(i, sb))
        else:
            out.append(0)
    return out[0], out[1], out[2]


def _special_vs(rules: WaterRules, a: Special | None, b: Special | None) -> int:
    if a is not None and (b is None or a.order < b.order):
        return rules.specials[a]
    if b is not None and (a is None or b.order < a.order):
        return -rules.specials[b]
    return 0


def score(hands: Mapping[int, Arrangement], rules: WaterRules) -> Scoring:
    """Every pair's water and each seat's net (see the module docstring)."""
    seats: Sequence[int] = sorted(hands)
    raw: dict[tuple[int, int], tuple[tuple[int, int, int], int, int | None]] = {}
    shot: dict[int, set[int]] = {s: set() for s in seats}
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            ha, hb = hands[a], hands[b]
            if ha.special is None and hb.special is None:
                rows = _rows_vs(rules, ha, hb)
                gun = a if all(r > 0 for r in rows) else b if all(r < 0 for r in rows) else None
                if gun is not None:
                    shot[gun].add(b if gun == a else a)
                raw[a, b] = (rows, 0, gun)
            else:
                raw[a, b] = ((0, 0, 0), _special_vs(rules, ha.special, hb.special), None)
    home_run = None
    if len(seats) >= rules.home_run_players:
        for s in seats:
            if len(shot[s]) == len(seats) - 1:
                home_run = s
    pairs = []
    water = dict.fromkeys(seats, 0)
    for (a, b), (rows, special, gun) in raw.items():
        mult: tuple[int, ...] = ()
        if gun is not None:
            mult = (rules.gun, rules.home_run) if home_run == gun else (rules.gun,)
        total = special or sum(rows)
        for m in mult:
            total *= m
        pairs.append(PairScore(a, b, rows, special, gun, len(mult) == 2, mult, total))
        water[a] += total
        water[b] -= total
    return Scoring(tuple(pairs), water, home_run)
