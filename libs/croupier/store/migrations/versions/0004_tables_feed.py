"""Table registry and table feed: ``dealer_tables`` (what a restarted dealer resumes,
and the counters a closed table is reopened with) and ``events.table_id`` with an index
on (``table_id``, ``global_pos``) for the durable table feed. Existing rows are filled
from the log.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NO = re.compile(r"_[hs](\d+)$")


def upgrade() -> None:
    op.create_table(
        "dealer_tables",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("shoe_id", sa.String(128), nullable=True),
        sa.Column("shoe_count", sa.Integer(), nullable=False),
        sa.Column("hand_count", sa.Integer(), nullable=False),
        sa.Column("hand_id", sa.String(128), nullable=True),
        sa.Column("carry", sa.LargeBinary(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("status IN ('open', 'closed')", name="ck_dealer_tables_status"),
        sa.PrimaryKeyConstraint("table_id", name="pk_dealer_tables"),
    )
    op.create_index("ix_dealer_tables_status_table_id", "dealer_tables", ["status", "table_id"])
    op.add_column("events", sa.Column("table_id", sa.String(128), nullable=True))
    _fill_event_tables()
    op.create_index("ix_events_table_id_global_pos", "events", ["table_id", "global_pos"])
    _fill_dealer_tables()


def _fill_event_tables() -> None:
    """Copy each stored event's table from its stream (the log is append-only: the
    guard is lifted for this one statement)."""
    pg = op.get_context().dialect.name == "postgresql"
    fill = (
        "UPDATE events SET table_id = "
        "(SELECT s.table_id FROM streams s WHERE s.stream_id = events.stream_id)"
    )
    if pg:
        op.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        op.execute(fill)
        op.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
        return
    op.execute("DROP TRIGGER IF EXISTS events_no_update")
    op.execute(fill)
    op.execute(
        "CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
        "BEGIN SELECT RAISE(ABORT, 'croupier: UPDATE on events refused: "
        "the table is append-only'); END"
    )


def _no(stream_id: str) -> int:
    m = _NO.search(stream_id)
    return int(m.group(1)) if m else 0


def _fill_dealer_tables() -> None:
    """One row per table found in the log: open if its latest shoe is not revealed
    (what the dealer used to resume), closed otherwise (so it can be reopened)."""
    conn = op.get_bind()
    last_event = sa.text("SELECT type FROM events WHERE stream_id = :s ORDER BY seq DESC LIMIT 1")
    first_event = sa.text("SELECT payload FROM events WHERE stream_id = :s AND seq = 0")
    rows = conn.execute(
        sa.text("SELECT stream_id, kind, variant, table_id, opened_at_ms FROM streams")
    ).all()
    tables: dict[str, list[tuple[str, str, str, str, int]]] = {}
    for r in rows:
        tables.setdefault(str(r[3]), []).append(
            (str(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]))
        )
    out = []
    for table_id, streams in tables.items():
        shoes = sorted((r for r in streams if r[1] == "shoe"), key=lambda r: (r[4], _no(r[0])))
        hands = sorted((r for r in streams if r[1] == "hand"), key=lambda r: _no(r[0]))
        shoe = shoes[-1] if shoes else None
        status, client_seed, hand_id, carry = "closed", table_id, None, {}
        if shoe is not None:
            typ = conn.execute(last_event, {"s": shoe[0]}).scalar_one()
            opened = json.loads(bytes(conn.execute(first_event, {"s": shoe[0]}).scalar_one()))
            client_seed = str(opened.get("client_seed", table_id))
            if typ != "shoe.revealed":
                status = "open"
        closed_payload = sa.text(
            "SELECT payload FROM events WHERE stream_id = :s AND type = 'hand.closed'"
        )
        for h in reversed(hands[-2:]):
            payload = conn.execute(closed_payload, {"s": h[0]}).scalar_one_or_none()
            if payload is not None:
                carry = dict(json.loads(bytes(payload)).get("carry", {}))
                break
            if status == "open" and h is hands[-1]:
                hand_id = h[0]
        out.append(
            {
                "table_id": table_id,
                "variant": (shoe or hands[-1])[2],
                "client_seed": client_seed,
                "status": status,
                "shoe_id": shoe[0] if shoe else None,
                "shoe_count": max((_no(r[0]) for r in shoes), default=0),
                "hand_count": max((_no(r[0]) for r in hands), default=0),
                "hand_id": hand_id,
                "carry": json.dumps(carry, sort_keys=True, separators=(",", ":")).encode(),
                "updated_at_ms": max(r[4] for r in streams),
            }
        )
    if out:
        conn.execute(sa.table("dealer_tables", *(sa.column(k) for k in out[0])).insert(), out)


def downgrade() -> None:
    op.drop_index("ix_events_table_id_global_pos", table_name="events")
    op.drop_column("events", "table_id")
    op.drop_index("ix_dealer_tables_status_table_id", table_name="dealer_tables")
    op.drop_table("dealer_tables")
