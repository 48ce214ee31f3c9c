"""The table feed: a table's events in the order they were stored, addressed by
position.

A feed position is an event's ``global_pos``: the store numbers every event it appends,
across all streams, in append order. A table's feed is the subsequence of events whose
stream belongs to the table (its shoes' and hands' events, including the rule service's
``hand.outcome`` and settlement's ``hand.settled``). Positions therefore increase along
a table's feed but skip numbers (other tables' events lie between). A reader that
stored the position of the last event it got resumes with :func:`table_events` after
it, from any process that shares the store.

Positions become visible in order on SQLite (one writer at a time). On PostgreSQL a
position is allocated before its transaction commits, so position ``p + 1`` may be
visible while ``p`` is not yet (or never: a rolled-back insert leaves a hole). A reader
must therefore only hand out positions up to a *horizon* below which nothing can still
appear; :class:`Horizon` keeps it: it advances over contiguous positions at once and
over a hole only once the hole is older than ``gap_wait_ms`` (longer than any write
transaction runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.events import Event
from croupier.store import schema
from croupier.store.db import Database

_E = schema.events
_S = schema.streams
_COLS = (
    _E.c.stream_id,
    _E.c.seq,
    _E.c.type,
    _E.c.producer,
    _E.c.key_id,
    _E.c.prev_hash,
    _E.c.payload,
    _E.c.hash,
)
GAP_WAIT_MS = 3_000
"""How long a hole in the positions is waited for before it is taken as never filled."""


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One event of a table's feed, with its position and its stream's variant."""

    pos: int
    variant: str
    event: Event


def table_events_query(
    table_id: str, after_pos: int, upto_pos: int | None, limit: int
) -> sa.Select[Any]:
    """The table's events with ``after_pos < global_pos <= upto_pos`` in position order:
    a range of the (``table_id``, ``global_pos``) index, each row joined to its stream
    by primary key for the variant."""
    q = (
        sa.select(_E.c.global_pos, _S.c.variant, *_COLS)
        .join(_S, _S.c.stream_id == _E.c.stream_id)
        .where(_E.c.table_id == table_id, _E.c.global_pos > after_pos)
        .order_by(_E.c.global_pos)
        .limit(max(0, limit))
    )
    if upto_pos is not None:
        q = q.where(_E.c.global_pos <= upto_pos)
    return q


def table_events(
    conn: Connection, table_id: str, after_pos: int, upto_pos: int | None, limit: int = 500
) -> list[FeedEntry]:
    return [
        FeedEntry(int(r[0]), str(r[1]), Event(*r[2:]))
        for r in conn.execute(table_events_query(table_id, after_pos, upto_pos, limit))
    ]


def positions_query(after_pos: int, limit: int) -> sa.Select[Any]:
    """Positions after ``after_pos`` with their tables, in order (a primary-key range)."""
    return (
        sa.select(_E.c.global_pos, _E.c.table_id)
        .where(_E.c.global_pos > after_pos)
        .order_by(_E.c.global_pos)
        .limit(max(0, limit))
    )


def positions(conn: Connection, after_pos: int, limit: int = 2000) -> list[tuple[int, str]]:
    return [(int(p), str(t)) for p, t in conn.execute(positions_query(after_pos, limit))]


def last_position(conn: Connection) -> int:
    """The highest position stored (0 for an empty log)."""
    return int(conn.execute(sa.select(sa.func.max(_E.c.global_pos))).scalar() or 0)


def table_known(conn: Connection, table_id: str) -> bool:
    """Whether the table has a registry row or any stored event."""
    t = schema.dealer_tables
    if conn.execute(sa.select(t.c.table_id).where(t.c.table_id == table_id)).first():
        return True
    q = sa.select(_E.c.global_pos).where(_E.c.table_id == table_id).limit(1)
    return conn.execute(q).first() is not None


@dataclass
class Horizon:
    """The highest position below which every event is visible (see the module
    docstring). Feed it what a scan of positions after :attr:`safe` returned."""

    safe: int
    gap_wait_ms: int = GAP_WAIT_MS
    holes: dict[int, int] = field(default_factory=dict)  # missing position -> first seen

    def advance(self, seen: Sequence[int], now_ms: int) -> int:
        """Move :attr:`safe` over ``seen`` (ascending positions > safe) and over holes
        older than ``gap_wait_ms``; returns the new :attr:`safe`."""
        present = set(seen)
        top = max(seen, default=self.safe)
        for p in range(self.safe + 1, top):
            if p not in present:
                self.holes.setdefault(p, now_ms)
        p = self.safe + 1
        while p <= top:
            if p not in present:
                since = self.holes.get(p, now_ms)
                if now_ms - since < self.gap_wait_ms:
                    break
            p += 1
        self.safe = p - 1
        self.holes = {h: t for h, t in self.holes.items() if h > self.safe}
        return self.safe


class TableFeed(Database):
    """Reads of the table feed (each call its own transaction)."""

    def table_events(
        self, table_id: str, after_pos: int, upto_pos: int | None = None, limit: int = 500
    ) -> list[FeedEntry]:
        with self._read() as conn:
            return table_events(conn, table_id, after_pos, upto_pos, limit)

    def positions(self, after_pos: int, limit: int = 2000) -> list[tuple[int, str]]:
        with self._read() as conn:
            return positions(conn, after_pos, limit)

    def last_position(self) -> int:
        with self._read() as conn:
            return last_position(conn)

    def table_known(self, table_id: str) -> bool:
        with self._read() as conn:
            return table_known(conn, table_id)
