"""Ed25519 keys, the key registry, and domain-separated signatures over canonical bytes.

Every producer (``dealer``, ``gateway``, ``rules``, ``settlement``) signs with its own key,
named by a key id. The :class:`KeyRegistry` maps key ids to public keys with a validity
window; a signature made outside its key's window, or by a key registered for another
producer, does not verify.

Signatures are domain-separated: the signed message is ``b"croupier:" + domain + b":v1\\n"``
followed by canonical bytes, so a seal signature can never be replayed as anything else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

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

    def to_json_dict(self) -> dict[str, object]:
        return {
            "key_id": self.key_id,
            "producer": self.producer,
            "public_key": self.public_key.hex(),
            "valid_from_ms": self.valid_from_ms,
            "valid_to_ms": self.valid_to_ms,
        }

    @classmethod
    def from_json_dict(cls, d: Mapping[str, object]) -> PublicKeyEntry:
        try:
            return cls(
                key_id=str(d["key_id"]),
                producer=str(d["producer"]),
                public_key=bytes.fromhex(str(d["public_key"])),
                valid_from_ms=int(str(d.get("valid_from_ms", 0))),
                valid_to_ms=int(str(d.get("valid_to_ms", FOREVER))),
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

    def verify(
        self, *, producer: str, key_id: str, at_ms: int, domain: str, body: bytes, signature: bytes
    ) -> None:
        """Raise :class:`SignatureError` / :class:`UnknownKey` unless ``signature`` is
        ``producer``'s valid signature of ``body`` in ``domain`` at time ``at_ms``."""
        entry = self.get(key_id)
        if entry.producer != producer:
            raise UnknownKey(f"key {key_id} belongs to {entry.producer}, not {producer}")
        if not entry.valid_from_ms <= at_ms < entry.valid_to_ms:
            raise UnknownKey(f"key {key_id} is not valid at {at_ms} ms")
        if len(signature) != 64:
            raise SignatureError(f"signature by {key_id} is {len(signature)} bytes, not 64")
        try:
            self._verifiers[key_id].verify(domain_message(domain, body), signature)
        except BadSignatureError:
            raise SignatureError(f"signature by {key_id} does not verify") from None

    def to_json(self) -> str:
        return json.dumps([e.to_json_dict() for e in self], indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> KeyRegistry:
        return cls(PublicKeyEntry.from_json_dict(d) for d in json.loads(text))


@dataclass(frozen=True, slots=True)
class Signer:
    """A producer's private key. Keep it inside the producer's process."""

    producer: str
    key_id: str
    signing_key: SigningKey

    @classmethod
    def generate(cls, producer: str, key_id: str | None = None) -> Signer:
        if producer not in PRODUCERS:
            raise InvalidInput(f"unknown producer {producer!r}; one of {PRODUCERS}")
        sk = SigningKey.generate()
        kid = key_id or f"{producer}-{bytes(sk.verify_key)[:4].hex()}"
        return cls(producer, kid, sk)

    @classmethod
    def from_seed(cls, producer: str, key_id: str, seed: bytes) -> Signer:
        return cls(producer, key_id, SigningKey(seed))

    def public_entry(self, valid_from_ms: int = 0, valid_to_ms: int = FOREVER) -> PublicKeyEntry:
        return PublicKeyEntry(
            self.key_id,
            self.producer,
            bytes(self.signing_key.verify_key),
            valid_from_ms,
            valid_to_ms,
        )

    def sign(self, domain: str, body: bytes) -> bytes:
        return self.signing_key.sign(domain_message(domain, body)).signature


def save_signer(signer: Signer, directory: Path) -> Path:
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


def load_signer(path: Path) -> Signer:
    try:
        d = json.loads(path.read_text())
        return Signer.from_seed(d["producer"], d["key_id"], bytes.fromhex(d["seed"]))
    except (OSError, KeyError, ValueError) as e:
        raise InvalidInput(f"cannot load key file {path}: {e}") from e
