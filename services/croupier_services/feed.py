"""The durable table feed behind ``StreamTableEvents``.

A subscriber reads its table's events from the store (:mod:`croupier.store.feed`), page
by page, after its cursor and up to the hub's *horizon* (the position below which every
event is visible), then sleeps until the horizon moves past an event of its table. The
hub is the only poller: while anyone subscribes it reads the new positions of the log
(a primary-key range), advances the horizon and wakes the subscribers of the tables it
saw. The dealer's own commits wake it at once; events other processes append (the rule
service's ``hand.outcome``, settlement's ``hand.settled``, another dealer's tables)
arrive within a poll interval.

Memory is bounded: nothing is buffered per table; a subscriber holds one page at a
time; the poller stops when the last subscriber leaves. Cursors are store positions,
so a client resumes after any dealer restart (or at another dealer sharing the store)
and gets every event after its cursor exactly once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

from croupier.events import Event
from croupier.games.registry import engine as engine_for
from croupier.store import EventStore, Horizon
from croupier_services.views import redact_public

log = logging.getLogger("croupier.feed")
PAGE = 500
SCAN = 2000
START_BACK = 2000
"""On start the horizon is rebuilt from this many positions below the log's end."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class FeedHub:
    """Wakes the subscribers of a table when new events of it are visible."""

    def __init__(self, store: EventStore, poll_s: float = 0.1, gap_wait_ms: int = 3_000):
        self.store = store
        self.poll_s = poll_s
        self.gap_wait_ms = gap_wait_ms
        self.horizon: Horizon | None = None
        self.waiters: dict[str, set[asyncio.Event]] = {}
        self._kick = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def notify(self) -> None:
        """Something was just appended: scan now rather than at the next poll."""
        self._kick.set()

    def _scan(self) -> None:
        h = self.horizon
        if h is None:
            top = self.store.last_position()
            h = self.horizon = Horizon(max(0, top - START_BACK), self.gap_wait_ms)
        while True:
            rows = self.store.positions(h.safe, SCAN)
            start = h.safe
            h.advance([p for p, _ in rows], now_ms())
            for p, table in rows:
                if start < p <= h.safe:
                    for ev in self.waiters.get(table, ()):
                        ev.set()
            if len(rows) < SCAN or h.safe == start:
                break

    async def _run(self) -> None:
        while self.waiters:
            try:
                self._kick.clear()
                self._scan()
            except Exception:  # the next scan retries; subscribers keep waiting
                log.exception("table feed scan failed")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._kick.wait(), self.poll_s)
        self._task = None
        self.horizon = None

    def _ready(self) -> Horizon:
        if self.horizon is None:
            self._scan()
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        assert self.horizon is not None
        return self.horizon

    async def follow(self, table_id: str, after: int | None) -> AsyncIterator[tuple[int, Event]]:
        """The table's public events after position ``after`` (``None``: from now), with
        their positions, forever (the caller stops iterating to leave)."""
        wake = asyncio.Event()
        self.waiters.setdefault(table_id, set()).add(wake)
        try:
            h = self._ready()
            cursor = h.safe if after is None else after
            while True:
                wake.clear()
                upto = h.safe
                page = self.store.table_events(table_id, cursor, upto, PAGE)
                for entry in page:
                    cursor = entry.pos
                    private = engine_for(entry.variant).private_args
                    for e in redact_public([entry.event], private):
                        yield entry.pos, e
                if len(page) == PAGE:
                    continue
                await wake.wait()
                h = self._ready()
        finally:
            ws = self.waiters.get(table_id)
            if ws is not None:
                ws.discard(wake)
                if not ws:
                    del self.waiters[table_id]
