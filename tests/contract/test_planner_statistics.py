"""The planner's statistics kept by the services where the server does not
(:class:`croupier.store.planner.StatisticsKeeper`): on PostgreSQL a table changed past
autovacuum's threshold is stale until analyzed, the keeper analyzes exactly the stale
tables of the store's schema (with autovacuum off, or always when told), and on SQLite
it has nothing to do."""

from __future__ import annotations

import time

import sqlalchemy as sa

from croupier.store.planner import ANALYZE_THRESHOLD, StatisticsKeeper, autovacuum_on, stale_tables


def _fill_outbox(engine: sa.Engine, n: int) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO outbox (producer, subject, msg_id, payload, created_at_ms)"
                " VALUES ('rules', 's', :m, :p, 1)"
            ),
            [{"m": f"m{i}", "p": b"x"} for i in range(n)],
        )


def _stale(engine: sa.Engine, want: bool, timeout_s: float = 10.0) -> list[str]:
    """The stale tables, once the server's counters show ``outbox`` (not) among them
    (they reach the statistics a moment after the commit)."""
    deadline = time.monotonic() + timeout_s
    while True:
        with engine.connect() as conn:
            stale = stale_tables(conn)
        if ("outbox" in stale) == want or time.monotonic() > deadline:
            return stale
        time.sleep(0.1)


def test_the_keeper_analyzes_the_stale_tables_of_its_schema(engine: sa.Engine) -> None:
    keeper = StatisticsKeeper(engine, always=True)
    if engine.dialect.name != "postgresql":
        assert keeper.once() == [] and not keeper.autovacuum_off()
        return
    _fill_outbox(engine, ANALYZE_THRESHOLD + 200)
    assert "outbox" in _stale(engine, True)
    analyzed = keeper.once()
    assert "outbox" in analyzed and keeper.analyzed == len(analyzed)
    assert "outbox" not in _stale(engine, False)
    with engine.connect() as conn:
        last = conn.exec_driver_sql(
            "SELECT last_analyze FROM pg_stat_user_tables"
            " WHERE schemaname = current_schema() AND relname = 'outbox'"
        ).scalar()
        assert last is not None
        # the planner knows the table's size now
        assert (
            conn.exec_driver_sql(
                "SELECT reltuples FROM pg_class WHERE oid = 'outbox'::regclass"
            ).scalar()
            == ANALYZE_THRESHOLD + 200
        )
    assert keeper.once() == []  # nothing stale any more


def test_where_autovacuum_runs_the_keeper_leaves_it_to_the_server(engine: sa.Engine) -> None:
    keeper = StatisticsKeeper(engine)
    if engine.dialect.name != "postgresql":
        assert keeper.once() == []
        return
    _fill_outbox(engine, ANALYZE_THRESHOLD + 200)
    _stale(engine, True)
    with engine.connect() as conn:
        on = autovacuum_on(conn)
    assert keeper.autovacuum_off() is not on
    analyzed = keeper.once()
    assert ("outbox" in analyzed) is not on


def test_the_keeper_leaves_its_connection_as_it_found_it(engine: sa.Engine) -> None:
    """The lock timeout of its ``ANALYZE`` is the transaction's own: the pooled
    connection goes back with the server's setting."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect() as conn:
        before = conn.exec_driver_sql("SHOW lock_timeout").scalar()
    _fill_outbox(engine, ANALYZE_THRESHOLD + 200)
    _stale(engine, True)
    assert "outbox" in StatisticsKeeper(engine, always=True, lock_timeout_ms=1234).once()
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == before
