"""``select_rows`` on every backend reads what SQLAlchemy's execution reads: the same
values in the same order, for one id, several, a full chunk, ids that match nothing and
ids that repeat; on SQLite through the driver (SQL compiled once per number of ids) when
no column converts its values, through SQLAlchemy when one does; a driver's error is
SQLAlchemy's exception for it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.store import db, schema
from croupier.store import events as store_events
from croupier.store import settlements as store_settlements

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
    ]
    eng = db.create_engine(f"sqlite:///{tmp_path / 'hot.sqlite'}")
    with eng.connect() as c:
        for stmt in hot:
            assert db._sqlite_select(c, stmt, 3) is not None, stmt
    eng.dispose()
