"""A seal's entries decoded natively from their stored text, and a version-2 seal's
Merkle root over them (``croupier._accel``: ``seal_entries``, ``seal_root``), against the
pure path they stand in for (:func:`croupier.events.seal_entries_of`'s
:mod:`croupier.canonical` decode, :func:`croupier.tlog.merkle.root_from_leaf_hashes` over
each entry's :meth:`~croupier.events.SealEntry.leaf`).

Each native answer is the pure one or ``None`` ("not the plain form": the pure path
decides), never another value: pinned over random entries, their stored text and
mutations of it; and the common case — the text the store writes — is decoded natively
(else the native path would be dead weight). Skipped, saying so, where the extension is
not built; CI sets ``CROUPIER_NATIVE=require``."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import accel, canonical
from croupier.errors import CroupierError
from croupier.events import SealEntry, seal_entries_of
from croupier.tlog.merkle import root_from_leaf_hashes

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)
native: Any = accel.native

_plain = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters='"\\'),
    max_size=20,
)
_any_text = st.text(max_size=12)
_entries = st.lists(
    st.tuples(
        st.one_of(_plain, _any_text),
        st.one_of(st.integers(0, 10**18 - 1), st.integers(-(2**70), 2**70)),
        st.binary(max_size=40),
    ),
    max_size=40,
)


REFUSED = (CroupierError, ValueError, TypeError)
"""What the pure decode raises for a text it refuses."""


def _text(entries: list[tuple[str, int, bytes]]) -> bytes:
    """The stored text of ``entries``, as the store writes it (``_entries_bytes``)."""
    return canonical.dumps([[s, q, h.hex()] for s, q, h in entries], check=False)


def _pure_entries(text: bytes) -> tuple[SealEntry, ...] | None:
    try:
        raw = canonical.loads(text)
        return tuple(SealEntry(str(s), int(q), bytes.fromhex(h)) for s, q, h in raw)
    except REFUSED:  # the pure path refuses it: the native one must not answer
        return None


def _pure_root(entries: tuple[SealEntry, ...]) -> bytes:
    return root_from_leaf_hashes([e.leaf() for e in entries])


def _plain_entry(s: str, q: int) -> bool:
    return all(0x20 <= ord(c) <= 0x7E and c not in '"\\' for c in s) and 0 <= q < 10**18


@settings(max_examples=500)
@given(_entries)
def test_stored_text_decodes_to_the_pure_entries_and_plain_text_natively(
    entries: list[tuple[str, int, bytes]],
) -> None:
    text = _text(entries)
    got = native.seal_entries(text)
    want = _pure_entries(text)
    assert want is not None
    if all(_plain_entry(s, q) for s, q, _ in entries):
        assert got is not None, text
    if got is not None:
        assert got == want and all(type(e) is SealEntry for e in got)
        assert [type(x) for e in got for x in (e.stream, e.seq, e.hash)] == [str, int, bytes] * len(
            got
        )
    assert seal_entries_of(text) == want


_EDITS = [
    (b'"]', b'" ]'),  # white space
    (b",", b", "),
    (b"[[", b"[ ["),
    (b'"a', b'"A'),  # upper-case hex (or a stream's letter: still the pure answer)
    (b",1", b",01"),  # a leading zero
    (b",1", b",-1"),
    (b",1", b",1.0"),
    (b",1", b',"1"'),  # a seq as a string: the pure path takes int("1")
    (b"]]", b"]"),
    (b"]]", b"]]]"),
    (b"]]", b",1]]"),  # a fourth field
    (b'"]', b'",7]'),
    (b"[[", b"[["),
    (b'\\"', b"x"),
    (b"a", b"\\u0061"),  # an escape the pure parser reads
]


@settings(max_examples=500)
@given(_entries, st.sampled_from(_EDITS), st.integers(0, 1000))
def test_edited_text_is_decoded_only_as_the_pure_path_decodes_it(
    entries: list[tuple[str, int, bytes]], edit: tuple[bytes, bytes], at: int
) -> None:
    text = _text(entries)
    old, new = edit
    hits = [i for i in range(len(text)) if text.startswith(old, i)]
    if hits:
        i = hits[at % len(hits)]
        text = text[:i] + new + text[i + len(old) :]
    got = native.seal_entries(text)
    want = _pure_entries(text)
    if got is not None:
        assert got == want, text
    if want is None:
        assert got is None
        with pytest.raises(REFUSED):
            seal_entries_of(text)
    else:
        assert seal_entries_of(text) == want


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        (b"[]", True),
        (b'[["h1",0,""]]', True),
        (b'[["h1",0,"00ff"],["h2",999999999999999999,"ab"]]', True),
        (b'[["h1",1000000000000000000,"ab"]]', False),  # 19 digits: the pure path's
        (b'[["h1",0,"abc"]]', False),  # odd hex: the pure path refuses
        (b'[["h1",0,"AB"]]', False),
        (b'[["h\\u00e9",0,"ab"]]', False),
        (b'[["h\xc3\xa9",0,"ab"]]', False),  # UTF-8: left to the pure parser
        (b'[["h1",0,"ab"]', False),
        (b'[["h1",0,"ab"]] ', False),
        (b"", False),
        (b"[", False),
        (b"{}", False),
        (b'[["h1",0]]', False),
        (b"[[]]", False),
    ],
)
def test_edges(text: bytes, decoded: bool) -> None:
    got = native.seal_entries(text)
    assert (got is not None) == decoded
    if got is not None:
        assert got == _pure_entries(text)


def test_only_bytes_are_read() -> None:
    with pytest.raises(TypeError):
        native.seal_entries('[["h1",0,"ab"]]')


@settings(max_examples=500)
@given(_entries)
def test_the_root_is_the_pure_root(entries: list[tuple[str, int, bytes]]) -> None:
    es = tuple(SealEntry(s, q, h) for s, q, h in entries)
    got = native.seal_root(es)
    if not es:
        assert got is None
        return
    want = _pure_root(es)
    plain = all(c < "\ud800" or c > "\udfff" for s, _, _ in entries for c in s) and all(
        -(2**63) <= q < 2**63 for _, q, _ in entries
    )
    escaped = any(c < " " or c in '"\\' for s, _, _ in entries for c in s)
    if plain and not escaped:
        assert got == want
    else:
        assert got in (None, want)


def test_a_root_of_every_size_is_the_pure_root() -> None:
    """Each shape of the tree (the odd node carried up at each level)."""
    rng = random.Random(7)
    for n in range(1, 70):
        es = tuple(
            SealEntry(f"t{rng.randrange(9)}_h{i}", rng.randrange(12), rng.randbytes(32))
            for i in range(n)
        )
        assert native.seal_root(es) == _pure_root(es), n
        assert native.seal_root(list(es)) == _pure_root(es)


def test_entries_not_plain_are_left_to_the_pure_path() -> None:
    good = SealEntry("h1", 0, bytes(32))

    class Other:
        stream, seq, hash = "h1", 0, bytes(32)

    for bad in (
        SealEntry(1, 0, bytes(32)),  # type: ignore[arg-type]
        SealEntry("h1", True, bytes(32)),
        SealEntry("h1", 2**64, bytes(32)),
        SealEntry("h1", 0, bytearray(32)),  # type: ignore[arg-type]
        SealEntry('h"1', 0, bytes(32)),
    ):
        assert native.seal_root((good, bad)) is None, bad
    # what answers to the fields is read as an entry
    assert native.seal_root((good, Other())) == _pure_root((good, good))
    with pytest.raises(AttributeError):
        native.seal_root((good, object()))
    with pytest.raises(TypeError):
        native.seal_root(7)


def test_stored_seals_decode_natively(tmp_path: Any) -> None:
    """The text the store writes (``_entries_bytes``) is the plain form."""
    from croupier.store.events import _entries_bytes

    rng = random.Random(3)
    es = tuple(
        SealEntry(f"tbl-{rng.randrange(99)}_h{i}", rng.randrange(20), rng.randbytes(32))
        for i in range(300)
    )
    text = _entries_bytes(es)
    db = sqlite3.connect(tmp_path / "s.sqlite")
    db.execute("CREATE TABLE seals (entries BLOB)")
    db.execute("INSERT INTO seals VALUES (?)", (text,))
    (stored,) = db.execute("SELECT entries FROM seals").fetchone()
    got = native.seal_entries(bytes(stored))
    assert got == es and native.seal_root(got) == _pure_root(es)
