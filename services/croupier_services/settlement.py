"""The settlement service: for each hand with an outcome, replay it, check the outcome,
settle it through the money kernel, and write — in one database transaction — the
signed ``hand.settled`` event, one balanced ledger transaction (idempotent on the hand
id) and the settlement record that explains every step. Also serves settlement queries
over gRPC."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import grpc

from croupier import canonical, trace
from croupier.bus import subjects, wire
from croupier.bus.jetstream import Bus
from croupier.bus.relay import OutboxRelay
from croupier.errors import InvalidInput, RuleViolation
from croupier.events import Event, Seal, heads_of, make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.pb.croupier.v1 import settlement_pb2, settlement_pb2_grpc
from croupier.settlement import HandSettlement, settle_state
from croupier.signing import Signer
from croupier.store import EventStore, LedgerTx, Posting, Settlement
from croupier_services import logs, metrics
from croupier_services.consumer import ConsumerLoop, Work
from croupier_services.grpc_util import rpc
from croupier_services.keys import TrustedKeys
from croupier_services.outboxes import relay_for

DURABLE = "settlement"


log = logging.getLogger("croupier.settlement")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class SettlementWorker:
    def __init__(self, store: EventStore, bus: Bus, signer: Signer, *, trust: TrustedKeys) -> None:
        if signer.producer != "settlement":
            raise ValueError("the settlement service signs as 'settlement'")
        self.store, self.bus, self.signer, self.trust = store, bus, signer, trust
        self.relay: OutboxRelay = relay_for(store, lambda: self.bus, "settlement")

    def handle(self, m: wire.Message) -> Work:
        first, last = m.events[0], m.events[-1]
        if first.type != g.HAND_OPENED or last.type != g.HAND_OUTCOME:
            raise RuleViolation("expected a hand ending in hand.outcome", reason="no_outcome")
        payloads = m.parsed_payloads()  # parsed once, by the chain check
        variant, table = str(payloads[0]["variant"]), str(payloads[0]["table"])
        eng = engine_for(variant)
        state = eng.replay(
            first.stream, [(e.type, p) for e, p in zip(m.events, payloads, strict=True)]
        )
        eng.close_check(state)
        if canonical.dumps(eng.outcome(state), check=False) != last.payload_bytes:
            raise RuleViolation("outcome differs from the replay", reason="outcome_mismatch")
        return self.settle(eng, state, last, variant, table, m.seals)

    def settle(
        self,
        eng: g.Engine[Any],
        state: Any,
        outcome: Event,
        variant: str,
        table: str,
        seals: Sequence[Seal],
    ) -> Work:
        """The work of settling a replayed hand whose ``hand.outcome`` event is
        ``outcome``: the signed ``hand.settled`` after it, and the ``settled`` message.
        ``seals`` are the message's, the dealer's among them dating the hand's close."""
        hs = settle_state(eng, state)
        ev = make_event(
            outcome.stream,
            outcome.seq + 1,
            g.HAND_SETTLED,
            self.signer.producer,
            self.signer.key_id,
            outcome.hash,
            hs.settled_payload(),
        )
        closed_at = max((s.sealed_at_ms for s in seals if s.producer == "dealer"), default=now_ms())
        return Work(
            events=[ev],
            publish=(
                subjects.subject("settled", variant, table),
                "settled",
                [outcome, ev],
                [],
                f"settled:{outcome.stream}",
            ),
            after_commit=self._count,
            extra={"hs": hs, "table": table, "closed_at": closed_at},
        )

    def commit(self, tx: Any, works: Sequence[Work], prior: Sequence[Seal] = ()) -> None:
        """Append the batch's events (``hand.settled`` last in each work; in the one-pass
        stage the rule service's ``hand.outcome`` before it, covered by a seal of
        ``prior``) under one seal of its own, post the ledger and store the records."""
        events = [e for w in works for e in w.events]
        at = now_ms()
        s = seal(self.signer, heads_of([w.events[-1] for w in works]), at)
        tx.append(events, [*prior, s])
        # One lookup, one ledger insert and one settlements insert for the whole
        # batch; each is idempotent on the hand id, so a redelivered hand (in this batch
        # or an earlier one) settles exactly once. If the batch is refused, the consumer
        # loop commits its messages one by one and dead-letters only the bad one.
        settled = [w.extra["hs"] for w in works]
        stored = tx.get_settlements([hs.hand_id for hs in settled])
        seen: set[str] = set(stored)
        for w, hs in zip(works, settled, strict=True):
            w.extra["new"] = hs.hand_id not in seen  # a redelivery: counted once
            seen.add(hs.hand_id)
        tx_ids = tx.post_many(
            [
                LedgerTx(
                    idempotency_key=hs.idempotency_key,
                    hand_id=hs.hand_id,
                    postings=tuple(Posting(a, n) for a, n in hs.postings),
                    memo={"variant": hs.variant, "record_hash": hs.record_hash},
                )
                for hs in settled
            ],
            at_ms=at,
        )
        tx.put_settlements(
            [
                Settlement(
                    hand_id=hs.hand_id,
                    variant=hs.variant,
                    table_id=w.extra["table"],
                    tx_id=tx_id,
                    record=hs.record_bytes,
                    record_hash=bytes.fromhex(hs.record_hash),
                    settled_at_ms=at,
                )
                for w, hs, tx_id in zip(works, settled, tx_ids, strict=True)
            ]
        )
        for w in works:
            assert w.publish is not None
            subj, kind, evs, _, mid = w.publish
            w.publish = (subj, kind, evs, [s], mid)

    def _count(self, w: Work) -> None:
        if not w.extra.get("new", True):
            return
        hs: HandSettlement = w.extra["hs"]
        m = metrics.settled_children(hs.variant)
        m.hands.inc()
        m.latency.observe(max(0.0, (now_ms() - int(w.extra["closed_at"])) / 1000))
        m.rake.inc(hs.rake)
        m.bets.inc(hs.staked)
        m.payout.inc(hs.returned)
        if hs.pvp_turnover is not None:
            m.pvp_turnover.inc(hs.pvp_turnover)
        with logs.bind(
            hand_id=hs.hand_id,
            table_id=str(w.extra["table"]),
            trace_id=trace.hand_trace_id(hs.hand_id),
        ):
            log.info(
                "hand settled",
                extra={"variant": hs.variant, "rake": hs.rake, "record_hash": hs.record_hash},
            )

    async def loop(self, batch: int = 256, *, subscribe: bool = True) -> ConsumerLoop:
        filt = subjects.filter_for("outcome")
        c = await self.bus.consumer(DURABLE, filt) if subscribe else None
        return ConsumerLoop(
            "settlement",
            self.store,
            self.bus,
            c,
            self.handle,
            self.commit,
            batch,
            durable=DURABLE,
            filter_subject=filt,
            relay=self.relay,
            trust=self.trust,
        )


class SettlementServicer(settlement_pb2_grpc.SettlementServiceServicer):
    def __init__(self, store: EventStore) -> None:
        self.store = store

    def _pb(self, row: Any) -> settlement_pb2.Settlement:
        postings = self.store.postings(row.tx_id)
        record = json.loads(row.record)
        return settlement_pb2.Settlement(
            hand_id=row.hand_id,
            variant=row.variant,
            table_id=row.table_id,
            record_json=row.record.decode(),
            deltas=[
                settlement_pb2.Delta(account=p.account, amount_minor=p.amount) for p in postings
            ],
            rake_minor=int(record.get("total_rake", 0)),
            tx_id=str(row.tx_id),
            settled_at_ms=row.settled_at_ms,
        )

    @rpc("GetSettlement")
    async def GetSettlement(
        self, request: settlement_pb2.GetSettlementRequest, context: grpc.aio.ServicerContext
    ) -> settlement_pb2.GetSettlementResponse:
        if not request.hand_id:
            raise InvalidInput("hand_id is required")
        return settlement_pb2.GetSettlementResponse(
            settlement=self._pb(self.store.get_settlement(request.hand_id))
        )

    @rpc("ListSettlements")
    async def ListSettlements(
        self, request: settlement_pb2.ListSettlementsRequest, context: grpc.aio.ServicerContext
    ) -> settlement_pb2.ListSettlementsResponse:
        size = request.page_size or 100
        if not 1 <= size <= 1000:
            raise InvalidInput("page_size must be 1..1000")
        rows = self.store.list_settlements(
            variant=request.variant or None,
            table_id=request.table_id or None,
            limit=size,
            after_hand_id=request.page_token or None,
        )
        return settlement_pb2.ListSettlementsResponse(
            settlements=[self._pb(r) for r in rows],
            next_page_token=rows[-1].hand_id if len(rows) == size else "",
        )

    @rpc("GetRakeSummary")
    async def GetRakeSummary(
        self, request: settlement_pb2.GetRakeSummaryRequest, context: grpc.aio.ServicerContext
    ) -> settlement_pb2.GetRakeSummaryResponse:
        since, until = request.since_ms or None, request.until_ms or None
        rake = {
            r.variant: r.total
            for r in self.store.rake_summary(
                variant=request.variant or None, since_ms=since, until_ms=until
            )
        }
        hands = self.store.settlement_counts(since, until)
        names = sorted(set(rake) | set(hands))
        if request.variant:
            names = [n for n in names if n == request.variant]
        return settlement_pb2.GetRakeSummaryResponse(
            lines=[
                settlement_pb2.RakeLine(variant=v, rake_minor=rake.get(v, 0), hands=hands.get(v, 0))
                for v in names
            ]
        )

    @rpc("GetBalance")
    async def GetBalance(
        self, request: settlement_pb2.GetBalanceRequest, context: grpc.aio.ServicerContext
    ) -> settlement_pb2.GetBalanceResponse:
        if not request.account:
            raise InvalidInput("account is required")
        return settlement_pb2.GetBalanceResponse(
            account=request.account, balance_minor=self.store.balance(request.account)
        )
