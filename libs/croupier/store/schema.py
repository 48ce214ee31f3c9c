"""The SQL schema of the system of record, as SQLAlchemy Core tables on one ``MetaData``.

This module is the single description of the schema: the Alembic environment compares it
with the database (``alembic check``), and the contract tests assert that a freshly
migrated database matches it exactly. Migrations themselves spell their DDL out so that
history never changes when this file does.

Conventions:

* every timestamp is an integer number of milliseconds since the Unix epoch, supplied
  by the caller (the library never reads a clock);
* hashes are raw 32-byte SHA-256 digests, payloads and records are canonical JSON bytes
  stored byte-exact;
* money is a signed 64-bit integer in minor units;
* the log tables (``events``, ``seals``, ``seal_heads``) and the money tables
  (``ledger_transactions``, ``ledger_postings``, ``settlements``) are append-only: the
  initial migration installs triggers that make the database itself refuse UPDATE and
  DELETE on them; migration ``0002`` adds the same to ``streams`` (inserted once, never
  updated: a stream's head is read from ``events``), ``dealer_secrets`` (sealed seeds)
  and ``table_grants`` (migration ``0009``: ``table_grant_changes``). ``keys`` accepts
  one kind of UPDATE only: shortening ``valid_to_ms`` (revoking a key);
* the children of those append-only parents (``events`` of ``streams``, ``seal_heads``
  of ``seals``, ``ledger_postings`` and ``settlements`` of ``ledger_transactions``) carry
  no foreign key (migration ``0014``): a parent row never changes or goes, the one writer
  of each child inserts it with its parent, checked in the same transaction, and the
  auditor reports a child no parent explains. PostgreSQL checked each key with a query
  per inserted row, ~18 % of its CPU per hand.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeEngine

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

ID_LEN = 128
"""Longest stream, hand, shoe or table id."""

HASH_LEN = 32


class Bytes(LargeBinary):
    """``LargeBinary`` that hands ``bytes`` to the driver unconverted (sqlite3 and psycopg
    both take them as they are), saving a conversion per value on bulk inserts."""

    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> None:
        return None


def _autoinc_bigint() -> TypeEngine[int]:
    """BIGINT on PostgreSQL; INTEGER on SQLite, where only ``INTEGER PRIMARY KEY`` is the
    auto-incrementing rowid (SQLite integers are 64-bit either way)."""
    return BigInteger().with_variant(Integer(), "sqlite")


streams = Table(
    "streams",
    metadata,
    Column("stream_id", String(ID_LEN), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("variant", String(64), nullable=False),
    Column("table_id", String(ID_LEN), nullable=False),
    Column("shoe_id", String(ID_LEN), nullable=True),
    Column("opened_at_ms", BigInteger, nullable=False),
    CheckConstraint("kind IN ('hand', 'shoe')", name="kind"),
    Index(None, "table_id", "stream_id"),
    # a variant's hands and the hands of a time window, each in the order they are paged
    # (by id; by time then id), a page read as a range (0016)
    Index(None, "variant", "stream_id"),
    Index(None, "opened_at_ms", "stream_id"),
)

events = Table(
    "events",
    metadata,
    Column("global_pos", _autoinc_bigint(), primary_key=True, autoincrement=True),
    Column("stream_id", String(ID_LEN), nullable=False),  # a stream of ``streams``
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("producer", String(32), nullable=False),
    Column("key_id", String(64), nullable=False),
    Column("prev_hash", Bytes(HASH_LEN), nullable=False),
    Column("hash", Bytes(HASH_LEN), nullable=False),
    Column("payload", Bytes, nullable=False),
    # the table of the event's stream, copied at append so the table feed reads one
    # index range (``table_id``, ``global_pos``) instead of the table's whole history
    Column("table_id", String(ID_LEN), nullable=True),
    UniqueConstraint("stream_id", "seq"),
    # no unique index on ``hash``: it covers stream and seq, already unique (migration 0010)
    CheckConstraint("seq >= 0", name="seq"),
    Index(None, "table_id", "global_pos"),
)

seals = Table(
    "seals",
    metadata,
    Column("seal_id", String(32), primary_key=True),
    Column("producer", String(32), nullable=False),
    Column("key_id", String(64), nullable=False),
    Column("sealed_at_ms", BigInteger, nullable=False),
    Column("entries", Bytes, nullable=False),
    Column("signature", Bytes(64), nullable=False),
    # 1: the signature covers the entries; 2: their Merkle root (croupier.events.Seal)
    Column("version", SmallInteger, nullable=False, server_default=text("1")),
)

seal_heads = Table(
    "seal_heads",
    metadata,
    Column("seal_id", String(32), primary_key=True),  # a seal of ``seals``
    Column("stream_id", String(ID_LEN), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Index(None, "stream_id"),
)

keys = Table(
    "keys",
    metadata,
    Column("key_id", String(64), primary_key=True),
    Column("producer", String(32), nullable=False),
    Column("public_key", Bytes(32), nullable=False),
    Column("valid_from_ms", BigInteger, nullable=False),
    Column("valid_to_ms", BigInteger, nullable=False),
)

dealer_secrets = Table(
    "dealer_secrets",
    metadata,
    Column("shoe_id", String(ID_LEN), primary_key=True),
    Column("server_seed", Bytes, nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
)

dealer_tables = Table(
    "dealer_tables",
    metadata,
    # One row per table the dealer ever opened: what a restarted dealer needs to resume
    # it (or to reopen it after CloseTable), written in the same transaction as the
    # table's events. A derived index of the log, not part of it: it is updated in place.
    Column("table_id", String(ID_LEN), primary_key=True),
    Column("variant", String(64), nullable=False),
    Column("client_seed", Text, nullable=False),
    Column("status", String(8), nullable=False),
    Column("shoe_id", String(ID_LEN), nullable=True),  # the current (or last) shoe
    Column("shoe_count", Integer, nullable=False),
    Column("hand_count", Integer, nullable=False),
    Column("hand_id", String(ID_LEN), nullable=True),  # the unfinished hand, if any
    Column("carry", Bytes, nullable=False),  # canonical JSON: the next hand's carry
    Column("updated_at_ms", BigInteger, nullable=False),
    CheckConstraint("status IN ('open', 'closed')", name="status"),
    Index(None, "status", "table_id"),
)

table_grants = Table(
    "table_grants",
    metadata,
    Column("table_id", String(ID_LEN), primary_key=True),
    Column("gateway", String(128), primary_key=True),
    Column("how", String(16), nullable=False),
    Column("granted_at_ms", BigInteger, nullable=False),
    CheckConstraint("how IN ('open', 'operator')", name="how"),
)

table_grant_changes = Table(
    "table_grant_changes",
    metadata,
    Column("id", _autoinc_bigint(), primary_key=True, autoincrement=True),
    Column("table_id", String(ID_LEN), nullable=False),
    Column("gateway", String(128), nullable=False),
    Column("change", String(8), nullable=False),
    Column("changed_by", String(128), nullable=False),
    Column("at_ms", BigInteger, nullable=False),
    CheckConstraint("change IN ('grant', 'revoke')", name="change"),
    Index(None, "table_id", "gateway", "id"),
)
"""Revocations (and re-grants) of ``table_grants`` rows, in order: a gateway holds a
table while it has a grant and its latest change, if any, is ``grant``."""

ledger_transactions = Table(
    "ledger_transactions",
    metadata,
    Column("tx_id", _autoinc_bigint(), primary_key=True, autoincrement=True),
    Column("idempotency_key", String(200), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("hand_id", String(ID_LEN), nullable=False),
    Column("content_hash", Bytes(HASH_LEN), nullable=False),
    Column(
        "reverses_tx_id",
        BigInteger,
        ForeignKey("ledger_transactions.tx_id"),
        nullable=True,
    ),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("memo", Text, nullable=False),
    UniqueConstraint("idempotency_key"),
    UniqueConstraint("hand_id", "kind"),
    UniqueConstraint("reverses_tx_id"),
    CheckConstraint("kind IN ('settle', 'void')", name="kind"),
    Index(None, "created_at_ms"),
)

ledger_postings = Table(
    "ledger_postings",
    metadata,
    Column("tx_id", BigInteger, primary_key=True),  # a transaction of ``ledger_transactions``
    Column("line", Integer, primary_key=True),
    Column("account", String(ID_LEN), nullable=False),
    Column("amount", BigInteger, nullable=False),
    # no index on ``account``: each posting of a hand would dirty a page of it (0015)
)

ledger_totals = Table(
    "ledger_totals",
    metadata,
    Column("account", String(ID_LEN), primary_key=True),
    Column("total", BigInteger, nullable=False),
    Column("settled", BigInteger, nullable=False),
    Column("voided", BigInteger, nullable=False),
)
"""Running per-account totals of ``ledger_postings`` (the sum of amounts, and the settle
and void transactions that posted to the account), kept in the posting transaction."""

settlements = Table(
    "settlements",
    metadata,
    Column("hand_id", String(ID_LEN), primary_key=True),
    Column("variant", String(64), nullable=False),
    Column("table_id", String(ID_LEN), nullable=False),
    Column("tx_id", BigInteger, nullable=False),  # a transaction of ``ledger_transactions``
    Column("record", Bytes, nullable=False),
    Column("record_hash", Bytes(HASH_LEN), nullable=False),
    Column("settled_at_ms", BigInteger, nullable=False),
    UniqueConstraint("tx_id"),
    Index(None, "variant", "hand_id"),
    Index(None, "table_id", "hand_id"),
    Index(None, "settled_at_ms"),
)

tlog_leaves = Table(
    "tlog_leaves",
    metadata,
    Column("leaf_index", BigInteger, primary_key=True, autoincrement=False),
    Column("seal_id", String(32), ForeignKey("seals.seal_id"), nullable=False),
    UniqueConstraint("seal_id"),
    CheckConstraint("leaf_index >= 0", name="leaf_index"),
)

tlog_nodes = Table(
    "tlog_nodes",
    metadata,
    # a perfect subtree (level, index) is the one key (level << 56) | index, so a batch
    # of lookups is one primary-key IN list on every backend
    Column("node", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", Bytes(HASH_LEN), nullable=False),
)

tlog_checkpoints = Table(
    "tlog_checkpoints",
    metadata,
    Column("tree_size", BigInteger, primary_key=True, autoincrement=False),
    Column("root_hash", Bytes(HASH_LEN), nullable=False),
    Column("note", Text, nullable=False),
    Column("published_at_ms", BigInteger, nullable=False),
)

table_leases = Table(
    "table_leases",
    metadata,
    # Which dealer replica owns a table (croupier.store.leases). Updated in place; the
    # row is never deleted so ``token`` (the fencing token) only ever grows.
    Column("table_id", String(ID_LEN), primary_key=True),
    Column("owner", String(ID_LEN), nullable=False),
    Column("address", Text, nullable=False),
    Column("token", BigInteger, nullable=False),
    Column("expires_at_ms", BigInteger, nullable=False),
    CheckConstraint("token > 0", name="token"),
)

REQUEST_ID_LEN = 128
"""Longest gateway request id."""

gateway_requests = Table(
    "gateway_requests",
    metadata,
    Column("request_id", String(REQUEST_ID_LEN), primary_key=True),
    Column("method", String(32), nullable=False),
    Column("request_hash", Bytes(HASH_LEN), nullable=False),
    Column("response", Bytes, nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Index(None, "created_at_ms"),
)
"""Stored results of idempotent gateway calls (:mod:`croupier.store.requests`); pruned
after the retention period, so not append-only."""

APPEND_ONLY_TABLES: tuple[str, ...] = (
    "streams",
    "dealer_secrets",
    "table_grants",
    "table_grant_changes",
    "events",
    "seals",
    "seal_heads",
    "ledger_transactions",
    "ledger_postings",
    "settlements",
    "tlog_leaves",
    "tlog_nodes",
    "tlog_checkpoints",
)
"""Tables on which the database refuses UPDATE and DELETE (triggers, see migrations)."""

outbox = Table(
    "outbox",
    metadata,
    Column("id", _autoinc_bigint(), primary_key=True, autoincrement=True),
    Column("producer", String(32), nullable=False),
    Column("subject", String(256), nullable=False),
    Column("msg_id", String(200), nullable=False),
    Column("payload", Bytes, nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("ref", Text, nullable=True),
    UniqueConstraint("msg_id"),
    Index(None, "producer", "id"),
)
"""Messages committed with the events they carry and not yet acknowledged by JetStream
(the transactional outbox: a relay publishes them and deletes each acknowledged row). A
row with a ``ref`` has an empty ``payload``: the message is built from the events and
seals it names (:class:`croupier.store.outbox.OutboxRef`)."""

dead_letters = Table(
    "dead_letters",
    metadata,
    Column("id", _autoinc_bigint(), primary_key=True, autoincrement=True),
    Column("consumer", String(64), nullable=False),
    Column("subject", String(256), nullable=False),
    Column("reason", String(64), nullable=False),
    Column("detail", Text, nullable=False),
    Column("payload", Bytes, nullable=False),
    Column("delivered", Integer, nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Index(None, "consumer", "id"),
)
"""Messages a consumer terminated as poison, kept byte-exact with the reason."""
