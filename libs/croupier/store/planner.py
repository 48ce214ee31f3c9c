"""The query planner's statistics on PostgreSQL, kept fresh by the services themselves
when the server does not.

PostgreSQL plans a query from each table's statistics, which ``ANALYZE`` gathers and
autovacuum refreshes once a table has changed by a tenth. A server run with
``autovacuum = off`` (or a table with it disabled) never refreshes them, and the store's
hot lookups then go wrong as the log grows: the streams' heads read before every append
(``stream_id = ANY(...)`` on ``events``) became a parallel sequential scan of the whole
table, 160–320 ms a call at 950,000 events, and the pipeline fell from ~450 to 51 hands/s
over its first 48,000 hands (docs/performance.md,
"The planner's statistics on a PostgreSQL without autovacuum"). One
``ANALYZE`` brought it back at once.

:class:`StatisticsKeeper` runs in every service that writes the store
(:mod:`croupier_services.runtime`): every ``every_s`` seconds, on PostgreSQL with
autovacuum off, it analyzes the tables of the store's schema that changed by more than
autovacuum would have allowed (:data:`ANALYZE_THRESHOLD` rows plus
:data:`ANALYZE_SCALE_FACTOR` of the table, the server's defaults). Where autovacuum runs,
and on SQLite (which plans from its indexes alone), it does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

__all__ = [
    "ANALYZE_SCALE_FACTOR",
    "ANALYZE_THRESHOLD",
    "StatisticsKeeper",
    "autovacuum_on",
    "stale_tables",
]

log = logging.getLogger("croupier.store.planner")

ANALYZE_THRESHOLD = 50
"""Rows changed before a table's statistics are stale (``autovacuum_analyze_threshold``)."""
ANALYZE_SCALE_FACTOR = 0.1
"""And the share of the table (``autovacuum_analyze_scale_factor``)."""


def autovacuum_on(conn: Connection) -> bool:
    """Whether the server refreshes statistics itself (PostgreSQL's ``autovacuum``)."""
    return str(conn.exec_driver_sql("SHOW autovacuum").scalar()).lower() in ("on", "true")


_STALE = sa.text(
    "SELECT relname FROM pg_stat_user_tables"
    " WHERE schemaname = current_schema()"
    " AND n_mod_since_analyze > :threshold + :scale * greatest(n_live_tup, 0)"
    " ORDER BY n_mod_since_analyze DESC"
)


def stale_tables(conn: Connection) -> list[str]:
    """The tables of the current schema changed by more than autovacuum allows."""
    rows = conn.execute(_STALE, {"threshold": ANALYZE_THRESHOLD, "scale": ANALYZE_SCALE_FACTOR})
    return [str(r[0]) for r in rows]


@dataclass
class StatisticsKeeper:
    """Analyzes the store's stale tables every ``every_s`` seconds while autovacuum is
    off (``always``: whatever autovacuum does; the tests). Each ``ANALYZE`` waits at most
    ``lock_timeout_ms`` for its lock (another service analyzing the same table)."""

    engine: Engine
    every_s: float = 30.0
    always: bool = False
    lock_timeout_ms: int = 1000
    on_analyze: Callable[[str], None] | None = None  # each table analyzed
    analyzed: int = 0

    def autovacuum_off(self) -> bool:
        """Whether this keeper has work on this database (PostgreSQL, autovacuum off)."""
        if self.engine.dialect.name != "postgresql":
            return False
        with self.engine.connect() as conn:
            return not autovacuum_on(conn)

    def once(self) -> list[str]:
        """Analyze what is stale now; the tables analyzed."""
        if self.engine.dialect.name != "postgresql":
            return []
        done: list[str] = []
        with self.engine.connect() as conn:
            with conn.begin():
                if not self.always and autovacuum_on(conn):
                    return []
                stale = stale_tables(conn)
            for table in stale:
                quoted = conn.dialect.identifier_preparer.quote(table)
                try:
                    # one transaction a table; the lock timeout is the transaction's
                    # own (SET LOCAL), not left on the pooled connection
                    with conn.begin():
                        conn.exec_driver_sql(
                            f"SET LOCAL lock_timeout = {int(self.lock_timeout_ms)}"
                        )
                        conn.exec_driver_sql(f"ANALYZE {quoted}")
                except sa.exc.OperationalError as e:  # its lock held: the next pass
                    log.info("statistics of %s not refreshed now: %s", table, e.orig)
                    continue
                done.append(table)
                self.analyzed += 1
                if self.on_analyze is not None:
                    self.on_analyze(table)
        return done

    async def run(self, stop: asyncio.Event) -> None:
        """:meth:`once` every ``every_s`` seconds until ``stop``, off the event loop; a
        database that is down is tried again at the next pass."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)
            if stop.is_set():
                return
            try:
                await asyncio.to_thread(self.once)
            except Exception as e:  # the database is down: the next pass
                log.warning("planner statistics: %s", e)
