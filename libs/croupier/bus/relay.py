"""The outbox relay: publishes what a producer committed to the outbox
(:mod:`croupier.store.outbox`), with retries and backoff, outside any request path and
any lock. A row is deleted only once the stream acknowledged it (new or duplicate), so
a NATS outage only grows the outbox; when NATS returns the backlog drains, oldest first.

After a failure the relay backs off (at most ``max_backoff_s``, a second), never
publishes while the client is disconnected (nats-py would hold the publishes until they
time out), and retries at once when the client reconnects. Its first publish after a
failure is a probe: one row with a short ``probe_timeout_s`` (a stream without a leader
answers nothing), then the backlog in batches of ``batch`` concurrent publishes.

The relay is woken by :meth:`OutboxRelay.kick` after each commit; while no
:meth:`OutboxRelay.run` loop is active (a process driven by hand, a test) a kick starts
one background drain instead, so nobody ever awaits a publish.

Messages by reference: a producer hands the relay the bytes of the messages it is about
to commit (:meth:`HeldMessages.hold`, bounded in bytes) and writes those rows by
reference, without the bytes (:mod:`croupier.store.outbox`). The relay publishes the
bytes it holds; a row whose bytes it does not hold (the process restarted, the row is
another replica's, or the hold was given up) is rebuilt from the events and seals it
names. When the hold is full (NATS down, the outbox growing), rows carry their bytes
again, so memory stays bounded whatever the backlog.

Deletes that ride on the next commit: with ``defer_deletes``, the rows the stream
acknowledged are not deleted in a transaction of the relay's own but kept
(:class:`Published`) for the producer's next transaction to delete
(:meth:`Published.riding`, :func:`croupier.store.outbox.delete`); the relay deletes them
itself only when no commit took them within ``delete_after_s`` or ``batch`` of them wait.
A producer commit then stands for both, one write transaction a batch instead of two (on
SQLite, one turn of the write lock fewer). Until deleted they are left out of what the
relay publishes; a crash before the delete publishes them again at start, as any crash
between an ack and a delete did (the stream's duplicate window drops them, and every
consumer is idempotent by hand id).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Container, Iterable, Iterator, Sequence

from croupier.bus import wire
from croupier.bus.jetstream import Bus
from croupier.store.outbox import Outbox, OutboxItem, OutboxRow, OutboxStats

log = logging.getLogger("croupier.relay")

StatsHook = Callable[[str, OutboxStats, int], None]
"""Called with (producer, stats, now_ms) after each pass (metrics)."""
PublishedHook = Callable[[str, int], None]
"""Called with (producer, rows published) after each successful batch."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class HeldMessages:
    """The bytes of messages written to the outbox by reference, by ``msg_id``, until
    published; at most ``max_bytes`` of them. Used on the event loop only."""

    def __init__(self, max_bytes: int = 64 * 2**20, max_age_s: float = 300.0) -> None:
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s  # unclaimed this long: given up (see :meth:`sweep`)
        self._items: dict[str, tuple[bytes, float]] = {}
        self.size = 0

    def __len__(self) -> int:
        return len(self._items)

    def hold(self, items: Sequence[OutboxItem]) -> frozenset[str]:
        """Keep the bytes of the items that have a reference, while there is room;
        returns the ids of those kept (write those rows by reference). Call
        :meth:`release` with them if the transaction does not commit (or hold with
        :meth:`holding`)."""
        kept = []
        now = time.monotonic()
        for it in items:
            if it.ref is None or it.msg_id in self._items:
                continue
            if self.size + len(it.payload) > self.max_bytes:
                break
            self._items[it.msg_id] = (it.payload, now)
            self.size += len(it.payload)
            kept.append(it.msg_id)
        return frozenset(kept)

    @contextlib.contextmanager
    def holding(self, items: Sequence[OutboxItem]) -> Iterator[frozenset[str]]:
        """:meth:`hold` for a transaction: the ids held, given up again if the block
        (the transaction) fails."""
        held = self.hold(items)
        try:
            yield held
        except BaseException:
            self.release(held)
            raise

    def release(self, msg_ids: Iterable[str]) -> None:
        for m in msg_ids:
            hit = self._items.pop(m, None)
            if hit is not None:
                self.size -= len(hit[0])

    def get(self, msg_id: str) -> bytes | None:
        hit = self._items.get(msg_id)
        return None if hit is None else hit[0]

    def sweep(self, waiting: Container[str]) -> None:
        """Give up the bytes held longer than ``max_age_s`` for rows no longer waiting
        (published by another replica's relay); a row still waiting keeps them."""
        limit = time.monotonic() - self.max_age_s
        self.release([m for m, (_, t) in self._items.items() if t < limit and m not in waiting])


class Published:
    """Rows the stream acknowledged and the outbox still holds, for a producer's next
    transaction to delete (:meth:`riding`). Used on the event loop only (a transaction
    that runs in a thread takes its rows on the loop before it starts)."""

    def __init__(self) -> None:
        self._rows: list[OutboxRow] = []
        self._keys: set[tuple[int, str]] = set()
        self._deleting: set[tuple[int, str]] = set()  # taken by a transaction not yet over
        self._since = 0.0  # when the oldest waiting row was acknowledged (monotonic)

    def __len__(self) -> int:
        """The rows waiting for a transaction to take them."""
        return len(self._rows)

    def in_outbox(self) -> int:
        """The rows still in the outbox: waiting, or taken by a transaction not yet over."""
        return len(self._rows) + len(self._deleting)

    def __contains__(self, row: object) -> bool:
        if not isinstance(row, OutboxRow):
            return False
        key = (row.id, row.msg_id)
        return key in self._keys or key in self._deleting

    def add(self, rows: Sequence[OutboxRow]) -> None:
        if rows and not self._rows:
            self._since = time.monotonic()
        for r in rows:
            key = (r.id, r.msg_id)
            if key not in self._keys and key not in self._deleting:
                self._keys.add(key)
                self._rows.append(r)

    def waited(self) -> float:
        """Seconds since the oldest waiting row was acknowledged (0 when none waits)."""
        return time.monotonic() - self._since if self._rows else 0.0

    def take(self) -> list[OutboxRow]:
        """The waiting rows, forgotten (see :meth:`riding` for a transaction)."""
        rows, self._rows, self._keys = self._rows, [], set()
        return rows

    @contextlib.contextmanager
    def riding(self) -> Iterator[list[OutboxRow]]:
        """The rows for the caller's transaction to delete
        (:func:`croupier.store.outbox.delete`): still left out of what the relay
        publishes until the block ends, given back if it fails (the transaction rolled
        back), to be deleted later."""
        since = self._since
        rows = self.take()
        keys = {(r.id, r.msg_id) for r in rows}
        self._deleting |= keys
        try:
            yield rows
        except BaseException:
            self._deleting -= keys
            again = [*rows, *self.take()]
            self.add(again)
            if rows:
                self._since = since
            raise
        self._deleting -= keys


class OutboxRelay:
    def __init__(
        self,
        outbox: Outbox,
        bus: Callable[[], Bus | None],
        producer: str,
        *,
        batch: int = 256,
        publish_timeout_s: float = 5.0,
        probe_timeout_s: float = 1.0,
        idle_poll_s: float = 1.0,
        max_backoff_s: float = 1.0,
        on_stats: StatsHook | None = None,
        on_published: PublishedHook | None = None,
        on_rebuilt: PublishedHook | None = None,
        defer_deletes: bool = False,
        delete_after_s: float = 0.25,
    ) -> None:
        self.outbox = outbox
        self.bus = bus
        self.producer = producer
        self.batch = batch
        self.publish_timeout_s = publish_timeout_s
        self.probe_timeout_s = probe_timeout_s
        self.idle_poll_s = idle_poll_s
        self.max_backoff_s = max_backoff_s
        self.on_stats = on_stats
        self.on_published = on_published
        self.on_rebuilt = on_rebuilt  # (producer, rows by reference rebuilt from the store)
        self._wake = asyncio.Event()
        self._reconnected = asyncio.Event()
        self._watched: Bus | None = None
        self._probing = False
        self._lock = asyncio.Lock()
        self._running = False
        self._oneshot: asyncio.Task[None] | None = None
        self._again = False
        self.published = 0
        self.failures = 0
        self.held = HeldMessages()  # bytes of the rows written by reference
        # acknowledged rows the producer's next commit deletes (None: deleted at once)
        self.acked: Published | None = Published() if defer_deletes else None
        self.delete_after_s = delete_after_s
        self.rebuilt = 0  # rows by reference published from the store (not held)

    def kick(self) -> None:
        """Something was committed to the outbox: publish it soon (never waits)."""
        if self._running:
            self._wake.set()
            return
        if self._oneshot is not None and not self._oneshot.done():
            self._again = True
            return
        with contextlib.suppress(RuntimeError):  # no running event loop: nothing to do
            self._oneshot = asyncio.get_running_loop().create_task(self._drain_quietly())

    async def _drain_quietly(self) -> None:
        while True:
            self._again = False
            try:
                while await self.drain_once() >= self.batch:
                    pass
            except Exception as e:  # the next kick or run() retries
                log.warning("outbox %s: drain failed: %s", self.producer, e)
            if not self._again:
                return

    async def drain_once(self) -> int:
        """Publish the oldest batch; delete what the stream acknowledged. Returns how
        many rows were published; raises when the bus is unavailable. One drain at a
        time per relay."""
        async with self._lock:
            return await self._drain_once()

    def _on_reconnect(self) -> None:
        self._reconnected.set()
        self.kick()

    def _watch(self, bus: Bus) -> None:
        if bus is self._watched:
            return
        self._watched = bus
        listeners = getattr(bus, "reconnect_listeners", None)
        if listeners is not None:
            listeners.append(self._on_reconnect)

    async def _drain_once(self) -> int:
        bus = self.bus()
        if bus is None:
            raise ConnectionError("no NATS connection yet")
        self._watch(bus)
        if not getattr(bus, "connected", True):
            self._probing = True
            raise ConnectionError("NATS disconnected")
        probed = 0
        if self._probing:  # the last pass failed: one row, a short wait
            probed = await self._publish(bus, 1, self.probe_timeout_s)
            if probed == 0:
                self._probing = False  # nothing to publish
                return 0
            self._probing = False
        try:
            return probed + await self._publish(bus, self.batch, self.publish_timeout_s)
        except Exception:
            self._probing = True
            raise

    def delete_due(self, *, now: bool = False) -> int:
        """Delete the acknowledged rows no producer commit took in time (``delete_after_s``,
        or ``batch`` of them waiting), or all of them ``now``; how many."""
        acked = self.acked
        if acked is None or not len(acked):
            return 0
        if not now and len(acked) < self.batch and acked.waited() < self.delete_after_s:
            return 0
        with acked.riding() as rows:
            self.outbox.delete(rows)
        return len(rows)

    async def _publish(self, bus: Bus, limit: int, timeout_s: float) -> int:
        acked = self.acked
        self.delete_due()
        waiting = 0 if acked is None else acked.in_outbox()
        rows = self.outbox.pending(self.producer, limit + waiting)
        if len(rows) < limit + waiting and len(self.held):  # every waiting row seen
            self.held.sweep({r.msg_id for r in rows})
        if waiting and acked is not None:  # published already, not yet deleted
            rows = [r for r in rows if r not in acked][:limit]
        if not rows:
            return 0
        payloads = self._payloads(rows)
        ok = await bus.publish_each(
            [(r.subject, p, r.msg_id) for r, p in zip(rows, payloads, strict=True)], timeout_s
        )
        done = [r for r, good in zip(rows, ok, strict=True) if good]
        if acked is None:
            self.outbox.delete(done)
        else:
            acked.add(done)
        self.held.release(r.msg_id for r in done)
        self.published += len(done)
        if done and self.on_published is not None:
            self.on_published(self.producer, len(done))
        if len(done) < len(rows):
            self.failures += 1
            self._probing = True
            raise ConnectionError(f"{len(rows) - len(done)} of {len(rows)} publishes failed")
        return len(done)

    def _payloads(self, rows: Sequence[OutboxRow]) -> list[bytes]:
        """Each row's message: its bytes, those held, or rebuilt from the store."""
        held = [None if r.ref is None else self.held.get(r.msg_id) for r in rows]
        missing = [
            r.ref for r, h in zip(rows, held, strict=True) if r.ref is not None and h is None
        ]
        rebuilt: Iterator[bytes] = iter(())
        if missing:
            found = self.outbox.referenced(missing)
            rebuilt = iter(
                [wire.encode(ref.kind, e, s) for ref, (e, s) in zip(missing, found, strict=True)]
            )
            self.rebuilt += len(missing)
            if self.on_rebuilt is not None:
                self.on_rebuilt(self.producer, len(missing))
        return [
            r.payload if r.ref is None else h if h is not None else next(rebuilt)
            for r, h in zip(rows, held, strict=True)
        ]

    def stats(self) -> OutboxStats:
        st = self.outbox.stats(self.producer)
        # the rows published and not yet deleted are not waiting
        depth = max(0, st.depth - (0 if self.acked is None else self.acked.in_outbox()))
        st = dataclasses.replace(st, depth=depth, held_bytes=self.held.size)
        if self.on_stats is not None:
            self.on_stats(self.producer, st, now_ms())
        return st

    async def run(self, stop: asyncio.Event) -> None:
        """Drain until ``stop``: after each kick, and every ``idle_poll_s`` anyway;
        failures back off exponentially up to ``max_backoff_s``."""
        self._running = True
        delay = 0.05
        last_stats = 0.0
        try:
            while not stop.is_set():
                wait, backing_off = self.idle_poll_s, False
                self._reconnected.clear()
                try:
                    while not stop.is_set() and await self.drain_once() >= self.batch:
                        pass
                    delay = 0.05
                except Exception as e:
                    log.warning(
                        "outbox %s: publish failed (%s); retrying in %.2fs",
                        self.producer,
                        e,
                        delay,
                    )
                    wait, backing_off = delay, True
                    delay = min(self.max_backoff_s, delay * 2)
                if time.monotonic() - last_stats >= 1.0:
                    with contextlib.suppress(Exception):  # the database may be down too
                        self.stats()
                    last_stats = time.monotonic()
                if self.acked is not None and len(self.acked) and not backing_off:
                    # the acknowledged rows no commit takes are deleted in time
                    with contextlib.suppress(Exception):  # the database may be down
                        self.delete_due()
                    if len(self.acked):
                        due = self.delete_after_s - self.acked.waited()
                        wait = min(wait, max(0.0, due) + 0.01)
                self._wake.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    # a kick ends an idle wait; a backoff ends early only on a reconnect
                    event = self._reconnected if backing_off else self._wake
                    await asyncio.wait_for(self._wake_or(stop, event), wait)
        finally:
            self._running = False
            with contextlib.suppress(Exception):  # at stop: what was published goes
                self.delete_due(now=True)

    async def _wake_or(self, stop: asyncio.Event, event: asyncio.Event) -> None:
        waits = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(stop.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
