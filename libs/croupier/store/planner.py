"""The query planner's statistics and the tables' dead rows on PostgreSQL, kept by the
services themselves when the server does not.

PostgreSQL plans a query from each table's statistics, which ``ANALYZE`` gathers and
autovacuum refreshes once a table has changed by a tenth. A server run with
``autovacuum = off`` (or a table with it disabled) never refreshes them, and the store's
hot lookups then go wrong as the log grows: the streams' heads read before every append
(``stream_id = ANY(...)`` on ``events``) became a parallel sequential scan of the whole
table, 160–320 ms a call at 950,000 events, and the pipeline fell from ~450 to 51 hands/s
over its first 48,000 hands (docs/performance.md,
"The planner's statistics on a PostgreSQL without autovacuum"). One
``ANALYZE`` brought it back at once.

:class:`TableKeeper` runs in every service that writes the store
(:mod:`croupier_services.runtime`): every ``every_s`` seconds, on PostgreSQL with
autovacuum off, it analyzes the tables of the store's schema that changed by more than
autovacuum would have allowed (:data:`ANALYZE_THRESHOLD` rows plus
:data:`ANALYZE_SCALE_FACTOR` of the table, the server's defaults), and vacuums those
whose dead rows or inserts since their last vacuum passed autovacuum's own thresholds
(:data:`VACUUM_THRESHOLD`, :data:`VACUUM_INSERT_THRESHOLD`, :data:`VACUUM_SCALE_FACTOR`).
Without a vacuum nothing takes the dead rows out: the outbox, whose every row is deleted
once published, kept them all, and reading its oldest rows walked every dead index entry
before them (47 ms a read after 1,000,000 rows came and went, 0.1 ms after one
``VACUUM``; docs/performance.md, "The server's side of a hand on PostgreSQL"); and the
append-only tables' visibility maps were never set, which index-only reads rely on.
Where autovacuum runs, and on SQLite (which plans from its indexes alone and reuses
freed pages), it does nothing.
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
    "VACUUM_INSERT_THRESHOLD",
    "VACUUM_SCALE_FACTOR",
    "VACUUM_THRESHOLD",
    "TableKeeper",
    "autovacuum_on",
    "stale_tables",
    "tables_to_vacuum",
]

log = logging.getLogger("croupier.store.planner")

ANALYZE_THRESHOLD = 50
"""Rows changed before a table's statistics are stale (``autovacuum_analyze_threshold``)."""
ANALYZE_SCALE_FACTOR = 0.1
"""And the share of the table (``autovacuum_analyze_scale_factor``)."""
VACUUM_THRESHOLD = 50
"""Dead rows before a table needs a vacuum (``autovacuum_vacuum_threshold``)."""
VACUUM_INSERT_THRESHOLD = 1000
"""Or rows inserted since its last vacuum (``autovacuum_vacuum_insert_threshold``)."""
VACUUM_SCALE_FACTOR = 0.2
"""Either plus this share of the table (``autovacuum_vacuum_scale_factor`` and
``autovacuum_vacuum_insert_scale_factor``)."""


def autovacuum_on(conn: Connection) -> bool:
    """Whether the server refreshes statistics itself (PostgreSQL's ``autovacuum``)."""
    return str(conn.exec_driver_sql("SHOW autovacuum").scalar()).lower() in ("on", "true")


_MINE = " AND pg_has_role((SELECT relowner FROM pg_class WHERE oid = relid), 'USAGE')"
"""Only the tables this role may analyze and vacuum (their owner's): a service logged in
with fewer rights (``croupier db roles``) leaves them to the server."""

_STALE = sa.text(
    "SELECT relname FROM pg_stat_user_tables"
    f" WHERE schemaname = current_schema(){_MINE}"
    " AND n_mod_since_analyze > :threshold + :scale * greatest(n_live_tup, 0)"
    " ORDER BY n_mod_since_analyze DESC"
)


def stale_tables(conn: Connection) -> list[str]:
    """The tables of the current schema changed by more than autovacuum allows."""
    rows = conn.execute(_STALE, {"threshold": ANALYZE_THRESHOLD, "scale": ANALYZE_SCALE_FACTOR})
    return [str(r[0]) for r in rows]


_TO_VACUUM = sa.text(
    "SELECT relname FROM pg_stat_user_tables"
    f" WHERE schemaname = current_schema(){_MINE}"
    " AND (n_dead_tup > :dead + :scale * greatest(n_live_tup, 0)"
    " OR n_ins_since_vacuum > :inserted + :scale * greatest(n_live_tup, 0))"
    " ORDER BY n_dead_tup DESC"
)


def tables_to_vacuum(conn: Connection) -> list[str]:
    """The tables of the current schema whose dead rows, or rows inserted since their
    last vacuum, passed autovacuum's thresholds."""
    rows = conn.execute(
        _TO_VACUUM,
        {
            "dead": VACUUM_THRESHOLD,
            "inserted": VACUUM_INSERT_THRESHOLD,
            "scale": VACUUM_SCALE_FACTOR,
        },
    )
    return [str(r[0]) for r in rows]


@dataclass
class TableKeeper:
    """Analyzes the store's stale tables and vacuums those past autovacuum's thresholds
    every ``every_s`` seconds while autovacuum is off (``always``: whatever autovacuum
    does; the tests). Each ``ANALYZE`` waits at most ``lock_timeout_ms`` for its lock;
    a ``VACUUM`` skips a table another service holds (``SKIP_LOCKED``)."""

    engine: Engine
    every_s: float = 30.0
    always: bool = False
    lock_timeout_ms: int = 1000
    on_analyze: Callable[[str], None] | None = None  # each table analyzed
    analyzed: int = 0
    vacuumed: int = 0

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

    def vacuum_once(self) -> list[str]:
        """Vacuum what needs it now; the tables vacuumed. ``VACUUM`` runs outside a
        transaction, so on a connection of its own in autocommit."""
        if self.engine.dialect.name != "postgresql":
            return []
        done: list[str] = []
        with self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            if not self.always and autovacuum_on(conn):
                return []
            for table in tables_to_vacuum(conn):
                quoted = conn.dialect.identifier_preparer.quote(table)
                conn.exec_driver_sql(f"VACUUM (SKIP_LOCKED) {quoted}")
                done.append(table)
                self.vacuumed += 1
        return done

    def pass_once(self) -> tuple[list[str], list[str]]:
        """One pass: the tables analyzed, then those vacuumed."""
        return self.once(), self.vacuum_once()

    async def run(self, stop: asyncio.Event) -> None:
        """:meth:`pass_once` every ``every_s`` seconds until ``stop``, off the event
        loop; a database that is down is tried again at the next pass."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.every_s)
            if stop.is_set():
                return
            try:
                await asyncio.to_thread(self.pass_once)
            except Exception as e:  # the database is down: the next pass
                log.warning("planner statistics: %s", e)
