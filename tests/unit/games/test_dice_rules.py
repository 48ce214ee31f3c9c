"""开心摇摇乐 rules (000_d16ad353ba467b8a.txt, 开心摇摇乐): three-dice patterns, the
round's winner, every spot's result under the seed's paytable (一、2-3 and 二、注点赔率,
"1赔X" read as a total return), and the paytable read from the variant config."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from croupier.errors import ConfigError, InvalidInput
from croupier.games.dice.rules import (
    SEED_PAYTABLE,
    Pattern,
    Round,
    Side,
    Spot,
    Winner,
    pattern,
    paytable_from_config,
    spot_result,
)
from croupier.games.registry import variant_config


@pytest.mark.parametrize(
    ("dice", "want"),
    [
        ((6, 6, 6), Pattern.TRIPLE),
        ((1, 1, 1), Pattern.TRIPLE),
        ((2, 2, 5), Pattern.PAIR),
        ((5, 2, 5), Pattern.PAIR),
        ((3, 1, 2), Pattern.STRAIGHT),
        ((4, 6, 5), Pattern.STRAIGHT),
        ((5, 6, 1), Pattern.NONE),  # no wrap-around
        ((1, 3, 5), Pattern.NONE),
    ],
)
def test_patterns(dice: tuple[int, int, int], want: Pattern) -> None:
    assert pattern(dice) is want


@pytest.mark.parametrize("dice", [(0, 1, 2), (1, 2, 7), (1, 2), (1, 2, 3, 4)])
def test_bad_dice_are_refused(dice: tuple[int, ...]) -> None:
    with pytest.raises(InvalidInput):
        pattern(dice)
    with pytest.raises(InvalidInput):
        Round.of([*dice, 1, 1, 1][:6] if len(dice) == 3 else dice)


def R(dice: str) -> Round:
    return Round.of([int(c) for c in dice.replace(" ", "")])


def results(rnd: Round) -> dict[str, Fraction]:
    return {s.value: spot_result(s, rnd) for s in Spot}


def test_red_wins_even_money_and_blue_loses() -> None:
    # 一、1-2: the larger total wins, paid 1赔2 (2 back per 1 staked: profit 1)
    r = R("656 123")
    assert (r.red_total, r.blue_total, r.winner) == (17, 6, Winner.RED)
    res = results(r)
    assert res["red"] == 1 and res["blue"] == -1 and res["tie"] == -1
    assert res["blue_straight"] == 7 and res["red_pair"] == Fraction(13, 10)
    assert res["red_triple"] == res["blue_triple"] == res["blue_pair"] == -1


def test_a_win_below_8_points_pays_one_and_a_half() -> None:
    # 一、2 and 二: 获胜方点数不足8点 1赔1.5 (profit 1/2); 7 is below 8, 8 is not
    low = R("223 111")
    assert low.winning_total == 7
    assert spot_result(Spot.RED, low) == Fraction(1, 2)
    assert spot_result(Spot.RED_TRIPLE, low) == -1 and spot_result(Spot.BLUE_TRIPLE, low) == 29
    eight = R("111 233")
    assert eight.winner is Winner.BLUE and eight.winning_total == 8
    assert spot_result(Spot.BLUE, eight) == 1


def test_a_tie_refunds_red_and_blue_and_pays_the_tie_spot() -> None:
    # 一、3: equal totals return the red and blue stakes; 平 1赔8 (profit 7)
    r = R("345 444")
    assert r.winner is Winner.TIE and r.winning_total is None
    res = results(r)
    assert res["red"] == res["blue"] == 0
    assert res["tie"] == 7
    assert res["red_straight"] == 7 and res["blue_triple"] == 29 and res["blue_pair"] == -1


def test_a_triple_is_not_a_pair() -> None:
    r = R("555 112")
    assert r.pattern(Side.RED) is Pattern.TRIPLE and r.pattern(Side.BLUE) is Pattern.PAIR
    assert spot_result(Spot.RED_PAIR, r) == -1 and spot_result(Spot.RED_TRIPLE, r) == 29
    assert spot_result(Spot.BLUE_PAIR, r) == Fraction(13, 10)


def test_the_config_paytable_is_the_seed_paytable() -> None:
    assert paytable_from_config(variant_config("dice.yaoyao").raw) == SEED_PAYTABLE
    assert SEED_PAYTABLE.main == 2 and SEED_PAYTABLE.main_low == Fraction(3, 2)
    assert SEED_PAYTABLE.low_below == 8 and SEED_PAYTABLE.tie == 8
    assert (SEED_PAYTABLE.pair, SEED_PAYTABLE.straight, SEED_PAYTABLE.triple) == (
        Fraction(23, 10),
        Fraction(8),
        Fraction(30),
    )


def both(raw: dict[str, Any], kind: str, value: object) -> None:
    for side in ("red", "blue"):
        raw["spots"][f"{side}_{kind}"]["returns"] = value


def _raw() -> dict[str, Any]:
    return copy.deepcopy(dict(variant_config("dice.yaoyao").raw))


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda r: r.update(payout_reading="profit"), "payout_reading"),
        (lambda r: r["spots"]["blue"].update(returns="3"), "must pay alike"),
        (lambda r: r["spots"]["blue_pair"].update(returns="2"), "must pay alike"),
        (lambda r: r["spots"]["tie"].pop("returns"), "spots.tie.returns"),
        (lambda r: both(r, "triple", "x"), "not a fraction"),
        (lambda r: both(r, "triple", 1.5), "fraction string"),
        (lambda r: both(r, "pair", "1"), "more than the stake"),
        (lambda r: r.pop("spots"), "'spots'"),
    ],
)
def test_bad_paytable_configs_are_refused(edit: Any, needle: str) -> None:
    raw = _raw()
    edit(raw)
    with pytest.raises(ConfigError) as err:
        paytable_from_config(raw)
    assert needle in err.value.message
