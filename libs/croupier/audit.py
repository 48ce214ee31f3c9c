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
7. ``shoe_order`` cards leave the shoe strictly in order: each dealt position is the
                  one after the last (the first hand of a shoe starts at 0), and
                  ``hand.closed`` says where the next hand starts; rolls likewise
8. ``fairness``   once the shoe is revealed: the seed matches its commitment and every
                  dealt card sits at its position of the derived order (under the
                  player's own client seed when one was given, ``shoe.client_seed``);
                  until then the verdict is ``pending_reveal``

A hand the rules still wait on (not closed, not over) is ``pending_open`` after the
checks its events allow; :attr:`AuditReport.ok` means PASS and nothing less.

The whole-log checks that no single hand can show (hand numbers without gaps, the shoe
dealt in order across hands, the ledger tied to settled hands, voids authorised,
zero-sum, balances equal to what the hands settled, the transparency log) are
:func:`reconcile` and :func:`check_log`, over facts the caller gathers from the store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any

from croupier import canonical, fair
from croupier.errors import (
    CroupierError,
    FairnessError,
    IntegrityError,
    InvalidInput,
    RuleViolation,
)
from croupier.events import Event, Seal, SealVerifier, verify_chain
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.money.record import RECORD_VERSION
from croupier.settlement import HandSettlement, recorded_version, settlement_of
from croupier.signing import KeyRegistry
from croupier.tlog import merkle, seal_leaf_hash
from croupier.tlog.note import Checkpoint


class Verdict(Enum):
    PASS = "pass"
    FAIL = "fail"
    PENDING_REVEAL = "pending_reveal"
    PENDING_OPEN = "pending_open"


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
    outcome_json: bytes | None = None  # the recomputed outcome, canonical JSON
    settlement_json: bytes | None = None  # the recomputed record, canonical JSON

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The outcome the audit recomputed, as a value. Kept as its bytes, as the
        settlement record is (below): one object for the collector and for a forked
        worker's report to pickle, where its value was a dozen (docs/performance.md,
        "Audits in log order")."""
        if self.outcome_json is None:
            return None
        value: dict[str, Any] = canonical.loads(self.outcome_json)
        return value

    @property
    def settlement(self) -> dict[str, Any] | None:
        """The settlement record the audit recomputed, as a value. Kept as its bytes: a
        batch's reports live until they are read, and ~40 containers a record were most
        of what the collector walked after each batch (docs/performance.md, "The
        collector paused for a batch")."""
        if self.settlement_json is None:
            return None
        value: dict[str, Any] = canonical.loads(self.settlement_json)
        return value

    @property
    def ok(self) -> bool:
        """PASS, and nothing less (a pending hand is not ok, nor failed)."""
        return self.verdict is Verdict.PASS

    @property
    def failed(self) -> bool:
        return self.verdict is Verdict.FAIL

    @property
    def pending(self) -> bool:
        return self.verdict in (Verdict.PENDING_REVEAL, Verdict.PENDING_OPEN)

    def fail(self, reason: str, message: str, stream: str | None, seq: int | None) -> AuditReport:
        self.verdict = Verdict.FAIL
        self.reason, self.message, self.stream, self.seq = reason, message, stream, seq
        return self

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "hand_id": self.hand_id,
            "ok": self.ok,
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


class CheckedStreams:
    """Streams that passed the integrity checks (1-2) under one :class:`SealVerifier`,
    known by identity, with their parsed payloads: a batch of hands of one shoe checks
    the shoe's stream once, not once per hand, and a vouched shoe's reveal (its
    commitment, seed and order: :class:`ShoeReveal`) is worked out once for the batch.
    It holds every :class:`StreamLog` it vouches for, so an id is never another
    object's; use it with the one verifier (and registry) it was filled under, and only
    for logs that are not changed after."""

    __slots__ = ("_ok", "_reveals")

    def __init__(self) -> None:
        self._ok: dict[int, tuple[StreamLog, list[dict[str, Any]]]] = {}
        self._reveals: dict[int, ShoeReveal] = {}

    def get(self, log: StreamLog) -> list[dict[str, Any]] | None:
        hit = self._ok.get(id(log))
        return hit[1] if hit is not None and hit[0] is log else None

    def add(self, log: StreamLog, parsed: list[dict[str, Any]]) -> None:
        self._ok[id(log)] = (log, parsed)
        self._reveals.pop(id(log), None)

    def reveal(self, log: StreamLog, parsed: Sequence[dict[str, Any]]) -> ShoeReveal:
        """:func:`shoe_reveal` of ``log``, kept when ``log`` is one vouched for here (its
        ``parsed`` payloads then the ones kept with it); any other log's worked out anew."""
        kept = self.get(log)
        if kept is None:
            return shoe_reveal(log.events, parsed)
        r = self._reveals.get(id(log))
        if r is None:
            r = self._reveals[id(log)] = shoe_reveal(log.events, kept)
        return r


@dataclass(frozen=True, slots=True)
class ShoeReveal:
    """What the fairness check (8) takes from a shoe's stream alone, the same for each of
    its hands: nothing while the shoe is unrevealed (``revealed`` false); the shoe's
    failure, when its reveal itself is wrong (``fail``: reason, message, stream, seq);
    else the order the revealed seed deals (``order``) and the commitment and seed it
    was derived under, for the hands' rolls."""

    revealed: bool
    fail: tuple[str, str, str | None, int | None] | None = None
    order: tuple[str, ...] = ()
    commitment: fair.Commitment | None = None
    seed: bytes = b""


_UNREVEALED = ShoeReveal(False)


def shoe_reveal(shoe_events: Sequence[Event], payloads: Sequence[dict[str, Any]]) -> ShoeReveal:
    """The shoe's reveal checked against its commitment (see :class:`ShoeReveal`)."""
    at = next((i for i, e in enumerate(shoe_events) if e.type == g.SHOE_REVEALED), None)
    if at is None:
        return _UNREVEALED
    revealed = shoe_events[at]
    shoe_open = shoe_events[0]
    try:
        c = effective_commitment(shoe_events, payloads)
    except IntegrityError as e:
        return ShoeReveal(True, (e.reason, e.message, e.stream, e.seq))
    except InvalidInput as e:
        return ShoeReveal(True, (e.reason, e.message, shoe_open.stream, shoe_open.seq))
    try:
        seed = bytes.fromhex(str(payloads[at]["server_seed"]))
    except (KeyError, TypeError, ValueError):
        return ShoeReveal(
            True,
            (
                "unfair_deal",
                "the revealed server seed is missing or not hex",
                revealed.stream,
                revealed.seq,
            ),
        )
    if c.algorithm != fair.ALGORITHM:
        why = f"unknown dealing algorithm {c.algorithm!r}"
        return ShoeReveal(True, ("unfair_deal", why, shoe_open.stream, shoe_open.seq))
    if fair.commitment(seed) != c.commitment:
        why = "revealed server seed does not hash to the commitment"
        return ShoeReveal(True, ("unfair_deal", why, revealed.stream, revealed.seq))
    try:
        order = deck_order(c, seed)
    except CroupierError as e:  # a deck the shoe names and no dealer deals
        return ShoeReveal(True, (e.reason, e.message, shoe_open.stream, shoe_open.seq))
    return ShoeReveal(True, None, order, c, seed)


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
    checked: CheckedStreams | None = None,
) -> AuditReport:
    """Audit one hand. ``checked`` (with ``verifier``): the shoe streams already found
    intact under that verifier, passed again for each hand of a batch."""
    rep = AuditReport(hand_id)
    sv = verifier or SealVerifier(registry)
    # 1-2: integrity of both streams
    parsed: dict[str, list[dict[str, Any]]] = {}
    for name, log in (("hand", hand), ("shoe", shoe)):
        known = None if checked is None or verifier is None else checked.get(log)
        if known is not None:
            parsed[name] = known
            continue
        try:
            parsed[name] = verify_chain(log.events)
            g.check_producers(log.events)
            sv.check_coverage(log.events, log.seals)
        except IntegrityError as e:
            return rep.fail(e.reason, f"{name} stream: {e.message}", e.stream, e.seq)
        if not log.events:
            return rep.fail("empty_stream", f"{name} stream has no events", None, None)
        if checked is not None and verifier is not None and name == "shoe":
            checked.add(log, parsed[name])
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
        owned: list[tuple[Event, dict[str, Any]]] = []
        for ev, p in zip(hev[1:], hp[1:], strict=True):
            if ev.type == g.HAND_OUTCOME:
                outcome_ev = ev
            elif ev.type == g.HAND_SETTLED:
                settled_ev = ev
            elif ev.type != g.HAND_VOIDED:  # a void is checked against the ledger (reconcile)
                owned.append((ev, p))
        # every event stepped at once where the engine proves them (a native path), else
        # each stepped below, the first refusal failing the audit
        stepped = eng.fast_steps(state, [(ev.type, p) for ev, p in owned])
        for ev, p in owned:
            if not stepped:
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
        rep.checks.append("rules")
        bad = _shoe_order(opened, hev, hp)
        if bad is not None:
            return rep.fail("shoe_order", bad[1], hand_id, bad[0])
        rep.checks.append("shoe_order")
        if not state.closed:
            if eng.is_over(state):
                return rep.fail("not_closed", "hand was never closed", hand_id, hev[-1].seq)
            rep.verdict = Verdict.PENDING_OPEN
            return rep
        # 5: outcome
        rep.outcome_json = outcome = canonical.dumps(eng.outcome(state), check=False)
        if outcome_ev is None:
            return rep.fail("no_outcome", "no hand.outcome event", hand_id, None)
        if outcome_ev.payload_bytes != outcome:
            return rep.fail(
                "outcome_mismatch",
                "stored outcome differs from the replay",
                hand_id,
                outcome_ev.seq,
            )
        rep.checks.append("outcome")
        # 6: settlement
        hs = _settle_as_recorded(eng, state, stored)
        rep.settlement_json = hs.record_bytes
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
                "ledger postings differ from the settlement: "
                + _posting_diff(stored.postings, hs.postings),
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
    sr = shoe_reveal(sev, spl) if checked is None or verifier is None else checked.reveal(shoe, spl)
    if not sr.revealed:
        rep.verdict = Verdict.PENDING_REVEAL
        return rep
    if sr.fail is not None:
        return rep.fail(*sr.fail)
    order, c, seed = sr.order, sr.commitment, sr.seed
    assert c is not None
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


@lru_cache(maxsize=1024)
def deck_order(c: fair.Commitment, seed: bytes) -> tuple[str, ...]:
    """A shoe's order, cached: a range audit checks many hands of one shoe. In log order
    a batch holds hands of every table then playing, each table's current shoe and some
    its last: the cache holds the shoes of ~1,000 tables at once (~3.5 KB an eight-deck
    order; 64 re-shuffled shoes at 64 tables, ~4 % of an audit: docs/performance.md,
    "Audits in log order")."""
    return tuple(fair.shuffle(c.deck, seed, c.client_seed, c.nonce))


# --------------------------------------------------------------------------- shoe order


def _shoe_order(
    opened: dict[str, Any], events: Sequence[Event], payloads: Sequence[dict[str, Any]]
) -> tuple[int, str] | None:
    """The first event that takes a card (or a roll) out of shoe order, with why. The
    first hand of a shoe starts at position 0 and roll 0; a later hand starts where the
    one before it closed (checked across hands by :func:`reconcile`)."""
    first = int(opened.get("shoe_hand_no", 0)) == 1
    pos: int | None = 0 if first else None
    roll: int | None = 0 if first else None
    for ev, p in zip(events, payloads, strict=True):
        if ev.type == g.CARD_DEALT:
            for c in p.get("cards", ()):
                at = int(c["pos"])
                if pos is not None and at != pos:
                    return ev.seq, (
                        f"position {at} dealt where position {pos} was next: cards leave the "
                        "shoe strictly in order"
                    )
                pos = at + 1
        elif ev.type == g.DICE_ROLLED:
            n = int(p["roll"])
            if roll is not None and n != roll:
                return ev.seq, f"roll {n} made where roll {roll} was next"
            roll = n + 1
        elif ev.type == g.HAND_CLOSED and pos is not None:
            used = p.get("positions_used")
            if used != pos:
                return ev.seq, (
                    f"hand.closed says the shoe's next position is {used}, "
                    f"the cards dealt say {pos}"
                )
    return None


def effective_commitment(
    shoe_events: Sequence[Event], payloads: Sequence[dict[str, Any]]
) -> fair.Commitment:
    """The shoe's commitment with the client seed the order was drawn under: the one
    ``shoe.opened`` names, or the player's own (``shoe.client_seed``, at most one)."""
    c = fair.Commitment.from_shoe_opened(payloads[0])
    given = [
        (e, p) for e, p in zip(shoe_events, payloads, strict=True) if e.type == g.SHOE_CLIENT_SEED
    ]
    if len(given) > 1:
        e = given[1][0]
        raise FairnessError(
            "a shoe takes one client seed; a second one was given", stream=e.stream, seq=e.seq
        )
    if given:
        c = dataclasses.replace(c, client_seed=str(given[0][1]["client_seed"]))
    return c


def _settle_as_recorded(
    eng: g.Engine[Any], state: g.HandState, stored: StoredSettlement | None
) -> HandSettlement:
    """The settlement of ``state`` with its record written at the version ``stored`` was
    written with (the current one when there is no stored record or it names none this
    auditor knows: the comparison then fails). Written at the current version first: a
    record equal to it byte for byte names that version, so the stored record is parsed
    (to read its version) only when the two differ."""
    result = eng.settlement(state)
    hs = settlement_of(result, state.hand_id, eng.variant)
    if stored is None or stored.record_bytes == hs.record_bytes:
        return hs
    version = recorded_version(stored.record_bytes)
    if version == RECORD_VERSION:
        return hs
    return settlement_of(result, state.hand_id, eng.variant, version)


def _posting_diff(stored: Sequence[tuple[str, int]], want: Sequence[tuple[str, int]]) -> str:
    have: dict[str, int] = {}
    for a, n in stored:
        have[a] = have.get(a, 0) + n
    exp: dict[str, int] = {}
    for a, n in want:
        exp[a] = exp.get(a, 0) + n
    parts = [
        f"{a} ledger {have.get(a, 0)}, settlement {exp.get(a, 0)} "
        f"(off by {have.get(a, 0) - exp.get(a, 0):+d})"
        for a in sorted(set(have) | set(exp))
        if have.get(a, 0) != exp.get(a, 0)
    ]
    return "; ".join(parts) or "the same sums in other lines"


# --------------------------------------------------------------------------- whole log


@dataclass(frozen=True, slots=True)
class Finding:
    """One failure of the whole-log checks: what, where, and (for money) how much."""

    reason: str
    message: str
    hand_id: str | None = None
    stream: str | None = None
    seq: int | None = None
    account: str | None = None
    amount: int | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return {k: v for k, v in _asdict(self).items() if v is not None}


def _asdict(f: Finding) -> dict[str, Any]:
    return {name: getattr(f, name) for name in Finding.__slots__}


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the reconciliation needs of one hand, read from its signed events."""

    hand_id: str
    table: str
    variant: str
    hand_no: int
    shoe: str
    shoe_hand_no: int
    first_pos: int | None  # first shoe position it dealt (None: no card)
    next_pos: int | None  # hand.closed's positions_used (None: not closed)
    closed: bool
    settled: tuple[tuple[str, int], ...] | None  # hand.settled's postings
    voided: bool  # a signed hand.voided authorises a ledger void

    @classmethod
    def of(cls, events: Sequence[Event]) -> HandFacts | None:
        """None when the stream does not open as a hand (the per-hand audit says why)."""
        if not events or events[0].type != g.HAND_OPENED:
            return None
        try:
            o = events[0].payload
            first: int | None = None
            nxt: int | None = None
            settled: tuple[tuple[str, int], ...] | None = None
            voided = closed = False
            for e in events[1:]:
                if e.type == g.CARD_DEALT and first is None:
                    cards = e.payload.get("cards") or []
                    first = int(cards[0]["pos"]) if cards else None
                elif e.type == g.HAND_CLOSED:
                    closed = True
                    nxt = int(e.payload.get("positions_used", -1))
                elif e.type == g.HAND_SETTLED:
                    settled = tuple((str(a), int(n)) for a, n in e.payload["postings"])
                elif e.type == g.HAND_VOIDED:
                    voided = True
            return cls(
                events[0].stream,
                str(o["table"]),
                str(o["variant"]),
                int(o["hand_no"]),
                str(o["shoe"]),
                int(o.get("shoe_hand_no", 0)),
                first,
                nxt,
                closed,
                settled,
                voided,
            )
        except (KeyError, TypeError, ValueError, IndexError, InvalidInput):
            return None


@dataclass(frozen=True, slots=True)
class ShoeFacts:
    shoe_id: str
    revealed: bool
    positions_used: int | None
    hands: int | None

    @classmethod
    def of(cls, events: Sequence[Event]) -> ShoeFacts | None:
        if not events or events[0].type != g.SHOE_OPENED:
            return None
        rev = _find(events, g.SHOE_REVEALED)
        if rev is None:
            return cls(events[0].stream, False, None, None)
        p = rev.payload
        return cls(
            events[0].stream, True, int(p.get("positions_used", -1)), int(p.get("hands", -1))
        )


@dataclass(frozen=True, slots=True)
class LedgerFact:
    tx_id: int
    kind: str
    hand_id: str
    reverses_tx_id: int | None
    postings: tuple[tuple[str, int], ...]


def _table_order(hands: Sequence[HandFacts], whole: bool) -> list[Finding]:
    out: list[Finding] = []
    by_table: dict[str, list[HandFacts]] = {}
    for h in hands:
        by_table.setdefault(h.table, []).append(h)
    for table, hs in sorted(by_table.items()):
        hs.sort(key=lambda h: (h.hand_no, h.hand_id))
        seen: dict[int, str] = {}
        for h in hs:
            if h.hand_no in seen:
                out.append(
                    Finding(
                        "hand_number_duplicate",
                        f"table {table}: hand number {h.hand_no} is both {seen[h.hand_no]} and "
                        f"{h.hand_id}",
                        hand_id=h.hand_id,
                    )
                )
            seen.setdefault(h.hand_no, h.hand_id)
        nums = sorted(seen)
        start = 1 if whole else nums[0]
        prev: int | None = None
        for n in range(start, nums[-1] + 1):
            if n not in seen:
                before = seen.get(prev) if prev is not None else None
                after = seen[min(x for x in nums if x > n)]
                out.append(
                    Finding(
                        "hand_number_gap",
                        f"table {table}: hand number {n} is missing "
                        f"(between {before or 'the table opening'} and {after})",
                        hand_id=f"{table}_h{n}",
                    )
                )
            else:
                prev = n
    return out


def _shoe_sequence(
    hands: Sequence[HandFacts], shoes: Mapping[str, ShoeFacts], whole: bool
) -> list[Finding]:
    out: list[Finding] = []
    by_shoe: dict[str, list[HandFacts]] = {}
    for h in hands:
        by_shoe.setdefault(h.shoe, []).append(h)
    for shoe_id, hs in sorted(by_shoe.items()):
        hs.sort(key=lambda h: (h.shoe_hand_no, h.hand_no))
        nums = [h.shoe_hand_no for h in hs]
        want = 1 if whole else nums[0]
        for h in hs:
            if h.shoe_hand_no != want:
                out.append(
                    Finding(
                        "shoe_order",
                        f"shoe {shoe_id}: {h.hand_id} is hand {h.shoe_hand_no} of the shoe "
                        f"where hand {want} was next",
                        hand_id=h.hand_id,
                        stream=shoe_id,
                    )
                )
            want = h.shoe_hand_no + 1
        pos: int | None = 0 if nums[0] == 1 else None
        for h in hs:
            if pos is not None and h.first_pos is not None and h.first_pos != pos:
                out.append(
                    Finding(
                        "shoe_order",
                        f"shoe {shoe_id}: {h.hand_id} starts dealing at position {h.first_pos}, "
                        f"the shoe's next position was {pos}",
                        hand_id=h.hand_id,
                        stream=shoe_id,
                    )
                )
            pos = h.next_pos if h.closed else None
        s = shoes.get(shoe_id)
        if (
            whole
            and s is not None
            and s.revealed
            and hs[-1].closed
            and (s.positions_used != hs[-1].next_pos or s.hands != len(hs))
        ):
            out.append(
                Finding(
                    "shoe_order",
                    f"shoe {shoe_id} was revealed after {s.hands} hands and "
                    f"{s.positions_used} positions; the log holds {len(hs)} hands ending "
                    f"at position {hs[-1].next_pos}",
                    hand_id=hs[-1].hand_id,
                    stream=shoe_id,
                )
            )
    return out


def _ledger(
    hands: Sequence[HandFacts],
    ledger: Sequence[LedgerFact],
    settlement_tx: Mapping[str, int],
    whole: bool,
) -> list[Finding]:
    out: list[Finding] = []
    by_hand = {h.hand_id: h for h in hands}
    settle_of: dict[str, LedgerFact] = {}
    total = 0
    for tx in ledger:
        s = sum(n for _, n in tx.postings)
        total += s
        if s != 0:
            out.append(
                Finding(
                    "ledger_unbalanced",
                    f"ledger transaction {tx.tx_id} ({tx.kind}, hand {tx.hand_id}) sums to "
                    f"{s:+d}, not 0",
                    hand_id=tx.hand_id,
                    amount=s,
                )
            )
        h = by_hand.get(tx.hand_id)
        if tx.kind == "settle":
            settle_of[tx.hand_id] = tx
            if h is None or h.settled is None:
                out.append(
                    Finding(
                        "ledger_orphan",
                        f"ledger transaction {tx.tx_id} settles hand {tx.hand_id}, "
                        + (
                            "which the log does not hold"
                            if h is None
                            else "which was never settled"
                        ),
                        hand_id=tx.hand_id,
                    )
                )
        elif tx.kind == "void" and (h is None or not h.voided):
            out.append(
                Finding(
                    "void_unauthorised",
                    f"ledger transaction {tx.tx_id} voids hand {tx.hand_id} without a signed "
                    "hand.voided in the hand's log",
                    hand_id=tx.hand_id,
                )
            )
    for h in hands:
        if h.settled is None:
            continue
        stx = settle_of.get(h.hand_id)
        if stx is None:
            out.append(
                Finding(
                    "ledger_missing",
                    f"hand {h.hand_id} is settled in the log but has no ledger transaction",
                    hand_id=h.hand_id,
                )
            )
        elif settlement_tx.get(h.hand_id) != stx.tx_id:
            out.append(
                Finding(
                    "settlement_tx_mismatch",
                    f"hand {h.hand_id}: the settlement record names ledger transaction "
                    f"{settlement_tx.get(h.hand_id)}, the ledger settles it in {stx.tx_id}",
                    hand_id=h.hand_id,
                )
            )
    if whole and total != 0:
        out.append(
            Finding("ledger_not_zero_sum", f"the ledger sums to {total:+d}, not 0", amount=total)
        )
    return out


def _balances(hands: Sequence[HandFacts], balances: Mapping[str, int]) -> list[Finding]:
    want: dict[str, int] = {}
    for h in hands:
        if h.settled is None or h.voided:
            continue
        for a, n in h.settled:
            want[a] = want.get(a, 0) + n
    out = []
    for a in sorted(set(want) | set(balances)):
        have, exp = balances.get(a, 0), want.get(a, 0)
        if have != exp:
            out.append(
                Finding(
                    "balance_mismatch",
                    f"account {a}: the ledger holds {have}, the settled hands add up to {exp} "
                    f"(off by {have - exp:+d} minor units)",
                    account=a,
                    amount=have - exp,
                )
            )
    return out


def _stream_rows(
    hands: Sequence[HandFacts],
    rows: Mapping[str, tuple[str, str, str, str | None]],
) -> list[Finding]:
    out = []
    for h in hands:
        want = ("hand", h.variant, h.table, h.shoe)
        got = rows.get(h.hand_id)
        if got != want:
            out.append(
                Finding(
                    "stream_row_mismatch",
                    f"hand {h.hand_id}: the streams table lists it as {got}, its signed "
                    f"hand.opened says {want}",
                    hand_id=h.hand_id,
                    stream=h.hand_id,
                )
            )
    return out


def _unregistered(
    log_streams: Sequence[str],
    rows: Mapping[str, tuple[str, str, str, str | None]],
    hands: Sequence[HandFacts],
) -> list[Finding]:
    """Streams with events in the log and no ``streams`` row. The table carries no
    foreign key (migration 0014: its one writer checks the registration); a hand's
    missing row is already a ``stream_row_mismatch``."""
    known = {h.hand_id for h in hands}
    return [
        Finding(
            "stream_unregistered",
            f"stream {s}: the log holds its events, the streams table does not register it",
            stream=s,
        )
        for s in log_streams
        if s not in rows and s not in known
    ]


def reconcile(
    hands: Sequence[HandFacts],
    shoes: Mapping[str, ShoeFacts],
    *,
    rows: Mapping[str, tuple[str, str, str, str | None]] | None = None,
    log_streams: Sequence[str] | None = None,
    ledger: Sequence[LedgerFact] = (),
    settlement_tx: Mapping[str, int] | None = None,
    balances: Mapping[str, int] | None = None,
    whole: bool = True,
) -> list[Finding]:
    """The checks across hands. ``whole``: the facts are the entire log (hand numbers
    start at 1, the ledger must sum to zero, balances are compared); otherwise a range,
    checked within itself. ``log_streams``: every stream with events in the log, each
    checked to have a ``rows`` entry. Pure."""
    out = _table_order(hands, whole) + _shoe_sequence(hands, shoes, whole)
    if rows is not None:
        out += _stream_rows(hands, rows)
        if log_streams is not None:
            out += _unregistered(log_streams, rows, hands)
    out += _ledger(hands, ledger, settlement_tx or {}, whole)
    if balances is not None:
        out += _balances(hands, balances)
    return out


@dataclass
class LogCheck:
    """The transparency log replayed from the seals themselves."""

    size: int = 0
    root: bytes = b""
    findings: list[Finding] = field(default_factory=list)


def check_log(
    leaves: Sequence[tuple[int, str, Seal | None]],
    checkpoints: Sequence[Checkpoint],
    stored_seals_not_in_log: Sequence[str] = (),
) -> LogCheck:
    """Rebuild the tree from the stored seals in leaf order and compare its root at each
    checkpoint's size with the checkpoint (signatures already checked by the caller).
    A deleted, inserted, reordered or rewritten seal anywhere before a checkpoint changes
    the root at that size."""
    out = LogCheck()
    c = merkle.CompactRange()
    roots: dict[int, bytes] = {0: merkle.EMPTY_ROOT}
    want = {cp.size for cp in checkpoints}
    for index, seal_id, s in leaves:
        if index != c.size:
            out.findings.append(
                Finding(
                    "log_leaf_missing", f"leaf {c.size} of the log is missing (next is {index})"
                )
            )
            break
        if s is None:
            out.findings.append(
                Finding(
                    "log_seal_missing", f"leaf {index} names seal {seal_id}, which is not stored"
                )
            )
            break
        c.append(seal_leaf_hash(s))
        if c.size in want:
            roots[c.size] = c.root()
    out.size, out.root = c.size, c.root()
    for cp in sorted(checkpoints, key=lambda x: x.size):
        got = roots.get(cp.size)
        if got is None:
            out.findings.append(
                Finding(
                    "log_truncated",
                    f"checkpoint of size {cp.size} vouches for more seals than the log holds "
                    f"({c.size}): seals were deleted",
                )
            )
        elif got != cp.root:
            out.findings.append(
                Finding(
                    "log_checkpoint_mismatch",
                    f"the log's first {cp.size} seals hash to {got.hex()[:16]}…, the signed "
                    f"checkpoint says {cp.root.hex()[:16]}…: a seal before it was deleted, "
                    "inserted or rewritten",
                )
            )
    for sid in stored_seals_not_in_log:
        out.findings.append(
            Finding("log_seal_not_in_log", f"seal {sid} is stored but is no leaf of the log")
        )
    return out
