"""The 推筒子 engine (croupier.games.tongzi.tuitongzi) driven event by event: the ante,
the 1-9 wheel skipping empty seats, two tiles each with the first shown, the
raise-or-fold round (a timeout folds), the showdown, the raise pot among raisers and the
base pot among all, ties split, 5% rake, and every refusal with its reason.

Source: 000_d16ad353ba467b8a.txt, 推筒子游戏规则."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from croupier import canonical
from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.tongzi.tuitongzi import TuitongziEngine, TuitongziState
from croupier.money import PotsStep
from croupier.settlement import settle_state

STACK = 100_000


def eng() -> TuitongziEngine:
    e = engine("tuitongzi")
    assert isinstance(e, TuitongziEngine)
    return e


def opened(
    seats: Sequence[int] = (1, 4, 7), stacks: Mapping[int, int] | None = None
) -> dict[str, Any]:
    return {
        "variant": "tuitongzi",
        "table": "t1",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [
            {"seat": s, "player": f"p{s}", "stack": (stacks or {}).get(s, STACK)} for s in seats
        ],
    }


def act(seat: int, action: str, **args: Any) -> dict[str, Any]:
    return {"seat": seat, "action": action, "args": args}


class Hand:
    def __init__(self, antes: Sequence[int] | None = None, **kw: Any) -> None:
        self.e = eng()
        self.st: TuitongziState = self.e.open("h1", opened(**kw))
        self.events: list[tuple[str, Mapping[str, Any]]] = [(g.HAND_OPENED, opened(**kw))]
        for s in sorted(self.st.seats) if antes is None else antes:
            self.step(g.BET_PLACED, {"seat": s, "spot": "ante", "amount": self.e.ante})
        self.step(g.BETTING_CLOSED, {})

    def step(self, type_: str, p: Mapping[str, Any]) -> None:
        self.e.step(self.st, type_, p)
        self.events.append((type_, p))

    def wheel(self, n: int) -> None:
        self.step(g.DICE_ROLLED, {"dice": [n], "faces": [9], "roll": 0})

    def deal(self, tiles: Mapping[int, str]) -> None:
        cards: list[dict[str, Any]] = []
        for s in self.st.deal_order:
            for k, t in enumerate(tiles[s].split()):
                cards.append({"to": f"seat:{s}", "card": t, "pos": len(cards), "up": k == 0})
        self.step(g.CARD_DEALT, {"cards": cards})

    def decide(self, raises: Mapping[int, int]) -> None:
        for s, a in raises.items():
            self.step(g.ACTION_TAKEN, act(s, "raise", amount=a) if a else act(s, "fold"))

    def showdown(self) -> None:
        while (req := self.e.next_deal(self.st)) is not None:
            to = req.reveal[0]
            self.step(g.CARDS_REVEALED, {"to": to, "cards": [self.st.hidden[int(to[5:])]]})


def full(tiles: Mapping[int, str], raises: Mapping[int, int], wheel: int = 1, **kw: Any) -> Hand:
    h = Hand(**kw)
    h.wheel(wheel)
    h.deal(tiles)
    h.decide(raises)
    h.showdown()
    assert h.e.is_over(h.st)
    return h


# -- the wheel and the deal -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("wheel", "order"),
    [
        (7, [7, 4, 1]),  # seat 7 is played: start there, counter-clockwise
        (4, [4, 1, 7]),
        (1, [1, 7, 4]),
        (6, [4, 1, 7]),  # 6 and 5 are empty: on to 4
        (9, [7, 4, 1]),  # 9, 8 empty: on to 7
        (2, [1, 7, 4]),
    ],
)
def test_the_wheel_names_the_first_seat_and_empty_seats_pass_it_on(
    wheel: int, order: list[int]
) -> None:
    h = Hand()
    assert h.e.next_deal(h.st) == g.DealRequest(dice=1, faces=(9,))
    h.wheel(wheel)
    assert h.st.deal_order == order
    req = h.e.next_deal(h.st)
    assert req is not None
    assert [(d.to, d.up) for d in req.cards] == [
        (f"seat:{s}", up) for s in order for up in (True, False)
    ]


def test_seats_that_do_not_ante_sit_out_and_are_skipped_by_the_wheel() -> None:
    h = Hand(antes=[1, 7], seats=(1, 4, 7))
    assert h.st.players == [1, 7]
    h.wheel(5)
    assert h.st.deal_order == [1, 7]
    with pytest.raises(ActionRejected):
        h.e.verify(h.st, g.ACTION_TAKEN, act(4, "fold"))


def test_fewer_than_two_antes_deal_nothing_and_hand_the_ante_back() -> None:
    h = Hand(antes=[4])
    assert h.e.is_over(h.st) and h.e.next_deal(h.st) is None
    r = h.e.settle(h.st)
    assert r.deltas == {"p4": 0} and r.total_rake == 0
    assert h.e.outcome(h.st)["base_pot"] == {"amount": 100, "winners": [4]}
    none = Hand(antes=[])
    assert none.e.is_over(none.st)
    assert none.e.settle(none.st).deltas == {"p1": 0, "p4": 0, "p7": 0}
    assert canonical.dumps(none.e.outcome(none.st))


def test_the_first_tile_is_shown_and_the_second_kept_until_the_showdown() -> None:
    h = Hand()
    h.wheel(1)
    h.deal({1: "9p 1p", 7: "5z 3p", 4: "2p 8p"})
    assert h.st.tiles == {1: ["9p", "??"], 7: ["5z", "??"], 4: ["2p", "??"]}
    assert h.st.phase == "raise"
    h.decide({4: 300, 1: 0, 7: 100})
    req = h.e.next_deal(h.st)
    assert req == g.DealRequest(reveal=("seat:7", "seat:4", "seat:1"))  # raisers first
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.CARDS_REVEALED, {"to": "seat:4", "cards": ["7p"]})
    assert err.value.reason == "bad_reveal"
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.CARDS_REVEALED, {"to": "seat:2", "cards": ["8p"]})
    assert err.value.reason == "illegal_reveal"
    h.showdown()
    assert h.st.tiles == {1: ["9p", "1p"], 7: ["5z", "3p"], 4: ["2p", "8p"]}
    assert h.e.is_over(h.st)
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.CARDS_REVEALED, {"to": "seat:4", "cards": ["8p"]})
    assert err.value.reason == "illegal_reveal"


# -- the raise round ----------------------------------------------------------------------------
def test_raise_refusals_and_the_timeout_fold() -> None:
    h = Hand(stacks={7: 450})
    with pytest.raises(ActionRejected) as early:
        h.e.verify(h.st, g.ACTION_TAKEN, act(1, "fold"))
    assert early.value.reason == "not_raising"
    h.wheel(1)
    h.deal({1: "9p 1p", 7: "5z 3p", 4: "2p 8p"})
    before = copy.deepcopy(h.st)
    for p, reason in (
        (act(1, "raise", amount=50), "bad_amount"),  # at least 100
        (act(1, "raise", amount=150), "bad_amount"),  # steps of 100
        (act(1, "raise", amount=1100), "raise_over_cap"),  # raise.max 1000
        (act(7, "raise", amount=400), "raise_over_cap"),  # 450 - ante 100 holds 300
        (act(1, "raise"), "malformed"),
        (act(1, "raise", amount="100"), "malformed"),
        (act(1, "fold", amount=100), "malformed"),
        (act(1, "fold", auto="later"), "malformed"),  # the 托管 marker is only "timeout"
        (act(1, "call"), "unknown_action"),
        (act(3, "fold"), "unknown_seat"),
    ):
        with pytest.raises(RuleViolation) as err:
            h.e.verify(h.st, g.ACTION_TAKEN, p)
        assert err.value.reason == reason, p
    assert h.st == before
    assert h.e.raise_cap(h.st, 7) == 300
    assert h.e.auto_action(h.st) == (1, "fold", {})  # 加注 2: 按放弃处理, deal order
    h.decide({1: 200})
    with pytest.raises(ActionRejected) as again:
        h.e.verify(h.st, g.ACTION_TAKEN, act(1, "fold"))
    assert again.value.reason == "already_decided"
    assert h.e.waiting(h.st) == (7, 4)
    h.step(g.ACTION_TAKEN, act(7, "fold", auto="timeout"))
    assert h.e.auto_action(h.st) == (4, "fold", {})


def test_bet_refusals() -> None:
    e = eng()
    st = e.open("h1", opened(stacks={4: 50}))
    for p, reason in (
        ({"seat": 1, "spot": "raise", "amount": 100}, "unknown_spot"),
        ({"seat": 1, "spot": "ante", "amount": 200}, "bad_amount"),
        ({"seat": 1, "spot": "ante", "amount": True}, "bad_amount"),
        ({"seat": 4, "spot": "ante", "amount": 100}, "insufficient_stack"),
        ({"seat": 1, "spot": "ante"}, "malformed"),
        ({"seat": "1", "spot": "ante", "amount": 100}, "malformed"),
        ({"seat": 2, "spot": "ante", "amount": 100}, "unknown_seat"),
    ):
        with pytest.raises(RuleViolation) as err:
            e.verify(st, g.BET_PLACED, p)
        assert err.value.reason == reason, p
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "ante", "amount": 100})
    with pytest.raises(BetRejected) as err2:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "ante", "amount": 100})
    assert err2.value.reason == "already_decided"
    with pytest.raises(RuleViolation) as err3:
        e.open("h", opened(seats=(1, 10)))
    assert err3.value.reason == "unknown_seat"


# -- pots -------------------------------------------------------------------------------------
def test_raise_pot_among_raisers_then_base_pot_among_all() -> None:
    # seat 1 has the best hand but folded the raise: it wins only the base pot
    h = full({1: "5z 5z", 4: "9p 8p", 7: "3p 5p"}, {1: 0, 4: 500, 7: 500})
    out = h.e.outcome(h.st)
    assert out["raise_pot"] == {"raisers": [4, 7], "amount": 1000, "winners": [7]}
    assert out["base_pot"] == {"amount": 300, "winners": [1]}
    r = h.e.settle(h.st)
    # p1: +200 base pot profit, rake 10; p7: +500 from p4's raise less its own ante
    # lost to p1, +400, rake 20; p4: -600
    assert r.deltas == {"p1": 190, "p4": -600, "p7": 380}
    assert r.total_rake == 30


def test_no_raiser_the_base_pot_winner_takes_all() -> None:
    h = full({1: "1p 2p", 4: "9p 8p", 7: "3p 5p"}, {1: 0, 4: 0, 7: 0})
    out = h.e.outcome(h.st)
    assert out["raise_pot"] == {"raisers": [], "amount": 0, "winners": []}
    assert out["base_pot"]["winners"] == [7]
    assert h.e.settle(h.st).deltas == {"p1": -100, "p4": -100, "p7": 190}


def test_a_lone_raiser_takes_the_unmatched_raise_back() -> None:
    h = full({1: "1p 2p", 4: "9p 8p", 7: "3p 5p"}, {1: 0, 4: 800, 7: 0})
    r = h.e.settle(h.st)
    assert r.deltas == {"p1": -100, "p4": -100, "p7": 190}
    step = r.steps[0]
    assert isinstance(step, PotsStep) and step.returned == (("p4", 800),)


def test_different_raises_make_side_pots_among_the_raisers() -> None:
    # p4 raises 300, p7 raises 900: 300 each is contested, p4's 9 points beat p7's 7;
    # p7's unmatched 600 comes back; p1's 豹子 takes the base pot
    h = full({1: "9p 9p", 4: "5z 9p", 7: "3p 4p"}, {1: 0, 4: 300, 7: 900})
    r = h.e.settle(h.st)
    assert r.deltas == {"p1": 190, "p4": 190, "p7": -400}


def test_equal_hands_split_a_pot() -> None:
    # 二八杠 against 二八杠 is equal: the raise pot is split; seat 1's 豹子 takes the base
    h = full({1: "1p 1p", 4: "2p 8p", 7: "8p 2p"}, {1: 0, 4: 200, 7: 200})
    out = h.e.outcome(h.st)
    assert out["raise_pot"]["winners"] == [4, 7]
    assert h.e.settle(h.st).deltas == {"p1": 190, "p4": -100, "p7": -100}
    # both raisers equal and also best overall: the base pot of 300 splits 150/150
    h2 = full({1: "1p 3p", 4: "2p 8p", 7: "8p 2p"}, {1: 0, 4: 200, 7: 200})
    r2 = h2.e.settle(h2.st)
    assert r2.deltas == {"p1": -100, "p4": 48, "p7": 48}
    assert sum(r2.deltas.values()) + r2.total_rake == 0


def test_a_replay_is_identical_and_the_outcome_canonical() -> None:
    h = full({1: "5z 5z", 4: "9p 8p", 7: "3p 5p"}, {1: 0, 4: 500, 7: 500}, wheel=8)
    st = h.e.replay("h1", h.events)
    assert st == h.st
    assert canonical.dumps(h.e.outcome(st))
    assert settle_state(h.e, st).record_bytes == settle_state(h.e, h.st).record_bytes


def test_describe_eval_and_compare() -> None:
    e = eng()
    out = e.describe("compare", [["2p", "8p"], ["8p", "2p"], ["5z", "9p"]])
    assert [x["name"] for x in out["hands"]] == ["二八杠", "二八杠", "散牌"]
    assert out["winners"] == [0, 1]
    assert "winners" not in e.describe("eval", [["5z", "5z"]])
    for action, hands in (("eval", [["1p", "9m"]]), ("eval", []), ("stake", [["1p", "1p"]])):
        with pytest.raises(InvalidInput):
            e.describe(action, hands)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["deck"].update(copies=2),
        lambda r: r["seats"].update(max=10),
        lambda r: r["wheel"].update(faces=5),
        lambda r: r["seats"].update(max=25),
        lambda r: r["ante"].update(value=0),
        lambda r: r["raise"].update(min=150),
        lambda r: r["raise"].update(step=0),
        lambda r: r["timeout"].update(action="raise"),
        lambda r: r["wheel"].update(direction="up"),
        lambda r: r.pop("rake"),
        lambda r: r["deal"].update(first_up=False),
    ],
)
def test_bad_configs_are_refused(change: Any) -> None:
    raw = copy.deepcopy(dict(engine("tuitongzi").config.raw))
    change(raw)
    with pytest.raises(InvalidInput):
        TuitongziEngine(g.VariantConfig.from_json_dict(raw))
