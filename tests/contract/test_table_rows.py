"""The dealer's table rows on every backend: ``put_tables`` inserts a table and replaces
it in place (every column, ``None`` included), the last of one id in a call wins, and
what is read back is what was put; on SQLite the upsert goes to the driver as SQL
compiled once (``execute_each``), elsewhere through SQLAlchemy, with the same result."""

from __future__ import annotations

import sqlalchemy as sa

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
