"""The SQL system of record (SQLAlchemy Core; SQLite embedded, PostgreSQL in production).

One :class:`Store` holds the event log (streams, events, seals), the key registry, the
dealer's secrets, the double-entry ledger and the settlement records. Writes that belong
together go through :meth:`Store.transaction`, one database transaction per unit of
work; every write is idempotent, and the log and money tables are append-only, enforced
by database triggers installed by the Alembic migrations.

Modules:

* :mod:`~croupier.store.schema` — the tables;
* :mod:`~croupier.store.db` — engines (SQLite pragmas, PostgreSQL via psycopg 3) and
  :func:`migrate`;
* :mod:`~croupier.store.events`, :mod:`~croupier.store.ledger`,
  :mod:`~croupier.store.settlements`, :mod:`~croupier.store.keys`,
  :mod:`~croupier.store.secrets`, :mod:`~croupier.store.outbox` (the transactional
  outbox and dead letters), :mod:`~croupier.store.requests` (gateway request ids),
  :mod:`~croupier.store.tables` (the dealer's table registry),
  :mod:`~croupier.store.feed` (the table feed) — each table group's operations, as
  functions on a connection plus a facade class;
* :mod:`~croupier.store.core` — :class:`Store` (also exported as ``EventStore``) and
  :class:`UnitOfWork`;
* :mod:`~croupier.store.check` — ``python -m croupier.store.check``: one migration
  head, and a freshly migrated database matches :mod:`~croupier.store.schema`;
* :mod:`~croupier.store.planner` — PostgreSQL's planner statistics refreshed by the
  services where the server's autovacuum is off.

Timestamps are integer milliseconds supplied by the caller; the store never reads a
clock.
"""

from croupier.store.core import EventStore, Store, UnitOfWork, open_store
from croupier.store.db import (
    create_engine,
    current_revision,
    head_revisions,
    migrate,
    normalise_url,
)
from croupier.store.events import (
    AppendResult,
    EventLog,
    LogEntry,
    SealRows,
    StreamInfo,
    StreamKind,
)
from croupier.store.feed import FeedEntry, Horizon, TableFeed
from croupier.store.keys import KeyStore
from croupier.store.leases import Lease, LeaseStore
from croupier.store.ledger import (
    ESCROW,
    Ledger,
    LedgerRecord,
    LedgerTx,
    Posting,
    RakeTotal,
    TxKind,
    check_postings,
    content_hash,
    house_account,
    player_account,
    rake_account,
)
from croupier.store.outbox import (
    DeadLetter,
    Outbox,
    OutboxItem,
    OutboxRef,
    OutboxRow,
    OutboxStats,
)
from croupier.store.requests import RequestRecord, RequestStore
from croupier.store.secrets import SecretStore
from croupier.store.settlements import Settlement, SettlementStore
from croupier.store.tables import TableRecord, TableRegistry

__all__ = [
    "ESCROW",
    "AppendResult",
    "DeadLetter",
    "EventLog",
    "EventStore",
    "FeedEntry",
    "Horizon",
    "KeyStore",
    "Lease",
    "LeaseStore",
    "Ledger",
    "LedgerRecord",
    "LedgerTx",
    "LogEntry",
    "Outbox",
    "OutboxItem",
    "OutboxRef",
    "OutboxRow",
    "OutboxStats",
    "Posting",
    "RakeTotal",
    "RequestRecord",
    "RequestStore",
    "SealRows",
    "SecretStore",
    "Settlement",
    "SettlementStore",
    "Store",
    "StreamInfo",
    "StreamKind",
    "TableFeed",
    "TableRecord",
    "TableRegistry",
    "TxKind",
    "UnitOfWork",
    "check_postings",
    "content_hash",
    "create_engine",
    "current_revision",
    "head_revisions",
    "house_account",
    "migrate",
    "normalise_url",
    "open_store",
    "player_account",
    "rake_account",
]
