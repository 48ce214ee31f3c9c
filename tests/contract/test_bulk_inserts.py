"""``insert_rows`` on every backend writes what SQLAlchemy's insert writes: values of
every column type the store uses, NULLs in every row of a column, and a duplicate key
refused by the database with nothing written; ``insert_new`` writes the rows whose key
is new and names them."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from croupier.store import db, schema

META = sa.MetaData()
ROWS = sa.Table(
    "insert_rows_probe",
    META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("big", sa.BigInteger, nullable=True),
    sa.Column("name", sa.String(20), nullable=True),
    sa.Column("blob", schema.Bytes, nullable=True),
    sa.Column("text", sa.Text, nullable=True),
)


def _read(engine: sa.Engine, lo: int, hi: int) -> list[dict[str, object]]:
    with engine.connect() as c:
        q = sa.select(ROWS).where(ROWS.c.id.between(lo, hi)).order_by(ROWS.c.id)
        return [
            {**r, "blob": None if r["blob"] is None else bytes(r["blob"])}
            for r in c.execute(q).mappings()
        ]


def test_rows_read_back_as_sqlalchemy_wrote_them(engine: sa.Engine) -> None:
    META.create_all(engine)
    rows = [
        {
            "id": i,
            "big": None if i % 2 else 2**62 + i,
            "name": f"名{i}'\"%s",
            "blob": bytes([i, 0, 255]),
            "text": None,  # NULL in every row
        }
        for i in range(7)
    ]
    with engine.begin() as c:
        db.insert_rows(c, ROWS, rows)
        c.execute(ROWS.insert(), [{**r, "id": r["id"] + 100} for r in rows])  # the reference
    ours, reference = _read(engine, 0, 99), _read(engine, 100, 199)
    assert ours == rows
    assert [{**r, "id": r["id"] - 100} for r in reference] == ours
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as c:
        db.insert_rows(c, ROWS, rows[:1])  # a duplicate key is the database's error
    assert _read(engine, 0, 99) == rows


def test_a_batch_refused_in_a_savepoint_leaves_the_transaction_usable(engine: sa.Engine) -> None:
    """A batch (on PostgreSQL a ``COPY``: :data:`db.COPY_MIN_ROWS` rows or more) with a
    duplicate key raises ``IntegrityError`` and writes none of its rows; the transaction
    around the savepoint goes on, as the recorders' retry relies on. On PostgreSQL a
    value too long for its column is the database's ``DataError``."""
    META.create_all(engine)
    rows = [{"id": i, "big": i, "name": f"n{i}", "blob": b"x", "text": "t"} for i in range(6)]
    assert len(rows) >= db.COPY_MIN_ROWS
    with engine.begin() as c:
        db.insert_rows(c, ROWS, rows[:3])
        with pytest.raises(sa.exc.IntegrityError), c.begin_nested():
            db.insert_rows(c, ROWS, rows[2:])  # rows[2] is stored already
        db.insert_rows(c, ROWS, rows[3:])  # the same transaction, after the savepoint
    assert _read(engine, 0, 99) == rows
    if engine.dialect.name == "postgresql":
        assert (ROWS.name, tuple(rows[0])) in db._PG_COPIES  # the batches went in by COPY
        long = [{**r, "id": r["id"] + 10, "name": "x" * 21} for r in rows]
        with pytest.raises(sa.exc.DataError), engine.begin() as c:
            db.insert_rows(c, ROWS, long)
        assert _read(engine, 0, 99) == rows


def test_insert_new_writes_the_new_rows_and_names_them(engine: sa.Engine) -> None:
    """``insert_new`` leaves a stored key as it is and takes the first of a key given
    twice, every column type and NULLs written as SQLAlchemy writes them; with
    ``returning`` it names the rows it wrote. On PostgreSQL each call is one statement
    over arrays (:func:`db.insert_of_rows`, sent in psycopg's binary format), not one a
    row."""
    META.create_all(engine)
    rows = [
        {
            "id": i,
            "big": None if i % 3 == 0 else -(2**62) + i,
            "name": None if i % 2 else f"名{i}'\"%s",
            "blob": None if i % 4 == 1 else bytes([i % 256, 0, 255]) + b'\\"{},NULL',
            "text": None,
        }
        for i in range(300, 330)
    ]
    seen: list[bool] = []

    def note(conn: Any, cur: Any, statement: str, params: Any, ctx: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO") and ROWS.name in statement:
            seen.append(many)

    with engine.begin() as c:
        assert db.insert_new(c, ROWS, rows[:10], ("id",)) == []
    event.listen(engine, "before_cursor_execute", note)
    try:
        with engine.begin() as c:
            again = [{**r, "name": "changed"} for r in rows[5:15]]  # 5..9 stored already
            got = db.insert_new(c, ROWS, [*again, *rows[10:], rows[12]], ("id",), returning="id")
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert sorted(got) == list(range(310, 330))
    want = [*rows[:10], *again[5:], *rows[15:]]
    assert _read(engine, 300, 399) == want
    if engine.dialect.name == "postgresql":
        assert seen == [False]
        from psycopg.adapt import PyFormat
        from psycopg.types.array import ListBinaryDumper

        with engine.connect() as c:  # the arrays went in binary (db._binary_arrays)
            adapters = c.connection.driver_connection.adapters  # type: ignore[union-attr]
            assert adapters.get_dumper(list, PyFormat.AUTO) is ListBinaryDumper
