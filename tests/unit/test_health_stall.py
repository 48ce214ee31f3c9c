"""The liveness stall clock: a consumer loop with work pending is stalled only after
``stall_after_s`` without progress *while its store and NATS are up*; an outage does not
make it stalled the instant the outage ends, and the clock restarts each outage."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import sqlalchemy as sa

from croupier_services.health import HealthMonitor


class _Outbox:
    def ping(self) -> None:
        return None


def _monitor(bus: Any, loop: Any, stall_after_s: float) -> HealthMonitor:
    store: Any = SimpleNamespace(engine=sa.create_engine("sqlite://"))
    m = HealthMonitor(
        store, lambda: bus, lambda: [loop], needs_nats=True, stall_after_s=stall_after_s
    )
    m.outbox = _Outbox()  # type: ignore[assignment]
    return m


def test_outage_end_is_not_a_stall() -> None:
    async def lag(_: str) -> tuple[int, int]:
        return 5, 0

    bus = SimpleNamespace(connected=False, lag=lag)
    loop = SimpleNamespace(
        durable="settlement",
        pending=5,
        last_progress=time.monotonic() - 100.0,  # no progress for a long time
        state="retrying",
        last_error="nats down",
        cannot_verify=False,
    )
    m = _monitor(bus, loop, stall_after_s=0.3)

    async def run() -> None:
        await m.check()  # NATS down: not ready, but live
        assert m.ready[0] is False and m.live[0] is True
        await asyncio.sleep(0.4)
        await m.check()
        assert m.live[0] is True
        bus.connected = True  # the outage ends: not stalled at once
        await m.check()
        assert m.live == (True, "ok"), m.live
        await asyncio.sleep(0.4)  # up, and still no progress: now it is stalled
        await m.check()
        assert m.live[0] is False and "settlement" in m.live[1], m.live
        bus.connected = False  # a new outage, then back: the clock restarts again
        await m.check()
        bus.connected = True
        await m.check()
        assert m.live[0] is True, m.live

    asyncio.run(run())
