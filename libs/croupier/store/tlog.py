"""The seal log's Merkle tree in SQL (see :mod:`croupier.tlog`).

Three append-only tables:

* ``tlog_leaves`` — leaf index → seal id: the ``i``-th seal the store accepted;
* ``tlog_nodes`` — the hash of every *perfect* subtree ``(level, index)`` (level 0 is
  the leaf hashes), keyed ``(level << 56) | index``. At most ``2n`` rows for ``n``
  leaves; any root, inclusion or consistency proof reads ``O(log n)`` of them;
* ``tlog_checkpoints`` — each published checkpoint: size, root and its signed note.

:func:`append_seals` runs in the transaction that stores the seals, so a seal is never
stored without its leaf: :func:`croupier.store.events.append` calls it for a single
append, and a :class:`~croupier.store.UnitOfWork` calls it once, just before it commits,
for every seal its appends stored (one lock, one edge read and two inserts per unit of
work, however many batches it holds). It reads the right edge of the tree (one row per
set bit of the size), appends, and inserts the leaves and the perfect subtrees the
appends complete (on average two rows a seal). Appends are serialised: SQLite's write
lock does it; on PostgreSQL a transaction-level advisory lock does.

The edge a process computed is kept per engine and reused when the log's last leaf is
still the one that process appended (same index, same seal id): the log is append-only
and its prefix immutable, so that leaf fixes the edge; any other writer's append, or a
rolled-back one, changes the last leaf and the edge is read again.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from croupier.errors import InvalidInput, NotFound
from croupier.events import Seal
from croupier.store import schema
from croupier.store.db import AnyRow, Database, insert_rows, is_sqlite, select_params
from croupier.tlog import merkle, seal_leaf_hash
from croupier.tlog.note import Checkpoint, NoteSigner

_L = schema.tlog_leaves
_N = schema.tlog_nodes
_C = schema.tlog_checkpoints
ADVISORY_LOCK = 0x63726F75  # "crou"
CHUNK = 400


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    size: int
    root: bytes
    note: str
    published_at_ms: int


def _lock(conn: Connection) -> None:
    if not is_sqlite(conn):
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": ADVISORY_LOCK})


def size(conn: Connection) -> int:
    n = conn.execute(sa.select(sa.func.max(_L.c.leaf_index))).scalar_one_or_none()
    return 0 if n is None else int(n) + 1


LEVEL_SHIFT = 56


def node_key(level: int, index: int) -> int:
    """The ``tlog_nodes`` key of perfect subtree ``(level, index)``."""
    return (level << LEVEL_SHIFT) | index


def _nodes(conn: Connection, wanted: Iterable[merkle.Node]) -> dict[merkle.Node, bytes]:
    keys = sorted(set(wanted))
    out: dict[merkle.Node, bytes] = {}
    mask = (1 << LEVEL_SHIFT) - 1
    ids = [node_key(lv, ix) for lv, ix in keys]
    for i in range(0, len(ids), CHUNK):
        q = sa.select(_N.c.node, _N.c.hash).where(_N.c.node.in_(ids[i : i + CHUNK]))
        for k, h in conn.execute(q):
            out[(int(k) >> LEVEL_SHIFT, int(k) & mask)] = bytes(h)
    missing = [k for k in keys if k not in out]
    if missing:
        raise NotFound(f"the log is missing subtree hashes {missing[:4]}")
    return out


# per engine: (size, last seal id, right edge) as this process last appended them
_EDGES: weakref.WeakKeyDictionary[Engine, tuple[int, str, list[bytes]]] = (
    weakref.WeakKeyDictionary()
)


def last_leaf_query() -> sa.Select[Any]:
    """The last leaf: two probes of the primary key, whatever the log's size."""
    last = sa.select(sa.func.max(_L.c.leaf_index)).scalar_subquery()
    return sa.select(_L.c.leaf_index, _L.c.seal_id).where(_L.c.leaf_index == last)


_LAST_LEAF = last_leaf_query()  # run before every append: built once


def _last_leaf(conn: Connection) -> tuple[int, str | None]:
    """The log's size and the seal id of its last leaf."""
    rows = select_params(conn, _LAST_LEAF, {})
    return (0, None) if not rows else (int(rows[0][0]) + 1, str(rows[0][1]))


def append_seals(conn: Connection, seals: Sequence[Seal]) -> list[int]:
    """Give each seal the next leaf (in order); returns their leaf indices."""
    if not seals:
        return []
    _lock(conn)
    n, last = _last_leaf(conn)
    cached = _EDGES.get(conn.engine)
    if cached is not None and cached[0] == n and cached[1] == last:
        edge_hashes = list(cached[2])
    else:
        edge_keys = merkle.CompactRange.edge_nodes(n)
        edge = _nodes(conn, edge_keys)
        edge_hashes = [edge[k] for k in edge_keys]
    c = merkle.CompactRange(n, edge_hashes)
    leaves: list[dict[str, Any]] = []
    nodes: list[dict[str, Any]] = []
    for s in seals:
        leaves.append({"leaf_index": c.size, "seal_id": s.seal_id})
        made = c.append(seal_leaf_hash(s))
        nodes += [{"node": node_key(lv, ix), "hash": h} for lv, ix, h in made]
    insert_rows(conn, _L, leaves)
    insert_rows(conn, _N, nodes)
    _EDGES[conn.engine] = (c.size, seals[-1].seal_id, list(c.edge))
    return [int(x["leaf_index"]) for x in leaves]


def root(conn: Connection, tree_size: int | None = None) -> tuple[int, bytes]:
    n = size(conn) if tree_size is None else tree_size
    if n == 0:
        return 0, merkle.EMPTY_ROOT
    if n > size(conn):
        raise InvalidInput(f"the log has fewer than {n} leaves")
    tiles = merkle.perfect_tiles(0, n)
    return n, merkle.range_hash(0, n, _nodes(conn, tiles).__getitem__)


def inclusion_proof(conn: Connection, index: int, tree_size: int) -> list[bytes]:
    ranges = merkle.inclusion_ranges(index, tree_size)
    return merkle.resolve(ranges, _nodes(conn, merkle.needed_nodes(ranges)))


def consistency_proof(conn: Connection, old: int, new: int) -> list[bytes]:
    if new > size(conn):
        raise InvalidInput(f"the log has fewer than {new} leaves")
    ranges = merkle.consistency_ranges(old, new)
    return merkle.resolve(ranges, _nodes(conn, merkle.needed_nodes(ranges)))


def leaf_indices(conn: Connection, seal_ids: Iterable[str]) -> dict[str, int]:
    ids = list(dict.fromkeys(seal_ids))
    out: dict[str, int] = {}
    for i in range(0, len(ids), CHUNK):
        q = sa.select(_L.c.seal_id, _L.c.leaf_index).where(_L.c.seal_id.in_(ids[i : i + CHUNK]))
        out.update((str(s), int(x)) for s, x in conn.execute(q))
    return out


def leaves(conn: Connection, after: int = -1, limit: int = 10_000) -> list[tuple[int, str]]:
    """``(leaf index, seal id)`` in leaf order, for walking the whole log."""
    q = (
        sa.select(_L.c.leaf_index, _L.c.seal_id)
        .where(_L.c.leaf_index > after)
        .order_by(_L.c.leaf_index)
        .limit(limit)
    )
    return [(int(i), str(s)) for i, s in conn.execute(q)]


def leaf_seals(
    conn: Connection, after: int = -1, limit: int = 2_000
) -> list[tuple[int, str, Seal | None]]:
    """``(leaf index, seal id, the stored seal or None)`` in leaf order: the log as the
    auditor replays it (a leaf whose seal row is gone comes back with None)."""
    from croupier.store.events import _row_seal

    s = schema.seals
    q = (
        sa.select(_L.c.leaf_index, _L.c.seal_id, s)
        .select_from(_L.outerjoin(s, s.c.seal_id == _L.c.seal_id))
        .where(_L.c.leaf_index > after)
        .order_by(_L.c.leaf_index)
        .limit(limit)
    )
    return [
        (int(r.leaf_index), str(r[1]), _row_seal(r[2:]) if r.signature is not None else None)
        for r in conn.execute(q)
    ]


def seals_not_in_log(conn: Connection, limit: int = 1000) -> list[str]:
    """Stored seals that no leaf names (at most ``limit``)."""
    s = schema.seals
    q = (
        sa.select(s.c.seal_id)
        .select_from(s.outerjoin(_L, _L.c.seal_id == s.c.seal_id))
        .where(_L.c.seal_id.is_(None))
        .order_by(s.c.seal_id)
        .limit(limit)
    )
    return [str(x) for x in conn.execute(q).scalars()]


def checkpoints(conn: Connection) -> list[StoredCheckpoint]:
    return [_row(r) for r in conn.execute(sa.select(*_CP_COLS).order_by(_C.c.tree_size))]


def _row(r: AnyRow) -> StoredCheckpoint:
    return StoredCheckpoint(int(r[0]), bytes(r[1]), str(r[2]), int(r[3]))


_CP_COLS = (_C.c.tree_size, _C.c.root_hash, _C.c.note, _C.c.published_at_ms)


def latest_checkpoint(conn: Connection) -> StoredCheckpoint | None:
    r = conn.execute(sa.select(*_CP_COLS).order_by(_C.c.tree_size.desc()).limit(1)).first()
    return None if r is None else _row(r)


def checkpoint_at(conn: Connection, tree_size: int) -> StoredCheckpoint:
    r = conn.execute(sa.select(*_CP_COLS).where(_C.c.tree_size == tree_size)).first()
    if r is None:
        raise NotFound(f"no checkpoint of size {tree_size}")
    return _row(r)


def first_checkpoint_including(conn: Connection, seal_id: str) -> StoredCheckpoint | None:
    """The first published checkpoint whose tree contains the seal: the moment the log
    vouches the seal existed (its signed ``time`` line, ``published_at_ms``). Judge a
    key's validity by it, not by the signer's own clock: a seal by a key revoked at
    ``t`` is good only if a checkpoint before ``t`` includes it. None while the seal is
    not yet in a checkpoint."""
    idx = leaf_indices(conn, [seal_id]).get(seal_id)
    if idx is None:
        raise NotFound(f"seal {seal_id} is not in the log")
    r = conn.execute(
        sa.select(*_CP_COLS).where(_C.c.tree_size > idx).order_by(_C.c.tree_size).limit(1)
    ).first()
    return None if r is None else _row(r)


def publish_checkpoint(
    conn: Connection, signer: NoteSigner, at_ms: int, *, force: bool = False
) -> StoredCheckpoint | None:
    """Sign and store a checkpoint of the log as it is now. Returns None when the log
    has not grown since the latest checkpoint (unless ``force`` and it is empty)."""
    _lock(conn)
    n, h = root(conn)
    last = latest_checkpoint(conn)
    if last is not None and last.size == n:
        return last if force else None
    if n == 0 and not force:
        return None
    note = Checkpoint(signer.name, n, h, at_ms).sign(signer)
    conn.execute(
        _C.insert(), {"tree_size": n, "root_hash": h, "note": note, "published_at_ms": at_ms}
    )
    return StoredCheckpoint(n, h, note, at_ms)


class TransparencyLog(Database):
    """Reads of the seal log's tree and checkpoint publishing (each its own
    transaction)."""

    def tlog_size(self) -> int:
        with self._read() as conn:
            return size(conn)

    def tlog_root(self, tree_size: int | None = None) -> tuple[int, bytes]:
        with self._read() as conn:
            return root(conn, tree_size)

    def inclusion_proof(self, index: int, tree_size: int) -> list[bytes]:
        with self._read() as conn:
            return inclusion_proof(conn, index, tree_size)

    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        with self._read() as conn:
            return consistency_proof(conn, old, new)

    def leaf_indices(self, seal_ids: Iterable[str]) -> dict[str, int]:
        with self._read() as conn:
            return leaf_indices(conn, seal_ids)

    def tlog_leaves(self, after: int = -1, limit: int = 10_000) -> list[tuple[int, str]]:
        with self._read() as conn:
            return leaves(conn, after, limit)

    def latest_checkpoint(self) -> StoredCheckpoint | None:
        with self._read() as conn:
            return latest_checkpoint(conn)

    def checkpoints(self) -> list[StoredCheckpoint]:
        with self._read() as conn:
            return checkpoints(conn)

    def leaf_seals(self, after: int = -1, limit: int = 2_000) -> list[tuple[int, str, Seal | None]]:
        with self._read() as conn:
            return leaf_seals(conn, after, limit)

    def seals_not_in_log(self, limit: int = 1000) -> list[str]:
        with self._read() as conn:
            return seals_not_in_log(conn, limit)

    def checkpoint_at(self, tree_size: int) -> StoredCheckpoint:
        with self._read() as conn:
            return checkpoint_at(conn, tree_size)

    def first_checkpoint_including(self, seal_id: str) -> StoredCheckpoint | None:
        with self._read() as conn:
            return first_checkpoint_including(conn, seal_id)

    def publish_checkpoint(
        self, signer: NoteSigner, at_ms: int, *, force: bool = False
    ) -> StoredCheckpoint | None:
        with self._write() as conn:
            return publish_checkpoint(conn, signer, at_ms, force=force)
