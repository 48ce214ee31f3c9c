"""``select_rows`` on every backend reads what SQLAlchemy's execution reads: the same
values in the same order, for one id, several, a full chunk, ids that match nothing and
ids that repeat; on SQLite through the driver (SQL compiled once per number of ids) when
no column converts its values, through SQLAlchemy when one does; a driver's error is
SQLAlchemy's exception for it. ``select_params`` (named parameters) and ``execute_each``
(one statement a row) likewise, with the statements of the relay's passes among those
that take the driver's path."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.store import db, schema
from croupier.store import events as store_events
from croupier.store import ledger as store_ledger
from croupier.store import outbox as store_outbox
from croupier.store import settlements as store_settlements
from croupier.store import tables as store_tables
from croupier.store import tlog as store_tlog

META = sa.MetaData()
ROWS = sa.Table(
    "select_rows_probe",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("big", sa.BigInteger, nullable=True),
    sa.Column("name", sa.String(20), nullable=True),
    sa.Column("blob", schema.Bytes, nullable=True),
)
WHEN = sa.Table(
    "select_rows_when",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("at", sa.DateTime),
)
BY_ID = sa.select(ROWS).where(ROWS.c.id.in_(db.IDS)).order_by(ROWS.c.id)
WHEN_BY_ID = sa.select(WHEN).where(WHEN.c.id.in_(db.IDS)).order_by(WHEN.c.id)
BY_NAME = (
    sa.select(ROWS)
    .where(ROWS.c.id >= sa.bindparam("from_id"), ROWS.c.name != sa.bindparam("not_name"))
    .order_by(ROWS.c.id.desc())
    .limit(sa.bindparam("limit"))
)
WHEN_FROM = sa.select(WHEN).where(WHEN.c.id >= sa.bindparam("from_id"))
DELETE_ONE = ROWS.delete().where(
    ROWS.c.id == sa.bindparam("row_id"), ROWS.c.name == sa.bindparam("row_name")
)


def _fill(engine: sa.Engine) -> None:
    META.create_all(engine)
    rows = [
        {"id": i, "big": 2**62 + i, "name": f"名{i}'?", "blob": bytes([i % 256])}
        for i in range(300)
    ]
    with engine.begin() as c:
        db.insert_rows(c, ROWS, rows)
        db.insert_rows(c, WHEN, [{"id": 1, "at": dt.datetime(2026, 12, 7, 1, 2, 3)}])


def _as_tuples(rows: object) -> list[tuple[object, ...]]:
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "ids",
    [[3], [0, 1], list(range(7)), list(range(store_events.CHUNK)), [10_000, 3], [2, 2, 5]],
)
def test_rows_read_as_sqlalchemy_reads_them(engine: sa.Engine, ids: list[int]) -> None:
    META.create_all(engine)
    rows = [
        {
            "id": i,
            "big": None if i % 2 else 2**62 + i,
            "name": f"名{i}'\"%s?",
            "blob": None if i % 3 == 0 else bytes([i % 256, 0, 255]),
        }
        for i in range(600)
    ]
    with engine.begin() as c:
        db.insert_rows(c, ROWS, rows)
        db.insert_rows(c, WHEN, [{"id": 1, "at": dt.datetime(2026, 12, 7, 1, 2, 3)}])
    with engine.connect() as c:
        got = _as_tuples(db.select_rows(c, BY_ID, ids))
        want = _as_tuples(c.execute(BY_ID, {"ids": ids}).all())
        when = list(db.select_rows(c, WHEN_BY_ID, [1, 2]))
    assert got == want
    assert [r[0] for r in got] == sorted(i for i in set(ids) if i < 600)
    assert [tuple(r) for r in when] == [(1, dt.datetime(2026, 12, 7, 1, 2, 3))]  # converted
    if engine.dialect.name == "sqlite":
        assert db._SQLITE_SELECTS[(id(BY_ID), len(ids))][1] is not None  # the driver's path
        assert db._SQLITE_SELECTS[(id(WHEN_BY_ID), 2)][1] is None  # left to SQLAlchemy
        assert type(got[0]) is tuple


def test_a_drivers_error_is_sqlalchemys(engine: sa.Engine) -> None:
    META.create_all(engine)
    gone = sa.Table("select_rows_gone", sa.MetaData(), sa.Column("id", sa.Integer))
    stmt = sa.select(gone).where(gone.c.id.in_(db.IDS))
    with engine.connect() as c, pytest.raises(sa.exc.DBAPIError) as caught:
        db.select_rows(c, stmt, [1])
    assert "select_rows_gone" in str(caught.value)


def test_the_stores_hot_reads_take_the_driver_path(tmp_path: Path) -> None:
    """The reads of an audited range (events, seals and who names them, settlements,
    their postings) have no converting column: on SQLite they skip SQLAlchemy."""
    hot = [
        store_events._EVENTS_IN,
        store_events._SEALS_IN,
        store_events._NAMING_IN,
        store_settlements._ST_IN,
        store_settlements._POSTINGS_IN,
        store_events._STREAMS_IN,  # an append's streams and their heads
        store_events._HEADS_IN,
        store_ledger._TX_BY_KEY_IN,  # a settlement commit's look-ups
        store_ledger._TX_BY_HAND_IN,
        store_settlements._TX_OF_IN,
    ]
    eng = db.create_engine(f"sqlite:///{tmp_path / 'hot.sqlite'}")
    with eng.connect() as c:
        for stmt in hot:
            assert db._sqlite_select(c, stmt, 3) is not None, stmt
    eng.dispose()


@pytest.mark.parametrize(
    "params",
    [
        {"from_id": 0, "not_name": "名3'?", "limit": 5},
        {"from_id": 290, "not_name": "", "limit": 100},
        {"from_id": 10, "not_name": "x", "limit": 0},
        {"from_id": 1_000, "not_name": "x", "limit": 3},
    ],
)
def test_named_parameters_read_as_sqlalchemy_reads_them(
    engine: sa.Engine, params: dict[str, object]
) -> None:
    _fill(engine)
    with engine.connect() as c:
        got = _as_tuples(db.select_params(c, BY_NAME, params))
        want = _as_tuples(c.execute(BY_NAME, params).all())
        when = list(db.select_params(c, WHEN_FROM, {"from_id": 0}))
    assert got == want
    assert len(got) == min(int(params["limit"]), max(0, 300 - int(params["from_id"])))
    assert [tuple(r) for r in when] == [(1, dt.datetime(2026, 12, 7, 1, 2, 3))]  # converted
    if engine.dialect.name == "sqlite":
        assert db._SQLITE_NAMED[id(BY_NAME)][1] is not None  # the driver's path
        assert db._SQLITE_NAMED[id(WHEN_FROM)][1] is None  # left to SQLAlchemy
        assert not got or type(got[0]) is tuple


def test_a_missing_parameter_is_refused(engine: sa.Engine) -> None:
    _fill(engine)
    with engine.connect() as c, pytest.raises((sa.exc.InvalidRequestError, sa.exc.StatementError)):
        db.select_params(c, BY_NAME, {"from_id": 0, "limit": 5})
    with engine.begin() as c, pytest.raises((sa.exc.InvalidRequestError, sa.exc.StatementError)):
        db.execute_each(c, DELETE_ONE, [{"row_id": 1}])
    with engine.connect() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(ROWS)).scalar_one() == 300


def test_execute_each_changes_each_named_row_and_counts_them(engine: sa.Engine) -> None:
    _fill(engine)
    with engine.begin() as c:
        n = db.execute_each(
            c,
            DELETE_ONE,
            [
                {"row_id": 3, "row_name": "名3'?"},
                {"row_id": 4, "row_name": "not its name"},  # named by id and name: kept
                {"row_id": 299, "row_name": "名299'?"},
                {"row_id": 3, "row_name": "名3'?"},  # gone already
                {"row_id": 5_000, "row_name": "nobody"},
            ],
        )
        assert db.execute_each(c, DELETE_ONE, []) == 0
    assert n == 2
    with engine.connect() as c:
        left = [r[0] for r in c.execute(sa.select(ROWS.c.id).order_by(ROWS.c.id))]
    assert left == [i for i in range(300) if i not in (3, 299)]


def test_a_drivers_error_in_execute_each_is_sqlalchemys(engine: sa.Engine) -> None:
    META.create_all(engine)
    gone = sa.Table("select_rows_gone2", sa.MetaData(), sa.Column("id", sa.Integer))
    stmt = gone.delete().where(gone.c.id == sa.bindparam("row_id"))
    with engine.connect() as c, pytest.raises(sa.exc.DBAPIError) as caught:
        db.execute_each(c, stmt, [{"row_id": 1}])
    assert "select_rows_gone2" in str(caught.value)


def test_the_relays_and_the_commits_statements_take_the_driver_path(tmp_path: Path) -> None:
    eng = db.create_engine(f"sqlite:///{tmp_path / 'relay.sqlite'}")
    with eng.connect() as c:
        assert db._sqlite_named(c, store_outbox._PENDING, result=True) is not None
        assert db._sqlite_named(c, store_outbox._DELETE_ONE, result=False) is not None
        cols = tuple(c.name for c in schema.dealer_tables.columns)
        upsert = db.per_dialect(c, store_tables._upsert, cols)
        assert db._sqlite_named(c, upsert, result=False) is not None
        totals = db.per_dialect(c, store_ledger._totals_add)
        assert db._sqlite_named(c, totals, result=False) is not None
        assert db._sqlite_named(c, store_ledger._TX_NEXT_ID, result=True) is not None
        assert db._sqlite_named(c, store_tlog._LAST_LEAF, result=True) is not None
    eng.dispose()
