"""楚汉德州 and 保险楚汉德州 through the dealer core (croupier.dealing.Dealer): whole hands
dealt from committed shuffles, bets in every round, reveals by the right holder or by
timeout, closed, settled (croupier.settlement.settle_state) and audited
(croupier.audit.audit_hand) with the verdict PASS; a refused bet or action writes
nothing; the face-down cards stay hidden from every seat until turned up; the demo
bots play whole hands."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, BetRejected
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.chuhan.engine import ChuhanEngine, ChuhanState
from croupier.games.registry import engine
from croupier.settlement import HandSettlement
from croupier.testing import DealerRun, seat_rows
from croupier_services.bots import bets_for, next_move
from croupier_services.views import HIDDEN, redact

VARIANTS = ("chuhan", "chuhan.insured")


def eng(variant: str) -> ChuhanEngine:
    e = engine(variant)
    assert isinstance(e, ChuhanEngine)
    return e


def cs(hand: Hand) -> ChuhanState:
    assert isinstance(hand.state, ChuhanState)
    return hand.state


def seats(n: int, stack: int = 10**7) -> list[dict[str, Any]]:
    return seat_rows(range(1, n + 1), stack)


@dataclass
class Run(DealerRun):
    """A chuhan table; ``play_out`` bets, passes, reveals or lets the turn time out."""

    seed_label: str = "chuhan"

    def play_out(self, hand: Hand, rng: random.Random, timeout_rate: float = 0.25) -> None:
        e = eng(self.variant)
        while not cs(hand).closed:
            turn = e.to_act(cs(hand))
            assert turn is not None, cs(hand).phase
            if rng.random() < timeout_rate:
                self.keep(self.dealer.expire(hand.hand_id))
                continue
            seat = rng.choice(turn.seats)
            if turn.actions == ("reveal",):
                self.keep(self.dealer.act(hand.hand_id, seat, "reveal", {}))
                continue
            open_ = [s.value for s in cs(hand).odds]
            if rng.random() < 0.5 and open_:
                spot = rng.choice(open_)
                args = {"stakes": {spot: 100 * rng.randint(1, 30)}}
                self.keep(self.dealer.act(hand.hand_id, seat, "bet", args))
            else:
                self.keep(self.dealer.act(hand.hand_id, seat, "pass", {}))


def audit(run: Run, hand: Hand) -> HandSettlement:
    log = run.stream(hand.hand_id)
    verify_chain(log.events)
    assert log.events[-1].type == g.HAND_CLOSED
    rep, hs = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert sum(n for _, n in hs.postings) == 0
    return hs


def random_bets(rng: random.Random, n: int) -> list[tuple[int, str, int]]:
    spots = ["chu", "han", "tie", "type.pair", "type.two_pair", "type.flush"]
    return [
        (s, rng.choice(spots), 100 * rng.randint(1, 40)) for s in range(1, n + 1) for _ in range(2)
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_hands_through_the_dealer_settle_and_audit(variant: str) -> None:
    run = Run(variant)
    rng = random.Random(variant)
    played = later_bets = 0
    for i in range(8):
        n = 1 + i % 4
        hand = run.open(seats(n), random_bets(rng, n) if i % 5 else [])
        run.play_out(hand, rng)
        st = cs(hand)
        assert st.closed
        hs = audit(run, hand)
        staked = sum(b.amount for b in st.bets)
        assert hs.staked == staked
        for seat in st.seats.values():  # nobody loses more than they staked
            assert hs.record["deltas"].get(seat.player, 0) >= -st.staked.get(seat.seat, 0)
        later_bets += sum(1 for b in st.bets if b.round > 1)
        played += 1
        types = [x.type for x in run.stream(hand.hand_id).events]
        if variant == "chuhan":
            assert types.count(g.CARD_DEALT) == 1 and types.count(g.CARDS_REVEALED) == 2
        else:
            assert types.count(g.CARD_DEALT) == 3 and types.count(g.CARDS_REVEALED) == 5
    assert played == 8
    if variant == "chuhan.insured":
        assert later_bets > 0


def test_the_hole_cards_stay_hidden_until_revealed() -> None:
    run = Run("chuhan", seed_base=40)
    hand = run.open(seats(2), [(1, "chu", 1000), (2, "han", 500)])
    assert cs(hand).phase == "reveal" and cs(hand).revealer == 1
    events = list(run.stream(hand.hand_id).events)
    holes = [
        c["card"]
        for x in events
        if x.type == g.CARD_DEALT
        for c in x.payload["cards"]
        if not c["up"]
    ]
    assert len(holes) == 4
    for seat in (None, 1, 2):
        shown = "".join(pb.payload_json for pb in redact(events, seat))
        assert HIDDEN in shown and not any(f'"{h}"' in shown for h in holes)
    run.keep(run.dealer.act(hand.hand_id, 1, "reveal", {}))
    after = "".join(pb.payload_json for pb in redact(list(run.stream(hand.hand_id).events), None))
    assert all(f'"{h}"' in after for h in holes)
    audit(run, hand)


def test_a_refused_bet_or_action_writes_nothing() -> None:
    run = Run("chuhan.insured", seed_base=3)
    rng = random.Random(1)
    for _ in range(20):  # the first hand whose round 2 is not skipped
        hand = run.open(seats(2), [(1, "chu", 1000), (2, "han", 1000)])
        if cs(hand).phase == "bet":
            break
        run.play_out(hand, rng)
    st = cs(hand)
    assert st.phase == "bet"
    before, snapshot = len(hand.events), copy.deepcopy(st)
    for seat, action, args, reason in (
        (1, "bet", {"stakes": {"type.pair": 100}}, "spot_closed"),
        (1, "bet", {"stakes": {"chu": 50}}, "bad_amount"),
        (1, "reveal", {}, "not_now"),
        (1, "raise", {}, "unknown_action"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before and not hand.writer.pending and st == snapshot
    with pytest.raises(BetRejected) as bet_err:
        run.dealer.place_bets(hand.hand_id, [{"seat": 1, "spot": "chu", "amount": 100}])
    assert bet_err.value.reason == "betting_closed" and len(hand.events) == before
    run.play_out(hand, rng)
    audit(run, hand)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_demo_bots_play_whole_hands(variant: str) -> None:
    run = Run(variant, seed_base=60)
    rng = random.Random(2)
    for k in range(4):
        table = seats(3)
        bets = bets_for(variant, rng, [1, 2, 3], k + 1, 10**7)
        hand = run.open(table, bets)
        while not cs(hand).closed:
            public = [(pb.type, json.loads(pb.payload_json)) for pb in redact(hand.events, None)]
            move = next_move(variant, public, rng)
            assert move is not None
            run.keep(run.dealer.act(hand.hand_id, move.seat, move.action, move.args))
        audit(run, hand)
