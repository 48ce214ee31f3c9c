"""Dealer secrets: the server seed of each shoe (or of a hand dealt without a shoe),
sealed at rest.

A seed is stored only as a PyNaCl ``SecretBox`` (XSalsa20-Poly1305) ciphertext under a
32-byte key that only the dealer holds (:class:`SeedBox`, ``seed.key`` in the dealer's
auth folder); the plaintext is ``shoe_id || 0x00 || seed``, so a ciphertext moved to
another shoe's row does not open. The database cannot read a seed, and on PostgreSQL
only the dealer's role may even select the row (``croupier db roles``). Rows are
append-only (triggers of migration ``0002``): a seed cannot be changed or removed.

Only the dealer reads this table, to resume dealing after a restart; the seed leaves it
only through the dealer's reveal event once the shoe is finished. Storing the same seed
again is a no-op; a different seed for a stored shoe raises
:class:`~croupier.errors.IdempotencyConflict`.
"""

from __future__ import annotations

import sqlalchemy as sa
from nacl.exceptions import CryptoError
from nacl.secret import SecretBox
from sqlalchemy.engine import Connection

from croupier.errors import IdempotencyConflict, IntegrityError, InvalidInput, NotFound
from croupier.store import schema
from croupier.store.db import Database

_D = schema.dealer_secrets


class SeedBox:
    """Seals and opens server seeds with the dealer's SecretBox key."""

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, bytes) or len(key) != SecretBox.KEY_SIZE:
            raise InvalidInput(f"a seed key is {SecretBox.KEY_SIZE} bytes")
        self._box = SecretBox(key)
        self._key = key

    def __reduce__(self) -> tuple[type[SeedBox], tuple[bytes]]:
        """Pickled as its key, for the dealer's writer process
        (:mod:`croupier.store.writer`), which seals the seeds it stores."""
        return (SeedBox, (self._key,))

    def seal(self, shoe_id: str, seed: bytes) -> bytes:
        return bytes(self._box.encrypt(shoe_id.encode() + b"\x00" + seed))

    def open(self, shoe_id: str, sealed: bytes) -> bytes:
        try:
            plain = bytes(self._box.decrypt(sealed))
        except CryptoError:
            raise IntegrityError(
                f"the server seed of {shoe_id} does not open with this dealer's key",
                reason="sealed_seed",
                stream=shoe_id,
            ) from None
        sid, sep, seed = plain.partition(b"\x00")
        if not sep or sid != shoe_id.encode():
            raise IntegrityError(
                f"the sealed seed stored for {shoe_id} belongs to another shoe",
                reason="sealed_seed",
                stream=shoe_id,
            )
        return seed


def put_secret(conn: Connection, shoe_id: str, seed: bytes, at_ms: int, box: SeedBox) -> bool:
    """Store the shoe's server seed, sealed; ``True`` if it was new."""
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
        if box.open(shoe_id, bytes(stored)) != seed:
            raise IdempotencyConflict(f"shoe {shoe_id} already has a different server seed")
        return False
    conn.execute(
        _D.insert(),
        {"shoe_id": shoe_id, "server_seed": box.seal(shoe_id, seed), "created_at_ms": at_ms},
    )
    return True


def get_secret(conn: Connection, shoe_id: str, box: SeedBox) -> bytes:
    """The shoe's server seed (dealer only: it needs the dealer's key)."""
    stored = conn.execute(
        sa.select(_D.c.server_seed).where(_D.c.shoe_id == shoe_id)
    ).scalar_one_or_none()
    if stored is None:
        raise NotFound(f"no server seed for shoe {shoe_id}")
    return box.open(shoe_id, bytes(stored))


class SecretStore(Database):
    """Dealer secrets (each call its own transaction). For the dealer only."""

    def put_secret(self, shoe_id: str, seed: bytes, at_ms: int, box: SeedBox) -> bool:
        with self._write() as conn:
            return put_secret(conn, shoe_id, seed, at_ms, box)

    def get_secret(self, shoe_id: str, box: SeedBox) -> bytes:
        with self._read() as conn:
            return get_secret(conn, shoe_id, box)
