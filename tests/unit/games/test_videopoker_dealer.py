"""幸运五张 through the dealer core (croupier.dealing.Dealer): whole hands dealt from
committed shuffles, drawn on the automatic holds, on changed holds and by timeout,
closed, settled (croupier.settlement.settle_state) and audited (croupier.audit.audit_hand)
with the verdict PASS; a refused draw writes nothing; the demo bot plays a hand."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, BetRejected
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.videopoker.engine import VideoPokerEngine, VideoPokerState
from croupier.settlement import HandSettlement
from croupier.testing import DealerRun, seat_rows
from croupier_services.bots import next_move
from croupier_services.views import redact

VARIANT = "videopoker.lucky5"
SEAT = seat_rows([1], 10**7)


def eng() -> VideoPokerEngine:
    e = engine(VARIANT)
    assert isinstance(e, VideoPokerEngine)
    return e


def vs(hand: Hand) -> VideoPokerState:
    assert isinstance(hand.state, VideoPokerState)
    return hand.state


@dataclass
class Run(DealerRun):
    """A 幸运五张 table of one seat; ``bet_hand`` opens a hand with one main bet."""

    variant: str = VARIANT
    seed_label: str = "vp"
    seats: Sequence[Mapping[str, Any]] = tuple(SEAT)

    def bet_hand(self, amount: int = 1000) -> Hand:
        return self.open(bets=[(1, "main", amount)])


def audit(run: Run, hand: Hand) -> HandSettlement:
    log = run.stream(hand.hand_id)
    verify_chain(log.events)
    assert log.events[-1].type == g.HAND_CLOSED
    rep, hs = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert sum(n for _, n in hs.postings) == 0
    return hs


def test_hands_through_the_dealer_settle_and_audit() -> None:
    e = eng()
    run = Run()
    rng = random.Random(3)
    results = []
    for i in range(8):
        hand = run.bet_hand(100 * rng.randint(1, 50))
        st = vs(hand)
        assert st.phase == "hold" and len(st.dealt) == 5
        if i % 3 == 0:
            run.keep(run.dealer.expire(hand.hand_id))  # timeout: the automatic holds
            assert st.hold == list(e.auto_hold(st))
        elif i % 3 == 1:
            run.keep(run.dealer.act(hand.hand_id, 1, "draw", {}))
            assert st.hold == list(e.auto_hold(st))
        else:
            hold = rng.sample(st.dealt, rng.randint(0, 5))
            run.keep(run.dealer.act(hand.hand_id, 1, "draw", {"hold": hold}))
            assert sorted(st.hold or []) == sorted(hold)
        assert st.closed and len(st.final) == 5
        hs = audit(run, hand)
        line = e.line(st)
        assert hs.record["deltas"]["p1"] == st.bet * (e.paytable[line] - 1)
        results.append(line)
    types = [x.type for x in run.stream(hand.hand_id).events]
    assert types[0] == g.HAND_OPENED and types[-1] == g.HAND_CLOSED


def test_a_refused_draw_or_bet_writes_nothing() -> None:
    run = Run(seed_base=11)
    hand = run.bet_hand()
    st = vs(hand)
    before, snapshot = len(hand.events), copy.deepcopy(st)
    stranger = next(c for c in ("As", "Kd", "2c", "7h") if c not in st.dealt)
    for seat, action, args, reason in (
        (1, "draw", {"hold": [stranger]}, "not_in_hand"),
        (1, "draw", {"hold": [st.dealt[0], st.dealt[0]]}, "malformed"),
        (1, "hold", {}, "unknown_action"),
        (1, "draw", {"hold": "all"}, "malformed"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before and not hand.writer.pending
        assert st == snapshot
    with pytest.raises(BetRejected) as bet_err:
        run.dealer.place_bets(hand.hand_id, [{"seat": 1, "spot": "main", "amount": 100}])
    assert bet_err.value.reason == "betting_closed"
    assert len(hand.events) == before


def test_the_demo_bot_plays_a_hand() -> None:
    run = Run(seed_base=21)
    rng = random.Random(1)
    for _ in range(4):
        hand = run.bet_hand()
        while not vs(hand).closed:
            public = [(pb.type, json.loads(pb.payload_json)) for pb in redact(hand.events, None)]
            move = next_move(VARIANT, public, rng)
            assert move is not None
            run.keep(run.dealer.act(hand.hand_id, move.seat, move.action, move.args))
        audit(run, hand)
