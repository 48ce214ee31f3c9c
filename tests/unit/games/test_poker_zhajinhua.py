"""炸金花 (zhajinhua), 000_d16ad353ba467b8a.txt, 炸金花: blind and seen bets, raises within
the single-bet cap, look, fold, compare (twice the call; the challenger loses ties), the
round and total caps forcing a showdown, split winnings, the automatic fold of a seat that
cannot pay, the visibility rules, and bad input."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from croupier.errors import (
    ActionRejected,
    BetRejected,
    ConfigError,
    InvalidInput,
    RuleViolation,
)
from croupier.games import base as g
from croupier.games.poker.script import Feeder, opened
from croupier.games.poker.zhajinhua import ZhajinhuaEngine, ZhajinhuaState, visible_hands
from croupier.games.registry import engine, seeds_dir

ZJH = "zhajinhua"
FEED: dict[int, Feeder] = {}
STRONG = {
    "seat:1": ["As", "Ad", "Ah"],  # 豹子 AAA
    "seat:2": ["Kh", "Qh", "Jh"],  # 顺金 KQJ
    "seat:3": ["2c", "3d", "5s"],  # 单张 532
}


def eng(**changes: Any) -> ZhajinhuaEngine:
    if not changes:
        e = engine(ZJH)
        assert isinstance(e, ZhajinhuaEngine)
        return e
    raw = json.loads((seeds_dir() / "variants" / f"{ZJH}.json").read_text(encoding="utf-8"))
    for path, value in changes.items():
        section, key = path.split("__")
        raw[section][key] = value
    return ZhajinhuaEngine(g.VariantConfig.from_json_dict(raw))


def start(
    e: ZhajinhuaEngine,
    cards: dict[str, list[str]] = STRONG,
    stacks: tuple[int, ...] = (10_000, 10_000, 10_000),
) -> ZhajinhuaState:
    """Button on seat 1 (carried from seat 3): seat 2 acts first."""
    feeder = Feeder(cards)
    seats = [(i + 1, f"p{i + 1}", s) for i, s in enumerate(stacks)]
    st = e.open("h", opened(ZJH, seats, carry={"button": len(stacks)}))
    e.step(st, g.BETTING_CLOSED, {})
    feeder.advance(e, st)
    FEED[id(st)] = feeder
    assert st.button == 1 and st.turn == 2 and st.round_no == 1
    return st


def act(e: ZhajinhuaEngine, st: ZhajinhuaState, seat: int, action: str, **args: Any) -> None:
    e.step(st, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
    FEED[id(st)].advance(e, st)


def refused(
    e: ZhajinhuaEngine, st: ZhajinhuaState, seat: int, action: str, reason: str, **args: Any
) -> None:
    before = copy.deepcopy(st)
    with pytest.raises(ActionRejected) as err:
        act(e, st, seat, action, **args)
    assert err.value.reason == reason, err.value.message
    assert st == before


def test_blind_and_seen_bets_compares_and_visibility() -> None:
    e = eng()
    st = start(e)
    assert st.chips.put == {1: 100, 2: 100, 3: 100}  # the ante
    act(e, st, 2, "call")  # blind: the unit, 100
    act(e, st, 3, "look")  # looking ends no turn
    assert st.turn == 3
    refused(e, st, 3, "look", "already_looked")
    refused(e, st, 3, "raise", "under_minimum", amount=200)  # seen call is already 200
    refused(e, st, 3, "raise", "bad_amount", amount=300)  # a seen 300 is a blind 150
    refused(e, st, 3, "raise", "over_cap", amount=2_200)  # 单注封顶 2,000 (seen)
    act(e, st, 3, "raise", amount=400)  # seen 400 = blind unit 200
    assert st.unit == 200
    refused(e, st, 1, "raise", "over_cap", amount=1_100)  # blind: half the cap
    act(e, st, 1, "call")  # blind pays the unit, 200
    assert st.round_no == 2 and st.turn == 2
    refused(e, st, 2, "compare", "bad_target", target=2)
    refused(e, st, 2, "compare", "unknown_seat", target=9)
    act(e, st, 2, "compare", target=3)  # costs twice its call: 2 x 200
    assert [(c.challenger, c.target, c.loser) for c in st.compares] == [(2, 3, 3)]
    assert st.live == {1, 2} and st.turn == 1
    act(e, st, 1, "look")
    refused(e, st, 1, "compare", "target_folded", target=3)
    act(e, st, 1, "compare", target=2)  # seen: twice 400
    assert st.phase == "done" and st.end == "last_standing" and st.decided_by_compare
    assert st.chips.put == {1: 1_100, 2: 600, 3: 500}
    res = e.settle(st)
    assert dict(res.deltas) == {"p1": 1_045, "p2": -600, "p3": -500}  # 5% of 1,100
    assert res.total_rake == 55
    # who may see what (基本规则): the last two's compare decided it: everyone sees them
    assert visible_hands(st, 3) == {1, 2, 3}
    assert visible_hands(st, 2) == {1, 2, 3}
    assert visible_hands(st, 1) == {1, 2}
    assert visible_hands(st, None) == {1, 2}
    out = e.outcome(st)
    assert [s.get("hand") for s in out["seats"]] == ["豹子 AAA", "顺金 KQJ", None]
    assert out["compares"] == [
        {"challenger": 2, "target": 3, "loser": 3},
        {"challenger": 1, "target": 2, "loser": 2},
    ]


def test_the_challenger_loses_a_tie_and_a_fold_shows_nothing() -> None:
    e = eng()
    cards = {
        "seat:1": ["7s", "7d", "2h"],
        "seat:2": ["Kh", "Qd", "9s"],
        "seat:3": ["Kd", "Qc", "9h"],
    }
    st = start(e, cards)
    act(e, st, 2, "compare", target=3)  # equal 单张 KQ9: the challenger loses
    assert st.compares[-1].loser == 2
    act(e, st, 3, "call")
    act(e, st, 1, "fold")
    assert st.end == "last_standing" and not st.decided_by_compare
    # seat 2 and 3 compared: they see each other; seat 1 folded out, nothing more shown
    assert visible_hands(st, 2) == {2, 3} and visible_hands(st, 3) == {2, 3}
    assert visible_hands(st, 1) == {1} and visible_hands(st, None) == set()
    assert "cards" not in json.dumps(e.outcome(st)["seats"])
    # during the hand a seat sees its own cards only
    mid = start(e, cards)
    act(e, mid, 2, "compare", target=3)
    assert visible_hands(mid, 3) == {3}


def test_round_cap_forces_a_showdown_and_equal_hands_split() -> None:
    e = eng(caps__rounds=2)
    cards = {
        "seat:1": ["As", "Kd", "9h"],
        "seat:2": ["Ac", "Kh", "9s"],
        "seat:3": ["Qs", "Jd", "8c"],
    }
    st = start(e, cards)
    for _ in range(2):
        for seat in (2, 3, 1):
            act(e, st, seat, "call")
    assert st.phase == "done" and st.end == "round_cap" and st.showdown
    assert e.winners(st) == [1, 2]
    res = e.settle(st)
    # each put 300; seats 1 and 2 split seat 3's 300 (平分盈利), less 5% each
    assert dict(res.deltas) == {"p1": 143, "p2": 143, "p3": -300}
    assert res.total_rake == 14
    # three at a showdown: those in it see each other, the rest nothing more
    assert visible_hands(st, 1) == {1, 2, 3} and visible_hands(st, None) == set()


def test_total_cap_forces_a_showdown() -> None:
    e = eng(caps__total=1_000)
    st = start(e)
    act(e, st, 2, "raise", amount=500)  # pot 300 + 500 = 800
    act(e, st, 3, "call")  # + 500 = 1,300 >= 1,000
    assert st.end == "total_cap" and e.winners(st) == [1]
    assert sum(e.settle(st).deltas.values()) + e.settle(st).total_rake == 0


def test_a_seat_that_cannot_pay_its_call_is_folded_by_the_rules() -> None:
    e = eng()
    st = start(e, stacks=(250, 10_000, 10_000))
    act(e, st, 2, "look")
    act(e, st, 2, "raise", amount=400)  # unit 200
    act(e, st, 3, "call")  # blind 200
    # seat 1 has 150 left, its blind call is 200: folded as its turn comes
    assert st.auto_folded == [1] and 1 not in st.live and st.turn == 2
    assert e.auto_action(st) == (2, "fold", {})  # a timeout folds
    # a look that raises the call past the stack folds the seat too
    st2 = start(e, stacks=(10_000, 10_000, 350))
    act(e, st2, 2, "raise", amount=200)
    assert st2.turn == 3
    act(e, st2, 3, "look")  # seen call 400 > 250 left
    assert st2.auto_folded == [3] and st2.turn == 1


def test_compare_needs_twice_the_call() -> None:
    e = eng()
    st = start(e, stacks=(10_000, 400, 10_000))
    act(e, st, 2, "look")  # seen call 200; a compare costs 400 and seat 2 has 300
    refused(e, st, 2, "compare", "insufficient_stack", target=3)
    turn = e.to_act(st)
    assert turn is not None and "compare" not in turn.actions


def test_bad_input_writes_nothing() -> None:
    e = eng()
    st = start(e)
    refused(e, st, 3, "call", "out_of_turn")
    refused(e, st, 2, "bet", "unknown_action")
    refused(e, st, 2, "raise", "malformed", amount="lots")
    # an action carries only its own arguments (a call's amount is the engine's to derive)
    refused(e, st, 2, "call", "malformed", amount=99_999)
    refused(e, st, 2, "compare", "malformed", target=1, amount=400)
    refused(e, st, 2, "raise", "malformed", amount=400, target=1)
    refused(e, st, 2, "look", "malformed", seen=True)
    refused(e, st, 2, "fold", "malformed", auto="bot")
    act(e, st, 2, "fold")
    refused(e, st, 2, "look", "folded")
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 100})
    assert err.value.reason == "no_bets"
    with pytest.raises(RuleViolation) as err2:
        e.verify(st, g.CARDS_REVEALED, {"to": "seat:1", "cards": ["As", "Ad", "Ah"]})
    assert err2.value.reason == "bad_reveal"
    with pytest.raises(RuleViolation) as err3:
        e.open("h", opened(ZJH, [(1, "a", 50), (2, "b", 500)]))
    assert err3.value.reason == "short_stack"
    with pytest.raises(RuleViolation) as err4:
        e.open("h", opened(ZJH, [(i, f"p{i}", 500) for i in range(1, 7)]))
    assert err4.value.reason == "too_many_seats"
    with pytest.raises(ConfigError):
        eng(caps__total=200)


def test_compare_result_is_announced_without_cards() -> None:
    e = eng()
    st = start(e)
    e.step(st, g.ACTION_TAKEN, {"seat": 2, "action": "compare", "args": {"target": 1}})
    assert e.next_deal(st) == g.DealRequest(reveal=("compare_loser:2",))
    refused(e, st, 3, "call", "compare_pending")
    with pytest.raises(RuleViolation):
        e.verify(st, g.CARDS_REVEALED, {"to": "compare_loser:1", "cards": []})
    e.step(st, g.CARDS_REVEALED, {"to": "compare_loser:2", "cards": []})
    assert st.live == {1, 3} and st.turn == 3


def test_describe() -> None:
    e = eng()
    out = e.describe("compare", [["As", "2d", "3c"], ["Ah", "Kd", "Qc"]])
    assert out["winner"] == 1 and out["hands"][0]["hand"] == "顺子 A23"
    tie = e.describe("compare", [["Ks", "Qd", "9c"], ["Kh", "Qc", "9d"]])
    assert tie["winner"] == 1  # the challenger loses ties
    assert e.describe("eval", [["Ks", "Kd", "9c"], ["Kh", "Kc", "9d"]])["winners"] == [0, 1]


def test_a_hand_over_is_settled_once_for_its_close_outcome_and_settlement() -> None:
    """The outcome shows each seat's delta, so it settles the hand; the settlement
    service and the audit then settle it again (``settle_state``): once the hand is
    over, ``Engine.settlement`` works it out once, its close included. An event taken
    on the state forgets it; another state (a copy, the next hand) is settled afresh."""
    from croupier.settlement import settle_state
    from croupier.testing import settles_of

    e = eng(rake__rate=0.05)  # a new engine: no hand of another test remembered
    st = start(e)
    act(e, st, 2, "fold")
    fresh = e.settle
    calls = settles_of(e)
    with pytest.raises(InvalidInput):
        e.outcome(st)  # not over: nothing to remember
    act(e, st, 3, "fold")
    assert e.is_over(st) and not st.closed and len(calls) == 1
    first = e.outcome(st)
    assert e.outcome(st) == first and len(calls) == 2  # over: remembered
    e.step(st, g.HAND_CLOSED, {"positions_used": [], "carry": e.carry(st)})
    out = e.outcome(st)
    hs = settle_state(e, st)
    assert len(calls) == 2  # the close changes nothing the money reads
    assert hs.result == fresh(st) and dict(hs.result.deltas) == {"p1": 190, "p2": -100, "p3": -100}
    assert out == first and [s["delta"] for s in out["seats"]] == [190, -100, -100]
    twin = copy.deepcopy(st)
    assert settle_state(e, twin).record_bytes == hs.record_bytes
    assert len(calls) == 3 and calls[-1] is twin  # another state object: settled afresh
    assert settle_state(e, twin).record_hash == hs.record_hash
    assert len(calls) == 3
    e.apply(twin, g.ACTION_TAKEN, {"seat": 1, "action": "look", "args": {}})
    settle_state(e, twin)
    assert len(calls) == 4  # an event taken on it: worked out anew
