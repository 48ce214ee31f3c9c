"""The Sangong demo bots: they bet within the spot limits and the balance (so the
multiplier limit does not bind), and on the public view of a hand (face-down cards
redacted) they only ever make moves the rules accept, until every variant's hand closes
through the dealer."""

from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from croupier.dealing import Dealer
from croupier.games.sangong.engine import SPOTS, SangongState
from croupier.testing import DEALER, GATEWAY
from croupier_services.bots import bets_for, next_move
from croupier_services.views import redact

STACK = 10**7


def test_hundred_bets_stay_within_limits_and_the_balance() -> None:
    rng = random.Random(1)
    for _ in range(50):
        bets = bets_for("sangong.hundred", rng, [1, 2, 3], 1, STACK)
        assert bets and {s for s, _, _ in bets} == {1, 2, 3}
        for seat in (1, 2, 3):
            mine = [a for s, _, a in bets if s == seat]
            assert sum(mine) * 5 <= STACK  # the top multiplier stays covered
        for _, spot, amount in bets:
            assert spot in SPOTS and 100 <= amount <= 10**6 and amount % 100 == 0
    assert bets_for("sangong.grab", rng, [1, 2], 1, STACK) == []


@pytest.mark.parametrize("variant", ["sangong.hundred", "sangong.grab", "sangong.classic"])
def test_bots_play_hands_to_the_end_on_the_public_view(variant: str) -> None:
    clock = itertools.count()
    seeds = (hashlib.sha256(f"bot {n}".encode()).digest() for n in itertools.count())
    d = Dealer(DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds))
    d.open_table("t", variant)
    rng = random.Random(variant)
    seats = [{"seat": i, "player": f"p{i}", "stack": STACK} for i in (1, 2, 3, 4)]
    for _ in range(10):
        hid, _ = d.open_hand("t", seats)
        hand = d.hand(hid)
        bets = bets_for(variant, rng, [1, 2, 3, 4], 1, STACK)
        if bets:
            d.place_bets(hid, [{"seat": s, "spot": p, "amount": a} for s, p, a in bets])
        d.close_betting(hid)
        moves = 0
        while not hand.state.closed:
            view = [(e.type, json.loads(e.payload_json)) for e in redact(hand.events, None)]
            move = next_move(variant, view, rng)
            assert move is not None
            d.act(hid, move.seat, move.action, move.args)
            moves += 1
        state = hand.state
        assert isinstance(state, SangongState)
        if variant == "sangong.hundred":
            assert moves == 0
        else:
            # every seat grabbed or passed, every player bet
            assert moves == len(seats) * 2 - 1
            assert state.banker is not None
