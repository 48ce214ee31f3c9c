"""Streams: a variant's hands and a time window's hands each read a page as a range.

``list_streams`` pages by id (``stream_id > after ORDER BY stream_id LIMIT n``). With a
variant given, the index on ``variant`` alone found every stream of the variant and
SQLite sorted them all for each page: listing a variant's N hands a page of 1,000 at a
time cost O(N²/1,000) — ``croupier audit --variant``, ``ListHands`` and ``VerifyRange``
of a variant grew with the log's square (docs/performance.md, "Listings that do not sort
the log"). ``(variant, stream_id)`` serves the filter and the order: a page is one range.

A time window (``audit_log``'s ``--day`` and ``--since/--until``) now lists its hands in
the order they opened (:meth:`croupier.store.events.EventLog.hands_opened`), paged by
``(opened_at_ms, stream_id)``: that index replaces the one on ``opened_at_ms`` alone,
which the closed-hands query reads by its prefix as before.

Both indexes are built in place (no table rebuild, on SQLite nor PostgreSQL); on a large
store their creation takes a pass over ``streams``.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 20:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (old index, its columns) -> (new index, its columns)
CHANGES = (
    (
        ("ix_streams_variant", ["variant"]),
        ("ix_streams_variant_stream_id", ["variant", "stream_id"]),
    ),
    (
        ("ix_streams_opened_at_ms", ["opened_at_ms"]),
        ("ix_streams_opened_at_ms_stream_id", ["opened_at_ms", "stream_id"]),
    ),
)


def upgrade() -> None:
    for (old, _), (new, columns) in CHANGES:
        op.create_index(new, "streams", columns)
        op.drop_index(old, table_name="streams")


def downgrade() -> None:
    for (old, columns), (new, _) in CHANGES:
        op.create_index(old, "streams", columns)
        op.drop_index(new, table_name="streams")
