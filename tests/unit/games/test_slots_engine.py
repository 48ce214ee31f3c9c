"""The 多财多福 engine on hand-built events: the spin bet (line bet x lines, one per
hand), the reel stops from dice.rolled, the double-up (collect, guesses at x1/x2/x3/x5
topped up from the balance, a miss, the 8-win limit, the short-balance auto-collect,
the timeout's collect), and the settlement through the money kernel
(000_d16ad353ba467b8a.txt, 多财多福规则, 1、游戏流程)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.registry import variant_config
from croupier.games.slots.engine import SlotEngine, SlotState

NO_WIN = [4, 1, 1]  # stops 3 0 0: nothing
PAYS_2 = [2, 1, 1]  # 福 on reel 1 of one line: 2 line bets
PAYS_102 = [3, 7, 22]  # 福福福 on the top row and 福 on a diagonal
BOY, GIRL = 1, 2


@cache
def eng() -> SlotEngine:
    return SlotEngine(variant_config("slots.duocai"))


def opened(stack: int = 10**6) -> dict[str, Any]:
    return {
        "variant": "slots.duocai",
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p", "stack": stack}],
        "carry": {},
    }


def spin(dice: list[int], stake: int = 500, stack: int = 10**6) -> SlotState:
    e = eng()
    st = e.open("h", opened(stack))
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "spin", "amount": stake})
    e.step(st, g.BETTING_CLOSED, {})
    assert e.next_deal(st) == g.DealRequest(dice=3, faces=(30, 30, 30))
    e.step(st, g.DICE_ROLLED, {"dice": dice, "faces": [30, 30, 30], "roll": 0})
    return st


def guess(st: SlotState, pick: str, times: int, die: int) -> None:
    e = eng()
    e.step(
        st, g.ACTION_TAKEN, {"seat": 1, "action": "guess", "args": {"pick": pick, "times": times}}
    )
    assert e.next_deal(st) == g.DealRequest(dice=1, faces=(2,))
    e.step(st, g.DICE_ROLLED, {"dice": [die], "faces": [2], "roll": st.rolls})


def close(st: SlotState) -> None:
    eng().step(st, g.HAND_CLOSED, {"positions_used": 0, "carry": {}})


def test_a_losing_spin_loses_the_stake() -> None:
    st = spin(NO_WIN)
    e = eng()
    assert e.is_over(st) and st.end == "no_win" and e.auto_action(st) is None
    close(st)
    assert dict(e.settle(st).deltas) == {"p": -500, "house": 500}
    out = e.outcome(st)
    assert out["pays"] == 0 and out["collected"] == 0 and out["stops"] == [3, 0, 0]


def test_a_win_opens_the_double_up_and_collect_takes_it() -> None:
    st = spin(PAYS_102)  # line bet 100: the win is 100 x 102
    e = eng()
    assert st.phase == "double" and st.win == 10200 and not e.is_over(st)
    assert e.next_deal(st) is None
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "collect", "args": {}})
    assert e.is_over(st) and st.end == "collected"
    close(st)
    res = e.settle(st)
    assert dict(res.deltas) == {"p": 10200 - 500, "house": -9700}
    assert e.wagers(st)[0].result == Fraction(102, 5) - 1


def test_guesses_double_the_multiplied_stake_and_a_miss_loses_it() -> None:
    st = spin(PAYS_2, stack=10_000)  # win 200, balance 9,500
    e = eng()
    assert (st.win, st.balance) == (200, 9500)
    guess(st, "boy", 1, BOY)  # right: 2 x 200
    assert (st.win, st.balance, st.phase) == (400, 9500, "double")
    guess(st, "girl", 3, GIRL)  # stake 1,200 (800 from the balance): right, 2,400
    assert (st.win, st.balance) == (2400, 8700)
    guess(st, "girl", 2, BOY)  # stake 4,800 (2,400 from the balance): wrong
    assert (st.win, st.balance, st.end) == (0, 6300, "lost") and e.is_over(st)
    close(st)
    out = e.outcome(st)
    assert [
        (x["pick"], x["times"], x["stake"], x["top_up"], x["drawn"], x["right"])
        for x in out["double_up"]
    ] == [
        ("boy", 1, 200, 0, "boy", True),
        ("girl", 3, 1200, 800, "girl", True),
        ("girl", 2, 4800, 2400, "boy", False),
    ]
    res = e.settle(st)
    # spin -500 + 200; guesses +200, +1,200, -4,800: the balance left is the stack's rest
    assert dict(res.deltas) == {"p": -300 + 200 + 1200 - 4800, "house": 3700}
    assert 10_000 + res.deltas["p"] == st.balance


def test_eight_right_guesses_collect_automatically() -> None:
    st = spin(PAYS_2)
    for _ in range(7):
        guess(st, "boy", 1, BOY)
        assert st.phase == "double"
    guess(st, "girl", 1, GIRL)
    e = eng()
    assert st.end == "max_wins" and e.is_over(st) and st.win == 200 * 2**8
    close(st)
    assert e.settle(st).deltas["p"] == 200 * 2**8 - 500


def test_a_short_balance_collects_automatically() -> None:
    # stake 500 of 600: the win of 200 cannot be matched by the 100 left (x2 needs 200)
    st = spin(PAYS_2, stack=600)
    assert st.end == "balance_short" and eng().is_over(st)
    st = spin(PAYS_2, stack=700)  # 200 left: x2 is covered
    assert st.phase == "double"
    e = eng()
    with pytest.raises(ActionRejected) as err:
        e.verify(
            st, g.ACTION_TAKEN, {"seat": 1, "action": "guess", "args": {"pick": "boy", "times": 3}}
        )
    assert err.value.reason == "insufficient_stack"
    guess(st, "boy", 2, BOY)  # 200 more: balance 0, win 800
    assert st.balance == 0 and st.end == "balance_short"


def test_the_timeout_collects() -> None:
    st = spin(PAYS_102)
    e = eng()
    assert e.auto_action(st) == (1, "collect", {})
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "collect", "args": {"auto": "timeout"}})
    assert st.end == "collected" and e.auto_action(st) is None


def test_without_a_bet_the_hand_ends_at_once() -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BETTING_CLOSED, {})
    assert e.is_over(st) and e.next_deal(st) is None and st.end == "no_bet"
    close(st)
    assert e.wagers(st) == [] and e.outcome(st)["stops"] == []
    assert dict(e.settle(st).deltas) == {"house": 0}


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"seat": 1, "spot": "lines", "amount": 500}, "unknown_spot"),
        ({"seat": 2, "spot": "spin", "amount": 500}, "unknown_seat"),
        ({"seat": 1, "spot": "spin", "amount": 300}, "bad_amount"),  # not line bet x 5
        ({"seat": 1, "spot": "spin", "amount": 5 * 300}, "bad_amount"),  # 300 is no line bet
        ({"seat": 1, "spot": "spin", "amount": 0}, "bad_amount"),
        ({"seat": 1, "spot": "spin", "amount": "500"}, "bad_amount"),
        ({"seat": 1, "spot": "spin", "amount": 25000}, "insufficient_stack"),
        ({"seat": 1, "spot": "spin"}, "malformed"),
    ],
)
def test_bad_bets_are_refused(payload: dict[str, Any], reason: str) -> None:
    e = eng()
    st = e.open("h", opened(stack=20000))
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, payload)
    assert err.value.reason == reason and st.stake == 0


def test_one_spin_per_hand() -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "spin", "amount": 500})
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "spin", "amount": 500})
    assert err.value.reason == "already_bet"


@pytest.mark.parametrize(
    ("action", "args", "reason"),
    [
        ("guess", {"pick": "dragon", "times": 1}, "bad_pick"),
        ("guess", {"pick": "boy", "times": 4}, "bad_multiple"),
        ("guess", {"pick": "boy", "times": True}, "bad_multiple"),
        ("guess", {"pick": "boy"}, "malformed"),
        ("guess", {"pick": "boy", "times": 1, "auto": "timeout"}, "malformed"),
        ("collect", {"all": True}, "malformed"),
        ("collect", {"auto": "yes"}, "malformed"),
        ("spin", {}, "unknown_action"),
    ],
)
def test_bad_double_up_actions_are_refused(action: str, args: dict[str, Any], reason: str) -> None:
    st = spin(PAYS_102)
    before = (st.win, st.balance, list(st.guesses))
    with pytest.raises(ActionRejected) as err:
        eng().verify(st, g.ACTION_TAKEN, {"seat": 1, "action": action, "args": args})
    assert err.value.reason == reason
    assert (st.win, st.balance, list(st.guesses)) == before


def test_no_double_up_without_a_win_or_while_the_die_is_awaited() -> None:
    e = eng()
    st = spin(NO_WIN)
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, {"seat": 1, "action": "collect", "args": {}})
    assert err.value.reason == "not_in_double_up"
    st = spin(PAYS_102)
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "guess", "args": {"pick": "boy", "times": 1}})
    with pytest.raises(ActionRejected) as err:
        e.verify(st, g.ACTION_TAKEN, {"seat": 1, "action": "collect", "args": {}})
    assert err.value.reason == "not_in_double_up"
    assert e.auto_action(st) is None


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"dice": [1, 1], "faces": [30, 30], "roll": 0}, "illegal_roll"),
        ({"dice": [1, 1, 1], "faces": [6, 6, 6], "roll": 0}, "illegal_roll"),
        ({"dice": [1, 1, 31], "faces": [30, 30, 30], "roll": 0}, "bad_die"),
        ({"dice": [1, 1, 1], "faces": [30, 30, 30], "roll": 2}, "bad_roll_number"),
    ],
)
def test_bad_reel_rolls_are_refused(payload: dict[str, Any], reason: str) -> None:
    e = eng()
    st = e.open("h", opened())
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "spin", "amount": 500})
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.DICE_ROLLED, payload)
    assert err.value.reason == reason and st.spin is None


def test_the_guess_die_is_two_faced_and_numbered_after_the_spin() -> None:
    e = eng()
    st = spin(PAYS_102)
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "guess", "args": {"pick": "boy", "times": 1}})
    for payload, reason in (
        ({"dice": [1], "faces": [2], "roll": 0}, "bad_roll_number"),
        ({"dice": [3], "faces": [2], "roll": 1}, "bad_die"),
        ({"dice": [1], "faces": [6], "roll": 1}, "illegal_roll"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.DICE_ROLLED, payload)
        assert err.value.reason == reason


def test_describe_evaluates_bare_stops() -> None:
    out = eng().describe("eval", [["3", "7", "22"]])
    assert out["pays"] == 102 and out["window"][0] == ["fu", "fu", "fu"]
    for action, hands in (
        ("compare", [["1", "1", "1"]]),
        ("eval", [["1", "1"]]),
        ("eval", [["1", "1", "31"]]),
        ("eval", [["a", "1", "1"]]),
        ("eval", [["1", "1", "1"], ["1", "1", "1"]]),
    ):
        with pytest.raises(InvalidInput):
            eng().describe(action, hands)


def test_config_checks() -> None:
    raw = dict(variant_config("slots.duocai").raw)
    cfg = variant_config("slots.duocai")
    for key, value, needle in (
        ("seats", {"max": 2}, "one seat"),
        ("line_bets", {"values": [200, 100]}, "increasing"),
        ("line_bets", {"values": []}, "positive"),
        ("double_up", {**raw["double_up"], "multiples": [2, 3]}, "include 1"),
        ("double_up", {**raw["double_up"], "max_wins": 0}, "max_wins"),
    ):
        bad = g.VariantConfig(cfg.variant, cfg.version, cfg.family, cfg.deck, {**raw, key: value})
        with pytest.raises(ConfigError) as err:
            SlotEngine(bad)
        assert needle in err.value.message
