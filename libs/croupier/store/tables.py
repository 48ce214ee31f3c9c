"""The dealer's table registry: one row per table it ever opened.

A row says what a restarted dealer needs to resume the table without reading its
history: whether it is open, its variant and client seed, its current (or last) shoe,
how many shoes and hands it has numbered, its unfinished hand and the carry its next
hand inherits. The dealer writes a table's row in the same transaction as the events
that change it, so the row and the log always agree. Recovery reads the open rows
(:func:`open_tables`, an index range on ``status``), never the whole log; a closed row
keeps the counters a reopened table continues from, so its ids are never reused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier import canonical
from croupier.errors import InvalidInput
from croupier.picklable import ByFields
from croupier.store import schema
from croupier.store.db import AnyRow, Database, execute_rows, insert_of_rows, per_dialect

TableStatus = Literal["open", "closed"]
_T = schema.dealer_tables


@dataclass(frozen=True, slots=True)
class TableRecord(ByFields):
    """What the store keeps of one table (see the module docstring)."""

    table_id: str
    variant: str
    client_seed: str
    status: str  # a TableStatus
    shoe_id: str | None
    shoe_count: int
    hand_count: int
    hand_id: str | None
    carry: dict[str, Any] = field(default_factory=dict)
    updated_at_ms: int = 0

    def __post_init__(self) -> None:
        if self.status not in ("open", "closed"):
            raise InvalidInput(f"table status must be open or closed, not {self.status!r}")
        for name in ("table_id", "shoe_id", "hand_id"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, str) or not 0 < len(v) <= schema.ID_LEN):
                raise InvalidInput(f"{name} must be 1..{schema.ID_LEN} characters")
        if self.shoe_count < 0 or self.hand_count < 0:
            raise InvalidInput("table counters are non-negative")

    @property
    def open(self) -> bool:
        return self.status == "open"


def _row(t: TableRecord) -> dict[str, Any]:
    return {
        "table_id": t.table_id,
        "variant": t.variant,
        "client_seed": t.client_seed,
        "status": t.status,
        "shoe_id": t.shoe_id,
        "shoe_count": t.shoe_count,
        "hand_count": t.hand_count,
        "hand_id": t.hand_id,
        "carry": canonical.dumps(t.carry, check=False),
        "updated_at_ms": t.updated_at_ms,
    }


def _record(r: AnyRow) -> TableRecord:
    return TableRecord(
        table_id=r.table_id,
        variant=r.variant,
        client_seed=r.client_seed,
        status=r.status,
        shoe_id=r.shoe_id,
        shoe_count=int(r.shoe_count),
        hand_count=int(r.hand_count),
        hand_id=r.hand_id,
        carry=dict(canonical.loads(bytes(r.carry))),
        updated_at_ms=int(r.updated_at_ms),
    )


def put_tables(conn: Connection, tables: Sequence[TableRecord]) -> int:
    """Insert or replace the rows of ``tables`` (the last of one id wins)."""
    rows = list({t.table_id: _row(t) for t in tables}.values())
    if not rows:
        return 0
    execute_rows(conn, per_dialect(conn, _upsert, tuple(rows[0])), rows)
    return len(rows)


def _upsert(dialect: Any, columns: tuple[str, ...]) -> Any:
    """The insert-or-replace of rows with ``columns`` (every commit of the dealer runs
    it; built once per dialect and column set, :func:`per_dialect`), each value bound by
    its column's name (:func:`insert_of_rows`: on PostgreSQL one statement for all the
    rows)."""
    ins = insert_of_rows(dialect, _T, columns)
    cols = {c: ins.excluded[c] for c in columns if c != "table_id"}
    return ins.on_conflict_do_update(index_elements=["table_id"], set_=cols)


def get_table(conn: Connection, table_id: str) -> TableRecord | None:
    r = conn.execute(sa.select(_T).where(_T.c.table_id == table_id)).first()
    return None if r is None else _record(r)


def open_tables_query(after_table_id: str | None = None, limit: int = 1000) -> sa.Select[Any]:
    """The open rows in id order, one page (an index range on ``(status, table_id)``)."""
    q = sa.select(_T).where(_T.c.status == "open").order_by(_T.c.table_id).limit(limit)
    if after_table_id is not None:
        q = q.where(_T.c.table_id > after_table_id)
    return q


def open_tables(
    conn: Connection, after_table_id: str | None = None, limit: int = 1000
) -> list[TableRecord]:
    return [_record(r) for r in conn.execute(open_tables_query(after_table_id, limit))]


class TableRegistry(Database):
    """The table registry (each call its own transaction; write rows inside
    :meth:`croupier.store.Store.transaction` together with the table's events)."""

    def put_tables(self, tables: Sequence[TableRecord]) -> int:
        with self._write() as conn:
            return put_tables(conn, tables)

    def get_table(self, table_id: str) -> TableRecord | None:
        with self._read() as conn:
            return get_table(conn, table_id)

    def open_tables(self, page: int = 1000) -> Iterator[TableRecord]:
        """Every open table, read a page at a time."""
        after: str | None = None
        while True:
            with self._read() as conn:
                rows = open_tables(conn, after, page)
            yield from rows
            if len(rows) < page:
                return
            after = rows[-1].table_id
