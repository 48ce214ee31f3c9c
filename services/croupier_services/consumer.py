"""The loop every consuming service shares, supervised so that it heals.

One pass: fetch a batch from a durable pull consumer, check each message's integrity,
let the service compute its events, commit them to SQL in one transaction *together
with the messages to publish* (the outbox, :mod:`croupier.store.outbox`), ack, and kick
the outbox relay. Nothing waits on a publish.

What can go wrong, and what the loop does:

* **transient** (NATS disconnected, a stream-leader change, a timeout, the database
  unavailable): nothing is acked, the batch is handed back (``nak`` with a delay), the
  loop backs off exponentially (up to ``max_backoff_s``, 1 s) and re-creates its
  subscription; counted in ``croupier_consumer_errors_total{consumer,kind}``. A NATS
  reconnect (the bus's ``reconnect_listeners``) ends a backoff at once, so the loop
  fetches again as soon as the client is back, not a backoff later.
* **poison** (a message that fails its checks, the rules, or that the database refuses
  for its content): copied byte-exact to the dead letters with its reason, terminated
  (never redelivered), counted in ``croupier_dead_letters_total{consumer,reason}`` and
  ``croupier_consumer_rejects_total{service,reason}``; the loop goes on.
* **unverifiable** (the message's hand is not in this replica's store: a replica
  attached to another database): the message is handed back untouched for a replica
  that can verify it, and this loop stops taking work for ``pause_s`` and says so
  (``croupier_consumer_paused``, readiness NOT_SERVING) instead of terminating real
  hands.

:attr:`ConsumerLoop.last_progress` and :attr:`ConsumerLoop.state` feed the process's
health (:mod:`croupier_services.health`): a loop that makes no progress while work is
pending turns liveness NOT_SERVING.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy.exc as sa_exc
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.js.errors import Error as JsError

from croupier import trace
from croupier.bus import wire
from croupier.bus.jetstream import Bus, Consumer, delivery_count
from croupier.bus.relay import OutboxRelay
from croupier.errors import CroupierError, IntegrityError, UnknownKey
from croupier.events import Event, Seal, SealVerifier, verify_chain
from croupier.games.base import check_producers
from croupier.store import EventStore, OutboxItem, OutboxRef
from croupier.store import outbox as ob
from croupier.upkeep import collector_paused
from croupier_services import logs, metrics
from croupier_services.keys import TrustedKeys

log = logging.getLogger("croupier.consumer")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class Work:
    """What a service made of one message: events to append (to existing streams), and
    the message to publish once committed (subject, kind, events, seals, msg id)."""

    events: list[Event]
    publish: tuple[str, str, list[Event], list[Seal], str] | None
    after_commit: Callable[[Any], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Transient(Exception):
    """A failure that is not the message's fault: retry later."""

    def __init__(self, kind: str, cause: BaseException) -> None:
        super().__init__(f"{kind}: {cause}")
        self.kind = kind


class Unverifiable(Exception):
    """This replica cannot verify the message against its own store."""


def is_transient_db(e: BaseException) -> bool:
    """Database errors that say the database is unavailable, not that the data is bad."""
    if isinstance(e, sa_exc.DBAPIError) and e.connection_invalidated:
        return True
    return isinstance(
        e,
        (
            sa_exc.OperationalError,
            sa_exc.InterfaceError,
            sa_exc.DisconnectionError,
            sa_exc.TimeoutError,
        ),
    )


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

    def check(self, m: wire.Message) -> wire.Message:
        """Verify ``m`` (chain, producers, seal coverage); returns it with its payloads
        as the chain check parsed them, so the handler does not parse them again."""
        self.trust.refresh()
        if self.trust.version != self.version:
            self.verifier = self._verifier()
        if not m.events:
            raise IntegrityError("message holds no events", reason="empty")
        stream = m.events[0].stream
        if any(e.stream != stream for e in m.events):
            raise IntegrityError("message mixes streams", reason="mixed_streams")
        payloads = verify_chain(m.events, m.payloads)  # the decoder's parse
        check_producers(m.events)
        try:
            self.verifier.check_coverage(m.events, m.seals)
        except UnknownKey:
            self.trust.refresh(force=True)
            if self.trust.version == self.version:
                raise
            self.verifier = self._verifier()
            self.verifier.check_coverage(m.events, m.seals)
        return dataclasses.replace(m, payloads=tuple(payloads))


class ConsumerLoop:
    def __init__(
        self,
        service: str,
        store: EventStore,
        bus: Bus,
        consumer: Consumer | None,
        handle: Callable[[wire.Message], Work],
        commit: Callable[[Any, Sequence[Work]], None],
        batch: int = 256,
        *,
        durable: str = "",
        filter_subject: str = "",
        relay: OutboxRelay | None = None,
        pause_s: float = 30.0,
        max_backoff_s: float = 1.0,
        fetch_wait_s: float = 1.0,
        trust: TrustedKeys,
        producer: str = "",
    ) -> None:
        self.service = service
        # whose outbox rows its messages are (the relay of that producer publishes them)
        self.producer = producer or service
        self.store = store
        self.bus = bus
        self.consumer = consumer
        self.handle = handle
        self.commit = commit
        self.batch = batch
        self.durable = durable or (consumer.durable if consumer is not None else service)
        self.filter_subject = filter_subject
        self.relay = relay
        self.pause_s = pause_s
        self.max_backoff_s = max_backoff_s
        self.fetch_wait_s = fetch_wait_s
        self.checker = IntegrityChecker(trust, service)
        # set by the bus when the client reconnects: ends a backoff at once
        self._reconnected = asyncio.Event()
        listeners = getattr(bus, "reconnect_listeners", None)
        if listeners is not None:
            listeners.append(self._reconnected.set)
        self.outbox = ob.Outbox(store.engine)
        self.processed = 0
        self.state = "starting"  # running | backoff | paused | stopped
        self.last_progress = time.monotonic()
        self.last_error = ""
        self.pending = 0  # pending + ack-pending, as last read by the health monitor
        # set by a message this replica could not verify, until it commits one it can:
        # the replica stays not ready (and paused between tries) meanwhile
        self.cannot_verify = False
        # why this service's own signing key may not sign now (revoked), or None: then
        # the loop takes no work (pauses) rather than sign with a revoked key
        self.signing_check: Callable[[], str | None] | None = None
        # export zero-valued series from the start, so alerts see the first increment
        metrics.SIGNATURE_FAILURES.labels(service)
        metrics.REDELIVERIES.labels(service)
        self._consumed = metrics.EVENTS_CONSUMED.labels(service)  # one child, looked up once
        metrics.CONSUMER_PAUSED.labels(self.durable).set(0)
        metrics.CONSUMER_STALLED.labels(self.durable).set(0)
        metrics.CONSUMER_UNVERIFIABLE.labels(self.durable)
        metrics.DEAD_LETTERS.labels(self.durable, "none")

    # -- supervision --------------------------------------------------------------
    async def _subscribe(self) -> Consumer:
        if self.consumer is None:
            if not self.filter_subject:
                raise Transient("subscribe", RuntimeError("no filter subject to subscribe"))
            self.consumer = await self.bus.consumer(self.durable, self.filter_subject)
        return self.consumer

    async def _drop_subscription(self) -> None:
        c, self.consumer = self.consumer, None
        if c is not None and self.filter_subject:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(c.close(), 2)

    async def run(self, stop: asyncio.Event) -> None:
        """Fetch and process until ``stop``; never returns on an error."""
        delay = 0.1
        failures = 0
        self.state = "running"
        while not stop.is_set():
            if self._signing_refused():
                await _sleep(stop, self.pause_s)
                continue
            try:
                consumer = await self._subscribe()
                msgs = await consumer.fetch(self.batch, timeout_s=self.fetch_wait_s)
                if msgs and self._signing_refused():  # revoked while it waited
                    await self._hand_back(msgs, 1.0)
                    await _sleep(stop, self.pause_s)
                    continue
                if msgs:
                    await self.process(msgs)
                else:
                    self.last_progress = time.monotonic()  # idle: nothing to do
                self.state, delay, failures = "running", 0.1, 0
                self._reconnected.clear()
            except asyncio.CancelledError:
                raise
            except Unverifiable as e:
                self.state = "paused"
                self.cannot_verify = True
                self.last_error = str(e)
                metrics.CONSUMER_PAUSED.labels(self.durable).set(1)
                log.error(
                    "%s: cannot verify what it receives (%s); not taking work for %.0fs",
                    self.durable,
                    e,
                    self.pause_s,
                    extra={"service": self.service, "reason": "unverifiable"},
                )
                await _sleep(stop, self.pause_s)
            except Exception as e:
                kind = e.kind if isinstance(e, Transient) else _kind(e)
                self.state, self.last_error = "backoff", f"{kind}: {e}"
                metrics.CONSUMER_ERRORS.labels(self.durable, kind).inc()
                failures += 1
                log.warning(
                    "%s: %s (%s); retrying in %.2fs",
                    self.durable,
                    kind,
                    e,
                    delay,
                    extra={"service": self.service, "reason": kind},
                )
                if kind in ("nats", "timeout") and failures >= 3:
                    # the client re-subscribes by itself after a reconnect; a
                    # subscription that keeps failing is made again
                    await self._drop_subscription()
                if await _sleep_or(stop, self._reconnected, delay):
                    # back online: fetch now, and back off from the start again
                    self._reconnected.clear()
                    delay = 0.1
                else:
                    delay = min(self.max_backoff_s, delay * 2)
        self.state = "stopped"

    def _signing_refused(self) -> bool:
        """True (paused, counted, logged) while this service's own key is revoked."""
        why = self.signing_check() if self.signing_check is not None else None
        if why is None:
            return False
        self.state, self.last_error = "paused", why
        metrics.CONSUMER_PAUSED.labels(self.durable).set(1)
        metrics.SIGNING_KEY_REFUSALS.labels(self.service).inc()
        log.error(
            "%s: %s; taking no work for %.0fs",
            self.durable,
            why,
            self.pause_s,
            extra={"service": self.service, "reason": "signing_key_revoked"},
        )
        return True

    # -- one batch ---------------------------------------------------------------
    def _decode(self, msgs: Sequence[Msg]) -> tuple[dict[int, wire.Message | Exception], set[str]]:
        """Each message decoded (or the error that refuses it), and which of their hands
        this replica's store holds — one query for the whole batch. A hand it does not
        hold is in another store (a message about no hand at all is refused later)."""
        decoded: dict[int, wire.Message | Exception] = {}
        for msg in msgs:
            try:
                decoded[id(msg)] = wire.decode(msg.data)
            except Exception as e:  # raised again in the message's turn, as if decoded there
                decoded[id(msg)] = e
        hands = [
            m.events[0].stream for m in decoded.values() if isinstance(m, wire.Message) and m.events
        ]
        try:
            known = self.store.known_streams(hands) if hands else set()
        except Exception as e:
            if is_transient_db(e):
                raise Transient("database", e) from e
            raise
        return decoded, known

    async def _dead_letter(self, msg: Msg, reason: str, detail: str) -> None:
        try:
            self.outbox.put_dead_letter(
                self.durable,
                _printable(msg.subject),
                _printable(reason),
                _printable(detail),
                bytes(msg.data),
                delivery_count(msg),
                now_ms(),
            )
        except Exception as e:
            if is_transient_db(e):
                raise Transient("database", e) from e
            # never let a message that cannot even be kept stop the loop
            log.exception("%s: could not keep a dead letter of %s", self.durable, msg.subject)
        metrics.DEAD_LETTERS.labels(self.durable, reason).inc()
        metrics.CONSUMER_REJECTS.labels(self.service, reason).inc()
        log.warning(
            "%s terminated %s: %s: %s",
            self.service,
            msg.subject,
            reason,
            detail[:500],
            extra={"service": self.service, "subject": msg.subject, "reason": reason},
        )
        await msg.term()

    async def _reject(self, msg: Msg, err: CroupierError) -> None:
        if isinstance(err, IntegrityError):
            metrics.SIGNATURE_FAILURES.labels(self.service).inc()
        await self._dead_letter(msg, err.reason, err.message)

    async def _hand_back(self, msgs: Sequence[Msg], delay_s: float) -> None:
        for msg in msgs:
            with contextlib.suppress(Exception):
                await msg.nak(delay=delay_s)

    async def process(self, msgs: list[Msg]) -> None:
        try:
            with collector_paused():  # the batch is alive until it commits: no garbage
                await self._process(msgs)
        except Transient:
            await self._hand_back(msgs, 1.0)
            raise

    async def _process(self, msgs: list[Msg]) -> None:
        good: list[tuple[Msg, Work]] = []
        done: set[int] = set()
        decoded, known = self._decode(msgs)
        for msg in msgs:
            if delivery_count(msg) > 1:
                metrics.REDELIVERIES.labels(self.service).inc()
            logs.set_ids()  # nothing of the previous message
            try:
                m = decoded[id(msg)]
                if isinstance(m, Exception):
                    raise m
                hand_id = m.events[0].stream if m.events else None
                logs.set_ids(
                    hand_id=hand_id,
                    table_id=_table_of(msg.subject),
                    # the hand's trace: from the message's traceparent, else derived
                    trace_id=logs.trace_id_of(
                        (getattr(msg, "headers", None) or {}).get("traceparent")
                    )
                    or (trace.hand_trace_id(hand_id) if hand_id else None),
                )
                if m.events and hand_id not in known:
                    metrics.CONSUMER_UNVERIFIABLE.labels(self.durable).inc()
                    raise Unverifiable(f"hand {m.events[0].stream} is not in this store")
                m = self.checker.check(m)
                work = self.handle(m)
                self._consumed.inc(len(m.events))
            except Unverifiable:
                # hand back everything not yet settled in this batch
                await self._hand_back([x for x in msgs if id(x) not in done], 1.0)
                raise
            except CroupierError as e:
                await self._reject(msg, e)
                done.add(id(msg))
                continue
            except Exception as e:
                if is_transient_db(e):
                    raise Transient("database", e) from e
                await self._dead_letter(msg, "unexpected_error", f"{type(e).__name__}: {e}")
                done.add(id(msg))
                continue
            good.append((msg, work))
            done.add(id(msg))
        logs.set_ids()  # the batch's commit is no one hand's
        if not good:
            self.last_progress = time.monotonic()
            return
        try:
            self._commit([w for _, w in good])
        except Exception as e:
            if is_transient_db(e):
                raise Transient("database", e) from e
            # one bad hand in the batch: retry one by one, terminating the bad ones
            kept = []
            for msg, w in good:
                try:
                    self._commit([w])
                    kept.append((msg, w))
                except CroupierError as e1:
                    await self._reject(msg, e1)
                except Exception as e1:
                    if is_transient_db(e1):
                        raise Transient("database", e1) from e1
                    await self._dead_letter(msg, "store_refused", f"{type(e1).__name__}: {e1}")
            good = kept
        for msg, _ in good:  # each into the client's write buffer: nothing to wait for
            await msg.ack()  # (a task each, as gather made them, cost more than the ack)
        if good and self.cannot_verify:
            self.cannot_verify = False
            metrics.CONSUMER_PAUSED.labels(self.durable).set(0)
        self.processed += len(good)
        self.last_progress = time.monotonic()
        if self.relay is not None:
            self.relay.kick()

    def _commit(self, works: Sequence[Work]) -> None:
        """The batch's effects and its messages in one transaction; the messages by
        reference to what it stores, their bytes held by the relay (when it has room).
        The same transaction deletes the outbox rows the relay published since."""
        with contextlib.ExitStack() as stack, self.store.transaction() as tx:
            self.commit(tx, works)
            items = [
                OutboxItem(
                    self.producer,
                    subj,
                    mid,
                    wire.encode(kind, evs, seals),
                    OutboxRef.of(kind, evs, seals),
                )
                for w in works
                if w.publish is not None
                for subj, kind, evs, seals, mid in [w.publish]
            ]
            held: frozenset[str] = frozenset()
            if self.relay is not None:  # given up again if the commit fails
                held = stack.enter_context(self.relay.held.holding(items))
                if self.relay.acked is not None:  # what it published: deleted here
                    ob.delete(tx.connection, stack.enter_context(self.relay.acked.riding()))
            ob.enqueue(tx.connection, items, now_ms(), held)
        n = sum(len(w.publish[2]) for w in works if w.publish is not None)
        if n:
            metrics.EVENTS_PUBLISHED.labels(self.service).inc(n)
        for w in works:
            if w.after_commit is not None:
                w.after_commit(w)


def _table_of(subject: str) -> str | None:
    """The table id of a ``<prefix>.<kind>.<variant>.<table>`` subject."""
    parts = subject.split(".", 3)
    return parts[3] if len(parts) == 4 else None


def _printable(text: str) -> str:
    """Text a database column accepts: control characters (a NUL, say) escaped."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" for c in text)


def _kind(e: BaseException) -> str:
    if is_transient_db(e):
        return "database"
    if isinstance(e, (TimeoutError, asyncio.TimeoutError)):
        return "timeout"
    if isinstance(e, (NatsError, JsError, ConnectionError, OSError)):
        return "nats"
    return "unexpected"


async def _sleep(stop: asyncio.Event, s: float) -> None:
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(stop.wait(), s)


async def _sleep_or(stop: asyncio.Event, wake: asyncio.Event, s: float) -> bool:
    """Sleep ``s`` seconds, less if ``stop`` or ``wake`` is set; True when ``wake``
    ended it."""
    if wake.is_set():
        return True
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waits, timeout=s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
    return wake.is_set() and not stop.is_set()
