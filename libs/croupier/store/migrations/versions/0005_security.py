"""Security: table grants, and append-only triggers on the remaining history tables
(streams, dealer_secrets, table_grants).

``streams`` rows are written once when a hand or shoe opens and never updated (a
stream's head is read from ``events``), so they can be append-only; server seeds are
sealed by the dealer before they reach ``dealer_secrets`` and are never changed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = ("streams", "dealer_secrets", "table_grants")


def upgrade() -> None:
    op.create_table(
        "table_grants",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("gateway", sa.String(128), nullable=False),
        sa.Column("how", sa.String(16), nullable=False),
        sa.Column("granted_at_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("how IN ('open', 'operator')", name="ck_table_grants_how"),
        sa.PrimaryKeyConstraint("table_id", "gateway", name="pk_table_grants"),
    )
    if op.get_context().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION croupier_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION croupier_append_only()"
            )
    else:
        for table in APPEND_ONLY:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on {table} refused: "
                    "the table is append-only'); END"
                )


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
    else:
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
    op.drop_table("table_grants")
