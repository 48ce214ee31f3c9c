"""Properties of poker hands over random play (必下德州, 德州2+3, 炸金花): random seat
counts and stacks, a random deck and button die, and every decision picked at random
among the legal ones by the demo bots' chooser. Every hand ends; zero-sum (deltas plus
rake are 0); nobody loses more than they put in nor puts in more than they carried;
rake is at most 5% of the winners' profit; a replay of the events gives the same state;
checking an event never changes the state; every seat may see its own 炸金花 hand."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.cards import CARDS52
from croupier.games import base as g
from croupier.games.poker.holdem import HoldemEngine
from croupier.games.poker.script import Feeder, opened
from croupier.games.poker.zhajinhua import ZhajinhuaEngine, visible_hands
from croupier.games.registry import engine
from croupier_services.bots.poker import pick_holdem, pick_zhajinhua

VARIANTS = ["holdem.must_bet", "holdem.two_plus_three", "zhajinhua"]


def play(
    variant: str, n: int, stacks: list[int], die: int, seed: int
) -> tuple[Any, Any, list[tuple[str, dict[str, Any]]]]:
    e = engine(variant)
    rng = random.Random(seed)
    deck = list(CARDS52)
    rng.shuffle(deck)
    seats = [(i + 1, f"p{i + 1}", stacks[i]) for i in range(n)]
    payload = opened(variant, seats)
    state = e.open("h", payload)
    events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, payload)]
    feeder = Feeder({}, [die], deck)

    def step(type_: str, p: dict[str, Any]) -> None:
        before = copy.deepcopy(state)
        e.verify(state, type_, p)
        assert state == before  # checking changes nothing
        e.apply(state, type_, p)
        events.append((type_, p))

    step(g.BETTING_CLOSED, {})
    for _ in range(2_000):
        events.extend(feeder.advance(e, state))
        if e.is_over(state):
            break
        if isinstance(e, HoldemEngine):
            pick = pick_holdem(e, state, rng)
        else:
            assert isinstance(e, ZhajinhuaEngine)
            pick = pick_zhajinhua(e, state, rng)
        assert pick is not None, state.phase
        seat, action, args = pick
        step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
    assert e.is_over(state)
    return e, state, events


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    n=st.integers(2, 9),
    stacks=st.lists(st.integers(1, 60).map(lambda k: k * 100 + 50), min_size=9, max_size=9),
    die=st.integers(1, 9),
    seed=st.integers(0, 2**32),
)
def test_random_hands(variant: str, n: int, stacks: list[int], die: int, seed: int) -> None:
    e = engine(variant)
    n = min(n, e.max_seats or n)
    die = min(die, n)
    if variant == "zhajinhua":
        stacks = [max(s, 100) for s in stacks]
    e, state, events = play(variant, n, stacks, die, seed)
    res = e.settle(state)
    assert sum(res.deltas.values()) + res.total_rake == 0
    put = state.chips.put
    for seat in state.order:
        who = state.players[seat]
        assert 0 <= put[seat] <= state.chips.stack[seat]
        assert res.deltas[who] >= -put[seat]
    profit = sum(max(0, d + r) for d, r in zip(res.deltas.values(), res.rake.values(), strict=True))
    assert res.total_rake * 20 <= profit
    assert e.replay("h", events) == state
    e.outcome(state)  # JSON-able outcome of every finished hand
    if isinstance(e, ZhajinhuaEngine):
        for seat in state.order:
            assert seat in visible_hands(state, seat)
        assert visible_hands(state, None) <= set(state.order)
