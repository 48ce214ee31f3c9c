"""The event log in SQL: streams, events and seals.

A *stream* (one hand or one shoe) must be registered, with its :class:`StreamInfo`,
before or together with its first event. Appending is:

* **idempotent** — an event identical (same hash and content) to the one stored at its
  ``(stream, seq)`` is skipped, and so is a seal whose ``seal_id`` is already stored
  with the same content, and a stream registered again with the same info;
* **strict** — a different event at an occupied ``(stream, seq)`` or a different seal
  under a stored ``seal_id`` raises :class:`~croupier.errors.DuplicateEvent`; an event
  that does not extend its stream's stored head (sequence gap, or ``prev_hash`` not the
  head's hash) raises :class:`~croupier.errors.ChainError`; an event of an unregistered
  stream raises :class:`~croupier.errors.NotFound`. In every case nothing of the
  transaction is written.

The happy path costs one SELECT per call (the registered streams and their heads, for
all streams of the batch at once) and one batched INSERT per table. Event hashes are not
recomputed here and seal signatures are not verified: the auditor does that
(:func:`croupier.events.first_error`); the store guarantees the log is append-only, has
one event per ``(stream, seq)``, and links each appended event to its stored
predecessor.

``global_pos`` numbers events in insertion order for :func:`tail`; each event row also
keeps its stream's table (``table_id``) for the table feed (:mod:`croupier.store.feed`).
On PostgreSQL, positions are allocated before commit, so a reader tailing close behind concurrent
writers may see a later position before an earlier one commits; tailers that need
every event should stay a little behind the head or re-read a small window.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier import canonical
from croupier.errors import ChainError, DuplicateEvent, IdempotencyConflict, InvalidInput, NotFound
from croupier.events import (
    GENESIS,
    SEAL_VERSIONS,
    Event,
    Seal,
    SealEntry,
    events_of_rows,
    remember_bounded,
    seal_entries_of,
)
from croupier.picklable import ByFields
from croupier.store import schema, tlog
from croupier.store.db import (
    IDS,
    AnyRow,
    Database,
    insert_rows,
    is_sqlite,
    retryable,
    select_rows,
)

StreamKind = Literal["hand", "shoe"]
STREAM_KINDS: tuple[str, ...] = ("hand", "shoe")
MAX_SEQ = 2**31 - 1
CHUNK = 500
"""Most values bound into one IN (...) list."""
STREAMS_PER_QUERY = 200
"""Most (stream, seq) keys looked up in one OR of index lookups (SQLite's expression
depth is limited)."""

_S = schema.streams
_E = schema.events
_SEALS = schema.seals
_HEADS = schema.seal_heads


@dataclass(frozen=True, slots=True)
class StreamInfo(ByFields):
    """What the store knows about a stream besides its events."""

    stream_id: str
    kind: str  # a StreamKind: "hand" or "shoe" (checked)
    variant: str
    table_id: str
    shoe_id: str | None  # the shoe a hand is dealt from; None for shoes and shoeless hands
    opened_at_ms: int

    def __post_init__(self) -> None:
        if self.kind not in STREAM_KINDS:
            raise InvalidInput(f"stream kind must be one of {STREAM_KINDS}, not {self.kind!r}")
        _check_id("stream_id", self.stream_id)
        _check_id("table_id", self.table_id)
        _check_text("variant", self.variant, 64)
        if self.shoe_id is not None:
            _check_id("shoe_id", self.shoe_id)
        _check_ms("opened_at_ms", self.opened_at_ms)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """How many rows one append wrote (what was already stored is not counted)."""

    events: int = 0
    seals: int = 0
    streams: int = 0


@dataclass(frozen=True, slots=True)
class LogEntry:
    """An event with its position in the global append order."""

    global_pos: int
    event: Event


@dataclass(slots=True)
class _StreamState:
    info: StreamInfo
    head_seq: int  # -1 when the stream has no event yet
    head_hash: bytes


# --------------------------------------------------------------------------- validation


def _check_text(name: str, value: object, max_len: int) -> None:
    if not isinstance(value, str) or not value or len(value) > max_len:
        raise InvalidInput(f"{name} must be a non-empty string of at most {max_len} characters")


def _check_id(name: str, value: object) -> None:
    _check_text(name, value, schema.ID_LEN)


def _check_ms(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise InvalidInput(f"{name} must be a non-negative integer number of milliseconds")


def _check_event(e: Event) -> None:
    if not isinstance(e, Event):
        raise InvalidInput(f"expected an Event, got {type(e).__name__}")
    _check_id("event stream", e.stream)
    if not isinstance(e.seq, int) or isinstance(e.seq, bool) or not 0 <= e.seq <= MAX_SEQ:
        raise InvalidInput(f"{e.stream}: seq must be an integer in 0..{MAX_SEQ}")
    _check_text("event type", e.type, 64)
    _check_text("event producer", e.producer, 32)
    _check_text("event key_id", e.key_id, 64)
    if not isinstance(e.hash, bytes) or len(e.hash) != schema.HASH_LEN:
        raise InvalidInput(f"{e.stream}#{e.seq}: hash must be 32 bytes")
    if not isinstance(e.prev_hash, bytes) or len(e.prev_hash) != schema.HASH_LEN:
        raise InvalidInput(f"{e.stream}#{e.seq}: prev_hash must be 32 bytes")
    if not isinstance(e.payload_bytes, bytes):
        raise InvalidInput(f"{e.stream}#{e.seq}: payload must be bytes")


def _check_seal(s: Seal) -> None:
    if not isinstance(s, Seal):
        raise InvalidInput(f"expected a Seal, got {type(s).__name__}")
    _check_text("seal producer", s.producer, 32)
    _check_text("seal key_id", s.key_id, 64)
    _check_ms("sealed_at_ms", s.sealed_at_ms)
    if not s.entries:
        raise InvalidInput("a seal needs at least one head")
    if s.version not in SEAL_VERSIONS:
        raise InvalidInput(f"unknown seal version {s.version!r}")
    if s.part is not None:
        raise InvalidInput(
            f"seal {s.seal_id} carries {len(s.entries)} of its {s.size} entries: "
            "a seal is stored whole"
        )
    if not isinstance(s.signature, bytes) or len(s.signature) != 64:
        raise InvalidInput("a seal signature is 64 bytes")
    for entry in s.entries:
        _check_id("seal entry stream", entry.stream)
        if len(entry.hash) != schema.HASH_LEN:
            raise InvalidInput(f"seal entry {entry.stream}#{entry.seq}: hash must be 32 bytes")


# --------------------------------------------------------------------------- row mapping


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _event_row(e: Event, table_id: str) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "stream_id": e.stream,
        "seq": e.seq,
        "type": e.type,
        "producer": e.producer,
        "key_id": e.key_id,
        "prev_hash": e.prev_hash,
        "hash": e.hash,
        "payload": e.payload_bytes,
    }


_EVENT_COLS = (_E.c.stream_id, _E.c.seq, _E.c.type, _E.c.producer, _E.c.key_id)
_EVENT_COLS_ALL = (*_EVENT_COLS, _E.c.prev_hash, _E.c.payload, _E.c.hash)
"""Columns in the order of :class:`Event`'s fields (the binary columns come back as
``bytes`` on both backends), so a row is ``Event(*row)``."""


def _row_event(r: AnyRow | Sequence[Any]) -> Event:
    return Event(*r)


# Statements of the hot paths, built once (their IN lists bound as ``ids``: db.IDS).
_STREAMS_IN = sa.select(_S).where(_S.c.stream_id.in_(IDS))
_TOPS_IN = (
    sa.select(_E.c.stream_id, sa.func.max(_E.c.seq).label("seq"))
    .where(_E.c.stream_id.in_(IDS))
    .group_by(_E.c.stream_id)
    .subquery()
)
_HEADS_IN = sa.select(_E.c.stream_id, _E.c.seq, _E.c.hash).join(
    _TOPS_IN, sa.and_(_E.c.stream_id == _TOPS_IN.c.stream_id, _E.c.seq == _TOPS_IN.c.seq)
)
_EVENTS_IN = (
    sa.select(*_EVENT_COLS_ALL).where(_E.c.stream_id.in_(IDS)).order_by(_E.c.stream_id, _E.c.seq)
)
_SEALS_IN = sa.select(_SEALS).where(_SEALS.c.seal_id.in_(IDS))
_NAMING_IN = sa.select(_HEADS.c.stream_id, _HEADS.c.seal_id).where(_HEADS.c.stream_id.in_(IDS))
# the opening event's position of each stream (the literal 0 keeps the ids the statement's
# only parameters, for select_rows' driver path)
_OPENED_AT_IN = sa.select(_E.c.stream_id, _E.c.global_pos).where(
    _E.c.stream_id.in_(IDS), _E.c.seq == sa.literal_column("0")
)


def _stream_row(s: StreamInfo) -> dict[str, Any]:
    return {
        "stream_id": s.stream_id,
        "kind": s.kind,
        "variant": s.variant,
        "table_id": s.table_id,
        "shoe_id": s.shoe_id,
        "opened_at_ms": s.opened_at_ms,
    }


def _row_stream(r: AnyRow | Sequence[Any]) -> StreamInfo:
    """A stream from a row of ``select(streams)``, read by position (a row or the
    driver's tuple: :func:`~croupier.store.db.select_rows`)."""
    stream_id, kind, variant, table_id, shoe_id, opened_at_ms = r
    return StreamInfo(
        stream_id=stream_id,
        kind=kind,
        variant=variant,
        table_id=table_id,
        opened_at_ms=int(opened_at_ms),
        shoe_id=shoe_id,
    )


def _entries_bytes(entries: Iterable[SealEntry]) -> bytes:
    return canonical.dumps([[e.stream, e.seq, e.hash.hex()] for e in entries], check=False)


def _seal_row(s: Seal) -> dict[str, Any]:
    return {
        "seal_id": s.seal_id,
        "producer": s.producer,
        "key_id": s.key_id,
        "sealed_at_ms": s.sealed_at_ms,
        "entries": _entries_bytes(s.entries),
        "signature": s.signature,
        "version": s.version,
    }


def _row_seal(r: AnyRow | Sequence[Any]) -> Seal:
    """A seal from a row of ``select(seals)``, read by position (a row or the driver's
    tuple: :func:`~croupier.store.db.select_rows`)."""
    _seal_id, producer, key_id, sealed_at_ms, entries, signature, version = r
    return Seal(
        producer=producer,
        key_id=key_id,
        sealed_at_ms=int(sealed_at_ms),
        entries=seal_entries_of(bytes(entries)),
        signature=bytes(signature),
        version=int(version),
    )


# --------------------------------------------------------------------------- writes


def _load_states(conn: Connection, ids: Sequence[str]) -> dict[str, _StreamState]:
    """Registered streams among ``ids`` with their current heads. Two index-only queries
    per chunk of ids: the stream rows, and each head (seq and hash) by a join of the
    events to their highest seq per stream (a GROUP BY over the (stream_id, seq) unique
    index). A row-value ``(stream_id, seq) IN (VALUES ...)`` would scan every event on
    SQLite, so the cost of appending would grow with history."""
    out: dict[str, _StreamState] = {}
    for chunk in _chunks(ids):
        infos = {r[0]: _row_stream(r) for r in select_rows(conn, _STREAMS_IN, chunk)}
        if not infos:
            continue
        heads = {
            str(sid): (int(seq), bytes(h))
            for sid, seq, h in select_rows(conn, _HEADS_IN, list(infos))
        }
        for sid, info in infos.items():
            seq, h = heads.get(sid, (-1, GENESIS))
            out[sid] = _StreamState(info, seq, h)
    return out


def _by_stream(keys: Sequence[tuple[str, int]]) -> sa.ColumnElement[bool]:
    """``(stream_id, seq) in keys`` as an OR of index lookups per stream, which both
    SQLite (multi-index OR) and PostgreSQL (bitmap OR) answer from the unique index."""
    seqs: dict[str, list[int]] = {}
    for stream, seq in keys:
        seqs.setdefault(stream, []).append(seq)
    return sa.or_(*(sa.and_(_E.c.stream_id == s, _E.c.seq.in_(q)) for s, q in seqs.items()))


def _stored_events(
    conn: Connection, keys: Sequence[tuple[str, int]]
) -> dict[tuple[str, int], Event]:
    out: dict[tuple[str, int], Event] = {}
    for chunk in _chunks(sorted(set(keys)), STREAMS_PER_QUERY):
        for r in conn.execute(sa.select(*_EVENT_COLS_ALL).where(_by_stream(chunk))):
            out[(r.stream_id, r.seq)] = _row_event(r)
    return out


def _plan_streams(
    streams: Sequence[StreamInfo], states: dict[str, _StreamState]
) -> list[StreamInfo]:
    new: dict[str, StreamInfo] = {}
    for s in streams:
        if not isinstance(s, StreamInfo):
            raise InvalidInput(f"expected a StreamInfo, got {type(s).__name__}")
        known = states[s.stream_id].info if s.stream_id in states else new.get(s.stream_id)
        if known is None:
            new[s.stream_id] = s
        elif known != s:
            raise IdempotencyConflict(
                f"stream {s.stream_id} is already registered with other info ({known})"
            )
    for s in new.values():
        states[s.stream_id] = _StreamState(s, -1, GENESIS)
    return list(new.values())


def _plan_events(
    conn: Connection, events: Sequence[Event], states: dict[str, _StreamState]
) -> list[Event]:
    """The events of the batch that are not stored yet, checked against the stored
    heads; raises when the batch conflicts with the log."""
    groups: dict[str, list[Event]] = {}
    for e in events:
        groups.setdefault(e.stream, []).append(e)
    to_check: list[Event] = []
    new: list[Event] = []
    for stream, group in groups.items():
        state = states.get(stream)
        if state is None:
            raise NotFound(f"stream {stream} is not registered; pass its StreamInfo")
        if any(group[i].seq >= group[i + 1].seq for i in range(len(group) - 1)):
            group = _sorted_unique(group)
        expected, prev = state.head_seq + 1, state.head_hash
        for e in group:
            if e.seq <= state.head_seq:
                to_check.append(e)
                continue
            if e.seq != expected:
                raise ChainError(
                    f"{stream}#{e.seq}: expected seq {expected} (stored head is {state.head_seq})",
                    stream=stream,
                    seq=e.seq,
                )
            if e.prev_hash != prev:
                raise ChainError(
                    f"{stream}#{e.seq}: previous hash does not match the stored chain",
                    stream=stream,
                    seq=e.seq,
                )
            new.append(e)
            expected, prev = e.seq + 1, e.hash
    if to_check:
        stored = _stored_events(conn, [(e.stream, e.seq) for e in to_check])
        for e in to_check:
            if stored.get((e.stream, e.seq)) != e:
                raise DuplicateEvent(f"{e.stream}#{e.seq} already holds a different event")
    return new


def _sorted_unique(group: list[Event]) -> list[Event]:
    by_seq: dict[int, Event] = {}
    for e in group:
        other = by_seq.setdefault(e.seq, e)
        if other != e:
            raise DuplicateEvent(f"{e.stream}#{e.seq}: two different events in one batch")
    return [by_seq[k] for k in sorted(by_seq)]


def _plan_seals(conn: Connection, seals: Sequence[Seal]) -> list[Seal]:
    wanted: dict[str, Seal] = {}
    for s in seals:
        _check_seal(s)
        other = wanted.setdefault(s.seal_id, s)
        if other != s:
            raise DuplicateEvent(f"seal {s.seal_id}: two different seals in one batch")
    if not wanted:
        return []
    stored: dict[str, Seal] = {}
    for chunk in _chunks(list(wanted)):
        for r in select_rows(conn, _SEALS_IN, chunk):
            stored[r[0]] = _row_seal(r)
    new: list[Seal] = []
    for seal_id, s in wanted.items():
        old = stored.get(seal_id)
        if old is None:
            new.append(s)
        elif old != s:
            raise DuplicateEvent(f"seal {seal_id} is already stored with other content")
    return new


def append(
    conn: Connection,
    events: Sequence[Event] = (),
    seals: Sequence[Seal] = (),
    streams: Sequence[StreamInfo] = (),
    *,
    log: list[Seal] | None = None,
) -> AppendResult:
    """Append events, seals and stream registrations on ``conn`` (inside the caller's
    transaction). See the module docstring for the rules.

    The seals stored get their leaves in the transparency log in the same transaction:
    at once, or — when ``log`` is given — by the caller, who collects them there and
    hands them all to :func:`croupier.store.tlog.append_seals` before it commits."""
    for e in events:
        _check_event(e)
    ids = list(dict.fromkeys([*(s.stream_id for s in streams), *(e.stream for e in events)]))
    for attempt in (0, 1):
        states = _load_states(conn, ids) if ids else {}
        new_streams = _plan_streams(streams, states)
        new_events = _plan_events(conn, events, states)
        new_seals = _plan_seals(conn, seals)
        try:
            with retryable(conn):
                insert_rows(conn, _S, [_stream_row(s) for s in new_streams])
                insert_rows(
                    conn,
                    _E,
                    [_event_row(e, states[e.stream].info.table_id) for e in new_events],
                )
                if new_seals:
                    insert_rows(conn, _SEALS, [_seal_row(s) for s in new_seals])
                    insert_rows(
                        conn,
                        _HEADS,
                        [
                            {"seal_id": seal_id, "stream_id": stream, "seq": seq}
                            for s in new_seals
                            for seal_id in (s.seal_id,)  # a hash: once per seal, not per head
                            for stream, seq in dict.fromkeys(
                                (en.stream, en.seq) for en in s.entries
                            )
                        ],
                    )
                    if log is None:
                        tlog.append_seals(conn, new_seals)  # every stored seal gets its leaf
        except sa.exc.IntegrityError as exc:
            # A concurrent writer got there first: re-read and decide once more (on
            # PostgreSQL; on SQLite no other writer can have: db.retryable)
            if attempt or is_sqlite(conn):
                raise DuplicateEvent(f"append refused by the database: {exc.orig}") from exc
            continue
        if log is not None:
            log.extend(new_seals)
        return AppendResult(len(new_events), len(new_seals), len(new_streams))
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- reads


def read_stream(conn: Connection, stream_id: str) -> list[Event]:
    q = sa.select(*_EVENT_COLS_ALL).where(_E.c.stream_id == stream_id).order_by(_E.c.seq)
    return [_row_event(r) for r in conn.execute(q)]


def read_range(conn: Connection, stream_id: str, first_seq: int, last_seq: int) -> list[Event]:
    """The stream's events from ``first_seq`` to ``last_seq`` (those stored), in order."""
    q = (
        sa.select(*_EVENT_COLS_ALL)
        .where(_E.c.stream_id == stream_id, _E.c.seq >= first_seq, _E.c.seq <= last_seq)
        .order_by(_E.c.seq)
    )
    return [_row_event(r) for r in conn.execute(q)]


def read_streams(conn: Connection, stream_ids: Iterable[str]) -> dict[str, list[Event]]:
    ids = list(dict.fromkeys(stream_ids))
    out: dict[str, list[Event]] = {s: [] for s in ids}
    for chunk in _chunks(ids):
        for e in events_of_rows(select_rows(conn, _EVENTS_IN, chunk)):
            out[e.stream].append(e)
    return out


def log_positions(conn: Connection, stream_ids: Iterable[str]) -> dict[str, int]:
    """Where each of ``stream_ids`` begins in the log: the global position of its opening
    event (seq 0), one probe of the ``(stream_id, seq)`` index each; a stream without
    events is absent."""
    ids = list(dict.fromkeys(stream_ids))
    out: dict[str, int] = {}
    for chunk in _chunks(ids):
        out.update((str(s), int(p)) for s, p in select_rows(conn, _OPENED_AT_IN, chunk))
    return out


def head(conn: Connection, stream_id: str) -> tuple[int, bytes] | None:
    q = (
        sa.select(_E.c.seq, _E.c.hash)
        .where(_E.c.stream_id == stream_id)
        .order_by(_E.c.seq.desc())
        .limit(1)
    )
    r = conn.execute(q).first()
    return None if r is None else (int(r.seq), bytes(r.hash))


def known_streams(conn: Connection, stream_ids: Iterable[str]) -> set[str]:
    """Those of ``stream_ids`` the log holds events of (their first event: one probe of
    the ``(stream_id, seq)`` index each, a chunk of ids per statement)."""
    ids = list(dict.fromkeys(stream_ids))
    out: set[str] = set()
    for chunk in _chunks(ids):
        out.update(str(r[0]) for r in conn.execute(known_streams_query(chunk)))
    return out


def known_streams_query(stream_ids: Sequence[str]) -> sa.Select[Any]:
    return sa.select(_E.c.stream_id).where(_E.c.stream_id.in_(stream_ids), _E.c.seq == 0)


class SealRows:
    """Seals decoded from stored rows, remembered by the rows' whole content: a row read
    again with the same bytes in every column gives the Seal already decoded from them
    (the same object), not a new decoding — a range audit reads each commit's seal for
    every batch of the commit's hands. A row whose content changed is decoded anew.
    Remembers at most ``cap`` seals, the oldest forgotten first."""

    def __init__(self, cap: int = 4_096) -> None:
        self.cap = cap
        self._by_id: dict[str, tuple[tuple[Any, ...], Seal]] = {}

    def decode(self, r: AnyRow | Sequence[Any]) -> Seal:
        seal_id, producer, key_id, sealed_at_ms, entries, signature, version = r
        raw = (producer, key_id, int(sealed_at_ms), bytes(entries), bytes(signature), int(version))
        kept = self._by_id.get(seal_id)
        if kept is not None and kept[0] == raw:
            return kept[1]
        seal = _row_seal(r)
        remember_bounded(self._by_id, seal_id, (raw, seal), self.cap)
        return seal


def seals_for_streams(
    conn: Connection, stream_ids: Iterable[str], rows: SealRows | None = None
) -> dict[str, list[Seal]]:
    """Every seal naming each stream, oldest first (by sealed time, then id). A seal
    naming several of the streams is decoded once and shared; with ``rows``, a seal
    whose row was decoded there before is not decoded again (:class:`SealRows`)."""
    decode = _row_seal if rows is None else rows.decode
    ids = list(dict.fromkeys(stream_ids))
    naming: dict[str, set[str]] = {s: set() for s in ids}
    for chunk in _chunks(ids):
        for stream_id, seal_id in select_rows(conn, _NAMING_IN, chunk):
            naming[stream_id].add(seal_id)
    seal_ids = sorted(set().union(*naming.values()))
    decoded: dict[str, tuple[int, str, Seal]] = {}
    for chunk in _chunks(seal_ids):
        for r in select_rows(conn, _SEALS_IN, chunk):
            decoded[r[0]] = (int(r[3]), r[0], decode(r))
    return {
        stream_id: [x[2] for x in sorted(decoded[i] for i in sids)]
        for stream_id, sids in naming.items()
    }


def seals_for(conn: Connection, stream_id: str) -> list[Seal]:
    return seals_for_streams(conn, [stream_id])[stream_id]


def get_seal(conn: Connection, seal_id: str) -> Seal:
    r = conn.execute(sa.select(_SEALS).where(_SEALS.c.seal_id == seal_id)).first()
    if r is None:
        raise NotFound(f"no seal {seal_id}")
    return _row_seal(r)


def get_seals(conn: Connection, seal_ids: Iterable[str]) -> dict[str, Seal]:
    """The stored seals among ``seal_ids``, by id (:class:`NotFound` naming one missing)."""
    ids = sorted(set(seal_ids))
    out: dict[str, Seal] = {}
    for chunk in _chunks(ids):
        for r in conn.execute(_SEALS_IN, {"ids": chunk}):
            out[r.seal_id] = _row_seal(r)
    for i in ids:
        if i not in out:
            raise NotFound(f"no seal {i}")
    return out


def stream_info(conn: Connection, stream_id: str) -> StreamInfo:
    r = conn.execute(sa.select(_S).where(_S.c.stream_id == stream_id)).first()
    if r is None:
        raise NotFound(f"no stream {stream_id}")
    return _row_stream(r)


def streams_query(
    *,
    kind: str | None = None,
    variant: str | None = None,
    table_id: str | None = None,
    shoe_id: str | None = None,
    since_ms: int | None = None,
    until_ms: int | None = None,
    after_stream_id: str | None = None,
    limit: int = 1000,
) -> sa.Select[Any]:
    """Streams matching every given filter, ordered by id; ``since_ms``/``until_ms``
    bound ``opened_at_ms`` as ``since <= t < until``; page with ``after_stream_id`` set
    to the last id of the previous page (:meth:`EventLog.list_streams`). A page of a
    table's or a variant's streams is one range of ``(table_id, stream_id)`` or
    ``(variant, stream_id)``; a time window alone sorts the window's streams by id for
    each page (:meth:`EventLog.hands_opened` pages a window by time instead)."""
    q = sa.select(_S).order_by(_S.c.stream_id).limit(max(0, limit))
    if kind is not None:
        q = q.where(_S.c.kind == kind)
    if variant is not None:
        q = q.where(_S.c.variant == variant)
    if table_id is not None:
        q = q.where(_S.c.table_id == table_id)
    if shoe_id is not None:
        q = q.where(_S.c.shoe_id == shoe_id)
    if since_ms is not None:
        q = q.where(_S.c.opened_at_ms >= since_ms)
    if until_ms is not None:
        q = q.where(_S.c.opened_at_ms < until_ms)
    if after_stream_id is not None:
        q = q.where(_S.c.stream_id > after_stream_id)
    return q


def opened_hands_query(
    since_ms: int | None, until_ms: int | None, after: tuple[int, str] | None, limit: int
) -> sa.Select[Any]:
    """A page of the hands opened in ``since_ms <= t < until_ms`` (either open-ended),
    ordered by the time they opened, then id, after ``after`` (the last page's last
    ``(opened_at_ms, stream_id)``): one range of the ``(opened_at_ms, stream_id)`` index
    a page, whatever the window holds."""
    q = (
        sa.select(_S.c.opened_at_ms, _S.c.stream_id)
        .where(_S.c.kind == "hand")
        .order_by(_S.c.opened_at_ms, _S.c.stream_id)
        .limit(max(0, limit))
    )
    if after is not None:
        # a row value, the page's only lower bound (it is past ``since_ms``): the range
        # starts there, not at the window's start
        at, sid = after
        q = q.where(sa.tuple_(_S.c.opened_at_ms, _S.c.stream_id) > sa.tuple_(at, sid))
    elif since_ms is not None:
        q = q.where(_S.c.opened_at_ms >= since_ms)
    if until_ms is not None:
        q = q.where(_S.c.opened_at_ms < until_ms)
    return q


def opened_hands(
    conn: Connection,
    since_ms: int | None,
    until_ms: int | None,
    after: tuple[int, str] | None = None,
    limit: int = 1000,
) -> list[tuple[int, str]]:
    """A page of :func:`opened_hands_query`: ``(opened_at_ms, stream_id)`` pairs."""
    return [
        (int(t), str(s))
        for t, s in conn.execute(opened_hands_query(since_ms, until_ms, after, limit))
    ]


def closed_hands_query(since_ms: int, until_ms: int | None = None) -> sa.Select[Any]:
    """Hands opened since ``since_ms`` (and before ``until_ms``) whose last event is
    ``hand.closed``: a range of the ``opened_at_ms`` index, and per hand one seek for its
    head in the (``stream_id``, ``seq``) index. What it reads grows with the hands opened
    in the range: page a long one (:meth:`EventLog.closed_hands_without_outcome`)."""
    head = (
        sa.select(sa.func.max(_E.c.seq))
        .where(_E.c.stream_id == _S.c.stream_id)
        .correlate(_S)
        .scalar_subquery()
    )
    q = (
        sa.select(_S)
        .join(_E, sa.and_(_E.c.stream_id == _S.c.stream_id, _E.c.seq == head))
        .where(_S.c.opened_at_ms >= since_ms, _S.c.kind == "hand", _E.c.type == "hand.closed")
        .order_by(_S.c.opened_at_ms)
    )
    return q if until_ms is None else q.where(_S.c.opened_at_ms < until_ms)


def closed_hands_without_outcome(
    conn: Connection, since_ms: int, until_ms: int | None = None
) -> list[StreamInfo]:
    return [_row_stream(r) for r in conn.execute(closed_hands_query(since_ms, until_ms))]


def first_events(
    conn: Connection, after_stream_id: str | None = None, limit: int = 1000
) -> list[Event]:
    """The opening event (seq 0) of every stream, ordered by stream id: what the signed
    log says each stream is, whatever the ``streams`` table says."""
    q = sa.select(*_EVENT_COLS_ALL).where(_E.c.seq == 0).order_by(_E.c.stream_id)
    if after_stream_id is not None:
        q = q.where(_E.c.stream_id > after_stream_id)
    return [_row_event(r) for r in conn.execute(q.limit(max(0, limit)))]


def count_events(conn: Connection, stream_id: str | None = None) -> int:
    q = sa.select(sa.func.count()).select_from(_E)
    if stream_id is not None:
        q = q.where(_E.c.stream_id == stream_id)
    return int(conn.execute(q).scalar_one())


def tail(conn: Connection, after_global_pos: int = 0, limit: int = 1000) -> list[LogEntry]:
    """Events with ``global_pos > after_global_pos`` in append order (positions start
    at 1)."""
    q = (
        sa.select(_E.c.global_pos, *_EVENT_COLS_ALL)
        .where(_E.c.global_pos > after_global_pos)
        .order_by(_E.c.global_pos)
        .limit(max(0, limit))
    )
    return [LogEntry(int(r[0]), Event(*r[1:])) for r in conn.execute(q)]


# --------------------------------------------------------------------------- facade


class EventLog(Database):
    """Reads of the event log, and single-operation appends (each its own
    transaction). Use :meth:`croupier.store.Store.transaction` to append together with
    ledger or settlement writes."""

    def append(
        self,
        events: Sequence[Event] = (),
        seals: Sequence[Seal] = (),
        streams: Sequence[StreamInfo] = (),
    ) -> AppendResult:
        with self._write() as conn:
            return append(conn, events, seals, streams)

    def register_streams(self, streams: Sequence[StreamInfo]) -> AppendResult:
        with self._write() as conn:
            return append(conn, (), (), streams)

    def read_stream(self, stream_id: str) -> list[Event]:
        with self._read() as conn:
            return read_stream(conn, stream_id)

    def read_streams(self, stream_ids: Iterable[str]) -> dict[str, list[Event]]:
        with self._read() as conn:
            return read_streams(conn, stream_ids)

    def log_positions(self, stream_ids: Iterable[str]) -> dict[str, int]:
        with self._read() as conn:
            return log_positions(conn, stream_ids)

    def head(self, stream_id: str) -> tuple[int, bytes] | None:
        with self._read() as conn:
            return head(conn, stream_id)

    def known_streams(self, stream_ids: Iterable[str]) -> set[str]:
        with self._read() as conn:
            return known_streams(conn, stream_ids)

    def seals_for(self, stream_id: str) -> list[Seal]:
        with self._read() as conn:
            return seals_for(conn, stream_id)

    def seals_for_streams(
        self, stream_ids: Iterable[str], rows: SealRows | None = None
    ) -> dict[str, list[Seal]]:
        with self._read() as conn:
            return seals_for_streams(conn, stream_ids, rows)

    def get_seal(self, seal_id: str) -> Seal:
        with self._read() as conn:
            return get_seal(conn, seal_id)

    def stream_info(self, stream_id: str) -> StreamInfo:
        with self._read() as conn:
            return stream_info(conn, stream_id)

    def list_streams(
        self,
        *,
        kind: str | None = None,
        variant: str | None = None,
        table_id: str | None = None,
        shoe_id: str | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
        after_stream_id: str | None = None,
        limit: int = 1000,
    ) -> list[StreamInfo]:
        q = streams_query(
            kind=kind,
            variant=variant,
            table_id=table_id,
            shoe_id=shoe_id,
            since_ms=since_ms,
            until_ms=until_ms,
            after_stream_id=after_stream_id,
            limit=limit,
        )
        with self._read() as conn:
            return [_row_stream(r) for r in conn.execute(q)]

    def hands_opened(
        self, since_ms: int | None = None, until_ms: int | None = None, page: int = 1000
    ) -> Iterator[str]:
        """The ids of the hands opened in ``since_ms <= t < until_ms`` (either bound may
        be left open), in the order they opened (ties by id), read a page at a time, each
        page one index range (:func:`opened_hands_query`): listing a window costs what
        the window holds, not the log (``list_streams`` orders by id, so a window's page
        sorts the window)."""
        after: tuple[int, str] | None = None
        while True:
            with self._read() as conn:
                rows = opened_hands(conn, since_ms, until_ms, after, page)
            yield from (sid for _, sid in rows)
            if len(rows) < page:
                return
            after = rows[-1]

    def closed_hands_without_outcome(
        self, since_ms: int, until_ms: int | None = None
    ) -> list[StreamInfo]:
        """Hands opened since ``since_ms`` (and before ``until_ms``) that are closed and
        have no outcome yet."""
        with self._read() as conn:
            return closed_hands_without_outcome(conn, since_ms, until_ms)

    def count_events(self, stream_id: str | None = None) -> int:
        with self._read() as conn:
            return count_events(conn, stream_id)

    def first_events(self, after_stream_id: str | None = None, limit: int = 1000) -> list[Event]:
        with self._read() as conn:
            return first_events(conn, after_stream_id, limit)

    def tail(self, after_global_pos: int = 0, limit: int = 1000) -> list[LogEntry]:
        with self._read() as conn:
            return tail(conn, after_global_pos, limit)
