"""Properties of Sangong hands over random play: every variant, random seats and stacks
(short ones included), random bets (sangong.hundred) or random grabs and bet multiples
(the grab tables), decks shuffled and dice rolled by ``croupier.fair`` from a chosen
seed. Zero-sum; nobody loses more than they carried, and at a grab table nobody wins
more either (防以小博大); the rake is the variant's rate of each winner's profit; a
hundred-player bet is paid its spot's or the banker's multiplier, limited by the
balance; the banker is one of the draw's candidates; a replay is identical; checking an
event never changes the state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import fair
from croupier.games import base as g
from croupier.games.registry import variant_config
from croupier.games.sangong.engine import SPOTS, Act, SangongEngine, SangongState
from croupier.games.sangong.hands import banker_wins
from croupier.money import HOUSE
from croupier.testing import banker_rake_by_comparison, dealt_from, rolled_from

Events = list[tuple[str, Mapping[str, Any]]]
STACKS = [10**8, 10**6, 10**6, 50_000, 7_000, 1_000, 0]


def eng(variant: str) -> SangongEngine:
    """The engine, built from its config alone (not through the registry of every
    family)."""
    return SangongEngine(variant_config(variant))


@dataclass
class Played:
    e: SangongEngine
    events: Events
    state: SangongState


def step(p: Played, type_: str, payload: Mapping[str, Any]) -> None:
    before = copy.deepcopy(p.state)
    p.e.verify(p.state, type_, payload)
    assert p.state == before  # checking changes nothing
    p.e.apply(p.state, type_, payload)
    p.events.append((type_, payload))


@st.composite
def played_hands(draw: st.DrawFn) -> Played:
    variant = draw(st.sampled_from(["sangong.hundred", "sangong.grab", "sangong.classic"]))
    e = eng(variant)
    n = draw(st.integers(e.min_seats, 6))
    stacks = [draw(st.sampled_from(STACKS)) for _ in range(n)]
    if e.grab is not None and not any(stacks):
        stacks[0] = 10**6
    seats = [{"seat": i + 1, "player": f"p{i + 1}", "stack": s} for i, s in enumerate(stacks)]
    opened = {"table": "t", "hand_no": 1, "shoe_hand_no": 1, "seats": seats}
    p = Played(e, [(g.HAND_OPENED, opened)], e.open("h", opened))
    seed = draw(st.binary(min_size=32, max_size=32))
    deck = fair.shuffle(e.config.deck, seed, "client", 1)
    if e.spot_limits is not None:
        lim = e.spot_limits
        for i, stack in enumerate(stacks):
            left = stack
            for spot in draw(st.lists(st.sampled_from(SPOTS), max_size=3, unique=True)):
                most = min(lim.max, left) // lim.step
                if most * lim.step < lim.min:
                    break
                amount = draw(st.integers(lim.min // lim.step, most)) * lim.step
                step(p, g.BET_PLACED, {"seat": i + 1, "spot": spot, "amount": amount})
                left -= amount
    step(p, g.BETTING_CLOSED, {})
    pos = rolls = 0
    while not e.is_over(p.state):
        req = e.next_deal(p.state)
        if req is not None:
            if req.dice:
                step(p, g.DICE_ROLLED, rolled_from(req, seed, rolls, "client"))
                rolls += 1
            for t in req.reveal:
                step(p, g.CARDS_REVEALED, {"to": t, "cards": list(p.state.dealt[t])})
            if req.cards:
                step(p, g.CARD_DEALT, dealt_from(deck, pos, req))
                pos += len(req.cards)
            continue
        turns = e.to_act(p.state)
        assert turns
        turn = draw(st.sampled_from(turns))
        action = draw(st.sampled_from(turn.actions))
        args: dict[str, Any] = {}
        if action is Act.BET or (action is Act.GRAB and turn.multiples):
            args["multiple"] = draw(st.sampled_from(turn.multiples))
        step(p, g.ACTION_TAKEN, {"seat": turn.seat, "action": action.value, "args": args})
    step(p, g.HAND_CLOSED, {"positions_used": pos, "carry": {}})
    return p


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played_hands())
def test_zero_sum_bounded_and_raked_at_the_variant_rate(p: Played) -> None:
    e, s = p.e, p.state
    r = e.settle(s)
    assert sum(r.deltas.values()) + r.total_rake == 0
    nets = {who: r.deltas[who] + r.rake[who] for who in r.deltas}
    for seat in s.seats.values():
        who = seat.player
        if who not in r.deltas:
            continue
        assert r.deltas[who] >= -seat.stack
        if e.grab is not None:
            assert nets[who] <= seat.stack  # 防以小博大: win at most what was carried
        profit = nets[who]
        if e.grab is not None and s.banker is not None and who == s.seats[s.banker].player:
            # the banker is raked on each comparison it won (001 庄家胜利所赢游戏币=A*M*Y-抽水)
            assert r.rake[who] == banker_rake_by_comparison(r, who, seat.stack, e.rake_rate)
        else:
            assert r.rake[who] == (int(profit * e.rake_rate) if profit > 0 else 0)
    if e.grab is not None:
        assert s.draw is not None and s.banker in s.draw.candidates
        assert set(s.multiples) == set(s.seats) - {s.banker}
    else:
        assert r.rake.get(HOUSE, 0) == 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played_hands())
def test_hundred_bets_pay_the_limited_multiplier(p: Played) -> None:
    e, s = p.e, p.state
    if e.spot_limits is None:
        return
    banker = e.hand_of(s, "banker")
    want: dict[str, Fraction] = {}
    for (seat, spot), amount in s.bets.items():
        h = e.hand_of(s, spot)
        lim = e.spot_limit(s, seat)
        assert 1 <= lim <= 5 and lim * s.staked[seat] <= s.seats[seat].stack
        won = not banker_wins(banker, h, e.hands)
        m = min(h.multiplier if won else banker.multiplier, lim)
        who = s.seats[seat].player
        want[who] = want.get(who, Fraction(0)) + (m if won else -m) * amount
    r = e.settle(s)
    for who, v in want.items():
        assert r.deltas[who] + r.rake[who] == v


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played_hands())
def test_replay_is_identical(p: Played) -> None:
    again = p.e.replay("h", p.events)
    assert again == p.state
    assert p.e.outcome(again) == p.e.outcome(p.state)
    assert p.e.settle(again).to_json_dict() == p.e.settle(p.state).to_json_dict()
