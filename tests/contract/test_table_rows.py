"""The dealer's table rows on every backend: ``put_tables`` inserts a table and replaces
it in place (every column, ``None`` included), the last of one id in a call wins, and
what is read back is what was put; on SQLite the upsert goes to the driver as SQL
compiled once (``execute_each``), on PostgreSQL as one statement over arrays
(``insert_of_rows``), with the same result."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from croupier.store import tables
from croupier.store.tables import TableRecord


def _t(table_id: str, **kw: object) -> TableRecord:
    base: dict[str, object] = {
        "variant": "baccarat",
        "client_seed": "cs",
        "status": "open",
        "shoe_id": f"{table_id}_s1",
        "shoe_count": 1,
        "hand_count": 0,
        "hand_id": None,
        "carry": {},
        "updated_at_ms": 1,
    }
    base.update(kw)
    return TableRecord(table_id, **base)  # type: ignore[arg-type]


def test_tables_are_inserted_replaced_in_place_and_read_back(engine: sa.Engine) -> None:
    reg = tables.TableRegistry(engine)
    assert reg.put_tables([]) == 0
    assert reg.put_tables([_t("t1"), _t("t2", carry={"last_bets": [1, 2]})]) == 2
    later = _t("t1", hand_count=7, hand_id="t1_h7", carry={"x": "名"}, updated_at_ms=9)
    last = _t("t2", status="closed", shoe_id=None, updated_at_ms=10)
    # the last of one id in a call wins
    assert reg.put_tables([later, _t("t2", hand_count=3), last]) == 2
    assert reg.get_table("t1") == later
    assert reg.get_table("t2") == last
    assert reg.get_table("t3") is None
    assert [t.table_id for t in reg.open_tables()] == ["t1"]
    with engine.connect() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(tables._T)).scalar_one() == 2


def test_a_commit_of_many_tables_is_one_statement_on_postgresql(engine: sa.Engine) -> None:
    """30 tables in one call, ``None`` and a non-ASCII carry among them, read back as put;
    on PostgreSQL one ``INSERT … SELECT … FROM unnest(…)`` for all of them
    (:func:`croupier.store.db.insert_of_rows`), not one statement a row."""
    reg = tables.TableRegistry(engine)
    rows = [
        _t(f"t{i}", hand_count=i, hand_id=f"t{i}_h{i}" if i % 2 else None, carry={"名": i})
        for i in range(30)
    ]
    reg.put_tables(rows[:10])
    seen: list[bool] = []

    def note(conn: Any, cur: Any, statement: str, params: Any, ctx: Any, many: bool) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO") and " dealer_tables " in statement:
            seen.append(many)

    event.listen(engine, "before_cursor_execute", note)
    try:
        assert reg.put_tables([_t(r.table_id, status="closed", shoe_id=None) for r in rows]) == 30
    finally:
        event.remove(engine, "before_cursor_execute", note)
    for r in rows:
        assert reg.get_table(r.table_id) == _t(r.table_id, status="closed", shoe_id=None)
    if engine.dialect.name == "postgresql":
        assert seen == [False]
