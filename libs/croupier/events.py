"""Event envelopes, the per-stream hash chain, and seals.

A *stream* is one hand or one shoe (``shoe`` = the unit a server seed is committed for).
Each event is an :class:`Event`: stream id, sequence number (0, 1, 2, ... without gaps),
type, producer and key id, the previous event's hash (32 zero bytes for seq 0) and a
canonical-JSON payload. Its hash is ``SHA-256(b"croupier:event:v1\\n" + header + payload)``
where ``header`` is the canonical JSON of the envelope fields.

Events are not signed one by one. A producer that appends a batch of events closes it
with a :class:`Seal`: an Ed25519 signature over the list of ``(stream, seq, hash)`` chain
heads it appended, at a stated time. Because every hash covers its predecessor, a seal on
a head covers every earlier event of that stream. An event is *covered* when a seal by
its own producer names the same stream at the same or a later sequence number, and the
chain between them is intact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier import canonical
from croupier.errors import (
    ChainError,
    IntegrityError,
    InvalidInput,
    SignatureError,
    UnknownKey,
)
from croupier.signing import KeyRegistry, Signer

GENESIS = bytes(32)
EVENT_TAG = b"croupier:event:v1\n"
SEAL_DOMAIN = "seal"


def _event_hash(header: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(EVENT_TAG + header + b"\n" + payload).digest()


def _header(stream: str, seq: int, type_: str, producer: str, key_id: str, prev: bytes) -> bytes:
    return canonical.dumps(
        {
            "key_id": key_id,
            "prev": prev.hex(),
            "producer": producer,
            "seq": seq,
            "stream": stream,
            "type": type_,
        },
        check=False,
    )


@dataclass(frozen=True, slots=True)
class Event:
    """One immutable entry of a stream. ``payload_bytes`` is canonical JSON."""

    stream: str
    seq: int
    type: str
    producer: str
    key_id: str
    prev_hash: bytes
    payload_bytes: bytes
    hash: bytes

    @property
    def payload(self) -> dict[str, Any]:
        value = canonical.loads(self.payload_bytes)
        assert isinstance(value, dict)
        return value

    def recompute_hash(self) -> bytes:
        return _event_hash(
            _header(self.stream, self.seq, self.type, self.producer, self.key_id, self.prev_hash),
            self.payload_bytes,
        )

    def json_header(self) -> dict[str, Any]:
        """The exported form without its payload (callers add ``"payload"`` last)."""
        return {
            "stream": self.stream,
            "seq": self.seq,
            "type": self.type,
            "producer": self.producer,
            "key_id": self.key_id,
            "prev": self.prev_hash.hex(),
            "hash": self.hash.hex(),
        }

    def to_json_dict(self) -> dict[str, Any]:
        return {**self.json_header(), "payload": self.payload}

    @classmethod
    def from_json_dict(cls, d: Mapping[str, Any]) -> Event:
        """Rebuild an event from its exported form. The hash is taken as given, so a
        tampered export is caught by :func:`verify_chain`, not hidden here."""
        try:
            return cls(
                stream=str(d["stream"]),
                seq=int(d["seq"]),
                type=str(d["type"]),
                producer=str(d["producer"]),
                key_id=str(d["key_id"]),
                prev_hash=bytes.fromhex(d["prev"]),
                payload_bytes=canonical.dumps(d["payload"]),
                hash=bytes.fromhex(d["hash"]),
            )
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidInput(f"malformed event: {e}") from e


def make_event(
    stream: str,
    seq: int,
    type_: str,
    producer: str,
    key_id: str,
    prev_hash: bytes,
    payload: Mapping[str, Any],
) -> Event:
    if seq < 0:
        raise InvalidInput("seq must be >= 0")
    if len(prev_hash) != 32:
        raise InvalidInput("prev_hash must be 32 bytes")
    body = canonical.dumps(payload)
    h = _event_hash(_header(stream, seq, type_, producer, key_id, prev_hash), body)
    return Event(stream, seq, type_, producer, key_id, prev_hash, body, h)


@dataclass(frozen=True, slots=True)
class SealEntry:
    stream: str
    seq: int
    hash: bytes


@dataclass(frozen=True, slots=True)
class Seal:
    """A producer's signature over a batch of chain heads."""

    producer: str
    key_id: str
    sealed_at_ms: int
    entries: tuple[SealEntry, ...]
    signature: bytes

    @staticmethod
    def body(producer: str, key_id: str, sealed_at_ms: int, entries: Sequence[SealEntry]) -> bytes:
        return canonical.dumps(
            {
                "entries": [[e.stream, e.seq, e.hash.hex()] for e in entries],
                "key_id": key_id,
                "producer": producer,
                "sealed_at_ms": sealed_at_ms,
            },
            check=False,
        )

    @property
    def seal_id(self) -> str:
        """Deterministic id (used as the JetStream ``Nats-Msg-Id`` of its batch)."""
        return hashlib.sha256(self.signature).hexdigest()[:32]

    def check_key(self, registry: KeyRegistry, seen_at_ms: int | None = None) -> None:
        """The registry's validity rules for this seal's key (see
        :meth:`KeyRegistry.check_key`); ``seen_at_ms`` is when a witness first saw it."""
        registry.check_key(
            producer=self.producer,
            key_id=self.key_id,
            signed_at_ms=self.sealed_at_ms,
            seen_at_ms=seen_at_ms,
        )

    def verify_signature(self, registry: KeyRegistry) -> None:
        registry.verify_signature(
            self.key_id,
            SEAL_DOMAIN,
            Seal.body(self.producer, self.key_id, self.sealed_at_ms, self.entries),
            self.signature,
        )

    def verify(self, registry: KeyRegistry, seen_at_ms: int | None = None) -> None:
        self.check_key(registry, seen_at_ms)
        self.verify_signature(registry)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "producer": self.producer,
            "key_id": self.key_id,
            "sealed_at_ms": self.sealed_at_ms,
            "entries": [[e.stream, e.seq, e.hash.hex()] for e in self.entries],
            "signature": self.signature.hex(),
        }

    @classmethod
    def from_json_dict(cls, d: Mapping[str, Any]) -> Seal:
        try:
            return cls(
                producer=str(d["producer"]),
                key_id=str(d["key_id"]),
                sealed_at_ms=int(d["sealed_at_ms"]),
                entries=tuple(
                    SealEntry(str(s), int(q), bytes.fromhex(h)) for s, q, h in d["entries"]
                ),
                signature=bytes.fromhex(d["signature"]),
            )
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidInput(f"malformed seal: {e}") from e


def seal(signer: Signer, heads: Iterable[Event], sealed_at_ms: int) -> Seal:
    """Sign the given chain heads (normally the last event of each stream in a batch)."""
    entries = tuple(SealEntry(e.stream, e.seq, e.hash) for e in heads)
    if not entries:
        raise InvalidInput("a seal needs at least one head")
    body = Seal.body(signer.producer, signer.key_id, sealed_at_ms, entries)
    return Seal(
        signer.producer, signer.key_id, sealed_at_ms, entries, signer.sign(SEAL_DOMAIN, body)
    )


def heads_of(events: Iterable[Event]) -> list[Event]:
    """The last event of each stream, in order of first appearance."""
    last: dict[str, Event] = {}
    for e in events:
        last[e.stream] = e
    return list(last.values())


@dataclass
class StreamWriter:
    """Appends events to one stream, keeping the chain. Pure: it only builds records."""

    stream: str
    next_seq: int = 0
    head: bytes = GENESIS
    pending: list[Event] = field(default_factory=list)

    @classmethod
    def resume(cls, events: Sequence[Event]) -> StreamWriter:
        if not events:
            raise InvalidInput("cannot resume an empty stream")
        last = events[-1]
        return cls(last.stream, last.seq + 1, last.hash)

    def append(self, signer: Signer, type_: str, payload: Mapping[str, Any]) -> Event:
        ev = make_event(
            self.stream, self.next_seq, type_, signer.producer, signer.key_id, self.head, payload
        )
        self.next_seq += 1
        self.head = ev.hash
        self.pending.append(ev)
        return ev

    def take(self) -> list[Event]:
        out, self.pending = self.pending, []
        return out


def verify_chain(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Check one stream's events: one stream id, seq 0.. without gaps, each hash right
    and linked to its predecessor, payloads canonical. Raises :class:`ChainError`
    naming the first bad event. Returns the parsed payloads (parsed once, here)."""
    prev = GENESIS
    stream = events[0].stream if events else ""
    payloads: list[dict[str, Any]] = []
    for i, e in enumerate(events):
        if e.stream != stream:
            raise ChainError(
                f"event {i} belongs to stream {e.stream}, not {stream}", stream=e.stream, seq=e.seq
            )
        if e.seq != i:
            raise ChainError(f"{e.stream}#{e.seq}: expected seq {i}", stream=e.stream, seq=e.seq)
        if e.prev_hash != prev:
            raise ChainError(
                f"{e.stream}#{e.seq}: previous hash does not match", stream=e.stream, seq=e.seq
            )
        try:
            payload = canonical.loads(e.payload_bytes)
            canonical_ = canonical.dumps(payload, check=False) == e.payload_bytes
        except (InvalidInput, ValueError):
            canonical_ = False
        if not canonical_ or not isinstance(payload, dict):
            raise ChainError(
                f"{e.stream}#{e.seq}: payload is not canonical JSON", stream=e.stream, seq=e.seq
            )
        if e.recompute_hash() != e.hash:
            raise ChainError(
                f"{e.stream}#{e.seq}: hash does not match content", stream=e.stream, seq=e.seq
            )
        payloads.append(payload)
        prev = e.hash
    return payloads


class SealVerifier:
    """Verifies seals once each (a seal may cover many streams) and checks coverage.
    Remembers at most :attr:`CACHE` verified seals, so a long-running consumer's memory
    stays bounded.

    A seal is remembered whole (everything its signature covers *and* the signature),
    never by the signature alone: a seal that carries a genuine signature over other
    entries, another time or another key id is a different seal and is verified (and
    refused) on its own. The look-up costs a dictionary probe and an equality check (an
    identity check when, as usual, the same seal object comes again), not a re-encoding.

    Key validity is checked on every call (it is a few dictionary look-ups), only the
    Ed25519 verification is remembered. ``seen_at`` says when a witness other than the
    signer first saw a seal (a live consumer: now, on receipt; an audit: the checkpoint
    that first included it); ``None`` means nothing but the signer dates it, and then a
    seal from a revoked key does not pass (:meth:`KeyRegistry.check_key`)."""

    CACHE = 100_000

    def __init__(
        self, registry: KeyRegistry, seen_at: Callable[[Seal], int | None] | None = None
    ) -> None:
        self.registry = registry
        self.seen_at = seen_at
        # by signature, the verified seal; insertion-ordered: the oldest are dropped first
        self._ok: dict[bytes, Seal] = {}

    def verify(self, s: Seal) -> None:
        s.check_key(self.registry, None if self.seen_at is None else self.seen_at(s))
        known = self._ok.get(s.signature)
        if known is not None and (known is s or known == s):
            return
        s.verify_signature(self.registry)
        self._ok[s.signature] = s
        if len(self._ok) > self.CACHE:
            for old in list(self._ok)[: self.CACHE // 2]:
                del self._ok[old]

    def check_event_keys(self, events: Sequence[Event]) -> None:
        """Each event names a key id registered to its own producer (a rules key never
        writes a dealer's event)."""
        for e in events:
            try:
                owner = self.registry.get(e.key_id).producer
            except UnknownKey as err:
                raise UnknownKey(
                    f"{e.stream}#{e.seq}: {err.message}", stream=e.stream, seq=e.seq
                ) from err
            if owner != e.producer:
                raise UnknownKey(
                    f"{e.stream}#{e.seq} ({e.type} by {e.producer}) names key {e.key_id} of "
                    f"{owner}",
                    reason="wrong_key",
                    stream=e.stream,
                    seq=e.seq,
                )

    def check_coverage(self, events: Sequence[Event], seals: Iterable[Seal]) -> None:
        """Every event of the (already chain-verified) stream must be covered by a valid
        seal of its own producer naming this stream at the same or a later seq with the
        same hash. Raises :class:`SignatureError` naming the first uncovered event."""
        if not events:
            return
        stream = events[0].stream
        self.check_event_keys(events)
        by_seq = {e.seq: e for e in events}
        best: dict[str, int] = {}  # producer -> highest sealed seq
        for s in seals:
            for entry in s.entries:
                if entry.stream != stream:
                    continue
                ev = by_seq.get(entry.seq)
                if ev is None or ev.hash != entry.hash:
                    raise SignatureError(
                        f"seal by {s.key_id} names {stream}#{entry.seq} with a hash not in the "
                        "chain",
                        stream=stream,
                        seq=entry.seq,
                    )
                try:
                    self.verify(s)
                except IntegrityError as err:
                    raise type(err)(
                        f"{stream}#{entry.seq}: seal by {s.key_id}: {err.message}",
                        reason=err.reason,
                        stream=stream,
                        seq=entry.seq,
                    ) from err
                if entry.seq > best.get(s.producer, -1):
                    best[s.producer] = entry.seq
        for e in events:
            if best.get(e.producer, -1) < e.seq:
                raise SignatureError(
                    f"{e.stream}#{e.seq} ({e.type} by {e.producer}) is not covered by a "
                    f"{e.producer} seal",
                    stream=e.stream,
                    seq=e.seq,
                )


def first_error(
    events: Sequence[Event], seals: Iterable[Seal], registry: KeyRegistry
) -> IntegrityError | None:
    try:
        verify_chain(events)
        SealVerifier(registry).check_coverage(events, seals)
    except IntegrityError as e:
        return e
    return None
