"""Niuniu through the dealer core (croupier.dealing.Dealer): whole hands of every variant
dealt from committed shuffles, with the dice the banker choice asks for, decided by the
players or by the timeout moves (Dealer.expire), closed with the carry the next hand
inherits, settled (croupier.settlement.settle_state) and audited
(croupier.audit.audit_hand) as the cluster does it; a refused action writes nothing;
the players' cards stay face down until the reveal."""

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
from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.events import make_event, seal, verify_chain
from croupier.games import base as g
from croupier.games.niuniu.engine import NiuniuEngine, NiuniuState
from croupier.games.registry import engine
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import KeyRegistry, Signer
from croupier_services.bots import bets_for, next_move
from croupier_services.views import redact

DEALER = Signer.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = Signer.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = Signer.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = Signer.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
REGISTRY = KeyRegistry(s.public_entry() for s in (DEALER, GATEWAY, RULES, SETTLEMENT))
T0 = 1_700_000_000_000
VARIANTS = ["niuniu.hundred", "niuniu.banker", "niuniu.tongbi", "niuniu.classic", "niuniu.yuele"]


def eng(variant: str) -> NiuniuEngine:
    e = engine(variant)
    assert isinstance(e, NiuniuEngine)
    return e


def state(hand: Hand) -> NiuniuState:
    st = hand.state
    assert isinstance(st, NiuniuState)
    return st


def table_seats(n: int = 4, stack: int = 10**7) -> list[dict[str, Any]]:
    return [{"seat": i, "player": f"p{i}", "stack": stack} for i in range(1, n + 1)]


@dataclass
class Run:
    variant: str
    seed_base: int = 1
    batches: list[Batch] = field(default_factory=list)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds: Iterator[bytes] = (
            hashlib.sha256(f"nn seed {n}".encode()).digest()
            for n in itertools.count(self.seed_base)
        )
        self.d = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.d.open_table("t1", self.variant))

    def keep(self, b: Batch) -> Batch:
        self.batches.append(b)
        return b

    def open(self, seats: list[dict[str, Any]] | None = None) -> Hand:
        hid, b = self.d.open_hand("t1", seats or table_seats())
        self.keep(b)
        return self.d.hand(hid)

    def play(self, hand: Hand, rng: random.Random, expire_rate: float = 0.3) -> None:
        """Close betting, then decide every turn: the timeout move or a random legal
        decision (own arrangement shown)."""
        e = eng(self.variant)
        if e.table.hundred is not None:
            self.keep(
                self.d.place_bets(
                    hand.hand_id,
                    [
                        {"seat": 1, "spot": "fu", "amount": 1000},
                        {"seat": 2, "spot": "xi", "amount": 2500},
                        {"seat": 2, "spot": "lu", "amount": 100},
                    ],
                )
            )
        self.keep(self.d.close_betting(hand.hand_id))
        while not hand.state.closed:
            turn = e.to_act(state(hand))
            assert turn is not None, hand.state.phase
            if rng.random() < expire_rate:
                self.keep(self.d.expire(hand.hand_id))
                continue
            st = state(hand)
            action = turn.actions[0]
            args: dict[str, Any]
            if action == "grab":
                args = {"grab": rng.random() < 0.5}
            elif action == "bank":
                args = {"accept": rng.random() < 0.6}
            elif action == "bet":
                args = {"multiple": rng.choice(st.play[turn.seat].options)}
            else:
                h = e.hand_of(st.play[turn.seat].cards)
                args = {"three": list(h.three), "category": h.category.value}
            self.keep(self.d.act(hand.hand_id, turn.seat, action, args))

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


def finish(e: NiuniuEngine, hand_id: str, dealt: StreamLog) -> tuple[StreamLog, HandSettlement]:
    state = e.replay(hand_id, [(x.type, x.payload) for x in dealt.events])
    with_outcome = append_signed(dealt, g.HAND_OUTCOME, RULES, e.outcome(state), T0 + 10**6)
    hs = settle_state(e, state)
    return append_signed(
        with_outcome, g.HAND_SETTLED, SETTLEMENT, hs.settled_payload(), T0 + 10**6 + 1
    ), hs


@pytest.mark.parametrize("variant", VARIANTS)
def test_hands_through_the_dealer_settle_and_audit(variant: str) -> None:
    e = eng(variant)
    run = Run(variant)
    rng = random.Random(variant)
    hands = []
    for _ in range(6):
        hand = run.open()
        run.play(hand, rng)
        hands.append(hand)
    run.keep(run.d.close_table("t1"))
    carries = []
    for hand in hands:
        log = run.stream(hand.hand_id)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types[0] == g.HAND_OPENED and types[-1] == g.HAND_CLOSED
        carries.append((log.events[0].payload["carry"], log.events[-1].payload["carry"]))
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
    # each hand inherits the carry of the one before it
    assert carries[0][0] == {}
    for (_, closed), (opened_next, _) in itertools.pairwise(carries):
        assert opened_next == closed


@pytest.mark.parametrize("variant", VARIANTS[1:])
def test_cards_stay_face_down_until_every_player_has_arranged(variant: str) -> None:
    run = Run(variant)
    hand = run.open()
    run.play(hand, random.Random(3), expire_rate=1.0)
    log = run.stream(hand.hand_id).events
    dealt = [x for x in log if x.type == g.CARD_DEALT]
    if not dealt:  # 004: nobody took the bank
        assert eng(variant).outcome(state(hand))["void"]
        return
    assert all(not c["up"] for c in dealt[0].payload["cards"])
    first_reveal = next(i for i, x in enumerate(log) if x.type == g.CARDS_REVEALED)
    arranged = [i for i, x in enumerate(log) if x.payload.get("action") == "arrange"]
    assert arranged and max(arranged) < first_reveal
    assert all(log[i].payload["args"].get("auto") == "timeout" for i in arranged)


def banker_game_at_bet(variant: str) -> tuple[Run, Hand]:
    """A hand waiting for a bet multiple, from the first seed giving one."""
    e = eng(variant)
    for base in range(1, 30):
        run = Run(variant, seed_base=base)
        hand = run.open()
        run.keep(run.d.close_betting(hand.hand_id))
        while hand.state.phase == "banker":
            run.keep(run.d.expire(hand.hand_id))
        if hand.state.phase == "bet":
            assert e.to_act(state(hand)) is not None
            return run, hand
    raise AssertionError("no seed gave a bet")


@pytest.mark.parametrize("variant", ["niuniu.banker", "niuniu.classic", "niuniu.tongbi"])
def test_a_refused_action_writes_nothing(variant: str) -> None:
    run, hand = banker_game_at_bet(variant)
    banker = state(hand).banker
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    seat = next(s for s in (1, 2, 3, 4) if s != banker)
    cases: list[tuple[int, str, dict[str, Any], str]] = [
        (seat, "bet", {"multiple": 99}, "bad_multiple"),
        (seat, "arrange", {}, "wrong_phase"),
        (seat, "fold", {}, "unknown_action"),
        (seat, "bet", {"multiple": 1, "extra": 1}, "malformed"),
    ]
    if banker is not None:
        cases.append((banker, "bet", {"multiple": 1}, "banker_cannot_bet"))
    for s, action, args, reason in cases:
        with pytest.raises(ActionRejected) as err:
            run.d.act(hand.hand_id, s, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state


def test_hundred_refused_bets_write_nothing_and_the_queue_carries() -> None:
    run = Run("niuniu.hundred")
    rich = table_seats(3, 10**7)
    hand = run.open(rich)
    run.keep(run.d.act(hand.hand_id, 2, "apply_banker", {}))
    n = len(hand.events)
    with pytest.raises(BetRejected) as err:
        run.d.place_bets(
            hand.hand_id,
            [
                {"seat": 1, "spot": "fu", "amount": 1000},
                {"seat": 1, "spot": "fu", "amount": 10**7},
            ],
        )
    assert err.value.reason == "over_limit"
    assert len(hand.events) == n  # all or nothing
    with pytest.raises(ActionRejected) as aerr:
        run.d.act(hand.hand_id, 2, "apply_banker", {})
    assert aerr.value.reason == "already_queued"
    run.keep(run.d.place_bets(hand.hand_id, [{"seat": 1, "spot": "shou", "amount": 100}]))
    run.keep(run.d.close_betting(hand.hand_id))
    assert hand.state.closed
    assert hand.events[-1].payload["carry"] == {"banker": None, "banked": 0, "queue": ["p2"]}
    nxt = run.open(rich)
    assert state(nxt).banker == 2  # p2 banks the next hand
    with pytest.raises(BetRejected) as err:
        run.d.place_bets(nxt.hand_id, [{"seat": 2, "spot": "fu", "amount": 100}])
    assert err.value.reason == "banker_cannot_bet"
    with pytest.raises(RuleViolation):
        run.d.expire(nxt.hand_id)  # nobody decides in 百人牛牛


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_demo_bots_play_whole_hands_from_what_a_player_sees(variant: str) -> None:
    """As the demo drives a table: the bots' stakes, then one decision per view (the
    public view after the close of betting, the acting seat's view after each act),
    until the hand closes; every hand audits PASS."""
    run = Run(variant)
    rng = random.Random(5)
    for _ in range(4):
        hand = run.open()
        bets = bets_for(variant, rng, [1, 2, 3, 4], 1, 10**7)
        if bets:
            run.keep(
                run.d.place_bets(
                    hand.hand_id, [{"seat": s, "spot": sp, "amount": a} for s, sp, a in bets]
                )
            )
        run.keep(run.d.close_betting(hand.hand_id))
        seat: int | None = None
        while not hand.state.closed:
            view = [(x.type, json.loads(x.payload_json)) for x in redact(hand.events, seat)]
            move = next_move(variant, view, rng)
            assert move is not None, hand.state.phase
            run.keep(run.d.act(hand.hand_id, move.seat, move.action, move.args))
            seat = move.seat
        full, hs = finish(eng(variant), hand.hand_id, run.stream(hand.hand_id))
        rep = audit_hand(
            hand.hand_id,
            full,
            run.stream(hand.shoe.shoe_id),
            REGISTRY,
            StoredSettlement(hs.record_bytes, hs.postings),
        )
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
