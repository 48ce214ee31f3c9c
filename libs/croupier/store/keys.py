"""The key registry table: public keys by key id, bound to a producer and a validity
window.

Entries are append-only, with one exception: a key may be *revoked* by shortening its
``valid_to_ms`` (the database refuses every other UPDATE, and every DELETE).
Registering the same entry again is a no-op — also when several processes register it
at once (the insert is ``ON CONFLICT DO NOTHING``, then the stored row is compared);
registering a key id with other data raises :class:`~croupier.errors.IdempotencyConflict`.
:func:`key_registry` loads the table into a :class:`croupier.signing.KeyRegistry` for
verifying seals.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from croupier.errors import IdempotencyConflict, InvalidInput, NotFound
from croupier.signing import PRODUCERS, KeyRegistry, PublicKeyEntry
from croupier.store import schema
from croupier.store.db import AnyRow, Database

_K = schema.keys


def _row(r: AnyRow) -> PublicKeyEntry:
    return PublicKeyEntry(
        key_id=r.key_id,
        producer=r.producer,
        public_key=bytes(r.public_key),
        valid_from_ms=int(r.valid_from_ms),
        valid_to_ms=int(r.valid_to_ms),
    )


def _check(entry: PublicKeyEntry) -> None:
    if not isinstance(entry, PublicKeyEntry):
        raise InvalidInput(f"expected a PublicKeyEntry, got {type(entry).__name__}")
    if not isinstance(entry.key_id, str) or not 0 < len(entry.key_id) <= 64:
        raise InvalidInput("key_id must be a string of 1..64 characters")
    if entry.producer not in PRODUCERS:
        raise InvalidInput(f"unknown producer {entry.producer!r}; one of {PRODUCERS}")
    if not isinstance(entry.public_key, bytes) or len(entry.public_key) != 32:
        raise InvalidInput(f"key {entry.key_id}: public key must be 32 bytes")
    if not 0 <= entry.valid_from_ms <= entry.valid_to_ms < 2**63:
        raise InvalidInput(f"key {entry.key_id}: bad validity window")


def get_key(conn: Connection, key_id: str) -> PublicKeyEntry:
    r = conn.execute(sa.select(_K).where(_K.c.key_id == key_id)).first()
    if r is None:
        raise NotFound(f"no key {key_id}")
    return _row(r)


def put_key(conn: Connection, entry: PublicKeyEntry) -> bool:
    """Register ``entry``; ``True`` if it was new, ``False`` if already stored (by this
    call's predecessors or by a concurrent one)."""
    _check(entry)
    r = conn.execute(sa.select(_K).where(_K.c.key_id == entry.key_id)).first()
    if r is None:
        row = {
            "key_id": entry.key_id,
            "producer": entry.producer,
            "public_key": entry.public_key,
            "valid_from_ms": entry.valid_from_ms,
            "valid_to_ms": entry.valid_to_ms,
        }
        insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert(_K)
        stmt = insert.values(row).on_conflict_do_nothing(index_elements=["key_id"])
        if conn.execute(stmt.returning(_K.c.key_id)).first() is not None:
            return True
        r = conn.execute(sa.select(_K).where(_K.c.key_id == entry.key_id)).first()
        assert r is not None  # a concurrent registration won the insert
    old = _row(r)
    if old != entry:
        raise IdempotencyConflict(f"key id {entry.key_id} is already registered as {old}")
    return False


def revoke_key(conn: Connection, key_id: str, valid_to_ms: int) -> PublicKeyEntry:
    """End the key's validity at ``valid_to_ms`` (never later than it already ends)."""
    old = get_key(conn, key_id)
    if valid_to_ms >= old.valid_to_ms:
        return old
    if valid_to_ms < old.valid_from_ms:
        raise InvalidInput(f"key {key_id}: cannot end before it starts ({old.valid_from_ms})")
    conn.execute(_K.update().where(_K.c.key_id == key_id).values(valid_to_ms=valid_to_ms))
    return get_key(conn, key_id)


def list_keys(conn: Connection) -> list[PublicKeyEntry]:
    return [_row(r) for r in conn.execute(sa.select(_K).order_by(_K.c.key_id))]


def key_registry(conn: Connection) -> KeyRegistry:
    return KeyRegistry(list_keys(conn))


class KeyStore(Database):
    """The key registry table (each call its own transaction)."""

    def put_key(self, entry: PublicKeyEntry) -> bool:
        with self._write() as conn:
            return put_key(conn, entry)

    def revoke_key(self, key_id: str, valid_to_ms: int) -> PublicKeyEntry:
        with self._write() as conn:
            return revoke_key(conn, key_id, valid_to_ms)

    def get_key(self, key_id: str) -> PublicKeyEntry:
        with self._read() as conn:
            return get_key(conn, key_id)

    def list_keys(self) -> list[PublicKeyEntry]:
        with self._read() as conn:
            return list_keys(conn)

    def key_registry(self) -> KeyRegistry:
        with self._read() as conn:
            return key_registry(conn)
