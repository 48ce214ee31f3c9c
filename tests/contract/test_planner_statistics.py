"""The planner's statistics and the dead rows kept by the services where the server does
not (:class:`croupier.store.planner.TableKeeper`): on PostgreSQL a table changed past
autovacuum's threshold is stale until analyzed, the keeper analyzes exactly the stale
tables of the store's schema and vacuums those past autovacuum's vacuum thresholds (with
autovacuum off, or always when told), and on SQLite it has nothing to do."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.store.planner import (
    ANALYZE_THRESHOLD,
    VACUUM_THRESHOLD,
    TableKeeper,
    autovacuum_on,
    stale_tables,
    tables_to_vacuum,
)


def _fill_outbox(engine: sa.Engine, n: int) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO outbox (producer, subject, msg_id, payload, created_at_ms)"
                " VALUES ('rules', 's', :m, :p, 1)"
            ),
            [{"m": f"m{i}", "p": b"x"} for i in range(n)],
        )


def _outbox_among(
    engine: sa.Engine,
    tables: Callable[[Connection], list[str]],
    want: bool,
    timeout_s: float = 10.0,
) -> list[str]:
    """``tables(conn)``, once the server's counters show ``outbox`` (not) among them
    (they reach the statistics a moment after the commit)."""
    deadline = time.monotonic() + timeout_s
    while True:
        with engine.connect() as conn:
            got = tables(conn)
        if ("outbox" in got) == want or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def _stale(engine: sa.Engine, want: bool) -> list[str]:
    return _outbox_among(engine, stale_tables, want)


def _needs_vacuum(engine: sa.Engine, want: bool) -> list[str]:
    return _outbox_among(engine, tables_to_vacuum, want)


def test_the_keeper_analyzes_the_stale_tables_of_its_schema(engine: sa.Engine) -> None:
    keeper = TableKeeper(engine, always=True)
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
    keeper = TableKeeper(engine)
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
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM outbox")
    _needs_vacuum(engine, True)
    assert ("outbox" in keeper.vacuum_once()) is not on


def test_the_keeper_leaves_its_connection_as_it_found_it(engine: sa.Engine) -> None:
    """The lock timeout of its ``ANALYZE`` is the transaction's own: the pooled
    connection goes back with the server's setting."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect() as conn:
        before = conn.exec_driver_sql("SHOW lock_timeout").scalar()
    _fill_outbox(engine, ANALYZE_THRESHOLD + 200)
    _stale(engine, True)
    assert "outbox" in TableKeeper(engine, always=True, lock_timeout_ms=1234).once()
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == before


def _dead(engine: sa.Engine) -> tuple[int, object]:
    with engine.connect() as conn:
        row = conn.exec_driver_sql(
            "SELECT n_dead_tup, last_vacuum FROM pg_stat_user_tables"
            " WHERE schemaname = current_schema() AND relname = 'outbox'"
        ).one()
    return int(row[0]), row[1]


def test_the_keeper_vacuums_the_dead_rows_of_the_outbox(engine: sa.Engine) -> None:
    """Every outbox row is deleted once published; without autovacuum nothing took the
    dead rows out and each read of the oldest rows walked all of them. The keeper
    vacuums a table past autovacuum's thresholds, and only then."""
    keeper = TableKeeper(engine, always=True)
    if engine.dialect.name != "postgresql":
        assert keeper.vacuum_once() == [] and keeper.pass_once() == ([], [])
        return
    _fill_outbox(engine, VACUUM_THRESHOLD + 300)
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM outbox")
    assert "outbox" in _needs_vacuum(engine, True)
    assert _dead(engine)[0] >= VACUUM_THRESHOLD + 300
    vacuumed = keeper.vacuum_once()
    assert "outbox" in vacuumed and keeper.vacuumed == len(vacuumed)
    assert "outbox" not in _needs_vacuum(engine, False)
    dead, last = _dead(engine)
    assert dead == 0 and last is not None
    assert "outbox" not in keeper.vacuum_once()  # nothing past the thresholds any more


def test_a_role_that_does_not_own_the_tables_leaves_them_to_the_server(
    engine: sa.Engine,
) -> None:
    """A service logged in with fewer rights (``croupier db roles``) may neither analyze
    nor vacuum the store's tables: the keeper does not ask, where the owner's would."""
    if engine.dialect.name != "postgresql":
        return
    _fill_outbox(engine, VACUUM_THRESHOLD + 300)
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM outbox")
    assert "outbox" in _needs_vacuum(engine, True) and "outbox" in _stale(engine, True)
    role = f"croupier_t_keeper_{uuid.uuid4().hex[:8]}"
    with engine.connect() as conn:
        schema = conn.exec_driver_sql("SELECT current_schema()").scalar()
        conn.exec_driver_sql(f'CREATE ROLE "{role}" NOLOGIN')
        conn.exec_driver_sql(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
        conn.commit()
        try:
            with conn.begin():
                conn.exec_driver_sql(f'SET LOCAL ROLE "{role}"')
                assert conn.exec_driver_sql("SELECT current_schema()").scalar() == schema
                assert tables_to_vacuum(conn) == [] and stale_tables(conn) == []
        finally:
            conn.exec_driver_sql(f'REVOKE USAGE ON SCHEMA "{schema}" FROM "{role}"')
            conn.exec_driver_sql(f'DROP ROLE "{role}"')
            conn.commit()
