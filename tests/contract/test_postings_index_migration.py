"""Revision 0015 drops the index on ``ledger_postings.account`` (every posting of a hand
names another account, so each insert dirtied its own page of it). The postings stay as
they were, the running totals and the rake summaries answer as before, a windowed rake
summary still reads by index (the window's transactions by ``created_at_ms``, their
postings by key), and the downgrade puts the index back."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import sqlalchemy as sa
from alembic import command

from croupier.store import LedgerTx, Posting, RakeTotal, Store, migrate, schema
from croupier.store.db import alembic_config, write_connection


def _indexes(engine: sa.Engine) -> set[tuple[str, ...]]:
    insp = sa.inspect(engine)
    return {tuple(i["column_names"]) for i in insp.get_indexes("ledger_postings")}


def _postings(engine: sa.Engine) -> list[tuple[object, ...]]:
    p = schema.ledger_postings
    with engine.connect() as c:
        return [tuple(r) for r in c.execute(sa.select(p).order_by(p.c.tx_id, p.c.line))]


def _tx(hand: str, rake: int) -> LedgerTx:
    return LedgerTx(
        f"settle:{hand}",
        hand,
        (
            Posting("player:a", -100),
            Posting("player:b", 100 - rake),
            Posting("rake:baccarat", rake),
        ),
    )


def test_the_account_index_goes_and_the_postings_stay(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]],
) -> None:
    with engine_at_revision("0014") as eng:
        store = Store(eng)
        store.post_many([_tx("h1", 5), _tx("h2", 3)], 1_000)
        store.post_many([_tx("h3", 7)], 2_000)
        before = _postings(eng)
        assert ("account",) in _indexes(eng)

        migrate(eng, "0015")
        assert ("account",) not in _indexes(eng)
        assert _postings(eng) == before
        store.post_many([_tx("h4", 2)], 3_000)
        assert store.balance("rake:baccarat") == 17
        assert store.rake_summary("baccarat") == [RakeTotal("baccarat", 17, 4)]
        assert store.rake_summary(since_ms=1_500, until_ms=3_000) == [RakeTotal("baccarat", 7, 1)]

        with write_connection(eng) as conn:
            command.downgrade(alembic_config(conn), "0014")
        assert ("account",) in _indexes(eng)
        assert _postings(eng)[: len(before)] == before
        assert store.rake_summary("baccarat", since_ms=1_000) == [RakeTotal("baccarat", 17, 4)]
