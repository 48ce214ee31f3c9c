"""JetStream adapter: stream set-up, deduplicated publishing, durable pull consumers.

Delivery contract used by every service: fetch a batch, do the work, commit to SQL,
then ack. A crash between commit and ack redelivers; consumers are idempotent by hand id
so a redelivery never has a second effect. Publishes carry a deterministic
``Nats-Msg-Id`` so a retried publish inside the duplicate window is dropped by the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import nats
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from croupier.bus import subjects
from croupier.errors import CroupierError


@dataclass
class Bus:
    nc: Client
    js: JetStreamContext

    @classmethod
    async def connect(
        cls, url: str, *, name: str = "croupier", tls: ssl.SSLContext | None = None
    ) -> Bus:
        """Connect; credentials go in the URL (``nats://user:password@host:4222``), a
        TLS context (CA, optional client certificate) in ``tls``."""
        nc = await nats.connect(url, name=name, max_reconnect_attempts=-1, tls=tls)
        return cls(nc, nc.jetstream(timeout=10))

    async def ensure_stream(
        self, *, duplicate_window_s: float = 120.0, provision: bool = True
    ) -> None:
        """Create or update the stream; with ``provision=False`` (a service whose NATS
        user may not manage streams) only check that it exists."""
        if not provision:
            try:
                await self.js.stream_info(subjects.STREAM)
            except NotFoundError:
                raise CroupierError(
                    f"JetStream stream {subjects.STREAM} is missing: run "
                    "`croupier nats provision`"
                ) from None
            return
        cfg = StreamConfig(
            name=subjects.STREAM,
            subjects=[f"{subjects.PREFIX}.>"],
            storage=StorageType.FILE,
            duplicate_window=duplicate_window_s,
        )
        try:
            await self.js.stream_info(subjects.STREAM)
            await self.js.update_stream(cfg)
        except NotFoundError:
            await self.js.add_stream(cfg)

    async def publish(self, subject: str, data: bytes, msg_id: str) -> bool:
        """Publish and wait for the stream's ack. Returns False for a duplicate."""
        ack = await self.js.publish(subject, data, headers={"Nats-Msg-Id": msg_id})
        return not ack.duplicate

    async def publish_many(self, items: Sequence[tuple[str, bytes, str]]) -> int:
        """Publish concurrently; returns how many were new (not duplicates)."""
        acks = await asyncio.gather(
            *(self.js.publish(s, d, headers={"Nats-Msg-Id": m}) for s, d, m in items)
        )
        return sum(0 if a.duplicate else 1 for a in acks)

    async def provision(self, durables: Sequence[tuple[str, str]]) -> None:
        """Create the stream and the durable consumers ``(name, filter subject)`` the
        services bind to (the provisioning user's job when services may not)."""
        await self.ensure_stream()
        for durable, filter_subject in durables:
            try:
                await self.js.consumer_info(subjects.STREAM, durable)
            except NotFoundError:
                await self.js.add_consumer(
                    subjects.STREAM, consumer_config(durable, filter_subject)
                )

    async def consumer(
        self,
        durable: str,
        filter_subject: str,
        *,
        ack_wait_s: float = 30.0,
        max_ack_pending: int = 20_000,
    ) -> Consumer:
        cfg = consumer_config(durable, filter_subject, ack_wait_s, max_ack_pending)
        sub = await self.js.pull_subscribe(
            filter_subject, durable=durable, stream=subjects.STREAM, config=cfg
        )
        return Consumer(sub)

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # flushing a dead connection is fine
            await asyncio.wait_for(self.nc.flush(), 5)
        await self.nc.close()


def consumer_config(
    durable: str, filter_subject: str, ack_wait_s: float = 30.0, max_ack_pending: int = 20_000
) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=durable,
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        filter_subject=filter_subject,
        ack_wait=ack_wait_s,
        max_ack_pending=max_ack_pending,
        max_deliver=-1,
    )


@dataclass
class Consumer:
    sub: Any

    async def fetch(self, batch: int = 256, timeout_s: float = 0.5) -> list[Msg]:
        try:
            msgs: list[Msg] = await self.sub.fetch(batch, timeout=timeout_s)
            return msgs
        except (TimeoutError, NatsTimeout):  # nats-py raises either on an idle fetch
            return []


def delivery_count(msg: Msg) -> int:
    try:
        return int(msg.metadata.num_delivered)
    except Exception:  # core-NATS messages have no metadata
        return 1
