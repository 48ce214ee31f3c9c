"""Canonical bytes: the one serialisation that hashes and signatures are computed over.

Canonical JSON here means: UTF-8, object keys sorted, no insignificant white space,
integers only (floats are refused: money and game data are integers or strings, and
float formatting differs across languages), strings as themselves (no ASCII escaping).
Bytes that round-trip through :func:`loads` and :func:`dumps` unchanged are canonical.

The encoder is orjson (sorted keys, compact, UTF-8, control characters escaped as
``\\u00XX``), which writes exactly the bytes of the standard library's
``json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` for every
value canonical JSON allows (a differential test over a large random corpus pins it);
integers beyond 64 bits, which orjson refuses, fall back to the standard library.
The parser is orjson too, with the standard library's parser deciding every input orjson
declines or reads differently (:func:`loads`). Where the native accelerator is built
(:mod:`croupier.accel`), it proves the common case -- an object in canonical text --
in one scan of the bytes; what it does not prove takes the path below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import orjson

from croupier.accel import native as _native
from croupier.errors import InvalidInput

JSONValue = Any  # JSON object/array/str/int/bool/None; floats refused

# Dataclasses and datetimes are not JSON: orjson would encode them, the reference refuses.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)


def _check(value: JSONValue, path: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return
    if isinstance(value, float):
        raise InvalidInput(f"float at {path or '$'}: canonical JSON holds integers only")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInput(f"non-string key at {path or '$'}")
            _check(v, f"{path}.{k}")
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check(v, f"{path}[{i}]")
        return
    raise InvalidInput(f"{type(value).__name__} at {path or '$'} is not JSON")


_PLAIN = frozenset({str, int, bool, type(None)})


def _valid(value: JSONValue) -> bool:
    """The fast form of :func:`_check`: exact types only, no path strings (the slow walk
    runs only to word an error, or for subclasses such as enums)."""
    t = type(value)
    if t in _PLAIN:
        return True
    if t is dict:
        for k, v in value.items():
            if type(k) is not str or (type(v) not in _PLAIN and not _valid(v)):
                return False
        return True
    if t is list or t is tuple:
        return all(type(v) in _PLAIN or _valid(v) for v in value)
    return False


_plain = _valid if _native is None else _native.plain_value
""":func:`_valid`, natively where the accelerator is built (the same answer, or
``False`` past 64 levels, where the slow walk then decides)."""


def dumps(value: JSONValue, *, check: bool = True) -> bytes:
    """Serialise ``value`` canonically. ``check=False`` skips the float/type walk for
    values the caller built itself from validated parts."""
    if check and not _plain(value):
        _check(value, "")
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        # Integers beyond 64 bits (orjson's range) and anything else it declines:
        # the reference encoder decides, and raises on what is not JSON.
        return dumps_reference(value)


def dumps_parsed(value: JSONValue) -> bytes:
    """:func:`dumps` (checked) of a value as orjson parses JSON text: dicts, lists,
    strings, integers, booleans, None and finite floats only. Such a value is canonical
    JSON unless it holds a float, and orjson writes every float as a float token
    (:func:`_float_token`), so the walk of the value is needed only when the written
    text shows one (then the walk decides: a float is refused, a string that merely
    looks like one is not). A value of other types must go to :func:`dumps`."""
    try:
        out = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        return dumps(value)
    if _float_token(out):
        return dumps(value)
    return out


def dumps_reference(value: JSONValue) -> bytes:
    """The standard-library encoding that :func:`dumps` reproduces byte for byte."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def loads(data: bytes | str) -> JSONValue:
    """Parse JSON, refusing floats, NaN and infinities (:class:`InvalidInput`).

    orjson parses. Whatever it declines (NaN and infinities, lone surrogates, invalid
    UTF-8, a byte order mark, malformed text) goes to :func:`loads_reference`, whose
    answer (a value or an error) stands, and so does any text with a number orjson reads
    as a float: a fraction or an exponent, or an integer beyond 64 bits (which the
    reference parses exactly). Such a number is looked for in the text, not only in the
    value: a float under a key that appears again later is gone from the value but
    refused by the reference. So the result is always the reference parser's; a
    differential test over a large random corpus pins it (duplicate keys: the last value
    wins, at the first key's place, in both). Text that may nest deeper than
    :data:`_DEEP` goes to the reference parser too: orjson reads 1024 levels, the
    reference stops at the interpreter's recursion limit."""
    return _loads(data)[0]


def _loads(data: bytes | str) -> tuple[JSONValue, bool]:
    """:func:`loads`'s value, and whether ``data`` is already known canonical (orjson's
    value written back is the text: :func:`_written_by_dumps`)."""
    if isinstance(data, str):
        try:
            raw = data.encode()
        except UnicodeEncodeError:  # a lone surrogate: the reference decides
            return loads_reference(data), False
    else:
        raw = data
    if _native is not None and _native.canonical_text(raw):
        return orjson.loads(raw), True
    if len(raw) >= _DEEP and raw.count(b"[") + raw.count(b"{") >= _DEEP:
        return loads_reference(data), False
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return loads_reference(data), False
    if _written_by_dumps(value, raw):
        return value, True
    keys = _plain_keys(value)
    if keys < 0:  # a float in the value: a fraction, an exponent or beyond 64 bits
        return loads_reference(data), False
    # every ":" a key's: no duplicate key hid a value, so every number of the text is in
    # the value, and none is a float (a walk of the value: cheaper than a scan of the text)
    if keys == raw.count(b":"):
        return value, False
    # valid JSON: a digit directly followed by ".", "e", "E" or 18 more digits is in
    # such a number or in a string, nowhere else
    if _NUMBERISH.search(raw) is None or _NUMBERISH.search(_STRINGS.sub(b"", raw)) is None:
        return value, False
    return loads_reference(data), False


loads_proven = orjson.loads
"""The value of text already proven canonical (``croupier._accel``'s ``canonical_text``
or ``chain_intact``): orjson's parse, which is then the reference parser's value."""


def _written_by_dumps(value: JSONValue, raw: bytes) -> bool:
    """Whether ``raw``, which orjson parsed as ``value``, is :func:`dumps`'s own text of
    a value without floats (canonical JSON, the common case): then the reference parser
    reads the same value, and the walk of :func:`_plain_keys` is not needed. A duplicate
    key, a number beyond 64 bits or any other spelling makes the texts differ; a float
    is found by :func:`_float_token`."""
    try:
        if orjson.dumps(value, option=_ORJSON_OPTIONS) != raw:
            return False
    except TypeError:
        return False
    return not _float_token(raw)


def _float_token(raw: bytes) -> bool:
    """Whether orjson's text ``raw`` may hold a float: orjson writes every float with a
    ``.`` or a signed exponent (``e+``/``e-``) right after its leading digits, and a
    number starts the text or follows ``:``, ``[`` or ``,`` (``-`` between). A string
    may look the same (``"at:1.5"``): then the answer is yes and the caller takes the
    slow road. Three substring searches for text without such marks (most payloads):
    a regular expression over a 5 KB record costs 55-190 us, this well under one."""
    for mark in (b".", b"e+", b"e-"):
        i = raw.find(mark)
        while i >= 0:
            j = i
            while j > 0 and raw[j - 1] in _DIGITS:
                j -= 1
            if j < i:  # digits right before the mark
                if j > 0 and raw[j - 1] == _MINUS:
                    j -= 1
                if j == 0 or raw[j - 1] in _OPENERS:
                    return True
            i = raw.find(mark, i + 1)
    return False


def parse(data: bytes) -> JSONValue:
    """The value of canonical JSON ``data``; :class:`InvalidInput` when ``data`` is not
    canonical (not JSON, a float, a duplicate key, keys out of order, white space, an
    escape the encoder would not write, ...): ``dumps(parse(data)) == data`` always."""
    try:
        value, known = _loads(data)
        same = known or dumps(value, check=False) == data
    except (InvalidInput, ValueError, RecursionError) as e:  # a float, not JSON, too deep
        raise InvalidInput(f"not canonical JSON: {e}") from e
    if not same:
        raise InvalidInput("not canonical JSON: it is not the canonical text of its value")
    return value


_DIGITS = frozenset(b"0123456789")
_OPENERS = frozenset(b":[,")
_MINUS = ord("-")
_DEEP = 256
_NUMBERISH = re.compile(rb"[0-9](?:[.eE]|[0-9]{18})")
# a JSON string token (in text already known to be valid JSON)
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _plain_keys(value: JSONValue) -> int:
    """The number of object keys in a parsed ``value``, or -1 when it holds a float."""
    t = type(value)
    if t is dict:
        n, items = len(value), value.values()
    elif t is list:
        n, items = 0, value
    else:
        return 0 if t in _PLAIN else -1
    for v in items:
        if type(v) in _PLAIN:
            continue
        k = _plain_keys(v)
        if k < 0:
            return k
        n += k
    return n


def _no_float(s: str) -> Any:
    raise InvalidInput(f"float {s!r} in canonical JSON")


def loads_reference(data: bytes | str) -> JSONValue:
    """The standard-library parse that :func:`loads` reproduces."""
    return json.loads(data, parse_float=_no_float, parse_constant=_no_float)


def is_canonical(data: bytes) -> bool:
    try:
        parse(data)
    except InvalidInput:
        return False
    return True
