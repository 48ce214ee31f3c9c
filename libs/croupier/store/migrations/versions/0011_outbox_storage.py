"""Outbox payloads stored uncompressed on PostgreSQL.

An outbox row holds a whole bus message (a hand, its seals: tens of KB) for the seconds
between its commit and its publication, then is deleted. PostgreSQL compressed each
payload (pglz) on insert, since it passes the TOAST threshold: statement durations
logged on a scratch database during ``bench/bench_replicas.py`` put the outbox's
``INSERT`` at 38 % of the server's time, for bytes that are read once and dropped.
``STORAGE EXTERNAL`` keeps large payloads out of line without compressing them. SQLite
has no such setting: nothing changes there.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 07:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _storage(mode: str) -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE outbox ALTER COLUMN payload SET STORAGE {mode}")


def upgrade() -> None:
    _storage("EXTERNAL")


def downgrade() -> None:
    _storage("EXTENDED")
