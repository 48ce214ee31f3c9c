"""JetStream adapter: stream and consumer set-up from settings, deduplicated publishing,
durable pull consumers.

Delivery contract used by every service: fetch a batch, do the work, commit to SQL
(with the messages to publish, in the outbox: :mod:`croupier.store.outbox`), then ack.
A crash between commit and ack redelivers; consumers are idempotent by hand id so a
redelivery never has a second effect. Publishes carry a deterministic ``Nats-Msg-Id`` so
a retried publish inside the duplicate window is dropped by the server.

Operating the stream: :meth:`Bus.ensure_stream` and :meth:`Bus.ensure_consumer` create
what is missing and *verify* what exists — a difference from the settings is returned
and logged as a warning, never applied (an operator's ``max_age``, ``max_bytes`` or
replica count is never reset by a service starting). :meth:`Bus.provision` applies the
settings on purpose (``croupier nats provision``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import NoServersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    DiscardPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import NotFoundError

from croupier import trace
from croupier.bus import subjects
from croupier.errors import BusUnavailable, InvalidInput
from croupier.urls import mask_url

log = logging.getLogger("croupier.bus")

FIRST_CONNECT_S = 10.0
"""How long :meth:`Bus.connect` tries the servers before it raises
:class:`~croupier.errors.BusUnavailable` (after the first connect the client retries
forever on its own)."""


def headers_for(msg_id: str) -> dict[str, str]:
    """The headers of a published message: its deduplication id and, for a message of
    a hand, the W3C ``traceparent`` of the hand's trace (:mod:`croupier.trace`)."""
    h = {"Nats-Msg-Id": msg_id}
    tp = trace.traceparent_for_message(msg_id)
    if tp is not None:
        h["traceparent"] = tp
    return h


def server_list(url: str) -> list[str]:
    """``CROUPIER_NATS_URL`` as a list of servers: a comma-separated list of URLs."""
    servers = [u.strip() for u in url.split(",") if u.strip()]
    if not servers:
        raise InvalidInput("no NATS server given")
    return servers


@dataclass(frozen=True)
class StreamSpec:
    """The ``CROUPIER`` stream's settings (0 or -1 mean unlimited, as in JetStream)."""

    replicas: int = 1
    max_age_s: float = 0.0
    max_bytes: int = -1
    discard: str = "new"  # "new": refuse publishes when full (the outbox keeps them)
    duplicate_window_s: float = 120.0

    def __post_init__(self) -> None:
        if not 1 <= self.replicas <= 5:
            raise InvalidInput("stream replicas must be 1..5")
        if self.discard not in ("new", "old"):
            raise InvalidInput("stream discard policy must be 'new' or 'old'")
        if self.duplicate_window_s <= 0:
            raise InvalidInput("the duplicate window must be positive")

    def config(self) -> StreamConfig:
        return StreamConfig(
            name=subjects.STREAM,
            subjects=[f"{subjects.PREFIX}.>"],
            storage=StorageType.FILE,
            num_replicas=self.replicas,
            max_age=self.max_age_s,
            max_bytes=self.max_bytes,
            discard=DiscardPolicy.NEW if self.discard == "new" else DiscardPolicy.OLD,
            duplicate_window=self.duplicate_window_s,
        )

    def differences(self, have: StreamConfig) -> list[str]:
        want = self.config()
        out = []
        for name in ("num_replicas", "max_age", "max_bytes", "discard", "duplicate_window"):
            a, b = getattr(have, name), getattr(want, name)
            a = _norm(name, a)
            b = _norm(name, b)
            if a != b:
                out.append(f"{name}: stream has {a!r}, settings say {b!r}")
        if sorted(have.subjects or []) != sorted(want.subjects or []):
            out.append(f"subjects: stream has {have.subjects!r}, settings say {want.subjects!r}")
        return out


@dataclass(frozen=True)
class ConsumerSpec:
    """Settings of every durable consumer (``max_deliver`` -1: unlimited; the loops
    terminate poison themselves, so a bound would only drop real hands during a long
    outage)."""

    ack_wait_s: float = 10.0
    max_deliver: int = -1
    backoff_s: tuple[float, ...] = ()
    max_ack_pending: int = 20_000

    def __post_init__(self) -> None:
        if self.ack_wait_s <= 0:
            raise InvalidInput("ack_wait must be positive")
        if self.backoff_s and 0 < self.max_deliver <= len(self.backoff_s):
            raise InvalidInput("max_deliver must exceed the number of backoff steps")

    def config(self, durable: str, filter_subject: str) -> ConsumerConfig:
        return ConsumerConfig(
            durable_name=durable,
            ack_policy=AckPolicy.EXPLICIT,
            deliver_policy=DeliverPolicy.ALL,
            filter_subject=filter_subject,
            ack_wait=self.ack_wait_s,
            max_ack_pending=self.max_ack_pending,
            max_deliver=self.max_deliver,
            backoff=list(self.backoff_s) or None,
        )

    def differences(self, have: ConsumerConfig, filter_subject: str) -> list[str]:
        want = self.config(have.durable_name or "", filter_subject)
        if self.backoff_s:  # the server takes the first backoff step as ack_wait
            want.ack_wait = self.backoff_s[0]
        out = []
        for name in ("filter_subject", "ack_wait", "max_deliver", "max_ack_pending", "backoff"):
            a, b = _norm(name, getattr(have, name)), _norm(name, getattr(want, name))
            if a != b:
                out.append(f"{name}: consumer has {a!r}, settings say {b!r}")
        return out


def _norm(name: str, v: Any) -> Any:
    """Server defaults and client ``None`` compare equal."""
    if name in ("max_age", "duplicate_window", "ack_wait"):
        return round(float(v or 0), 3)
    if name in ("max_bytes", "max_deliver"):
        return -1 if v in (None, 0, -1) else int(v)
    if name == "num_replicas":
        return int(v or 1)
    if name == "discard":
        return str(getattr(v, "value", v) or "old")
    if name == "backoff":
        return [round(float(x), 3) for x in (v or [])]
    return v


@dataclass
class Bus:
    nc: Client
    js: JetStreamContext
    stream: StreamSpec = field(default_factory=StreamSpec)
    consumers: ConsumerSpec = field(default_factory=ConsumerSpec)
    reconnect_listeners: list[Callable[[], None]] = field(default_factory=list)
    """Called (no arguments, must not block) each time the client reconnects: the
    outbox relays retry at once instead of waiting out a backoff."""

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        name: str = "croupier",
        stream: StreamSpec | None = None,
        consumers: ConsumerSpec | None = None,
        connect_timeout_s: float = 2.0,
        first_connect_s: float | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> Bus:
        """Connect to any of the servers of ``url`` (comma-separated); the client
        reconnects on its own, forever, after a disconnect. Credentials go in the URL
        (``tls://user:password@host:4222``), the TLS context (CA) in ``tls``.

        The first connect tries the servers in turn (each try bounded by
        ``connect_timeout_s``) for at most ``first_connect_s`` (default
        :data:`FIRST_CONNECT_S`), then raises
        :class:`BusUnavailable` naming the last reason: the client's own retry loop never
        gives up while its reconnect attempts are unlimited, so without the deadline a
        caller would wait forever for a server that is down (and a service could not
        be stopped meanwhile: :meth:`connect_retrying`)."""

        async def on_error(e: Exception) -> None:
            log.warning("nats: %s", e)

        async def on_disconnect() -> None:
            log.warning("nats: disconnected")

        listeners: list[Callable[[], None]] = []

        async def on_reconnect() -> None:
            log.info("nats: reconnected")
            for cb in list(listeners):
                try:
                    cb()
                except Exception:  # one listener never stops the others
                    log.exception("nats: reconnect listener failed")

        # (the client's annotations say int for the two timeouts; it takes seconds as float)
        options: dict[str, Any] = {
            "reconnect_time_wait": 0.5,
            "connect_timeout": connect_timeout_s,
        }
        nc = Client()
        connecting = nc.connect(
            servers=server_list(url),
            name=name,
            max_reconnect_attempts=-1,
            ping_interval=5,
            max_outstanding_pings=2,
            error_cb=on_error,
            disconnected_cb=on_disconnect,
            reconnected_cb=on_reconnect,
            tls=tls,
            **options,
        )
        deadline_s = FIRST_CONNECT_S if first_connect_s is None else first_connect_s
        try:
            await asyncio.wait_for(connecting, deadline_s)
        except BaseException as e:  # out of time, or the caller gave up (cancelled)
            last = nc.last_error
            with contextlib.suppress(Exception):
                await nc.close()
            if not isinstance(e, TimeoutError):
                raise
            raise BusUnavailable(
                f"no NATS server of {mask_url(url)} answered within {deadline_s:g}s"
                + (f" (last: {last})" if last is not None else "")
            ) from e
        return cls(
            nc,
            nc.jetstream(timeout=5),
            stream or StreamSpec(),
            consumers or ConsumerSpec(),
            reconnect_listeners=listeners,
        )

    @classmethod
    async def connect_retrying(
        cls,
        url: str,
        stop: asyncio.Event,
        *,
        name: str = "croupier",
        stream: StreamSpec | None = None,
        consumers: ConsumerSpec | None = None,
        max_backoff_s: float = 5.0,
        tls: ssl.SSLContext | None = None,
    ) -> Bus | None:
        """:meth:`connect`, retried with backoff until it succeeds or ``stop`` is set
        (then ``None``, at once, even in the middle of a try): a service starts while
        NATS is down, joins when it is up, and stops when told to meanwhile."""
        delay = 0.2
        stopping = asyncio.ensure_future(stop.wait())
        trying: asyncio.Future[Bus] | None = None
        try:
            while not stop.is_set():
                trying = asyncio.ensure_future(
                    cls.connect(url, name=name, stream=stream, consumers=consumers, tls=tls)
                )
                await asyncio.wait({trying, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not trying.done():  # told to stop while trying
                    trying.cancel()
                    with contextlib.suppress(BaseException):
                        await trying
                    return None
                try:
                    return trying.result()
                except (BusUnavailable, NoServersError, OSError, TimeoutError, NatsTimeout) as e:
                    log.warning(
                        "nats %s unreachable (%s); retrying in %.1fs", mask_url(url), e, delay
                    )
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(stopping), delay)
                delay = min(max_backoff_s, delay * 2)
            return None
        finally:  # nothing left running (also when the caller is cancelled)
            stopping.cancel()
            if trying is not None and not trying.done():
                trying.cancel()

    @property
    def connected(self) -> bool:
        return bool(self.nc.is_connected)

    async def ensure_stream(self, *, duplicate_window_s: float | None = None) -> list[str]:
        """Create the stream if missing; if it exists, return (and log) how it differs
        from the settings without changing it."""
        spec = self.stream
        if duplicate_window_s is not None:
            spec = StreamSpec(
                spec.replicas, spec.max_age_s, spec.max_bytes, spec.discard, duplicate_window_s
            )
        try:
            info = await self.js.stream_info(subjects.STREAM)
        except NotFoundError:
            await self.js.add_stream(spec.config())
            log.info("created stream %s (R%d)", subjects.STREAM, spec.replicas)
            return []
        diffs = spec.differences(info.config)
        for d in diffs:
            log.warning(
                "stream %s differs from the settings (not changed; run `croupier nats "
                "provision` to apply): %s",
                subjects.STREAM,
                d,
            )
        return diffs

    async def ensure_consumer(self, durable: str, filter_subject: str) -> list[str]:
        """Create a durable consumer if missing; verify (and warn on) an existing one."""
        try:
            info = await self.js.consumer_info(subjects.STREAM, durable)
        except NotFoundError:
            await self.js.add_consumer(
                subjects.STREAM, config=self.consumers.config(durable, filter_subject)
            )
            return []
        diffs = self.consumers.differences(info.config, filter_subject)
        for d in diffs:
            log.warning("consumer %s differs from the settings (not changed): %s", durable, d)
        return diffs

    async def provision(self, durables: Sequence[tuple[str, str]]) -> list[str]:
        """Apply the settings to the stream and to the given consumers
        ``(durable, filter)``, creating what is missing. Returns what changed."""
        changed: list[str] = []
        try:
            info = await self.js.stream_info(subjects.STREAM)
            diffs = self.stream.differences(info.config)
            if diffs:
                await self.js.update_stream(self.stream.config())
                changed += [f"stream {d}" for d in diffs]
        except NotFoundError:
            await self.js.add_stream(self.stream.config())
            changed.append(f"stream {subjects.STREAM} created")
        for durable, filt in durables:
            try:
                cinfo = await self.js.consumer_info(subjects.STREAM, durable)
                diffs = self.consumers.differences(cinfo.config, filt)
                if not diffs:
                    continue
                changed += [f"consumer {durable} {d}" for d in diffs]
            except NotFoundError:
                changed.append(f"consumer {durable} created")
            # the server creates, or updates in place, a consumer of the same name
            await self.js.add_consumer(subjects.STREAM, config=self.consumers.config(durable, filt))
        return changed

    async def publish(self, subject: str, data: bytes, msg_id: str) -> bool:
        """Publish and wait for the stream's ack. Returns False for a duplicate."""
        ack = await self.js.publish(subject, data, headers=headers_for(msg_id))
        return not ack.duplicate

    async def publish_many(self, items: Sequence[tuple[str, bytes, str]]) -> int:
        """Publish concurrently; returns how many were new (not duplicates)."""
        acks = await asyncio.gather(
            *(self.js.publish(s, d, headers=headers_for(m)) for s, d, m in items)
        )
        return sum(0 if a.duplicate else 1 for a in acks)

    async def publish_each(
        self, items: Sequence[tuple[str, bytes, str]], timeout_s: float = 5.0
    ) -> list[bool]:
        """Publish concurrently; for each item, whether the stream acknowledged it
        (new or duplicate). Failures are returned, not raised."""
        res = await asyncio.gather(
            *(
                self.js.publish(s, d, timeout=timeout_s, headers=headers_for(m))
                for s, d, m in items
            ),
            return_exceptions=True,
        )
        return [not isinstance(r, BaseException) for r in res]

    async def consumer(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait_s: float | None = None,
        max_ack_pending: int | None = None,
    ) -> Consumer:
        """Ensure the durable consumer (see :meth:`ensure_consumer`) and bind a pull
        subscription to it."""
        if ack_wait_s is not None or max_ack_pending is not None:
            c = self.consumers
            self.consumers = ConsumerSpec(
                ack_wait_s if ack_wait_s is not None else c.ack_wait_s,
                c.max_deliver,
                c.backoff_s,
                max_ack_pending if max_ack_pending is not None else c.max_ack_pending,
            )
        await self.ensure_consumer(durable, filter_subject)
        sub = await self.js.pull_subscribe_bind(durable, stream=subjects.STREAM)
        return Consumer(sub, durable)

    async def lag(self, durable: str) -> tuple[int, int]:
        """(messages not yet delivered, delivered and not yet acknowledged)."""
        info = await self.js.consumer_info(subjects.STREAM, durable, timeout=2)
        return int(info.num_pending or 0), int(info.num_ack_pending or 0)

    async def stream_leader(self) -> str | None:
        info = await self.js.stream_info(subjects.STREAM)
        return info.cluster.leader if info.cluster is not None else None

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # flushing a dead connection is fine
            await asyncio.wait_for(self.nc.flush(), 5)
        with contextlib.suppress(Exception):
            await self.nc.close()


@dataclass
class Consumer:
    sub: Any
    durable: str = ""

    async def fetch(self, batch: int = 256, timeout_s: float = 0.5) -> list[Msg]:
        try:
            msgs: list[Msg] = await self.sub.fetch(batch, timeout=timeout_s)
            return msgs
        except (TimeoutError, NatsTimeout):  # nats-py raises either on an idle fetch
            return []

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.sub.unsubscribe()


def delivery_count(msg: Msg) -> int:
    try:
        return int(msg.metadata.num_delivered)
    except Exception:  # core-NATS messages have no metadata
        return 1
