"""Request records: the stored result of each idempotent gateway call.

A gateway names each mutating call with a ``request_id`` of its choosing. The first call
that succeeds stores a record — the method, a SHA-256 of the request (everything but the
id) and the serialised response — in the SAME database transaction as the call's events
(:meth:`croupier.store.UnitOfWork.put_request`), so a record exists exactly when the
effect does: the insert itself finds an id already taken (:func:`put_request`), so the
call with a fresh id reads nothing first. A later call with that id is answered from the
record (:func:`replay`): the same request gets the stored response and has no second effect; a
different request under the same id is refused with
:class:`~croupier.errors.IdempotencyConflict` (gRPC ``ALREADY_EXISTS``, reason
``idempotency_conflict``).

Records are kept for a retention period (the dealer's ``CROUPIER_REQUEST_ID_RETENTION_S``
setting) and then removed by :func:`prune`: an id older than that may be used again.
This is the one table of the store that is pruned; it holds no money and no log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.errors import IdempotencyConflict, InvalidInput
from croupier.picklable import ByFields
from croupier.store import schema
from croupier.store.db import Database, insert_new

_R = schema.gateway_requests


@dataclass(frozen=True, slots=True)
class RequestRecord(ByFields):
    """One stored call: ``request_hash`` is :func:`request_hash` of the request."""

    request_id: str
    method: str
    request_hash: bytes
    response: bytes
    created_at_ms: int


def request_hash(method: str, request: bytes) -> bytes:
    """SHA-256 over the method name and the request's deterministic serialisation
    (without its ``request_id``)."""
    return hashlib.sha256(method.encode() + b"\0" + request).digest()


def replay(record: RequestRecord | None, method: str, digest: bytes) -> bytes | None:
    """The stored response when ``record`` is the same call; ``None`` when there is no
    record; :class:`IdempotencyConflict` when the id was used for another request."""
    if record is None:
        return None
    if record.method != method or record.request_hash != digest:
        raise IdempotencyConflict(
            f"request id {record.request_id!r} was already used for a different "
            f"{record.method} request"
        )
    return record.response


def get_request(conn: Connection, request_id: str) -> RequestRecord | None:
    r = conn.execute(sa.select(_R).where(_R.c.request_id == request_id)).first()
    if r is None:
        return None
    return RequestRecord(
        request_id=r.request_id,
        method=r.method,
        request_hash=bytes(r.request_hash),
        response=bytes(r.response),
        created_at_ms=int(r.created_at_ms),
    )


def put_request(conn: Connection, rec: RequestRecord) -> None:
    """Store the record; :class:`IdempotencyConflict` if the id already holds a record
    (see :func:`put_requests`)."""
    put_requests(conn, [rec])


def put_requests(conn: Connection, recs: Sequence[RequestRecord]) -> None:
    """Store the records; :class:`IdempotencyConflict` naming the first whose id already
    holds a record (the caller's transaction then rolls back, effects and all). One
    statement for all of them: the insert itself finds an id taken (``ON CONFLICT DO
    NOTHING`` on the primary key, ``RETURNING`` the ids it stored), so a fresh id costs
    no read before its call (the dealer consults the record only when the store refuses
    a call, :func:`replay`)."""
    if not recs:
        return
    for rec in recs:
        if not 0 < len(rec.request_id) <= schema.REQUEST_ID_LEN:
            raise InvalidInput(f"request_id must be 1..{schema.REQUEST_ID_LEN} characters")
        if len(rec.request_hash) != schema.HASH_LEN:
            raise InvalidInput("request_hash must be 32 bytes")
    rows = [
        {
            "request_id": rec.request_id,
            "method": rec.method,
            "request_hash": rec.request_hash,
            "response": rec.response,
            "created_at_ms": rec.created_at_ms,
        }
        for rec in recs
    ]
    stored = set(insert_new(conn, _R, rows, ("request_id",), returning="request_id"))
    for rec in recs:
        if rec.request_id not in stored:
            raise IdempotencyConflict(f"request id {rec.request_id!r} is already recorded")
        stored.discard(rec.request_id)  # the same id twice in one call: the second is taken


def prune(conn: Connection, before_ms: int, limit: int = 10_000) -> int:
    """Remove up to ``limit`` records created before ``before_ms``; returns how many."""
    ids = sa.select(_R.c.request_id).where(_R.c.created_at_ms < before_ms).limit(limit)
    res = conn.execute(_R.delete().where(_R.c.request_id.in_(ids.scalar_subquery())))
    return int(res.rowcount or 0)


def count(conn: Connection) -> int:
    return int(conn.execute(sa.select(sa.func.count()).select_from(_R)).scalar_one())


class RequestStore(Database):
    """Request records (each call its own transaction)."""

    def get_request(self, request_id: str) -> RequestRecord | None:
        with self._read() as conn:
            return get_request(conn, request_id)

    def prune_requests(self, before_ms: int, limit: int = 10_000) -> int:
        with self._write() as conn:
            return prune(conn, before_ms, limit)

    def count_requests(self) -> int:
        with self._read() as conn:
            return count(conn)
