"""A consumer loop after a NATS outage: a reconnect ends its backoff at once, and its
backoff never grows past about a second, so it fetches again within a second or two of
the client coming back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from croupier_services.consumer import ConsumerLoop, Work
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import open_store

pytestmark = pytest.mark.integration


class FlakyBus:
    def __init__(self) -> None:
        self.connected = False
        self.reconnect_listeners: list[Callable[[], None]] = []
        self.made: FlakyConsumer | None = None

    async def consumer(self, durable: str, filter_subject: str) -> FlakyConsumer:
        """(Re-)subscribing: fails while disconnected, like the real client's."""
        assert self.made is not None
        self.made.fetches.append((time.monotonic(), False))  # an attempt, not a fetch
        if not self.connected:
            raise ConnectionError("nats: no connection to subscribe")
        return self.made

    def reconnect(self, tell: bool = True) -> None:
        self.connected = True
        if tell:
            for cb in self.reconnect_listeners:
                cb()


class FlakyConsumer:
    durable = "test"

    def __init__(self, bus: FlakyBus) -> None:
        self.bus = bus
        self.fetches: list[tuple[float, bool]] = []  # (when, fetched while connected)

    async def fetch(self, batch: int, timeout_s: float = 1.0) -> list[Any]:
        self.fetches.append((time.monotonic(), self.bus.connected))
        if not self.bus.connected:
            raise ConnectionError("nats: connection closed")
        await asyncio.sleep(0.01)
        return []

    async def close(self) -> None:
        pass


def _loop(tmp: Path, bus: FlakyBus, **kw: Any) -> tuple[ConsumerLoop, FlakyConsumer]:
    init_keys(tmp / "keys")
    store = open_store(f"sqlite:///{tmp / 'c.sqlite'}")
    consumer = FlakyConsumer(bus)
    bus.made = consumer

    def handle(_m: Any) -> Work:
        raise AssertionError("no message is expected")

    loop = ConsumerLoop(
        "settlement",
        store,
        bus,  # type: ignore[arg-type]
        consumer,  # type: ignore[arg-type]
        handle,
        lambda _tx, _works: None,
        filter_subject="croupier.outcome.>",
        trust=TrustedKeys.from_dir(tmp / "keys"),
        **kw,
    )
    return loop, consumer


async def _resumed_after(
    loop: ConsumerLoop, consumer: FlakyConsumer, bus: FlakyBus, *, tell: bool
) -> float:
    stop = asyncio.Event()
    task = asyncio.create_task(loop.run(stop))
    try:
        # failing passes, backing off: with a 30 s cap the loop is then in a 3.2 s wait
        await asyncio.sleep(4.0)
        assert loop.state == "backoff"
        assert consumer.fetches and not any(ok for _, ok in consumer.fetches)
        t0 = time.monotonic()
        bus.reconnect(tell=tell)
        while not any(ok for _, ok in consumer.fetches) and time.monotonic() - t0 < 10:
            await asyncio.sleep(0.005)
        assert any(ok for _, ok in consumer.fetches), "the loop never fetched again"
        when = next(t for t, ok in consumer.fetches if ok)
        await asyncio.sleep(0.1)
        assert loop.state == "running"
        return when - t0
    finally:
        stop.set()
        await task
        loop.store.close()


async def test_a_reconnect_ends_the_backoff_at_once(tmp_path: Path) -> None:
    bus = FlakyBus()
    # a long backoff cap: only the reconnect can make the resumption quick
    loop, consumer = _loop(tmp_path, bus, max_backoff_s=30.0)
    took = await _resumed_after(loop, consumer, bus, tell=True)
    assert took < 0.3, took


async def test_without_the_wake_up_the_backoff_is_capped_near_a_second(
    tmp_path: Path,
) -> None:
    bus = FlakyBus()
    loop, consumer = _loop(tmp_path, bus)  # the default cap
    assert loop.max_backoff_s <= 1.0
    took = await _resumed_after(loop, consumer, bus, tell=False)
    assert took < 1.5, took
    # the failing attempts (fetch or re-subscribe) came at least once a second or so
    gaps = [b - a for (a, _), (b, _) in zip(consumer.fetches, consumer.fetches[1:], strict=False)]
    assert max(gaps) < 1.5, gaps
