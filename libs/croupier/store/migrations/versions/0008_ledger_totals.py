"""Running per-account ledger totals, kept in the same transaction as the postings,
backfilled from the postings already written.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ledger_totals",
        sa.Column("account", sa.String(128), nullable=False),
        sa.Column("total", sa.BigInteger(), nullable=False),
        sa.Column("settled", sa.BigInteger(), nullable=False),
        sa.Column("voided", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("account"),
    )
    op.execute(
        "INSERT INTO ledger_totals (account, total, settled, voided) "
        "SELECT p.account, SUM(p.amount), "
        "COUNT(DISTINCT CASE WHEN t.kind = 'settle' THEN t.tx_id END), "
        "COUNT(DISTINCT CASE WHEN t.kind = 'void' THEN t.tx_id END) "
        "FROM ledger_postings p JOIN ledger_transactions t ON t.tx_id = p.tx_id "
        "GROUP BY p.account"
    )


def downgrade() -> None:
    op.drop_table("ledger_totals")
