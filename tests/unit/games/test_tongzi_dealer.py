"""二八杠 and 推筒子 through the dealer core (croupier.dealing.Dealer): whole hands with
the dealer's dice (the grab tie die, the deal-order dice, the 1-9 wheel) and tiles from
committed shuffles, decided by seeded random players and by timeouts, closed, settled
(croupier.settlement.settle_state) and audited (croupier.audit.audit_hand) with verdict
PASS; a refused action writes nothing; the public never sees a face-down tile before
the showdown."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from croupier.audit import StoredSettlement, StreamLog, Verdict, audit_hand
from croupier.dealing import Batch, Dealer, Hand, restore_table
from croupier.errors import ActionRejected, RuleViolation
from croupier.events import GENESIS, Event, Seal, heads_of, make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.tongzi.erbagang import ErbagangEngine, ErbagangState
from croupier.games.tongzi.tuitongzi import TuitongziEngine, TuitongziState
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import KeyRegistry, Signer
from croupier_services.bots import bot_for
from croupier_services.dealer import redact_public
from croupier_services.views import redact

DEALER = Signer.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = Signer.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = Signer.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = Signer.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
REGISTRY = KeyRegistry(s.public_entry() for s in (DEALER, GATEWAY, RULES, SETTLEMENT))
T0 = 1_700_000_000_000


@dataclass
class Run:
    variant: str
    seats: Sequence[int]
    stack: int = 200_000
    seed_base: int = 1
    batches: list[Batch] = field(default_factory=list)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds: Iterator[bytes] = (
            hashlib.sha256(f"tongzi seed {n}".encode()).digest()
            for n in itertools.count(self.seed_base)
        )
        self.d = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.d.open_table("t1", self.variant))

    def keep(self, b: Batch) -> Batch:
        self.batches.append(b)
        return b

    def open(self) -> Hand:
        rows = [{"seat": s, "player": f"p{s}", "stack": self.stack} for s in self.seats]
        hid, b = self.d.open_hand("t1", rows)
        self.keep(b)
        if self.variant == "tuitongzi":
            self.keep(
                self.d.place_bets(
                    hid, [{"seat": s, "spot": "ante", "amount": 100} for s in self.seats]
                )
            )
        hand = self.d.hand(hid)
        self.keep(self.d.close_betting(hid))
        return hand

    def stream(self, stream: str) -> StreamLog:
        events = tuple(e for b in self.batches for e in b.events if e.stream == stream)
        seals = tuple(
            s for b in self.batches for s in b.seals if any(x.stream == stream for x in s.entries)
        )
        return StreamLog(events, seals)


def decide(run: Run, hand: Hand, rng: random.Random, timeouts: float = 0.2) -> None:
    """Random legal decisions (and timeouts) until the hand closes."""
    e = engine(run.variant)
    while not hand.state.closed:
        if rng.random() < timeouts:
            run.keep(run.d.expire(hand.hand_id))
            continue
        st = hand.state
        if isinstance(e, ErbagangEngine):
            assert isinstance(st, ErbagangState)
            w = e.waiting(st)
            assert w is not None and w.seats, st.phase
            seat = rng.choice(w.seats)
            if w.action == "grab":
                m = rng.choice([0, 0, 1, 5, e.grab_cap(st, seat)])
            else:
                m = rng.randint(e.bet_min, min(20, e.bet_cap(st, seat)))
            run.keep(run.d.act(hand.hand_id, seat, w.action, {"multiple": m}))
        else:
            assert isinstance(e, TuitongziEngine) and isinstance(st, TuitongziState)
            seats = e.waiting(st)
            assert seats, st.phase
            seat = rng.choice(seats)
            cap = e.raise_cap(st, seat)
            if cap and rng.random() < 0.6:
                amount = rng.randrange(e.raise_min, cap + 1, e.raise_step)
                run.keep(run.d.act(hand.hand_id, seat, "raise", {"amount": amount}))
            else:
                run.keep(run.d.act(hand.hand_id, seat, "fold", {}))


def append_signed(log: StreamLog, type_: str, signer: Signer, payload: Any, at: int) -> StreamLog:
    last = log.events[-1]
    ev = make_event(
        last.stream, last.seq + 1, type_, signer.producer, signer.key_id, last.hash, payload
    )
    return StreamLog((*log.events, ev), (*log.seals, seal(signer, heads_of([ev]), at)))


def finish(e: g.Engine[Any], hand_id: str, dealt: StreamLog) -> tuple[StreamLog, HandSettlement]:
    state = e.replay(hand_id, [(x.type, x.payload) for x in dealt.events])
    with_outcome = append_signed(dealt, g.HAND_OUTCOME, RULES, e.outcome(state), T0 + 10**6)
    hs = settle_state(e, state)
    return append_signed(
        with_outcome, g.HAND_SETTLED, SETTLEMENT, hs.settled_payload(), T0 + 10**6 + 1
    ), hs


CASES = [
    ("erbagang", (1, 2, 3, 4)),
    ("erbagang", (2, 4, 5)),
    ("erbagang.dice2", (1, 2, 3, 4)),
    ("erbagang.dice2", (3, 9)),
    ("tuitongzi", (1, 4, 7)),
    ("tuitongzi", (2, 3, 5, 6, 8, 9)),
]


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_whole_hands_through_the_dealer_settle_and_audit_pass(
    variant: str, seats: Sequence[int]
) -> None:
    e = engine(variant)
    run = Run(variant, seats)
    rng = random.Random(f"{variant}{seats}")
    hands = []
    for _ in range(8):
        hand = run.open()
        decide(run, hand, rng)
        hands.append(hand)
    run.keep(run.d.close_table("t1"))
    kinds: set[str] = set()
    for hand in hands:
        log = run.stream(hand.hand_id)
        types = [x.type for x in log.events]
        kinds |= set(types)
        assert types[-1] == g.HAND_CLOSED and hand.state.closed
        assert g.DICE_ROLLED in types and g.CARD_DEALT in types
        full, hs = finish(e, hand.hand_id, log)
        assert sum(n for _, n in hs.postings) == 0
        rep = audit_hand(
            hand.hand_id,
            full,
            run.stream(hand.shoe.shoe_id),
            REGISTRY,
            StoredSettlement(hs.record_bytes, hs.postings),
        )
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        for seat_no, seat in hand.state.seats.items():
            delta = dict(hs.postings).get(f"player:{seat.player}", 0)
            assert delta >= -seat.stack, seat_no
    if variant == "tuitongzi":
        assert g.CARDS_REVEALED in kinds


def test_a_grab_tie_is_broken_by_a_dealer_die_the_audit_rederives() -> None:
    run = Run("erbagang", (1, 2, 3, 4))
    hand = run.open()
    for s in (1, 2, 3, 4):
        run.keep(run.d.act(hand.hand_id, s, "grab", {"multiple": 7}))
    rolled = [x for x in hand.events if x.type == g.DICE_ROLLED]
    assert len(rolled) == 1 and rolled[0].payload["faces"] == [4]
    st = hand.state
    assert isinstance(st, ErbagangState)
    assert st.banker == (1, 2, 3, 4)[rolled[0].payload["dice"][0] - 1]
    decide(run, hand, random.Random(3), timeouts=0)
    run.keep(run.d.close_table("t1"))
    full, hs = finish(engine("erbagang"), hand.hand_id, run.stream(hand.hand_id))
    rep = audit_hand(
        hand.hand_id,
        full,
        run.stream(hand.shoe.shoe_id),
        REGISTRY,
        StoredSettlement(hs.record_bytes, hs.postings),
    )
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_the_audit_catches_a_forged_die() -> None:
    run = Run("erbagang", (1, 2, 3))
    hand = run.open()
    decide(run, hand, random.Random(5), timeouts=0)
    run.keep(run.d.close_table("t1"))
    log = run.stream(hand.hand_id)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.DICE_ROLLED and s[2]["faces"] == [6])
    die = specs[k][2]["dice"][0]
    specs[k] = (g.DICE_ROLLED, "dealer", {**specs[k][2], "dice": [die % 6 + 1]})
    # the order of the deal changes with the die, so the tiles move to other seats too
    e, st = engine("erbagang"), hand.state
    assert isinstance(e, ErbagangEngine) and isinstance(st, ErbagangState)
    req_order = e.deal_order(sorted(st.seats), st.banker or 0, die % 6 + 1)
    j = next(i for i, s in enumerate(specs) if s[0] == g.CARD_DEALT)
    tiles = [c["card"] for c in specs[j][2]["cards"]]
    specs[j] = (
        g.CARD_DEALT,
        "dealer",
        {
            "cards": [
                {"to": f"seat:{s}", "card": tiles[i * 2 + n], "pos": i * 2 + n, "up": True}
                for i, s in enumerate(req_order)
                for n in range(2)
            ]
        },
    )
    forged = rechain(hand.hand_id, specs)
    full, hs = finish(e, hand.hand_id, forged)
    rep = audit_hand(
        hand.hand_id,
        full,
        run.stream(hand.shoe.shoe_id),
        REGISTRY,
        StoredSettlement(hs.record_bytes, hs.postings),
    )
    assert rep.verdict is Verdict.FAIL and rep.seq == k, rep.to_json_dict()


def rechain(stream: str, specs: Sequence[tuple[str, str, Any]]) -> StreamLog:
    signers = {s.producer: s for s in (DEALER, GATEWAY, RULES, SETTLEMENT)}
    events: list[Event] = []
    seals: list[Seal] = []
    prev = GENESIS
    for i, (type_, producer, payload) in enumerate(specs):
        s = signers[producer]
        ev = make_event(stream, i, type_, s.producer, s.key_id, prev, payload)
        prev = ev.hash
        events.append(ev)
        seals.append(seal(s, heads_of([ev]), T0 + i))
    return StreamLog(tuple(events), tuple(seals))


@pytest.mark.parametrize("variant", ["erbagang", "tuitongzi"])
def test_a_refused_action_writes_nothing(variant: str) -> None:
    run = Run(variant, (1, 2, 3), stack=1_000)
    hand = run.open()
    if variant == "tuitongzi":
        bad = [(1, "raise", {"amount": 1_000}, "raise_over_cap"), (1, "call", {}, "unknown_action")]
    else:
        bad = [
            (1, "grab", {"multiple": 11}, "grab_over_cap"),
            (1, "bet", {"multiple": 1}, "not_betting"),
        ]
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for seat, action, args, reason in bad:
        with pytest.raises(ActionRejected) as err:
            run.d.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    with pytest.raises(RuleViolation):
        run.d.place_bets(hand.hand_id, [{"seat": 1, "spot": "ante", "amount": 100}])
    assert len(hand.events) == before_events


def test_the_public_never_sees_a_face_down_tile_before_the_showdown() -> None:
    run = Run("tuitongzi", (1, 2, 3))
    hand = run.open()
    decide(run, hand, random.Random(11), timeouts=0)
    events = list(run.stream(hand.hand_id).events)
    public = redact_public(events)
    k = next(i for i, x in enumerate(events) if x.type == g.CARD_DEALT)
    assert events[k] not in public  # it holds face-down tiles
    shown = [x for x in public if x.type == g.CARDS_REVEALED]
    assert len(shown) == 3
    st = engine("tuitongzi").replay(hand.hand_id, [(x.type, x.payload) for x in events])
    assert {x.payload["to"]: x.payload["cards"] for x in shown} == {
        f"seat:{s}": [st.hidden[s]] for s in (1, 2, 3)
    }


@pytest.mark.parametrize("variant", ["erbagang", "erbagang.dice2", "tuitongzi"])
def test_the_demo_bots_play_whole_hands_from_the_public_view(variant: str) -> None:
    e, bot = bot_for(variant)
    assert bot.family == e.family
    run = Run(variant, (1, 2, 3, 4))
    rng = random.Random(variant)
    for _ in range(5):
        rows = [{"seat": s, "player": f"p{s}", "stack": run.stack} for s in run.seats]
        hid, b = run.d.open_hand("t1", rows)
        run.keep(b)
        bets = bot.bets(e, rng, list(run.seats), 1, run.stack)
        if bets:
            run.keep(
                run.d.place_bets(hid, [{"seat": s, "spot": p, "amount": a} for s, p, a in bets])
            )
        hand = run.d.hand(hid)
        run.keep(run.d.close_betting(hid))
        while not hand.state.closed:
            view = [(x.type, json.loads(x.payload_json)) for x in redact(hand.events, None)]
            move = bot.move(e, view, rng)
            assert move is not None, hand.state.phase
            run.keep(run.d.act(hid, move.seat, move.action, move.args))
        full, hs = finish(e, hid, run.stream(hid))
        rep = audit_hand(
            hid,
            full,
            run.stream(hand.shoe.shoe_id),
            REGISTRY,
            StoredSettlement(hs.record_bytes, hs.postings),
        )
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()


@pytest.mark.parametrize("variant", ["erbagang", "tuitongzi"])
def test_a_restarted_dealer_resumes_a_hand_after_its_dice_and_tiles(variant: str) -> None:
    run = Run(variant, (1, 2, 3))
    hand = run.open()
    if variant == "erbagang":
        for s in (1, 2, 3):
            run.keep(run.d.act(hand.hand_id, s, "grab", {"multiple": 4}))  # a tie: a die
    rolls = [x.payload["roll"] for x in hand.events if x.type == g.DICE_ROLLED]
    assert rolls
    shoe_log = run.stream(hand.shoe.shoe_id)
    hand_log = run.stream(hand.hand_id)
    fresh = Dealer(DEALER, GATEWAY, clock_ms=lambda: T0 + 10**7, seed_source=lambda: bytes(32))
    t = restore_table(
        fresh,
        shoe_log.events,
        hand.shoe.server_seed,
        [(hand_log.events, hand_log.seals)],
        hand_count=1,
    )
    assert t.hand is not None and t.hand.state == hand.state
    assert t.hand.shoe.rolls == max(rolls) + 1
    run.d = fresh
    decide(run, t.hand, random.Random(7), timeouts=0.3)
    run.keep(run.d.close_table("t1"))
    e = engine(variant)
    full, hs = finish(e, hand.hand_id, run.stream(hand.hand_id))
    assert [x.payload["roll"] for x in full.events if x.type == g.DICE_ROLLED] == list(
        range(len([x for x in full.events if x.type == g.DICE_ROLLED]))
    )
    rep = audit_hand(
        hand.hand_id,
        full,
        run.stream(hand.shoe.shoe_id),
        REGISTRY,
        StoredSettlement(hs.record_bytes, hs.postings),
    )
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
