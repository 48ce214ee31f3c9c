"""The outbox relay of a producer, wired to the process's metrics (one relay per
producer and process: the dealer's closed hands, the rule service's outcomes,
settlement's ``settled`` messages)."""

from __future__ import annotations

from collections.abc import Callable

from croupier.bus.jetstream import Bus
from croupier.bus.relay import OutboxRelay
from croupier.store import EventStore, Outbox, OutboxStats
from croupier_services import metrics


def _stats(producer: str, st: OutboxStats, now_ms: int) -> None:
    metrics.OUTBOX_DEPTH.labels(producer).set(st.depth)
    metrics.OUTBOX_HELD.labels(producer).set(st.held_bytes)
    age = 0.0 if st.oldest_at_ms is None else max(0.0, (now_ms - st.oldest_at_ms) / 1000)
    metrics.OUTBOX_OLDEST_AGE.labels(producer).set(age)


def _published(producer: str, n: int) -> None:
    metrics.OUTBOX_PUBLISHED.labels(producer).inc(n)


def _rebuilt(producer: str, n: int) -> None:
    metrics.OUTBOX_REBUILT.labels(producer).inc(n)


def relay_for(store: EventStore, bus: Callable[[], Bus | None], producer: str) -> OutboxRelay:
    metrics.OUTBOX_DEPTH.labels(producer).set(0)
    metrics.OUTBOX_OLDEST_AGE.labels(producer).set(0)
    metrics.OUTBOX_PUBLISHED.labels(producer)
    metrics.OUTBOX_HELD.labels(producer).set(0)
    metrics.OUTBOX_REBUILT.labels(producer)
    return OutboxRelay(
        Outbox(store.engine),
        bus,
        producer,
        on_stats=_stats,
        on_published=_published,
        on_rebuilt=_rebuilt,
        # the producer's next commit deletes what was published (one write a batch)
        defer_deletes=True,
    )
