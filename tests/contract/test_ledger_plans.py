"""The steady-state money queries are index (or primary-key) reads whose cost does not
grow with the ledger: the settlement commit's idempotency and per-hand lookups, a
balance, every balance, the all-time rake summary (with its settled counts) and the
settled count of a variant or of some tables. Every SELECT each operation runs is
captured as executed and its plan asked of the database (``EXPLAIN QUERY PLAN`` on
SQLite; ``EXPLAIN`` with sequential scans disabled on PostgreSQL, so a plan that still
scans has no index)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa

from croupier.store import LedgerTx, Posting, RakeTotal, Store


def _tx(hand: str) -> LedgerTx:
    return LedgerTx(
        f"settle:{hand}",
        hand,
        (Posting("player:a", -100), Posting("player:b", 95), Posting("rake:baccarat", 5)),
    )


def _selects(store: Store, op: Callable[[], Any]) -> list[tuple[str, Any]]:
    """Every SELECT ``op`` runs, as executed: on SQLite as the driver ran it (its trace,
    values written in: the hot reads go to the driver past SQLAlchemy), elsewhere as
    SQLAlchemy sent it with its parameters."""
    seen: list[tuple[str, Any]] = []

    def grab(conn: Any, cursor: Any, statement: str, params: Any, ctx: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT") and not many:
            seen.append((statement, params))

    def traced(sql: str) -> None:
        if sql.lstrip().upper().startswith("SELECT"):
            seen.append((sql, ()))

    def trace(dbapi_conn: Any, record: Any, proxy: Any) -> None:
        dbapi_conn.set_trace_callback(traced)

    def untrace(dbapi_conn: Any, record: Any) -> None:
        dbapi_conn.set_trace_callback(None)

    sqlite = store.dialect == "sqlite"
    if sqlite:
        store.engine.dispose()  # every connection from here on is a traced one
        sa.event.listen(store.engine, "checkout", trace)
        sa.event.listen(store.engine, "checkin", untrace)
    else:
        sa.event.listen(store.engine, "before_cursor_execute", grab)
    try:
        op()
    finally:
        if sqlite:
            sa.event.remove(store.engine, "checkout", trace)
            sa.event.remove(store.engine, "checkin", untrace)
        else:
            sa.event.remove(store.engine, "before_cursor_execute", grab)
    assert seen
    return seen


def _plan(store: Store, statement: str, params: Any) -> str:
    with store.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params).all()
            return "\n".join(str(r[-1]) for r in rows)
        with conn.begin():
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            rows = conn.exec_driver_sql(f"EXPLAIN {statement}", params).all()
            return "\n".join(str(r[0]) for r in rows)


OPS: dict[str, Callable[[Store], Any]] = {
    "settlement commit lookups": lambda s: s.post_many([_tx("h-new-1"), _tx("h-new-2")], 9_000),
    "GetBalance": lambda s: s.balance("player:a"),
    "balances of a prefix": lambda s: s.balances("rake:"),
    "GetRakeSummary": lambda s: s.rake_summary(),
    "GetRakeSummary of a variant": lambda s: s.rake_summary("baccarat"),
    "settled count": lambda s: s.count_settlements("baccarat"),
    "settled count of some tables": lambda s: s.count_settlements(table_ids=["t1", "t2"]),
}


@pytest.mark.parametrize("name", list(OPS))
def test_money_queries_use_indexes(store: Store, name: str) -> None:
    store.post_many([_tx(f"h{n:04d}") for n in range(300)], 1_000)
    if store.dialect == "sqlite":
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
    for statement, params in _selects(store, lambda: OPS[name](store)):
        text = _plan(store, statement, params)
        for line in text.splitlines():
            if store.dialect == "sqlite":
                # SCAN reads a whole table or index; SEARCH reads a range of one
                assert "SCAN" not in line and "TEMP B-TREE" not in line, (name, statement, text)
            else:
                assert "Seq Scan" not in line, (name, statement, text)


@pytest.mark.parametrize("variant", [None, "baccarat"])
def test_a_windowed_rake_summary_reads_the_window_by_index(
    store: Store, variant: str | None
) -> None:
    """A report over a time window reads the window's transactions by ``created_at_ms``
    and their postings by key (there is no index on ``account``: revision 0015); it sums
    the window's rows (SQLite's temporary B-trees for the grouping are over those rows
    alone), it does not scan the ledger."""
    store.post_many([_tx(f"h{n:04d}") for n in range(300)], 1_000)
    store.post_many([_tx(f"w{n:04d}") for n in range(3)], 5_000)
    if store.dialect == "sqlite":
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE")
    op = lambda: store.rake_summary(variant, since_ms=4_000, until_ms=6_000)  # noqa: E731
    for statement, params in _selects(store, op):
        text = _plan(store, statement, params)
        for line in text.splitlines():
            scan = "SCAN" in line if store.dialect == "sqlite" else "Seq Scan" in line
            assert not scan, (statement, text)
    assert op() == [RakeTotal("baccarat", 15, 3)]
