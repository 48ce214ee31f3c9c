"""The transactional outbox and the dead letters.

A service that must publish after it writes (the dealer's closed hands, the rule
service's outcomes, settlement's ``settled`` messages) adds the message to the outbox
*inside the same database transaction* as the events it carries
(:func:`enqueue` on the unit of work's connection). The commit therefore holds both the
effect and the intent to publish; nothing waits on the transport. A relay
(:class:`croupier.bus.relay.OutboxRelay`) reads the oldest rows of its producer
(:meth:`Outbox.pending`), publishes them with their deterministic ``Nats-Msg-Id`` and
deletes each row the stream acknowledged: in the producer's next transaction
(:func:`delete`) or, when none comes soon, in one of its own (:meth:`Outbox.delete`). A
row published twice
(a relay that crashed between the ack and the delete, two replicas relaying one
producer) is dropped by the stream's duplicate window, and every consumer is idempotent
by hand id beyond it.

Enqueueing is idempotent on ``msg_id``: a redelivered message that is processed again
adds nothing.

By reference: a message is made of what the same transaction stores (a stream's events
and the seals covering them), so a row need not hold its bytes. An item with a
:class:`OutboxRef` whose ``msg_id`` the producer's relay holds in memory
(:class:`croupier.bus.relay.HeldMessages`, bounded) is written with an empty payload and
its reference; the relay publishes the bytes it holds, and a relay that does not hold
them (the process restarted, another replica's row) rebuilds them from the store
(:meth:`Outbox.referenced`, then :func:`croupier.bus.wire.encode`): the same bytes, since
encoding is deterministic. Each byte of a message is thus written once, with the events.

Dead letters: a consumer that terminates a message as poison first copies it here,
byte-exact, with its reason (:func:`put_dead_letter`), so nothing it refused is lost.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from functools import lru_cache

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier import canonical
from croupier.errors import InvalidInput, NotFound
from croupier.events import Event, Seal
from croupier.picklable import ByFields
from croupier.store import schema
from croupier.store.db import Database, execute_each, insert_new, is_sqlite, select_params
from croupier.store.events import get_seals, read_range

_O = schema.outbox
_DL = schema.dead_letters

# statements of the relay's passes, built once
_PENDING = (
    sa.select(
        _O.c.id,
        _O.c.producer,
        _O.c.subject,
        _O.c.msg_id,
        _O.c.payload,
        _O.c.created_at_ms,
        _O.c.ref,
    )
    .where(_O.c.producer == sa.bindparam("producer"))
    .order_by(_O.c.id)
    .limit(sa.bindparam("limit"))
)
_DELETE_ONE = _O.delete().where(
    _O.c.id == sa.bindparam("row_id"), _O.c.msg_id == sa.bindparam("row_msg_id")
)


@dataclass(frozen=True, slots=True)
class OutboxRef(ByFields):
    """What a message is made of, all stored with it: the events of ``stream`` from
    ``first_seq`` to ``last_seq`` and the seals ``seal_ids``, in that order, encoded as a
    ``kind`` message (:func:`croupier.bus.wire.encode`)."""

    kind: str
    stream: str
    first_seq: int
    last_seq: int
    seal_ids: tuple[str, ...]

    def to_text(self) -> str:
        return canonical.dumps(
            {
                "kind": self.kind,
                "stream": self.stream,
                "from": self.first_seq,
                "to": self.last_seq,
                "seals": list(self.seal_ids),
            }
        ).decode()

    @classmethod
    def from_text(cls, text: str) -> OutboxRef:
        """The reference ``text`` (:meth:`to_text`) names; a text read again (a relay
        reads a row on each pass until it is deleted) is parsed once (a bounded memory)."""
        if cls is OutboxRef:
            return _ref_of_text(text)
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> OutboxRef:
        try:
            d = canonical.loads(text.encode())
            return cls(
                str(d["kind"]),
                str(d["stream"]),
                int(d["from"]),
                int(d["to"]),
                tuple(str(x) for x in d["seals"]),
            )
        except (KeyError, ValueError, TypeError) as e:
            raise InvalidInput(f"malformed outbox reference: {e}") from e

    @classmethod
    def of(cls, kind: str, events: Sequence[Event], seals: Sequence[Seal]) -> OutboxRef:
        """The reference of a message of ``events`` (one stream, consecutive) and
        ``seals``."""
        return cls(
            kind, events[0].stream, events[0].seq, events[-1].seq, tuple(s.seal_id for s in seals)
        )


@lru_cache(maxsize=4_096)
def _ref_of_text(text: str) -> OutboxRef:
    return OutboxRef._parse(text)


@dataclass(frozen=True, slots=True)
class OutboxItem(ByFields):
    """A message to publish: subject, bytes, the stream's deduplication id, and (when
    everything it carries is stored with it) what it is made of."""

    producer: str
    subject: str
    msg_id: str
    payload: bytes
    ref: OutboxRef | None = None


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A waiting message: its bytes, or (``payload`` empty) its reference, the bytes
    being held in memory by the relay that wrote it or rebuilt from the store."""

    id: int
    producer: str
    subject: str
    msg_id: str
    payload: bytes
    created_at_ms: int
    ref: OutboxRef | None = None


@dataclass(frozen=True, slots=True)
class OutboxStats:
    depth: int
    oldest_at_ms: int | None
    held_bytes: int = 0  # the relay's: bytes of the rows by reference it holds


@dataclass(frozen=True, slots=True)
class DeadLetter:
    id: int
    consumer: str
    subject: str
    reason: str
    detail: str
    payload: bytes
    delivered: int
    created_at_ms: int


def _check(item: OutboxItem) -> None:
    if not item.payload:
        raise InvalidInput("an outbox message is not empty")
    if not 0 < len(item.producer) <= 32:
        raise InvalidInput("outbox producer must be 1..32 characters")
    if not 0 < len(item.subject) <= 256:
        raise InvalidInput("outbox subject must be 1..256 characters")
    if not 0 < len(item.msg_id) <= 200:
        raise InvalidInput("outbox msg_id must be 1..200 characters")


def enqueue(
    conn: Connection,
    items: Sequence[OutboxItem],
    at_ms: int,
    held: Container[str] = frozenset(),
) -> None:
    """Add ``items`` to the outbox in the caller's transaction; a ``msg_id`` already
    waiting is left as it is. An item with a reference whose ``msg_id`` is in ``held``
    (its relay holds the bytes) is written by reference, without its bytes."""
    enqueue_groups(conn, [(items, at_ms)], held)


def enqueue_groups(
    conn: Connection,
    groups: Sequence[tuple[Sequence[OutboxItem], int]],
    held: Container[str] = frozenset(),
) -> None:
    """:func:`enqueue` of several groups of items, each with its own time, in one
    statement (a group commit's calls)."""
    rows = []
    for items, at_ms in groups:
        for it in items:
            _check(it)
            by_ref = it.ref is not None and it.msg_id in held
            rows.append(
                {
                    "producer": it.producer,
                    "subject": it.subject,
                    "msg_id": it.msg_id,
                    "payload": b"" if by_ref else it.payload,
                    "ref": it.ref.to_text() if by_ref and it.ref is not None else None,
                    "created_at_ms": at_ms,
                }
            )
    insert_new(conn, _O, rows, ("msg_id",))  # a msg_id already queued: left as it is


def delete(conn: Connection, rows: Sequence[OutboxRow]) -> int:
    """Delete published rows in the caller's transaction (a producer's next commit, see
    :class:`croupier.bus.relay.Published`); how many were still there. A row is named by
    its id *and* its ``msg_id``: on SQLite a deleted id can be given again to a newer row
    (of any producer), which another relay that read the old row must not delete."""
    if not rows:
        return 0
    if is_sqlite(conn):  # a look-up of the key a row (a row-value IN list scans there)
        return execute_each(
            conn, _DELETE_ONE, [{"row_id": r.id, "row_msg_id": r.msg_id} for r in rows]
        )
    return int(
        conn.execute(
            _O.delete().where(sa.tuple_(_O.c.id, _O.c.msg_id).in_([(r.id, r.msg_id) for r in rows]))
        ).rowcount
    )


def put_dead_letter(
    conn: Connection,
    consumer: str,
    subject: str,
    reason: str,
    detail: str,
    payload: bytes,
    delivered: int,
    at_ms: int,
) -> int:
    """Keep a terminated message with its reason; returns its id."""
    r = conn.execute(
        _DL.insert().returning(_DL.c.id),
        {
            "consumer": consumer[:64],
            "subject": subject[:256],
            "reason": reason[:64],
            "detail": detail[:4000],
            "payload": payload,
            "delivered": delivered,
            "created_at_ms": at_ms,
        },
    )
    return int(r.scalar_one())


class Outbox(Database):
    """Reads and deletes of the outbox, and the dead letters, over an engine of the
    store (``Outbox(store.engine)``)."""

    def pending(self, producer: str, limit: int = 256) -> list[OutboxRow]:
        """The oldest ``limit`` rows of ``producer``, oldest first."""
        with self._read() as conn:
            rows = select_params(conn, _PENDING, {"producer": producer, "limit": limit})
        ref_of = OutboxRef.from_text
        return [
            OutboxRow(int(i), p, subj, m, bytes(b), int(at), None if ref is None else ref_of(ref))
            for i, p, subj, m, b, at, ref in rows
        ]

    def referenced(self, refs: Sequence[OutboxRef]) -> list[tuple[list[Event], list[Seal]]]:
        """The stored events and seals each reference names, in its order
        (:class:`NotFound` when the store lacks any of them)."""
        with self._read() as conn:
            seals = get_seals(conn, {i for r in refs for i in r.seal_ids})
            out = []
            for r in refs:
                events = read_range(conn, r.stream, r.first_seq, r.last_seq)
                if len(events) != r.last_seq - r.first_seq + 1:
                    raise NotFound(f"outbox reference to {r.stream} names events not stored")
                out.append((events, [seals[i] for i in r.seal_ids]))
        return out

    def delete(self, rows: Sequence[OutboxRow]) -> int:
        """:func:`delete` in a transaction of its own."""
        if not rows:
            return 0
        with self._write() as conn:
            return delete(conn, rows)

    def stats(self, producer: str) -> OutboxStats:
        with self._read() as conn:
            n, oldest = conn.execute(
                sa.select(sa.func.count(), sa.func.min(_O.c.created_at_ms)).where(
                    _O.c.producer == producer
                )
            ).one()
        return OutboxStats(int(n), None if oldest is None else int(oldest))

    def enqueue(self, items: Sequence[OutboxItem], at_ms: int) -> None:
        """:func:`enqueue` in a transaction of its own."""
        with self._write() as conn:
            enqueue(conn, items, at_ms)

    def put_dead_letter(
        self,
        consumer: str,
        subject: str,
        reason: str,
        detail: str,
        payload: bytes,
        delivered: int,
        at_ms: int,
    ) -> int:
        with self._write() as conn:
            return put_dead_letter(
                conn, consumer, subject, reason, detail, payload, delivered, at_ms
            )

    def dead_letters(self, consumer: str | None = None, limit: int = 100) -> list[DeadLetter]:
        q = sa.select(_DL).order_by(_DL.c.id).limit(limit)
        if consumer is not None:
            q = q.where(_DL.c.consumer == consumer)
        with self._read() as conn:
            rows = conn.execute(q).all()
        return [
            DeadLetter(
                int(r.id),
                r.consumer,
                r.subject,
                r.reason,
                r.detail,
                bytes(r.payload),
                int(r.delivered),
                int(r.created_at_ms),
            )
            for r in rows
        ]

    def ping(self) -> None:
        """One round trip to the database (raises when it is unavailable)."""
        with self._read() as conn:
            conn.execute(sa.text("SELECT 1"))
