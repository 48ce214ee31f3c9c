"""No foreign keys from the append-only log's children; large values in lz4.

Four tables took a foreign key to an append-only parent: ``events.stream_id`` →
``streams``, ``seal_heads.seal_id`` → ``seals``, ``ledger_postings.tx_id`` and
``settlements.tx_id`` → ``ledger_transactions``. A foreign key does two things: it
refuses a parent's row going while children name it, and a child naming no parent.
The first is done by the parents' append-only triggers, which refuse every UPDATE and
DELETE (revisions 0001, 0002). The second is done by the one writer of each table in the
same transaction as the insert: the recorder appends a stream's events only after reading
its registration (``NotFound`` otherwise, :func:`croupier.store.events.append`), stores a
seal's heads with the seal, a transaction's postings and settlement with the transaction
(:mod:`croupier.store.ledger`, :mod:`croupier.store.settlements`). And a database user who
could write a child row could write its parent too, so the key was no barrier against
one: the auditor, which trusts neither, reports a log stream the ``streams`` table does
not register (``stream_unregistered``), a settlement or posting no ledger transaction
explains (``settlement_tx_mismatch``, ``ledger_missing``, ``balance_mismatch``).

What the keys cost: PostgreSQL checks each with a query per inserted row (its referential
integrity trigger, ``SELECT … FOR KEY SHARE`` on the parent), ~35 of the ~37 rows a hand
writes. Dropped, the server's CPU per hand fell by ~18 % (docs/performance.md, "The
server's side of a hand on PostgreSQL").

PostgreSQL also compresses values of more than ~2 KB (a seal's entries, an outbox row's
reference, a settlement record, a large payload) with pglz, ~6 % of its CPU per hand;
where the server is built with lz4 those columns use it (``SET COMPRESSION lz4``: the
values written from now on; those stored stay as they are and read as before). An outbox
row's payload is stored uncompressed already (revision 0011).

PostgreSQL drops the keys in place. SQLite cannot drop a table's constraint: each table
is rebuilt (Alembic's batch mode, rows and positions kept), with its indexes and
append-only triggers created again. On a large SQLite store this migration takes time
and disk of the size of the four tables.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04 23:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table: (constraint, column, parent table, parent column, indexes to keep on SQLite)
KEYS: dict[str, tuple[str, str, str, str, tuple[tuple[str, str], ...]]] = {
    "events": (
        "fk_events_stream_id_streams",
        "stream_id",
        "streams",
        "stream_id",
        (("ix_events_table_id_global_pos", "table_id, global_pos"),),
    ),
    "seal_heads": (
        "fk_seal_heads_seal_id_seals",
        "seal_id",
        "seals",
        "seal_id",
        (("ix_seal_heads_stream_id", "stream_id"),),
    ),
    "ledger_postings": (
        "fk_ledger_postings_tx_id_ledger_transactions",
        "tx_id",
        "ledger_transactions",
        "tx_id",
        (("ix_ledger_postings_account", "account"),),
    ),
    "settlements": (
        "fk_settlements_tx_id_ledger_transactions",
        "tx_id",
        "ledger_transactions",
        "tx_id",
        (
            ("ix_settlements_variant_hand_id", "variant, hand_id"),
            ("ix_settlements_table_id_hand_id", "table_id, hand_id"),
            ("ix_settlements_settled_at_ms", "settled_at_ms"),
        ),
    ),
}

LZ4_COLUMNS = (
    ("events", "payload"),
    ("seals", "entries"),
    ("settlements", "record"),
    ("outbox", "ref"),
    ("dead_letters", "payload"),
)


def _sqlite() -> bool:
    return op.get_context().dialect.name == "sqlite"


def _sqlite_rebuild(table: str, drop: bool) -> None:
    name, column, parent, parent_column, indexes = KEYS[table]
    for action in ("update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{action}")
    with op.batch_alter_table(table, recreate="always") as batch:
        if drop:
            batch.drop_constraint(name, type_="foreignkey")
        else:
            batch.create_foreign_key(name, parent, [column], [parent_column])
    for index, columns in indexes:  # the rebuilt table keeps what Alembic reflected
        op.execute(f"CREATE INDEX IF NOT EXISTS {index} ON {table} ({columns})")
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on {table} refused: "
            "the table is append-only'); END"
        )


def _lz4_available() -> bool:
    got = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
                "WHERE name = 'default_toast_compression'"
            )
        )
        .scalar()
    )
    return bool(got)


def _compression(method: str) -> None:
    for table, column in LZ4_COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION {method}")


def upgrade() -> None:
    if _sqlite():
        for table in KEYS:
            _sqlite_rebuild(table, drop=True)
        return
    for table, (name, *_rest) in KEYS.items():
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
    if _lz4_available():
        _compression("lz4")


def downgrade() -> None:
    if _sqlite():
        for table in KEYS:
            _sqlite_rebuild(table, drop=False)
        return
    for table, (name, column, parent, parent_column, _) in KEYS.items():
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {name} FOREIGN KEY ({column}) "
            f"REFERENCES {parent} ({parent_column})"
        )
    _compression("default")
