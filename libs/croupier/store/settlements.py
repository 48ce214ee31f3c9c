"""Settlement records: one per hand, next to the hand's ledger transaction.

A settlement record is the canonical JSON document that explains, step by step, how a
hand's outcome became money (theoretical result, caps, liability, rake, rounding). It is
stored byte-exact with its SHA-256 (``record_hash``) and the id of the ledger
transaction that moved the money. ``hand_id`` is unique: storing the same record again
is a no-op (the first ``settled_at_ms`` stays), storing a different one raises
:class:`~croupier.errors.IdempotencyConflict`. The table is append-only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier import canonical
from croupier.accel import maker
from croupier.errors import IdempotencyConflict, InvalidInput, NotFound
from croupier.store import schema
from croupier.store.db import (
    IDS,
    AnyRow,
    Database,
    insert_rows,
    is_sqlite,
    retryable,
    select_rows,
)

CHUNK = 500
_ST = schema.settlements
_ST_IN = sa.select(_ST).where(_ST.c.hand_id.in_(IDS))
_TX_OF_IN = sa.select(
    schema.ledger_transactions.c.tx_id,
    schema.ledger_transactions.c.hand_id,
    schema.ledger_transactions.c.kind,
).where(schema.ledger_transactions.c.tx_id.in_(IDS))
_POSTINGS_IN = (
    sa.select(
        schema.ledger_postings.c.tx_id,
        schema.ledger_postings.c.account,
        schema.ledger_postings.c.amount,
    )
    .where(schema.ledger_postings.c.tx_id.in_(IDS))
    .order_by(schema.ledger_postings.c.tx_id, schema.ledger_postings.c.line)
)


@dataclass(frozen=True, slots=True)
class Settlement:
    """A stored (or to be stored) settlement record."""

    hand_id: str
    variant: str
    table_id: str
    tx_id: int
    record: bytes
    record_hash: bytes
    settled_at_ms: int

    @classmethod
    def build(
        cls,
        hand_id: str,
        variant: str,
        table_id: str,
        tx_id: int,
        record: Mapping[str, Any] | bytes,
        settled_at_ms: int,
    ) -> Settlement:
        """Canonicalise ``record`` (or check that given bytes are canonical) and hash it."""
        if isinstance(record, bytes):
            if not canonical.is_canonical(record):
                raise InvalidInput(f"settlement record of {hand_id} is not canonical JSON")
            body = record
        else:
            body = canonical.dumps(dict(record))
        return cls(
            hand_id, variant, table_id, tx_id, body, hashlib.sha256(body).digest(), settled_at_ms
        )

    @property
    def record_json(self) -> dict[str, Any]:
        value = canonical.loads(self.record)
        if not isinstance(value, dict):
            raise InvalidInput(f"settlement record of {self.hand_id} is not a JSON object")
        return value

    def same_content(self, other: Settlement) -> bool:
        """Equal in everything but ``settled_at_ms``."""
        return (
            self.hand_id == other.hand_id
            and self.variant == other.variant
            and self.table_id == other.table_id
            and self.tx_id == other.tx_id
            and self.record_hash == other.record_hash
        )


def _check(s: Settlement) -> None:
    if not isinstance(s, Settlement):
        raise InvalidInput(f"expected a Settlement, got {type(s).__name__}")
    for name, value, limit in (
        ("hand_id", s.hand_id, schema.ID_LEN),
        ("variant", s.variant, 64),
        ("table_id", s.table_id, schema.ID_LEN),
    ):
        if not isinstance(value, str) or not 0 < len(value) <= limit:
            raise InvalidInput(f"settlement {name} must be a string of 1..{limit} characters")
    if hashlib.sha256(s.record).digest() != s.record_hash:
        raise InvalidInput(f"settlement of {s.hand_id}: record_hash does not match the record")
    if not isinstance(s.settled_at_ms, int) or s.settled_at_ms < 0:
        raise InvalidInput("settled_at_ms must be a non-negative integer")


_new_settlement = maker(Settlement)


def _row(r: AnyRow | Sequence[Any]) -> Settlement:
    """A settlement from a row of ``select(settlements)``, read by position (a row or the
    driver's tuple: :func:`~croupier.store.db.select_rows`)."""
    hand_id, variant, table_id, tx_id, record, record_hash, settled_at_ms = r
    return _new_settlement(  # Settlement's fields in order
        hand_id,
        variant,
        table_id,
        int(tx_id),
        bytes(record),
        bytes(record_hash),
        int(settled_at_ms),
    )


def _stored(conn: Connection, hand_ids: Sequence[str]) -> dict[str, Settlement]:
    out: dict[str, Settlement] = {}
    for i in range(0, len(hand_ids), CHUNK):
        for r in select_rows(conn, _ST_IN, list(hand_ids[i : i + CHUNK])):
            out[r[0]] = _row(r)
    return out


def _check_transactions(conn: Connection, items: Sequence[Settlement]) -> None:
    """Each settlement must point at its own hand's settle transaction."""
    found: dict[int, tuple[str, str]] = {}
    ids = list(dict.fromkeys(s.tx_id for s in items))
    for i in range(0, len(ids), CHUNK):
        for tx_id, hand_id, kind in select_rows(conn, _TX_OF_IN, ids[i : i + CHUNK]):
            found[int(tx_id)] = (hand_id, kind)
    for s in items:
        if found.get(s.tx_id) != (s.hand_id, "settle"):
            raise InvalidInput(
                f"settlement of hand {s.hand_id}: ledger transaction {s.tx_id} is not that "
                "hand's settle transaction"
            )


def put_settlements(conn: Connection, items: Sequence[Settlement]) -> int:
    """Store settlement records idempotently; returns how many were new."""
    wanted: dict[str, Settlement] = {}
    for s in items:
        _check(s)
        other = wanted.setdefault(s.hand_id, s)
        if not other.same_content(s):
            raise IdempotencyConflict(f"two different settlements of hand {s.hand_id}")
    for attempt in (0, 1):
        stored = _stored(conn, list(wanted))
        new: list[Settlement] = []
        for hand_id, s in wanted.items():
            old = stored.get(hand_id)
            if old is None:
                new.append(s)
            elif not old.same_content(s):
                raise IdempotencyConflict(f"hand {hand_id} is already settled differently")
        if not new:
            return 0
        _check_transactions(conn, new)
        try:
            with retryable(conn):
                insert_rows(
                    conn,
                    _ST,
                    [
                        {
                            "hand_id": s.hand_id,
                            "variant": s.variant,
                            "table_id": s.table_id,
                            "tx_id": s.tx_id,
                            "record": s.record,
                            "record_hash": s.record_hash,
                            "settled_at_ms": s.settled_at_ms,
                        }
                        for s in new
                    ],
                )
        except sa.exc.IntegrityError as exc:
            if attempt or is_sqlite(conn):  # no other writer on SQLite: db.retryable
                raise IdempotencyConflict(f"settlement refused: {exc.orig}") from exc
            continue
        return len(new)
    raise AssertionError("unreachable")


def put_settlement(
    conn: Connection,
    hand_id: str,
    variant: str,
    table_id: str,
    tx_id: int,
    record: Mapping[str, Any] | bytes,
    settled_at_ms: int,
    record_hash: bytes | str | None = None,
) -> Settlement:
    """Store one settlement record. ``record_hash`` (raw or hex), when given, must be the
    SHA-256 of the canonical record."""
    s = Settlement.build(hand_id, variant, table_id, tx_id, record, settled_at_ms)
    if record_hash is not None:
        given = bytes.fromhex(record_hash) if isinstance(record_hash, str) else record_hash
        if given != s.record_hash:
            raise InvalidInput(f"settlement of {hand_id}: record_hash does not match the record")
    put_settlements(conn, [s])
    return s


def get_settlements(conn: Connection, hand_ids: Sequence[str]) -> dict[str, Settlement]:
    """The stored settlements among ``hand_ids``, by hand id (one query per chunk)."""
    return _stored(conn, list(dict.fromkeys(hand_ids)))


def get_settlement(conn: Connection, hand_id: str) -> Settlement:
    r = conn.execute(sa.select(_ST).where(_ST.c.hand_id == hand_id)).first()
    if r is None:
        raise NotFound(f"no settlement for hand {hand_id}")
    return _row(r)


def list_settlements(
    conn: Connection,
    *,
    variant: str | None = None,
    table_id: str | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    after_hand_id: str | None = None,
    limit: int = 1000,
) -> list[Settlement]:
    """Settlements matching every given filter, ordered by hand id
    (``since_ms <= settled_at_ms < until_ms``); page with ``after_hand_id``."""
    q = sa.select(_ST).order_by(_ST.c.hand_id).limit(max(0, limit))
    if variant is not None:
        q = q.where(_ST.c.variant == variant)
    if table_id is not None:
        q = q.where(_ST.c.table_id == table_id)
    if since_ms is not None:
        q = q.where(_ST.c.settled_at_ms >= since_ms)
    if until_ms is not None:
        q = q.where(_ST.c.settled_at_ms < until_ms)
    if after_hand_id is not None:
        q = q.where(_ST.c.hand_id > after_hand_id)
    return [_row(r) for r in conn.execute(q)]


def count_settlements_query(
    variant: str | None = None, table_ids: Sequence[str] | None = None
) -> sa.Select[Any]:
    """``count(*)`` of the settlements of ``variant`` and/or of the tables ``table_ids``:
    by tables, a range of the ``(table_id, hand_id)`` index per table, whatever else the
    store holds; by variant alone, every hand of the variant."""
    q = sa.select(sa.func.count()).select_from(_ST)
    if variant is not None:
        q = q.where(_ST.c.variant == variant)
    if table_ids is not None:
        q = q.where(_ST.c.table_id.in_(list(table_ids)))
    return q


def count_settlements(
    conn: Connection, variant: str | None = None, table_ids: Sequence[str] | None = None
) -> int:
    return int(conn.execute(count_settlements_query(variant, table_ids)).scalar_one())


def settlements_with_postings(
    conn: Connection, hand_ids: Sequence[str]
) -> dict[str, tuple[Settlement, tuple[tuple[str, int], ...]]]:
    """For a batch of hands: each stored settlement with its ledger postings as
    ``(account, amount)`` pairs, in two queries per chunk (for range audits)."""
    out: dict[str, tuple[Settlement, tuple[tuple[str, int], ...]]] = {}
    for i in range(0, len(hand_ids), 500):
        chunk = list(hand_ids[i : i + 500])
        rows = {r[0]: _row(r) for r in select_rows(conn, _ST_IN, chunk)}
        lines: dict[int, list[tuple[str, int]]] = {}
        if rows:
            txs = [r.tx_id for r in rows.values()]
            for tx, account, amount in select_rows(conn, _POSTINGS_IN, txs):
                lines.setdefault(int(tx), []).append((str(account), int(amount)))
        for hid, st in rows.items():
            out[hid] = (st, tuple(lines.get(st.tx_id, ())))
    return out


def settlement_counts(
    conn: Connection, since_ms: int | None = None, until_ms: int | None = None
) -> dict[str, int]:
    """Hands settled per variant with ``since_ms <= settled_at_ms < until_ms``."""
    q = sa.select(_ST.c.variant, sa.func.count()).group_by(_ST.c.variant)
    if since_ms is not None:
        q = q.where(_ST.c.settled_at_ms >= since_ms)
    if until_ms is not None:
        q = q.where(_ST.c.settled_at_ms < until_ms)
    return {str(v): int(n) for v, n in conn.execute(q)}


class SettlementStore(Database):
    """Settlement reads, and single-record writes (each its own transaction)."""

    def settlements_with_postings(
        self, hand_ids: Sequence[str]
    ) -> dict[str, tuple[Settlement, tuple[tuple[str, int], ...]]]:
        with self._read() as conn:
            return settlements_with_postings(conn, hand_ids)

    def settlement_counts(
        self, since_ms: int | None = None, until_ms: int | None = None
    ) -> dict[str, int]:
        with self._read() as conn:
            return settlement_counts(conn, since_ms, until_ms)

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
        with self._write() as conn:
            return put_settlement(
                conn, hand_id, variant, table_id, tx_id, record, settled_at_ms, record_hash
            )

    def get_settlement(self, hand_id: str) -> Settlement:
        with self._read() as conn:
            return get_settlement(conn, hand_id)

    def list_settlements(
        self,
        *,
        variant: str | None = None,
        table_id: str | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        after_hand_id: str | None = None,
        limit: int = 1000,
    ) -> list[Settlement]:
        with self._read() as conn:
            return list_settlements(
                conn,
                variant=variant,
                table_id=table_id,
                since_ms=since_ms,
                until_ms=until_ms,
                after_hand_id=after_hand_id,
                limit=limit,
            )

    def count_settlements(
        self, variant: str | None = None, table_ids: Sequence[str] | None = None
    ) -> int:
        with self._read() as conn:
            return count_settlements(conn, variant, table_ids)
