"""Table ownership for dealer replicas: one lease row per table, with a fencing token.

Design decision — the lease lives in the system of record itself (table
``table_leases``), in the same database as the events, not in a separate coordinator
(etcd, ZooKeeper, a NATS KV bucket). The reason is fencing: a dealer that paused
(GC, a stopped VM, a partition) may wake up believing it still owns a table after its
lease expired and another replica took over. The only check that makes that harmless
is one made *where the write lands, atomically with it*: the dealer's append carries
the lease's fencing token, and :func:`check_fence` runs inside the append transaction,
so "the token is the table's current one" and "the batch is stored" are one
transaction. With a separate coordinator the check and the append would be two systems
and a gap between them; here there is none, and no extra service to run.

Semantics (every time is supplied by the caller in ms; the library reads no clock):

* :func:`acquire` — take the table if nobody holds a live lease on it (no row, an
  expired lease, or a released one). Each change of holder increments ``token``, so
  tokens per table are strictly increasing across owners; the same owner acquiring
  again while its lease is live keeps its token and extends the lease. Held by another
  live owner: :class:`~croupier.errors.TableOwnedElsewhere` (with owner and address).
* :func:`renew` — extend a live lease the caller holds with the given token; a lease
  that expired, was released or was taken over raises
  :class:`~croupier.errors.StaleFencingToken` (the caller must stop writing).
  :func:`renew_many` renews every lease a replica holds in one transaction and says
  which were lost.
* :func:`release` — end the caller's lease now (drain); the row and its token stay so
  the next owner gets a larger token.
* :func:`current` — the live lease of a table, or ``None``.

Rows are never deleted. Concurrent acquirers are serialised by the row lock
(``SELECT … FOR UPDATE`` on PostgreSQL after an ``INSERT … ON CONFLICT DO NOTHING``;
SQLite's write transaction holds the database write lock). On PostgreSQL a transaction
holding that lock is ended by the server when it sits idle past
:data:`PAUSED_HOLDER_LIMIT_MS`: a holder paused mid-transaction does not keep every other
replica's takeover waiting (the paused process finds its connection closed when it
continues, and its write fails as a store outage would). SQLite has no such remedy: a
process paused inside its write transaction holds the whole database until it continues
(the embedded default serves one host).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from croupier.errors import InvalidInput, StaleFencingToken, TableOwnedElsewhere
from croupier.store import schema
from croupier.store.db import IDS, AnyRow, Database, is_sqlite

_L = schema.table_leases


@dataclass(frozen=True, slots=True)
class Lease:
    """A table's lease: who holds it, where to reach them, its fencing token and expiry."""

    table_id: str
    owner: str
    address: str
    token: int
    expires_at_ms: int

    def live(self, now_ms: int) -> bool:
        return self.expires_at_ms > now_ms


def _lease(r: AnyRow) -> Lease:
    return Lease(r.table_id, r.owner, r.address, int(r.token), int(r.expires_at_ms))


def _check(table_id: str, owner: str, ttl_ms: int) -> None:
    for name, v in (("table_id", table_id), ("owner", owner)):
        if not isinstance(v, str) or not 0 < len(v) <= schema.ID_LEN:
            raise InvalidInput(f"{name} must be 1..{schema.ID_LEN} characters")
    if ttl_ms <= 0:
        raise InvalidInput("a lease's ttl must be positive")


PAUSED_HOLDER_LIMIT_MS = 1000
"""On PostgreSQL, how long a transaction holding a lease row's lock may sit idle (its
process paused between two statements: ``SIGSTOP``, a stopped VM, a long GC) before the
server ends its session and so frees the lock. Without it a paused owner caught inside
a renewal or a fenced append keeps the row locked for as long as it is paused, and every
replica's takeover waits on that lock behind an already expired lease — the failover
the lease exists for never happens. A live holder's transactions run their statements
back to back (milliseconds between them); a lease's TTL must be well above this."""


def _locked(conn: Connection, table_id: str) -> Lease | None:
    """The lease row of ``table_id``, locked until the transaction ends (on PostgreSQL
    ``FOR UPDATE``, the transaction then limited to :data:`PAUSED_HOLDER_LIMIT_MS` idle,
    set in the same statement; on SQLite the write transaction holds the database)."""
    q = _ROW if is_sqlite(conn) else _ROW_LOCKED
    r = conn.execute(q, {"table_id": table_id}).first()
    return None if r is None else _lease(r)


# built once (the fence runs in every fenced append); ``_ROW`` also reads a lease unlocked
_ROW = sa.select(_L).where(_L.c.table_id == sa.bindparam("table_id"))
_ROW_LOCKED = (
    sa.select(
        _L,
        sa.func.set_config(
            "idle_in_transaction_session_timeout", str(PAUSED_HOLDER_LIMIT_MS), True
        ),
    )
    .where(_L.c.table_id == sa.bindparam("table_id"))
    .with_for_update()
)


def acquire(
    conn: Connection, table_id: str, owner: str, address: str, ttl_ms: int, now_ms: int
) -> Lease:
    """Take (or extend) ``owner``'s lease on ``table_id`` (see the module docstring)."""
    _check(table_id, owner, ttl_ms)
    dialect = sqlite if is_sqlite(conn) else postgresql
    conn.execute(
        dialect.insert(_L)
        .values(
            table_id=table_id,
            owner=owner,
            address=address,
            token=1,
            expires_at_ms=now_ms + ttl_ms,
        )
        .on_conflict_do_nothing(index_elements=["table_id"])
    )
    cur = _locked(conn, table_id)
    assert cur is not None
    if cur.owner == owner and cur.live(now_ms):
        token = cur.token  # a fresh insert lands here too (token 1)
    elif cur.live(now_ms):
        raise TableOwnedElsewhere(
            f"table {table_id} is owned by dealer {cur.owner} at {cur.address}",
            table_id=table_id,
            owner=cur.owner,
            address=cur.address,
        )
    else:
        token = cur.token + 1
    conn.execute(
        sa.update(_L)
        .where(_L.c.table_id == table_id)
        .values(owner=owner, address=address, token=token, expires_at_ms=now_ms + ttl_ms)
    )
    return Lease(table_id, owner, address, token, now_ms + ttl_ms)


def _held(conn: Connection, table_id: str, owner: str, token: int, now_ms: int) -> Lease:
    cur = _locked(conn, table_id)
    current = 0 if cur is None else cur.token
    if cur is None or cur.token != token or cur.owner != owner or not cur.live(now_ms):
        raise StaleFencingToken(
            f"dealer {owner} no longer holds table {table_id} with token {token}",
            table_id=table_id,
            token=token,
            current=current,
        )
    return cur


def renew(
    conn: Connection, table_id: str, owner: str, token: int, ttl_ms: int, now_ms: int
) -> Lease:
    """Extend a live lease held by ``owner`` with ``token``."""
    _check(table_id, owner, ttl_ms)
    cur = _held(conn, table_id, owner, token, now_ms)
    conn.execute(
        sa.update(_L).where(_L.c.table_id == table_id).values(expires_at_ms=now_ms + ttl_ms)
    )
    return Lease(table_id, owner, cur.address, token, now_ms + ttl_ms)


def renew_many(
    conn: Connection, held: Mapping[str, Lease], owner: str, ttl_ms: int, now_ms: int
) -> tuple[dict[str, Lease], list[str]]:
    """Renew every lease in ``held`` (table -> the lease as its holder knows it) in one
    transaction: the rows read (and on PostgreSQL locked, in the tables' order) a chunk
    of ids per statement, and those still exactly as held — ``owner``'s, the same
    token, the same expiry, live — extended by one ``UPDATE`` per chunk. Returns the
    renewed leases, and the tables whose lease was not renewed, in ``held``'s order:
    lost (expired, released or taken over: :func:`renew` would raise
    :class:`~croupier.errors.StaleFencingToken`), or changed by its holder since it was
    read (a release or a claim made while the renewal ran: the newer fact stays, not
    undone by a renewal that read the clock before it)."""
    for table_id in held:
        _check(table_id, owner, ttl_ms)
    q = _ROWS if is_sqlite(conn) else _ROWS_LOCKED
    ids = sorted(held)
    current: dict[str, Lease] = {}
    for i in range(0, len(ids), _CHUNK):
        for r in conn.execute(q, {"ids": ids[i : i + _CHUNK]}):
            current[r.table_id] = _lease(r)
    renewed: dict[str, Lease] = {}
    lost: list[str] = []
    for table_id, lease in held.items():
        cur = current.get(table_id)
        if cur is None or cur != lease or cur.owner != owner or not cur.live(now_ms):
            lost.append(table_id)
        else:
            renewed[table_id] = Lease(table_id, owner, cur.address, lease.token, now_ms + ttl_ms)
    keep = list(renewed)
    for i in range(0, len(keep), _CHUNK):
        conn.execute(
            sa.update(_L)
            .where(_L.c.table_id.in_(keep[i : i + _CHUNK]))
            .values(expires_at_ms=now_ms + ttl_ms)
        )
    return renewed, lost


_CHUNK = 500
_ROWS = sa.select(_L).where(_L.c.table_id.in_(IDS))
# locked in the tables' order, as a group commit's fences lock them: two transactions
# that lock several lease rows never wait on each other's
_ROWS_LOCKED = (
    sa.select(
        _L,
        sa.func.set_config(
            "idle_in_transaction_session_timeout", str(PAUSED_HOLDER_LIMIT_MS), True
        ),
    )
    .where(_L.c.table_id.in_(IDS))
    .order_by(_L.c.table_id)
    .with_for_update()
)


def release(conn: Connection, table_id: str, owner: str, token: int, now_ms: int) -> bool:
    """End ``owner``'s lease now; ``False`` if it was not (or no longer) theirs."""
    cur = _locked(conn, table_id)
    if cur is None or cur.owner != owner or cur.token != token or not cur.live(now_ms):
        return False
    conn.execute(sa.update(_L).where(_L.c.table_id == table_id).values(expires_at_ms=now_ms))
    return True


def current(conn: Connection, table_id: str, now_ms: int) -> Lease | None:
    """The live lease on ``table_id``, or ``None`` if nobody holds one."""
    r = conn.execute(_ROW, {"table_id": table_id}).first()
    if r is None:
        return None
    lease = _lease(r)
    return lease if lease.live(now_ms) else None


def orphaned_query(now_ms: int, limit: int) -> sa.Select[Any]:
    """Open tables with an unfinished hand whose lease has run out (or was released
    while the hand was open), with their variant. It reads the open tables (the
    ``(status, table_id)`` index) and each one's lease by its key: a cost that follows
    the tables in play, not the history (every closed table keeps an expired lease)."""
    t = schema.dealer_tables
    return (
        sa.select(t.c.table_id, t.c.variant)
        .join(_L, _L.c.table_id == t.c.table_id)
        .where(t.c.status == "open", t.c.hand_id.is_not(None), _L.c.expires_at_ms <= now_ms)
        .order_by(t.c.table_id)
        .limit(limit)
    )


def orphaned(conn: Connection, now_ms: int, limit: int = 100) -> list[tuple[str, str]]:
    """``(table_id, variant)`` of :func:`orphaned_query`."""
    return [(str(r[0]), str(r[1])) for r in conn.execute(orphaned_query(now_ms, limit))]


def check_fence(conn: Connection, table_id: str, token: int) -> None:
    """Refuse a write to ``table_id`` fenced by ``token`` unless ``token`` is the table's
    current one. Call it inside the write's transaction (it takes the row lock, so a
    takeover cannot commit between the check and the write)."""
    cur = _locked(conn, table_id)
    current_token = 0 if cur is None else cur.token
    if current_token != token:
        raise StaleFencingToken(
            f"table {table_id}: fencing token {token} is not the current one ({current_token})",
            table_id=table_id,
            token=token,
            current=current_token,
        )


class LeaseStore(Database):
    """Table leases, each call its own transaction (see the module docstring)."""

    def acquire_lease(
        self, table_id: str, owner: str, address: str, ttl_ms: int, now_ms: int
    ) -> Lease:
        with self._write() as conn:
            return acquire(conn, table_id, owner, address, ttl_ms, now_ms)

    def renew_lease(self, table_id: str, owner: str, token: int, ttl_ms: int, now_ms: int) -> Lease:
        with self._write() as conn:
            return renew(conn, table_id, owner, token, ttl_ms, now_ms)

    def renew_leases(
        self, held: Mapping[str, Lease], owner: str, ttl_ms: int, now_ms: int
    ) -> tuple[dict[str, Lease], list[str]]:
        """:func:`renew_many`: every held lease renewed in one transaction."""
        if not held:
            return {}, []
        with self._write() as conn:
            return renew_many(conn, held, owner, ttl_ms, now_ms)

    def release_lease(self, table_id: str, owner: str, token: int, now_ms: int) -> bool:
        with self._write() as conn:
            return release(conn, table_id, owner, token, now_ms)

    def current_lease(self, table_id: str, now_ms: int) -> Lease | None:
        with self._read() as conn:
            return current(conn, table_id, now_ms)

    def orphaned_tables(self, now_ms: int, limit: int = 100) -> list[tuple[str, str]]:
        with self._read() as conn:
            return orphaned(conn, now_ms, limit)
