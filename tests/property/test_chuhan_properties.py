"""Properties of 楚汉德州 / 保险楚汉德州 hands over random play: random seats and stacks,
random round-1 bets, decks shuffled by ``croupier.fair`` from a drawn seed, and random
later-round bets, passes, reveals. Zero-sum; nobody stakes more than they carry nor
loses more than they staked; every bet is paid exactly as the rules say (odds - 1, half
back on a round-1 tie, the whole stake otherwise); every odds figure keeps the spot's
return at most 1 - margin given the cards shown; a replay is identical; checking never
changes the state; and what a player sees (face-down cards as "??") leads to the same
turns and odds."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from croupier import canonical, fair
from croupier.games import base as g
from croupier.games.chuhan.engine import CHU, HAN, ChuhanEngine, ChuhanState
from croupier.games.chuhan.probability import runout_odds
from croupier.games.chuhan.rules import Spot
from croupier.games.registry import engine
from croupier.settlement import settle_state

Events = list[tuple[str, Mapping[str, Any]]]
SPOTS = [s.value for s in Spot]


def eng(variant: str) -> ChuhanEngine:
    e = engine(variant)
    assert isinstance(e, ChuhanEngine)
    return e


@dataclass
class Played:
    e: ChuhanEngine
    events: Events
    state: ChuhanState
    seen: ChuhanState


@st.composite
def played_hands(draw: st.DrawFn) -> Played:
    variant = draw(st.sampled_from(["chuhan", "chuhan.insured", "chuhan.insured"]))
    e = eng(variant)
    n = draw(st.integers(1, 4))
    seats = [
        {
            "seat": i + 1,
            "player": f"p{i + 1}",
            "stack": draw(st.sampled_from([10**7, 5000, 800, 0])),
        }
        for i in range(n)
    ]
    opened = {
        "variant": variant, "config_version": 1, "table": "t", "shoe": "s", "commitment": "",
        "hand_no": 1, "shoe_hand_no": 1, "seats": seats,
    }  # fmt: skip
    state = e.open("prop_h1", opened)
    seen = e.open("prop_h1", opened)
    events: Events = [(g.HAND_OPENED, opened)]

    def step(type_: str, payload: Mapping[str, Any]) -> None:
        e.step(state, type_, payload)
        events.append((type_, payload))
        if type_ == g.CARD_DEALT:  # what a player sees: face-down cards as "??"
            payload = {"cards": [c if c["up"] else {**c, "card": "??"} for c in payload["cards"]]}
        e.apply(seen, type_, payload)

    for _ in range(draw(st.integers(0, 6))):
        bet = {
            "seat": draw(st.integers(1, n)),
            "spot": draw(st.sampled_from(SPOTS)),
            "amount": draw(st.sampled_from([100, 500, 1000, 2500, 150])),
        }
        if e.can(state, g.BET_PLACED, bet):
            step(g.BET_PLACED, bet)
    step(g.BETTING_CLOSED, {})
    order = fair.shuffle(e.config.deck, draw(st.binary(min_size=32, max_size=32)), "prop", 1)
    pos = 0
    dealt: dict[str, list[str]] = {}
    while not e.is_over(state):
        req = e.next_deal(state)
        assert e.next_deal(seen) == req and e.to_act(seen) == e.to_act(state)
        assert seen.odds == state.odds
        if req is not None:
            for t in req.reveal:
                step(g.CARDS_REVEALED, {"to": t, "cards": dealt[t]})
            if req.cards:
                cards = []
                for d in req.cards:
                    cards.append({"to": d.to, "card": order[pos], "pos": pos, "up": d.up})
                    dealt.setdefault(d.to, []).append(order[pos])
                    pos += 1
                step(g.CARD_DEALT, {"cards": cards})
            continue
        turn = e.to_act(state)
        assert turn is not None, state.phase
        before = copy.deepcopy(state)
        for a in ("bet", "pass", "reveal", "fold"):
            e.can(state, g.ACTION_TAKEN, {"seat": 1, "action": a, "args": {}})
        assert state == before
        seat = draw(st.sampled_from(turn.seats))
        if turn.actions == ("reveal",):
            step(g.ACTION_TAKEN, {"seat": seat, "action": "reveal", "args": {}})
            continue
        spot = draw(st.sampled_from(["chu", "han", "tie", "type.pair"]))
        amount = draw(st.sampled_from([100, 700, 3000]))
        bet = {"seat": seat, "action": "bet", "args": {"stakes": {spot: amount}}}
        if draw(st.booleans()) and e.can(state, g.ACTION_TAKEN, bet):
            step(g.ACTION_TAKEN, bet)
        else:
            step(g.ACTION_TAKEN, {"seat": seat, "action": "pass", "args": {}})
    step(g.HAND_CLOSED, {"positions_used": pos})
    return Played(e, events, state, seen)


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(played_hands())
def test_money_properties(p: Played) -> None:
    e, s = p.e, p.state
    chu, han = e.strengths(s)
    if chu == han:
        event("tie")
    if s.skipped:
        event(f"{e.variant}: rounds skipped")
    if any(b.round > 1 for b in s.bets):
        event(f"{e.variant}: later-round bets")
    res = e.settle(s)
    assert sum(res.deltas.values()) + res.total_rake == 0 and res.total_rake == 0
    net: dict[str, Fraction] = {}
    for b in s.bets:
        r = e.result(b, chu, han)
        if b.spot in (Spot.CHU, Spot.HAN) and chu == han:
            assert r == (Fraction(-1, 2) if b.round == 1 else Fraction(-1))
        else:
            assert r in (Fraction(-1), b.odds - 1)
        player = s.seats[b.seat].player
        net[player] = net.get(player, Fraction(0)) + b.amount * r
    for seat in s.seats.values():
        staked = s.staked.get(seat.seat, 0)
        assert staked <= seat.stack
        d = res.deltas.get(seat.player, 0)
        assert d >= -staked
        want = net.get(seat.player, Fraction(0))
        assert want - len([b for b in s.bets if b.seat == seat.seat]) <= d <= want


@SETTINGS
@given(played_hands())
def test_later_round_odds_return_at_most_one_minus_the_margin(p: Played) -> None:
    e, s = p.e, p.state
    m = e.rule.margin
    for b in s.bets:
        if b.round == 1:
            continue
        shown = {2: 3, 3: 4}[b.round]
        board = e.board(s)[:shown]
        r = runout_odds(s.cards[CHU], s.cards[HAN], board)
        prob = {Spot.CHU: r.chu, Spot.HAN: r.han, Spot.TIE: r.tie}[b.spot]
        assert 0 < prob * b.odds <= 1 - m
        assert b.odds > e.rule.skip_at_or_below or b.spot is Spot.TIE


@SETTINGS
@given(played_hands())
def test_replay_is_identical(p: Played) -> None:
    e = p.e
    again = e.replay("prop_h1", p.events)
    assert again == p.state
    assert canonical.dumps(e.outcome(again)) == canonical.dumps(e.outcome(p.state))
    assert settle_state(e, again).record_bytes == settle_state(e, p.state).record_bytes
    assert p.seen.bets == p.state.bets
