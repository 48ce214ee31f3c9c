"""Revision 0014 drops the foreign keys from the append-only log's children (``events``,
``seal_heads``, ``ledger_postings``, ``settlements``) and, on PostgreSQL, compresses
their large values with lz4. Every row keeps its position and bytes, the tables keep
their indexes, unique constraints and append-only triggers, the recorder still refuses
an event of an unregistered stream before anything is written, and the downgrade
restores the keys."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest
import sqlalchemy as sa
from alembic import command

from croupier.errors import NotFound
from croupier.events import StreamWriter, heads_of, seal
from croupier.signing import Signer
from croupier.store import LedgerTx, Posting, Store, StreamInfo, migrate
from croupier.store.db import alembic_config, write_connection

CHILDREN = ("events", "seal_heads", "ledger_postings", "settlements")
PARENTS = {
    "events": "streams",
    "seal_heads": "seals",
    "ledger_postings": "ledger_transactions",
    "settlements": "ledger_transactions",
}


def _hand(store: Store, signer: Signer, hand_id: str) -> None:
    w = StreamWriter(hand_id)
    for i in range(3):
        w.append(signer, "bet", {"seat": i, "amount": 100 + i})
    evs = w.take()
    with store.transaction() as uow:
        uow.append(evs, [seal(signer, heads_of(evs), 1_000)], [_info(hand_id)])
    store.settle(
        LedgerTx(f"settle:{hand_id}", hand_id, (Posting("player:1", 5), Posting("house", -5))),
        "baccarat",
        "t1",
        {"hand": hand_id},
        2_000,
    )


def _info(hand_id: str) -> StreamInfo:
    return StreamInfo(hand_id, "hand", "baccarat", "t1", None, 1_000)


def _rows(engine: sa.Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as c:
        return {
            t: [tuple(r) for r in c.exec_driver_sql(f"SELECT * FROM {t} ORDER BY 1, 2")]
            for t in CHILDREN
        }


def _keys(engine: sa.Engine) -> dict[str, set[str]]:
    insp = sa.inspect(engine)
    return {t: {fk["referred_table"] for fk in insp.get_foreign_keys(t)} for t in CHILDREN}


def _refuses_changes(engine: sa.Engine) -> None:
    for table in CHILDREN:
        for sql in (f"UPDATE {table} SET {_col(table)} = {_col(table)}", f"DELETE FROM {table}"):
            with pytest.raises(sa.exc.DatabaseError) as err, engine.begin() as c:
                c.exec_driver_sql(sql)
            assert "append-only" in str(err.value), (table, sql)


def _col(table: str) -> str:
    return {"events": "seq", "seal_heads": "seq", "ledger_postings": "line"}.get(table, "tx_id")


def _indexes(engine: sa.Engine) -> dict[str, set[tuple[str, ...]]]:
    insp = sa.inspect(engine)
    return {
        t: {tuple(i["column_names"]) for i in insp.get_indexes(t)}
        | {tuple(u["column_names"]) for u in insp.get_unique_constraints(t)}
        for t in CHILDREN
    }


def test_the_keys_go_and_every_row_stays_as_it_was(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("0013") as eng:
        store = Store(eng)
        for h in ("h1", "h2"):
            _hand(store, dealer, h)
        before, indexes = _rows(eng), _indexes(eng)
        assert all(before.values())
        assert _keys(eng) == {t: {p} for t, p in PARENTS.items()}

        migrate(eng, "0014")
        assert _rows(eng) == before  # same rows, positions and bytes
        assert _keys(eng) == {t: set() for t in CHILDREN}
        assert _indexes(eng) == indexes
        _refuses_changes(eng)
        _hand(store, dealer, "h3")  # appends and settlements go on after the last rows
        after = _rows(eng)
        assert all(set(before[t]) < set(after[t]) for t in CHILDREN)
        # the recorder, not the key, refuses an event of an unregistered stream
        w = StreamWriter("nobody")
        w.append(dealer, "bet", {"seat": 1, "amount": 1})
        with pytest.raises(NotFound):
            store.append(w.take(), [], [])
        assert _rows(eng) == after


def test_large_values_are_compressed_with_lz4_on_postgresql(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    """A payload past PostgreSQL's ~2 KB threshold is stored with lz4 where the server
    has it (pglz, the server's default, where it does not); either way, and on SQLite,
    it reads back byte for byte."""
    with engine_at_revision("head") as eng:
        store = Store(eng)
        w = StreamWriter("big")
        w.append(dealer, "bet", {"note": "x" * 8_000})
        evs = w.take()
        store.append(evs, [seal(dealer, heads_of(evs), 1)], [_info("big")])
        assert store.read_stream("big") == evs
        if eng.dialect.name != "postgresql":
            return
        with eng.connect() as c:
            lz4 = c.exec_driver_sql(
                "SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
                "WHERE name = 'default_toast_compression'"
            ).scalar()
            method = c.exec_driver_sql(
                "SELECT pg_column_compression(payload) FROM events WHERE stream_id = 'big'"
            ).scalar()
        assert method == ("lz4" if lz4 else "pglz")


def test_the_downgrade_restores_the_keys_and_keeps_the_guard(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("head") as eng:
        _hand(Store(eng), dealer, "h1")
        before = _rows(eng)
        with write_connection(eng) as conn:
            command.downgrade(alembic_config(conn), "0013")
        assert _keys(eng) == {t: {p} for t, p in PARENTS.items()}
        assert _rows(eng) == before
        _refuses_changes(eng)
        migrate(eng)  # and up again
        assert _keys(eng) == {t: set() for t in CHILDREN}
        assert _rows(eng) == before
