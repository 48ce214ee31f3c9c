"""Initial schema: streams, the event log and its seals, the key registry, dealer
secrets, the double-entry ledger and settlement records; append-only triggers.

Revision ID: 0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND_ONLY = (
    "events",
    "seals",
    "seal_heads",
    "ledger_transactions",
    "ledger_postings",
    "settlements",
)


def _autoinc() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "streams",
        sa.Column("stream_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("shoe_id", sa.String(128), nullable=True),
        sa.Column("opened_at_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("kind IN ('hand', 'shoe')", name="ck_streams_kind"),
        sa.PrimaryKeyConstraint("stream_id", name="pk_streams"),
    )
    op.create_index("ix_streams_table_id_stream_id", "streams", ["table_id", "stream_id"])
    op.create_index("ix_streams_variant", "streams", ["variant"])
    op.create_index("ix_streams_opened_at_ms", "streams", ["opened_at_ms"])

    op.create_table(
        "events",
        sa.Column("global_pos", _autoinc(), autoincrement=True, nullable=False),
        sa.Column("stream_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("producer", sa.String(32), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("prev_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.CheckConstraint("seq >= 0", name="ck_events_seq"),
        sa.ForeignKeyConstraint(
            ["stream_id"], ["streams.stream_id"], name="fk_events_stream_id_streams"
        ),
        sa.PrimaryKeyConstraint("global_pos", name="pk_events"),
        sa.UniqueConstraint("stream_id", "seq", name="uq_events_stream_id_seq"),
        sa.UniqueConstraint("hash", name="uq_events_hash"),
    )

    op.create_table(
        "seals",
        sa.Column("seal_id", sa.String(32), nullable=False),
        sa.Column("producer", sa.String(32), nullable=False),
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("sealed_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("entries", sa.LargeBinary(), nullable=False),
        sa.Column("signature", sa.LargeBinary(64), nullable=False),
        sa.PrimaryKeyConstraint("seal_id", name="pk_seals"),
    )

    op.create_table(
        "seal_heads",
        sa.Column("seal_id", sa.String(32), nullable=False),
        sa.Column("stream_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["seal_id"], ["seals.seal_id"], name="fk_seal_heads_seal_id_seals"),
        sa.PrimaryKeyConstraint("seal_id", "stream_id", "seq", name="pk_seal_heads"),
    )
    op.create_index("ix_seal_heads_stream_id", "seal_heads", ["stream_id"])

    op.create_table(
        "keys",
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("producer", sa.String(32), nullable=False),
        sa.Column("public_key", sa.LargeBinary(32), nullable=False),
        sa.Column("valid_from_ms", sa.BigInteger(), nullable=False),
        sa.Column("valid_to_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key_id", name="pk_keys"),
    )

    op.create_table(
        "dealer_secrets",
        sa.Column("shoe_id", sa.String(128), nullable=False),
        sa.Column("server_seed", sa.LargeBinary(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("shoe_id", name="pk_dealer_secrets"),
    )

    op.create_table(
        "ledger_transactions",
        sa.Column("tx_id", _autoinc(), autoincrement=True, nullable=False),
        sa.Column("idempotency_key", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("hand_id", sa.String(128), nullable=False),
        sa.Column("content_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("reverses_tx_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("memo", sa.Text(), nullable=False),
        sa.CheckConstraint("kind IN ('settle', 'void')", name="ck_ledger_transactions_kind"),
        sa.ForeignKeyConstraint(
            ["reverses_tx_id"],
            ["ledger_transactions.tx_id"],
            name="fk_ledger_transactions_reverses_tx_id_ledger_transactions",
        ),
        sa.PrimaryKeyConstraint("tx_id", name="pk_ledger_transactions"),
        sa.UniqueConstraint("idempotency_key", name="uq_ledger_transactions_idempotency_key"),
        sa.UniqueConstraint("hand_id", "kind", name="uq_ledger_transactions_hand_id_kind"),
        sa.UniqueConstraint("reverses_tx_id", name="uq_ledger_transactions_reverses_tx_id"),
    )
    op.create_index(
        "ix_ledger_transactions_created_at_ms", "ledger_transactions", ["created_at_ms"]
    )

    op.create_table(
        "ledger_postings",
        sa.Column("tx_id", sa.BigInteger(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(128), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tx_id"],
            ["ledger_transactions.tx_id"],
            name="fk_ledger_postings_tx_id_ledger_transactions",
        ),
        sa.PrimaryKeyConstraint("tx_id", "line", name="pk_ledger_postings"),
    )
    op.create_index("ix_ledger_postings_account", "ledger_postings", ["account"])

    op.create_table(
        "settlements",
        sa.Column("hand_id", sa.String(128), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("tx_id", sa.BigInteger(), nullable=False),
        sa.Column("record", sa.LargeBinary(), nullable=False),
        sa.Column("record_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("settled_at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tx_id"],
            ["ledger_transactions.tx_id"],
            name="fk_settlements_tx_id_ledger_transactions",
        ),
        sa.PrimaryKeyConstraint("hand_id", name="pk_settlements"),
        sa.UniqueConstraint("tx_id", name="uq_settlements_tx_id"),
    )
    op.create_index("ix_settlements_variant_hand_id", "settlements", ["variant", "hand_id"])
    op.create_index("ix_settlements_table_id_hand_id", "settlements", ["table_id", "hand_id"])
    op.create_index("ix_settlements_settled_at_ms", "settlements", ["settled_at_ms"])

    if op.get_context().dialect.name == "postgresql":
        _postgresql_triggers()
    else:
        _sqlite_triggers()


def _postgresql_triggers() -> None:
    op.execute(
        """
        CREATE FUNCTION croupier_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'croupier: % on % refused: the table is append-only',
                TG_OP, TG_TABLE_NAME
                USING ERRCODE = 'integrity_constraint_violation';
        END
        $$
        """
    )
    for table in APPEND_ONLY:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION croupier_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION croupier_append_only()"
        )
    op.execute(
        """
        CREATE FUNCTION croupier_keys_guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'UPDATE'
               OR NEW.key_id <> OLD.key_id
               OR NEW.producer <> OLD.producer
               OR NEW.public_key <> OLD.public_key
               OR NEW.valid_from_ms <> OLD.valid_from_ms
               OR NEW.valid_to_ms > OLD.valid_to_ms THEN
                RAISE EXCEPTION 'croupier: % on keys refused: a key may only be revoked '
                    '(valid_to_ms shortened)', TG_OP
                    USING ERRCODE = 'integrity_constraint_violation';
            END IF;
            RETURN NEW;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER keys_guard BEFORE UPDATE OR DELETE ON keys "
        "FOR EACH ROW EXECUTE FUNCTION croupier_keys_guard()"
    )
    op.execute(
        "CREATE TRIGGER keys_no_truncate BEFORE TRUNCATE ON keys "
        "FOR EACH STATEMENT EXECUTE FUNCTION croupier_append_only()"
    )


def _sqlite_triggers() -> None:
    for table in APPEND_ONLY:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'croupier: {action} on {table} refused: "
                "the table is append-only'); END"
            )
    op.execute(
        "CREATE TRIGGER keys_guard BEFORE UPDATE ON keys "
        "WHEN NEW.key_id IS NOT OLD.key_id OR NEW.producer IS NOT OLD.producer "
        "OR NEW.public_key IS NOT OLD.public_key "
        "OR NEW.valid_from_ms IS NOT OLD.valid_from_ms "
        "OR NEW.valid_to_ms > OLD.valid_to_ms "
        "BEGIN SELECT RAISE(ABORT, 'croupier: UPDATE on keys refused: a key may only be "
        "revoked (valid_to_ms shortened)'); END"
    )
    op.execute(
        "CREATE TRIGGER keys_no_delete BEFORE DELETE ON keys "
        "BEGIN SELECT RAISE(ABORT, 'croupier: DELETE on keys refused'); END"
    )


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP TRIGGER IF EXISTS keys_guard ON keys")
        op.execute("DROP TRIGGER IF EXISTS keys_no_truncate ON keys")
        op.execute("DROP FUNCTION IF EXISTS croupier_keys_guard()")
        op.execute("DROP FUNCTION IF EXISTS croupier_append_only()")
    else:
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
        op.execute("DROP TRIGGER IF EXISTS keys_guard")
        op.execute("DROP TRIGGER IF EXISTS keys_no_delete")
    for table in (
        "settlements",
        "ledger_postings",
        "ledger_transactions",
        "dealer_secrets",
        "keys",
        "seal_heads",
        "seals",
        "events",
        "streams",
    ):
        op.drop_table(table)
