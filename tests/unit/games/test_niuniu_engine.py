"""The Niuniu engine on hands written out card by card (croupier.games.niuniu.script):
the seeds' worked examples as golden vectors (000 通比牛牛 例1/例2; 001 经典牛牛 特殊情况
20/20/60), each variant's banker choice, bets and arrangement, 百人牛牛's spots,
multiplier limit and banker queue, the carry to the next hand, and bad input refused
with a precise reason and no change of state."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

from croupier.errors import ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.niuniu.engine import NiuniuEngine, NiuniuState, Turn
from croupier.games.niuniu.script import opened, script_hand
from croupier.games.registry import variant_config
from croupier.money import HOUSE, TheoreticalStep

BIG = 10**9
# hands used throughout (no card repeats inside one hand's deal)
SMALL_NIU = ["3h", "2s", "2h", "As", "Ah"]  # 小牛牛
NONE_K = ["Ks", "Qh", "9c", "8d", "7d"]  # 无牛, K♠ high
NONE_Q = ["Qs", "Jh", "9s", "8h", "6d"]  # 无牛, Q♠ high
NONE_8 = ["2s", "3h", "4d", "6c", "8s"]  # 无牛, 8♠ high
NIU_1 = ["Kd", "Qd", "7h", "3c", "Ac"]  # 牛1 (K+7+3 | Q+A)
NIUNIU = ["Kc", "Qc", "Jc", "9h", "Ad"]  # 牛牛


def eng(variant: str) -> NiuniuEngine:
    return NiuniuEngine(variant_config(variant))


def seats(*stacks: int) -> list[tuple[int, str, int]]:
    return [(i + 1, f"p{i + 1}", s) for i, s in enumerate(stacks)]


def deal(*hands: list[str]) -> dict[str, list[str]]:
    return {f"seat:{i + 1}": h for i, h in enumerate(hands)}


def decider(
    multiples: Mapping[int, int] | None = None,
    grabs: Mapping[int, bool] | None = None,
    accepts: Mapping[int, bool] | None = None,
    arrange: Mapping[int, dict[str, Any]] | None = None,
) -> Any:
    def decide(st: NiuniuState, turn: Turn) -> tuple[str, dict[str, Any]]:
        a, s = turn.actions[0], turn.seat
        if a == "bet":
            return a, {"multiple": (multiples or {}).get(s, st.play[s].options[0])}
        if a == "grab":
            return a, {"grab": (grabs or {}).get(s, False)}
        if a == "bank":
            return a, {"accept": (accepts or {}).get(s, False)}
        return a, dict((arrange or {}).get(s, {}))

    return decide


def deltas(e: NiuniuEngine, st: NiuniuState) -> dict[str, int]:
    return dict(e.settle(st).deltas)


# -- golden vectors ---------------------------------------------------------------------
def test_tongbi_example_1() -> None:
    """000 通比牛牛 例1: base 100, a bets 5x with 小牛牛, b 3x with 无牛: a wins
    100*6*5*3*95% = 8550, b loses 9000 (points; the config's base is 100 points)."""
    e = eng("niuniu.tongbi")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG)),
        cards=deal(SMALL_NIU, NONE_K),
        decide=decider(multiples={1: 5, 2: 3}, arrange={1: {"three": []}}),
    )
    r = e.settle(st)
    assert r.deltas == {"p1": 8550_00, "p2": -9000_00}
    assert r.rake == {"p1": 450_00, "p2": 0} and r.total_rake == 450_00
    assert e.outcome(st)["winner"] == {"seat": 1, "player": "p1"}


def test_tongbi_example_2() -> None:
    """000 通比牛牛 例2: a 5x 小牛牛, b and c 3x 无牛: a wins 17100, b and c lose 9000 each."""
    e = eng("niuniu.tongbi")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG)),
        cards=deal(SMALL_NIU, NONE_K, NONE_Q),
        decide=decider(multiples={1: 5, 2: 3, 3: 3}),
    )
    assert deltas(e, st) == {"p1": 17100_00, "p2": -9000_00, "p3": -9000_00}


def test_classic_banker_cannot_cover_20_20_60() -> None:
    """001 经典牛牛 特殊情况: the banker carries 100; A, B, C win 100, 100, 300 in theory
    (A x N x Y with A = 100, N = 1 and Y = 1, 1, 3) and are paid 20, 20, 60, less the
    5% rake. The hand is played with deep stacks (the bet limits would not let a banker
    with 100 take these bets at all), then settled with the seed's carried amounts."""
    e = eng("niuniu.classic")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG, BIG)),
        cards=deal(NONE_K, NONE_Q, NIU_1, NONE_8),
        dice=[4],  # the die makes seat 4 the banker
        decide=decider(multiples={1: 1, 2: 1, 3: 3}),
    )
    assert st.banker == 4
    carried = {1: 100_00, 2: 100_00, 3: 300_00, 4: 100_00}
    st.seats = {n: dataclasses.replace(s, stack=carried[n]) for n, s in st.seats.items()}
    r = e.settle(st)
    theory = next(s for s in r.steps if isinstance(s, TheoreticalStep))
    assert dict(theory.nets) == {"p1": 100_00, "p2": 100_00, "p3": 300_00, "p4": -500_00}
    assert r.deltas == {"p1": 19_00, "p2": 19_00, "p3": 57_00, "p4": -100_00}
    assert r.total_rake == 5_00


def test_classic_bet_limits_and_the_list_1_3_6_10() -> None:
    e = eng("niuniu.classic")
    base, top = 100_00, 4
    # banker 4 can pay floor(stack / 100 / 4) multiples, shared by the 3 players
    banker = base * top * 18  # banker_max 18 -> common 6
    st = e.open("h", opened(e.variant, seats(base * top * 3, BIG, 0, banker)))
    e.step(st, g.BETTING_CLOSED, {})
    e.step(st, g.DICE_ROLLED, {"dice": [4], "faces": [4], "roll": 0})
    assert st.play[1].options == (1, 3)  # own cover 3
    assert st.play[2].options == (1, 3, 6)  # common 6
    assert st.play[3].out and st.play[3].options == ()  # nothing: sits out
    before = copy.deepcopy(st)
    for seat, m, reason in (
        (1, 6, "over_limit"),
        (1, 2, "bad_multiple"),
        (3, 1, "sits_out"),
        (4, 1, "banker_cannot_bet"),
        (2, "6", "malformed"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.ACTION_TAKEN, {"seat": seat, "action": "bet", "args": {"multiple": m}})
        assert err.value.reason == reason
    assert st == before
    assert e.auto_action(st) == (1, "bet", {"multiple": 1})


def test_banker_game_claims_and_limited_liability() -> None:
    """000 牛牛游戏规则: the winner's multiplier applies (牛牛 x5, 小牛牛 x10); with
    有限责任制 a banker who carried 300 points wins at most 300, paid by the losers pro
    rata to what they owe."""
    e = eng("niuniu.banker")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, 30_000)),
        cards=deal(NIUNIU, NONE_K, SMALL_NIU),
        dice=[3],  # nobody grabs: the die picks among all three - seat 3 banks
        decide=decider(multiples={1: 2, 2: 4}),
    )
    assert st.banker == 3
    out = e.outcome(st)
    rows = {r["seat"]: r for r in out["seats"]}
    assert rows[1]["beats_banker"] is False and rows[1]["pays"] == 10  # 小牛牛 beats 牛牛
    assert rows[2]["beats_banker"] is False and rows[2]["pays"] == 10
    # theory: banker wins 100 x 10 x 2 + 100 x 10 x 4 = 6000 points; carries 300 points
    r = e.settle(st)
    assert r.deltas["p3"] + r.rake["p3"] == 300_00  # wins at most what it carried
    assert r.deltas["p1"] == -100_00 and r.deltas["p2"] == -200_00  # pro rata 2:4
    assert sum(r.deltas.values()) + r.total_rake == 0


def test_banker_game_a_short_loser_does_not_cut_another_players_win() -> None:
    """000 牛牛游戏规则, 四、5 结算 (庄闲结算: each player against the banker) and 五、1
    有限责任制 (每位玩家输赢不能超过自身携带金额): p1 beats a deep banker with 小牛牛 x10 at
    1x and wins 100 x 10 x 1 = 1000 points, whatever another player carried; p2 (300
    points carried) loses 100 x 5 x 4 = 2000 in theory and pays the 300 it has. Netting
    the whole table pro rata would pay p1 142.5 and let the banker, beaten by p1, win."""
    e = eng("niuniu.banker")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, 300_00, BIG)),
        cards=deal(SMALL_NIU, NONE_K, NIUNIU),
        dice=[3],  # nobody grabs: seat 3 banks
        decide=decider(multiples={1: 1, 2: 4}),
    )
    assert st.banker == 3
    r = e.settle(st)
    assert r.deltas == {"p1": 950_00, "p2": -300_00, "p3": -700_00}
    assert r.rake == {"p1": 50_00, "p2": 0, "p3": 0}


# -- banker choice and carry ---------------------------------------------------------------
def test_grab_picks_among_grabbers_and_the_bank_is_kept_until_a_niu9() -> None:
    e = eng("niuniu.banker")
    niu9 = ["Kd", "Qd", "Jd", "Td", "9d"]
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG)),
        cards=deal(NONE_K, NONE_Q, NONE_8),
        dice=[2],  # two grabbers (1 and 3): a 2-faced die, 2 -> seat 3
        decide=decider(grabs={1: True, 3: True}),
    )
    assert st.banker == 3 and st.dice == [2]
    carry = e.carry(st)
    assert carry == {"banker": "p3", "regrab": False}
    # next hand: p3 keeps the bank, nobody grabs; a 牛九 appears -> grab again after it
    _, st2 = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG), carry),
        cards=deal(niu9, NONE_Q, NONE_8),
    )
    assert st2.banker == 3 and st2.kept_bank and st2.dice == []
    assert e.carry(st2) == {"banker": "p3", "regrab": True}
    # the banker left the table: everyone grabs again
    st3 = e.open("h3", opened(e.variant, seats(BIG, BIG), {"banker": "p3", "regrab": False}))
    assert st3.banker is None
    e.step(st3, g.BETTING_CLOSED, {})
    assert e.to_act(st3) == Turn(1, ("grab",))
    assert e.auto_action(st3) == (1, "grab", {"grab": False})


def test_grab_with_one_grabber_needs_no_die() -> None:
    e = eng("niuniu.banker")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG)),
        cards=deal(NONE_K, NONE_Q, NONE_8),
        decide=decider(grabs={2: True}),
    )
    assert st.banker == 2 and st.dice == []


def test_yuele_offer_decline_next_seat_and_dissolve() -> None:
    e = eng("niuniu.yuele")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG, BIG)),
        cards=deal(NONE_K, NONE_Q, NONE_8),
        dice=[3],  # offered to seat 3 first, who declines; then seat 1 (wraps) accepts
        decide=decider(accepts={1: True}),
    )
    assert st.declined == [3] and st.banker == 1
    events, void = script_hand(
        e, opened(e.variant, seats(BIG, BIG)), cards={}, dice=[1], decide=decider()
    )
    assert void.void and void.declined == [1, 2]
    assert not any(t == g.CARD_DEALT for t, _ in events)
    assert e.settle(void).deltas == {"p1": 0, "p2": 0}
    assert e.outcome(void)["void"] is True


def test_yuele_pays_by_the_004_table_and_has_no_rake() -> None:
    e = eng("niuniu.yuele")
    four = ["5s", "5h", "5d", "5c", "2d"]
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG)),
        cards=deal(four, NIUNIU),
        dice=[2],
        decide=decider(accepts={2: True}, multiples={1: 2}),
    )
    # 四炸 (x4) beats 牛牛: the banker (seat 2) pays 100 x 4 x 2
    assert deltas(e, st) == {"p1": 800_00, "p2": -800_00}
    assert e.settle(st).total_rake == 0


def test_classic_random_banker_by_die() -> None:
    e = eng("niuniu.classic")
    st = e.open("h", opened(e.variant, seats(BIG, BIG, BIG)))
    e.step(st, g.BETTING_CLOSED, {})
    assert e.next_deal(st) == g.DealRequest(dice=1, faces=(3,))
    assert e.to_act(st) is None
    for p, reason in (
        ({"dice": [4], "faces": [3], "roll": 0}, "bad_roll"),
        ({"dice": [1], "faces": [6], "roll": 0}, "illegal_roll"),
        ({"dice": [1, 2], "faces": [3], "roll": 0}, "illegal_roll"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.DICE_ROLLED, p)
        assert err.value.reason == reason
    e.step(st, g.DICE_ROLLED, {"dice": [2], "faces": [3], "roll": 0})
    assert st.banker == 2 and e.to_act(st) == Turn(1, ("bet",))


# -- arrangement ---------------------------------------------------------------------------
def arranging(variant: str = "niuniu.tongbi") -> tuple[NiuniuEngine, NiuniuState]:
    e = eng(variant)
    st = e.open("h", opened(e.variant, seats(BIG, BIG)))
    e.step(st, g.BETTING_CLOSED, {})
    for s in (1, 2):
        e.step(st, g.ACTION_TAKEN, {"seat": s, "action": "bet", "args": {"multiple": 1}})
    req = e.next_deal(st)
    assert req is not None and [d.to for d in req.cards[:2]] == ["seat:1", "seat:2"]
    assert all(not d.up for d in req.cards)
    hands = {"seat:1": list(["4s", "6h", "Qd", "9h", "9s"]), "seat:2": list(NONE_K)}
    cards = [
        {"to": d.to, "card": hands[d.to].pop(0), "pos": i, "up": False}
        for i, d in enumerate(req.cards)
    ]
    e.step(st, g.CARD_DEALT, {"cards": cards})
    return e, st


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"three": ["4s", "6h", "9h"]}, "not_niu"),
        ({"three": ["4s", "6h", "Ah"]}, "bad_arrangement"),
        ({"three": []}, "has_niu"),
        ({"three": "4s 6h Qd"}, "malformed"),
        ({"category": "niuniu"}, "wrong_category"),
        ({"cards": []}, "malformed"),
    ],
)
def test_an_arrangement_that_does_not_match_the_cards_is_refused(
    args: dict[str, Any], reason: str
) -> None:
    e, st = arranging()
    before = copy.deepcopy(st)
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.ACTION_TAKEN, {"seat": 1, "action": "arrange", "args": args})
    assert err.value.reason == reason
    assert st == before


def test_arrangements_accepted_and_the_reveal() -> None:
    e, st = arranging()
    ok = {"three": ["4s", "6h", "Qd"], "category": "niu8"}
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "arrange", "args": ok})
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.ACTION_TAKEN, {"seat": 1, "action": "arrange", "args": {}})
    assert err.value.reason == "already_decided"
    e.step(st, g.ACTION_TAKEN, {"seat": 2, "action": "arrange", "args": {"auto": "timeout"}})
    req = e.next_deal(st)
    assert req == g.DealRequest(reveal=("seat:1", "seat:2"))
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.CARDS_REVEALED, {"to": "seat:1", "cards": list(NONE_K)})
    assert err.value.reason == "bad_reveal"
    e.step(st, g.CARDS_REVEALED, {"to": "seat:1", "cards": ["4s", "6h", "Qd", "9h", "9s"]})
    e.step(st, g.CARDS_REVEALED, {"to": "seat:2", "cards": list(NONE_K)})
    assert e.is_over(st)
    rows = e.outcome(st)["seats"]
    assert rows[0]["shown"] == ["4s", "6h", "Qd"] and rows[1]["auto"] == ["arrange"]


def test_wrong_phase_and_unknown_actions() -> None:
    e, st = arranging()
    for p, reason in (
        ({"seat": 1, "action": "bet", "args": {"multiple": 1}}, "wrong_phase"),
        ({"seat": 1, "action": "grab", "args": {"grab": True}}, "wrong_phase"),
        ({"seat": 1, "action": "fold", "args": {}}, "unknown_action"),
        ({"seat": 1, "action": "apply_banker", "args": {}}, "no_queue"),
        ({"seat": 9, "action": "arrange", "args": {}}, "unknown_seat"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.ACTION_TAKEN, p)
        assert err.value.reason == reason
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "fu", "amount": 100})
    assert err.value.reason == "no_spots"


def test_cards_must_follow_the_deal_order_and_be_new() -> None:
    e = eng("niuniu.tongbi")
    st = e.open("h", opened(e.variant, seats(BIG, BIG)))
    e.step(st, g.BETTING_CLOSED, {})
    for s in (1, 2):
        e.step(st, g.ACTION_TAKEN, {"seat": s, "action": "bet", "args": {"multiple": 1}})
    good = [
        {"to": f"seat:{1 + i % 2}", "card": c, "pos": i, "up": False}
        for i, c in enumerate(["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s", "5s"])
    ]
    for cards, reason in (
        ([{**good[0], "to": "seat:2"}, *good[1:]], "illegal_deal"),
        ([{**good[0], "up": True}, *good[1:]], "illegal_deal"),
        ([*good[:9], {**good[9], "card": "As"}], "bad_card"),
        ([*good[:9], {**good[9], "card": "BJ"}], "bad_card"),
        ([*good[:9], {**good[9], "card": "??"}], "bad_card"),
        (good[:5], "illegal_deal"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.CARD_DEALT, {"cards": cards})
        assert err.value.reason == reason
    e.step(st, g.CARD_DEALT, {"cards": good})
    assert st.phase == "arrange"


# -- 百人牛牛 --------------------------------------------------------------------------------
HUNDRED_CARDS = {
    "banker": NIUNIU,  # x5
    "fu": SMALL_NIU,  # beats the banker, x10
    "lu": NONE_K,
    "shou": NONE_Q,
    "xi": ["5s", "5h", "5d", "5c", "6s"],  # 四炸弹 x8
}


def test_hundred_against_the_system_bank() -> None:
    e = eng("niuniu.hundred")
    _, st = script_hand(
        e,
        opened(e.variant, seats(BIG, BIG)),
        cards=HUNDRED_CARDS,
        bets=[(1, "fu", 1000), (1, "lu", 500), (2, "xi", 2000), (2, "shou", 100)],
    )
    out = e.outcome(st)
    assert out["banker"]["player"] == HOUSE
    assert {k: (v["beats_banker"], v["multiplier"]) for k, v in out["spots"].items()} == {
        "fu": (True, 10),
        "lu": (False, 5),
        "shou": (False, 5),
        "xi": (True, 8),
    }
    r = e.settle(st)
    # p1: +10 x 1000 - 5 x 500 = 7500, rake 375; p2: +8 x 2000 - 5 x 100 = 15500, rake 775
    assert r.deltas == {"p1": 7125, "p2": 14725, HOUSE: -23000}
    assert r.rake[HOUSE] == 0 and r.total_rake == 1150
    # record version 2 lists the stakes and stake plus net before rake (000_d16ad353ba467b8a
    # .txt, 百人牛牛游戏规则, 派彩): p1 staked 1000 + 500, returned 1500 + 7500; p2 staked
    # 2000 + 100, returned 2100 + 15500. The players' gain is the system bank's loss.
    assert r.staked == {"p1": 1500, "p2": 2100}
    assert r.returned == {"p1": 9000, "p2": 17600}
    assert sum(r.returned.values()) - sum(r.staked.values()) == -r.deltas[HOUSE]
    rec = r.to_json_dict()
    assert rec["record_version"] == 2 and rec["staked"] == {"p1": 1500, "p2": 2100}
    assert r.to_json_dict(1)["staked"] == {} and r.to_json_dict(1)["returned"] == {}


def test_hundred_loss_beyond_the_stake_is_a_negative_return() -> None:
    e = eng("niuniu.hundred")
    _, st = script_hand(
        e, opened(e.variant, seats(BIG, BIG)), cards=HUNDRED_CARDS, bets=[(1, "lu", 1000)]
    )
    r = e.settle(st)
    # 百人牛牛游戏规则, 派彩: a losing spot pays the banker's multiple (5 here), 5 x 1000
    assert r.staked == {"p1": 1000} and r.returned == {"p1": 1000 - 5000}
    assert sum(r.returned.values()) - sum(r.staked.values()) == -r.deltas[HOUSE]


def test_hundred_multiplier_limited_by_a_short_balance() -> None:
    e = eng("niuniu.hundred")
    _, st = script_hand(
        e,
        opened(e.variant, seats(3000, BIG)),
        cards=HUNDRED_CARDS,
        bets=[(1, "lu", 1000), (2, "lu", 1000)],
    )
    assert e.hundred_limits(st) == {1: 3, 2: 10}
    assert e.outcome(st)["limits"] == {"1": 3, "2": 10}
    r = e.settle(st)
    assert r.deltas["p1"] == -3000  # loses 3 x 1000, not 5 x 1000: all it carried
    assert r.deltas["p2"] == -5000


def test_hundred_bad_bets_write_nothing() -> None:
    e = eng("niuniu.hundred")
    st = e.open("h", opened(e.variant, seats(5000, BIG)))
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "fu", "amount": 4000})
    before = copy.deepcopy(st)
    for p, reason in (
        ({"seat": 1, "spot": "lu", "amount": 2000}, "insufficient_stack"),
        ({"seat": 1, "spot": "east", "amount": 100}, "unknown_spot"),
        ({"seat": 1, "spot": "fu", "amount": 150}, "bad_amount"),
        ({"seat": 1, "spot": "fu", "amount": -100}, "bad_amount"),
        ({"seat": 2, "spot": "fu", "amount": 1_000_100}, "over_limit"),
        ({"seat": 3, "spot": "fu", "amount": 100}, "unknown_seat"),
        ({"seat": 1, "spot": "fu"}, "malformed"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.BET_PLACED, p)
        assert err.value.reason == reason, p
    assert st == before
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.BET_PLACED, {"seat": 2, "spot": "fu", "amount": 100})
    assert err.value.reason == "betting_closed"


def test_hundred_banker_queue_through_three_hands() -> None:
    e = eng("niuniu.hundred")
    need = 5_000_000
    table = seats(BIG, need, need)
    # hand 1: the system banks; p2 and p3 apply (上庄), p3 first
    _, st1 = script_hand(
        e,
        opened(e.variant, table),
        cards=HUNDRED_CARDS,
        before_close=[(3, "apply_banker", {}), (2, "apply_banker", {})],
        bets=[(1, "fu", 1000)],
    )
    carry1 = e.carry(st1)
    assert carry1 == {"banker": None, "banked": 0, "queue": ["p3", "p2"]}
    # hand 2: p3 banks; the table's stakes are limited to its cover (5,000,000 / 10)
    st2 = e.open("h2", opened(e.variant, table, carry1))
    assert st2.banker == 3 and st2.queue == ["p2"]
    assert e.cover(st2) == need // 10
    for p, reason in (
        ({"seat": 3, "spot": "fu", "amount": 100}, "banker_cannot_bet"),
        ({"seat": 1, "spot": "fu", "amount": 1_000_000}, "over_banker_cover"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st2, g.BET_PLACED, p)
        assert err.value.reason == reason
    _, st2 = script_hand(
        e,
        opened(e.variant, table, carry1),
        cards=HUNDRED_CARDS,
        bets=[(1, "lu", 10_000), (2, "fu", 1000)],
    )
    r = e.settle(st2)
    assert HOUSE not in r.deltas  # a player banks: no house in the hand
    # p1 loses 5 x 10,000 to the banker's 牛牛; p2's 小牛牛 on fu wins 10 x 1,000
    assert r.deltas["p1"] == -50_000 and r.deltas["p2"] == 9_500
    assert r.deltas["p3"] == 50_000 - 10_000 - r.rake["p3"]
    carry2 = e.carry(st2)
    assert carry2 == {"banker": "p3", "banked": 1, "queue": ["p2"]}
    # hand 3: p3 steps down (下庄); the next hand goes to p2
    _, st3 = script_hand(
        e,
        opened(e.variant, table, carry2),
        cards=HUNDRED_CARDS,
        before_close=[(3, "leave_banker", {})],
    )
    assert st3.banker == 3 and st3.banked == 1
    carry3 = e.carry(st3)
    assert carry3 == {"banker": None, "banked": 0, "queue": ["p2"]}
    st4 = e.open("h4", opened(e.variant, table, carry3))
    assert st4.banker == 2 and st4.queue == []


def test_hundred_a_hand_is_settled_once_for_its_carry_close_outcome_and_settlement() -> None:
    """百人牛牛's carry reads the banker's money (do they bank on?): the dealer asks
    for it to close the hand, the close's check asks again, then the settlement service
    and the audit settle the hand: over, it is settled once (``Engine.settlement``)."""
    from croupier.settlement import settle_state
    from croupier.testing import settles_of

    e = eng("niuniu.hundred")
    calls = settles_of(e)
    table = seats(BIG, 5_000_000, 5_000_000)
    carry = {"banker": None, "banked": 0, "queue": ["p3"]}
    _, st = script_hand(
        e, opened(e.variant, table, carry), cards=HUNDRED_CARDS, bets=[(1, "lu", 10_000)]
    )
    assert st.closed and st.banker == 3
    assert e.carry(st) == {"banker": "p3", "banked": 1, "queue": []}
    hs = settle_state(e, st)
    assert len(calls) == 1 and hs.result.deltas["p1"] == -50_000
    assert hs.record_bytes == settle_state(eng("niuniu.hundred"), st).record_bytes


def test_hundred_banker_steps_down_after_max_rounds_or_below_requirement() -> None:
    e = eng("niuniu.hundred")
    need = 5_000_000
    rounds = 10
    table = seats(BIG, need)
    st = e.open("h", opened(e.variant, table, {"banker": "p2", "banked": rounds - 1, "queue": []}))
    assert st.banker == 2
    e.step(st, g.BETTING_CLOSED, {})
    e.step(
        st,
        g.CARD_DEALT,
        {
            "cards": [
                {"to": t, "card": HUNDRED_CARDS[t][i], "pos": 5 * i + j, "up": True}
                for i in range(5)
                for j, t in enumerate(("banker", "fu", "lu", "shou", "xi"))
            ]
        },
    )
    assert e.carry(st)["banker"] is None  # ten hands banked
    # a banker short of the requirement is passed over at the next open
    short = e.open("h", opened(e.variant, seats(BIG, need - 1), {"banker": "p2", "queue": []}))
    assert short.banker is None
    with pytest.raises(RuleViolation) as err:
        e.verify(short, g.ACTION_TAKEN, {"seat": 2, "action": "apply_banker", "args": {}})
    assert err.value.reason == "below_requirement"
    with pytest.raises(RuleViolation) as err:
        e.verify(short, g.ACTION_TAKEN, {"seat": 1, "action": "leave_banker", "args": {}})
    assert err.value.reason == "not_banker"
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(e.variant, table, {"banker": 7, "queue": []}))
    assert err.value.reason == "malformed"


# -- bare hands ---------------------------------------------------------------------------
def test_describe_eval_and_compare() -> None:
    e = eng("niuniu.banker")
    out = e.describe("eval", [SMALL_NIU])
    assert out["hands"][0]["category"] == "five_small" and out["hands"][0]["multiplier"] == 10
    cmp_ = e.describe("compare", [NONE_8, NONE_K, NIUNIU])
    assert cmp_["ranking"] == [2, 1, 0] and cmp_["winner"] == 2
    assert cmp_["against_first"][1] == {"hand": 2, "beats_first": True, "multiplier": 5}
    t = eng("niuniu.tongbi").describe("compare", [SMALL_NIU, NONE_K])
    assert t["winner"] == 0 and t["multiplier"] == 6
    for action, hands in (
        ("compare", [SMALL_NIU]),
        ("rank", [SMALL_NIU]),
        ("eval", [SMALL_NIU[:4]]),
        ("compare", [SMALL_NIU, SMALL_NIU]),
    ):
        with pytest.raises(InvalidInput):
            e.describe(action, hands)


def test_seats_and_config_errors() -> None:
    e = eng("niuniu.tongbi")
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(e.variant, seats(*([BIG] * 7))))
    assert err.value.reason == "too_many_seats"
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(e.variant, seats(BIG)))
    assert err.value.reason == "no_seats"
    assert e.max_seats == 6 and eng("niuniu.classic").max_seats == 5
    assert eng("niuniu.hundred").max_seats is None


def test_config_mistakes_are_refused() -> None:
    raw = dict(variant_config("niuniu.tongbi").raw)
    for change in (
        {"liability": {"value": "banker_cover"}},
        {"banker": {"choice": "grab"}},
        {"bet_multiples": {"value": [3, 1]}},
        {"deck": {"base": "cards52", "copies": 2}},
        {"hands": {**raw["hands"], "order": raw["hands"]["order"][1:]}},
        {"hands": {**raw["hands"], "multipliers": {**raw["hands"]["multipliers"], "niu1": 0}}},
        {"mode": {"value": "solo"}},
    ):
        cfg = g.VariantConfig.from_json_dict({**raw, **change})
        with pytest.raises(ConfigError):
            NiuniuEngine(cfg)
