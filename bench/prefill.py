"""Growth mode for the pipeline bench: fill the store with ``n`` settled baccarat hands
fast, in bulk, before the run, so the run measures against a store that already holds
history (index depth, table size), not an empty one.

Each filler hand has the rows a settled hand has in the money and event tables: its
stream, 8 events (400-byte payloads, unique hashes), a seal and its head, a ledger
transaction with 9 postings (8 players and the house, zero-sum), its settlement record.
They are not signed or replayable: their hand and table ids start with ``fill`` and the
bench's audit leaves them out; their accounts (``fill:…``) are their own, so the run's
balances and running totals are untouched. Rows go in with multi-row inserts, 2,000
hands a transaction; on PostgreSQL the tables are then vacuumed and analyzed once, as
the services' upkeep would have kept them while the store grew.
"""

from __future__ import annotations

import hashlib
import os
import time

import sqlalchemy as sa

from croupier.store import schema as s

PREFIX = "fill"


def _hand(i: int, tx_id: int, now: int) -> dict[str, list[dict[str, object]]]:
    table = f"{PREFIX}{i % 1000}"
    hid = f"{table}_h{i // 1000 + 1}"
    prev = b"\0" * 32
    events = []
    for seq in range(8):
        h = hashlib.sha256(f"{hid}/{seq}".encode()).digest()
        events.append(
            {
                "stream_id": hid,
                "seq": seq,
                "type": "hand.filler",
                "producer": "dealer",
                "key_id": "fill",
                "prev_hash": prev,
                "hash": h,
                "payload": os.urandom(200).hex().encode(),
                "table_id": table,
            }
        )
        prev = h
    amounts = [(-1000 if p % 2 else 950) for p in range(8)]
    postings = [
        {"tx_id": tx_id, "line": p, "account": f"{PREFIX}:{table}p{p}", "amount": a}
        for p, a in enumerate(amounts)
    ]
    postings.append(
        {"tx_id": tx_id, "line": 8, "account": f"{PREFIX}:house", "amount": -sum(amounts)}
    )
    return {
        "streams": [
            {
                "stream_id": hid,
                "kind": "hand",
                "variant": "baccarat",
                "table_id": table,
                "shoe_id": None,
                "opened_at_ms": now,
            }
        ],
        "events": events,
        "seals": [
            {
                "seal_id": hashlib.sha256(hid.encode()).hexdigest()[:32],
                "producer": "dealer",
                "key_id": "fill",
                "sealed_at_ms": now,
                "entries": hid.encode(),
                "signature": b"\0" * 64,
            }
        ],
        "seal_heads": [
            {"seal_id": hashlib.sha256(hid.encode()).hexdigest()[:32], "stream_id": hid, "seq": 7}
        ],
        "ledger_transactions": [
            {
                "tx_id": tx_id,
                "idempotency_key": f"settle:{hid}",
                "kind": "settle",
                "hand_id": hid,
                "content_hash": hashlib.sha256(hid.encode() + b"tx").digest(),
                "reverses_tx_id": None,
                "created_at_ms": now,
                "memo": "",
            }
        ],
        "ledger_postings": postings,
        "settlements": [
            {
                "hand_id": hid,
                "variant": "baccarat",
                "table_id": table,
                "tx_id": tx_id,
                "record": os.urandom(500).hex().encode(),
                "record_hash": hashlib.sha256(hid.encode() + b"rec").digest(),
                "settled_at_ms": now,
            }
        ],
    }


ORDER = (
    "streams",
    "events",
    "seals",
    "seal_heads",
    "ledger_transactions",
    "ledger_postings",
    "settlements",
)


def prefill(db_url: str, n: int, chunk: int = 2_000) -> float:
    """Insert ``n`` filler hands into an empty (migrated) store; returns the seconds."""
    eng = sa.create_engine(db_url)
    t0 = time.perf_counter()
    now = int(time.time() * 1000) - 86_400_000
    try:
        for k in range(0, n, chunk):
            rows: dict[str, list[dict[str, object]]] = {t: [] for t in ORDER}
            for i in range(k, min(n, k + chunk)):
                for t, rs in _hand(i, i + 1, now + i).items():
                    rows[t].extend(rs)
            with eng.begin() as c:
                for t in ORDER:
                    c.execute(sa.insert(s.metadata.tables[t]), rows[t])
        if eng.dialect.name == "postgresql" and n:
            with eng.begin() as c:
                c.exec_driver_sql(
                    "SELECT setval(pg_get_serial_sequence('ledger_transactions', 'tx_id'), "
                    "(SELECT max(tx_id) FROM ledger_transactions))"
                )
            # A store that grew to this size under the services' upkeep (or autovacuum)
            # holds planner statistics and a visibility map; a bulk load holds neither,
            # and the run would pay for the first vacuum of n hands and plan without
            # statistics until it ran. Vacuum and analyze once here, outside the run.
            with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                for t in ORDER:
                    c.exec_driver_sql(f'VACUUM (ANALYZE) "{t}"')
    finally:
        eng.dispose()
    return time.perf_counter() - t0
