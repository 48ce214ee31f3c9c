"""The 开心摇摇乐 engine on hand-built events: bets and their limits, 撤销 (cancel),
重复投 (repeat through the carry), the dice.rolled checks, 开骰盅's openers, the
outcome, and the settlement through the money kernel (000_d16ad353ba467b8a.txt,
开心摇摇乐)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import pytest

from croupier import canonical
from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.dice.engine import DiceEngine, DiceState
from croupier.games.registry import variant_config

STACK = 100_000


@cache
def eng() -> DiceEngine:
    return DiceEngine(variant_config("dice.yaoyao"))


def opened(
    carry: Mapping[str, Any] | None = None, stacks: tuple[int, ...] = (STACK,) * 3
) -> dict[str, Any]:
    return {
        "variant": "dice.yaoyao",
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": i + 1, "player": f"p{i + 1}", "stack": s} for i, s in enumerate(stacks)],
        "carry": dict(carry or {}),
    }


def bet(seat: int, spot: str, amount: Any) -> dict[str, Any]:
    return {"seat": seat, "spot": spot, "amount": amount}


def act(seat: int, action: str, args: Any = None) -> dict[str, Any]:
    return {"seat": seat, "action": action, "args": {} if args is None else args}


def roll(dice: list[int], n: int = 0) -> dict[str, Any]:
    return {"dice": dice, "faces": [6] * len(dice), "roll": n}


def play(
    bets: list[dict[str, Any]], dice: list[int], carry: Mapping[str, Any] | None = None
) -> DiceState:
    e = eng()
    st = e.open("h", opened(carry))
    for b in bets:
        e.step(st, g.BET_PLACED, b)
    e.step(st, g.BETTING_CLOSED, {})
    assert e.next_deal(st) == g.DealRequest(dice=6, faces=(6,) * 6)
    e.step(st, g.DICE_ROLLED, roll(dice))
    assert e.is_over(st) and e.next_deal(st) is None
    e.step(st, g.HAND_CLOSED, {"positions_used": 0, "carry": e.carry(st)})
    return st


def deltas(st: DiceState) -> dict[str, int]:
    return dict(eng().settle(st).deltas)


def test_a_round_settles_every_spot() -> None:
    # red 2+2+3 = 7 beats blue 1+1+2 = 4: red wins below 8 points (1赔1.5)
    st = play(
        [
            bet(1, "red", 1000),
            bet(2, "blue", 1000),
            bet(3, "blue_pair", 1000),
            bet(3, "red_pair", 500),
            bet(1, "tie", 200),
        ],
        [2, 2, 3, 1, 1, 2],
    )
    e = eng()
    out = e.outcome(st)
    assert out["red"] == [2, 2, 3] and out["blue"] == [1, 1, 2]
    assert (out["red_total"], out["blue_total"], out["winner"], out["low_win"]) == (
        7,
        4,
        "red",
        True,
    )
    assert out["spots"]["red"] == "1/2" and out["spots"]["blue_pair"] == "13/10"
    assert out["openers"] == {"red": 1, "blue": 2}
    d = deltas(st)
    assert d["p1"] == 500 - 200 and d["p2"] == -1000 and d["p3"] == 1300 + 650
    assert sum(d.values()) == 0 and eng().settle(st).total_rake == 0


def test_a_tie_refunds_red_and_blue() -> None:
    st = play([bet(1, "red", 1000), bet(2, "blue", 3000), bet(3, "tie", 100)], [6, 1, 1, 4, 2, 2])
    d = deltas(st)
    assert d == {"p1": 0, "p2": 0, "p3": 700, "house": -700}


def test_openers_are_the_largest_stake_on_each_side_first_to_reach_it() -> None:
    e = eng()
    st = e.open("h", opened())
    for b in (
        bet(2, "red", 500),
        bet(1, "red", 500),
        bet(3, "red_triple", 5000),
        bet(1, "blue", 100),
    ):
        e.step(st, g.BET_PLACED, b)
    assert e.openers(st) == {"red": 2, "blue": 1}
    e.step(st, g.BET_PLACED, bet(1, "red", 100))
    assert e.openers(st) == {"red": 1, "blue": 1}
    e.step(st, g.ACTION_TAKEN, act(1, "cancel"))
    assert e.openers(st) == {"red": 2, "blue": None}


def test_cancel_clears_the_seats_bets_and_it_may_bet_again() -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, bet(1, "red", 1000))
    e.step(st, g.BET_PLACED, bet(1, "tie", 300))
    e.step(st, g.BET_PLACED, bet(2, "blue", 300))
    e.step(st, g.ACTION_TAKEN, act(1, "cancel"))
    assert st.bets == [(2, st.bets[0][1], 300)] and st.staked(1) == 0
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, act(1, "cancel"))
    assert err.value.reason == "no_bet"
    e.step(st, g.BET_PLACED, bet(1, "blue", STACK))  # the whole stack is free again
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, act(1, "cancel"))
    assert err.value.reason == "betting_closed"
    e.step(st, g.DICE_ROLLED, roll([1, 1, 1, 6, 6, 6]))
    assert e.outcome(st)["cancelled"] == [1]
    assert dict(e.settle(st).deltas) == {"p2": 300, "p1": STACK, "house": -STACK - 300}


def test_repeat_places_the_last_rounds_bets_from_the_carry() -> None:
    first = play([bet(1, "red", 1000), bet(1, "red", 500), bet(1, "tie", 200)], [1, 2, 3, 4, 5, 6])
    carry = eng().carry(first)
    assert carry == {"last_bets": {"p1": [["red", 1500], ["tie", 200]]}}
    e = eng()
    st = e.open("h2", opened(carry))
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, act(2, "repeat"))
    assert err.value.reason == "nothing_to_repeat"
    e.step(st, g.ACTION_TAKEN, act(1, "repeat"))
    assert [(s, sp.value, a) for s, sp, a in st.bets] == [(1, "red", 1500), (1, "tie", 200)]
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, act(1, "repeat"))
    assert err.value.reason == "already_bet"
    # a player without a bet this hand carries the older round on
    e.step(st, g.BETTING_CLOSED, {})
    e.step(st, g.DICE_ROLLED, roll([1, 2, 3, 4, 5, 6]))
    assert e.carry(st) == carry


def test_repeat_is_refused_when_the_stack_cannot_cover_it() -> None:
    e = eng()
    carry = {"last_bets": {"p1": [["red", 5000], ["tie", 700000]]}}
    st = e.open("h", opened(carry, stacks=(10_000, STACK, STACK)))
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, act(1, "repeat"))
    assert err.value.reason == "insufficient_stack" and "重复投" in err.value.message
    assert st.bets == []


@pytest.mark.parametrize(
    "carry",
    [
        {"last_bets": []},
        {"last_bets": {"p1": [["red", 0]]}},
        {"last_bets": {"p1": [["green", 100]]}},
        {"last_bets": {"p1": [["red", True]]}},
        {"last_bets": {"p1": []}},
        {"last_bets": {"p1": ["red", 100]}},
    ],
)
def test_a_malformed_carry_is_refused(carry: dict[str, Any]) -> None:
    with pytest.raises(RuleViolation) as err:
        eng().open("h", opened(carry))
    assert err.value.reason == "malformed"


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (bet(1, "green", 100), "unknown_spot"),
        (bet(9, "red", 100), "unknown_seat"),
        (bet(1, "red", 0), "bad_amount"),
        (bet(1, "red", -100), "bad_amount"),
        (bet(1, "red", 150), "bad_amount"),
        (bet(1, "red", "100"), "bad_amount"),
        (bet(1, "red", True), "bad_amount"),
        (bet(1, "red", 5_000_100), "over_limit"),
        (bet(1, "red_triple", 160_100), "over_limit"),
        (bet(1, "red", 100_100), "insufficient_stack"),
        ({"seat": 1, "spot": "red"}, "malformed"),
    ],
)
def test_bad_bets_are_refused_precisely(payload: dict[str, Any], reason: str) -> None:
    e = eng()
    st = e.open("h", opened())
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, payload)
    assert err.value.reason == reason
    assert st.bets == []


def test_stakes_over_all_spots_are_bounded_by_the_stack() -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, bet(1, "red", 60_000))
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, bet(1, "blue", 40_100))
    assert err.value.reason == "insufficient_stack"
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, bet(2, "red", 100))
    assert err.value.reason == "betting_closed"


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"dice": [1, 2, 3, 4, 5], "faces": [6] * 5, "roll": 0}, "illegal_roll"),
        ({"dice": [1, 2, 3, 4, 5, 6], "faces": [6] * 5 + [8], "roll": 0}, "illegal_roll"),
        ({"dice": [1, 2, 3, 4, 5, 7], "faces": [6] * 6, "roll": 0}, "bad_die"),
        ({"dice": [0, 2, 3, 4, 5, 6], "faces": [6] * 6, "roll": 0}, "bad_die"),
        ({"dice": [1, 2, 3, 4, 5, "6"], "faces": [6] * 6, "roll": 0}, "bad_die"),
        ({"dice": [1, 2, 3, 4, 5, 6], "faces": [6] * 6, "roll": 1}, "bad_roll_number"),
        ({"dice": [1, 2, 3, 4, 5, 6], "faces": [6] * 6}, "bad_roll_number"),
        ({"dice": "123456", "faces": [6] * 6, "roll": 0}, "malformed"),
    ],
)
def test_bad_rolls_are_refused(payload: dict[str, Any], reason: str) -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.DICE_ROLLED, payload)
    assert err.value.reason == reason
    assert st.dice == [] and st.rolls == 0


def test_no_roll_before_betting_closes_or_after_the_roll() -> None:
    e = eng()
    st = e.open("h", opened())
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.DICE_ROLLED, roll([1, 2, 3, 4, 5, 6]))
    assert err.value.reason == "illegal_roll"
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.HAND_CLOSED, {})
    assert err.value.reason == "not_over"
    e.step(st, g.BETTING_CLOSED, {})
    e.step(st, g.DICE_ROLLED, roll([1, 2, 3, 4, 5, 6]))
    with pytest.raises(ActionRejected):
        e.verify(st, g.DICE_ROLLED, roll([1, 2, 3, 4, 5, 6], 1))
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.CARD_DEALT, {"cards": []})
    assert err.value.reason == "unknown_event"


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (act(1, "hit"), "unknown_action"),
        (act(1, "cancel", {"auto": "timeout"}), "malformed"),
        (act(1, "cancel", []), "malformed"),
        ({"seat": "x", "action": "cancel"}, "malformed"),
        (act(7, "cancel"), "unknown_seat"),
    ],
)
def test_bad_actions_are_refused(payload: dict[str, Any], reason: str) -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, bet(1, "red", 100))
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.ACTION_TAKEN, payload)
    assert err.value.reason == reason
    assert e.auto_action(st) is None


def test_describe_evaluates_a_bare_roll() -> None:
    out = eng().describe("eval", [["6", "6", "6"], ["1", "2", "3"]])
    assert out["winner"] == "red" and out["red_pattern"] == "triple"
    assert out["spots"]["red_triple"] == "29" and out["spots"]["blue_straight"] == "7"
    assert "openers" not in out
    for hands in (
        [["1", "2", "3"]],
        [["1", "2"], ["3", "4", "5"]],
        [["x", "1", "1"], ["1", "1", "1"]],
    ):
        with pytest.raises(InvalidInput):
            eng().describe("eval", hands)
    with pytest.raises(InvalidInput):
        eng().describe("eval", [["7", "1", "1"], ["1", "1", "1"]])


def test_the_closing_event_must_carry_what_the_rules_give() -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, bet(1, "blue", 400))
    e.step(st, g.BETTING_CLOSED, {})
    e.step(st, g.DICE_ROLLED, roll([1, 1, 1, 2, 2, 2]))
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.HAND_CLOSED, {"positions_used": 0, "carry": {}})
    assert err.value.reason == "bad_carry"
    out = e.outcome(st)
    assert out["openers"] == {"red": None, "blue": 1} and out["winner"] == "blue"
    canonical.dumps(out)  # integers, strings and nulls only


def test_a_round_without_bets_still_rolls_and_settles_nothing() -> None:
    st = play([], [3, 3, 3, 6, 6, 6])
    assert eng().wagers(st) == [] and eng().outcome(st)["openers"] == {"red": None, "blue": None}
    assert dict(eng().settle(st).deltas) == {"house": 0}
