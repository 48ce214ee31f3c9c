"""Dealer replicas' table leases: one row per table with its owner, address, fencing
token and expiry (see croupier.store.leases).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("token > 0", name="ck_table_leases_token"),
        sa.PrimaryKeyConstraint("table_id", name="pk_table_leases"),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
