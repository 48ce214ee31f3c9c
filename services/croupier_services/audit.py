"""The audit service: load a hand, its shoe and its settlement from the store and replay
them through :func:`croupier.audit.audit_hand`; audit the whole log (or a range) with
the checks across hands (:func:`croupier.audit.reconcile`, :func:`croupier.audit.check_log`);
export hands as JSON lines with their transparency-log proofs."""

from __future__ import annotations

import collections
import gc
import multiprocessing
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from croupier.audit import (
    AuditReport,
    CheckedStreams,
    Finding,
    HandFacts,
    LedgerFact,
    ShoeFacts,
    StoredSettlement,
    StreamLog,
    Verdict,
    audit_hand,
    check_log,
    reconcile,
)
from croupier.errors import CroupierError, InvalidInput, NotFound, RuleViolation
from croupier.events import Seal, SealVerifier
from croupier.export import HandExport, LogProofs, dump, keys_for
from croupier.games import base as g
from croupier.games.base import HAND_CLOSED
from croupier.games.registry import variants
from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc
from croupier.report import TableDay
from croupier.signing import KeyRegistry
from croupier.store import EventStore, SealRows
from croupier.store.tlog import StoredCheckpoint
from croupier.tlog.note import Checkpoint, NoteVerifier, open_checkpoint
from croupier.tlog.witness import CheckpointWitness
from croupier.upkeep import collector_paused
from croupier_services import metrics
from croupier_services.grpc_util import abort, rpc, rpc_stream
from croupier_services.keys import TrustedKeys

_VERDICT = {
    Verdict.PASS: audit_pb2.AUDIT_VERDICT_PASS,
    Verdict.FAIL: audit_pb2.AUDIT_VERDICT_FAIL,
    Verdict.PENDING_REVEAL: audit_pb2.AUDIT_VERDICT_PENDING_REVEAL,
    Verdict.PENDING_OPEN: audit_pb2.AUDIT_VERDICT_PENDING_OPEN,
}


def load_hand(
    store: EventStore,
    hand_id: str,
    trust: TrustedKeys | None = None,
    *,
    tree_size: int | None = None,
    proofs: bool = True,
) -> HandExport:
    """The hand, its shoe, its settlement, the signed keyring ``trust`` holds (with
    ``key`` lines for the keys that sealed it) and, with ``proofs``, the inclusion
    proofs of its seals in the log's checkpoint of ``tree_size`` (default: the latest).
    Without ``trust`` (to read a hand, not to prove it) the export carries no keys."""
    events = store.read_stream(hand_id)
    if not events:
        raise NotFound(f"no hand {hand_id!r}")
    shoe_id = str(events[0].payload.get("shoe", ""))
    shoe_events = store.read_stream(shoe_id) if shoe_id else []
    hand = StreamLog(tuple(events), tuple(store.seals_for(hand_id)))
    shoe = StreamLog(tuple(shoe_events), tuple(store.seals_for(shoe_id)) if shoe_id else ())
    stored: StoredSettlement | None = None
    try:
        row = store.get_settlement(hand_id)
        stored = StoredSettlement(
            bytes(row.record), tuple((p.account, p.amount) for p in store.postings(row.tx_id))
        )
    except NotFound:
        stored = None
    seals = hand.seals + shoe.seals
    log = log_proofs(store, seals, tree_size) if proofs else None
    if trust is None:
        return HandExport(hand_id, hand, shoe, (), stored, None, log)
    trust.refresh()
    return HandExport(
        hand_id, hand, shoe, keys_for(trust.registry, seals), stored, trust.keyring, log
    )


def log_proofs(
    store: EventStore, seals: Sequence[Seal], tree_size: int | None = None
) -> LogProofs | None:
    """Inclusion proofs of ``seals`` in the checkpoint of ``tree_size`` (default: the
    latest), or None when there is no checkpoint yet."""
    cp = store.latest_checkpoint() if tree_size is None else store.checkpoint_at(tree_size)
    if cp is None:
        return None
    idx = store.leaf_indices(s.seal_id for s in seals)
    proofs = {
        sid: (i, tuple(store.inclusion_proof(i, cp.size))) for sid, i in idx.items() if i < cp.size
    }
    return LogProofs(cp.note, proofs)


def require_closed(x: HandExport) -> None:
    """Refuse to hand out an open hand: its events carry face-down cards still in play
    (an audit of it is only ``PENDING_REVEAL``; its export and history wait for the
    close)."""
    if not any(e.type == HAND_CLOSED for e in x.hand.events):
        raise RuleViolation(
            f"hand {x.hand_id} is still open: it is shown once it has closed",
            reason="hand_open",
        )


class Auditor:
    """Audits hands from one store, verifying each seal once across a range, against the
    keyring signed by the pinned root (never the store's ``keys`` table)."""

    def __init__(
        self, store: EventStore, trust: TrustedKeys, log_key: NoteVerifier | None = None
    ) -> None:
        self.store = store
        self.trust = trust
        trust.refresh(force=True)
        self.registry: KeyRegistry = trust.registry
        # a revoked key's seal passes iff a checkpoint of the pinned log dated before the
        # revocation included it (never the signer's own date)
        self.witness = CheckpointWitness(self.registry, store.first_checkpoint_including, log_key)
        self.verifier = SealVerifier(
            self.registry, seen_at=self.witness, cache=SealVerifier.AUDIT_CACHE
        )
        # the engines are imported once, here, not by the first hand (nor by each forked
        # worker)
        variants()
        # each seal read before, by signature: a seal read again in a later batch (one
        # seal covers the hands of many batches) is the same object when it is equal in
        # every field, so the verifier knows it by identity instead of comparing it
        # entry by entry for every hand it covers
        self._seals: dict[bytes, Seal] = {}
        # and each seal row read before, not decoded again when its bytes are the same
        self._seal_rows = SealRows()

    def _same_seals(self, seals: dict[str, list[Seal]]) -> dict[str, list[Seal]]:
        known = self._seals
        fresh: dict[int, Seal] = {}  # a seal naming several streams is decoded once
        for ss in seals.values():
            for i, s in enumerate(ss):
                k = fresh.get(id(s))
                if k is None:
                    k = known.get(s.signature)
                    if k is None or not (k is s or k == s):
                        known[s.signature] = k = s
                    fresh[id(s)] = k
                ss[i] = k
        if len(known) > SealVerifier.AUDIT_CACHE:
            for old in list(known)[: SealVerifier.AUDIT_CACHE // 2]:
                del known[old]
        return seals

    def audit(self, hand_id: str) -> AuditReport:
        x = load_hand(self.store, hand_id, self.trust, proofs=False)
        rep = audit_hand(
            hand_id, x.hand, x.shoe, self.registry, x.settlement, verifier=self.verifier
        )
        self._count(rep)
        return rep

    def audit_many(
        self, hand_ids: Sequence[str], facts: Facts | None = None, records: bool = True
    ) -> Iterator[AuditReport]:
        """Audit a batch of hands with a handful of queries: events, seals and
        settlements of all of them (and their shoes) are loaded together. With
        ``facts``, also gather what :func:`reconcile` needs of each hand and shoe.
        Without ``records``, a passing hand's report keeps its verdict and checks but
        not the outcome and settlement record it recomputed (what a failing or pending
        one keeps), for a caller that reads only those (:meth:`audit_log`).
        The batch is audited whole, with the cyclic garbage collector paused (its
        passes over the batch's live events and payloads cost more than they free;
        what the batch leaves is collected after it), then its reports are yielded."""
        with collector_paused():
            reps = self._audit_batch(list(hand_ids), facts)
        if not records:
            for r in reps:
                if r.verdict is Verdict.PASS:
                    r.outcome_json = r.settlement_json = None
        self._count_batch(reps)
        yield from reps

    def _audit_batch(self, ids: list[str], facts: Facts | None) -> list[AuditReport]:
        hand_events = self.store.read_streams(ids)
        # each hand's shoe, from its hand.opened (parsed here once; the chain check parses
        # every payload again, as it must)
        shoe_of = {hid: str(ev[0].payload.get("shoe", "")) for hid, ev in hand_events.items() if ev}
        shoe_ids = sorted(set(shoe_of.values()) - {""})
        shoe_events = self.store.read_streams(shoe_ids)
        if facts is not None:
            for ev in hand_events.values():
                hf = HandFacts.of(ev)
                if hf is not None:
                    facts.hands.append(hf)
            for sid, ev in shoe_events.items():
                sf = ShoeFacts.of(ev)
                if sf is not None:
                    facts.shoes[sid] = sf
        seals = self._same_seals(self.store.seals_for_streams([*ids, *shoe_ids], self._seal_rows))
        stored = self.store.settlements_with_postings(ids)
        # one log object per shoe, checked once for the batch (each hand's audit still
        # checks its shoe's commitment, order and fairness against it)
        shoes = {
            sid: StreamLog(tuple(shoe_events.get(sid, ())), tuple(seals.get(sid, ())))
            for sid in shoe_ids
        }
        checked = CheckedStreams()
        empty = StreamLog((), ())
        reps: list[AuditReport] = []
        for hid in ids:
            events = hand_events.get(hid, [])
            if not events:
                rep = AuditReport(hid).fail("not_found", f"no hand {hid!r}", hid, None)
            else:
                sid = shoe_of[hid]
                st = stored.get(hid)
                rep = audit_hand(
                    hid,
                    StreamLog(tuple(events), tuple(seals.get(hid, ()))),
                    shoes.get(sid, empty),
                    self.registry,
                    StoredSettlement(bytes(st[0].record), st[1]) if st else None,
                    verifier=self.verifier,
                    checked=checked,
                )
            reps.append(rep)
        return reps

    def _count(self, rep: AuditReport) -> None:
        self._count_batch((rep,))

    @staticmethod
    def _count_batch(reps: Sequence[AuditReport]) -> None:
        """The batch's verdicts counted, each verdict's series once."""
        verdicts = collections.Counter(rep.verdict for rep in reps)
        for verdict, n in verdicts.items():
            metrics.AUDIT_HANDS.labels(verdict.value).inc(n)
        if verdicts[Verdict.FAIL]:
            metrics.AUDIT_MISMATCHES.inc(verdicts[Verdict.FAIL])

    def audit_range(
        self,
        ids: Iterable[str],
        chunk: int | None = None,
        facts: Facts | None = None,
        jobs: int = 1,
        records: bool = True,
    ) -> Iterator[AuditReport]:
        """Audit ``ids`` in batches of ``chunk``; with ``jobs > 1`` the batches go to
        a pool of forked processes, each with its own connections, and come back in
        order, so the reports (and ``facts``) are the same as from one process.
        ``records``: as :meth:`audit_many`'s; without them a forked worker sends back
        ~100 bytes a passing hand instead of ~6 KB (its record and outcome), which the
        parent unpickled only to drop (docs/performance.md, "Audits in log order")."""
        chunk = chunk or BATCH
        if jobs > 1:
            todo = list(ids)
            if len(todo) > chunk:
                yield from self._audit_forked(todo, chunk, facts, jobs, records)
                return
            ids = todo
        batch: list[str] = []
        for hid in ids:
            batch.append(hid)
            if len(batch) >= chunk:
                yield from self.audit_many(batch, facts, records)
                batch = []
        if batch:
            yield from self.audit_many(batch, facts, records)

    def _audit_forked(
        self, ids: list[str], chunk: int, facts: Facts | None, jobs: int, records: bool
    ) -> Iterator[AuditReport]:
        global _FORKED
        batches = [ids[i : i + chunk] for i in range(0, len(ids), chunk)]
        _FORKED = self
        ctx = multiprocessing.get_context("fork")
        # the parent's objects out of the workers' collections while they run: a worker's
        # pass over them would write to every inherited page (copy-on-write), and the
        # parent's are not the batches' garbage (the recipe of the gc module's freeze);
        # thawed after, unless the process had frozen its start-up already
        thaw = gc.get_freeze_count() == 0
        gc.freeze()
        try:
            with ctx.Pool(min(jobs, len(batches)), initializer=_forked_init) as pool:
                for reps, part in pool.imap(
                    _forked_batch, [(b, facts is not None, records) for b in batches]
                ):
                    if facts is not None and part is not None:
                        facts.hands += part.hands
                        facts.shoes.update(part.shoes)
                    self._count_batch(reps)
                    yield from reps
        finally:
            _FORKED = None
            if thaw:
                gc.unfreeze()

    def audit_log(
        self,
        *,
        since_ms: int | None = None,
        until_ms: int | None = None,
        log_key: NoteVerifier | None = None,
        held: Checkpoint | None = None,
        progress: Callable[[int, int], None] | None = None,
        jobs: int = 1,
    ) -> LogAudit:
        """Audit every hand of the log (or those opened in ``since_ms <= t <
        until_ms``), then the checks across hands; for the whole log also the
        transparency log against its stored checkpoints (verified under ``log_key``) and
        the auditor's own checkpoint ``held``."""
        whole = since_ms is None and until_ms is None
        out = LogAudit(whole=whole)
        facts = Facts()
        log_streams: list[str] | None = None
        if whole:
            hands_of_the_log, log_streams = self._streams_of_the_log()
            ids = self.in_log_order(hands_of_the_log)
            self._check_tlog(out, log_key, held)
        else:
            # the window's hands in the order they opened, a page an index range
            ids = self.in_log_order(self.store.hands_opened(since_ms, until_ms))
        out.total = len(ids)
        for n, rep in enumerate(self.audit_range(ids, facts=facts, jobs=jobs, records=False), 1):
            out.add(rep)
            if progress is not None:
                progress(n, out.total)
        rows = self._stream_rows()
        hands = {h.hand_id for h in facts.hands}
        ledger = [t for t in self._ledger() if whole or t.hand_id in hands]
        settled = {s.hand_id: s.tx_id for s in self._settlements() if whole or s.hand_id in hands}
        out.findings += reconcile(
            facts.hands,
            facts.shoes,
            rows=rows,
            log_streams=log_streams,
            ledger=ledger,
            settlement_tx=settled,
            balances=self.store.balances() if whole else None,
            whole=whole,
        )
        if whole:
            out.findings += totals_mismatches(self.store.balances(), self.store.summed_balances())
        return out

    def _streams_of_the_log(self) -> tuple[list[str], list[str]]:
        """Every hand, found by its signed opening event (not by the ``streams``
        table, which a database user can edit), and every stream the log holds."""
        hands: list[str] = []
        streams: list[str] = []
        after: str | None = None
        while page := self.store.first_events(after, 1000):
            hands += [e.stream for e in page if e.type == g.HAND_OPENED]
            streams += [e.stream for e in page]
            after = page[-1].stream
        return hands, streams

    def _stream_rows(self) -> dict[str, tuple[str, str, str, str | None]]:
        rows: dict[str, tuple[str, str, str, str | None]] = {}
        after: str | None = None
        while page := self.store.list_streams(after_stream_id=after, limit=1000):
            for r in page:
                rows[r.stream_id] = (r.kind, r.variant, r.table_id, r.shoe_id)
            after = page[-1].stream_id
        return rows

    def _ledger(self) -> list[LedgerFact]:
        out: list[LedgerFact] = []
        after = 0
        while page := self.store.list_transactions(after_tx_id=after, limit=1000):
            out += [
                LedgerFact(
                    t.tx_id,
                    t.kind,
                    t.hand_id,
                    t.reverses_tx_id,
                    tuple((p.account, p.amount) for p in t.postings),
                )
                for t in page
            ]
            after = page[-1].tx_id
        return out

    def _settlements(self) -> list[Any]:
        out: list[Any] = []
        after: str | None = None
        while page := self.store.list_settlements(after_hand_id=after, limit=1000):
            out += page
            after = page[-1].hand_id
        return out

    def _check_tlog(
        self, out: LogAudit, log_key: NoteVerifier | None, held: Checkpoint | None
    ) -> None:
        cps: list[Checkpoint] = []
        for st in self.store.checkpoints():
            if log_key is None:
                out.unverified_checkpoints += 1
                continue
            try:
                cps.append(open_checkpoint(st.note, log_key))
            except CroupierError as e:
                out.findings.append(
                    Finding(
                        "log_checkpoint_signature",
                        f"stored checkpoint of size {st.size} does not verify: {e.message}",
                    )
                )
        if held is not None:
            cps.append(held)
        leaves: list[tuple[int, str, Seal | None]] = []
        after = -1
        while page := self.store.leaf_seals(after, 5000):
            leaves += page
            after = page[-1][0]
        lc = check_log(leaves, cps, self.store.seals_not_in_log())
        out.log_size, out.log_root = lc.size, lc.root
        out.findings += lc.findings
        out.checkpoints_checked = len(cps)

    def hand_ids(
        self,
        *,
        table_id: str | None = None,
        variant: str | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        limit: int | None = None,
        after_hand_id: str | None = None,
    ) -> Iterator[str]:
        after: str | None = after_hand_id
        left = limit
        while left is None or left > 0:
            page = 1000 if left is None else min(1000, left)
            rows = self.store.list_streams(
                kind="hand",
                table_id=table_id,
                variant=variant,
                since_ms=since_ms,
                until_ms=until_ms,
                after_stream_id=after,
                limit=page,
            )
            if not rows:
                return
            for r in rows:
                yield r.stream_id
            after = rows[-1].stream_id
            if left is not None:
                left -= len(rows)
            if len(rows) < page:
                return

    def in_log_order(self, ids: Iterable[str]) -> list[str]:
        """``ids`` (each once) in the order the log opened them (their opening events'
        global positions); ids with no events last, in their given order. Audited in this
        order, a batch's hands are those one stretch of the log holds, sealed by the same
        few commits: each seal is read, decoded and verified for one batch or two, where
        in hand-id order (a table's hands across its whole life) every batch needs seals
        of the whole log — decoded again once they outnumber what the auditor remembers,
        and by every forked worker (docs/performance.md, "Audits in log order")."""
        todo = list(dict.fromkeys(ids))
        at = self.store.log_positions(todo)
        found = sorted((p, hid) for hid, p in at.items())
        return [hid for _, hid in found] + [hid for hid in todo if hid not in at]


def totals_mismatches(totals: dict[str, int], sums: dict[str, int]) -> list[Finding]:
    """Accounts whose running total (``ledger_totals``) is not the sum of their
    postings."""
    return [
        Finding(
            "totals_mismatch",
            f"account {acc}: running total {totals.get(acc, 0)} but its postings sum to "
            f"{sums.get(acc, 0)}",
            account=acc,
        )
        for acc in sorted(totals.keys() | sums.keys())
        if totals.get(acc, 0) != sums.get(acc, 0)
    ]


BATCH = 500
"""Hands audited together (one set of queries; one unit of work for a forked worker)."""

_FORKED: Auditor | None = None


def _forked_init() -> None:
    """In a forked audit worker: never reuse the parent's pooled connections."""
    assert _FORKED is not None
    engine = getattr(_FORKED.store, "engine", None)
    if engine is not None:
        engine.dispose(close=False)
    # the parent counts the reports it receives
    _FORKED._count = lambda rep: None  # type: ignore[method-assign]


def _forked_batch(
    arg: tuple[list[str], bool, bool],
) -> tuple[list[AuditReport], Facts | None]:
    assert _FORKED is not None
    ids, want_facts, records = arg
    facts = Facts() if want_facts else None
    return list(_FORKED.audit_many(ids, facts, records)), facts


@dataclass
class Facts:
    hands: list[HandFacts] = field(default_factory=list)
    shoes: dict[str, ShoeFacts] = field(default_factory=dict)


@dataclass
class LogAudit:
    """The result of a whole-log (or range) audit: every failing or pending hand, the
    failures across hands, and totals."""

    whole: bool
    total: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {v.value: 0 for v in Verdict})
    failed: list[AuditReport] = field(default_factory=list)
    pending: list[AuditReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    log_size: int = 0
    log_root: bytes = b""
    checkpoints_checked: int = 0
    unverified_checkpoints: int = 0

    def add(self, rep: AuditReport) -> None:
        self.counts[rep.verdict.value] += 1
        if rep.failed:
            self.failed.append(rep)
        elif rep.pending:
            self.pending.append(rep)

    @property
    def ok(self) -> bool:
        """Every hand PASS and no failure across hands."""
        return not self.failed and not self.pending and not self.findings

    @property
    def has_failures(self) -> bool:
        return bool(self.failed or self.findings)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "scope": "all" if self.whole else "range",
            "totals": {
                "hands": self.total,
                **self.counts,
                "hand_failures": len(self.failed),
                "log_failures": len(self.findings),
            },
            "failures": [
                {
                    "hand_id": r.hand_id,
                    "stream": r.stream,
                    "seq": r.seq,
                    "reason": r.reason,
                    "message": r.message,
                }
                for r in self.failed
            ]
            + [{"scope": "log", **f.to_json_dict()} for f in self.findings],
            "pending": [{"hand_id": r.hand_id, "verdict": r.verdict.value} for r in self.pending],
            "log": {
                "size": self.log_size,
                "root": self.log_root.hex(),
                "checkpoints_checked": self.checkpoints_checked,
                "unverified_checkpoints": self.unverified_checkpoints,
            }
            if self.whole
            else None,
        }


def report_pb(rep: AuditReport) -> audit_pb2.AuditReport:
    out = audit_pb2.AuditReport(
        hand_id=rep.hand_id,
        ok=rep.ok,
        verdict=_VERDICT[rep.verdict],
        first_bad_stream=rep.stream or "",
        reason=rep.reason,
        message=rep.message,
        checks=rep.checks,
    )
    if rep.seq is not None:
        out.first_bad_seq = rep.seq
    return out


class AuditServicer(audit_pb2_grpc.AuditServiceServicer):
    """The audit service. ``log_key`` is the log's pinned verifier key
    (``CROUPIER_LOG_KEY``): with it, a since-revoked key's seal passes when a checkpoint
    of that log dated before the revocation included it, as in ``croupier audit``."""

    def __init__(
        self, store: EventStore, trust: TrustedKeys, log_key: NoteVerifier | None = None
    ) -> None:
        self.store = store
        self.trust = trust
        self.log_key = log_key

    def _auditor(self) -> Auditor:
        return Auditor(self.store, self.trust, log_key=self.log_key)

    @rpc("VerifyHand")
    async def VerifyHand(
        self, request: audit_pb2.VerifyHandRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.VerifyHandResponse:
        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        return audit_pb2.VerifyHandResponse(
            report=report_pb(self._auditor().audit(request.hand_id))
        )

    @rpc_stream("VerifyRange")
    async def VerifyRange(
        self, request: audit_pb2.VerifyRangeRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[audit_pb2.VerifyRangeResponse]:
        if request.limit < 0:
            await abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, "out_of_range", "limit must be >= 0"
            )
        a = self._auditor()
        for rep in a.audit_range(
            a.hand_ids(
                table_id=request.table_id or None,
                variant=request.variant or None,
                since_ms=request.since_ms or None,
                until_ms=request.until_ms or None,
                limit=request.limit or None,
                after_hand_id=request.after_hand_id or None,
            )
        ):
            yield audit_pb2.VerifyRangeResponse(report=report_pb(rep))

    @rpc("ExportHand")
    async def ExportHand(
        self, request: audit_pb2.ExportHandRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.ExportHandResponse:
        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        x = load_hand(self.store, request.hand_id, self.trust)
        require_closed(x)
        return audit_pb2.ExportHandResponse(jsonl=dump(x))

    @rpc("GetHandHistory")
    async def GetHandHistory(
        self, request: audit_pb2.GetHandHistoryRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetHandHistoryResponse:
        from croupier_services import reporting

        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        tz = reporting.parse_tz(request.time_zone) if request.time_zone else None
        require_closed(load_hand(self.store, request.hand_id))
        return audit_pb2.GetHandHistoryResponse(
            text=reporting.history(self.store, request.hand_id, tz)
        )

    @rpc("GetDayReport")
    async def GetDayReport(
        self, request: audit_pb2.GetDayReportRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetDayReportResponse:
        from croupier import report
        from croupier_services import reporting

        if not request.day:
            raise InvalidInput("day is required (YYYY-MM-DD)")
        if request.format not in ("", "text", "json", "csv"):
            raise InvalidInput(f"format is text, json or csv, not {request.format!r}")
        tz = (
            reporting.parse_tz(request.time_zone)
            if request.time_zone
            else reporting.report_time_zone()
        )
        rep = reporting.day_report(
            self.store,
            request.day,
            tz,
            variant=request.variant or None,
            table_id=request.table_id or None,
        )
        return audit_pb2.GetDayReportResponse(
            day=rep.day,
            time_zone=rep.time_zone,
            since_ms=rep.since_ms,
            until_ms=rep.until_ms,
            tables=[_figures_pb(t) for t in rep.tables],
            variants=[_figures_pb(t) for t in rep.variants],
            total=_figures_pb(rep.total),
            rtp=[
                audit_pb2.SpotRtp(
                    variant=s.variant,
                    spot=s.spot,
                    bets=s.bets,
                    staked_minor=s.staked,
                    returned_minor=s.returned,
                    rtp=s.rtp,
                    ci_low=s.ci_low,
                    ci_high=s.ci_high,
                    theory=s.theory,
                )
                for s in rep.spots
            ],
            rendered=report.render(rep, request.format) if request.format else "",
        )

    # -- the transparency log: checkpoints and proofs (verify them with croupier.tlog)
    @rpc("GetCheckpoint")
    async def GetCheckpoint(
        self, request: audit_pb2.GetCheckpointRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetCheckpointResponse:
        cp = self._checkpoint(request.tree_size)
        return audit_pb2.GetCheckpointResponse(
            note=cp.note,
            tree_size=cp.size,
            root_hash=cp.root,
            published_at_ms=cp.published_at_ms,
        )

    @rpc("GetConsistencyProof")
    async def GetConsistencyProof(
        self, request: audit_pb2.GetConsistencyProofRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetConsistencyProofResponse:
        old, new = request.old_size, request.new_size
        size = self.store.tlog_size()
        if not 0 <= old <= new <= size:
            raise InvalidInput(
                f"sizes must satisfy 0 <= old_size <= new_size <= {size} (the log's size), "
                f"not old_size={old}, new_size={new}",
                reason="bad_tree_size",
            )
        proof = self.store.consistency_proof(old, new) if 0 < old < new else []
        return audit_pb2.GetConsistencyProofResponse(old_size=old, new_size=new, proof=proof)

    @rpc("GetInclusionProof")
    async def GetInclusionProof(
        self, request: audit_pb2.GetInclusionProofRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetInclusionProofResponse:
        from croupier import limits
        from croupier.tlog import seal_leaf_hash

        hand_id = limits.hand_id(request.hand_id)
        cp = self._checkpoint(request.tree_size)
        try:
            is_hand = self.store.stream_info(hand_id).kind == "hand"
        except NotFound:
            is_hand = False
        if not is_hand:
            raise NotFound(f"no hand {hand_id!r}")
        seals = self.store.seals_for(hand_id)
        idx = self.store.leaf_indices(s.seal_id for s in seals)
        leaves: list[audit_pb2.LeafProof] = []
        pending: list[str] = []
        for s in seals:
            i = idx.get(s.seal_id)
            if i is None or i >= cp.size:
                pending.append(s.seal_id)
                continue
            leaves.append(
                audit_pb2.LeafProof(
                    seal_id=s.seal_id,
                    leaf_index=i,
                    leaf_hash=seal_leaf_hash(s),
                    proof=self.store.inclusion_proof(i, cp.size),
                )
            )
        leaves.sort(key=lambda x: x.leaf_index)
        return audit_pb2.GetInclusionProofResponse(
            hand_id=hand_id,
            tree_size=cp.size,
            checkpoint_note=cp.note,
            leaves=leaves,
            pending_seal_ids=pending,
        )

    def _checkpoint(self, tree_size: int) -> StoredCheckpoint:
        """The published checkpoint of ``tree_size`` (0: the latest)."""
        if tree_size < 0:
            raise InvalidInput(f"tree_size must be >= 0, not {tree_size}", reason="bad_tree_size")
        if tree_size == 0:
            cp = self.store.latest_checkpoint()
            if cp is None:
                raise NotFound("no checkpoint has been published yet")
            return cp
        try:
            return self.store.checkpoint_at(tree_size)
        except NotFound:
            raise InvalidInput(
                f"no checkpoint of tree size {tree_size} was published", reason="bad_tree_size"
            ) from None

    @rpc("ListTables")
    async def ListTables(
        self, request: audit_pb2.ListTablesRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.ListTablesResponse:
        return audit_pb2.ListTablesResponse(
            tables=[
                audit_pb2.TableSummary(
                    table_id=t.table_id,
                    variant=t.variant,
                    hands=t.hands,
                    first_opened_ms=t.first_opened_ms,
                    last_opened_ms=t.last_opened_ms,
                )
                for t in self.store.list_tables(variant=request.variant or None)
            ]
        )

    @rpc("ListHands")
    async def ListHands(
        self, request: audit_pb2.ListHandsRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.ListHandsResponse:
        if not 0 <= request.page_size <= 1000:
            raise InvalidInput("page_size must be between 0 and 1000")
        size = request.page_size or 100
        rows = self.store.list_streams(
            kind="hand",
            table_id=request.table_id or None,
            variant=request.variant or None,
            since_ms=request.since_ms or None,
            until_ms=request.until_ms or None,
            after_stream_id=request.page_token or None,
            limit=size + 1,
        )
        more = len(rows) > size
        rows = rows[:size]
        return audit_pb2.ListHandsResponse(
            hands=[
                audit_pb2.HandSummary(
                    hand_id=r.stream_id,
                    variant=r.variant,
                    table_id=r.table_id,
                    shoe_id=r.shoe_id or "",
                    opened_at_ms=r.opened_at_ms,
                )
                for r in rows
            ],
            next_page_token=rows[-1].stream_id if more and rows else "",
        )


def _figures_pb(t: TableDay) -> audit_pb2.DayFigures:
    return audit_pb2.DayFigures(
        variant=t.variant,
        table_id=t.table_id,
        hands=t.hands,
        turnover_minor=t.turnover,
        payouts_minor=t.payouts,
        ggr_minor=t.ggr,
        rake_minor=t.rake,
    )
