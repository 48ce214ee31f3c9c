"""Event envelopes, the per-stream hash chain, and seals.

A *stream* is one hand or one shoe (``shoe`` = the unit a server seed is committed for).
Each event is an :class:`Event`: stream id, sequence number (0, 1, 2, ... without gaps),
type, producer and key id, the previous event's hash (32 zero bytes for seq 0) and a
canonical-JSON payload. Its hash is ``SHA-256(b"croupier:event:v1\\n" + header + payload)``
where ``header`` is the canonical JSON of the envelope fields.

Events are not signed one by one. A producer that appends a batch of events closes it
with a :class:`Seal`: an Ed25519 signature over the ``(stream, seq, hash)`` chain heads
it appended, at a stated time (since version 2, over the RFC 6962 Merkle root of those
heads, so that each bus message carries only its own hand's heads and their audit paths
rather than every head of the batch). Because every hash covers its predecessor, a seal on
a head covers every earlier event of that stream. An event is *covered* when a seal by
its own producer names the same stream at the same or a later sequence number, and the
chain between them is intact.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier import canonical
from croupier.accel import native as _native
from croupier.accel import sha256
from croupier.errors import (
    ChainError,
    IntegrityError,
    InvalidInput,
    SignatureError,
    UnknownKey,
)
from croupier.picklable import ByFields
from croupier.signing import KeyRegistry, Signer
from croupier.tlog.merkle import MemoryTree, leaf_hash, root_from_inclusion, root_from_leaf_hashes

GENESIS = bytes(32)
EVENT_TAG = b"croupier:event:v1\n"
SEAL_DOMAIN = "seal"


def _event_hash(header: bytes, payload: bytes) -> bytes:
    return sha256(EVENT_TAG + header + b"\n" + payload)


def _hash_of(
    stream: str, seq: int, type_: str, producer: str, key_id: str, prev: bytes, payload: bytes
) -> bytes:
    """An event's hash from its fields: the native path's where it takes them (no name
    JSON would escape), else the tag, :func:`_header` and the payload hashed here."""
    if _native is not None:
        h: bytes | None = _native.event_hash(stream, seq, type_, producer, key_id, prev, payload)
        if h is not None:
            return h
    return _event_hash(_header(stream, seq, type_, producer, key_id, prev), payload)


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
class Event(ByFields):
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
        return _hash_of(
            self.stream,
            self.seq,
            self.type,
            self.producer,
            self.key_id,
            self.prev_hash,
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
    def from_json_dict(cls, d: Mapping[str, Any], *, json_types_only: bool = False) -> Event:
        """Rebuild an event from its exported form. The hash is taken as given, so a
        tampered export is caught by :func:`verify_chain`, not hidden here.
        ``json_types_only``: ``d`` is as orjson parsed it (JSON's types only, no NaN), so
        the payload is checked for floats in its written text
        (:func:`canonical.dumps_parsed`) instead of by a walk of its value."""
        encode = canonical.dumps_parsed if json_types_only else canonical.dumps
        try:
            head: tuple[Any, ...] | None = (
                d["stream"],
                d["seq"],
                d["type"],
                d["producer"],
                d["key_id"],
            )
        except (KeyError, TypeError):  # worded below, in the order of the fields
            head = None
        try:
            if (
                cls is Event
                and head is not None
                and type(head[0]) is str
                and type(head[1]) is int
                and type(head[2]) is str
                and type(head[3]) is str
                and type(head[4]) is str
            ):
                # fields of their exact types need no conversion: the slots are set
                # directly, as the frozen class's __init__ would (a bus message's
                # decode rebuilds every event of the hand: half the cost of the call)
                return event_of_fields(
                    head[0],
                    head[1],
                    head[2],
                    head[3],
                    head[4],
                    bytes.fromhex(d["prev"]),
                    encode(d["payload"]),
                    bytes.fromhex(d["hash"]),
                )
            return cls(
                stream=str(d["stream"]),
                seq=int(d["seq"]),
                type=str(d["type"]),
                producer=str(d["producer"]),
                key_id=str(d["key_id"]),
                prev_hash=bytes.fromhex(d["prev"]),
                payload_bytes=encode(d["payload"]),
                hash=bytes.fromhex(d["hash"]),
            )
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidInput(f"malformed event: {e}") from e


_NEW = object.__new__
_SETTERS = tuple(getattr(Event, f.name).__set__ for f in dataclasses.fields(Event))


def _event_of_fields(*fields: Any) -> Event:
    e = _NEW(Event)
    for set_field, value in zip(_SETTERS, fields, strict=True):
        set_field(e, value)
    return e


def _events_of_rows(rows: Iterable[Sequence[Any]]) -> list[Event]:
    return [Event(*r) for r in rows]


if _native is not None:
    _native.bind_event(Event, tuple(f.name for f in dataclasses.fields(Event)))
event_of_fields: Callable[[str, int, str, str, str, bytes, bytes, bytes], Event] = (
    _event_of_fields if _native is None else _native.new_event
)
"""An event from its eight fields, of their exact types and already checked, built as
the frozen class's ``__init__`` builds it (each slot set once) without its calls of
``object.__setattr__``: natively where the accelerator is built. A bus message's decode,
a store read and :func:`make_event` build every event of a hand this way."""
events_of_rows: Callable[[Iterable[Sequence[Any]]], list[Event]] = (
    _events_of_rows if _native is None else _native.events_of
)
"""Events from rows of their eight fields in :class:`Event`'s order (a store read)."""


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
    h = _hash_of(stream, seq, type_, producer, key_id, prev_hash, body)
    return event_of_fields(stream, seq, type_, producer, key_id, prev_hash, body, h)


SEAL_ENTRY_TAG = b"croupier:seal-entry:v2\n"
SEAL_VERSIONS = (1, 2)
"""1: a seal signs its entries; 2: their Merkle root (see :class:`Seal`)."""


@dataclass(frozen=True, slots=True)
class SealEntry(ByFields):
    stream: str
    seq: int
    hash: bytes

    def leaf(self) -> bytes:
        """This entry's leaf hash in a version-2 seal's tree: ``SHA-256(0x00 || tag ||
        canonical JSON [stream, seq, hash hex])`` (RFC 6962 leaf hashing)."""
        return leaf_hash(
            SEAL_ENTRY_TAG + canonical.dumps([self.stream, self.seq, self.hash.hex()], check=False)
        )


if _native is not None:
    _native.bind_seal_entry(
        SealEntry, tuple(f.name for f in dataclasses.fields(SealEntry)), SEAL_ENTRY_TAG
    )


def seal_entries_of(text: bytes) -> tuple[SealEntry, ...]:
    """A seal's entries from their stored text, the canonical JSON ``[[stream, seq, hash
    hex], ...]`` (a ``seals`` row): natively where the accelerator is built and the text
    is in that plain form, else as :mod:`croupier.canonical` parses it."""
    if _native is not None:
        entries: tuple[SealEntry, ...] | None = _native.seal_entries(text)
        if entries is not None:
            return entries
    raw = canonical.loads(text)
    return tuple(SealEntry(str(s), int(q), bytes.fromhex(h)) for s, q, h in raw)


@dataclass(frozen=True, slots=True)
class SealPart(ByFields):
    """What a version-2 seal carries when it travels with only some of its entries (a
    bus message names one hand): how many entries its signed root covers, and for each
    carried entry, in order, its leaf index and RFC 6962 audit path into that root."""

    size: int
    paths: tuple[tuple[int, tuple[bytes, ...]], ...]


@dataclass(frozen=True, slots=True)
class Seal(ByFields):
    """A producer's signature over a batch of chain heads.

    Version 1 signs the list of entries itself. Version 2 signs the RFC 6962 Merkle root
    over the entries (:meth:`SealEntry.leaf`) and their number, so a message can carry a
    seal with only the entries it needs and their audit paths (``part``) and still be
    verified against the same signature. A stored or exported seal is always whole."""

    producer: str
    key_id: str
    sealed_at_ms: int
    entries: tuple[SealEntry, ...]
    signature: bytes
    version: int = 1
    part: SealPart | None = None

    @staticmethod
    def body(producer: str, key_id: str, sealed_at_ms: int, entries: Sequence[SealEntry]) -> bytes:
        """The bytes a version-1 seal signs."""
        return canonical.dumps(
            {
                "entries": [[e.stream, e.seq, e.hash.hex()] for e in entries],
                "key_id": key_id,
                "producer": producer,
                "sealed_at_ms": sealed_at_ms,
            },
            check=False,
        )

    @staticmethod
    def body_v2(producer: str, key_id: str, sealed_at_ms: int, root: bytes, size: int) -> bytes:
        """The bytes a version-2 seal signs: its entries' Merkle root and their number."""
        return canonical.dumps(
            {
                "key_id": key_id,
                "producer": producer,
                "root": root.hex(),
                "sealed_at_ms": sealed_at_ms,
                "size": size,
                "v": 2,
            },
            check=False,
        )

    @property
    def size(self) -> int:
        """How many entries the signature covers (a part carries fewer)."""
        return len(self.entries) if self.part is None else self.part.size

    def root(self) -> bytes:
        """A version-2 seal's Merkle root: over every entry of a whole seal, or the one
        root every carried entry's audit path leads to (else :class:`SignatureError`)."""
        if self.part is None:
            if _native is not None:
                native: bytes | None = _native.seal_root(self.entries)
                if native is not None:
                    return native
            return root_from_leaf_hashes([e.leaf() for e in self.entries])
        roots = set()
        for e, (index, path) in zip(self.entries, self.part.paths, strict=True):
            try:
                roots.add(root_from_inclusion(index, self.part.size, e.leaf(), path))
            except IntegrityError as err:
                raise SignatureError(
                    f"seal by {self.key_id}: entry {e.stream}#{e.seq}: {err.message}"
                ) from err
        if len(roots) != 1:
            raise SignatureError(f"seal by {self.key_id}: its entries lead to different roots")
        return roots.pop()

    def signed_body(self, root: bytes | None = None) -> bytes:
        if self.version == 1:
            return Seal.body(self.producer, self.key_id, self.sealed_at_ms, self.entries)
        return Seal.body_v2(
            self.producer,
            self.key_id,
            self.sealed_at_ms,
            self.root() if root is None else root,
            self.size,
        )

    @property
    def seal_id(self) -> str:
        """Deterministic id (used as the JetStream ``Nats-Msg-Id`` of its batch)."""
        return sha256(self.signature).hex()[:32]

    def check_key(self, registry: KeyRegistry, seen_at_ms: int | None = None) -> None:
        """The registry's validity rules for this seal's key (see
        :meth:`KeyRegistry.check_key`); ``seen_at_ms`` is when a witness first saw it."""
        registry.check_key(
            producer=self.producer,
            key_id=self.key_id,
            signed_at_ms=self.sealed_at_ms,
            seen_at_ms=seen_at_ms,
        )

    def verify_signature(self, registry: KeyRegistry, root: bytes | None = None) -> None:
        registry.verify_signature(self.key_id, SEAL_DOMAIN, self.signed_body(root), self.signature)

    def verify(self, registry: KeyRegistry, seen_at_ms: int | None = None) -> None:
        self.check_key(registry, seen_at_ms)
        self.verify_signature(registry)

    def to_json_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {} if self.version == 1 else {"v": self.version}
        d["producer"] = self.producer
        d["key_id"] = self.key_id
        d["sealed_at_ms"] = self.sealed_at_ms
        d["entries"] = [[e.stream, e.seq, e.hash.hex()] for e in self.entries]
        d["signature"] = self.signature.hex()
        if self.part is not None:
            d["size"] = self.part.size
            d["paths"] = [[i, [h.hex() for h in p]] for i, p in self.part.paths]
        return d

    @classmethod
    def from_json_dict(cls, d: Mapping[str, Any]) -> Seal:
        try:
            version = d.get("v", 1)
            if version not in SEAL_VERSIONS or isinstance(version, bool):
                raise ValueError(f"unknown seal version {version!r}")
            entries = tuple(SealEntry(str(s), int(q), bytes.fromhex(h)) for s, q, h in d["entries"])
            part = None
            if "paths" in d or "size" in d:
                part = _part(version, len(entries), d["size"], d["paths"])
            return cls(
                producer=str(d["producer"]),
                key_id=str(d["key_id"]),
                sealed_at_ms=int(d["sealed_at_ms"]),
                entries=entries,
                signature=bytes.fromhex(d["signature"]),
                version=version,
                part=part,
            )
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            raise InvalidInput(f"malformed seal: {e}") from e

    def part_for(self, streams: Collection[str]) -> Seal | None:
        """This seal as a message about ``streams`` carries it: a version-2 seal with
        only the entries naming them and their audit paths (None when it names none of
        them); a version-1 seal whole, as it was signed."""
        if self.version == 1:
            return self
        if self.part is not None:
            keep = [i for i, e in enumerate(self.entries) if e.stream in streams]
            if len(keep) == len(self.entries):
                return self
            paths = tuple(self.part.paths[i] for i in keep)
            entries = tuple(self.entries[i] for i in keep)
            part = SealPart(self.part.size, paths)
        else:
            tree, where = _seal_tree(self)
            idx = sorted(i for s in streams for i in where.get(s, ()))
            if len(idx) == len(self.entries):
                return self
            entries = tuple(self.entries[i] for i in idx)
            part = SealPart(
                len(self.entries),
                tuple((i, tuple(tree.inclusion_proof(i, len(self.entries)))) for i in idx),
            )
        if not entries:
            return None
        return Seal(self.producer, self.key_id, self.sealed_at_ms, entries, self.signature, 2, part)


def _part(version: int, n: int, size: Any, raw: Any) -> SealPart:
    if version != 2:
        raise ValueError("only a version-2 seal travels in part")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"size must be a positive integer, not {size!r}")
    paths = tuple((int(i), tuple(map(bytes.fromhex, p))) for i, p in raw)
    if len(paths) != n or n == 0:
        raise ValueError(f"{n} entries carry {len(paths)} audit paths")
    return SealPart(size, paths)


_TREES: dict[bytes, tuple[MemoryTree, dict[str, list[int]]]] = {}


def _seal_tree(s: Seal) -> tuple[MemoryTree, dict[str, list[int]]]:
    """A whole version-2 seal's tree and where each stream's entries sit, built once per
    seal while its messages are encoded (the last few seals are kept)."""
    hit = _TREES.get(s.signature)
    if hit is not None:
        return hit
    tree = MemoryTree()
    where: dict[str, list[int]] = {}
    for i, e in enumerate(s.entries):
        tree.append(e.leaf())
        where.setdefault(e.stream, []).append(i)
    if len(_TREES) >= 16:
        del _TREES[next(iter(_TREES))]
    _TREES[s.signature] = (tree, where)
    return tree, where


def seal(signer: Signer, heads: Iterable[Event], sealed_at_ms: int, version: int = 2) -> Seal:
    """Sign the given chain heads (normally the last event of each stream in a batch):
    by default a version-2 seal, whose signature covers the entries' Merkle root
    (version 1, which signs the entries themselves, is what stores written before
    version 2 hold)."""
    entries = tuple(SealEntry(e.stream, e.seq, e.hash) for e in heads)
    if not entries:
        raise InvalidInput("a seal needs at least one head")
    if version not in SEAL_VERSIONS:
        raise InvalidInput(f"unknown seal version {version!r}")
    unsigned = Seal(signer.producer, signer.key_id, sealed_at_ms, entries, b"", version)
    return dataclasses.replace(unsigned, signature=signer.sign(SEAL_DOMAIN, unsigned.signed_body()))


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


def verify_chain(
    events: Sequence[Event], parsed: Sequence[Any] | None = None
) -> list[dict[str, Any]]:
    """Check one stream's events: one stream id, seq 0.. without gaps, each hash right
    and linked to its predecessor, payloads canonical. Raises :class:`ChainError`
    naming the first bad event. Returns the parsed payloads (parsed once, here).

    ``parsed``: each event's payload as the caller already holds it parsed, such that
    ``canonical.dumps(parsed[i]) == events[i].payload_bytes`` — as
    :func:`croupier.bus.wire.decode` builds each event's bytes from the value it parsed.
    The payloads are then canonical by construction and are not parsed again.

    Where the native accelerator is built, it checks the whole stream in one call
    (:mod:`croupier.accel`); what it does not prove intact is checked here, which names
    the first bad event."""
    if parsed is not None and len(parsed) != len(events):
        raise InvalidInput(f"{len(parsed)} parsed payloads for {len(events)} events")
    if _native is not None and events and _native.chain_intact(events, parsed is None):
        if parsed is None:
            return [canonical.loads_proven(e.payload_bytes) for e in events]
        if all(type(p) is dict for p in parsed):
            return list(parsed)
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
        if parsed is not None:
            payload, canonical_ = parsed[i], True
        else:
            try:
                payload, canonical_ = canonical.parse(e.payload_bytes), True
            except InvalidInput:
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
    Remembers at most ``cache`` verified seals (:attr:`CACHE` by default), so a
    long-running consumer's memory stays bounded.

    A seal is remembered whole (everything its signature covers *and* the signature),
    never by the signature alone: a seal that carries a genuine signature over other
    entries, another time or another key id is a different seal and is verified (and
    refused) on its own. The look-up costs a dictionary probe and an equality check (an
    identity check when, as usual, the same seal object comes again), not a re-encoding.
    A version-2 seal that travels in part is checked by its entries' audit paths (a few
    hashes each) against the root its signature was verified over; a part whose entries
    lead to another root is verified anew, and refused.

    Key validity is checked on every call (it is a few dictionary look-ups), only the
    Ed25519 verification is remembered. ``seen_at`` says when a witness other than the
    signer first saw a seal (a live consumer: now, on receipt; an audit: the checkpoint
    that first included it); ``None`` means nothing but the signer dates it, and then a
    seal from a revoked key does not pass (:meth:`KeyRegistry.check_key`)."""

    CACHE = 1_024
    """Seals remembered by default. On the bus a seal comes again only in the messages of
    its own commit or batch (a few hundred hands, close together), so a short memory
    saves every repeated check and a consumer's memory is flat after its first thousand
    seals (100,000 held ~50 MiB, still growing after a million hands). An audit, which
    reads hands in id order (a commit's hands far apart), passes a larger ``cache``."""

    AUDIT_CACHE = 100_000

    def __init__(
        self,
        registry: KeyRegistry,
        seen_at: Callable[[Seal], int | None] | None = None,
        cache: int = CACHE,
    ) -> None:
        self.registry = registry
        self.seen_at = seen_at
        self.cache = cache
        # by signature, the verified whole seal; insertion-ordered: the oldest go first
        self._ok: dict[bytes, Seal] = {}
        # by signature, what a verified version-2 signature covers (producer, key id,
        # time, root, size): a part of that seal passes once its paths lead to that root
        self._parts: dict[bytes, tuple[str, str, int, bytes, int]] = {}
        # by id, a seal of many entries (kept, so that the id stays its own) and its
        # entries by stream: a range audit asks each commit's seal about each of its
        # hands, which read the whole entry list every time
        self._by_stream: dict[int, tuple[Seal, dict[str, tuple[SealEntry, ...]]]] = {}

    def verify(self, s: Seal) -> None:
        s.check_key(self.registry, None if self.seen_at is None else self.seen_at(s))
        if s.part is None:
            known = self._ok.get(s.signature)
            if known is not None and (known is s or known == s):
                return
            s.verify_signature(self.registry)
            remember_bounded(self._ok, s.signature, s, self.cache)
            return
        root = s.root()  # every carried entry's path leads to it, or SignatureError
        signed = (s.producer, s.key_id, s.sealed_at_ms, root, s.part.size)
        if self._parts.get(s.signature) == signed:
            return
        s.verify_signature(self.registry, root)
        remember_bounded(self._parts, s.signature, signed, self.cache)

    def check_event_keys(self, events: Sequence[Event]) -> None:
        """Each event names a key id registered to its own producer (a rules key never
        writes a dealer's event)."""
        proven: set[tuple[str, str]] = set()  # (key id, producer) pairs found right
        for e in events:
            if (e.key_id, e.producer) in proven:
                continue
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
            proven.add((e.key_id, e.producer))

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
            verified = False  # a seal is verified once, at its first entry naming the stream
            for entry in self._entries_naming(s, stream):
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
                if not verified:
                    try:
                        self.verify(s)
                    except IntegrityError as err:
                        raise type(err)(
                            f"{stream}#{entry.seq}: seal by {s.key_id}: {err.message}",
                            reason=err.reason,
                            stream=stream,
                            seq=entry.seq,
                        ) from err
                    verified = True
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

    INDEX_FROM = 16
    """Seals of this many entries or more are looked up by stream (an index built once
    per seal, at most :attr:`INDEX_CACHE` kept); smaller ones are read whole."""
    INDEX_CACHE = 4_096

    def _entries_naming(self, s: Seal, stream: str) -> Sequence[SealEntry]:
        """``s``'s entries, or of a large seal those naming ``stream``, in their order."""
        if len(s.entries) < self.INDEX_FROM:
            return s.entries
        kept = self._by_stream.get(id(s))
        if kept is None or kept[0] is not s:
            index: dict[str, list[SealEntry]] = {}
            for entry in s.entries:
                index.setdefault(entry.stream, []).append(entry)
            kept = (s, {k: tuple(v) for k, v in index.items()})
            remember_bounded(self._by_stream, id(s), kept, min(self.cache, self.INDEX_CACHE))
        return kept[1].get(stream, ())


def remember_bounded(kept: dict[Any, Any], key: Any, value: Any, cap: int) -> None:
    """``kept[key] = value``, forgetting the oldest half of ``kept`` once it holds more
    than ``cap`` (a memory bounded for a long-running process)."""
    kept[key] = value
    if len(kept) > cap:
        for old in list(kept)[: cap // 2]:
            del kept[old]


def first_error(
    events: Sequence[Event], seals: Iterable[Seal], registry: KeyRegistry
) -> IntegrityError | None:
    try:
        verify_chain(events)
        SealVerifier(registry).check_coverage(events, seals)
    except IntegrityError as e:
        return e
    return None
