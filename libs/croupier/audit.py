"""Replay one hand from its log and reproduce every figure. Pure: the caller loads the
hand's and its shoe's events and seals (from the store or an exported file).

Checks, in order, stopping at the first failure (which names the stream, the sequence
number and the reason):

1. ``chain``      each stream's hash chain (seq without gaps, prev hashes, content hashes)
2. ``seals``      every event covered by a valid Ed25519 seal of its own producer
3. ``shoe``       the hand's shoe id and commitment match the shoe's opening event
4. ``rules``      every bet, card and action legal when replayed through the engine
5. ``outcome``    the rule service's ``hand.outcome`` equals the recomputed outcome
6. ``settlement`` the ``hand.settled`` event, the stored settlement record and the
                  ledger postings equal the recomputed settlement
7. ``fairness``   once the shoe is revealed: the seed matches its commitment and every
                  dealt card sits at its position of the derived order; until then the
                  verdict is ``pending_reveal``
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any

from croupier import canonical, fair
from croupier.errors import CroupierError, IntegrityError, RuleViolation
from croupier.events import Event, Seal, SealVerifier, verify_chain
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.settlement import settle_state
from croupier.signing import KeyRegistry


class Verdict(Enum):
    PASS = "pass"
    FAIL = "fail"
    PENDING_REVEAL = "pending_reveal"


@dataclass(frozen=True, slots=True)
class StreamLog:
    events: tuple[Event, ...]
    seals: tuple[Seal, ...]


@dataclass(frozen=True, slots=True)
class StoredSettlement:
    record_bytes: bytes
    postings: tuple[tuple[str, int], ...]


@dataclass
class AuditReport:
    hand_id: str
    verdict: Verdict = Verdict.PASS
    checks: list[str] = field(default_factory=list)
    stream: str | None = None
    seq: int | None = None
    reason: str = ""
    message: str = ""
    outcome: dict[str, Any] | None = None
    settlement: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.verdict is not Verdict.FAIL

    def fail(self, reason: str, message: str, stream: str | None, seq: int | None) -> AuditReport:
        self.verdict = Verdict.FAIL
        self.reason, self.message, self.stream, self.seq = reason, message, stream, seq
        return self

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "hand_id": self.hand_id,
            "verdict": self.verdict.value,
            "checks": self.checks,
            "first_bad": None
            if self.verdict is not Verdict.FAIL
            else {
                "stream": self.stream,
                "seq": self.seq,
                "reason": self.reason,
                "message": self.message,
            },
            "outcome": self.outcome,
            "settlement": self.settlement,
        }


def _find(events: Sequence[Event], type_: str) -> Event | None:
    for e in events:
        if e.type == type_:
            return e
    return None


def audit_hand(
    hand_id: str,
    hand: StreamLog,
    shoe: StreamLog,
    registry: KeyRegistry,
    stored: StoredSettlement | None,
    *,
    verifier: SealVerifier | None = None,
) -> AuditReport:
    rep = AuditReport(hand_id)
    sv = verifier or SealVerifier(registry)
    # 1-2: integrity of both streams
    parsed: dict[str, list[dict[str, Any]]] = {}
    for name, log in (("hand", hand), ("shoe", shoe)):
        try:
            parsed[name] = verify_chain(log.events)
            g.check_producers(log.events)
            sv.check_coverage(log.events, log.seals)
        except IntegrityError as e:
            return rep.fail(e.reason, f"{name} stream: {e.message}", e.stream, e.seq)
        if not log.events:
            return rep.fail("empty_stream", f"{name} stream has no events", None, None)
    rep.checks += ["chain", "producers", "seals"]
    hev, sev = hand.events, shoe.events
    if hev[0].stream != hand_id or hev[0].type != g.HAND_OPENED:
        return rep.fail("no_open", "hand does not start with hand.opened", hand_id, 0)
    hp, spl = parsed["hand"], parsed["shoe"]
    opened = hp[0]
    shoe_open = sev[0]
    sp = spl[0]
    if shoe_open.type != g.SHOE_OPENED or opened.get("shoe") != shoe_open.stream:
        return rep.fail("wrong_shoe", "hand's shoe does not match the shoe stream", hand_id, 0)
    if opened.get("commitment") != sp.get("commitment"):
        return rep.fail("wrong_commitment", "hand's commitment differs from shoe's", hand_id, 0)
    rep.checks.append("shoe")
    # 4: rules
    try:
        eng = engine_for(str(opened["variant"]))
        eng.check_version(opened)
        state = eng.open(hand_id, opened)
        dealt: list[tuple[int, str]] = []
        dealt_at: dict[int, int] = {}
        rolled: dict[int, tuple[list[int], list[int], int]] = {}  # roll -> (faces, dice, seq)
        outcome_ev: Event | None = None
        settled_ev: Event | None = None
        for ev, p in zip(hev[1:], hp[1:], strict=True):
            if ev.type == g.HAND_OUTCOME:
                outcome_ev = ev
                continue
            if ev.type == g.HAND_SETTLED:
                settled_ev = ev
                continue
            try:
                eng.step(state, ev.type, p)
            except RuleViolation as err:
                return rep.fail(err.reason, f"{ev.type}: {err.message}", ev.stream, ev.seq)
            if ev.type == g.CARD_DEALT:
                for c in p["cards"]:
                    dealt.append((int(c["pos"]), str(c["card"])))
                    dealt_at[int(c["pos"])] = ev.seq
            elif ev.type == g.DICE_ROLLED:
                n = int(p["roll"])
                if n in rolled:
                    return rep.fail("duplicate_roll", f"roll {n} appears twice", ev.stream, ev.seq)
                rolled[n] = (list(p["faces"]), list(p["dice"]), ev.seq)
        if not state.closed:
            return rep.fail("not_closed", "hand was never closed", hand_id, hev[-1].seq)
        rep.checks.append("rules")
        # 5: outcome
        outcome = eng.outcome(state)
        rep.outcome = outcome
        if outcome_ev is None:
            return rep.fail("no_outcome", "no hand.outcome event", hand_id, None)
        if outcome_ev.payload_bytes != canonical.dumps(outcome, check=False):
            return rep.fail(
                "outcome_mismatch",
                "stored outcome differs from the replay",
                hand_id,
                outcome_ev.seq,
            )
        rep.checks.append("outcome")
        # 6: settlement
        hs = settle_state(eng, state)
        rep.settlement = hs.record
        if settled_ev is None or stored is None:
            return rep.fail("not_settled", "hand has no settlement", hand_id, None)
        if settled_ev.payload_bytes != canonical.dumps(hs.settled_payload(), check=False):
            return rep.fail(
                "settlement_mismatch",
                "hand.settled differs from the recomputed settlement",
                hand_id,
                settled_ev.seq,
            )
        if stored.record_bytes != hs.record_bytes:
            return rep.fail(
                "record_mismatch",
                "stored settlement record differs from the replay",
                hand_id,
                settled_ev.seq,
            )
        if tuple(sorted(stored.postings)) != hs.postings:
            return rep.fail(
                "ledger_mismatch",
                "ledger postings differ from the settlement",
                hand_id,
                settled_ev.seq,
            )
        rep.checks.append("settlement")
    except CroupierError as err:
        return rep.fail(err.reason, err.message, hand_id, None)
    # 7: fairness
    try:
        fair.check_positions(dealt)
    except IntegrityError as e:
        return rep.fail(e.reason, e.message, hand_id, None)
    revealed = _find(sev, g.SHOE_REVEALED)
    if revealed is None:
        rep.verdict = Verdict.PENDING_REVEAL
        return rep
    c = fair.Commitment.from_shoe_opened(sp)
    seed = bytes.fromhex(revealed.payload["server_seed"])
    if c.algorithm != fair.ALGORITHM:
        return rep.fail(
            "unfair_deal",
            f"unknown dealing algorithm {c.algorithm!r}",
            shoe_open.stream,
            shoe_open.seq,
        )
    if fair.commitment(seed) != c.commitment:
        return rep.fail(
            "unfair_deal",
            "revealed server seed does not hash to the commitment",
            revealed.stream,
            revealed.seq,
        )
    order = deck_order(c, seed)
    for pos, card in dealt:
        if not 0 <= pos < len(order) or order[pos] != card:
            return rep.fail(
                "unfair_deal",
                f"position {pos}: the revealed seed deals "
                f"{order[pos] if 0 <= pos < len(order) else 'nothing'}, {card} was dealt",
                hand_id,
                dealt_at[pos],
            )
    for n, (faces, dice, seq) in sorted(rolled.items()):
        want = fair.roll(faces, seed, c.client_seed, c.nonce, n)
        if want != dice:
            return rep.fail(
                "unfair_deal",
                f"roll {n}: the revealed seed rolls {want}, {dice} was rolled",
                hand_id,
                seq,
            )
    rep.checks.append("fairness")
    return rep


@lru_cache(maxsize=64)
def deck_order(c: fair.Commitment, seed: bytes) -> tuple[str, ...]:
    """A shoe's order, cached: a range audit checks many hands of one shoe."""
    return tuple(fair.shuffle(c.deck, seed, c.client_seed, c.nonce))
