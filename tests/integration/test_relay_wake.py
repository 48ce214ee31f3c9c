"""The outbox relay after a NATS outage: it never publishes while the client is
disconnected, a reconnect ends its backoff at once, its first publish is a one-row probe
with a short timeout, and then the backlog goes out in full concurrent batches."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from croupier.bus.relay import OutboxRelay
from croupier.store import Outbox, OutboxItem
from croupier_services.runtime import open_store

pytestmark = pytest.mark.integration


class FlakyBus:
    def __init__(self) -> None:
        self.connected = False
        self.reconnect_listeners: list[Callable[[], None]] = []
        self.calls: list[tuple[int, float]] = []  # (rows, timeout) of each publish_each

    async def publish_each(self, items: list[Any], timeout_s: float = 5.0) -> list[bool]:
        self.calls.append((len(items), timeout_s))
        return [self.connected] * len(items)

    def reconnect(self) -> None:
        self.connected = True
        for cb in self.reconnect_listeners:
            cb()


async def test_reconnect_ends_the_backoff_and_the_backlog_drains(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'o.sqlite'}")
    ob = Outbox(store.engine)
    ob.enqueue(
        [
            OutboxItem("dealer", f"croupier.hand.baccarat.t{i}", f"hand:{i}", b"x")
            for i in range(600)
        ],
        1,
    )
    bus = FlakyBus()
    # a long backoff: only the reconnect can make the drain quick
    relay = OutboxRelay(ob, lambda: bus, "dealer", batch=256, max_backoff_s=30.0)
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run(stop))
    try:
        await asyncio.sleep(1.0)  # several failed passes, backing off towards 30 s
        assert bus.calls == []  # nothing published while disconnected
        assert ob.stats("dealer").depth == 600
        t0 = time.monotonic()
        bus.reconnect()
        while ob.stats("dealer").depth and time.monotonic() - t0 < 5:
            await asyncio.sleep(0.01)
        took = time.monotonic() - t0
        assert ob.stats("dealer").depth == 0
        assert took < 1.0, took
        # a one-row probe with the short timeout, then full batches
        assert bus.calls[0] == (1, relay.probe_timeout_s)
        assert [n for n, _ in bus.calls[1:]] == [256, 256, 87], bus.calls
    finally:
        stop.set()
        await task
        store.close()
