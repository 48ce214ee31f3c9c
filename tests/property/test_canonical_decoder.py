"""The fast canonical parser returns exactly what the reference parser returns.

Every payload, seal and settlement record is parsed by :func:`canonical.loads` before it
is checked, so the fast path (orjson) must agree with the standard library's parser on
every input: the same value with the same types and key order, or the same error. The
corpus is JSON text of every shape (floats, NaN and infinities, integers across the
64-bit edges, escapes, lone surrogates escaped and raw, invalid UTF-8, a byte order
mark, duplicate keys, deep nesting), whole and mutated byte by byte."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.errors import InvalidInput


def _typed(v: Any) -> Any:
    """``v`` with every type spelled out (True is not 1) and key order kept."""
    if isinstance(v, dict):
        return ("dict", [(k, _typed(x)) for k, x in v.items()])
    if isinstance(v, list):
        return ("list", [_typed(x) for x in v])
    if isinstance(v, float) and math.isnan(v):
        return ("float", "nan")
    return (type(v).__name__, v)


def _outcome(parse: Any, data: bytes | str) -> Any:
    try:
        return ("value", _typed(parse(data)))
    except (InvalidInput, ValueError, RecursionError) as e:
        return ("error", type(e).__name__, str(e))


def _same(data: bytes | str) -> None:
    assert _outcome(canonical.loads, data) == _outcome(canonical.loads_reference, data), data


# --------------------------------------------------------------------------- values

_text = st.text(max_size=16)  # lone surrogates included: they are escaped as \udXXX
_ints = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from(
        [0, -1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**19, -(10**19)]
    ),
)
_scalars = st.one_of(st.none(), st.booleans(), _ints, _text, st.floats())
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(_text, st.sampled_from(["a", "b", "é"])), inner, max_size=5),
    ),
    max_leaves=30,
)


def _texts(value: Any) -> list[bytes | str]:
    """``value`` written several ways: ASCII-escaped, raw UTF-8 (lone surrogates kept by
    ``surrogatepass``), spaced out, and as a str."""
    out: list[bytes | str] = []
    for ascii_ in (True, False):
        s = json.dumps(value, ensure_ascii=ascii_, separators=(",", ":"))
        out += [s, s.encode("utf-8", "surrogatepass")]
    out.append(json.dumps(value, indent=1).encode("utf-8", "surrogatepass"))
    return out


@settings(max_examples=300)
@given(_values)
def test_written_values_parse_as_the_reference(value: Any) -> None:
    for data in _texts(value):
        _same(data)


_ALPHABET = [
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b"\\",
    b"\\u",
    b"d800",
    b"dc00",
    b"0",
    b"1",
    b"9",
    b"-",
    b".",
    b"e",
    b"E",
    b"+",
    b" ",
    b"\t",
    b"\n",
    b"\x00",
    b"\x1f",
    b"\x7f",
    b"\xc3\xa9",
    b"\xed\xa0\x80",
    b"\xff",
    b"\xef\xbb\xbf",
    b"true",
    b"null",
    b"NaN",
    b"Infinity",
    b"18446744073709551616",
]


Edits = list[tuple[int, int, bytes]]


def _edits(max_size: int) -> st.SearchStrategy[Edits]:
    """Byte edits: at an offset, insert (0), overwrite (1) or delete (2)."""
    return st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 2), st.sampled_from(_ALPHABET)),
        min_size=1,
        max_size=max_size,
    )


def _mutated(text: bytes, edits: Edits) -> bytes:
    data = bytearray(text)
    for at, how, piece in edits:
        i = at % (len(data) + 1)
        if how == 0:
            data[i:i] = piece
        elif how == 1:
            data[i : i + len(piece)] = piece
        else:
            del data[i : i + 1]
    return bytes(data)


@settings(max_examples=400)
@given(_values, _edits(4))
def test_mutated_text_parses_as_the_reference(value: Any, edits: Edits) -> None:
    _same(_mutated(json.dumps(value, separators=(",", ":")).encode(), edits))


# --------------------------------------------------------------------------- corpus


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 5 or r < 0.45:
        kind = rng.randrange(7)
        if kind == 0:
            return rng.choice([None, True, False])
        if kind == 1:
            return (
                rng.randrange(-(2**70), 2**70)
                if rng.random() < 0.1
                else rng.randrange(-(2**64), 2**64)
            )
        if kind == 2:
            return rng.choice([0.5, -0.0, 1e300, 1e-300, float("nan"), float("inf"), 3.0])
        return "".join(
            chr(rng.choice([rng.randrange(0x80), rng.randrange(0x110000)]))
            for _ in range(rng.randrange(8))
        )
    if r < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    # pairs rather than a dict, so that keys repeat
    keys = ["a", "b", "k", "\u00e9", ""]
    pairs = [(rng.choice(keys), _random_value(rng, depth + 1)) for _ in range(rng.randrange(5))]
    return _Pairs(pairs)


class _Pairs(list[tuple[str, Any]]):
    """An object that may repeat a key."""


def _write(v: Any, rng: random.Random) -> str:
    if isinstance(v, _Pairs):
        return "{" + ",".join(json.dumps(k) + ":" + _write(x, rng) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_write(x, rng) for x in v) + "]"
    return json.dumps(v, ensure_ascii=rng.random() < 0.5)


def test_a_large_random_corpus_parses_as_the_reference() -> None:
    rng = random.Random(20261202)
    for _ in range(20_000):
        s = _write(_random_value(rng), rng)
        _same(s)
        _same(s.encode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------- edges


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":1,"a":2}',
        b'{"a":1,"b":2,"a":3}',
        b'{"a":{"x":1},"a":[2]}',
        b'{"a":1.5,"a":1}',
        b'{"a":[{"b":2e9}],"a":0}',
        b'{"a":18446744073709551616,"a":0}',
        b'["\\"1.5", 1]',
        b'["x\\\\", 1.0]',
        b'["x\\\\", "1.0"]',
        b'["deadbeef1e5", "0.5"]',
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"[100000000000000000000000000000]",
        b"-0",
        b"1.0",
        b"1e5",
        b"1E400",
        b"-1e-400",
        b"NaN",
        b"-Infinity",
        b'"\\ud800"',
        b'"\\udc00\\ud800"',
        b'"\\ud83d\\ude00"',
        b'"\xed\xa0\x80"',
        b'"\xff"',
        b'"\xc0\x80"',
        b"\xef\xbb\xbf{}",
        "\ufeff{}",
        '"\ud800"',
        b'"\x01"',
        b"",
        b" ",
        b"1 2",
        b"[" * 1023 + b"]" * 1023,
        b"[" * 1025 + b"]" * 1025,
        b"[" * 5000 + b"]" * 5000,
    ],
)
def test_edges_parse_as_the_reference(data: bytes | str) -> None:
    _same(data)


def test_duplicate_keys_keep_the_last_value_in_both() -> None:
    assert orjson.loads(b'{"a":1,"a":2}') == {"a": 2}
    assert canonical.loads(b'{"a":1,"a":2}') == canonical.loads_reference(b'{"a":1,"a":2}')
    assert canonical.loads(b'{"a":1,"a":2}') == {"a": 2}


def test_floats_and_constants_are_refused() -> None:
    for data in (b"1.5", b'{"x":[1e3]}', b"NaN", b"Infinity", b"-Infinity", b"1E400"):
        with pytest.raises(InvalidInput):
            canonical.loads(data)


def test_integers_beyond_64_bits_are_parsed_exactly() -> None:
    # orjson reads them as floats: the reference parser answers instead
    assert canonical.loads(b'{"n":18446744073709551616}') == {"n": 2**64}
    assert canonical.loads(b"[-9223372036854775809]") == [-(2**63) - 1]
    assert type(canonical.loads(b"[123456789012345678901234567890]")[0]) is int


def test_lone_surrogates_parse_as_the_reference() -> None:
    # the standard library keeps them (the canonical check then refuses the payload,
    # since they cannot be written as UTF-8); orjson refuses, and defers to it
    assert canonical.loads(b'"\\ud800"') == "\ud800"
    assert canonical.loads(b'"\xed\xa0\x80"') == "\ud800"
    assert not canonical.is_canonical(b'"\\ud800"')
    with pytest.raises(ValueError):
        canonical.loads(b'"\xff"')


# --------------------------------------------------------------------------- parse()
# canonical.parse(data) is the value of canonical text and refuses everything else; its
# quick path (orjson's value written back equals the text, no float token) must give
# exactly what the definition gives: the reference parse, when the reference encoder
# writes that value back as the very same bytes.


def _parse_reference(data: bytes) -> Any:
    try:
        value = canonical.loads_reference(data)
        if canonical.dumps_reference(value) == data:
            return ("value", _typed(value))
    except (InvalidInput, ValueError, RecursionError):
        pass
    return ("refused",)


def _parse_outcome(data: bytes) -> Any:
    try:
        return ("value", _typed(canonical.parse(data)))
    except InvalidInput:
        return ("refused",)


def _same_parse(data: bytes) -> None:
    assert _parse_outcome(data) == _parse_reference(data), data
    assert canonical.is_canonical(data) == (_parse_reference(data) != ("refused",)), data


def _canonical_texts(value: Any) -> list[bytes]:
    """``value`` as canonical text would spell it (floats and all: the parse refuses
    them), and the near misses: unsorted keys, ASCII escapes, spaces."""
    out = [json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)]
    out.append(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
    out.append(json.dumps(value, sort_keys=True, separators=(",", ":")))
    out.append(json.dumps(value, sort_keys=True))
    return [s.encode("utf-8", "surrogatepass") for s in out]


@settings(max_examples=400)
@given(_values)
def test_parse_gives_the_definitions_answer_for_written_values(value: Any) -> None:
    for data in _canonical_texts(value):
        _same_parse(data)


@settings(max_examples=300)
@given(_values, _edits(3))
def test_parse_gives_the_definitions_answer_for_mutated_canonical_text(
    value: Any, edits: Edits
) -> None:
    _same_parse(_mutated(_canonical_texts(value)[0], edits))


def test_parse_gives_the_definitions_answer_over_a_large_random_corpus() -> None:
    rng = random.Random(20261206)
    for _ in range(10_000):
        v = _random_value(rng)
        _same_parse(_write(v, rng).encode("utf-8", "surrogatepass"))
        try:
            text = json.dumps(_plain(v), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except ValueError:  # NaN is JSON's to refuse here
            continue
        _same_parse(text.encode("utf-8", "surrogatepass"))


def _plain(v: Any) -> Any:
    if isinstance(v, _Pairs):
        return {k: _plain(x) for k, x in v}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a":1,"b":[2,"x"]}', {"a": 1, "b": [2, "x"]}),
        (b'{"at":"06:42:41.362","v":"1e5","w":"[1.5,2e3]"}', None),  # float-like strings
        (b'{"n":18446744073709551616}', {"n": 2**64}),  # beyond orjson's integers
        (b'["\\u0001","\\"1.5",",2.5"]', ["\x01", '"1.5', ",2.5"]),
        (b'"\xc3\xa9"', "é"),
        (b'{".":".","a":"1.5","b":"e+1","c":"2e-3"}', None),  # marks outside numbers
        (b'["x:1.5",".5","-1e+2"]', ["x:1.5", ".5", "-1e+2"]),
        (b"[" * 300 + b"]" * 300, None),  # deep: the reference decides
    ],
)
def test_parse_accepts_canonical_text(data: bytes, value: Any) -> None:
    got = canonical.parse(data)
    if value is not None:
        assert got == value
    assert canonical.dumps(got) == data
    _same_parse(data)


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":1.0}',  # a float
        b"[1e5]",
        b"-0.0",
        b"2.5",
        b'{"a":[0,-1E3]}',
        b"[1e-7]",  # orjson's own spellings of floats
        b'{"a":-1e+16}',
        b"[0,1.2345678901234568e+29]",
        b"1e+16",
        b"-0.5",
        b'{"b":1,"a":2}',  # keys out of order
        b'{"a":1,"a":1}',  # a duplicate key
        b'{"a": 1}',  # white space
        b'"\\u00e9"',  # an escape the encoder does not write
        b'"\\ud800"',  # a lone surrogate
        b"-0",
        b"[18446744073709551616.0]",
        b'{"a":NaN}',
        b"",
        b'"\xff"',
        b"[" * 5000 + b"]" * 5000,  # deeper than the reference reads
    ],
)
def test_parse_refuses_what_is_not_canonical(data: bytes) -> None:
    with pytest.raises(InvalidInput):
        canonical.parse(data)
    assert not canonical.is_canonical(data)
    _same_parse(data)


# ----------------------------------------------------------------- dumps_parsed()
# Bus messages are parsed by orjson, and each event's payload is then encoded with
# canonical.dumps_parsed: a look at the written text for a float instead of a walk of
# the value. For every value orjson can parse, it must answer as dumps() does.


def _dumps_outcome(encode: Any, value: Any) -> Any:
    try:
        return ("bytes", encode(value))
    except InvalidInput as e:
        return ("refused", str(e))


def _same_dumps(data: bytes) -> None:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return
    got = _dumps_outcome(canonical.dumps_parsed, value)
    assert got == _dumps_outcome(canonical.dumps, value), data


def test_dumps_parsed_answers_as_dumps_over_a_large_random_corpus() -> None:
    rng = random.Random(20261207)
    for _ in range(10_000):
        _same_dumps(_write(_random_value(rng), rng).encode("utf-8", "surrogatepass"))


@settings(max_examples=300)
@given(_values)
def test_dumps_parsed_answers_as_dumps_for_written_values(value: Any) -> None:
    for data in _texts(value):
        _same_dumps(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":1.5}',
        b"[1e-7,2]",
        b'{"a":[{"b":-2E+3}]}',
        b'{"x":"1.5","y":"e-1","z":":2e+3"}',  # strings that look like floats
        b'{"n":123456789012345678901234567890}',  # orjson: a float
        b'{"a":null,"b":[true,false]}',
    ],
)
def test_dumps_parsed_answers_as_dumps_at_the_edges(data: bytes) -> None:
    _same_dumps(data)
    if b"1.5}" in data or b"1e-7" in data or b"E+3" in data:
        with pytest.raises(InvalidInput):
            canonical.dumps_parsed(orjson.loads(data))
