"""Properties of blackjack hands over random play: random seats (one player on several
multi seats, short stacks), random bets, shoes shuffled by ``croupier.fair`` from a
chosen seed, and every decision picked at random among the legal ones (so insurance,
splits and doubles all occur). Zero-sum; nobody loses more than they staked nor stakes
more than they carry; every wager is paid a multiple the rules know; rake is 2% of each
winner's net (多人21点) or nothing (幸运21点); a replay is identical; checking an
event never changes the state; and nothing that decides the play reads the dealer's
face-down card before it is turned up (but the peek)."""

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
from croupier.games.blackjack.engine import BlackjackEngine, BlackjackState
from croupier.games.blackjack.rules import Action
from croupier.games.registry import engine
from croupier.settlement import settle_state
from croupier.testing import dealt_from

Events = list[tuple[str, Mapping[str, Any]]]
RIGGED = ["As", "8c", "Kc", "Qd", "Ts", "5h", "6c", "2d", "3s", "9h"]
PAYS = {Fraction(-1), Fraction(0), Fraction(1), Fraction(3, 2), Fraction(2)}


def eng(variant: str) -> BlackjackEngine:
    e = engine(variant)
    assert isinstance(e, BlackjackEngine)
    return e


@dataclass
class Played:
    e: BlackjackEngine
    events: Events
    state: BlackjackState
    seen: BlackjackState  # the same hand applied with the hole card shown as "??"


@st.composite
def played_hands(draw: st.DrawFn) -> Played:
    variant = draw(st.sampled_from(["blackjack.multi", "blackjack.lucky"]))
    e = eng(variant)
    n = draw(st.integers(1, e.table.max_seats))
    names = ["a", "b", "c"] if e.table.many_seats else ["a", "b", "c", "d", "e"]
    players = (
        draw(st.lists(st.sampled_from(names), min_size=n, max_size=n))
        if e.table.many_seats
        else names[:n]
    )
    stacks = {p: draw(st.sampled_from([10**9, 10**9, 10**9, 6000, 2500, 1000, 0])) for p in players}
    seats = [{"seat": i + 1, "player": p, "stack": stacks[p]} for i, p in enumerate(players)]
    opened = {
        "variant": variant, "config_version": e.config.version, "table": "t", "shoe": "s",
        "commitment": "", "hand_no": 1, "shoe_hand_no": 1, "seats": seats,
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

    for s in seats:
        amount = draw(st.sampled_from([100, 500, 1000, 2500, 3000]))
        bet = {"seat": s["seat"], "spot": "main", "amount": amount}
        if e.can(state, g.BET_PLACED, bet):
            step(g.BET_PLACED, bet)
    step(g.BETTING_CLOSED, {})
    seed = draw(st.binary(min_size=32, max_size=32))
    # a shuffled shoe, often after a chosen first deal so that pairs, aces and
    # blackjacks (insurance, the peek, splits) come up more often than by chance
    rigged: list[str] = []
    if draw(st.booleans()):
        firsts = [draw(st.sampled_from(RIGGED)) for _ in state.play]
        seconds = [c if draw(st.booleans()) else draw(st.sampled_from(RIGGED)) for c in firsts]
        rigged = [*firsts, *seconds, draw(st.sampled_from(["As", "As", "Kc", "6h"]))]
        rigged += [draw(st.sampled_from(["Kd", "7s", "Ac", "5c"]))]
    order = rigged + fair.shuffle(e.config.deck, seed, "prop", 1)
    pos = 0
    while not e.is_over(state):
        req = e.next_deal(state)
        if state.phase != "peek":  # the peek alone looks at the face-down card
            assert e.to_act(seen) == e.to_act(state)
            assert e.next_deal(seen) == req
        if req is not None and req.reveal:
            step(g.CARDS_REVEALED, {"to": "dealer", "cards": [state.hole]})
        elif req is not None:
            step(g.CARD_DEALT, dealt_from(order, pos, req))
            pos += len(req.cards)
        else:
            turn = e.to_act(state)
            assert turn is not None and turn.actions, state.phase
            # checking never changes anything, legal or not
            before = copy.deepcopy(state)
            for a in Action:
                for seat in {turn.seat, min(state.seats), max(state.seats)}:
                    e.can(state, g.ACTION_TAKEN, {"seat": seat, "action": a.value, "args": {}})
            assert state == before
            # hypothesis favours the first choices: insurance; split and double
            choices = turn.actions if Action.INSURE in turn.actions else turn.actions[::-1]
            action = draw(st.sampled_from(choices))
            step(g.ACTION_TAKEN, {"seat": turn.seat, "action": action.value, "args": {}})
    step(g.HAND_CLOSED, {"positions_used": pos})
    return Played(e, events, state, seen)


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(played_hands())
def test_money_properties(p: Played) -> None:
    e, stt = p.e, p.state
    for name, seen in (
        ("split", any(pl.splits for pl in stt.play.values())),
        ("double", any(b.doubled for pl in stt.play.values() for b in pl.boxes)),
        ("insurance", any(pl.insurance for pl in stt.play.values())),
        ("peek", stt.peeked),
        ("several seats, one player", len(stt.staked) < len(stt.play)),
    ):
        if seen:
            event(f"{e.variant}: {name}")
    res = e.settle(stt)
    assert sum(res.deltas.values()) + res.total_rake == 0
    by_player: dict[str, Fraction] = {}
    insurance_won: dict[str, Fraction] = {}  # raked on its own (多人21点 结算)
    for w in e.wagers(stt):
        assert w.result in PAYS
        assert w.spot == "insurance" or w.result != 2
        won = w.amount * Fraction(w.result)
        by_player[w.participant] = by_player.get(w.participant, Fraction(0)) + won
        if w.spot in e.rake.own_spots and won > 0:
            insurance_won[w.participant] = insurance_won.get(w.participant, Fraction(0)) + won
    for player, staked in stt.staked.items():
        stack = next(s.stack for s in stt.seats.values() if s.player == player)
        assert staked <= stack
        net = by_player.get(player, Fraction(0))
        assert net.denominator == 1  # whole minor units: no rounding ever
        own = insurance_won.get(player, Fraction(0))
        rest = net - own
        rake = (int(rest * e.rules.rake) if rest > 0 else 0) + int(own * e.rules.rake)
        assert res.rake.get(player, 0) == rake
        assert res.deltas.get(player, 0) == net - rake >= -staked
    assert res.staked == {p: v for p, v in stt.staked.items() if v} or not stt.play


@SETTINGS
@given(played_hands())
def test_replay_is_identical(p: Played) -> None:
    e = p.e
    again = e.replay("prop_h1", p.events)
    assert again == p.state
    out = e.outcome(again)
    assert canonical.dumps(out) == canonical.dumps(e.outcome(p.state))
    assert settle_state(e, again).record_bytes == settle_state(e, p.state).record_bytes
    # the hand as a player saw it (hole card "??") holds the same player hands
    assert p.seen.play == p.state.play
