"""The seal log's Merkle tree and checkpoints: RFC 6962 hashing checked against the
published vectors (seeds/golden/tlog/rfc6962.json), proofs against the RFC's recursive
definitions for every size up to 70, tampered proofs refused, and C2SP notes signed
byte for byte as Go's reference does."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.errors import InvalidInput, SignatureError
from croupier.signing import FileSigner
from croupier.tlog import merkle
from croupier.tlog.merkle import (
    EMPTY_ROOT,
    MemoryTree,
    ProofError,
    leaf_hash,
    mth,
    node_hash,
    verify_consistency,
    verify_inclusion,
)
from croupier.tlog.note import Checkpoint, NoteSigner, NoteVerifier, open_checkpoint, open_note

V = json.loads(
    (Path(__file__).parents[2] / "seeds/golden/tlog/rfc6962.json").read_text(encoding="utf-8")
)
LEAVES = [bytes.fromhex(x) for x in V["leaves"]]
ROOTS = [bytes.fromhex(x) for x in V["roots"]]


def _tree(leaves: list[bytes]) -> MemoryTree:
    t = MemoryTree()
    for d in leaves:
        t.append(leaf_hash(d))
    return t


def test_roots_and_subtree_hashes_match_the_published_vectors() -> None:
    assert mth([]) == EMPTY_ROOT == ROOTS[0]
    for n in range(len(LEAVES) + 1):
        assert mth(LEAVES[:n]) == ROOTS[n], n
        assert _tree(LEAVES[:n]).root() == ROOTS[n], n
    t = _tree(LEAVES)
    for level, row in enumerate(V["nodes"]):
        for idx, h in enumerate(row):
            assert t.nodes[(level, idx)] == bytes.fromhex(h), (level, idx)
    for n in range(len(LEAVES) + 1):
        assert t.root(n) == ROOTS[n]


def test_the_root_of_leaf_hashes_is_the_rfc_tree_hash_at_every_size() -> None:
    """``root_from_leaf_hashes`` (pairs level by level, an odd node carried up) against
    the published vectors and the RFC's recursive definition for every size to 300."""
    for n in range(len(LEAVES) + 1):
        assert merkle.root_from_leaf_hashes([leaf_hash(d) for d in LEAVES[:n]]) == ROOTS[n]
    data = [i.to_bytes(2, "big") for i in range(300)]
    hashes = [leaf_hash(d) for d in data]
    for n in range(301):
        assert merkle.root_from_leaf_hashes(hashes[:n]) == mth(data[:n]), n
    with pytest.raises(InvalidInput, match="32 bytes"):
        merkle.root_from_leaf_hashes([hashes[0], hashes[1][:31]])


@pytest.mark.parametrize("case", V["inclusion"], ids=lambda c: f"{c['index']}of{c['size']}")
def test_inclusion_proofs_match_the_published_vectors(case: dict[str, object]) -> None:
    i, n = int(str(case["index"])), int(str(case["size"]))
    want = [bytes.fromhex(h) for h in case["proof"]]  # type: ignore[attr-defined]
    assert _tree(LEAVES).inclusion_proof(i, n) == want
    verify_inclusion(i, n, leaf_hash(LEAVES[i]), want, ROOTS[n])


@pytest.mark.parametrize("case", V["consistency"], ids=lambda c: f"{c['old']}to{c['new']}")
def test_consistency_proofs_match_the_published_vectors(case: dict[str, object]) -> None:
    m, n = int(str(case["old"])), int(str(case["new"]))
    want = [bytes.fromhex(h) for h in case["proof"]]  # type: ignore[attr-defined]
    assert _tree(LEAVES).consistency_proof(m, n) == want
    verify_consistency(m, n, ROOTS[m], ROOTS[n], want)


def _rfc_path(m: int, d: list[bytes]) -> list[bytes]:
    """RFC 6962 2.1.1 PATH, literally."""
    n = len(d)
    if n <= 1:
        return []
    k = 1 << ((n - 1).bit_length() - 1)
    if m < k:
        return [*_rfc_path(m, d[:k]), mth(d[k:])]
    return [*_rfc_path(m - k, d[k:]), mth(d[:k])]


def _rfc_subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    """RFC 6962 2.1.2 SUBPROOF, literally."""
    n = len(d)
    if m == n:
        return [] if b else [mth(d)]
    k = 1 << ((n - 1).bit_length() - 1)
    if m <= k:
        return [*_rfc_subproof(m, d[:k], b), mth(d[k:])]
    return [*_rfc_subproof(m - k, d[k:], False), mth(d[:k])]


def test_every_proof_up_to_70_leaves_equals_the_rfc_definition_and_verifies() -> None:
    data = [i.to_bytes(2, "big") for i in range(70)]
    t = _tree(data)
    for n in range(1, 71):
        root = t.root(n)
        assert root == mth(data[:n])
        for i in range(n):
            p = t.inclusion_proof(i, n)
            assert p == _rfc_path(i, data[:n])
            verify_inclusion(i, n, leaf_hash(data[i]), p, root)
        for m in range(1, n + 1):
            c = t.consistency_proof(m, n)
            assert c == (_rfc_subproof(m, data[:n], True) if m < n else [])
            verify_consistency(m, n, t.root(m), root, c)


def test_proofs_asked_while_the_tree_grows_equal_a_fresh_trees() -> None:
    # the tree keeps every range hash it built: asked again at a later size, or for a
    # size it has not reached, it answers as a tree built fresh does (or refuses)
    data = [i.to_bytes(2, "big") for i in range(40)]
    grown = MemoryTree()
    for n, d in enumerate(data, start=1):
        grown.append(leaf_hash(d))
        fresh = _tree(data[:n])
        for i in range(n):
            assert (
                grown.inclusion_proof(i, n) == fresh.inclusion_proof(i, n) == _rfc_path(i, data[:n])
            )
        for m in range(1, n + 1):
            assert grown.consistency_proof(m, n) == fresh.consistency_proof(m, n)
        with pytest.raises(InvalidInput):
            grown.inclusion_proof(0, n + 1)
        with pytest.raises(InvalidInput):
            grown.consistency_proof(1, n + 1)


def _flip(h: bytes) -> bytes:
    return bytes([h[0] ^ 8]) + h[1:]


def test_tampered_inclusion_proofs_are_refused() -> None:
    t = _tree(LEAVES)
    proof, root, leaf = t.inclusion_proof(5, 8), ROOTS[8], leaf_hash(LEAVES[5])
    bad = [
        (4, 8, leaf, proof, root),
        (6, 8, leaf, proof, root),
        (5, 16, leaf, proof, root),
        (5, 4, leaf, proof, root),
        (5, 8, leaf_hash(b"x"), proof, root),
        (5, 8, leaf, proof, EMPTY_ROOT),
        (5, 8, leaf, [*proof, root], root),
        (5, 8, leaf, [root, *proof], root),
        (5, 8, leaf, proof[:-1], root),
        *[(5, 8, leaf, [*proof[:i], _flip(proof[i]), *proof[i + 1 :]], root) for i in range(3)],
    ]
    for i, n, lf, p, r in bad:
        with pytest.raises(ProofError):
            verify_inclusion(i, n, lf, p, r)


def test_tampered_consistency_proofs_are_refused() -> None:
    t = _tree(LEAVES)
    proof = t.consistency_proof(6, 8)
    r6, r8 = ROOTS[6], ROOTS[8]
    bad = [
        (5, 8, r6, r8, proof),
        (7, 8, r6, r8, proof),
        (6, 16, r6, r8, proof),
        (6, 8, r8, r6, proof),
        (6, 8, ROOTS[5], r8, proof),
        (6, 8, r6, r8, []),
        (6, 8, r6, r8, [*proof, r8]),
        (6, 8, r6, r8, [r6, *proof]),
        (6, 8, r6, r8, proof[:-1]),
        (8, 6, r8, r6, proof),
        (3, 3, ROOTS[3], ROOTS[4], []),
        *[(6, 8, r6, r8, [*proof[:i], _flip(proof[i]), *proof[i + 1 :]]) for i in range(3)],
    ]
    for m, n, a, b, p in bad:
        with pytest.raises(ProofError):
            verify_consistency(m, n, a, b, p)


@settings(deadline=None, max_examples=60)
@given(st.integers(1, 1100), st.data())
def test_compact_range_appends_agree_with_the_recursive_hash(n: int, data: st.DataObject) -> None:
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(n)]
    c = merkle.CompactRange()
    made = 0
    for h in leaves:
        made += len(c.append(h))
        assert len(c.edge) == bin(c.size).count("1")
    assert c.root() == merkle.root_from_leaf_hashes(leaves)
    assert made == 2 * n - bin(n).count("1")  # every perfect subtree, each once
    k = data.draw(st.integers(1, n))
    assert merkle.range_hash(0, k, _tree_nodes(leaves).__getitem__) == _naive(leaves[:k])


def _tree_nodes(leaves: list[bytes]) -> dict[merkle.Node, bytes]:
    t = MemoryTree()
    for h in leaves:
        t.append(h)
    return t.nodes


def _naive(hashes: list[bytes]) -> bytes:
    if len(hashes) == 1:
        return hashes[0]
    k = 1 << ((len(hashes) - 1).bit_length() - 1)
    return node_hash(_naive(hashes[:k]), _naive(hashes[k:]))


# --------------------------------------------------------------------------- notes

NOTE = V["note"]


def _go_signer() -> NoteSigner:
    seed = base64.b64decode(NOTE["skey"].split("+", 4)[-1])[1:]
    return NoteSigner("PeterNeumann", FileSigner.from_seed("log", "PeterNeumann", seed))


def test_note_signature_reproduces_gos_reference_byte_for_byte() -> None:
    s = _go_signer()
    assert s.verifier.encode() == NOTE["vkey"]
    signed = s.sign(NOTE["text"])
    assert signed == NOTE["text"] + "\n" + NOTE["signature_line"]
    v = NoteVerifier.parse(NOTE["vkey"])
    assert open_note(signed, v) == NOTE["text"]
    with pytest.raises(SignatureError):
        open_note(signed.replace("cryptography", "cryptographY"), v)


def test_a_verifier_key_with_a_wrong_id_or_algorithm_is_refused() -> None:
    name, hid, blob = NOTE["vkey"].split("+", 2)
    for bad in (f"{name}+00000000+{blob}", f"Other+{hid}+{blob}", f"{name}+{hid}", "x"):
        with pytest.raises(InvalidInput):
            NoteVerifier.parse(bad)


def test_checkpoint_round_trip_and_forgeries() -> None:
    signer = NoteSigner("croupier.test/log", FileSigner.from_seed("log", "log-1", bytes(32)))
    cp = Checkpoint("croupier.test/log", 8, ROOTS[8])
    note = cp.sign(signer)
    lines = note.split("\n")
    assert lines[:3] == ["croupier.test/log", "8", base64.b64encode(ROOTS[8]).decode()]
    assert lines[4].startswith("\u2014 croupier.test/log ")
    assert open_checkpoint(note, signer.verifier) == cp
    other = NoteSigner("croupier.test/log", FileSigner.from_seed("log", "log-2", bytes([9]) * 32))
    with pytest.raises(SignatureError):
        open_checkpoint(note, other.verifier)  # another key of the same name
    forged = note.replace("\n8\n", "\n9\n")
    with pytest.raises(SignatureError):
        open_checkpoint(forged, signer.verifier)
    foreign = Checkpoint("elsewhere/log", 8, ROOTS[8]).sign(
        NoteSigner("elsewhere/log", signer.signer)
    )
    with pytest.raises(SignatureError):
        open_checkpoint(
            foreign,
            NoteVerifier("elsewhere/log", signer.verifier.public_key),
            origin="croupier.test/log",
        )


def test_a_checkpoints_signed_time_line_round_trips() -> None:
    signer = NoteSigner("croupier.test/log", FileSigner.from_seed("log", "log-1", bytes(32)))
    note = Checkpoint("croupier.test/log", 8, ROOTS[8], 1_733_000_000_000).sign(signer)
    assert note.split("\n")[3] == "time 1733000000000"
    cp = open_checkpoint(note, signer.verifier)
    assert cp.time_ms == 1_733_000_000_000 and cp.size == 8
    with pytest.raises(SignatureError):  # the time is signed like the rest
        open_checkpoint(note.replace("time 1733", "time 1633"), signer.verifier)
