"""The loop every consuming service shares: fetch a batch from a durable pull consumer,
check each message's integrity, let the service compute its events, commit them to SQL
in one transaction, publish the results, then ack. A message that fails its checks is
terminated (never redelivered), logged and counted with its reason; nothing of it is
written. A batch whose commit fails is retried message by message so one bad hand cannot
block the others."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nats.aio.msg import Msg

from croupier.bus import wire
from croupier.bus.jetstream import Bus, Consumer, delivery_count
from croupier.errors import CroupierError, IntegrityError, UnknownKey
from croupier.events import Event, Seal, SealVerifier, verify_chain
from croupier.games.base import check_producers
from croupier.store import EventStore
from croupier_services import metrics
from croupier_services.keys import TrustedKeys, now_ms

log = logging.getLogger("croupier.consumer")


@dataclass
class Work:
    """What a service made of one message: events to append (to existing streams), and
    the message to publish once committed (subject, kind, events, seals, msg id)."""

    events: list[Event]
    publish: tuple[str, str, list[Event], list[Seal], str] | None
    after_commit: Callable[[Any], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class IntegrityChecker:
    """Chain and seal checks against the keyring the service trusts (signed by the pinned
    root; reloaded when it changes, and at once on a key it does not know). Key validity
    is judged at the time of receipt, never by the date a seal carries: a seal from a
    revoked key is refused however it is dated."""

    def __init__(
        self, trust: TrustedKeys, service: str, clock_ms: Callable[[], int] = now_ms
    ) -> None:
        self.trust = trust
        self.service = service
        self.clock_ms = clock_ms
        self.verifier = self._verifier()

    def _verifier(self) -> SealVerifier:
        self.version = self.trust.version
        return SealVerifier(self.trust.registry, seen_at=lambda _seal: self.clock_ms())

    def check(self, m: wire.Message) -> None:
        self.trust.refresh()
        if self.trust.version != self.version:
            self.verifier = self._verifier()
        if not m.events:
            raise IntegrityError("message holds no events", reason="empty")
        stream = m.events[0].stream
        if any(e.stream != stream for e in m.events):
            raise IntegrityError("message mixes streams", reason="mixed_streams")
        verify_chain(m.events)
        check_producers(m.events)
        try:
            self.verifier.check_coverage(m.events, m.seals)
        except UnknownKey:
            self.trust.refresh(force=True)
            if self.trust.version == self.version:
                raise
            self.verifier = self._verifier()
            self.verifier.check_coverage(m.events, m.seals)


class ConsumerLoop:
    def __init__(
        self,
        service: str,
        store: EventStore,
        bus: Bus,
        consumer: Consumer,
        handle: Callable[[wire.Message], Work],
        commit: Callable[[Any, Sequence[Work]], None],
        batch: int = 256,
        *,
        trust: TrustedKeys,
    ) -> None:
        self.service = service
        self.store = store
        self.bus = bus
        self.consumer = consumer
        self.handle = handle
        self.commit = commit
        self.batch = batch
        self.checker = IntegrityChecker(trust, service)
        self.processed = 0
        # export zero-valued series from the start, so alerts see the first increment
        metrics.SIGNATURE_FAILURES.labels(service)
        metrics.REDELIVERIES.labels(service)
        metrics.EVENTS_CONSUMED.labels(service)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            msgs = await self.consumer.fetch(self.batch, timeout_s=0.25)
            if msgs:
                await self.process(msgs)

    def _reject(self, msg: Msg, err: CroupierError) -> None:
        if isinstance(err, IntegrityError):
            metrics.SIGNATURE_FAILURES.labels(self.service).inc()
        metrics.CONSUMER_REJECTS.labels(self.service, err.reason).inc()
        log.warning(
            "%s rejected %s: %s: %s",
            self.service,
            msg.subject,
            err.reason,
            err.message,
            extra={"service": self.service, "subject": msg.subject, "reason": err.reason},
        )

    async def process(self, msgs: list[Msg]) -> None:
        good: list[tuple[Msg, Work]] = []
        for msg in msgs:
            if delivery_count(msg) > 1:
                metrics.REDELIVERIES.labels(self.service).inc()
            try:
                m = wire.decode(msg.data)
                self.checker.check(m)
                work = self.handle(m)
                metrics.EVENTS_CONSUMED.labels(self.service).inc(len(m.events))
            except CroupierError as e:
                self._reject(msg, e)
                await msg.term()
                continue
            good.append((msg, work))
        if not good:
            return
        try:
            self._commit([w for _, w in good])
        except CroupierError:
            # one bad hand in the batch: retry one by one, terminating the bad ones
            for msg, w in good:
                try:
                    self._commit([w])
                except CroupierError as e:
                    self._reject(msg, e)
                    await msg.term()
                    good = [(m2, w2) for m2, w2 in good if m2 is not msg]
        pubs = [w.publish for _, w in good if w.publish is not None]
        if pubs:
            await self.bus.publish_many(
                [(subj, wire.encode(kind, evs, seals), mid) for subj, kind, evs, seals, mid in pubs]
            )
            metrics.EVENTS_PUBLISHED.labels(self.service).inc(sum(len(p[2]) for p in pubs))
        await asyncio.gather(*(msg.ack() for msg, _ in good))
        self.processed += len(good)

    def _commit(self, works: Sequence[Work]) -> None:
        with self.store.transaction() as tx:
            self.commit(tx, works)
        for w in works:
            if w.after_commit is not None:
                w.after_commit(w)
