"""The audit service: load a hand, its shoe and its settlement from the store and replay
them through :func:`croupier.audit.audit_hand`; export hands as JSON lines."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence

import grpc

from croupier.audit import AuditReport, StoredSettlement, StreamLog, Verdict, audit_hand
from croupier.errors import InvalidInput, NotFound
from croupier.events import SealVerifier
from croupier.export import HandExport, dump, keys_for
from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc
from croupier.report import TableDay
from croupier.signing import KeyRegistry
from croupier.store import EventStore
from croupier_services import metrics
from croupier_services.grpc_util import rpc
from croupier_services.keys import TrustedKeys

_VERDICT = {
    Verdict.PASS: audit_pb2.AUDIT_VERDICT_PASS,
    Verdict.FAIL: audit_pb2.AUDIT_VERDICT_FAIL,
    Verdict.PENDING_REVEAL: audit_pb2.AUDIT_VERDICT_PENDING_REVEAL,
}


def load_hand(store: EventStore, hand_id: str, trust: TrustedKeys | None = None) -> HandExport:
    """The hand, its shoe, its settlement, and the signed keyring ``trust`` holds (with
    ``key`` lines for the keys that sealed it). Without ``trust`` (to read a hand, not to
    prove it) the export carries no keys."""
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
    if trust is None:
        return HandExport(hand_id, hand, shoe, (), stored, None)
    trust.refresh()
    keys = keys_for(trust.registry, hand.seals + shoe.seals)
    return HandExport(hand_id, hand, shoe, keys, stored, trust.keyring)


class Auditor:
    """Audits hands from one store, verifying each seal once across a range, against the
    keyring signed by the pinned root (never the store's ``keys`` table)."""

    def __init__(self, store: EventStore, trust: TrustedKeys) -> None:
        self.store = store
        self.trust = trust
        trust.refresh(force=True)
        self.registry: KeyRegistry = trust.registry
        self.verifier = SealVerifier(self.registry)

    def audit(self, hand_id: str) -> AuditReport:
        x = load_hand(self.store, hand_id, self.trust)
        rep = audit_hand(
            hand_id, x.hand, x.shoe, self.registry, x.settlement, verifier=self.verifier
        )
        self._count(rep)
        return rep

    def audit_many(self, hand_ids: Sequence[str]) -> Iterator[AuditReport]:
        """Audit a batch of hands with a handful of queries: events, seals and
        settlements of all of them (and their shoes) are loaded together."""
        ids = list(hand_ids)
        hand_events = self.store.read_streams(ids)
        shoe_ids = sorted(
            {str(ev[0].payload.get("shoe", "")) for ev in hand_events.values() if ev} - {""}
        )
        shoe_events = self.store.read_streams(shoe_ids)
        seals = self.store.seals_for_streams([*ids, *shoe_ids])
        stored = self.store.settlements_with_postings(ids)
        for hid in ids:
            events = hand_events.get(hid, [])
            if not events:
                rep = AuditReport(hid).fail("not_found", f"no hand {hid!r}", hid, None)
            else:
                sid = str(events[0].payload.get("shoe", ""))
                st = stored.get(hid)
                rep = audit_hand(
                    hid,
                    StreamLog(tuple(events), tuple(seals.get(hid, ()))),
                    StreamLog(tuple(shoe_events.get(sid, ())), tuple(seals.get(sid, ()))),
                    self.registry,
                    StoredSettlement(bytes(st[0].record), st[1]) if st else None,
                    verifier=self.verifier,
                )
            self._count(rep)
            yield rep

    def _count(self, rep: AuditReport) -> None:
        metrics.AUDIT_HANDS.labels(rep.verdict.value).inc()
        if rep.verdict is Verdict.FAIL:
            metrics.AUDIT_MISMATCHES.inc()

    def audit_range(self, ids: Iterable[str], chunk: int = 200) -> Iterator[AuditReport]:
        batch: list[str] = []
        for hid in ids:
            batch.append(hid)
            if len(batch) >= chunk:
                yield from self.audit_many(batch)
                batch = []
        if batch:
            yield from self.audit_many(batch)

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
    def __init__(self, store: EventStore, trust: TrustedKeys) -> None:
        self.store = store
        self.trust = trust

    @rpc("VerifyHand")
    async def VerifyHand(
        self, request: audit_pb2.VerifyHandRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.VerifyHandResponse:
        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        return audit_pb2.VerifyHandResponse(
            report=report_pb(Auditor(self.store, self.trust).audit(request.hand_id))
        )

    async def VerifyRange(
        self, request: audit_pb2.VerifyRangeRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[audit_pb2.VerifyRangeResponse]:
        if request.limit < 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "limit must be >= 0")
        a = Auditor(self.store, self.trust)
        metrics.GRPC_REQUESTS.labels("VerifyRange", "OK").inc()
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
        return audit_pb2.ExportHandResponse(
            jsonl=dump(load_hand(self.store, request.hand_id, self.trust))
        )

    @rpc("GetHandHistory")
    async def GetHandHistory(
        self, request: audit_pb2.GetHandHistoryRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetHandHistoryResponse:
        from croupier_services import reporting

        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        tz = reporting.parse_tz(request.time_zone) if request.time_zone else None
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
