"""Properties of Niuniu hands over random play, every variant: random seats and stacks
(deep, short and empty), random banker grabs and offers, dice, bet multiples, 百人牛牛
stakes and banker queue, arrangements shown or left to the game, and decks shuffled by
``croupier.fair`` from a drawn seed (sometimes with special hands rigged on top).
Zero-sum; nobody loses or wins more than they carried; rake is the variant's rate of each
winner's profit at most; a replay gives the same state, outcome and settlement;
checking an event never changes the state; a player's view (others' cards as "??")
waits on the same turns."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from croupier import fair
from croupier.games import base as g
from croupier.games.niuniu.engine import NiuniuEngine, NiuniuState
from croupier.games.niuniu.script import opened
from croupier.games.registry import variant_config
from croupier.money import HOUSE, RakeBasis, RakePolicy, RakeUnitStep

Events = list[tuple[str, Mapping[str, Any]]]
VARIANTS = ["niuniu.hundred", "niuniu.banker", "niuniu.tongbi", "niuniu.classic", "niuniu.yuele"]
RIGGED = [
    ["As", "Ah", "2s", "2h", "3d"],  # 小牛牛
    ["Ks", "Kh", "Kd", "Kc", "Qs"],  # 四炸 / 五花牛 (004)
    ["Js", "Qh", "Kd", "Jc", "Qd"],  # 五花牛
    ["Jh", "Qs", "Kh", "Kc", "Ts"],  # 四花牛
]
ENGINES = {v: NiuniuEngine(variant_config(v)) for v in VARIANTS}


@dataclass
class Played:
    e: NiuniuEngine
    events: Events
    state: NiuniuState


@st.composite
def played_hands(draw: st.DrawFn) -> Played:
    variant = draw(st.sampled_from(VARIANTS))
    e = ENGINES[variant]
    t = e.table
    n = draw(st.integers(max(t.min_seats, 2), t.max_seats or 6))
    stacks = [
        draw(st.sampled_from([10**9, 10**7, 5_000_000, 250_000, 30_000, 0])) for _ in range(n)
    ]
    carry: dict[str, Any] = {}
    if t.hundred is not None and draw(st.booleans()):
        carry = {"banker": "p1", "banked": draw(st.integers(0, 9)), "queue": ["p2"]}
    elif variant == "niuniu.banker" and draw(st.booleans()):
        carry = {"banker": f"p{draw(st.integers(1, n + 1))}", "regrab": draw(st.booleans())}
    payload = opened(variant, [(i + 1, f"p{i + 1}", s) for i, s in enumerate(stacks)], carry)
    state = e.open("prop", payload)
    events: Events = [(g.HAND_OPENED, payload)]

    def step(type_: str, p: Mapping[str, Any]) -> None:
        before = copy.deepcopy(state)
        e.verify(state, type_, p)
        assert state == before  # checking changes nothing
        e.apply(state, type_, p)
        events.append((type_, p))

    if t.hundred is not None:
        for s in range(1, n + 1):
            for spot in draw(st.lists(st.sampled_from(t.hundred.spots), max_size=3)):
                bet = {
                    "seat": s,
                    "spot": spot,
                    "amount": draw(st.sampled_from([100, 2000, 30_000])),
                }
                if e.can(state, g.BET_PLACED, bet):
                    step(g.BET_PLACED, bet)
            for action in ("apply_banker", "leave_banker"):
                act: dict[str, Any] = {"seat": s, "action": action, "args": {}}
                if draw(st.integers(0, 3)) == 0 and e.can(state, g.ACTION_TAKEN, act):
                    step(g.ACTION_TAKEN, act)
    step(g.BETTING_CLOSED, {})
    deck = fair.shuffle(e.config.deck, draw(st.binary(min_size=32, max_size=32)), "prop", 1)
    top: list[str] = draw(st.sampled_from(RIGGED)) if draw(st.booleans()) else []
    rest = [c for c in deck if c not in top]
    pos, rolls = 0, 0
    while not e.is_over(state):
        req = e.next_deal(state)
        if req is not None:
            if req.dice:
                faces = req.die_faces()[0]
                step(
                    g.DICE_ROLLED,
                    {"dice": [draw(st.integers(1, faces))], "faces": [faces], "roll": rolls},
                )
                rolls += 1
            for to in req.reveal:
                step(g.CARDS_REVEALED, {"to": to, "cards": list(state.play[int(to[5:])].cards)})
            if req.cards:  # the rigged hand, if any, goes to the first target
                first, cards = req.cards[0].to, []
                for d in req.cards:
                    card = top.pop(0) if d.to == first and top else rest.pop(0)
                    cards.append({"to": d.to, "card": card, "pos": pos, "up": d.up})
                    pos += 1
                step(g.CARD_DEALT, {"cards": cards})
            continue
        turn = e.to_act(state)
        assert turn is not None, state.phase
        action = turn.actions[0]
        if draw(st.integers(0, 4)) == 0:
            auto = e.auto_action(state)
            assert auto is not None and auto[0] == turn.seat
            args = {**auto[2], "auto": "timeout"}
        elif action == "grab":
            args = {"grab": draw(st.booleans())}
        elif action == "bank":
            args = {"accept": draw(st.booleans())}
        elif action == "bet":
            args = {"multiple": draw(st.sampled_from(state.play[turn.seat].options))}
        else:
            h = e.hand_of(state.play[turn.seat].cards)
            args = {"three": list(h.three)} if draw(st.booleans()) else {}
        step(g.ACTION_TAKEN, {"seat": turn.seat, "action": action, "args": args})
    step(g.HAND_CLOSED, {"positions_used": pos, "carry": e.carry(state)})
    return Played(e, events, state)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(played_hands())
def test_money_properties(p: Played) -> None:
    e, s = p.e, p.state
    event(f"{e.variant}: {'void' if s.void else 'played'}")
    res = e.settle(s)
    assert sum(res.deltas.values()) + res.total_rake == 0
    carried = {seat.player: seat.stack for seat in s.seats.values()}
    rate = e.table.rake
    for who, d in res.deltas.items():
        if who == HOUSE:
            assert res.rake[who] == 0
            continue
        assert d >= -carried[who], (who, d, carried[who])  # nobody loses more than carried
        profit = d + res.rake[who]
        assert profit <= carried[who], (who, profit, carried[who])  # nor wins more (有限责任制)
        if RakePolicy.from_config(e.config.raw).basis is RakeBasis.PER_COMPARISON:
            # 001 经典牛牛: raked on each comparison won, at most rate x what it paid
            units = [u for u in res.steps if isinstance(u, RakeUnitStep) and u.winner == who]
            assert all(0 <= u.rake <= rate * u.won for u in units)
            assert res.rake[who] == sum(u.rake for u in units)
        else:
            assert 0 <= res.rake[who] <= max(Fraction(0), rate * profit)
    if s.void:
        assert all(d == 0 for d in res.deltas.values())
    if e.table.hundred is not None:
        limits = e.hundred_limits(s)
        for seat, m in limits.items():
            assert m * s.staked[seat] <= s.seats[seat].stack


@SETTINGS
@given(played_hands())
def test_replay_is_identical(p: Played) -> None:
    e = p.e
    again = e.replay("prop", p.events)
    assert again == p.state
    assert e.outcome(again) == e.outcome(p.state)
    assert e.settle(again).to_json_dict() == e.settle(p.state).to_json_dict()


@SETTINGS
@given(played_hands())
def test_a_players_view_waits_on_the_same_turns(p: Played) -> None:
    """Applied with every face-down card shown as "??" (what a player at another seat
    sees), the engine asks for the same deals and the same decisions, event by event."""
    e = p.e
    real = e.open("prop", p.events[0][1])
    seen = e.open("prop", p.events[0][1])
    for type_, payload in p.events[1:]:
        assert e.next_deal(seen) == e.next_deal(real) or type_ == g.CARDS_REVEALED
        assert e.to_act(seen) == e.to_act(real)
        shown = payload
        if type_ == g.CARD_DEALT:
            shown = {"cards": [c if c["up"] else {**c, "card": "??"} for c in payload["cards"]]}
        e.apply(real, type_, payload)
        e.apply(seen, type_, shown)
