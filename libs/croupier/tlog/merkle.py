"""RFC 6962 (and RFC 9162 section 2.1) Merkle tree hashing, proofs and verification.

Pure functions over hashes; no I/O.

* ``leaf_hash(d) = SHA-256(0x00 || d)``, ``node_hash(l, r) = SHA-256(0x01 || l || r)``;
  the hash of the empty tree is ``SHA-256("")``.
* ``MTH(D[0:n])`` for ``n > 1`` splits at ``k``, the largest power of two smaller than
  ``n``: ``node_hash(MTH(D[0:k]), MTH(D[k:n]))``.
* An inclusion proof (audit path) and a consistency proof are lists of subtree hashes.
  Every subtree a proof names is a range ``[lo, hi)`` whose hash is built from the
  *perfect* subtrees ``(level, index)`` (``2**level`` leaves starting at
  ``index * 2**level``) that tile it (:func:`perfect_tiles`). A store that keeps every
  perfect subtree's hash (at most ``2n`` of them) answers any proof with ``O(log n)``
  lookups; :func:`inclusion_ranges` and :func:`consistency_ranges` say which.
* :class:`CompactRange` appends leaves in ``O(log n)``: it keeps only the right edge
  (one perfect subtree per set bit of the size) and reports the perfect subtrees each
  append completes.

Verification follows RFC 9162 sections 2.1.3.2 and 2.1.4.2 step by step.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from croupier.accel import sha256
from croupier.errors import IntegrityError, InvalidInput

HASH_LEN = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

Node = tuple[int, int]
"""A perfect subtree: ``(level, index)``, covering leaves ``[index << level, (index + 1)
<< level)``."""


class ProofError(IntegrityError):
    """An inclusion or consistency proof that does not verify."""

    reason = "bad_proof"


def leaf_hash(data: bytes) -> bytes:
    return sha256(b"\x00" + data)


def node_hash(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


def root_from_leaf_hashes(hashes: Sequence[bytes]) -> bytes:
    """``MTH`` over leaf hashes, level by level: each level's nodes hashed in pairs,
    an odd last node carried up as it is — the same tree as RFC 6962's split at the
    largest power of two (its left subtrees are perfect, so every pairing is one of its
    nodes, and the carried node is the right edge's), in linear time."""
    level = list(hashes)
    if not level:
        return EMPTY_ROOT
    for h in level:
        if len(h) != HASH_LEN:
            raise InvalidInput("a leaf hash is 32 bytes")
    while (n := len(level)) > 1:
        even = n & ~1
        pairs = zip(level[0:even:2], level[1:even:2], strict=True)
        carried = level[even:]  # the odd node, or nothing
        level = [sha256(b"\x01" + a + b) for a, b in pairs]
        level += carried
    return level[0]


def mth(leaves: Sequence[bytes]) -> bytes:
    """The RFC 6962 Merkle Tree Hash of raw leaf data, by the RFC's recursive
    definition (a reference for tests; use :func:`root_from_leaf_hashes` for speed)."""
    n = len(leaves)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaf_hash(leaves[0])
    k = _split(n)
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


# --------------------------------------------------------------------------- ranges


def perfect_tiles(lo: int, hi: int) -> list[Node]:
    """The perfect subtrees tiling ``[lo, hi)``, left to right, greedily largest first.
    For every range a proof names (``lo`` aligned to a power of two at least
    ``hi - lo``), folding their hashes from the right gives ``MTH(D[lo:hi])``."""
    if not 0 <= lo < hi:
        raise InvalidInput(f"empty or negative range [{lo}, {hi})")
    out: list[Node] = []
    while lo < hi:
        level = (lo & -lo).bit_length() - 1 if lo else (hi - lo).bit_length()
        while (1 << level) > hi - lo:
            level -= 1
        out.append((level, lo >> level))
        lo += 1 << level
    return out


def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The subtree ranges of ``PATH(index, D[0:size])`` (RFC 6962 2.1.1), leaf-side
    first."""
    if not 0 <= index < size:
        raise InvalidInput(f"leaf {index} is not in a tree of size {size}")
    out: list[tuple[int, int]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index - lo < k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo = lo + k
    out.reverse()
    return out


def consistency_ranges(old: int, new: int) -> list[tuple[int, int]]:
    """The subtree ranges of ``PROOF(old, D[0:new])`` (RFC 6962 2.1.2), in proof
    order. Empty when ``old`` is 0 or equals ``new``."""
    if not 0 <= old <= new:
        raise InvalidInput(f"no consistency proof from size {old} to size {new}")
    if old == 0 or old == new:
        return []
    out: list[tuple[int, int]] = []
    lo, hi, m, complete = 0, new, old, True
    while True:
        n = hi - lo
        if m == n:
            if not complete:
                out.append((lo, hi))
            break
        k = _split(n)
        if m <= k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo, m, complete = lo + k, m - k, False
    out.reverse()
    return out


def range_hash(lo: int, hi: int, nodes: Callable[[Node], bytes]) -> bytes:
    """``MTH(D[lo:hi])`` from the hashes of its perfect tiles."""
    tiles = [nodes(t) for t in perfect_tiles(lo, hi)]
    h = tiles[-1]
    for t in reversed(tiles[:-1]):
        h = node_hash(t, h)
    return h


def needed_nodes(ranges: Iterable[tuple[int, int]]) -> set[Node]:
    """Every perfect subtree whose hash the given ranges are built from."""
    return {t for lo, hi in ranges for t in perfect_tiles(lo, hi)}


def resolve(ranges: Sequence[tuple[int, int]], nodes: Mapping[Node, bytes]) -> list[bytes]:
    """The hashes of ``ranges`` from a map of perfect subtree hashes."""
    return [range_hash(lo, hi, nodes.__getitem__) for lo, hi in ranges]


# --------------------------------------------------------------------------- append


@dataclass
class CompactRange:
    """The right edge of a tree of ``size`` leaves: the hashes of the perfect subtrees
    of its size's binary decomposition, largest (leftmost) first."""

    size: int = 0
    edge: list[bytes] = field(default_factory=list)

    @staticmethod
    def edge_nodes(size: int) -> list[Node]:
        """The perfect subtrees forming the right edge of a tree of ``size`` leaves,
        largest first: one per set bit ``k`` of ``size``, ``(k, (size >> k) - 1)``."""
        return [(k, (size >> k) - 1) for k in range(size.bit_length() - 1, -1, -1) if size >> k & 1]

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Append one leaf hash; return the perfect subtrees it completes as
        ``(level, index, hash)``, the leaf itself first."""
        if len(leaf) != HASH_LEN:
            raise InvalidInput("a leaf hash is 32 bytes")
        idx, level, h = self.size, 0, leaf
        made = [(0, idx, h)]
        while idx & 1:
            h = node_hash(self.edge.pop(), h)
            idx >>= 1
            level += 1
            made.append((level, idx, h))
        self.edge.append(h)
        self.size += 1
        return made

    def root(self) -> bytes:
        if not self.edge:
            return EMPTY_ROOT
        h = self.edge[-1]
        for e in reversed(self.edge[:-1]):
            h = node_hash(e, h)
        return h


# --------------------------------------------------------------------------- in memory


class MemoryTree:
    """A whole tree in memory (every perfect subtree kept): for tests and small logs,
    and each version-2 seal's tree while its hands' messages are encoded.

    The hash of every range a proof names is kept once built: a range's leaves never
    change, and the ranges on the right edge, which are not perfect subtrees, are named
    by the proofs of many leaves (every proof of a seal of 256 heads folds them again
    otherwise). At most one range per inner node of the RFC tree, so ``O(n)``."""

    def __init__(self) -> None:
        self.compact = CompactRange()
        self.nodes: dict[Node, bytes] = {}
        self._ranges: dict[tuple[int, int], bytes] = {}

    @property
    def size(self) -> int:
        return self.compact.size

    def append(self, leaf: bytes) -> int:
        for level, idx, h in self.compact.append(leaf):
            self.nodes[(level, idx)] = h
        return self.compact.size - 1

    def root(self, size: int | None = None) -> bytes:
        n = self.size if size is None else size
        if not 0 <= n <= self.size:
            raise InvalidInput(f"tree has {self.size} leaves, not {n}")
        return EMPTY_ROOT if n == 0 else range_hash(0, n, self.nodes.__getitem__)

    def _range(self, lo: int, hi: int) -> bytes:
        h = self._ranges.get((lo, hi))
        if h is None:
            h = self._ranges[lo, hi] = range_hash(lo, hi, self.nodes.__getitem__)
        return h

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        if size > self.size:
            raise InvalidInput(f"tree has {self.size} leaves, not {size}")
        return [self._range(lo, hi) for lo, hi in inclusion_ranges(index, size)]

    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        if new > self.size:
            raise InvalidInput(f"tree has {self.size} leaves, not {new}")
        return [self._range(lo, hi) for lo, hi in consistency_ranges(old, new)]


# --------------------------------------------------------------------------- verify


def _check_hash(name: str, h: bytes) -> None:
    if len(h) != HASH_LEN:
        raise ProofError(f"{name} is {len(h)} bytes, not {HASH_LEN}")


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root a leaf's audit path leads to (RFC 9162 2.1.3.2)."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of size {size}")
    _check_hash("leaf hash", leaf)
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        _check_hash("proof hash", p)
        if sn == 0:
            raise ProofError("inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("inclusion proof is shorter than the tree is deep")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> None:
    """Raise :class:`ProofError` unless ``proof`` shows leaf hash ``leaf`` at ``index``
    of the tree of ``size`` leaves whose root is ``root``."""
    _check_hash("root", root)
    if root_from_inclusion(index, size, leaf, proof) != root:
        raise ProofError(f"leaf {index} is not in the tree of size {size} with this root")


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """Raise :class:`ProofError` unless the tree of size ``new`` with root ``new_root``
    extends the tree of size ``old`` with root ``old_root`` (RFC 9162 2.1.4.2)."""
    if not 0 <= old <= new:
        raise ProofError(f"size {new} cannot extend size {old}")
    if old == new:
        if proof:
            raise ProofError("equal sizes take an empty proof")
        if old_root != new_root:
            raise ProofError(f"two different roots for size {old}")
        return
    if old == 0:
        if proof:
            raise ProofError("the empty tree takes an empty proof")
        return
    _check_hash("old root", old_root)
    _check_hash("new root", new_root)
    if not proof:
        raise ProofError("consistency proof is empty")
    path = list(proof)
    for p in path:
        _check_hash("proof hash", p)
    if old & (old - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("consistency proof is too long")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("consistency proof is too short")
    if fr != old_root:
        raise ProofError(f"the tree of size {new} does not contain the tree of size {old}")
    if sr != new_root:
        raise ProofError(f"consistency proof does not lead to the root of size {new}")
