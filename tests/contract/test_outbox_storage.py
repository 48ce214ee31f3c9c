"""Revision 0011: on PostgreSQL an outbox payload is kept out of line uncompressed
(``STORAGE EXTERNAL``), and a large payload goes in and comes out byte for byte; on
SQLite the revision changes nothing."""

from __future__ import annotations

import os

import sqlalchemy as sa

from croupier.store import Outbox, OutboxItem, Store


def test_a_large_payload_is_stored_uncompressed_and_whole(store: Store) -> None:
    payload = (b'{"events":[' + b'{"x":"%d"},' * 4_000 + b"]}") % tuple(range(4_000))
    payload += os.urandom(64)
    outbox = Outbox(store.engine)
    outbox.enqueue([OutboxItem("dealer", "croupier.hand.baccarat.t1", "m1", payload)], 1_000)
    (row,) = outbox.pending("dealer", 10)
    assert row.payload == payload
    if store.engine.dialect.name != "postgresql":
        return
    with store.engine.connect() as c:
        mode = c.exec_driver_sql(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'outbox'::regclass AND attname = 'payload'"
        ).scalar_one()
        stored = c.execute(sa.text("SELECT pg_column_size(payload) FROM outbox")).scalar_one()
    assert mode == "e"  # EXTERNAL
    assert stored >= len(payload)  # not compressed (it would shrink to a fraction)
