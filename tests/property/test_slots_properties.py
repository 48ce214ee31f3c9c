"""Properties of 多财多福 hands over random play: random stacks and line bets, reel
stops and double-up dice from ``croupier.fair.roll`` of a random seed, and the
double-up played at random (collect, or a guess at any multiple, legal or not). Zero-sum;
the player never loses more than the stack; what the player ends with is exactly the
balance the engine tracked plus the win collected; a replay is identical; checking an
event never changes the state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.games import base as g
from croupier.games.registry import variant_config
from croupier.games.slots.engine import SlotEngine, SlotState
from croupier.testing import rolled_from

Events = list[tuple[str, Mapping[str, Any]]]


@cache
def eng() -> SlotEngine:
    return SlotEngine(variant_config("slots.duocai"))


@st.composite
def hands(draw: st.DrawFn) -> tuple[Events, SlotState]:
    e = eng()
    stack = draw(st.sampled_from([10**7, 10**5, 3000, 1000, 500, 0]))
    opened = {
        "variant": "slots.duocai", "table": "t", "hand_no": 1, "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p", "stack": stack}], "carry": {},
    }  # fmt: skip
    state = e.open("prop", opened)
    events: Events = [(g.HAND_OPENED, opened)]
    seed = draw(st.binary(min_size=32, max_size=32))

    def step(type_: str, payload: Mapping[str, Any]) -> bool:
        before = copy.deepcopy(state)
        ok = e.can(state, type_, payload)
        assert state == before
        if ok:
            e.step(state, type_, payload)
            events.append((type_, payload))
        return ok

    step(
        g.BET_PLACED, {"seat": 1, "spot": "spin", "amount": 5 * draw(st.sampled_from(e.line_bets))}
    )
    step(g.BETTING_CLOSED, {})
    while not e.is_over(state):
        req = e.next_deal(state)
        if req is not None:
            assert step(g.DICE_ROLLED, rolled_from(req, seed, state.rolls))
            continue
        if draw(st.integers(0, 3)) == 0:
            assert step(g.ACTION_TAKEN, {"seat": 1, "action": "collect", "args": {}})
        else:
            args = {
                "pick": draw(st.sampled_from(["boy", "girl"])),
                "times": draw(st.sampled_from([1, 2, 3, 5, 4])),
            }
            step(g.ACTION_TAKEN, {"seat": 1, "action": "guess", "args": args})
    assert step(g.HAND_CLOSED, {"positions_used": 0, "carry": {}})
    return events, state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_spins_are_zero_sum_bounded_and_replay_identically(
    played: tuple[Events, SlotState],
) -> None:
    events, state = played
    e = eng()
    stack = state.seats[1].stack
    res = e.settle(state)
    assert sum(res.deltas.values()) + res.total_rake == 0
    delta = res.deltas.get("p", 0)
    assert delta >= -stack and state.balance >= 0
    assert stack + delta == state.balance + state.win
    assert state.right_guesses <= e.double_up.max_wins
    again = e.replay("prop", events)
    assert again == state
    assert e.outcome(again) == e.outcome(state)
