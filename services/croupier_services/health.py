"""Honest health: what a process reports to its orchestrator.

* **readiness** (gRPC health service ``""``, each served service name and
  ``readiness``; HTTP ``/readyz``): the store answers, NATS is connected (for the
  processes that consume), and no consumer loop is paused or stalled.
* **liveness** (gRPC health service ``liveness``; HTTP ``/livez``): no consumer loop is
  stalled — work pending and no progress for ``stall_after_s`` — while its store and
  NATS are up. Only then does a restart help; an outage of a dependency makes a process
  not ready, never not live. The stall clock counts from the later of a loop's last
  progress and the moment the store and NATS were last seen back up, so a loop that
  could not progress during an outage is not called stalled the instant it ends.

The dealer is ready without NATS: its closed hands wait in the outbox and dealing goes
on. The audit service needs only the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence

from grpc_health.v1 import health, health_pb2

from croupier.bus.jetstream import Bus
from croupier.store import EventStore, Outbox
from croupier_services import metrics
from croupier_services.consumer import ConsumerLoop

log = logging.getLogger("croupier.health")
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class HealthMonitor:
    def __init__(
        self,
        store: EventStore,
        bus: Callable[[], Bus | None],
        loops: Callable[[], Sequence[ConsumerLoop]],
        *,
        needs_nats: bool,
        stall_after_s: float = 60.0,
        interval_s: float = 1.0,
        lag_every_s: float = 5.0,
        key_problem: Callable[[], str | None] | None = None,
    ) -> None:
        self.key_problem = key_problem  # the service's own signing key revoked: why
        self.outbox = Outbox(store.engine)
        self.bus = bus
        self.loops = loops
        self.needs_nats = needs_nats
        self.stall_after_s = stall_after_s
        self.interval_s = interval_s
        self.lag_every_s = lag_every_s
        self._lag_at = 0.0
        self._deps_up_since = time.monotonic()
        self._deps_were_up = True
        self.ready: tuple[bool, str] = (False, "starting")
        self.live: tuple[bool, str] = (True, "ok")
        self.servicer: health.aio.HealthServicer | None = None
        self.ready_names: list[str] = []

    async def check(self) -> None:
        problems: list[str] = []
        try:
            await asyncio.wait_for(asyncio.to_thread(self.outbox.ping), 3)
            store_ok = True
        except Exception as e:
            store_ok = False
            problems.append(f"store unavailable: {type(e).__name__}")
        bus = self.bus()
        nats_ok = bus is not None and bus.connected
        if self.needs_nats and not nats_ok:
            problems.append("nats not connected")
        metrics.HEALTH.labels("store").set(1 if store_ok else 0)
        metrics.HEALTH.labels("nats").set(1 if nats_ok else 0)
        stalled: list[str] = []
        now = time.monotonic()
        deps_up = store_ok and nats_ok
        if not deps_up or not self._deps_were_up:
            self._deps_up_since = now  # the stall clock restarts when both are back
        self._deps_were_up = deps_up
        read_lag = now - self._lag_at >= self.lag_every_s
        if read_lag:
            self._lag_at = now
        for lp in self.loops():
            if bus is not None and nats_ok and read_lag:
                try:
                    # the loop's own connection: a service's NATS user reads only its
                    # own consumers
                    own = getattr(lp, "bus", None) or bus
                    pending, ack_pending = await asyncio.wait_for(own.lag(lp.durable), 3)
                    metrics.CONSUMER_PENDING.labels(lp.durable).set(pending)
                    metrics.CONSUMER_ACK_PENDING.labels(lp.durable).set(ack_pending)
                    lp.pending = pending + ack_pending
                except Exception as e:  # a leader change: read it next time
                    log.debug("lag of %s: %s", lp.durable, e)
            since = max(lp.last_progress, self._deps_up_since)
            is_stalled = lp.pending > 0 and now - since > self.stall_after_s
            metrics.CONSUMER_STALLED.labels(lp.durable).set(1 if is_stalled else 0)
            if is_stalled:
                stalled.append(lp.durable)
                problems.append(
                    f"{lp.durable} stalled ({lp.pending} pending, {lp.state}: {lp.last_error})"
                )
            if lp.state == "paused" or lp.cannot_verify:
                problems.append(f"{lp.durable} cannot verify its messages: {lp.last_error}")
        metrics.HEALTH.labels("loops").set(0 if stalled else 1)
        why = self.key_problem() if self.key_problem is not None else None
        if why is not None:
            problems.append(why)
        self.ready = (not problems, "; ".join(problems) or "ok")
        restart_helps = stalled and store_ok and nats_ok
        self.live = (
            not restart_helps,
            f"stalled with store and nats up: {', '.join(stalled)}" if restart_helps else "ok",
        )
        await self._publish()

    async def _publish(self) -> None:
        if self.servicer is None:
            return
        r = SERVING if self.ready[0] else NOT_SERVING
        for n in self.ready_names:
            await self.servicer.set(n, r)
        await self.servicer.set("liveness", SERVING if self.live[0] else NOT_SERVING)

    def attach(self, servicer: health.aio.HealthServicer, names: Sequence[str]) -> None:
        self.servicer = servicer
        self.ready_names = [*names, "", "readiness"]

    def ready_probe(self) -> tuple[bool, str]:
        return self.ready

    def live_probe(self) -> tuple[bool, str]:
        return self.live

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.check()
            except Exception:  # the next round tries again
                log.exception("health check failed")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval_s)
