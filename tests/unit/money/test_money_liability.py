from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.money import (
    CLASSIC_NIUNIU_OPTIONS,
    BankerCover,
    ChaDaJiao,
    HuaZhuSplit,
    banker_pro_rata,
    cap_by_carried,
    cha_da_jiao,
    classic_niuniu_bet_limits,
    doudizhu_three_step,
    hua_zhu_split,
    hundred_spot_multiplier_limit,
    limit_multiplier,
    proportional_to_carried,
)

F = Fraction


# -- 1 防以小博大 -------------------------------------------------------------------------
def test_cap_by_carried_both_ways() -> None:
    # 001 抢庄: carried 80, theoretical 200 -> 80; 经典牛牛: carried 50, theoretical 100 -> 50.
    assert cap_by_carried(
        {"a": 200, "b": 100, "c": -300, "d": 40}, {"a": 80, "b": 50, "c": 100, "d": 1000}
    ) == {"a": 80, "b": 50, "c": -100, "d": 40}
    with pytest.raises(InvalidInput):
        cap_by_carried({"a": 1}, {})
    with pytest.raises(InvalidInput):
        cap_by_carried({"a": 1}, {"a": -1})


# -- 2 banker cannot cover ----------------------------------------------------------------
def test_banker_pro_rata_seed_examples() -> None:
    assert banker_pro_rata("bk", {"A": 200, "B": 200, "C": 400}, 100) == {
        "A": 25,
        "B": 25,
        "C": 50,
        "bk": -100,
    }
    assert banker_pro_rata("bk", {"A": 200, "B": 200, "C": 100, "D": 300}, 100) == {
        "A": 25,
        "B": 25,
        "C": F(25, 2),
        "D": F(75, 2),
        "bk": -100,
    }
    assert banker_pro_rata("bk", {"A": 100, "B": 100, "C": 300}, 100) == {
        "A": 20,
        "B": 20,
        "C": 60,
        "bk": -100,
    }


def test_banker_collects_from_losers_before_paying_pro_rata() -> None:
    # Pool = 300 collected + 100 carried = 400 for a 500 win.
    assert banker_pro_rata("bk", {"A": 500, "D": -300}, 100) == {"A": 400, "D": -300, "bk": -100}


def test_banker_wins_at_most_what_they_carried() -> None:
    out = banker_pro_rata("bk", {"A": -300, "B": -100, "C": 50}, 100)
    assert out == {"A": F(-225, 2), "B": F(-75, 2), "C": 50, "bk": 100}
    assert sum(out.values()) == 0


def test_banker_pro_rata_unchanged_when_covered() -> None:
    assert banker_pro_rata("bk", {"A": 50, "B": -20}, 100) == {"A": 50, "B": -20, "bk": -30}
    with pytest.raises(InvalidInput):
        banker_pro_rata("bk", {"bk": 5}, 100)
    with pytest.raises(InvalidInput):
        banker_pro_rata("bk", {"A": 5}, -1)


# -- 3 Dou Dizhu ---------------------------------------------------------------------------
def test_doudizhu_step_02_landlord_pays_what_farmers_can_take() -> None:
    # F1 carried 50: farmers' 可得分 -50 and -120, landlord's 240 -> landlord gets 170.
    assert doudizhu_three_step(
        "L", {"L": 240, "F1": -120, "F2": -120}, {"L": 1000, "F1": 50, "F2": 1000}
    ) == {"L": 170, "F1": -50, "F2": -120}


def test_doudizhu_step_03_farmers_share_the_landlords_carried() -> None:
    assert doudizhu_three_step(
        "L", {"L": -240, "F1": 120, "F2": 120}, {"L": 150, "F1": 1000, "F2": 1000}
    ) == {"L": -150, "F1": 75, "F2": 75}
    # Unequal farmers (加倍): shares follow their 可得分.
    assert doudizhu_three_step(
        "L", {"L": -360, "F1": 240, "F2": 120}, {"L": 90, "F1": 1000, "F2": 1000}
    ) == {"L": -90, "F1": 60, "F2": 30}


def test_doudizhu_no_limit_binding_changes_nothing() -> None:
    scores = {"L": -240, "F1": 120, "F2": 120}
    assert doudizhu_three_step("L", scores, {"L": 240, "F1": 120, "F2": 120}) == scores


@pytest.mark.parametrize(
    ("landlord", "scores", "carried"),
    [
        ("L", {"L": 1, "F1": 1}, {"L": 9, "F1": 9}),
        ("X", {"L": 0, "F1": 0}, {"L": 9, "F1": 9}),
        ("L", {"L": 0}, {"L": 9}),
        ("L", {"L": 0, "F1": 1, "F2": -1}, {"L": 9, "F1": 9, "F2": 9}),
        ("L", {"L": -2, "F1": 1, "F2": 1}, {"L": 9, "F1": 9}),
    ],
)
def test_doudizhu_bad_input(landlord: str, scores: dict[str, int], carried: dict[str, int]) -> None:
    with pytest.raises(InvalidInput):
        doudizhu_three_step(landlord, scores, carried)


# -- 4 proportional to carried -------------------------------------------------------------
def test_proportional_scales_the_larger_side() -> None:
    # Winner capped to 150; losers 300 -> scaled by 150/300.
    assert proportional_to_carried(
        {"A": 300, "B": -100, "C": -200}, {"A": 150, "B": 1000, "C": 1000}
    ) == {"A": 150, "B": -50, "C": -100}
    # Losers capped to 50 + 100 = 150; the winner gets 150.
    assert proportional_to_carried(
        {"A": 300, "B": -100, "C": -200}, {"A": 1000, "B": 50, "C": 100}
    ) == {"A": 150, "B": -50, "C": -100}
    # Two winners share the losers' 100 pro rata: 300:100 -> 75:25.
    assert proportional_to_carried(
        {"A": 300, "B": 100, "C": -400}, {"A": 1000, "B": 1000, "C": 100}
    ) == {"A": 75, "B": 25, "C": -100}


def test_proportional_unchanged_and_validation() -> None:
    nets = {"A": 30, "B": -30}
    assert proportional_to_carried(nets, {"A": 30, "B": 30}) == nets
    with pytest.raises(InvalidInput):
        proportional_to_carried({"A": 1, "B": 0}, {"A": 5, "B": 5})
    with pytest.raises(InvalidInput):
        proportional_to_carried({"A": 1, "B": -1}, {"A": 5})


# -- 5 查大叫 --------------------------------------------------------------------------------
def test_cha_da_jiao_seed_formula() -> None:
    # balance / total fan * fan: 60/4*1, 60/4*3.
    assert cha_da_jiao(60, {"X": 20, "Y": 80}, {"X": 1, "Y": 3}) == {"X": 15, "Y": 45}
    assert cha_da_jiao(Fraction(61), {"X": 20, "Y": 80}, {"X": 1, "Y": 3}) == {
        "X": F(61, 4),
        "Y": F(183, 4),
    }


def test_cha_da_jiao_share_above_the_claim_goes_to_the_others() -> None:
    assert cha_da_jiao(110, {"X": 40, "Y": 80}, {"X": 2, "Y": 3}) == {"X": 40, "Y": 70}


def test_cha_da_jiao_zero_fan_and_full_cover() -> None:
    assert cha_da_jiao(10, {"X": 10, "Y": 10}, {"X": 0, "Y": 0}) == {"X": 5, "Y": 5}
    # Only the 0-fan listener is left after the others are paid in full.
    assert cha_da_jiao(30, {"X": 20, "Y": 10, "Z": 40}, {"X": 0, "Y": 3, "Z": 0}) == {
        "X": 10,
        "Y": 10,
        "Z": 10,
    }
    assert cha_da_jiao(500, {"X": 20, "Y": 80}, {"X": 1, "Y": 3}) == {"X": 20, "Y": 80}
    assert cha_da_jiao(0, {"X": 20}, {"X": 1}) == {"X": 0}
    for args in (
        (-1, {"X": 1}, {"X": 1}),
        (1, {"X": -1}, {"X": 1}),
        (1, {"X": 1}, {}),
        (1, {"X": 1}, {"X": -1}),
    ):
        with pytest.raises(InvalidInput):
            cha_da_jiao(*args)  # type: ignore[arg-type]


# -- 6 花猪 ----------------------------------------------------------------------------------
def test_hua_zhu_seed_example() -> None:
    # 100 points, three players: 33 each, 1 kept (whole points).
    assert hua_zhu_split(10000, {"X": 16000, "Y": 16000, "Z": 16000}) == {
        "X": 3300,
        "Y": 3300,
        "Z": 3300,
    }
    # Truncating to minor units instead.
    assert hua_zhu_split(10000, {"X": 16000, "Y": 16000, "Z": 16000}, unit=1) == {
        "X": 3333,
        "Y": 3333,
        "Z": 3333,
    }


def test_hua_zhu_small_claim_paid_in_full_rest_split() -> None:
    assert hua_zhu_split(10000, {"X": 1000, "Y": 20000, "Z": 20000}) == {
        "X": 1000,
        "Y": 4500,
        "Z": 4500,
    }
    assert hua_zhu_split(10000, {"X": 1000, "Y": 2000}) == {"X": 1000, "Y": 2000}
    assert hua_zhu_split(0, {"X": 1000}) == {"X": 0}
    with pytest.raises(InvalidInput):
        hua_zhu_split(-1, {"X": 1})


# -- 7 pre-bet limits -----------------------------------------------------------------------
def test_classic_niuniu_bet_limits() -> None:
    lim = classic_niuniu_bet_limits(
        banker_balance=1_000_000, player_balance=30_000, base=1000, max_hand_multiple=4, players=5
    )
    assert (lim.banker_max, lim.player_cover_max, lim.common_max, lim.player_max) == (250, 7, 62, 7)
    assert lim.options == (1, 3, 6)
    assert CLASSIC_NIUNIU_OPTIONS == (1, 3, 6, 10)
    rich = classic_niuniu_bet_limits(
        banker_balance=10**9, player_balance=10**9, base=1000, max_hand_multiple=4, players=2
    )
    assert rich.options == (1, 3, 6, 10)
    # A short banker shared by four players: banker max 30, common max 30 // 4 = 7.
    short = classic_niuniu_bet_limits(
        banker_balance=30 * 4000, player_balance=10**9, base=1000, max_hand_multiple=4, players=5
    )
    assert (short.banker_max, short.common_max, short.options) == (30, 7, (1, 3, 6))
    broke = classic_niuniu_bet_limits(
        banker_balance=100, player_balance=100, base=1000, max_hand_multiple=4, players=3
    )
    assert broke.options == ()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base": 0},
        {"max_hand_multiple": 0},
        {"players": 1},
        {"banker_balance": -1},
        {"players": True},
    ],
)
def test_classic_niuniu_bet_limits_bad_input(kwargs: dict[str, int]) -> None:
    args = {
        "banker_balance": 1000,
        "player_balance": 1000,
        "base": 10,
        "max_hand_multiple": 4,
        "players": 3,
    }
    args.update(kwargs)
    with pytest.raises(InvalidInput):
        classic_niuniu_bet_limits(**args)


def test_hundred_spot_multiplier_limit() -> None:
    assert (
        hundred_spot_multiplier_limit(
            balance=1000, stakes={"fu": 100, "lu": 100}, max_multiplier=10
        )
        == 5
    )
    assert (
        hundred_spot_multiplier_limit(
            balance=5000, stakes={"fu": 100, "lu": 100}, max_multiplier=10
        )
        == 10
    )
    assert hundred_spot_multiplier_limit(balance=200, stakes={"fu": 200}, max_multiplier=10) == 1
    assert hundred_spot_multiplier_limit(balance=0, stakes={}, max_multiplier=10) == 10
    with pytest.raises(InvalidInput):
        hundred_spot_multiplier_limit(balance=100, stakes={"fu": 101}, max_multiplier=10)
    assert limit_multiplier(8, 5) == 5
    assert limit_multiplier(F(1, 2), 5) == F(1, 2)


def test_rule_specs_freeze_their_inputs() -> None:
    carried = {"bk": 10}
    rule = BankerCover("bk", carried)
    carried["bk"] = 99
    assert rule.carried["bk"] == 10
    with pytest.raises(InvalidInput):
        BankerCover("bk", {"bk": -1})
    with pytest.raises(InvalidInput):
        ChaDaJiao("p", -1, {})
    with pytest.raises(InvalidInput):
        HuaZhuSplit("p", 10, unit=0)
