"""必下德州 (holdem.must_bet) and 德州2+3 (holdem.two_plus_three): the seed's worked
example as a golden vector, hand-built cases for each betting rule, bad input."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.poker.holdem import HoldemEngine, HoldemState
from croupier.games.poker.script import Feeder, opened, script_hand
from croupier.games.registry import engine, seeds_dir

MUST = "holdem.must_bet"
TWO3 = "holdem.two_plus_three"


def eng(variant: str) -> HoldemEngine:
    e = engine(variant)
    assert isinstance(e, HoldemEngine)
    return e


FEED: dict[int, Feeder] = {}


def act(e: HoldemEngine, st: HoldemState, seat: int, action: str, **args: Any) -> None:
    """Take an action, then deal what the rules ask for (the script's cards)."""
    e.step(st, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
    FEED[id(st)].advance(e, st)


def scripted(
    e: HoldemEngine, payload: dict[str, Any], cards: dict[str, list[str]], dice: list[int]
) -> HoldemState:
    """A hand dealt up to its first decision, with a feeder for the rest."""
    feeder = Feeder(cards, dice)
    st = e.open("script", payload)
    e.step(st, g.BETTING_CLOSED, {})
    feeder.advance(e, st)
    FEED[id(st)] = feeder
    return st


def refused(
    e: HoldemEngine, st: HoldemState, seat: int, action: str, reason: str, **args: Any
) -> None:
    before = copy.deepcopy(st)
    with pytest.raises(ActionRejected) as err:
        act(e, st, seat, action, **args)
    assert err.value.reason == reason, err.value.message
    assert st == before


# --------------------------------------------------------------------------- 必下德州

GOLDEN_CARDS = {
    "seat:1": ["Ah", "Ad"],  # 玩家 A: AA, 三条 with the board's ace
    "seat:2": ["2s", "2h"],  # 玩家 B: 22
    "seat:3": ["3s", "3h"],  # 玩家 C: 33
    "seat:4": ["4s", "4h"],  # 玩家 D: 44
    "board": ["As", "7c", "8d", "9h", "Kd"],  # 公共牌 A 7 8 9 K
}


def test_golden_must_bet_worked_example() -> None:
    """000_d16ad353ba467b8a.txt, 必下德州规则, 结算例子 (初级馆): stakes A 400, B 200, C 800,
    D 1600; A wins the main pot (800) and side pot 1 (600), D side pot 2 (800) and gets
    its unmatched 800 (the seed's 边池三) back: A +950 after 5% of 1,000, B -200, C -800,
    D 0. (The seed lists side pot 1 as B200+C200+D200; B put in 200 in all, so its 600 is
    A's, C's and D's second 200.)"""
    e = eng(MUST)
    seats = [(1, "A", 10_000), (2, "B", 10_000), (3, "C", 10_000), (4, "D", 10_000)]
    events, st = script_hand(
        e,
        opened(MUST, seats, carry={"button": 3}),  # button D: A small blind, B big blind
        cards=GOLDEN_CARDS,
        actions=[
            (1, "bet", {"amount": 400}),
            (2, "check", {}),
            (3, "bet", {"amount": 800}),
            (4, "bet", {"amount": 1600}),
        ],
    )
    assert (st.button, st.sb, st.bb) == (4, 1, 2)
    assert st.closed and e.carry(st) == {"button": 4}
    res = e.settle(st)
    assert dict(res.deltas) == {"A": 950, "B": -200, "C": -800, "D": 0}
    assert res.total_rake == 50
    pots = [(p.amount, p.winners) for p in res.pots]
    assert pots == [(800, ("A",)), (600, ("A",)), (800, ("D",))]
    out = e.outcome(st)
    assert [s["hand"] for s in out["seats"]] == [
        "three of a kind: A K 9",
        "one pair: 2 A K 9",
        "one pair: 3 A K 9",
        "one pair: 4 A K 9",
    ]
    # the replay of the events gives the same state
    again = e.replay("script", events)
    assert again == st


def _must_after_deal(stacks: tuple[int, ...] = (10_000,) * 4) -> tuple[HoldemEngine, HoldemState]:
    e = eng(MUST)
    seats = [(i + 1, f"p{i + 1}", s) for i, s in enumerate(stacks)]
    st = scripted(e, opened(MUST, seats, carry={"button": 3}), GOLDEN_CARDS, [])
    assert st.phase == "act"
    return e, st


def test_must_bet_choices_and_refusals() -> None:
    e, st = _must_after_deal((10_000, 10_000, 10_000, 300))
    refused(e, st, 3, "fold", "unknown_action")
    refused(e, st, 3, "check", "cannot_check")
    refused(e, st, 3, "bet", "bad_amount", amount=500)
    refused(e, st, 3, "allin", "over_limit")
    refused(e, st, 4, "bet", "insufficient_stack", amount=400)
    refused(e, st, 2, "bet", "under_minimum", amount=200)  # the big blind has 200 in
    refused(e, st, 3, "bet", "malformed", amount=200, to=400)  # bets name an amount only
    refused(e, st, 1, "check", "malformed", amount=200)
    turn = e.to_act(st)
    assert turn is not None and turn.seat == 3 and turn.amounts == (200, 400, 800, 1600)
    act(e, st, 4, "allin")  # any order: choices are made in the same countdown
    refused(e, st, 4, "bet", "already_acted", amount=200)
    act(e, st, 1, "check")  # the small blind stays at 100
    act(e, st, 3, "bet", amount=200)
    act(e, st, 2, "bet", amount=1600)
    assert st.phase == "done" and st.revealed == {1, 2, 3, 4}  # every seat shows down
    assert st.chips.put == {1: 100, 2: 1600, 3: 200, 4: 300}


def test_must_bet_timeout_moves() -> None:
    e, st = _must_after_deal((10_000, 10_000, 10_000, 150))
    moves = []
    while (auto := e.auto_action(st)) is not None:
        moves.append(auto)
        act(e, st, auto[0], auto[1], **auto[2])
    assert moves == [
        (3, "bet", {"amount": 200}),
        (4, "allin", {}),
        (1, "check", {}),
        (2, "check", {}),
    ]


def test_must_bet_takes_no_bets_and_needs_chips() -> None:
    e = eng(MUST)
    st = e.open("h", opened(MUST, [(1, "a", 500), (2, "b", 500)]))
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 100})
    assert err.value.reason == "no_bets"
    with pytest.raises(RuleViolation) as err2:
        e.open("h", opened(MUST, [(1, "a", 500), (2, "b", 0)]))
    assert err2.value.reason == "empty_stack"
    with pytest.raises(RuleViolation) as err3:
        e.open("h", opened(MUST, [(i, f"p{i}", 500) for i in range(1, 11)]))
    assert err3.value.reason == "too_many_seats"


def test_button_die_then_rotation_and_heads_up_blinds() -> None:
    e = eng(MUST)
    st = e.open("h", opened(MUST, [(2, "a", 500), (5, "b", 500), (7, "c", 500)]))
    assert e.carry(st) == {}  # no button yet: the die decides
    e.step(st, g.BETTING_CLOSED, {})
    assert e.next_deal(st) == g.DealRequest(dice=1, faces=(3,))
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.DICE_ROLLED, {"dice": [2], "faces": [6], "roll": 0})
    assert err.value.reason == "bad_dice"
    e.step(st, g.DICE_ROLLED, {"dice": [2], "faces": [3], "roll": 0})
    assert (st.button, st.sb, st.bb) == (5, 7, 2)
    # rotation: clockwise to the next seat present, wrapping round
    nxt = e.open("h2", opened(MUST, [(2, "a", 500), (5, "b", 500), (7, "c", 500)], {"button": 7}))
    assert nxt.button == 2
    # two players: the seeds' two seats after the button are the other seat, then the button
    hu = e.open("h3", opened(MUST, [(1, "a", 500), (2, "b", 500)], {"button": 1}))
    e.step(hu, g.BETTING_CLOSED, {})
    assert (hu.button, hu.sb, hu.bb) == (2, 1, 2)


# ---------------------------------------------------------------------------- 德州2+3


def _two3(stacks: tuple[int, ...], die: int = 1) -> tuple[HoldemEngine, HoldemState]:
    e = eng(TWO3)
    seats = [(i + 1, f"p{i + 1}", s) for i, s in enumerate(stacks)]
    cards = {
        "seat:1": ["Qs", "Qh"],
        "seat:2": ["Qc", "Qd"],
        "seat:3": ["3s", "4s"],
        "seat:4": ["Ks", "7h"],
        "board": ["Kh", "Kd", "2c"],
    }
    # a random button every hand: the carry is ignored, the die decides
    st = scripted(e, opened(TWO3, seats, {"button": 3}), cards, [die])
    return e, st


def test_two_plus_three_full_hand_with_side_pot_and_split() -> None:
    e, st = _two3((10_000, 10_000, 10_000, 1_000))
    assert (st.button, st.sb, st.bb) == (1, 2, 3)
    assert st.rnd is not None and st.rnd.turn == 4  # left of the big blind
    refused(e, st, 1, "call", "out_of_turn")
    refused(e, st, 4, "check", "cannot_check")
    # an action carries only its own arguments: a call names no amount (the engine
    # derives it), a raise names no other field, a timeout is marked "timeout"
    refused(e, st, 4, "call", "malformed", to=99_999)
    refused(e, st, 4, "fold", "malformed", amount=5)
    refused(e, st, 4, "raise", "malformed", to=400, amount=400)
    refused(e, st, 4, "call", "malformed", auto="bot")
    act(e, st, 4, "call")
    refused(e, st, 1, "raise", "under_minimum", to=300)  # at least twice the bet of 200
    refused(e, st, 1, "bet", "bet_exists", to=400)
    act(e, st, 1, "raise", to=400)
    act(e, st, 2, "call")
    act(e, st, 3, "call")
    act(e, st, 4, "call")
    assert st.street == 1 and st.board == ["Kh", "Kd"]
    assert st.rnd is not None and st.rnd.turn == 2  # the small blind starts later rounds
    refused(e, st, 2, "bet", "under_minimum", to=100)  # a bet is at least the big blind
    refused(e, st, 2, "raise", "nothing_to_raise", to=400)
    act(e, st, 2, "bet", to=200)
    act(e, st, 3, "raise", to=400)
    act(e, st, 4, "allin")  # 600: above 400 but short of a full raise to 800
    act(e, st, 1, "call")
    act(e, st, 2, "call")  # seat 2 faced seat 3's full raise: it could have raised
    refused(e, st, 3, "raise", "raise_closed", to=1_200)  # the short all-in reopens nothing
    turn = e.to_act(st)
    assert turn is not None and turn.actions == ("fold", "call")
    act(e, st, 3, "call")
    assert st.street == 2 and st.board == ["Kh", "Kd", "2c"]
    act(e, st, 2, "bet", to=1_000)
    act(e, st, 3, "fold")
    act(e, st, 1, "call")
    assert st.phase == "done" and st.revealed == {1, 2, 4}  # the feeder turned them up
    res = e.settle(st)
    # seat 4's 豹子 KKK takes the main pot (4 x 1,000); seats 1 and 2 both hold KKQ and
    # split the side pot of 2 x 1,000; no fee in 德州2+3
    assert dict(res.deltas) == {"p1": -1_000, "p2": -1_000, "p3": -1_000, "p4": 3_000}
    assert res.total_rake == 0
    assert [(p.amount, p.winners) for p in res.pots] == [
        (4_000, ("p4",)),
        (2_000, ("p2", "p1")),
    ]
    hands = {s["seat"]: s.get("hand") for s in e.outcome(st)["seats"]}
    assert hands == {1: "对子 KKQ", 2: "对子 KKQ", 3: None, 4: "豹子 KKK"}


def test_two_plus_three_big_blind_has_no_option_and_folds_end_it() -> None:
    e, st = _two3((10_000, 10_000, 10_000))
    assert (st.button, st.sb, st.bb) == (1, 2, 3)
    act(e, st, 1, "call")
    act(e, st, 2, "call")
    # everyone has put in the same: the round is over without the big blind acting
    assert st.street == 1 and len(st.board) == 2
    act(e, st, 2, "check")
    act(e, st, 3, "bet", to=600)
    act(e, st, 1, "fold")
    assert e.auto_action(st) == (2, "fold", {})  # 20 s timeout: fold (下注规则)
    act(e, st, 2, "fold")
    assert st.phase == "done" and st.ended_by_folds
    assert e.next_deal(st) is None  # no showdown, nothing turned up
    assert dict(e.settle(st).deltas) == {"p1": -200, "p2": -200, "p3": 400}


def test_two_plus_three_blinds_only() -> None:
    e, st = _two3((10_000, 10_000, 10_000), die=2)
    assert (st.button, st.sb, st.bb) == (2, 3, 1)
    act(e, st, 2, "fold")
    act(e, st, 3, "fold")
    assert st.phase == "done" and st.board == []
    assert dict(e.settle(st).deltas) == {"p1": 100, "p2": 0, "p3": -100}


def test_reveals_must_show_the_hole_cards() -> None:
    e, st = _two3((10_000, 10_000))
    act(e, st, 2, "call")  # heads up: seat 2 is the small blind and acts first
    act(e, st, 2, "check")
    act(e, st, 1, "check")
    act(e, st, 2, "check")
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "check", "args": {}})  # not fed
    req = e.next_deal(st)
    assert req is not None and req.reveal
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.CARDS_REVEALED, {"to": req.reveal[0], "cards": ["As", "Ks"]})
    assert err.value.reason == "bad_reveal"
    with pytest.raises(RuleViolation) as err2:
        e.verify(st, g.CARD_DEALT, {"cards": [{"to": "board", "card": "As", "pos": 9, "up": True}]})
    assert err2.value.reason == "illegal_deal"


def test_describe() -> None:
    e = eng(MUST)
    out = e.describe("compare", [["As", "7c", "8d", "9h", "Kd"], ["Ah", "Ad"], ["6s", "Tc"]])
    assert out["winners"] == [1]  # T-6 makes the 6-T straight
    assert out["hands"][1]["hand"] == "straight: T"
    two3 = eng(TWO3).describe("eval", [["Kh", "Kd", "2c"], ["Ks", "7h"]])
    assert two3["hands"][0]["hand"] == "豹子 KKK"
    with pytest.raises(InvalidInput):
        e.describe("compare", [["As", "7c", "8d"], ["Ah", "Ad"]])
    with pytest.raises(InvalidInput):
        e.describe("compare", [["As", "7c", "8d", "9h", "Kd"], ["As", "Ad"]])


def test_the_big_blind_option_reading_is_one_config_value_away() -> None:
    """The usual hold'em first round (the big blind may check or raise after the limps) is
    ``check_in_first_round: true``; 德州2+3's config keeps the seed's reading (no check in
    the first round, no option)."""
    raw = json.loads((seeds_dir() / "variants" / f"{TWO3}.json").read_text(encoding="utf-8"))
    assert raw["betting"]["check_in_first_round"] is False
    raw["betting"]["check_in_first_round"] = True
    e = HoldemEngine(g.VariantConfig.from_json_dict(raw))
    cards = {"seat:1": ["Qs", "Qh"], "seat:2": ["Qc", "Qd"], "seat:3": ["3s", "4s"]}
    st = scripted(e, opened(TWO3, [(1, "a", 5_000), (2, "b", 5_000), (3, "c", 5_000)]), cards, [1])
    act(e, st, 1, "call")
    act(e, st, 2, "call")
    turn = e.to_act(st)
    assert (
        turn is not None and turn.seat == 3 and turn.actions == ("fold", "check", "raise", "allin")
    )
    assert st.street == 0 and st.board == []
