"""Outbox rows by reference.

A bus message is made of what its transaction stores with it: a stream's events and
the seals covering them. A row may now name them (``ref``, canonical JSON: the message's
kind, stream, first and last sequence numbers and seal ids) instead of holding the
bytes, which the relay that wrote it keeps in memory or rebuilds from the store
(:class:`croupier.store.outbox.OutboxRef`). Such a row's ``payload`` is empty. Rows
written before this revision hold their bytes, as before.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 17:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("outbox", sa.Column("ref", sa.Text(), nullable=True))


def downgrade() -> None:
    conn = op.get_bind()
    n = conn.execute(sa.text("SELECT count(*) FROM outbox WHERE ref IS NOT NULL")).scalar_one()
    if n:
        raise RuntimeError(
            f"{n} outbox rows wait by reference: an earlier revision could not publish them "
            "(let the relays drain the outbox first)"
        )
    op.execute("ALTER TABLE outbox DROP COLUMN ref")
