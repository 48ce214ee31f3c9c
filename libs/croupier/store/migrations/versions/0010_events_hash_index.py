"""Events: no unique index on ``hash``.

An event's hash covers its stream and sequence number (see :mod:`croupier.events`), and
``(stream_id, seq)`` is unique, so two rows can share a hash only through a SHA-256
collision: the unique index on ``hash`` guarded nothing the chain does not, and no query
reads by hash. Its keys are random, so every append touched a random page of an index as
large as the log: at 3.2 million events (400,000 hands) it cost 288 against 120 CPU µs
per hand of SQLite inserts (``bench/bench_events_index.py``). Dropping it keeps the
dealer's commit flat in history.

PostgreSQL drops the constraint in place. SQLite cannot drop a table's constraint: the
table is rebuilt (Alembic's batch mode copies every row, keeping ``global_pos``) and its
index and append-only triggers are created again, since a rebuilt table has none. On a
large SQLite store this migration takes time and disk of the size of ``events``.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 07:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_events_table_id_global_pos"


def _sqlite() -> bool:
    return op.get_context().dialect.name == "sqlite"


def _sqlite_guard() -> None:
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER events_no_{action.lower()} BEFORE {action} ON events "
            f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on events refused: "
            "the table is append-only'); END"
        )


def _rebuild(change: str) -> None:
    if _sqlite():
        op.execute("DROP TRIGGER IF EXISTS events_no_update")
        op.execute("DROP TRIGGER IF EXISTS events_no_delete")
    with op.batch_alter_table("events", recreate="auto") as batch:
        if change == "drop":
            batch.drop_constraint("uq_events_hash", type_="unique")
        else:
            batch.create_unique_constraint("uq_events_hash", ["hash"])
    if _sqlite():
        # the rebuilt table keeps the index Alembic reflected; make sure of it
        op.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON events (table_id, global_pos)")
        _sqlite_guard()


def upgrade() -> None:
    _rebuild("drop")


def downgrade() -> None:
    _rebuild("create")
