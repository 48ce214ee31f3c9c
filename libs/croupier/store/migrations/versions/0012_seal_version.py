"""Seals: a version column.

A version-1 seal signs the list of its entries; a version-2 seal signs the RFC 6962
Merkle root over them and their number, so a bus message carries only its own hand's
entries and their audit paths (see :class:`croupier.events.Seal`). A stored seal is
always whole; the column says which body its signature covers. Every seal stored before
this revision is version 1 (the default).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 14:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "seals",
        sa.Column("version", sa.SmallInteger(), nullable=False, server_default=sa.text("1")),
    )


def downgrade() -> None:
    conn = op.get_bind()
    n = conn.execute(sa.text("SELECT count(*) FROM seals WHERE version <> 1")).scalar_one()
    if n:
        raise RuntimeError(
            f"{n} stored seals are version 2: an earlier revision could not verify them"
        )
    # SQLite 3.35+ and PostgreSQL drop a column in place (no index or trigger names it)
    op.execute("ALTER TABLE seals DROP COLUMN version")
