"""开心摇摇乐 through the dealer core (croupier.dealing.Dealer): rounds rolled from
committed per-hand seeds, closed, settled (croupier.settlement.settle_state) and audited
(croupier.audit.audit_hand) as the cluster does it, 重复投 carried from round to round,
撤销 through the dealer, refused bets and actions writing nothing, and the audit
catching dice the revealed seed does not roll."""

from __future__ import annotations

import copy
import hashlib
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from croupier import fair
from croupier.audit import StoredSettlement, StreamLog, Verdict, audit_hand
from croupier.dealing import Batch, Dealer
from croupier.errors import ActionRejected, BetRejected
from croupier.events import GENESIS, Event, Seal, heads_of, make_event, seal, verify_chain
from croupier.games import base as g
from croupier.games.dice.engine import DiceState
from croupier.games.registry import engine
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import KeyRegistry, Signer

DEALER = Signer.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
GATEWAY = Signer.from_seed("gateway", "gateway-k1", bytes([2]) * 32)
RULES = Signer.from_seed("rules", "rules-k1", bytes([3]) * 32)
SETTLEMENT = Signer.from_seed("settlement", "settlement-k1", bytes([4]) * 32)
SIGNERS = {s.producer: s for s in (DEALER, GATEWAY, RULES, SETTLEMENT)}
REGISTRY = KeyRegistry(s.public_entry() for s in SIGNERS.values())
SEATS = [{"seat": n, "player": f"p{n}", "stack": 10**6} for n in (1, 2, 3, 4)]
T0 = 1_700_000_000_000
VARIANT = "dice.yaoyao"


@dataclass
class Run:
    seed_base: int = 1
    batches: list[Batch] = field(default_factory=list)

    def __post_init__(self) -> None:
        clock = itertools.count(T0)
        seeds: Iterator[bytes] = (
            hashlib.sha256(f"dice seed {n}".encode()).digest()
            for n in itertools.count(self.seed_base)
        )
        self.d = Dealer(
            DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds)
        )
        self.keep(self.d.open_table("t1", VARIANT))

    def keep(self, b: Batch) -> Batch:
        self.batches.append(b)
        return b

    def open(self) -> str:
        hid, b = self.d.open_hand("t1", SEATS)
        self.keep(b)
        return hid

    def stream(self, stream: str) -> StreamLog:
        events = tuple(e for b in self.batches for e in b.events if e.stream == stream)
        seals = tuple(
            s for b in self.batches for s in b.seals if any(x.stream == stream for x in s.entries)
        )
        return StreamLog(events, seals)


def bets(*rows: tuple[int, str, int]) -> list[dict[str, Any]]:
    return [{"seat": s, "spot": sp, "amount": a} for s, sp, a in rows]


def append_signed(log: StreamLog, type_: str, signer: Signer, payload: Any, at: int) -> StreamLog:
    last = log.events[-1]
    ev = make_event(
        last.stream, last.seq + 1, type_, signer.producer, signer.key_id, last.hash, payload
    )
    return StreamLog((*log.events, ev), (*log.seals, seal(signer, [ev], at)))


def finish(hand_id: str, dealt: StreamLog) -> tuple[StreamLog, HandSettlement]:
    e = engine(VARIANT)
    state = e.replay(hand_id, [(x.type, x.payload) for x in dealt.events])
    with_outcome = append_signed(dealt, g.HAND_OUTCOME, RULES, e.outcome(state), T0 + 10**6)
    hs = settle_state(e, state)
    return append_signed(
        with_outcome, g.HAND_SETTLED, SETTLEMENT, hs.settled_payload(), T0 + 10**6 + 1
    ), hs


def rechain(stream: str, specs: Sequence[tuple[str, str, Any]]) -> StreamLog:
    events: list[Event] = []
    seals: list[Seal] = []
    prev = GENESIS
    for i, (type_, producer, payload) in enumerate(specs):
        s = SIGNERS[producer]
        ev = make_event(stream, i, type_, s.producer, s.key_id, prev, payload)
        prev = ev.hash
        events.append(ev)
        seals.append(seal(s, heads_of([ev]), T0 + i))
    return StreamLog(tuple(events), tuple(seals))


def audit(run: Run, hid: str, log: StreamLog | None = None) -> Any:
    full, hs = finish(hid, log or run.stream(hid))
    assert sum(n for _, n in hs.postings) == 0
    shoe = f"t1_s{hid.rsplit('h', 1)[1]}"
    return audit_hand(
        hid, full, run.stream(shoe), REGISTRY, StoredSettlement(hs.record_bytes, hs.postings)
    )


def test_rounds_through_the_dealer_roll_close_settle_and_audit() -> None:
    run = Run()
    hids = []
    for i in range(6):
        hid = run.open()
        run.keep(
            run.d.place_bets(
                hid,
                bets(
                    (1, "red", 1000 + 100 * i),
                    (2, "blue", 2000),
                    (3, "tie", 300),
                    (3, "red_pair", 500),
                    (4, "blue_triple", 100),
                    (4, "blue_straight", 200),
                ),
            )
        )
        run.keep(run.d.close_betting(hid))
        assert hid not in run.d.hands  # rolled and closed in one go
        hids.append(hid)
    for hid in hids:
        log = run.stream(hid)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types == [g.HAND_OPENED] + [g.BET_PLACED] * 6 + [
            g.BETTING_CLOSED,
            g.DICE_ROLLED,
            g.HAND_CLOSED,
        ]
        rolled = log.events[-2].payload
        assert rolled["faces"] == [6] * 6 and rolled["roll"] == 0
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        out = rep.outcome
        assert out is not None and out["red"] + out["blue"] == rolled["dice"]
    # six rounds, six different seeds: the dice differ
    assert len({tuple(run.stream(h).events[-2].payload["dice"]) for h in hids}) > 1


def test_repeat_and_cancel_through_the_dealer() -> None:
    run = Run()
    hid = run.open()
    run.keep(run.d.place_bets(hid, bets((1, "red", 1500), (1, "tie", 200), (2, "blue", 700))))
    run.keep(run.d.act(hid, 2, "cancel", {}))
    run.keep(run.d.place_bets(hid, bets((2, "red", 900))))
    run.keep(run.d.close_betting(hid))
    closed = run.stream(hid).events[-1]
    carry = {"last_bets": {"p1": [["red", 1500], ["tie", 200]], "p2": [["red", 900]]}}
    assert closed.type == g.HAND_CLOSED and closed.payload["carry"] == carry
    hid2 = run.open()
    assert run.stream(hid2).events[0].payload["carry"] == carry
    run.keep(run.d.act(hid2, 1, "repeat", {}))
    run.keep(run.d.act(hid2, 2, "repeat", {}))
    n = len(run.d.hands[hid2].events)
    with pytest.raises(ActionRejected) as err:
        run.d.act(hid2, 3, "repeat", {})
    assert err.value.reason == "nothing_to_repeat" and len(run.d.hands[hid2].events) == n
    st = run.d.hands[hid2].state
    assert isinstance(st, DiceState)
    assert [(s, sp.value, a) for s, sp, a in st.bets] == [
        (1, "red", 1500),
        (1, "tie", 200),
        (2, "red", 900),
    ]
    run.keep(run.d.close_betting(hid2))
    for h in (hid, hid2):
        rep = audit(run, h)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_refused_bets_and_actions_write_nothing() -> None:
    run = Run()
    hid = run.open()
    hand = run.d.hands[hid]
    run.keep(run.d.place_bets(hid, bets((1, "red", 1000))))
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for rows, reason in (
        (bets((2, "blue", 1000), (2, "purple", 100)), "unknown_spot"),
        (bets((2, "blue", 1000), (3, "red", 5_000_100)), "over_limit"),
        (bets((4, "red", 900_000), (4, "blue", 100_100)), "insufficient_stack"),
    ):
        with pytest.raises(BetRejected) as err:
            run.d.place_bets(hid, rows)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    for seat, action, reason in ((2, "cancel", "no_bet"), (1, "double", "unknown_action")):
        with pytest.raises(ActionRejected) as aerr:
            run.d.act(hid, seat, action, {})
        assert aerr.value.reason == reason
        assert len(hand.events) == before_events and hand.state == before_state
    with pytest.raises(ActionRejected) as aerr:
        run.d.expire(hid)
    assert aerr.value.reason == "no_turn"


def test_the_audit_catches_dice_the_seed_did_not_roll() -> None:
    run = Run()
    hid = run.open()
    run.keep(run.d.place_bets(hid, bets((1, "red", 1000), (2, "blue", 1000))))
    run.keep(run.d.close_betting(hid))
    log = run.stream(hid)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.DICE_ROLLED)
    rolled = dict(specs[k][2])
    dice = list(rolled["dice"])
    dice[0] = dice[0] % 6 + 1  # still a legal die, not the seed's
    specs[k] = (g.DICE_ROLLED, "dealer", {**rolled, "dice": dice})
    forged = rechain(hid, specs)
    rep = audit(run, hid, forged)
    assert (rep.verdict, rep.reason, rep.seq) == (Verdict.FAIL, "unfair_deal", k)
    # and the honest log's dice are the revealed seed's roll 0
    seed = bytes.fromhex(run.stream("t1_s1").events[-1].payload["server_seed"])
    c = fair.Commitment.from_shoe_opened(run.stream("t1_s1").events[0].payload)
    assert fair.roll([6] * 6, seed, c.client_seed, c.nonce, 0) == rolled["dice"]


def test_demo_bots_bet_and_the_rounds_audit() -> None:
    import random

    from croupier_services.bots import bets_for, next_move

    run = Run(seed_base=50)
    rng = random.Random(3)
    spots = set()
    for _ in range(8):
        hid = run.open()
        rows = bets_for(VARIANT, rng, [1, 2, 3, 4], 1, 10**6)
        assert {s for s, _, _ in rows} == {1, 2, 3, 4}
        spots |= {sp for _, sp, _ in rows}
        run.keep(run.d.place_bets(hid, bets(*rows)))
        run.keep(run.d.close_betting(hid))
        assert (
            next_move(VARIANT, [(x.type, x.payload) for x in run.stream(hid).events], rng) is None
        )
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert {"red", "blue"} <= spots
