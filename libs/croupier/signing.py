"""Ed25519 keys, the key registry, and domain-separated signatures over canonical bytes.

Every producer (``dealer``, ``gateway``, ``rules``, ``settlement``) signs with its own key,
named by a key id. The :class:`KeyRegistry` maps key ids to public keys with a signing
period (``valid_from_ms`` .. ``valid_to_ms``, ended early by a rotation) and an optional
revocation time (``revoked_at_ms``: the key is compromised from then on). A signature by a
key registered for another producer, or dated outside its key's signing period, does not
verify. Revocation is judged by when the signature was *seen* by someone other than its
signer (a consumer's receipt, a transparency-log checkpoint), never by the signer's own
date: a signature from a revoked key passes only if it is witnessed before the revocation
(:meth:`KeyRegistry.key_valid_at`). Registries an auditor may trust come signed by the
offline root (:mod:`croupier.keyring`).

Private keys sit behind the :class:`Signer` protocol: :class:`FileSigner` (an Ed25519 seed
in a key file) is the default; a KMS or HSM key is any object with the same four members
whose ``sign`` returns a 64-byte Ed25519 signature of :func:`domain_message`.

Signatures are domain-separated: the signed message is ``b"croupier:" + domain + b":v1\\n"``
followed by canonical bytes, so a seal signature can never be replayed as anything else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from croupier.errors import InvalidInput, SignatureError, UnknownKey

PRODUCERS = ("dealer", "gateway", "rules", "settlement")
FOREVER = 2**63 - 1


def domain_message(domain: str, body: bytes) -> bytes:
    return b"croupier:" + domain.encode() + b":v1\n" + body


@dataclass(frozen=True, slots=True)
class PublicKeyEntry:
    key_id: str
    producer: str
    public_key: bytes  # 32 bytes
    valid_from_ms: int = 0
    valid_to_ms: int = FOREVER
    revoked_at_ms: int | None = None

    @property
    def end_ms(self) -> int:
        """The first millisecond at which the key no longer signs (rotation or revocation)."""
        return (
            self.valid_to_ms
            if self.revoked_at_ms is None
            else min(self.valid_to_ms, self.revoked_at_ms)
        )

    def valid_at(self, at_ms: int) -> bool:
        return self.valid_from_ms <= at_ms < self.end_ms

    def cache_entry(self) -> PublicKeyEntry:
        """The entry as the store's ``keys`` table caches it (no revocation column: the
        end of validity is the earlier of rotation and revocation)."""
        return PublicKeyEntry(
            self.key_id, self.producer, self.public_key, self.valid_from_ms, self.end_ms
        )

    def to_json_dict(self) -> dict[str, object]:
        d: dict[str, object] = {
            "key_id": self.key_id,
            "producer": self.producer,
            "public_key": self.public_key.hex(),
            "valid_from_ms": self.valid_from_ms,
            "valid_to_ms": self.valid_to_ms,
        }
        if self.revoked_at_ms is not None:
            d["revoked_at_ms"] = self.revoked_at_ms
        return d

    @classmethod
    def from_json_dict(cls, d: Mapping[str, object]) -> PublicKeyEntry:
        try:
            return cls(
                key_id=str(d["key_id"]),
                producer=str(d["producer"]),
                public_key=bytes.fromhex(str(d["public_key"])),
                valid_from_ms=int(str(d.get("valid_from_ms", 0))),
                valid_to_ms=int(str(d.get("valid_to_ms", FOREVER))),
                revoked_at_ms=None
                if d.get("revoked_at_ms") is None
                else int(str(d["revoked_at_ms"])),
            )
        except (KeyError, ValueError) as e:
            raise InvalidInput(f"bad key registry entry: {e}") from e


class KeyRegistry:
    """Public keys by key id, each bound to one producer and a validity window."""

    def __init__(self, entries: Iterable[PublicKeyEntry] = ()) -> None:
        self._entries: dict[str, PublicKeyEntry] = {}
        self._verifiers: dict[str, VerifyKey] = {}
        for e in entries:
            self.add(e)

    def add(self, entry: PublicKeyEntry) -> None:
        if len(entry.public_key) != 32:
            raise InvalidInput(f"key {entry.key_id}: public key must be 32 bytes")
        old = self._entries.get(entry.key_id)
        if old is not None and old != entry:
            raise InvalidInput(f"key id {entry.key_id} already registered with other data")
        self._entries[entry.key_id] = entry
        self._verifiers[entry.key_id] = VerifyKey(entry.public_key)

    def __iter__(self) -> Iterator[PublicKeyEntry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key_id: str) -> PublicKeyEntry:
        try:
            return self._entries[key_id]
        except KeyError:
            raise UnknownKey(f"key id {key_id!r} is not in the registry") from None

    def key_valid_at(self, key_id: str, at_ms: int) -> bool:
        """Whether ``key_id`` may have signed at ``at_ms``: registered, and ``at_ms`` within
        its signing period and before any revocation. ``at_ms`` must be a time the
        verifier trusts (a checkpoint, a receipt), not the signer's claim."""
        entry = self._entries.get(key_id)
        return entry is not None and entry.valid_at(at_ms)

    def check_key(
        self, *, producer: str, key_id: str, signed_at_ms: int, seen_at_ms: int | None
    ) -> PublicKeyEntry:
        """The registry's rules for a signature by ``key_id`` that its signer dates
        ``signed_at_ms`` and a witness first saw at ``seen_at_ms`` (``None``: nobody but
        the signer vouches for the time). Raises :class:`UnknownKey`."""
        entry = self.get(key_id)
        if entry.producer != producer:
            raise UnknownKey(
                f"key {key_id} belongs to {entry.producer}, not {producer}", reason="wrong_key"
            )
        if not entry.valid_from_ms <= signed_at_ms < entry.valid_to_ms:
            raise UnknownKey(f"key {key_id} is not valid at {signed_at_ms} ms")
        if entry.revoked_at_ms is not None:
            if seen_at_ms is None:
                raise UnknownKey(
                    f"key {key_id} is revoked (at {entry.revoked_at_ms} ms) and nothing but its "
                    "signer dates this signature",
                    reason="revoked_key",
                )
            if not (signed_at_ms < entry.revoked_at_ms and seen_at_ms < entry.revoked_at_ms):
                raise UnknownKey(
                    f"key {key_id} was revoked at {entry.revoked_at_ms} ms; this signature was "
                    f"first seen at {seen_at_ms} ms",
                    reason="revoked_key",
                )
        return entry

    def verify_signature(self, key_id: str, domain: str, body: bytes, signature: bytes) -> None:
        """The cryptographic check alone (no validity rules)."""
        if len(signature) != 64:
            raise SignatureError(f"signature by {key_id} is {len(signature)} bytes, not 64")
        try:
            self._verifiers[self.get(key_id).key_id].verify(domain_message(domain, body), signature)
        except BadSignatureError:
            raise SignatureError(f"signature by {key_id} does not verify") from None

    def verify(
        self,
        *,
        producer: str,
        key_id: str,
        at_ms: int,
        domain: str,
        body: bytes,
        signature: bytes,
        seen_at_ms: int | None = None,
    ) -> None:
        """Raise :class:`SignatureError` / :class:`UnknownKey` unless ``signature`` is
        ``producer``'s valid signature of ``body`` in ``domain``, dated ``at_ms`` by its
        signer and first seen by a witness at ``seen_at_ms`` (see :meth:`check_key`)."""
        self.check_key(producer=producer, key_id=key_id, signed_at_ms=at_ms, seen_at_ms=seen_at_ms)
        self.verify_signature(key_id, domain, body, signature)

    def to_json(self) -> str:
        return json.dumps([e.to_json_dict() for e in self], indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> KeyRegistry:
        return cls(PublicKeyEntry.from_json_dict(d) for d in json.loads(text))


@runtime_checkable
class Signer(Protocol):
    """A producer's private key, wherever it lives. :class:`FileSigner` keeps an Ed25519
    seed in the process; a KMS or HSM implementation keeps the key outside and only
    returns signatures. ``sign`` must return the 64-byte Ed25519 signature of
    ``domain_message(domain, body)`` by the key whose public half is ``public_key``."""

    @property
    def producer(self) -> str: ...

    @property
    def key_id(self) -> str: ...

    @property
    def public_key(self) -> bytes: ...

    def sign(self, domain: str, body: bytes) -> bytes: ...


def public_entry(
    signer: Signer, valid_from_ms: int = 0, valid_to_ms: int = FOREVER
) -> PublicKeyEntry:
    """The registry entry of ``signer``'s public key."""
    return PublicKeyEntry(
        signer.key_id, signer.producer, signer.public_key, valid_from_ms, valid_to_ms
    )


@dataclass(frozen=True, slots=True)
class FileSigner:
    """An Ed25519 key held in this process (loaded from a key file, or generated). Keep
    it inside the producer's process."""

    producer: str
    key_id: str
    signing_key: SigningKey

    @classmethod
    def generate(cls, producer: str, key_id: str | None = None) -> FileSigner:
        if producer not in PRODUCERS:
            raise InvalidInput(f"unknown producer {producer!r}; one of {PRODUCERS}")
        sk = SigningKey.generate()
        kid = key_id or f"{producer}-{bytes(sk.verify_key)[:4].hex()}"
        return cls(producer, kid, sk)

    @classmethod
    def from_seed(cls, producer: str, key_id: str, seed: bytes) -> FileSigner:
        return cls(producer, key_id, SigningKey(seed))

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    def public_entry(self, valid_from_ms: int = 0, valid_to_ms: int = FOREVER) -> PublicKeyEntry:
        return public_entry(self, valid_from_ms, valid_to_ms)

    def sign(self, domain: str, body: bytes) -> bytes:
        return self.signing_key.sign(domain_message(domain, body)).signature


def save_signer(signer: FileSigner, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{signer.producer}.key"
    path.write_text(
        json.dumps(
            {
                "producer": signer.producer,
                "key_id": signer.key_id,
                "seed": bytes(signer.signing_key).hex(),
            }
        )
    )
    path.chmod(0o600)
    return path


def load_signer(path: Path) -> FileSigner:
    try:
        d = json.loads(path.read_text())
        return FileSigner.from_seed(d["producer"], d["key_id"], bytes.fromhex(d["seed"]))
    except (OSError, KeyError, ValueError) as e:
        raise InvalidInput(f"cannot load key file {path}: {e}") from e
