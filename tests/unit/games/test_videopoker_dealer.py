"""幸运五张 through the dealer core (croupier.dealing.Dealer): whole hands dealt from
committed shuffles, drawn on the automatic holds, on changed holds and by timeout,
closed, settled (croupier.settlement.settle_state) and audited (croupier.audit.audit_hand)
with the verdict PASS; a refused draw writes nothing; the demo bot plays a hand."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from croupier.audit import StoredSettlement, StreamLog, Verdict, audit_hand
from croupier.dealing import Batch, Dealer, Hand
from croupier.errors import ActionRejected, BetRejected
from croupier.events import make_event, seal, verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.videopoker.engine import VideoPokerEngine, VideoPokerState
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import KeyRegistry, Signer
from croupier_services.bots import next_move
from croupier_services.views import redact

DEALER = Signer.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = Signer.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = Signer.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = Signer.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
REGISTRY = KeyRegistry(s.public_entry() for s in (DEALER, GATEWAY, RULES, SETTLEMENT))
T0 = 1_700_000_000_000
VARIANT = "videopoker.lucky5"
SEAT = [{"seat": 1, "player": "p1", "stack": 10**7}]


def eng() -> VideoPokerEngine:
    e = engine(VARIANT)
    assert isinstance(e, VideoPokerEngine)
    return e


def vs(hand: Hand) -> VideoPokerState:
    assert isinstance(hand.state, VideoPokerState)
    return hand.state


@dataclass
class Run:
    seed_base: int = 1
    batches: list[Batch] = field(default_factory=list)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds: Iterator[bytes] = (
            hashlib.sha256(f"vp seed {n}".encode()).digest()
            for n in itertools.count(self.seed_base)
        )
        self.d = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.d.open_table("t1", VARIANT))

    def keep(self, b: Batch) -> Batch:
        self.batches.append(b)
        return b

    def open(self, amount: int = 1000) -> Hand:
        hid, b = self.d.open_hand("t1", SEAT)
        self.keep(b)
        self.keep(self.d.place_bets(hid, [{"seat": 1, "spot": "main", "amount": amount}]))
        hand = self.d.hand(hid)
        self.keep(self.d.close_betting(hid))
        return hand

    def stream(self, stream: str) -> StreamLog:
        events = tuple(e for b in self.batches for e in b.events if e.stream == stream)
        seals = tuple(
            s for b in self.batches for s in b.seals if any(x.stream == stream for x in s.entries)
        )
        return StreamLog(events, seals)


def append_signed(log: StreamLog, type_: str, signer: Signer, payload: Any, at: int) -> StreamLog:
    last = log.events[-1]
    ev = make_event(
        last.stream, last.seq + 1, type_, signer.producer, signer.key_id, last.hash, payload
    )
    return StreamLog((*log.events, ev), (*log.seals, seal(signer, [ev], at)))


def audit(run: Run, hand: Hand) -> HandSettlement:
    e = eng()
    log = run.stream(hand.hand_id)
    verify_chain(log.events)
    assert log.events[-1].type == g.HAND_CLOSED
    state = e.replay(hand.hand_id, [(x.type, x.payload) for x in log.events])
    full = append_signed(log, g.HAND_OUTCOME, RULES, e.outcome(state), T0 + 10**6)
    hs = settle_state(e, state)
    full = append_signed(full, g.HAND_SETTLED, SETTLEMENT, hs.settled_payload(), T0 + 10**6 + 1)
    rep = audit_hand(
        hand.hand_id,
        full,
        run.stream(hand.shoe.shoe_id),
        REGISTRY,
        StoredSettlement(hs.record_bytes, hs.postings),
    )
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert sum(n for _, n in hs.postings) == 0
    return hs


def test_hands_through_the_dealer_settle_and_audit() -> None:
    e = eng()
    run = Run()
    rng = random.Random(3)
    results = []
    for i in range(8):
        hand = run.open(100 * rng.randint(1, 50))
        st = vs(hand)
        assert st.phase == "hold" and len(st.dealt) == 5
        if i % 3 == 0:
            run.keep(run.d.expire(hand.hand_id))  # timeout: the automatic holds
            assert st.hold == list(e.auto_hold(st))
        elif i % 3 == 1:
            run.keep(run.d.act(hand.hand_id, 1, "draw", {}))
            assert st.hold == list(e.auto_hold(st))
        else:
            hold = rng.sample(st.dealt, rng.randint(0, 5))
            run.keep(run.d.act(hand.hand_id, 1, "draw", {"hold": hold}))
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
    hand = run.open()
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
            run.d.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before and not hand.writer.pending
        assert st == snapshot
    with pytest.raises(BetRejected) as bet_err:
        run.d.place_bets(hand.hand_id, [{"seat": 1, "spot": "main", "amount": 100}])
    assert bet_err.value.reason == "betting_closed"
    assert len(hand.events) == before


def test_the_demo_bot_plays_a_hand() -> None:
    run = Run(seed_base=21)
    rng = random.Random(1)
    for _ in range(4):
        hand = run.open()
        while not vs(hand).closed:
            public = [(pb.type, json.loads(pb.payload_json)) for pb in redact(hand.events, None)]
            move = next_move(VARIANT, public, rng)
            assert move is not None
            run.keep(run.d.act(hand.hand_id, move.seat, move.action, move.args))
        audit(run, hand)
