"""C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 keys, and C2SP
checkpoints (https://c2sp.org/tlog-checkpoint) of the seal log.

A signed note is UTF-8 text ending in a newline, a blank line, and one signature line
per signer: ``"— " + name + " " + base64(key_id[4] || signature[64]) + "\\n"``. The
Ed25519 signature is over the note text exactly (not domain-prefixed: the text's first
line, the log's *origin*, separates it from anything else the key could sign). The key
id is ``SHA-256(name || "\\n" || 0x01 || public_key)[:4]``. A verifier key is written
``name+<8 hex key id>+base64(0x01 || public_key)``, the form Go's
``golang.org/x/mod/sumdb/note`` and every C2SP tool reads, so a checkpoint can be
checked by tools that know nothing of Croupier.

A checkpoint's text is three lines: the origin, the tree size in decimal and the base64
root hash, then optional extension lines; Croupier adds one, ``time <ms>``, the
publisher's clock when it signed, so the first checkpoint that includes a seal vouches,
under the log's key, that the seal existed by then.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from croupier.errors import InvalidInput, SignatureError
from croupier.signing import FileSigner
from croupier.tlog.merkle import HASH_LEN

ALG_ED25519 = 0x01
DASH = "\u2014 "


def key_id(name: str, public_key: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + public_key).digest()[:4]


def _check_name(name: str) -> None:
    if not name or any(c.isspace() for c in name) or "+" in name:
        raise InvalidInput(f"a note key name has no spaces or '+': {name!r}")


@dataclass(frozen=True, slots=True)
class NoteVerifier:
    """A verifier key: a name and an Ed25519 public key."""

    name: str
    public_key: bytes

    def __post_init__(self) -> None:
        _check_name(self.name)
        if len(self.public_key) != 32:
            raise InvalidInput("an Ed25519 public key is 32 bytes")

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.public_key)

    def encode(self) -> str:
        """``name+<hex key id>+<base64(0x01 || key)>``."""
        blob = base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()
        return f"{self.name}+{self.key_id.hex()}+{blob}"

    @classmethod
    def parse(cls, text: str) -> NoteVerifier:
        parts = text.strip().split("+", 2)
        if len(parts) != 3 or len(parts[1]) != 8:
            raise InvalidInput("a verifier key reads name+<8 hex>+<base64 key>")
        name, hid, blob = parts
        try:
            raw = base64.b64decode(blob, validate=True)
            want = bytes.fromhex(hid)
        except (binascii.Error, ValueError) as e:
            raise InvalidInput(f"malformed verifier key: {e}") from e
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise InvalidInput("verifier key is not an Ed25519 key")
        v = cls(name, raw[1:])
        if v.key_id != want:
            raise InvalidInput("verifier key id does not match its name and key")
        return v

    def verify(self, text: bytes, signature: bytes) -> None:
        try:
            VerifyKey(self.public_key).verify(text, signature)
        except BadSignatureError:
            raise SignatureError(f"note signature by {self.name} does not verify") from None


@dataclass(frozen=True, slots=True)
class NoteSigner:
    """Signs notes under ``name`` with a :class:`~croupier.signing.FileSigner`'s Ed25519
    key. The signature must be a plain Ed25519 signature of the note text (C2SP), so a
    KMS or HSM signer standing in for the file key must offer raw Ed25519 signing."""

    name: str
    signer: FileSigner

    def __post_init__(self) -> None:
        _check_name(self.name)

    @property
    def verifier(self) -> NoteVerifier:
        return NoteVerifier(self.name, bytes(self.signer.signing_key.verify_key))

    def signature_line(self, text: bytes) -> str:
        sig = self.signer.signing_key.sign(text).signature
        blob = base64.b64encode(self.verifier.key_id + sig).decode()
        return f"{DASH}{self.name} {blob}\n"

    def sign(self, text: str) -> str:
        if not text.endswith("\n") or "\n\n" in text:
            raise InvalidInput("note text ends with a newline and has no blank line")
        return text + "\n" + self.signature_line(text.encode())


def open_note(note: str, verifier: NoteVerifier) -> str:
    """The note's text, once a signature by ``verifier`` is found and verifies. Raises
    :class:`SignatureError` when there is none, or it does not verify."""
    text, sep, sigs = note.rpartition("\n\n")
    if not sep or not sigs.endswith("\n"):
        raise InvalidInput("not a signed note: no blank line before the signatures")
    text += "\n"
    found = False
    for line in sigs.splitlines():
        if not line.startswith(DASH):
            raise InvalidInput(f"malformed note signature line {line!r}")
        name, _, blob = line[len(DASH) :].partition(" ")
        try:
            raw = base64.b64decode(blob, validate=True)
        except binascii.Error as e:
            raise InvalidInput(f"malformed note signature: {e}") from e
        if name != verifier.name or raw[:4] != verifier.key_id:
            continue
        if len(raw) != 4 + 64:
            raise SignatureError(f"note signature by {name} is not an Ed25519 signature")
        verifier.verify(text.encode(), raw[4:])
        found = True
    if not found:
        raise SignatureError(f"note carries no signature by {verifier.name}")
    return text


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A log's size and root hash under its origin (the C2SP checkpoint body)."""

    origin: str
    size: int
    root: bytes
    time_ms: int | None = None  # the ``time`` extension line: when it was signed

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise InvalidInput("a checkpoint origin is one non-empty line")
        if self.size < 0 or len(self.root) != HASH_LEN:
            raise InvalidInput("a checkpoint has a size >= 0 and a 32-byte root")

    def text(self) -> str:
        body = f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"
        return body if self.time_ms is None else body + f"time {self.time_ms}\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.split("\n")
        if len(lines) < 4 or lines[-1] != "":
            raise InvalidInput("a checkpoint has an origin, a size and a root line")
        origin, size, root = lines[0], lines[1], lines[2]
        if not size.isdigit() or (size != "0" and size.startswith("0")):
            raise InvalidInput(f"checkpoint size {size!r} is not a decimal number")
        try:
            raw = base64.b64decode(root, validate=True)
        except binascii.Error as e:
            raise InvalidInput(f"checkpoint root is not base64: {e}") from e
        time_ms = None
        for ext in lines[3:-1]:
            key, _, value = ext.partition(" ")
            if key == "time" and value.isdigit():
                time_ms = int(value)
        return cls(origin, int(size), raw, time_ms)

    def sign(self, signer: NoteSigner) -> str:
        return signer.sign(self.text())


def open_checkpoint(note: str, verifier: NoteVerifier, origin: str | None = None) -> Checkpoint:
    """A signed checkpoint, verified against ``verifier`` (and its origin, which must be
    the verifier's name unless ``origin`` is given)."""
    cp = Checkpoint.parse(open_note(note, verifier))
    want = verifier.name if origin is None else origin
    if cp.origin != want:
        raise SignatureError(f"checkpoint is for log {cp.origin!r}, not {want!r}")
    return cp
