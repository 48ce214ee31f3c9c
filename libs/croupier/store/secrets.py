"""Dealer secrets: the server seed of each shoe (or of a hand dealt without a shoe).

Only the dealer reads this table, to resume dealing after a restart; the seed leaves it
only through the dealer's reveal event once the shoe is finished. No other store API
returns a seed. Storing the same seed again is a no-op; a different seed for a stored
shoe raises :class:`~croupier.errors.IdempotencyConflict`.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.errors import IdempotencyConflict, InvalidInput, NotFound
from croupier.store import schema
from croupier.store.db import Database

_D = schema.dealer_secrets


def put_secret(conn: Connection, shoe_id: str, seed: bytes, at_ms: int) -> bool:
    """Store the shoe's server seed; ``True`` if it was new."""
    if not isinstance(shoe_id, str) or not 0 < len(shoe_id) <= schema.ID_LEN:
        raise InvalidInput(f"shoe_id must be a string of 1..{schema.ID_LEN} characters")
    if not isinstance(seed, bytes) or not seed:
        raise InvalidInput("a server seed is non-empty bytes")
    if not isinstance(at_ms, int) or at_ms < 0:
        raise InvalidInput("at_ms must be a non-negative integer")
    stored = conn.execute(
        sa.select(_D.c.server_seed).where(_D.c.shoe_id == shoe_id)
    ).scalar_one_or_none()
    if stored is not None:
        if bytes(stored) != seed:
            raise IdempotencyConflict(f"shoe {shoe_id} already has a different server seed")
        return False
    conn.execute(_D.insert(), {"shoe_id": shoe_id, "server_seed": seed, "created_at_ms": at_ms})
    return True


def get_secret(conn: Connection, shoe_id: str) -> bytes:
    """The shoe's server seed (dealer only)."""
    stored = conn.execute(
        sa.select(_D.c.server_seed).where(_D.c.shoe_id == shoe_id)
    ).scalar_one_or_none()
    if stored is None:
        raise NotFound(f"no server seed for shoe {shoe_id}")
    return bytes(stored)


class SecretStore(Database):
    """Dealer secrets (each call its own transaction). For the dealer only."""

    def put_secret(self, shoe_id: str, seed: bytes, at_ms: int) -> bool:
        with self._write() as conn:
            return put_secret(conn, shoe_id, seed, at_ms)

    def get_secret(self, shoe_id: str) -> bytes:
        with self._read() as conn:
            return get_secret(conn, shoe_id)
