"""``insert_rows`` writes what SQLAlchemy's insert writes: on SQLite through the
driver's ``executemany`` when no column converts its values, through SQLAlchemy when one
does (here a ``DateTime``, which SQLite stores as text)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import sqlalchemy as sa

from croupier.store import schema
from croupier.store.db import _SQLITE_INSERTS, create_engine, insert_rows

META = sa.MetaData()
PLAIN = sa.Table(
    "plain",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(20)),
    sa.Column("blob", schema.Bytes),
    sa.Column("n", sa.BigInteger),
)
CONVERTED = sa.Table(
    "converted",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("at", sa.DateTime),
)


def test_rows_written_either_way_read_back_the_same(tmp_path: Path) -> None:
    eng = create_engine(f"sqlite:///{tmp_path / 'x.sqlite'}")
    META.create_all(eng)
    rows = [{"id": i, "name": f"名{i}", "blob": bytes([i]) * 3, "n": 2**62 + i} for i in range(5)]
    at = dt.datetime(2026, 12, 2, 7, 0, 0)
    with eng.begin() as c:
        insert_rows(c, PLAIN, rows[:3])
        c.execute(PLAIN.insert(), rows[3:])  # the reference path
        insert_rows(c, CONVERTED, [{"id": 1, "at": at}])
        insert_rows(c, PLAIN, [])  # nothing
    with eng.connect() as c:
        got = [dict(r) for r in c.execute(sa.select(PLAIN).order_by(PLAIN.c.id)).mappings()]
        when = c.execute(sa.select(CONVERTED.c.at)).scalar_one()
        raw_when = c.exec_driver_sql("SELECT at FROM converted").scalar_one()
    assert got == rows
    assert when == at and raw_when == "2026-12-02 07:00:00.000000"  # SQLAlchemy's text form
    assert _SQLITE_INSERTS[("plain", ("id", "name", "blob", "n"))] is not None
    assert _SQLITE_INSERTS[("converted", ("id", "at"))] is None  # left to SQLAlchemy
    eng.dispose()


def test_the_stores_hot_tables_take_the_driver_path(tmp_path: Path) -> None:
    """The tables a commit writes by the thousand have no converting column, so their
    rows skip SQLAlchemy's per-row parameter building."""
    from croupier.store.db import _sqlite_insert

    eng = create_engine(f"sqlite:///{tmp_path / 'y.sqlite'}")
    hot = ("events", "streams", "seals", "seal_heads", "ledger_postings", "settlements")
    hot += ("tlog_leaves", "tlog_nodes")
    with eng.connect() as c:
        for name in hot:
            t = schema.metadata.tables[name]
            assert _sqlite_insert(c, t, tuple(t.c.keys())) is not None, name
    eng.dispose()


def test_insert_new_leaves_out_taken_keys_and_says_which_it_stored(tmp_path: Path) -> None:
    """``insert_new`` (``ON CONFLICT DO NOTHING``, ``RETURNING`` the keys stored) gives the
    same rows and the same answer through the driver and through SQLAlchemy (a table
    with a converting column), and past one multi-row ``VALUES``."""
    from croupier.store.db import _VALUES_ROWS, insert_new

    eng = create_engine(f"sqlite:///{tmp_path / 'n.sqlite'}")
    META.create_all(eng)
    rows = [{"id": i, "name": f"n{i}", "blob": b"\0" * i, "n": i} for i in range(_VALUES_ROWS + 7)]
    at = dt.datetime(2026, 12, 6, 15, 0, 0)
    with eng.begin() as c:
        insert_rows(c, PLAIN, rows[::3])  # every third key taken already
        assert insert_new(c, PLAIN, [], ("id",), returning="id") == []
        again = [{**r, "name": "other"} for r in rows]
        stored = insert_new(c, PLAIN, again, ("id",), returning="id")
        assert sorted(stored) == [r["id"] for r in rows if r["id"] % 3]
        assert insert_new(c, PLAIN, again[:5], ("id",)) == []  # all taken: nothing, no error
        insert_rows(c, CONVERTED, [{"id": 1, "at": at}])
        got = insert_new(c, CONVERTED, [{"id": 1, "at": at}, {"id": 2, "at": at}], ("id",), "id")
        assert got == [2]  # through SQLAlchemy: the same answer
    with eng.connect() as c:
        names = dict(c.execute(sa.select(PLAIN.c.id, PLAIN.c.name)).all())
        blobs = dict(c.execute(sa.select(PLAIN.c.id, PLAIN.c.blob)).all())
    assert names == {r["id"]: r["name"] if r["id"] % 3 == 0 else "other" for r in rows}
    assert blobs == {r["id"]: r["blob"] for r in rows}
    assert _SQLITE_INSERTS[("plain", ("id", "name", "blob", "n"))] is not None  # the driver's
    eng.dispose()
