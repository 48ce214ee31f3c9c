"""十三水 through the dealer core (croupier.dealing.Dealer): whole hands of 2, 3 and 4
players dealt from committed shuffles, arranged by hand (rows as positions or cards),
by 自动比牌 and by timeout, closed, settled (croupier.settlement.settle_state) and
audited (croupier.audit.audit_hand) with the verdict PASS; a fouled arrangement and
other bad input are refused and write nothing; arrangements sent as positions keep the
cards private until the showdown; the demo bot plays whole hands."""

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
from croupier.games.registry import engine
from croupier.games.shisanshui.engine import ShisanshuiEngine, ShisanshuiState
from croupier.games.shisanshui.hands import best_normal
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import KeyRegistry, Signer
from croupier_services.bots import bets_for, next_move
from croupier_services.views import HIDDEN, redact

DEALER = Signer.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = Signer.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = Signer.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = Signer.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
REGISTRY = KeyRegistry(s.public_entry() for s in (DEALER, GATEWAY, RULES, SETTLEMENT))
T0 = 1_700_000_000_000
VARIANT = "shisanshui"


def eng() -> ShisanshuiEngine:
    e = engine(VARIANT)
    assert isinstance(e, ShisanshuiEngine)
    return e


def ss(hand: Hand) -> ShisanshuiState:
    assert isinstance(hand.state, ShisanshuiState)
    return hand.state


def seats(stacks: list[int]) -> list[dict[str, Any]]:
    return [{"seat": i + 1, "player": f"p{i + 1}", "stack": k} for i, k in enumerate(stacks)]


@dataclass
class Run:
    seed_base: int = 1
    batches: list[Batch] = field(default_factory=list)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds: Iterator[bytes] = (
            hashlib.sha256(f"sss seed {n}".encode()).digest()
            for n in itertools.count(self.seed_base)
        )
        self.d = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.d.open_table("t1", VARIANT))

    def keep(self, b: Batch) -> Batch:
        self.batches.append(b)
        return b

    def open(self, table: list[dict[str, Any]]) -> Hand:
        hid, b = self.d.open_hand("t1", table)
        self.keep(b)
        hand = self.d.hand(hid)
        self.keep(self.d.close_betting(hid))  # no bets: betting closes at once
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


def positions(hand: list[str], rows: tuple[tuple[str, ...], ...]) -> dict[str, list[int]]:
    return {
        k: [hand.index(c) for c in r]
        for k, r in zip(("front", "middle", "back"), rows, strict=True)
    }


def test_hands_through_the_dealer_settle_and_audit() -> None:
    run = Run()
    rng = random.Random(11)
    kinds: set[str] = set()
    for i in range(9):
        n = 2 + i % 3
        stacks = [rng.choice([10**7, 10**7, 3000, 800]) for _ in range(n)]
        hand = run.open(seats(stacks))
        st = ss(hand)
        assert st.phase == "arrange" and all(len(st.hands[s]) == 13 for s in st.seats)
        while not st.closed:
            seat = eng().to_act(st)[0]
            way = rng.choice(["positions", "cards", "auto", "timeout"])
            kinds.add(way)
            if way == "timeout":
                run.keep(run.d.expire(hand.hand_id))
            elif way == "auto":
                run.keep(run.d.act(hand.hand_id, seat, "auto_arrange", {}))
            else:
                cards = st.hands[seat]
                a = best_normal(cards)
                rows = (a.front, a.middle, a.back)
                args: dict[str, Any] = (
                    positions(cards, rows)
                    if way == "positions"
                    else {"front": list(a.front), "middle": list(a.middle), "back": list(a.back)}
                )
                run.keep(run.d.act(hand.hand_id, seat, "arrange", args))
        hs = audit(run, hand)
        for seat in st.seats.values():  # 有限责任制: nobody loses more than they carried
            assert hs.record["deltas"][seat.player] >= -seat.stack
        types = [x.type for x in run.stream(hand.hand_id).events]
        assert types.count(g.CARD_DEALT) == 1 and types.count(g.CARDS_REVEALED) == n
        assert types.count(g.ACTION_TAKEN) == n and g.BET_PLACED not in types
    assert kinds == {"positions", "cards", "auto", "timeout"}


def test_a_fouled_arrangement_and_other_bad_input_write_nothing() -> None:
    run = Run(seed_base=5)
    hand = run.open(seats([10**6, 10**6]))
    st = ss(hand)
    cards = st.hands[1]
    a = best_normal(cards)
    fouled = positions(cards, (a.back[:3], a.middle, (*a.back[3:], *a.front)))
    good = positions(cards, (a.front, a.middle, a.back))
    before, snapshot = len(hand.events), copy.deepcopy(st)
    for seat, action, args, reason in (
        (
            1,
            "arrange",
            {**good, "front": good["back"][:3], "back": [*good["back"][3:], *good["front"]]},
            "fouled",
        ),
        (1, "arrange", fouled, "fouled"),
        (1, "arrange", {**good, "front": [0, 1, 99]}, "not_in_hand"),
        (
            1,
            "arrange",
            {**good, "front": ["As", "Ks", "Qs"] if "As" not in cards else ["2c", "2d", "2h"]},
            "not_in_hand",
        ),
        (1, "arrange", {**good, "front": good["front"][:2]}, "bad_rows"),
        (1, "arrange", {**good, "front": [good["middle"][0], *good["front"][1:]]}, "not_in_hand"),
        (1, "arrange", {**good, "special": "yes"}, "malformed"),
        (1, "fold", {}, "unknown_action"),
        (1, "auto_arrange", {"front": [0, 1, 2]}, "malformed"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.d.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason, (reason, err.value.message)
        assert len(hand.events) == before and not hand.writer.pending and st == snapshot
    with pytest.raises(BetRejected) as bet:
        run.d.place_bets(hand.hand_id, [{"seat": 1, "spot": "water", "amount": 100}])
    assert bet.value.reason in ("no_bets", "betting_closed")
    run.keep(run.d.act(hand.hand_id, 1, "arrange", good))
    with pytest.raises(ActionRejected) as again:
        run.d.act(hand.hand_id, 1, "auto_arrange", {})
    assert again.value.reason == "already_arranged"
    run.keep(run.d.expire(hand.hand_id))
    audit(run, hand)


def test_no_bets_and_two_to_four_players() -> None:
    run = Run(seed_base=9)
    with pytest.raises(RuleViolation) as one:
        run.d.open_hand("t1", seats([1000]))
    assert one.value.reason == "no_seats"
    with pytest.raises(RuleViolation) as five:
        run.d.open_hand("t1", seats([1000] * 5))
    assert five.value.reason == "too_many_seats"
    hid, _ = run.d.open_hand("t1", seats([1000, 1000]))
    with pytest.raises(BetRejected) as bet:
        run.d.place_bets(hid, [{"seat": 1, "spot": "water", "amount": 100}])
    assert bet.value.reason == "no_bets"


def test_positions_keep_the_cards_private_until_the_showdown() -> None:
    run = Run(seed_base=17)
    hand = run.open(seats([10**6, 10**6, 10**6]))
    st = ss(hand)
    cards = {s: list(st.hands[s]) for s in st.seats}
    a = best_normal(cards[1])
    run.keep(
        run.d.act(hand.hand_id, 1, "arrange", positions(cards[1], (a.front, a.middle, a.back)))
    )
    events = list(run.stream(hand.hand_id).events)
    for viewer in (None, 2, 3):
        shown = "".join(pb.payload_json for pb in redact(events, viewer))
        assert HIDDEN in shown and not any(f'"{c}"' in shown for c in cards[1])
    mine = "".join(pb.payload_json for pb in redact(events, 1))
    assert all(f'"{c}"' in mine for c in cards[1])
    run.keep(run.d.act(hand.hand_id, 2, "auto_arrange", {}))
    run.keep(run.d.act(hand.hand_id, 3, "auto_arrange", {}))
    assert st.closed
    public = "".join(pb.payload_json for pb in redact(list(run.stream(hand.hand_id).events), None))
    assert all(f'"{c}"' in public for s in cards for c in cards[s])
    audit(run, hand)


def test_the_demo_bot_plays_whole_hands() -> None:
    run = Run(seed_base=23)
    rng = random.Random(3)
    for n in (2, 3, 4):
        assert bets_for(VARIANT, rng, list(range(1, n + 1)), 1, 10**7) == []
        hand = run.open(seats([10**7] * n))
        while not ss(hand).closed:
            public = [(pb.type, json.loads(pb.payload_json)) for pb in redact(hand.events, None)]
            move = next_move(VARIANT, public, rng)
            assert move is not None and move.action == "auto_arrange"
            run.keep(run.d.act(hand.hand_id, move.seat, move.action, move.args))
        audit(run, hand)
