""":func:`canonical.loads` after its fast path for short text (no bracket count below
:data:`canonical._DEEP` bytes) gives exactly what it gave before
(``canonical_loads_reference``, kept verbatim): the same value with the same types and
key order, or the same error, over the decoder tests' large random corpus and over text
around the depth limit, by length and by nesting, with brackets in strings too."""

from __future__ import annotations

import random
from typing import Any

import canonical_loads_reference as ref
import pytest
from test_canonical_decoder import _outcome, _random_value, _write

from croupier import canonical


def _same(data: bytes | str) -> None:
    assert _outcome(canonical.loads, data) == _outcome(ref.loads, data), data


def test_a_large_random_corpus_parses_as_before() -> None:
    rng = random.Random(20261203)
    for _ in range(20_000):
        s = _write(_random_value(rng), rng)
        _same(s)
        _same(s.encode("utf-8", "surrogatepass"))


def _nested(depth: int, inner: str, open_: str = "[") -> str:
    close = {"[": "]", "{": "}"}[open_]
    if open_ == "{":
        return '{"k":' * depth + inner + close * depth
    return open_ * depth + inner + close * depth


@pytest.mark.parametrize("depth", [1, 127, 128, 200, 254, 255, 256, 257, 300, 600])
@pytest.mark.parametrize("open_", ["[", "{"])
@pytest.mark.parametrize("inner", ["1", "1.5", '"[{"', '"' + "[" * 300 + '"', "[]", ""])
def test_text_around_the_depth_limit_parses_as_before(depth: int, open_: str, inner: str) -> None:
    s = _nested(depth, inner, open_)
    for text in (s, s + " " * 300, " " * (256 - len(s) % 256) + s):
        _same(text)
        _same(text.encode())


def test_text_of_every_length_around_the_limit_parses_as_before() -> None:
    rng = random.Random(5)
    pieces: list[Any] = ["[", "{", "]", "}", '"[["', "1", ",", ":", '"a"', " ", "1e5", "-0"]
    for _ in range(20_000):
        n = rng.randrange(240, 272)
        text = "".join(rng.choice(pieces) for _ in range(n))[:n]
        _same(text)
        _same(text.encode())
        valid = "[" * rng.randrange(0, 300) + "0" + "]" * rng.randrange(0, 300)
        _same(valid)
