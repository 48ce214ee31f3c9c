"""The Sangong engine on hand-built deals: the event flow of the hundred-player and the
grab tables, the banker's draw, the settlement through the money kernel (the seeds'
pro rata examples as golden tests), the multiplier limit of a short balance, bad input
(a precise error, the state untouched) and ``describe``."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
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
from croupier.games.registry import variant_config
from croupier.games.sangong.engine import (
    BANKER,
    SPOTS,
    Draw,
    Phase,
    SangongEngine,
    SangongState,
)
from croupier.money import HOUSE, MINOR_PER_POINT, LiabilityStep, TheoreticalStep

Events = list[tuple[str, dict[str, Any]]]


def eng(variant: str) -> SangongEngine:
    """The engine, built from its config alone (not through the registry of every
    family)."""
    return SangongEngine(variant_config(variant))


def opened(stacks: Sequence[int]) -> dict[str, Any]:
    return {
        "variant": "x",
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "shoe": "s",
        "commitment": "",
        "carry": {},
        "seats": [{"seat": i + 1, "player": f"p{i + 1}", "stack": s} for i, s in enumerate(stacks)],
    }


class Table:
    """A scripted dealer: deals the given hands (by target) in the order the engine asks,
    rolls the given die, and plays the given actions when the engine waits."""

    def __init__(
        self,
        variant: str,
        stacks: Sequence[int],
        hands: Mapping[str, str],
        *,
        bets: Sequence[tuple[int, str, int]] = (),
        roll: int = 1,
    ) -> None:
        self.e = eng(variant)
        self.events: Events = [(g.HAND_OPENED, opened(stacks))]
        self.st = self.e.open("h1", self.events[0][1])
        self.hands = {t: h.split() for t, h in hands.items()}
        self.roll = roll
        self.pos = 0
        for seat, spot, amount in bets:
            self.step(g.BET_PLACED, {"seat": seat, "spot": spot, "amount": amount})
        self.step(g.BETTING_CLOSED, {})
        self.deal()

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)
        self.events.append((type_, payload))

    def deal(self) -> None:
        while (req := self.e.next_deal(self.st)) is not None:
            if req.dice:
                self.step(g.DICE_ROLLED, {"dice": [self.roll], "faces": list(req.faces), "roll": 0})
            for t in req.reveal:
                self.step(g.CARDS_REVEALED, {"to": t, "cards": list(self.st.dealt[t])})
            if req.cards:
                taken: dict[str, int] = {}
                cards = []
                for d in req.cards:
                    i = taken.get(d.to, 0)
                    taken[d.to] = i + 1
                    cards.append({"to": d.to, "card": self.hands[d.to][i], "pos": self.pos})
                    cards[-1]["up"] = d.up
                    self.pos += 1
                self.step(g.CARD_DEALT, {"cards": cards})

    def act(self, seat: int, action: str, **args: Any) -> None:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        self.deal()

    def close(self) -> SangongState:
        assert self.e.is_over(self.st)
        self.step(g.HAND_CLOSED, {"positions_used": self.pos, "carry": {}})
        return self.st


HUNDRED = {
    BANKER: "9s 9h Kd",  # 8 points, x2
    "east": "Ks Qs Jd",  # 三公, x3: beats the banker
    "south": "2s 3h 4d",  # 9 points x2 (9 > 8)
    "west": "Ac Kc Tc",  # 1 point: loses to the banker's x2
    "north": "3s 3d 3c",  # 爆玖 x5
}


def test_hundred_hand_flow_and_outcome() -> None:
    t = Table("sangong.hundred", [10**7, 10**7], HUNDRED, bets=[(1, "east", 1000)])
    types = [x for x, _ in t.events]
    # bets, close, one card.dealt of 15 face-down cards, then 开牌 庄、东、南、西、北
    assert types[:3] == [g.HAND_OPENED, g.BET_PLACED, g.BETTING_CLOSED]
    assert types[3] == g.CARD_DEALT and len(t.events[3][1]["cards"]) == 15
    assert all(c["up"] is False for c in t.events[3][1]["cards"])
    deal_order = [c["to"] for c in t.events[3][1]["cards"]]
    assert deal_order == [BANKER, *SPOTS] * 3
    assert [p["to"] for x, p in t.events if x == g.CARDS_REVEALED] == [BANKER, *SPOTS]
    st = t.close()
    out = t.e.outcome(st)
    assert out["banker"]["category"] == "points" and out["banker"]["points"] == 8
    assert [(s["spot"], s["winner"], s["result"]) for s in out["spots"]] == [
        ("east", "east", 3),
        ("south", "south", 2),
        ("west", BANKER, -2),
        ("north", "north", 5),
    ]


def test_hundred_settlement_multipliers_and_rake() -> None:
    bets = [(1, "east", 1000), (1, "west", 500), (2, "north", 200), (2, "west", 300)]
    t = Table("sangong.hundred", [10**7, 10**7], HUNDRED, bets=bets)
    r = t.e.settle(t.close())
    # p1: east +3 x 1000, west -2 x 500: net 2000, rake 5% = 100
    # p2: north +5 x 200, west -2 x 300: net 400, rake 20
    assert r.deltas == {"p1": 1900, "p2": 380, HOUSE: -2400}
    assert r.rake == {"p1": 100, "p2": 20, HOUSE: 0}
    assert sum(r.deltas.values()) + r.total_rake == 0
    # record version 2 lists stakes and stake plus net before rake (000_d16ad353ba467b8a.txt,
    # 百人三公游戏规则, 游戏流程 4) 结算): p1 staked 1000 + 500 = 1500, returned 1500 + 2000;
    # p2 staked 200 + 300 = 500, returned 500 + 400. Their gain is the house's loss.
    assert r.staked == {"p1": 1500, "p2": 500}
    assert r.returned == {"p1": 3500, "p2": 900}
    assert sum(r.returned.values()) - sum(r.staked.values()) == -r.deltas[HOUSE]
    assert r.to_json_dict()["staked"] == {"p1": 1500, "p2": 500}
    assert r.to_json_dict(1)["staked"] == {} and r.to_json_dict(1)["returned"] == {}
    assert {(s.participant, s.spot): s.amount for s in r.spots if s.participant != HOUSE} == {
        ("p1", "east"): 3000,
        ("p1", "west"): -1000,
        ("p2", "north"): 1000,
        ("p2", "west"): -600,
    }


def test_hundred_short_balance_limits_the_multiplier() -> None:
    # 百人三公 结算: a short balance limits each spot's multiplier. 1500 staked on a
    # balance of 3000: at most 2x on every spot, win or lose
    bets = [(1, "north", 1000), (1, "west", 500)]
    t = Table("sangong.hundred", [3000], HUNDRED, bets=bets)
    st = t.close()
    assert t.e.spot_limit(st, 1) == 2
    assert t.e.outcome(st)["limits"] == [{"seat": 1, "limit": 2}]  # 受限倍数会显示
    r = t.e.settle(st)
    # north 爆玖 x5 -> x2: +2000; west loses the banker's x2: -1000; net 1000, rake 50
    assert r.deltas == {"p1": 950, HOUSE: -1000}
    assert r.rake["p1"] == 50
    # and a balance that covers the top multiple leaves it alone
    t2 = Table("sangong.hundred", [7500], HUNDRED, bets=bets)
    assert t2.e.spot_limit(t2.close(), 1) == 5


def test_hundred_nobody_loses_more_than_carried() -> None:
    # every spot loses the banker's 爆玖 x5, but the balance limits it to x1
    hands = {**HUNDRED, BANKER: "3s 3h 3d", "south": "2s 4h 5d", "north": "9c 9d Kh"}
    t = Table("sangong.hundred", [1200], hands, bets=[(1, s, 300) for s in SPOTS])
    r = t.e.settle(t.close())
    assert r.deltas == {"p1": -1200, HOUSE: 1200}


def test_hundred_bad_bets_write_nothing() -> None:
    e = eng("sangong.hundred")
    st = e.open("h1", opened([10_000, 10_000]))
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "east", "amount": 5000})
    before = copy.deepcopy(st)
    for payload, reason in [
        ({"seat": 1, "spot": "centre", "amount": 100}, "unknown_spot"),
        ({"seat": 1, "spot": "east", "amount": 150}, "bad_amount"),
        ({"seat": 1, "spot": "east", "amount": -100}, "bad_amount"),
        ({"seat": 1, "spot": "east", "amount": True}, "bad_amount"),
        ({"seat": 1, "spot": "south", "amount": 5100}, "insufficient_stack"),
        ({"seat": 2, "spot": "south", "amount": 10**6 + 100}, "over_limit"),
        ({"seat": 9, "spot": "south", "amount": 100}, "unknown_seat"),
        ({"seat": 1, "spot": "south"}, "malformed"),
    ]:
        with pytest.raises(RuleViolation) as err:
            e.step(st, g.BET_PLACED, payload)
        assert err.value.reason == reason, payload
        assert st == before
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(BetRejected) as err:  # a spot after the countdown: closed
        e.step(st, g.BET_PLACED, {"seat": 2, "spot": "east", "amount": 100})
    assert err.value.reason == "betting_closed"
    with pytest.raises(ActionRejected) as err:
        e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "grab", "args": {}})
    assert err.value.reason == "unknown_action"


# -- grab tables -------------------------------------------------------------------------

GRAB_HANDS = {
    "hand:1": "Ks Kh Kd",  # bomb x4
    "hand:2": "2s 3h 4d",  # 9 points x2
    "hand:3": "Ts Jh Qd",  # 0 points
    "hand:4": "As 9h Qc",  # 0 points
}


def test_grab_flow_cards_first_then_grab_draw_bet_and_open() -> None:
    stacks = [10**6, 3 * 10**6, 10**6, 10**6]
    t = Table("sangong.grab", stacks, GRAB_HANDS, roll=3)
    assert t.st.phase == Phase.GRAB
    dealt = t.events[2][1]["cards"]
    assert [c["to"] for c in dealt] == ["hand:1", "hand:2", "hand:3", "hand:4"] * 3
    assert not any(c["up"] for c in dealt)
    assert {x.seat for x in t.e.to_act(t.st)} == {1, 2, 3, 4}
    t.act(1, "grab")
    t.act(2, "grab")
    t.act(3, "pass")
    t.act(4, "pass")
    # 001 抢庄 定庄: grabbers weighted by balance - one die of 1 + 3 faces (after the gcd)
    # (10**6 and 3 x 10**6 -> weights 1 and 3): the die's 1 picks seat 1, 2-4 seat 2
    assert t.st.phase == Phase.BET
    assert t.st.draw == Draw((1, 2), (1, 3), 3) and t.st.banker == 2
    roll_event = next(p for x, p in t.events if x == g.DICE_ROLLED)
    assert roll_event == {"dice": [3], "faces": [4], "roll": 0}


def test_weighted_draw_and_bets_settle_through_banker_cover() -> None:
    stacks = [10**6, 3 * 10**6, 10**6, 10**6]
    for roll, banker in [(1, 1), (2, 2), (4, 2)]:
        t = Table("sangong.grab", stacks, GRAB_HANDS, roll=roll)
        for s in (1, 2):
            t.act(s, "grab")
        for s in (3, 4):
            t.act(s, "pass")
        assert t.st.banker == banker
        assert t.st.draw == Draw((1, 2), (1, 3), roll)
    # banker seat 2 (9 points x2), players 1, 3, 4 bet 1, 3, 10
    t.act(1, "bet", multiple=1)
    t.act(3, "bet", multiple=3)
    assert t.st.phase == Phase.BET
    t.act(4, "bet", multiple=10)
    assert [p["to"] for x, p in t.events if x == g.CARDS_REVEALED] == [
        "hand:1",
        "hand:2",
        "hand:3",
        "hand:4",
    ]
    st = t.close()
    out = t.e.outcome(st)
    assert out["banker"]["seat"] == 2
    assert [(p["seat"], p["winner"], p["result"]) for p in out["players"]] == [
        (1, "player", 4),  # bomb x4 x bet 1
        (3, BANKER, -6),  # banker's 9 points x2 x bet 3
        (4, BANKER, -20),
    ]
    r = t.e.settle(st)
    base = 1000
    # p1 +4000 less 5%; banker +6000 +20000 -4000 = +22000, raked 5% of each comparison it
    # won (001 抢庄玩法介绍 庄家胜利所赢游戏币=A*M*Y-抽水): 300 + 1000
    assert r.deltas == {"p1": 4000 - 200, "p2": 22000 - 1300, "p3": -6 * base, "p4": -20 * base}
    assert sum(r.deltas.values()) + r.total_rake == 0


def test_nobody_grabs_any_seat_may_bank() -> None:
    t = Table("sangong.grab", [0, 10**6, 10**6], GRAB_HANDS, roll=1)
    for s in (1, 2, 3):
        t.act(s, "pass")
    # 所有人都不抢庄，随机选择一名玩家坐庄: every seat, equal weights, even one with no money
    assert t.st.draw == Draw((1, 2, 3), (1, 1, 1), 1) and t.st.banker == 1


def test_a_single_grabber_banks_without_a_roll() -> None:
    t = Table("sangong.grab", [10**6, 10**6, 10**6], GRAB_HANDS)
    t.act(1, "pass")
    t.act(2, "grab")
    t.act(3, "pass")
    assert t.st.banker == 2 and t.st.draw is not None and t.st.draw.roll is None
    assert g.DICE_ROLLED not in [x for x, _ in t.events]


def test_classic_highest_grab_banks_ties_drawn_cards_after_bets() -> None:
    hands = {f"seat:{k[5:]}": v for k, v in GRAB_HANDS.items()}
    t = Table("sangong.classic", [10**6] * 4, hands, roll=2)
    assert t.st.phase == Phase.GRAB and not t.st.dealt  # 001 三公: 发牌 after 下注
    t.act(1, "grab", multiple=2)
    t.act(2, "grab", multiple=4)
    t.act(3, "pass")
    t.act(4, "grab", multiple=4)
    # 抢庄倍数最高的玩家为本局庄家; equal: random among them (seat 2, seat 4)
    assert t.st.draw == Draw((2, 4), (1, 1), 2) and t.st.banker == 4
    for s in (1, 2, 3):
        t.act(s, "bet", multiple=1)
    dealt = next(p for x, p in t.events if x == g.CARD_DEALT)["cards"]
    assert [c["to"] for c in dealt] == ["seat:1", "seat:2", "seat:3", "seat:4"] * 3
    st = t.close()
    out = t.e.outcome(st)
    # banker seat 4 (A 9 Q: 0 points x1): seat 1's bomb (x3) and seat 2's 9 (x2) win; so
    # does seat 3's T J Q, 0 points too but two face cards to one (no standoff rule here)
    assert [(p["seat"], p["winner"], p["result"]) for p in out["players"]] == [
        (1, "player", 3),
        (2, "player", 2),
        (3, "player", 1),
    ]


def test_grab_banker_short_pays_pro_rata() -> None:
    """001 抢庄 特殊情况 on a table where it happens: the banker carries 30 points and three
    9-point players (x2, bet 1, base 10 points) should win 20 points each: 10 each."""
    hands = {"hand:1": "Ts Jh Qd", "hand:2": "2s 3h 4d", "hand:3": "2h 3d 4c", "hand:4": "2d 3c 4s"}
    t = Table("sangong.grab", [3000, 10**6, 10**6, 10**6], hands)
    t.act(1, "grab")
    for s in (2, 3, 4):
        t.act(s, "pass")
    # the banker's balance pays no player even x1 at the top multiplier 5: the smallest
    assert [x.multiples for x in t.e.to_act(t.st)] == [(1,), (1,), (1,)]
    for s in (2, 3, 4):
        t.act(s, "bet", multiple=1)
    r = t.e.settle(t.close())
    # 1000 each after pro rata, less 5%
    assert r.deltas == {"p1": -3000, "p2": 950, "p3": 950, "p4": 950}
    assert r.total_rake == 150


def test_golden_classic_25_25_12_5_37_5() -> None:
    """001_5f10773fec037198.txt, 三公, 特殊情况: the banker has 100 and loses all of it; A,
    B, C, D should win 200, 200, 100, 300 and get 25, 25, 12.5, 37.5 - through the
    engine: base A = 10 points, bet multiple Y = 10 for everyone, player hands N = 2 (9
    points), 2, 1 (1 point) and 3 (三公): A*N*Y = 200, 200, 100, 300 points."""
    e = eng("sangong.classic")
    assert e.grab is not None and e.grab.base == 10 * MINOR_PER_POINT
    hands = {
        "seat:1": "Ts Jh Qd",  # banker: 0 points x1
        "seat:2": "2s 3h 4d",  # A: 9 points x2, bet 10 -> 10 x 2 x 10 = 200
        "seat:3": "2h 3d 4c",  # B: same, 200
        "seat:4": "As Kh Qc",  # C: 1 point x1 -> 100
        "seat:5": "Ks Qs Jd",  # D: 三公 x3 -> 300
    }
    t = Table("sangong.classic", [100 * MINOR_PER_POINT] + [10**6] * 4, hands)
    t.act(1, "grab", multiple=1)
    for s in (2, 3, 4, 5):
        t.act(s, "pass")
    for s in (2, 3, 4, 5):
        t.act(s, "bet", multiple=10)
    st = t.close()
    r = e.settle(st)
    first = r.steps[0]
    assert isinstance(first, TheoreticalStep)
    theo = dict(first.nets)
    assert theo == {
        "p1": -800 * MINOR_PER_POINT,
        "p2": 200 * MINOR_PER_POINT,
        "p3": 200 * MINOR_PER_POINT,
        "p4": 100 * MINOR_PER_POINT,
        "p5": 300 * MINOR_PER_POINT,
    }
    liability = next(s for s in r.steps if isinstance(s, LiabilityStep))
    after = dict(liability.after)
    assert after == {"p1": -10000, "p2": 2500, "p3": 2500, "p4": 1250, "p5": 3750}
    # then 2% of each winner's win
    assert r.rake == {"p1": 0, "p2": 50, "p3": 50, "p4": 25, "p5": 75}
    assert r.deltas == {"p1": -10000, "p2": 2450, "p3": 2450, "p4": 1225, "p5": 3675}
    assert sum(r.deltas.values()) + r.total_rake == 0


def test_fang_yi_xiao_bo_da_a_player_wins_at_most_what_they_carried() -> None:
    # 001 防以小博大 (carried 80, theoretical 200 -> 80): here carried 20 points, 三公 x3
    # against 0 points at base 10 and bet 1: theoretical 30, wins 20
    hands = {"seat:1": "Ts Jh Qd", "seat:2": "Ks Qs Jd"}
    t = Table("sangong.classic", [10**6, 20 * MINOR_PER_POINT], hands)
    t.act(1, "grab", multiple=1)
    t.act(2, "pass")
    # the balance pays no multiple at x3: the smallest
    assert [x.multiples for x in t.e.to_act(t.st)] == [(1,)]
    t.act(2, "bet", multiple=1)
    r = t.e.settle(t.close())
    assert r.deltas["p2"] + r.rake["p2"] == 20 * MINOR_PER_POINT
    assert r.deltas["p1"] == -20 * MINOR_PER_POINT


def test_grab_bad_actions_write_nothing() -> None:
    t = Table("sangong.classic", [10**6, 10**6, 30_000], {})
    e, st = t.e, t.st
    before = copy.deepcopy(st)
    for payload, reason in [
        ({"seat": 1, "action": "grab", "args": {"multiple": 5}}, "over_cap"),
        ({"seat": 1, "action": "grab", "args": {"multiple": 0}}, "bad_multiple"),
        ({"seat": 1, "action": "grab", "args": {}}, "malformed"),
        ({"seat": 1, "action": "grab", "args": {"multiple": "2"}}, "malformed"),
        ({"seat": 1, "action": "grab", "args": {"size": 2}}, "malformed"),
        ({"seat": 1, "action": "pass", "args": {"multiple": 2}}, "malformed"),
        ({"seat": 1, "action": "pass", "args": {"auto": "afk"}}, "malformed"),
        ({"seat": 1, "action": "pass", "args": None}, "malformed"),
        ({"seat": 1, "action": "bet", "args": {"multiple": 1}}, "wrong_phase"),
        ({"seat": 1, "action": "fold", "args": {}}, "unknown_action"),
        ({"seat": 7, "action": "pass", "args": {}}, "unknown_seat"),
    ]:
        with pytest.raises(ActionRejected if reason != "unknown_seat" else RuleViolation) as err:
            e.step(st, g.ACTION_TAKEN, payload)
        assert err.value.reason == reason, payload
        assert st == before
    with pytest.raises(BetRejected) as err:
        e.step(st, g.BET_PLACED, {"seat": 1, "spot": "east", "amount": 100})
    assert err.value.reason == "no_spots"
    t.act(1, "grab", multiple=3)
    with pytest.raises(ActionRejected) as err:
        e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "pass", "args": {}})
    assert err.value.reason == "already_decided"
    t.act(2, "pass")
    t.act(3, "pass")
    assert st.banker == 1 and st.phase == Phase.BET
    before = copy.deepcopy(st)
    # seat 3 carries 300 points: 30000 // (1000 x 3) = 10, the whole list
    assert [x.multiples for x in e.to_act(st)] == [(1, 3, 6, 10), (1, 3, 6, 10)]
    for payload, reason in [
        ({"seat": 1, "action": "bet", "args": {"multiple": 1}}, "banker_does_not_bet"),
        ({"seat": 2, "action": "bet", "args": {"multiple": 11}}, "over_limit"),
        ({"seat": 2, "action": "bet", "args": {"multiple": 2}}, "bad_multiple"),
        ({"seat": 2, "action": "bet", "args": {}}, "malformed"),
        ({"seat": 2, "action": "grab", "args": {"multiple": 1}}, "wrong_phase"),
    ]:
        with pytest.raises(ActionRejected) as err:
            e.step(st, g.ACTION_TAKEN, payload)
        assert err.value.reason == reason, payload
        assert st == before


def test_bet_over_the_balance_limited_multiple() -> None:
    # seat 2 carries 90 points: 9000 // (1000 x 3) = 3 -> 1 or 3, not 6
    t = Table("sangong.classic", [10**6, 9000], {})
    t.act(1, "grab", multiple=1)
    t.act(2, "pass")
    assert [x.multiples for x in t.e.to_act(t.st)] == [(1, 3)]
    with pytest.raises(ActionRejected) as err:
        t.e.step(t.st, g.ACTION_TAKEN, {"seat": 2, "action": "bet", "args": {"multiple": 6}})
    assert err.value.reason == "over_limit"
    assert "above 3, the most seat 2 may choose" in err.value.message
    # a seat that cannot cover even the smallest multiple still plays 1
    t2 = Table("sangong.classic", [10**6, 100], {})
    t2.act(1, "grab", multiple=1)
    t2.act(2, "pass")
    assert [x.multiples for x in t2.e.to_act(t2.st)] == [(1,)]


def test_a_seat_with_nothing_cannot_grab() -> None:
    t = Table("sangong.grab", [0, 10**6], {"hand:1": "As 2s 3s", "hand:2": "Ah 2h 3h"})
    with pytest.raises(ActionRejected) as err:
        t.e.step(t.st, g.ACTION_TAKEN, {"seat": 1, "action": "grab", "args": {}})
    assert err.value.reason == "insufficient_stack"
    assert t.e.to_act(t.st)[0].actions == ("pass",)


def test_auto_actions_pass_then_bet_the_smallest() -> None:
    t = Table("sangong.grab", [10**6] * 3, GRAB_HANDS)
    assert t.e.auto_action(t.st) == (1, "pass", {})
    t.act(1, "grab")
    assert t.e.auto_action(t.st) == (2, "pass", {})
    t.act(2, "pass", auto="timeout")
    t.act(3, "pass", auto="timeout")
    assert t.st.banker == 1
    assert t.e.auto_action(t.st) == (2, "bet", {"multiple": 1})


def test_forged_deals_dice_and_reveals_are_refused() -> None:
    t = Table("sangong.grab", [10**6, 10**6], {"hand:1": "As 2s 3s", "hand:2": "Ah 2h 3h"})
    e, st = t.e, t.st
    with pytest.raises(RuleViolation) as err:
        e.step(st, g.DICE_ROLLED, {"dice": [1], "faces": [2], "roll": 0})
    assert err.value.reason == "illegal_roll"
    t.act(1, "grab")
    t.act(2, "grab")
    assert st.phase == Phase.BET  # equal stacks: gcd weights 1, 1 -> rolled 1 of 2
    t2 = Table("sangong.grab", [10**6, 10**6], {"hand:1": "As 2s 3s", "hand:2": "Ah 2h 3h"})
    for s in (1, 2):
        t2.e.step(t2.st, g.ACTION_TAKEN, {"seat": s, "action": "grab", "args": {}})
    assert t2.st.phase == Phase.CHOOSE
    for payload, reason in [
        ({"dice": [3], "faces": [2], "roll": 0}, "bad_roll"),
        ({"dice": [1], "faces": [6], "roll": 0}, "bad_roll"),
        ({"dice": [1, 1], "faces": [2], "roll": 0}, "bad_roll"),
        ({"dice": [1], "faces": [2], "roll": -1}, "malformed"),
    ]:
        with pytest.raises(RuleViolation) as err:
            t2.e.step(t2.st, g.DICE_ROLLED, payload)
        assert err.value.reason == reason
    with pytest.raises(RuleViolation) as err:
        t2.e.step(t2.st, g.CARD_DEALT, {"cards": []})
    assert err.value.reason == "illegal_deal"
    e2 = eng("sangong.hundred")
    st2 = e2.open("h2", opened([10**6]))
    e2.step(st2, g.BETTING_CLOSED, {})
    good = [
        {"to": t_, "card": HUNDRED[t_].split()[r], "pos": 5 * r + i, "up": False}
        for r in range(3)
        for i, t_ in enumerate([BANKER, *SPOTS])
    ]
    for cards, reason in [
        ([{**good[0], "to": "east"}, *good[1:]], "illegal_deal"),
        ([{**good[0], "up": True}, *good[1:]], "illegal_deal"),
        ([{**good[0], "card": good[1]["card"]}, *good[1:]], "bad_card"),
        ([{**good[0], "card": "RJ"}, *good[1:]], "bad_card"),
        ([{**good[0], "pos": "0"}, *good[1:]], "malformed"),
        (good[:-1], "illegal_deal"),
    ]:
        with pytest.raises(RuleViolation) as err:
            e2.step(st2, g.CARD_DEALT, {"cards": cards})
        assert err.value.reason == reason
    e2.step(st2, g.CARD_DEALT, {"cards": good})
    for to, shown, reason in [
        ("east", HUNDRED["east"].split(), "illegal_reveal"),
        (BANKER, HUNDRED["east"].split(), "bad_reveal"),
    ]:
        with pytest.raises(RuleViolation) as err:
            e2.step(st2, g.CARDS_REVEALED, {"to": to, "cards": shown})
        assert err.value.reason == reason
    with pytest.raises(ActionRejected) as err:
        e2.step(st2, g.HAND_CLOSED, {})
    assert err.value.reason == "not_over"


def test_describe() -> None:
    e = eng("sangong.grab")
    out = e.describe("eval", [["3s", "3h", "3d"], ["Ks", "Qd", "9c"]])
    assert [(h["label"], h["multiplier"]) for h in out["hands"]] == [("baojiu", 5), ("points:9", 2)]
    zero_low, zero_high = ["2s", "3h", "5d"], ["Ts", "Jh", "Qd"]
    cmp = e.describe("compare", [zero_low, zero_high])
    assert (cmp["winner"], cmp["result"]) == (BANKER, -1)  # both 0 points: the banker
    cmp = eng("sangong.hundred").describe("compare", [zero_low, zero_high])
    assert (cmp["winner"], cmp["result"]) == ("player", 1)  # more face cards
    with pytest.raises(InvalidInput, match="share a card"):
        e.describe("compare", [["Ts", "Jh", "Qd"], ["Ts", "3h", "5d"]])
    with pytest.raises(InvalidInput, match="two hands"):
        e.describe("compare", [["Ts", "Jh", "Qd"]])
    with pytest.raises(InvalidInput, match="unknown rules action"):
        e.describe("rank", [["Ts", "Jh", "Qd"]])


def test_replay_is_identical_and_carry_is_empty() -> None:
    hands = {"seat:1": "Ks Kh Kd", "seat:2": "2s 3h 4d", "seat:3": "Ts Jh Qd"}
    t = Table("sangong.classic", [10**6] * 3, hands)
    for s in (1, 2, 3):
        t.act(s, "grab", multiple=s)
    t.act(1, "bet", multiple=3)
    t.act(2, "bet", multiple=6)
    st = t.close()
    again = t.e.replay("h1", t.events)
    assert again == st
    assert t.e.outcome(again) == t.e.outcome(st)
    assert t.e.settle(again) == t.e.settle(st)
    assert t.e.carry(st) == {}


def test_bad_configs_are_refused() -> None:
    def with_change(variant: str, path: Sequence[str], value: Any) -> g.VariantConfig:
        raw = copy.deepcopy(dict(variant_config(variant).raw))
        node = raw
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        return g.VariantConfig.from_json_dict(raw)

    for variant, path, value, message in [
        ("sangong.hundred", ("deck", "copies"), 2, "one deck"),
        ("sangong.hundred", ("spots", "names"), ["a", "b", "c", "d"], "spots are"),
        ("sangong.hundred", ("spots", "step"), 0, "step"),
        ("sangong.hundred", ("spot_limit", "value"), "none", "spot_limit"),
        ("sangong.hundred", ("table", "value"), "other", "config"),
        ("sangong.grab", ("liability", "value"), "none", "liability"),
        ("sangong.grab", ("grab", "multiples"), [1, 2], "grab multiples"),
        ("sangong.classic", ("grab", "multiples"), [], "grab multiples"),
        ("sangong.classic", ("bet", "multiples"), [0, 1], "bet multiples"),
        ("sangong.classic", ("seats", "min"), 1, "two seats"),
        ("sangong.classic", ("rake", "rate"), "1", "rake"),
        ("sangong.classic", ("bet", "limit"), "none", "config"),
    ]:
        with pytest.raises(ConfigError, match=message):
            SangongEngine(with_change(variant, path, value))
