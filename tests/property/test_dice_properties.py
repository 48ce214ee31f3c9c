"""Properties of 开心摇摇乐 rounds over random play: random seats and stacks, random
bets on every spot, 撤销 and 重复投 at random, dice from ``croupier.fair.roll`` of a
random seed. Zero-sum; nobody loses more than they staked nor stakes more than they
carry; every wager's result is one the paytable knows; a replay is identical; checking
an event never changes the state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import fair
from croupier.games import base as g
from croupier.games.dice.engine import DiceEngine, DiceState
from croupier.games.dice.rules import Spot
from croupier.games.registry import variant_config

Events = list[tuple[str, Mapping[str, Any]]]
RESULTS = {Fraction(r) for r in ("-1", "0", "1", "1/2", "7", "13/10", "29")}
SPOTS = [s.value for s in Spot]


@cache
def eng() -> DiceEngine:
    return DiceEngine(variant_config("dice.yaoyao"))


@st.composite
def rounds(draw: st.DrawFn) -> tuple[Events, DiceState]:
    e = eng()
    n = draw(st.integers(1, 6))
    stacks = [draw(st.sampled_from([10**8, 10**6, 5000, 1000, 100, 0])) for _ in range(n)]
    seats = [{"seat": i + 1, "player": f"p{i}", "stack": s} for i, s in enumerate(stacks)]
    last = {
        f"p{i}": [[draw(st.sampled_from(SPOTS)), draw(st.sampled_from([100, 2000, 50000]))]]
        for i in range(n)
        if draw(st.booleans())
    }
    opened = {
        "variant": "dice.yaoyao", "table": "t", "hand_no": 1, "shoe_hand_no": 1,
        "seats": seats, "carry": {"last_bets": last},
    }  # fmt: skip
    state = e.open("prop", opened)
    events: Events = [(g.HAND_OPENED, opened)]

    def step(type_: str, payload: Mapping[str, Any]) -> None:
        before = copy.deepcopy(state)
        ok = e.can(state, type_, payload)
        assert state == before
        if ok:
            e.step(state, type_, payload)
            events.append((type_, payload))

    for _ in range(draw(st.integers(0, 12))):
        seat = draw(st.integers(1, n + 1))  # n + 1: not at the table
        kind = draw(st.sampled_from(["bet", "bet", "bet", "cancel", "repeat"]))
        if kind == "bet":
            amount = draw(st.sampled_from([100, 500, 2500, 10**5, 10**6, 150]))
            step(
                g.BET_PLACED, {"seat": seat, "spot": draw(st.sampled_from(SPOTS)), "amount": amount}
            )
        else:
            step(g.ACTION_TAKEN, {"seat": seat, "action": kind, "args": {}})
    step(g.BETTING_CLOSED, {})
    seed = draw(st.binary(min_size=32, max_size=32))
    dice = fair.roll([6] * 6, seed, "prop", 1, 0)
    step(g.DICE_ROLLED, {"dice": dice, "faces": [6] * 6, "roll": 0})
    step(g.HAND_CLOSED, {"positions_used": 0, "carry": e.carry(state)})
    assert state.closed
    return events, state


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds())
def test_rounds_are_zero_sum_bounded_and_replay_identically(
    played: tuple[Events, DiceState],
) -> None:
    events, state = played
    e = eng()
    res = e.settle(state)
    assert sum(res.deltas.values()) + res.total_rake == 0
    staked: dict[str, int] = {}
    for seat_no, _, amount in state.bets:
        player = state.seats[seat_no].player
        staked[player] = staked.get(player, 0) + amount
    for seat in state.seats.values():
        assert staked.get(seat.player, 0) <= seat.stack
        assert res.deltas.get(seat.player, 0) >= -staked.get(seat.player, 0)
    for w in e.wagers(state):
        assert w.result in RESULTS
    again = e.replay("prop", events)
    assert again == state
    assert e.outcome(again) == e.outcome(state)
    assert e.settle(again).deltas == res.deltas
