"""Ledger postings: no index on ``account``.

Every posting of a hand names a different account, so every insert into an index on
``account`` lands on a different page of it: a commit of a group of hands dirtied a
page of that index per posting (one for each of the ~400 accounts of 50 tables of eight
players, the house's shared), each written to the journal at the commit. It cost ~45 of
the ~66 CPU µs a hand of SQLite that a settlement's nine postings spent
(docs/performance.md, "Postings without an account index"), on PostgreSQL an index
insert and its WAL a row.

No steady-state query reads by it: balances and the all-time rake summary read the
running totals (``ledger_totals``, revision 0008), a hand's postings are read by
transaction (the primary key ``(tx_id, line)``), and the rake summary over a time window
reads that window's transactions by ``created_at_ms`` and their postings by key, a cost
bounded by the window instead of the rake account's whole history. Summing every posting
by account (the whole-log audit's check of the totals) reads the whole table either way.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 19:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_ledger_postings_account"


def upgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")


def downgrade() -> None:
    op.create_index(INDEX, "ledger_postings", ["account"])
