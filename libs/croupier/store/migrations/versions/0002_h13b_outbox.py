"""The transactional outbox (messages committed with their events, not yet published)
and the dead letters (messages a consumer terminated as poison).

Revision ID: 0002_h13b
Revises: 0001
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_h13b"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _autoinc() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", _autoinc(), autoincrement=True, nullable=False),
        sa.Column("producer", sa.String(32), nullable=False),
        sa.Column("subject", sa.String(256), nullable=False),
        sa.Column("msg_id", sa.String(200), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_outbox"),
        sa.UniqueConstraint("msg_id", name="uq_outbox_msg_id"),
    )
    op.create_index("ix_outbox_producer_id", "outbox", ["producer", "id"])
    op.create_table(
        "dead_letters",
        sa.Column("id", _autoinc(), autoincrement=True, nullable=False),
        sa.Column("consumer", sa.String(64), nullable=False),
        sa.Column("subject", sa.String(256), nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("delivered", sa.Integer(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_dead_letters"),
    )
    op.create_index("ix_dead_letters_consumer_id", "dead_letters", ["consumer", "id"])


def downgrade() -> None:
    op.drop_index("ix_dead_letters_consumer_id", table_name="dead_letters")
    op.drop_table("dead_letters")
    op.drop_index("ix_outbox_producer_id", table_name="outbox")
    op.drop_table("outbox")
