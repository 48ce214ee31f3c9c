"""The seal log's Merkle tree: leaves, perfect subtree hashes and signed checkpoints,
append-only like the log itself.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("tlog_leaves", "tlog_nodes", "tlog_checkpoints")


def upgrade() -> None:
    op.create_table(
        "tlog_leaves",
        sa.Column("leaf_index", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("seal_id", sa.String(32), nullable=False),
        sa.CheckConstraint("leaf_index >= 0", name="ck_tlog_leaves_leaf_index"),
        sa.ForeignKeyConstraint(
            ["seal_id"], ["seals.seal_id"], name="fk_tlog_leaves_seal_id_seals"
        ),
        sa.PrimaryKeyConstraint("leaf_index", name="pk_tlog_leaves"),
        sa.UniqueConstraint("seal_id", name="uq_tlog_leaves_seal_id"),
    )
    op.create_table(
        "tlog_nodes",
        sa.Column("node", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
        sa.PrimaryKeyConstraint("node", name="pk_tlog_nodes"),
    )
    op.create_table(
        "tlog_checkpoints",
        sa.Column("tree_size", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("root_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("published_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("tree_size", name="pk_tlog_checkpoints"),
    )
    _backfill()
    if op.get_context().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION croupier_append_only()"
            )
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION croupier_append_only()"
            )
    else:
        for table in TABLES:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on {table} refused: "
                    "the table is append-only'); END"
                )


def _backfill() -> None:
    """Seals stored before this revision become the first leaves, oldest first (by
    sealed time, then seal id)."""
    from croupier import canonical
    from croupier.events import Seal, SealEntry
    from croupier.store import tlog

    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT producer, key_id, sealed_at_ms, entries, signature FROM seals "
            "ORDER BY sealed_at_ms, seal_id"
        )
    ).all()
    seals = [
        Seal(
            str(r[0]),
            str(r[1]),
            int(r[2]),
            tuple(
                SealEntry(str(s), int(q), bytes.fromhex(h))
                for s, q, h in canonical.loads(bytes(r[3]))
            ),
            bytes(r[4]),
        )
        for r in rows
    ]
    if seals:
        tlog.append_seals(bind, seals)


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
