"""The fast canonical encoder writes exactly the reference encoder's bytes.

Hashes and signatures are computed over these bytes, so a single differing byte would
make every stored hand fail its audit: the corpus covers the whole alphabet of JSON
strings (control characters, quotes, backslashes, U+2028/9, astral code points, keys
that sort differently as UTF-16 and as code points), integers across the 64-bit edge,
and deep nesting."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import canonical

_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)),  # lone surrogates are not UTF-8
    max_size=24,
)
_ints = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1]),
)
_scalars = st.one_of(st.none(), st.booleans(), _ints, _text)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(_text, inner, max_size=6),
    ),
    max_leaves=40,
)


@settings(max_examples=150)
@given(_values)
def test_fast_encoder_equals_reference(value: Any) -> None:
    assert canonical.dumps(value) == canonical.dumps_reference(value)
    assert canonical.dumps(value, check=False) == canonical.dumps_reference(value)


_EDGE = ["", '"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "/", "\ufeff"]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 5 or r < 0.45:
        kind = rng.randrange(6)
        if kind == 0:
            return rng.choice([None, True, False])
        if kind == 1:
            return (
                rng.randrange(-(2**70), 2**70)
                if rng.random() < 0.1
                else rng.randrange(-(2**64), 2**64)
            )
        if kind == 2:
            return rng.choice(_EDGE)
        return _random_text(rng)
    if r < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {_random_text(rng): _random_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def _random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randrange(12)):
        band = rng.random()
        if band < 0.3:
            c = rng.randrange(0x80)
        elif band < 0.8:
            c = rng.randrange(0x80, 0xD800)
        elif band < 0.9:
            c = rng.randrange(0xE000, 0x10000)
        else:
            c = rng.randrange(0x10000, 0x110000)
        out.append(chr(c))
    return "".join(out)


def test_a_large_random_corpus_encodes_as_the_reference() -> None:
    rng = random.Random(20261201)
    for i in range(20_000):
        value = _random_value(rng)
        assert canonical.dumps(value, check=False) == canonical.dumps_reference(value), i


def test_every_code_point_encodes_as_the_reference() -> None:
    # All of the Basic Multilingual Plane but surrogates, and a sample of the astral planes.
    chars = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    rng = random.Random(6962)
    chars += [chr(rng.randrange(0x10000, 0x110000)) for _ in range(20_000)]
    for i in range(0, len(chars), 512):
        chunk = "".join(chars[i : i + 512])
        value = {chunk: [chunk, chunk[::-1]], "k" + chunk[:3]: chunk}
        assert canonical.dumps(value) == canonical.dumps_reference(value), hex(ord(chunk[0]))


def test_keys_sort_by_code_point() -> None:
    # U+FF61 sorts after U+1F600 in UTF-16 but before it by code point (and UTF-8 bytes).
    value = {"\U0001f600": 1, "\uff61": 2, "a": 3}
    assert canonical.dumps(value) == canonical.dumps_reference(value)
    assert canonical.dumps(value).index("\uff61".encode()) < canonical.dumps(value).index(
        "\U0001f600".encode()
    )


def test_big_integers_fall_back_to_the_reference() -> None:
    assert canonical.dumps({"n": 2**80}) == b'{"n":1208925819614629174706176}'
