"""The canonical parser as it was before its fast path skipped counting brackets in
short text, kept verbatim (``loads`` of ``libs/croupier/canonical.py`` and what it
used) as the oracle the current parser is compared with: every value and every error
must be the very one this code gives. Not to be edited: it is what "unchanged" means."""

from __future__ import annotations

import re

import orjson

from croupier.canonical import _PLAIN, JSONValue, loads_reference


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
    if isinstance(data, str):
        try:
            raw = data.encode()
        except UnicodeEncodeError:  # a lone surrogate: the reference decides
            return loads_reference(data)
    else:
        raw = data
    if raw.count(b"[") + raw.count(b"{") >= _DEEP:
        return loads_reference(data)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return loads_reference(data)
    # valid JSON: a digit directly followed by ".", "e", "E" or 18 more digits is in
    # such a number or in a string, nowhere else
    if _NUMBERISH.search(raw) is None:
        return value
    keys = _plain_keys(value)
    if keys < 0:  # a float in the value
        return loads_reference(data)
    # every ":" a key's (no duplicate hid a value), or no such number outside strings
    if keys == raw.count(b":") or _NUMBERISH.search(_STRINGS.sub(b"", raw)) is None:
        return value
    return loads_reference(data)


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
