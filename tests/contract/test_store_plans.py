"""The queries a dealer start, the table feed and the log's append run are served by
indexes, so their cost follows what they return (open tables, a table's new events, one
leaf), not the size of the log:
each query's plan is asked of the database itself (``EXPLAIN QUERY PLAN`` on SQLite;
``EXPLAIN`` on PostgreSQL with sequential scans disabled, so a plan that still scans a
table has no index to use)."""

from __future__ import annotations

import hashlib
from typing import Any

import sqlalchemy as sa

from croupier.store import Store, feed, leases, outbox, tables, tlog
from croupier.store import events as ev

QUERIES: dict[str, tuple[Any, set[str]]] = {
    "open tables": (tables.open_tables_query(None, 1000), {"ix_dealer_tables_status_table_id"}),
    "open tables, next page": (
        tables.open_tables_query("t_0500", 1000),
        {"ix_dealer_tables_status_table_id"},
    ),
    "a table's events": (
        feed.table_events_query("t1", 100, 5000, 500),
        {"ix_events_table_id_global_pos"},
    ),
    "a table's events from its start": (
        feed.table_events_query("t1", 0, None, 500),
        {"ix_events_table_id_global_pos"},
    ),
    "new positions": (feed.positions_query(100, 2000), set()),
    "the log's last leaf, before each append": (tlog.last_leaf_query(), set()),
    "open tables whose lease ran out": (
        leases.orphaned_query(1_000_000, 100),
        {"ix_dealer_tables_status_table_id"},
    ),
    "which of a batch's hands the store holds": (
        ev.known_streams_query([f"t1_h{i}" for i in range(50)]),
        set(),
    ),
    "where a batch's hands begin in the log (the audit's order)": (
        ev._OPENED_AT_IN.params(ids=[f"t1_h{i}" for i in range(50)]),
        set(),
    ),
    "closed hands without outcome": (
        ev.closed_hands_query(1_000),
        {"ix_streams_opened_at_ms_stream_id"},
    ),
    "a variant's hands, a later page (croupier audit --variant, ListHands)": (
        ev.streams_query(kind="hand", variant="baccarat", after_stream_id="t1_h5", limit=1000),
        {"ix_streams_variant_stream_id"},
    ),
    "a table's hands, a later page": (
        ev.streams_query(kind="hand", table_id="t1", after_stream_id="t1_h5", limit=1000),
        {"ix_streams_table_id_stream_id"},
    ),
    "a time window's hands, the first page (croupier audit --day)": (
        ev.opened_hands_query(1_000, 2_000, None, 1000),
        {"ix_streams_opened_at_ms_stream_id"},
    ),
    "a time window's hands, a later page": (
        ev.opened_hands_query(1_000, 2_000, (1_500, "t1_h5"), 1000),
        {"ix_streams_opened_at_ms_stream_id"},
    ),
    "a relay's waiting rows": (
        (outbox._PENDING, {"producer": "dealer", "limit": 256}),
        {"ix_outbox_producer_id"},
    ),
    "a published row's delete (SQLite, a row at a time)": (
        (outbox._DELETE_ONE, {"row_id": 7, "row_msg_id": "hand:t1_h1"}),
        set(),
    ),
}


def plan(store: Store, query: Any) -> str:
    """The plan of ``query``: a statement with its values, or ``(statement, params)``
    for one whose values are bound at execution (an UPDATE or DELETE)."""
    with store.engine.connect() as conn:
        args: Any = ()
        if isinstance(query, tuple):
            stmt, params = query
            compiled = stmt.compile(dialect=conn.dialect)
            sql = str(compiled)
            bound = compiled.construct_params(params)
            order = compiled.positiontup
            args = tuple(bound[n] for n in order) if order is not None else bound
        else:
            sql = str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
        if conn.dialect.name == "sqlite":
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", args).all()
            return "\n".join(str(r[-1]) for r in rows)
        with conn.begin():
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            rows = conn.exec_driver_sql(f"EXPLAIN {sql}", args or None).all()
            return "\n".join(str(r[0]) for r in rows)


def test_recovery_and_feed_queries_use_indexes(store: Store) -> None:
    for name, (query, indexes) in QUERIES.items():
        text = plan(store, query)
        for line in text.splitlines():
            if store.dialect == "sqlite":
                # SCAN reads a whole table or index; SEARCH reads a range of one
                assert "SCAN" not in line and "TEMP B-TREE" not in line, (name, text)
            else:
                assert "Seq Scan" not in line, (name, text)
        for ix in indexes:
            assert ix in text, (name, ix, text)


def test_the_feed_index_is_used_on_a_filled_log(store: Store) -> None:
    """With statistics of a log where one table is a small part, the planner still
    reads the table's range of the feed index (not the log in position order)."""
    with store.engine.begin() as conn:
        conn.execute(
            sa.insert(tables.schema.streams),
            [
                {
                    "stream_id": f"t{n % 50}_h{n}",
                    "kind": "hand",
                    "variant": "baccarat",
                    "table_id": f"t{n % 50}",
                    "shoe_id": None,
                    "opened_at_ms": n,
                }
                for n in range(2000)
            ],
        )
        conn.execute(
            sa.insert(tables.schema.events),
            [
                {
                    "stream_id": f"t{n % 50}_h{n}",
                    "seq": 0,
                    "type": "hand.opened",
                    "producer": "dealer",
                    "key_id": "k",
                    "prev_hash": bytes(32),
                    "hash": hashlib.sha256(str(n).encode()).digest(),
                    "payload": b"{}",
                    "table_id": f"t{n % 50}",
                }
                for n in range(2000)
            ],
        )
        if store.dialect == "sqlite":
            conn.exec_driver_sql("ANALYZE")
        else:
            conn.exec_driver_sql("ANALYZE streams")
            conn.exec_driver_sql("ANALYZE events")
    text = plan(store, feed.table_events_query("t1", 0, None, 500))
    assert "ix_events_table_id_global_pos" in text, text
