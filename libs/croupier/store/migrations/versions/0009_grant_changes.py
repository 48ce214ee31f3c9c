"""Table grants can be revoked: an append-only history of grant changes.

A ``table_grants`` row stays (the table is append-only); a revocation, and an operator's
later re-grant, are rows of ``table_grant_changes``, and the latest one decides.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "table_grant_changes"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("gateway", sa.String(128), nullable=False),
        sa.Column("change", sa.String(8), nullable=False),
        sa.Column("changed_by", sa.String(128), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("change IN ('grant', 'revoke')", name="ck_table_grant_changes_change"),
        sa.PrimaryKeyConstraint("id", name="pk_table_grant_changes"),
    )
    op.create_index(
        "ix_table_grant_changes_table_id_gateway_id", TABLE, ["table_id", "gateway", "id"]
    )
    if op.get_context().dialect.name == "postgresql":
        op.execute(
            f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
            "FOR EACH ROW EXECUTE FUNCTION croupier_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
            "FOR EACH STATEMENT EXECUTE FUNCTION croupier_append_only()"
        )
    else:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {TABLE}_no_{action.lower()} BEFORE {action} ON {TABLE} "
                f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on {TABLE} refused: "
                "the table is append-only'); END"
            )


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE}")
        op.execute(f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE}")
    else:
        op.execute(f"DROP TRIGGER IF EXISTS {TABLE}_no_update")
        op.execute(f"DROP TRIGGER IF EXISTS {TABLE}_no_delete")
    op.drop_index("ix_table_grant_changes_table_id_gateway_id", table_name=TABLE)
    op.drop_table(TABLE)
