"""Revision 0010 drops the unique index on ``events.hash`` (an event's hash covers its
stream and seq, which are unique already). On SQLite the table is rebuilt: every row
keeps its position and bytes, and the rebuilt table still has its feed index and its
append-only triggers; the downgrade restores the constraint."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest
import sqlalchemy as sa
from alembic import command

from croupier.events import StreamWriter
from croupier.signing import Signer
from croupier.store import Store, StreamInfo, migrate, schema
from croupier.store.db import alembic_config, write_connection


def _hand(store: Store, signer: Signer, hand_id: str) -> None:
    w = StreamWriter(hand_id)
    for i in range(4):
        w.append(signer, "bet", {"seat": i, "amount": 100 + i})
    evs = w.take()
    with store.transaction() as uow:  # unsealed: the seals' table changes later (0012)
        uow.append(evs, [], [StreamInfo(hand_id, "hand", "baccarat", "t1", None, 1_000)])


def _events(engine: sa.Engine) -> list[tuple[object, ...]]:
    with engine.connect() as c:
        rows = c.execute(sa.select(schema.events).order_by(schema.events.c.global_pos)).all()
    return [tuple(r) for r in rows]


def _unique_sets(engine: sa.Engine) -> set[tuple[str, ...]]:
    insp = sa.inspect(engine)
    return {tuple(u["column_names"]) for u in insp.get_unique_constraints("events")}


def _refuses_changes(engine: sa.Engine) -> None:
    for sql in ("UPDATE events SET seq = seq + 100", "DELETE FROM events"):
        with pytest.raises(sa.exc.DatabaseError) as err, engine.begin() as c:
            c.exec_driver_sql(sql)
        assert "append-only" in str(err.value)


def test_the_hash_index_goes_and_the_log_stays_as_it_was(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("0009") as eng:
        store = Store(eng)
        for h in ("h1", "h2", "h3"):
            _hand(store, dealer, h)
        before = _events(eng)
        assert ("hash",) in _unique_sets(eng)

        migrate(eng, "0010")
        assert _events(eng) == before  # same rows, positions and bytes
        assert _unique_sets(eng) == {("stream_id", "seq")}
        indexes = {tuple(i["column_names"]) for i in sa.inspect(eng).get_indexes("events")}
        assert ("table_id", "global_pos") in indexes
        _refuses_changes(eng)
        _hand(store, dealer, "h4")  # appends go on after the last position
        after = _events(eng)
        assert after[: len(before)] == before
        assert [r[0] for r in after[len(before) :]] == [
            before[-1][0] + i  # type: ignore[operator]
            for i in range(1, 5)
        ]
        dup = dict(zip(schema.events.c.keys(), after[-1], strict=True))
        del dup["global_pos"]
        dup["hash"] = b"\x01" * 32
        with pytest.raises(sa.exc.IntegrityError), eng.begin() as c:
            c.execute(schema.events.insert(), [dup])  # (stream_id, seq) is still unique


def test_the_downgrade_restores_the_constraint_and_keeps_the_guard(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("head") as eng:
        _hand(Store(eng), dealer, "h1")
        before = _events(eng)
        with write_connection(eng) as conn:
            command.downgrade(alembic_config(conn), "0009")
        assert ("hash",) in _unique_sets(eng)
        assert _events(eng) == before
        _refuses_changes(eng)
