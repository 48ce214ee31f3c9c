"""SHA-256 in the native accelerator (``croupier._accel``: ``sha256`` and every digest
its chain part takes — an event's hash, a version-2 seal's leaves and nodes) against
hashlib, both ways it can be taken: OpenSSL's block functions called directly in the
libcrypto hashlib has loaded, and hashlib's own objects (``CROUPIER_SHA256_HASHLIB``).

The direct way must be the one taken wherever Python's hashlib is OpenSSL's shared
libcrypto (else the import's self-check or the look-up is broken and the native path
silently pays hashlib's cost again). Skipped, saying so, where the extension is not
built; CI sets ``CROUPIER_NATIVE=require``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import accel
from croupier.events import SealEntry, _event_hash, _header
from croupier.tlog.merkle import root_from_leaf_hashes

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)
native: Any = accel.native


def _loaded_libcrypto() -> str | None:
    """The shared libcrypto this process has mapped (hashlib's), by its file name."""
    import _hashlib  # noqa: F401  (what maps it)

    maps = Path("/proc/self/maps")
    if not maps.exists():
        return None
    for line in maps.read_text().splitlines():
        name = line.rsplit("/", 1)[-1]
        if name.startswith("libcrypto.so."):
            return name
    return None


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_the_digest_is_hashlibs(data: bytes) -> None:
    want = hashlib.sha256(data).digest()
    assert native.sha256(data) == want
    assert native.sha256(bytearray(data)) == want
    assert native.sha256(memoryview(data)) == want
    assert accel.sha256(data) == want


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 4_096, 1_000_003])
def test_every_block_boundary(size: int) -> None:
    data = bytes((i * 31 + 7) & 0xFF for i in range(size))
    assert native.sha256(data) == hashlib.sha256(data).digest()


def test_what_is_not_bytes_is_refused() -> None:
    with pytest.raises(TypeError):
        native.sha256("text")
    with pytest.raises(TypeError):
        native.sha256(None)


def test_the_direct_way_is_taken_where_hashlib_is_openssls() -> None:
    lib = _loaded_libcrypto()
    if lib is None:
        assert native.sha256_direct() is None or native.sha256_direct().startswith("libcrypto")
        return
    assert native.sha256_direct() == lib


_CHECK = """
import hashlib, json, sys
from croupier import accel
from croupier.events import SealEntry, _event_hash, _header
from croupier.tlog.merkle import root_from_leaf_hashes
n = accel.native
out = {"direct": n.sha256_direct()}
data = bytes(range(256)) * 5
out["digest"] = n.sha256(data) == hashlib.sha256(data).digest()
h = n.event_hash("t1_h9", 3, "bet.placed", "dealer", "dealer-1", bytes(32), b'{"a":1}')
out["event"] = h == _event_hash(
    _header("t1_h9", 3, "bet.placed", "dealer", "dealer-1", bytes(32)), b'{"a":1}'
)
entries = [SealEntry(f"t{i}_h{i}", i, bytes([i]) * 32) for i in range(13)]
out["root"] = n.seal_root(entries) == root_from_leaf_hashes([e.leaf() for e in entries])
print(json.dumps(out))
"""


@pytest.mark.parametrize("hashlib_way", [False, True])
def test_both_ways_give_the_event_hash_and_the_seal_root(hashlib_way: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CROUPIER_SHA256_HASHLIB"}
    if hashlib_way:
        env["CROUPIER_SHA256_HASHLIB"] = "1"
    run = subprocess.run(
        [sys.executable, "-c", _CHECK], env=env, capture_output=True, text=True, check=True
    )
    got = json.loads(run.stdout)
    assert got["digest"] and got["event"] and got["root"], got
    if hashlib_way:
        assert got["direct"] is None
    else:
        assert got["direct"] == native.sha256_direct()


def test_this_process_event_hash_and_root_match_the_pure_path() -> None:
    h = native.event_hash("t2_h1", 0, "hand.opened", "dealer", "k", bytes(32), b"{}")
    assert h == _event_hash(_header("t2_h1", 0, "hand.opened", "dealer", "k", bytes(32)), b"{}")
    entries = [SealEntry(f"s{i}", i, hashlib.sha256(bytes([i])).digest()) for i in range(70)]
    assert native.seal_root(entries) == root_from_leaf_hashes([e.leaf() for e in entries])
