"""The signed key registry (*keyring*) and the offline root key that signs it.

Trust starts at one Ed25519 **root key** kept offline. Its public half, the **trust
root** (``trust-root.pub``), is what services and auditors pin. The root signs the
**keyring**: a versioned list of every producer key (producer, key id, public key, valid
from, valid to, revoked at). A key outside the signed keyring is not trusted, whatever a
database table or an export's ``key`` lines say: the ``keys`` table is a cache and an
export's ``key`` lines are a convenience, never a trust anchor.

File formats (JSON, UTF-8):

- trust root: ``{"format": "croupier-trust-root/v1", "key_id": "root-<8 hex>",
  "public_key": "<64 hex>"}``
- keyring: ``{"format": "croupier-keyring/v1", "version": N, "issued_at_ms": T,
  "root_key_id": ..., "keys": [entry, ...], "signature": "<128 hex>"}``; the signature is
  the root's Ed25519 signature of ``domain_message("keyring", canonical JSON of every
  other field)`` (:func:`croupier.signing.domain_message`).

Versions only grow: a holder never replaces a keyring by one of a lower version, so a
stale copy (from before a revocation) cannot be replayed. Key validity is judged by
:meth:`Keyring.key_valid_at` at a time the verifier trusts (see
:meth:`croupier.signing.KeyRegistry.check_key`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from croupier import canonical
from croupier.errors import ConfigError, InvalidInput, UnknownKey
from croupier.signing import FOREVER, PRODUCERS, KeyRegistry, PublicKeyEntry, domain_message

FORMAT = "croupier-keyring/v1"
ROOT_FORMAT = "croupier-trust-root/v1"
DOMAIN = "keyring"


def root_key_id(public_key: bytes) -> str:
    return "root-" + hashlib.sha256(public_key).hexdigest()[:8]


@dataclass(frozen=True, slots=True)
class TrustRoot:
    """The root's public key: what an auditor pins."""

    key_id: str
    public_key: bytes

    def to_text(self) -> str:
        return (
            json.dumps(
                {"format": ROOT_FORMAT, "key_id": self.key_id, "public_key": self.public_key.hex()},
                sort_keys=True,
            )
            + "\n"
        )

    @classmethod
    def from_text(cls, text: str) -> TrustRoot:
        try:
            d = json.loads(text)
            if d.get("format") != ROOT_FORMAT:
                raise ValueError(f"format is {d.get('format')!r}, not {ROOT_FORMAT!r}")
            pk = bytes.fromhex(str(d["public_key"]))
            if len(pk) != 32:
                raise ValueError("public key must be 32 bytes")
            kid = str(d["key_id"])
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise InvalidInput(f"bad trust root: {e}") from e
        if kid != root_key_id(pk):
            raise InvalidInput(f"bad trust root: key id {kid} does not match its public key")
        return cls(kid, pk)

    @classmethod
    def load(cls, path: Path) -> TrustRoot:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read trust root {path}: {e}") from e
        return cls.from_text(text)


@dataclass(frozen=True, slots=True)
class RootKey:
    """The root's private key. Keep it offline: it is needed only to sign a keyring."""

    signing_key: SigningKey

    @classmethod
    def generate(cls) -> RootKey:
        return cls(SigningKey.generate())

    @property
    def trust_root(self) -> TrustRoot:
        pk = bytes(self.signing_key.verify_key)
        return TrustRoot(root_key_id(pk), pk)

    def sign(
        self, entries: Iterable[PublicKeyEntry], *, version: int, issued_at_ms: int
    ) -> Keyring:
        unsigned = Keyring(version, issued_at_ms, self.trust_root.key_id, tuple(entries), bytes(64))
        unsigned.check_entries()
        sig = self.signing_key.sign(domain_message(DOMAIN, unsigned.body())).signature
        return replace(unsigned, signature=sig)

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"format": "croupier-root-key/v1", "seed": bytes(self.signing_key).hex()})
        )
        path.chmod(0o600)
        return path

    @classmethod
    def load(cls, path: Path) -> RootKey:
        try:
            d = json.loads(path.read_text())
            return cls(SigningKey(bytes.fromhex(d["seed"])))
        except (OSError, KeyError, ValueError, TypeError) as e:
            raise ConfigError(f"cannot load root key {path}: {e}") from e


@dataclass(frozen=True, slots=True)
class Keyring:
    """A root-signed list of producer keys (see the module notes)."""

    version: int
    issued_at_ms: int
    root_key_id: str
    entries: tuple[PublicKeyEntry, ...]
    signature: bytes

    def body(self) -> bytes:
        return canonical.dumps(
            {
                "format": FORMAT,
                "issued_at_ms": self.issued_at_ms,
                "keys": [e.to_json_dict() for e in self.entries],
                "root_key_id": self.root_key_id,
                "version": self.version,
            }
        )

    def check_entries(self) -> None:
        seen: set[str] = set()
        for e in self.entries:
            if e.producer not in PRODUCERS:
                raise InvalidInput(f"keyring: key {e.key_id} has unknown producer {e.producer!r}")
            if e.key_id in seen:
                raise InvalidInput(f"keyring: key id {e.key_id} appears twice")
            if len(e.public_key) != 32:
                raise InvalidInput(f"keyring: key {e.key_id}: public key must be 32 bytes")
            seen.add(e.key_id)
        if self.version < 1:
            raise InvalidInput("keyring: version must be >= 1")

    def verify(self, root: TrustRoot) -> None:
        """Raise :class:`UnknownKey` (reason ``untrusted_keyring``) unless ``root`` signed
        this keyring."""
        if self.root_key_id != root.key_id:
            raise UnknownKey(
                f"keyring v{self.version} is signed by {self.root_key_id}, not by the pinned "
                f"root {root.key_id}",
                reason="untrusted_keyring",
            )
        try:
            VerifyKey(root.public_key).verify(domain_message(DOMAIN, self.body()), self.signature)
        except BadSignatureError:
            raise UnknownKey(
                f"keyring v{self.version}: the root's signature does not verify",
                reason="untrusted_keyring",
            ) from None
        self.check_entries()

    def registry(self) -> KeyRegistry:
        return KeyRegistry(self.entries)

    def get(self, key_id: str) -> PublicKeyEntry:
        for e in self.entries:
            if e.key_id == key_id:
                return e
        raise UnknownKey(f"key id {key_id!r} is not in keyring v{self.version}")

    def key_valid_at(self, key_id: str, at_ms: int) -> bool:
        """Whether ``key_id`` may have signed at ``at_ms``, a time the verifier trusts
        (the checkpoint that first included a seal, a consumer's receipt), never the
        signer's own date."""
        return key_valid_at(self.registry(), key_id, at_ms)

    def producer_keys(self, producer: str) -> list[PublicKeyEntry]:
        return [e for e in self.entries if e.producer == producer]

    # -- changes (the result must be signed again by the root) -------------------------
    def with_key(self, entry: PublicKeyEntry) -> list[PublicKeyEntry]:
        if any(e.key_id == entry.key_id for e in self.entries):
            raise InvalidInput(f"key id {entry.key_id} is already in the keyring")
        return [*self.entries, entry]

    def ending(
        self, key_id: str, *, valid_to_ms: int | None = None, revoked_at_ms: int | None = None
    ) -> list[PublicKeyEntry]:
        """The entries with ``key_id``'s signing period ended at ``valid_to_ms``
        (rotation) and/or the key revoked at ``revoked_at_ms`` (compromise). Neither
        ever moves later."""
        old = self.get(key_id)
        new = old
        if valid_to_ms is not None and valid_to_ms < old.valid_to_ms:
            new = replace(new, valid_to_ms=max(valid_to_ms, old.valid_from_ms))
        if revoked_at_ms is not None and (
            old.revoked_at_ms is None or revoked_at_ms < old.revoked_at_ms
        ):
            new = replace(new, revoked_at_ms=revoked_at_ms)
        return [new if e.key_id == key_id else e for e in self.entries]

    # -- JSON ---------------------------------------------------------------------------
    def to_json_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = canonical.loads(self.body())
        d["signature"] = self.signature.hex()
        return d

    def to_text(self) -> str:
        return json.dumps(self.to_json_dict(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json_dict(cls, d: Mapping[str, Any]) -> Keyring:
        try:
            if d.get("format") != FORMAT:
                raise ValueError(f"format is {d.get('format')!r}, not {FORMAT!r}")
            return cls(
                version=int(d["version"]),
                issued_at_ms=int(d["issued_at_ms"]),
                root_key_id=str(d["root_key_id"]),
                entries=tuple(PublicKeyEntry.from_json_dict(k) for k in d["keys"]),
                signature=bytes.fromhex(str(d["signature"])),
            )
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            raise InvalidInput(f"bad keyring: {e}") from e

    @classmethod
    def from_text(cls, text: str) -> Keyring:
        try:
            d = json.loads(text)
        except ValueError as e:
            raise InvalidInput(f"bad keyring: {e}") from e
        if not isinstance(d, dict):
            raise InvalidInput("bad keyring: not a JSON object")
        return cls.from_json_dict(d)

    @classmethod
    def load(cls, path: Path) -> Keyring:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read keyring {path}: {e}") from e
        return cls.from_text(text)


def key_valid_at(registry: KeyRegistry, key_id: str, at_ms: int) -> bool:
    """Whether ``key_id`` may have signed at ``at_ms``: in the (trusted) registry, within
    its signing period and before any revocation. ``at_ms`` is a time the verifier
    trusts: the transparency log's checkpoint that first included the seal, or the time a
    live consumer received it; never the ``sealed_at_ms`` its signer wrote."""
    return registry.key_valid_at(key_id, at_ms)


def trusted_registry(keyring: Keyring, root: TrustRoot) -> KeyRegistry:
    """The registry of ``keyring`` once ``root`` is checked to have signed it."""
    keyring.verify(root)
    return keyring.registry()


def new_entry(public_key: bytes, producer: str, key_id: str, valid_from_ms: int) -> PublicKeyEntry:
    return PublicKeyEntry(key_id, producer, public_key, valid_from_ms, FOREVER)


def revoked_signers(registry: KeyRegistry, key_ids: Sequence[str], at_ms: int) -> list[str]:
    """Of a service's own signing ``key_ids``, those the registry revokes at ``at_ms`` (or
    no longer knows): a service holding one must stop signing (:class:`SigningKeyRevoked`)."""
    out = []
    for kid in key_ids:
        try:
            e = registry.get(kid)
        except UnknownKey:
            out.append(kid)
            continue
        if e.revoked_at_ms is not None and e.revoked_at_ms <= at_ms:
            out.append(kid)
    return out
