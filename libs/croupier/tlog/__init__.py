"""The transparency log of seals: an RFC 6962 Merkle tree over every sealed batch, in
the order the store appended them, with signed C2SP checkpoints.

* :mod:`croupier.tlog.merkle` — RFC 6962 hashing, proofs, verification, O(log n)
  appends (pure);
* :mod:`croupier.tlog.note` — C2SP signed notes and checkpoints (Ed25519);
* :mod:`croupier.store.tlog` — the tree in SQL: every perfect subtree's hash, the leaf
  of each seal, and the published checkpoints.

Leaf ``i`` of the tree is the ``i``-th seal the store accepted; its data is
:func:`leaf_data`, the seal's canonical JSON after a domain tag, so anyone holding a
seal (from an export) can recompute its leaf hash. Because every event is covered by a
seal that names its chain head, a checkpoint's root commits to every event of every
hand and shoe up to that point: deleting, inserting or rewriting any of them changes a
leaf or the order of leaves, and either an inclusion proof or a consistency proof
between two checkpoints fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from croupier import canonical
from croupier.tlog.merkle import leaf_hash

if TYPE_CHECKING:  # croupier.events hashes seal entries with croupier.tlog.merkle
    from croupier.events import Seal

LEAF_TAG = b"croupier:tlog-leaf:v1\n"


def leaf_data(s: Seal) -> bytes:
    """The bytes a seal's leaf hashes: a domain tag and the seal's canonical JSON."""
    return LEAF_TAG + canonical.dumps(s.to_json_dict(), check=False)


def seal_leaf_hash(s: Seal) -> bytes:
    return leaf_hash(leaf_data(s))
