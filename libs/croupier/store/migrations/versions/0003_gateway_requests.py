"""Gateway request records: the stored result of each idempotent gateway call.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "gateway_requests",
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("method", sa.String(32), nullable=False),
        sa.Column("request_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("response", sa.LargeBinary(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("request_id", name="pk_gateway_requests"),
    )
    op.create_index("ix_gateway_requests_created_at_ms", "gateway_requests", ["created_at_ms"])


def downgrade() -> None:
    op.drop_index("ix_gateway_requests_created_at_ms", table_name="gateway_requests")
    op.drop_table("gateway_requests")
