"""Properties of mahjong hands played by the 托管 policy (timeouts: ``auto_action``) and
by the demo players' policy (``advise``: every win, 杠 and 碰 taken) from walls
shuffled by ``croupier.fair``, with random stacks (short ones included): every hand
ends; the settlement is zero-sum (deltas + rake == 0) and nobody loses more than they
carried; the rake is at most the variant's rate of the winners' profits; a replay of the
events gives the same state, outcome and settlement; an ``auto`` action is the 托管
decision itself."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import fair
from croupier.games import base as g
from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.state import MahjongState
from croupier.games.registry import engine
from croupier.testing import dealt_from, rolled_from

Events = list[tuple[str, Mapping[str, Any]]]
VARIANTS = ["mahjong.xuezhan", "mahjong.xuezhan_daodi", "mahjong.guangdong"]


def eng(variant: str) -> MahjongEngine:
    e = engine(variant)
    assert isinstance(e, MahjongEngine)
    return e


def play(
    e: MahjongEngine, seed: bytes, stacks: list[int], policy: str
) -> tuple[MahjongState, Events]:
    seats = [
        {"seat": n, "player": f"p{n}", "stack": s}
        for n, s in zip((1, 2, 3, 4), stacks, strict=True)
    ]
    opened = {"table": "t", "hand_no": 1, "shoe_hand_no": 1, "seats": seats}
    state = e.open("h", opened)
    events: Events = [(g.HAND_OPENED, opened)]

    def step(type_: str, payload: Mapping[str, Any]) -> None:
        e.step(state, type_, payload)
        events.append((type_, payload))

    step(g.BETTING_CLOSED, {})
    order = fair.shuffle(e.config.deck, seed, "prop", 1)
    pos = rolls = 0
    while not e.is_over(state):
        req = e.next_deal(state)
        if req is not None and req.dice:
            step(g.DICE_ROLLED, rolled_from(req, seed, rolls))
            rolls += 1
        elif req is not None:
            step(g.CARD_DEALT, dealt_from(order, pos, req))
            pos += len(req.cards)
        else:
            if policy == "timeout":
                act = e.auto_action(state)
                assert act is not None
                seat, action, args = act
                args = {**args, "auto": "timeout"}
            else:
                seat = e.to_act(state)[0]
                seat, action, args = e.advise(state, seat)
            step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        assert pos <= e.deck_size
    return state, events


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.binary(min_size=32, max_size=32),
    stacks=st.lists(st.sampled_from([150, 2_000, 10**6]), min_size=4, max_size=4),
    policy=st.sampled_from(["timeout", "advise"]),
)
def test_托管_hands_end_and_settle_zero_sum_within_stacks(
    variant: str, seed: bytes, stacks: list[int], policy: str
) -> None:
    e = eng(variant)
    state, events = play(e, seed, stacks, policy)
    assert e.is_over(state)
    res = e.settle(state)
    deltas = dict(res.deltas)
    assert sum(deltas.values()) + res.total_rake == 0
    for n, stack in zip((1, 2, 3, 4), stacks, strict=True):
        assert deltas[f"p{n}"] >= -stack
    profit = sum(max(0, d) for d in deltas.values()) + res.total_rake
    assert res.total_rake <= e.rules.rake * profit
    if e.rules.rake == 0:
        assert res.total_rake == 0
    again = e.replay("h", events)
    assert again == state
    # each action made alone from a copy of its payload (parsed afresh, as a view makes
    # it) builds the state the checked steps built (each made from its check's parse)
    alone = e.open("h", events[0][1])
    for type_, payload in events[1:]:
        e.apply(alone, type_, copy.deepcopy(payload))
    assert alone == state
    assert e.outcome(again) == e.outcome(state)
    assert e.settle(again).to_json_dict() == res.to_json_dict()
    # every win pays: a winner never ends below what the win alone brought before caps
    for w in state.wins:
        assert w.fan >= 0 and w.names
