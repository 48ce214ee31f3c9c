"""Properties of 二八杠 and 推筒子 hands over random play: random seats and stacks, random
grabs, bets and raises (and timeouts), random dice and a random order of the 40 tiles.
Every hand is zero-sum; nobody loses more than they carried (a 二八杠 player at most the
bet, the banker at most the cover; a 推筒子 player at most ante + raise, a folder at most
the ante); rake is 5% of each winner's profit, truncated; the 二八杠 banker never pays
more than the grab covers; the best 推筒子 hand never loses money; a replay is identical
and checking an event never changes the state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.tongzi.erbagang import ErbagangEngine, ErbagangState
from croupier.games.tongzi.tiles import TILES
from croupier.games.tongzi.tuitongzi import TuitongziEngine, TuitongziState
from croupier.settlement import settle_state
from croupier.testing import banker_rake_by_comparison, dealt_from

DECK = [t for t in TILES for _ in range(4)]
Events = list[tuple[str, Mapping[str, Any]]]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def step(e: g.Engine[Any], state: Any, events: Events, type_: str, p: Mapping[str, Any]) -> None:
    before = copy.deepcopy(state)
    e.verify(state, type_, p)
    assert state == before  # checking never changes the state
    e.apply(state, type_, p)
    events.append((type_, p))


def deal(e: g.Engine[Any], state: Any, events: Events, tiles: list[str], rolls: list[int]) -> None:
    """Whatever the rules ask: dice from ``rolls`` (reduced to the faces), tiles from
    ``tiles`` in order, reveals of what was dealt face down."""
    pos = sum(len(p["cards"]) for t, p in events if t == g.CARD_DEALT)
    n_roll = sum(1 for t, _ in events if t == g.DICE_ROLLED)
    while (req := e.next_deal(state)) is not None:
        if req.dice:
            faces = list(req.die_faces())
            dice = [1 + rolls[(n_roll + i) % len(rolls)] % f for i, f in enumerate(faces)]
            step(e, state, events, g.DICE_ROLLED, {"dice": dice, "faces": faces, "roll": n_roll})
            n_roll += 1
        elif req.cards:
            step(e, state, events, g.CARD_DEALT, dealt_from(tiles, pos, req))
            pos += len(req.cards)
        else:
            for to in req.reveal:
                hidden = [
                    c["card"]
                    for t, p in events
                    if t == g.CARD_DEALT
                    for c in p["cards"]
                    if c["to"] == to and not c["up"]
                ]
                step(e, state, events, g.CARDS_REVEALED, {"to": to, "cards": hidden})


def common_checks(e: g.Engine[Any], state: Any, events: Events) -> dict[str, int]:
    assert e.is_over(state)
    step(e, state, events, g.HAND_CLOSED, {"positions_used": 0, "carry": {}})
    replayed = e.replay(state.hand_id, events)
    assert replayed == state
    hs = settle_state(e, state)
    assert hs.record_bytes == settle_state(e, replayed).record_bytes
    assert canonical.dumps(e.outcome(state))
    r = e.settle(state)
    assert sum(r.deltas.values()) + r.total_rake == 0
    return dict(r.deltas)


seat_sets = st.lists(st.integers(1, 9), min_size=2, max_size=4, unique=True)


@SETTINGS
@given(
    variant=st.sampled_from(["erbagang", "erbagang.dice2"]),
    seats=seat_sets,
    stacks=st.lists(st.integers(100, 40_000), min_size=4, max_size=4),
    grabs=st.lists(st.integers(0, 200), min_size=4, max_size=4),
    bets=st.lists(st.integers(1, 200), min_size=4, max_size=4),
    timeouts=st.lists(st.booleans(), min_size=8, max_size=8),
    tiles=st.permutations(DECK),
    rolls=st.lists(st.integers(0, 10**6), min_size=3, max_size=3),
)
def test_erbagang_hands(
    variant: str,
    seats: list[int],
    stacks: list[int],
    grabs: list[int],
    bets: list[int],
    timeouts: list[bool],
    tiles: list[str],
    rolls: list[int],
) -> None:
    e = engine(variant)
    assert isinstance(e, ErbagangEngine)
    stack = dict(zip(seats, stacks, strict=False))
    opened = {
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": f"p{s}", "stack": stack[s]} for s in seats],
    }
    state: ErbagangState = e.open("h", opened)
    events: Events = [(g.HAND_OPENED, opened)]
    step(e, state, events, g.BETTING_CLOSED, {})
    k = 0
    while (w := e.waiting(state)) is not None and w.seats:
        if timeouts[k % len(timeouts)]:
            auto = e.auto_action(state)
            assert auto is not None
            seat, action, args = auto
            args = {**args, "auto": "timeout"}
        else:
            seat, action = w.seats[-1], w.action
            i = seats.index(seat)
            if action == "grab":
                args = {"multiple": min(grabs[i], e.grab_cap(state, seat))}
            else:
                args = {"multiple": min(bets[i], e.bet_cap(state, seat))}
        step(e, state, events, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        k += 1
        deal(e, state, events, tiles, rolls)
    deal(e, state, events, tiles, rolls)
    assert state.banker is not None
    assert state.cover <= state.seats[state.banker].stack
    deltas = common_checks(e, state, events)
    banker = state.seats[state.banker].player
    assert -state.cover <= deltas[banker] <= state.cover
    for s in state.players():
        d = deltas[state.seats[s].player]
        assert -state.bets[s] * e.base <= d <= state.bets[s] * e.base
    out = e.outcome(state)
    wins = [r["winner"] == "player" for r in out["results"]]
    if out["sweep"] == "tongsha":
        assert len(seats) == 4 and not any(wins)
    if out["sweep"] == "tongpei":
        assert len(seats) == 4 and all(wins)
    # a player who loses to the banker never gains, one who wins never pays
    for r in out["results"]:
        d = deltas[state.seats[r["seat"]].player]
        assert (d >= 0) if r["winner"] == "player" else (d <= 0)
    r = e.settle(state)
    for who, profit in r.rake.items():
        net = deltas[who] + profit
        if who == banker:  # each won comparison raked on its own (独立赔付)
            assert profit == banker_rake_by_comparison(r, banker, state.cover, e.rake.rate)
        else:
            assert profit == (net // 20 if net > 0 else 0)


@SETTINGS
@given(
    seats=st.lists(st.integers(1, 9), min_size=1, max_size=9, unique=True),
    antes=st.lists(st.booleans(), min_size=9, max_size=9),
    stacks=st.lists(st.integers(100, 3_000), min_size=9, max_size=9),
    raises=st.lists(st.integers(0, 10), min_size=9, max_size=9),
    tiles=st.permutations(DECK),
    rolls=st.lists(st.integers(0, 10**6), min_size=1, max_size=1),
)
def test_tuitongzi_hands(
    seats: list[int],
    antes: list[bool],
    stacks: list[int],
    raises: list[int],
    tiles: list[str],
    rolls: list[int],
) -> None:
    e = engine("tuitongzi")
    assert isinstance(e, TuitongziEngine)
    opened = {
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": f"p{s}", "stack": stacks[s - 1]} for s in seats],
    }
    state: TuitongziState = e.open("h", opened)
    events: Events = [(g.HAND_OPENED, opened)]
    for s in seats:
        if antes[s - 1]:
            step(e, state, events, g.BET_PLACED, {"seat": s, "spot": "ante", "amount": e.ante})
    step(e, state, events, g.BETTING_CLOSED, {})
    deal(e, state, events, tiles, rolls)
    while waiting := e.waiting(state):
        s = waiting[-1]
        want = raises[s - 1] * e.raise_step
        cap = e.raise_cap(state, s)
        if want == 0 or cap == 0:
            args: dict[str, Any] = {}
            action = "fold"
        else:
            action, args = "raise", {"amount": max(e.raise_min, min(want, cap))}
        step(e, state, events, g.ACTION_TAKEN, {"seat": s, "action": action, "args": args})
        deal(e, state, events, tiles, rolls)
    deal(e, state, events, tiles, rolls)
    deltas = common_checks(e, state, events)
    for s in state.players:
        d = deltas[state.seats[s].player]
        assert d >= -(e.ante + state.raises.get(s, 0))
    if len(state.players) >= 2:
        keys = {s: e.hand_of(state, s).key for s in state.players}
        top = max(keys.values())
        best = [s for s in state.players if keys[s] == top]
        if len(best) == 1:
            assert deltas[state.seats[best[0]].player] > 0
        assert set(e.outcome(state)["base_pot"]["winners"]) == set(best)
    else:
        assert all(v == 0 for v in deltas.values())
