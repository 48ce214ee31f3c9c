"""Properties of 十三水 hands over random play: 2-4 seats with random stacks (short ones
included), decks shuffled by ``croupier.fair`` from a drawn seed, and each seat's
arrangement drawn at random among: 自动比牌, a random legal arrangement, a special hand
when there is one, and (refused) random fouled splits. Water is zero-sum and the
money too; nobody wins or loses more than they carried (十三水 6、实际输赢); rake is
5% of each winner's profit (truncated); a refused arrangement changes nothing; a
replay is identical."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from croupier import canonical, fair
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shisanshui.engine import ShisanshuiEngine, ShisanshuiState
from croupier.games.shisanshui.hands import Arrangement, is_fouled, special_of
from croupier.settlement import settle_state

Events = list[tuple[str, Mapping[str, Any]]]


def eng() -> ShisanshuiEngine:
    e = engine("shisanshui")
    assert isinstance(e, ShisanshuiEngine)
    return e


@dataclass
class Played:
    e: ShisanshuiEngine
    events: Events
    state: ShisanshuiState


@st.composite
def played_hands(draw: st.DrawFn) -> Played:
    e = eng()
    n = draw(st.integers(2, 4))
    seats = [
        {
            "seat": i + 1,
            "player": f"p{i + 1}",
            "stack": draw(st.sampled_from([10**7, 2000, 350, 0])),
        }
        for i in range(n)
    ]
    opened = {
        "variant": "shisanshui", "config_version": 1, "table": "t", "shoe": "s",
        "commitment": "", "hand_no": 1, "shoe_hand_no": 1, "seats": seats,
    }  # fmt: skip
    state = e.open("prop_h1", opened)
    events: Events = [(g.HAND_OPENED, opened)]

    def step(type_: str, payload: Mapping[str, Any]) -> None:
        e.step(state, type_, payload)
        events.append((type_, payload))

    step(g.BETTING_CLOSED, {})
    order = fair.shuffle(e.config.deck, draw(st.binary(min_size=32, max_size=32)), "prop", 1)
    pos = 0
    while not e.is_over(state):
        req = e.next_deal(state)
        if req is not None:
            for t in req.reveal:
                seat_no = int(t.split(":")[1])
                step(g.CARDS_REVEALED, {"to": t, "cards": state.hands[seat_no]})
            if req.cards:
                cards = [
                    {"to": d.to, "card": order[pos + i], "pos": pos + i, "up": d.up}
                    for i, d in enumerate(req.cards)
                ]
                pos += len(cards)
                step(g.CARD_DEALT, {"cards": cards})
            continue
        seat = draw(st.sampled_from(e.to_act(state)))
        hand = state.hands[seat]
        way = draw(st.sampled_from(["auto", "random", "random", "special"]))
        if way == "special" and special_of(hand) is not None:
            event("a special hand declared")
            step(g.ACTION_TAKEN, {"seat": seat, "action": "auto_arrange", "args": {}})
            continue
        if way != "auto":
            idx = draw(st.permutations(range(13)))
            rows = {"front": list(idx[:3]), "middle": list(idx[3:8]), "back": list(idx[8:])}
            p = {"seat": seat, "action": "arrange", "args": rows}
            f, m, b = ([hand[i] for i in idx[k:j]] for k, j in ((0, 3), (3, 8), (8, 13)))
            if is_fouled(f, m, b):
                before = copy.deepcopy(state)
                assert not e.can(state, g.ACTION_TAKEN, p)
                assert state == before
            else:
                event("a random legal arrangement")
                step(g.ACTION_TAKEN, p)
                continue
        step(g.ACTION_TAKEN, {"seat": seat, "action": "auto_arrange", "args": {}})
    step(g.HAND_CLOSED, {"positions_used": pos})
    return Played(e, events, state)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(played_hands())
def test_money_properties(p: Played) -> None:
    e, s = p.e, p.state
    sc = e.scoring(s)
    assert sum(sc.water.values()) == 0
    if sc.home_run is not None:
        event("全垒打")
    if any(pair.gun for pair in sc.pairs):
        event("打枪")
    res = e.settle(s)
    assert sum(res.deltas.values()) + res.total_rake == 0
    short = False
    for seat in s.seats.values():
        d, r = res.deltas[seat.player], res.rake[seat.player]
        assert -seat.stack <= d and d + r <= seat.stack  # 有限责任制, both ways
        assert r == ((d + r) // 20 if d + r > 0 else 0)  # 5% of the profit, truncated
        theoretical = sc.water[seat.seat] * e.base_score
        short |= abs(theoretical) > seat.stack
        if theoretical <= 0:
            assert d >= theoretical  # limiting never makes a loser pay more
    if short:
        event("limited liability binds")


@SETTINGS
@given(played_hands())
def test_replay_is_identical(p: Played) -> None:
    e = p.e
    again = e.replay("prop_h1", p.events)
    assert again == p.state
    assert canonical.dumps(e.outcome(again)) == canonical.dumps(e.outcome(p.state))
    assert settle_state(e, again).record_bytes == settle_state(e, p.state).record_bytes
    for a in again.arranged.values():
        assert isinstance(a, Arrangement)
        f, m, b = a.strengths
        assert a.special is not None or f <= m <= b
