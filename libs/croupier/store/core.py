"""The store facade and its unit of work.

:class:`Store` gathers every table's reads and single-operation writes (each of which is
one database transaction). :meth:`Store.transaction` yields a :class:`UnitOfWork` whose
writes — events, seals, stream registrations, ledger transactions, settlements, keys,
secrets — all go into ONE database transaction, committed when the ``with`` block ends
normally and rolled back if it raises::

    with store.transaction() as uow:
        uow.append(events, seals=[seal], streams=[info])
        tx_id = uow.post(ledger_tx, at_ms=now_ms)
        uow.put_settlement(hand_id, variant, table_id, tx_id, record, now_ms)

Do not call the store's own write methods inside a ``transaction()`` block: they open a
second transaction, which on SQLite waits for the first one's write lock.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy.engine import Connection

from croupier.events import Event, Seal
from croupier.signing import PublicKeyEntry
from croupier.store import events as _events
from croupier.store import grants as _grants
from croupier.store import keys as _keys
from croupier.store import leases as _leases
from croupier.store import ledger as _ledger
from croupier.store import requests as _requests
from croupier.store import secrets as _secrets
from croupier.store import settlements as _settlements
from croupier.store import tables as _tables
from croupier.store import tlog as _tlog
from croupier.store.db import create_engine, migrate
from croupier.store.events import AppendResult, EventLog, StreamInfo
from croupier.store.feed import TableFeed
from croupier.store.grants import GrantStore
from croupier.store.keys import KeyStore
from croupier.store.leases import LeaseStore
from croupier.store.ledger import Ledger, LedgerRecord, LedgerTx, TxKind
from croupier.store.reports import ReportReads
from croupier.store.requests import RequestRecord, RequestStore
from croupier.store.secrets import SecretStore, SeedBox
from croupier.store.settlements import Settlement, SettlementStore
from croupier.store.tables import TableRecord, TableRegistry
from croupier.store.tlog import TransparencyLog


class UnitOfWork:
    """Writes (and a few reads) inside one open database transaction."""

    def __init__(self, conn: Connection) -> None:
        self.connection = conn
        self._log: list[Seal] = []  # seals stored here, waiting for their log leaves

    def flush_log(self) -> None:
        """Give every seal this unit of work stored its transparency-log leaf, in the
        order they were appended (:meth:`Store.transaction` calls it before commit)."""
        if self._log:
            _tlog.append_seals(self.connection, self._log)
            self._log = []

    # leases
    def fence(self, table_id: str, token: int) -> None:
        """Refuse this transaction's writes to ``table_id`` unless ``token`` is the
        table's current fencing token (:func:`croupier.store.leases.check_fence`)."""
        _leases.check_fence(self.connection, table_id, token)

    # log
    def append(
        self,
        events: Sequence[Event] = (),
        seals: Sequence[Seal] = (),
        streams: Sequence[StreamInfo] = (),
    ) -> AppendResult:
        return _events.append(self.connection, events, seals, streams, log=self._log)

    def head(self, stream_id: str) -> tuple[int, bytes] | None:
        return _events.head(self.connection, stream_id)

    def read_stream(self, stream_id: str) -> list[Event]:
        return _events.read_stream(self.connection, stream_id)

    def stream_info(self, stream_id: str) -> StreamInfo:
        return _events.stream_info(self.connection, stream_id)

    # ledger
    def post(self, tx: LedgerTx, at_ms: int) -> int:
        return _ledger.post(self.connection, tx, at_ms)

    def post_many(self, txs: Sequence[LedgerTx], at_ms: int) -> list[int]:
        return _ledger.post_many(self.connection, txs, at_ms)

    def void(self, hand_id: str, reason: str, at_ms: int) -> int:
        return _ledger.void(self.connection, hand_id, reason, at_ms)

    def transaction_for(self, hand_id: str, kind: TxKind = "settle") -> LedgerRecord:
        return _ledger.transaction_for(self.connection, hand_id, kind)

    # settlements
    def put_settlement(
        self,
        hand_id: str,
        variant: str,
        table_id: str,
        tx_id: int,
        record: Mapping[str, Any] | bytes,
        settled_at_ms: int,
        record_hash: bytes | str | None = None,
    ) -> Settlement:
        return _settlements.put_settlement(
            self.connection, hand_id, variant, table_id, tx_id, record, settled_at_ms, record_hash
        )

    def put_settlements(self, items: Sequence[Settlement]) -> int:
        return _settlements.put_settlements(self.connection, items)

    def settle(
        self,
        tx: LedgerTx,
        variant: str,
        table_id: str,
        record: Mapping[str, Any] | bytes,
        at_ms: int,
    ) -> Settlement:
        """Post the hand's ledger transaction and store its settlement record."""
        tx_id = self.post(tx, at_ms)
        return self.put_settlement(tx.hand_id, variant, table_id, tx_id, record, at_ms)

    def get_settlement(self, hand_id: str) -> Settlement:
        return _settlements.get_settlement(self.connection, hand_id)

    def get_settlements(self, hand_ids: Sequence[str]) -> dict[str, Settlement]:
        """The stored settlements among ``hand_ids``, by hand id, in one lookup."""
        return _settlements.get_settlements(self.connection, hand_ids)

    # keys and secrets
    def put_key(self, entry: PublicKeyEntry) -> bool:
        return _keys.put_key(self.connection, entry)

    def revoke_key(self, key_id: str, valid_to_ms: int) -> PublicKeyEntry:
        return _keys.revoke_key(self.connection, key_id, valid_to_ms)

    def put_secret(self, shoe_id: str, seed: bytes, at_ms: int, box: SeedBox) -> bool:
        return _secrets.put_secret(self.connection, shoe_id, seed, at_ms, box)

    def get_secret(self, shoe_id: str, box: SeedBox) -> bytes:
        return _secrets.get_secret(self.connection, shoe_id, box)

    # table grants
    def grant_table(self, table_id: str, gateway: str, at_ms: int, how: str = "open") -> bool:
        return _grants.grant_table(self.connection, table_id, gateway, at_ms, how)

    def grant_change_counts(self, table_ids: Sequence[str]) -> dict[str, int]:
        return _grants.change_counts(self.connection, table_ids)

    def holds_table(self, table_id: str, gateway: str) -> bool:
        return _grants.holds(self.connection, table_id, gateway)

    # gateway request records
    def put_request(self, record: RequestRecord) -> None:
        _requests.put_request(self.connection, record)

    def put_requests(self, records: Sequence[RequestRecord]) -> None:
        _requests.put_requests(self.connection, records)

    def get_request(self, request_id: str) -> RequestRecord | None:
        return _requests.get_request(self.connection, request_id)

    # the dealer's table registry
    def put_tables(self, tables: Sequence[TableRecord]) -> int:
        return _tables.put_tables(self.connection, tables)

    def get_table(self, table_id: str) -> TableRecord | None:
        return _tables.get_table(self.connection, table_id)


class Store(
    EventLog,
    Ledger,
    SettlementStore,
    KeyStore,
    SecretStore,
    GrantStore,
    ReportReads,
    RequestStore,
    TableRegistry,
    TableFeed,
    TransparencyLog,
    LeaseStore,
):
    """The system of record: event log, ledger, settlements, keys, dealer secrets, table
    grants, gateway request records, the dealer's table registry, the table feed and
    the transparency log, and the dealers' table leases."""

    @classmethod
    def open(cls, url: str, *, upgrade: bool = False, schema: str | None = None) -> Store:
        """Connect to ``url`` (see :func:`croupier.store.db.create_engine`); with
        ``upgrade=True`` migrate the database to head first."""
        engine = create_engine(url, schema=schema)
        if upgrade:
            migrate(engine)
        store = cls(engine)
        store.opened_with = (url, schema)
        return store

    @classmethod
    def from_url(cls, url: str) -> Store:
        """Connect to an already migrated database."""
        return cls.open(url)

    @contextmanager
    def transaction(self) -> Iterator[UnitOfWork]:
        """One database transaction for several writes (see the module docstring)."""
        with self._write() as conn:
            uow = UnitOfWork(conn)
            yield uow
            uow.flush_log()

    def settle(
        self,
        tx: LedgerTx,
        variant: str,
        table_id: str,
        record: Mapping[str, Any] | bytes,
        at_ms: int,
    ) -> Settlement:
        """Post a hand's ledger transaction and store its settlement record, atomically."""
        with self.transaction() as uow:
            return uow.settle(tx, variant, table_id, record, at_ms)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


EventStore = Store
"""The store under the name the services use."""


def open_store(url: str, *, upgrade: bool = False) -> Store:
    return Store.open(url, upgrade=upgrade)


__all__ = ["EventStore", "Store", "UnitOfWork", "open_store"]
