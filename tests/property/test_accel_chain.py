"""The native chain check (``croupier._accel``: ``canonical_text``, ``event_hash``,
``chain_intact``) against the pure-Python path it stands in for.

Each native answer is "proven" or "not proven", never "bad": so what is pinned is that
*proven* is always right by the definition (canonical text: the reference parser's value
written back by the reference encoder is the very text; a chain: the pure
:func:`verify_chain` accepts it), over random and mutated texts and chains, and that the
common case is proven (else the native path would be dead weight). Skipped, saying so,
where the extension is not built; CI sets ``CROUPIER_NATIVE=require``."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_canonical_decoder import (
    Edits,
    _canonical_texts,
    _edits,
    _mutated,
    _Pairs,
    _parse_reference,
    _random_value,
    _values,
    _write,
)

from croupier import accel, canonical
from croupier import events as events_mod
from croupier.errors import ChainError, InvalidInput
from croupier.events import Event, _event_hash, _header, make_event, verify_chain

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)
native: Any = accel.native
FIELDS = [f.name for f in dataclasses.fields(Event)]


@contextmanager
def pure() -> Iterator[None]:
    """The pure-Python path only, for the reference answer."""
    saved = canonical._native, events_mod._native
    canonical._native = events_mod._native = None
    try:
        yield
    finally:
        canonical._native, events_mod._native = saved


def _is_canonical_object(data: bytes) -> bool:
    ref = _parse_reference(data)
    return ref != ("refused",) and ref[1][0] == "dict"


def _sound(data: bytes) -> bool:
    """The native answer for ``data``, checked: proven only where the definition says
    canonical with an object at the top; and ``canonical.parse`` the same either way."""
    proven = native.canonical_text(data)
    if proven:
        assert _is_canonical_object(data), data
    with pure():
        try:
            want: Any = ("value", canonical.parse(data))
        except InvalidInput:
            want = ("refused",)
    try:
        got: Any = ("value", canonical.parse(data))
    except InvalidInput:
        got = ("refused",)
    assert got == want, data
    return bool(proven)


def _plain(v: Any) -> bool:
    """Whether the native check must prove ``v``'s canonical text: no float, no
    integer past 18 digits, no key JSON escapes."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return not isinstance(v, str) or not _has_surrogate(v)
    if isinstance(v, int):
        return len(str(abs(v))) <= 18
    if isinstance(v, list):
        return all(_plain(x) for x in v)
    if isinstance(v, dict):
        return all(
            _plain(k) and not any(c < " " or c in '"\\' for c in k) and _plain(x)
            for k, x in v.items()
        )
    return False


def _has_surrogate(s: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in s)


# ------------------------------------------------------------------ canonical text


@settings(max_examples=400)
@given(st.dictionaries(st.text(max_size=8), _values, max_size=6))
def test_written_objects_are_proven_exactly_when_plain(value: dict[str, Any]) -> None:
    for data in _canonical_texts(value):
        _sound(data)
    first = _canonical_texts(value)[0]
    if _plain(value) and _is_canonical_object(first):
        assert native.canonical_text(first), first


@settings(max_examples=400)
@given(st.dictionaries(st.text(max_size=8), _values, min_size=1, max_size=6), _edits(3))
def test_mutated_objects_are_proven_only_when_canonical(
    value: dict[str, Any], edits: Edits
) -> None:
    _sound(_mutated(_canonical_texts(value)[0], edits))


def test_a_large_random_corpus_is_proven_only_when_canonical() -> None:
    rng = random.Random(20261207)
    proven = 0
    for _ in range(10_000):
        v = _Pairs([(k, _random_value(rng, 1)) for k in rng.sample(["a", "b", "é", ""], 3)])
        proven += _sound(_write(v, rng).encode("utf-8", "surrogatepass"))
        obj = {k: x for k, x in v}
        try:
            text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except ValueError:  # NaN
            continue
        proven += _sound(text.encode("utf-8", "surrogatepass"))
    assert proven > 1_000  # the common case is taken natively


@pytest.mark.parametrize(
    ("data", "proven"),
    [
        (b"{}", True),
        (b'{"a":1,"b":[2,"x",true,false,null,{}],"c":{"d":-7}}', True),
        (b'{"a":999999999999999999}', True),  # 18 digits
        (b'{"a":-999999999999999999}', True),
        (b'{"a":1000000000000000000}', False),  # 19: the pure path decides (canonical)
        (b'{"a":"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f"}', False),  # \u007f: not written
        (b'{"a":"\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f"}', True),
        (b'{"a":"\x7f\xc3\xa9\xe4\xb8\xad\xf0\x9f\x82\xa1\xf4\x8f\xbf\xbf"}', True),
        (b'{"a":"\\u001F"}', False),  # upper-case hex: not the encoder's
        (b'{"a":"\\u000a"}', False),  # the encoder writes \n
        (b'{"a":"\\u00e9"}', False),
        (b'{"a":"\\/"}', False),
        (b'{"a":"\x1f"}', False),  # a raw control character
        (b'{"a":"\xc0\x80"}', False),  # overlong
        (b'{"a":"\xe0\x80\x80"}', False),
        (b'{"a":"\xed\xa0\x80"}', False),  # a surrogate
        (b'{"a":"\xf4\x90\x80\x80"}', False),  # past U+10FFFF
        (b'{"a":"\xf0\x9f\x82"}', False),  # cut short
        (b'{"a":"\xff"}', False),
        (b'{"a":-0}', False),
        (b'{"a":01}', False),
        (b'{"a":1.0}', False),
        (b'{"a":1e5}', False),
        (b'{"a":-}', False),
        (b'{"b":1,"a":2}', False),
        (b'{"a":1,"a":1}', False),
        (b'{"a":1,"ab":2,"b":3}', True),
        (b'{"ab":1,"a":2}', False),
        (b'{"\xc3\xa9":1,"z":2}', False),  # é sorts after z
        (b'{"z":1,"\xc3\xa9":2}', True),
        (b'{"a\\n":1,"a!":2}', False),  # an escaped key: not compared here (canonical)
        (b'{"a": 1}', False),
        (b'{"a":1} ', False),
        (b'{"a":1}{}', False),
        (b'{"a":tru}', False),
        (b'{"a":nul}', False),
        (b'{"a":[1,]}', False),
        (b'{"a":1,}', False),
        (b'{"a"}', False),
        (b"[1]", False),  # not an object at the top
        (b'"a"', False),
        (b"{", False),
        (b"", False),
        (b'{"a":' + b"[" * 64 + b"]" * 64 + b"}", True),
        (b'{"a":' + b"[" * 65 + b"]" * 65 + b"}", False),  # deeper: the pure path decides
    ],
)
def test_edges(data: bytes, proven: bool) -> None:
    assert native.canonical_text(data) is proven
    assert _sound(data) is proven


def test_only_exact_bytes_are_read() -> None:
    assert native.canonical_text(bytearray(b"{}")) is False
    assert native.canonical_text("{}") is False


# ------------------------------------------------------------------ plain values


class _Str(str):
    pass


class _Int(int):
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


_odd = st.sampled_from([1.5, _Str("s"), _Int(2), _Dict(), b"x", object(), {1: 2}, {("k",): 1}])
_mixed = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**80), 2**80), st.text(max_size=4), _odd),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=4),
    ),
    max_leaves=15,
)


@settings(max_examples=500)
@given(_mixed)
def test_plain_value_is_the_pure_walk(value: Any) -> None:
    assert native.plain_value(value) is canonical._valid(value)


def test_plain_value_leaves_deep_values_to_the_pure_walk() -> None:
    deep: Any = 1
    for _ in range(64):
        deep = [deep]
    assert native.plain_value(deep) is True
    assert native.plain_value([deep]) is False  # 65 levels: not proven
    assert (
        canonical._valid([deep]) is True and canonical.dumps([deep]) == b"[" * 65 + b"1" + b"]" * 65
    )


# ------------------------------------------------------------------ event hash

_names = st.one_of(
    st.sampled_from(["h1", "b0_s1", "dealer", "k-2026", "玩家", "🂡", "", 'q"', "b\\s", "\n"]),
    st.text(max_size=12),
)


@settings(max_examples=500)
@given(
    _names,
    st.one_of(st.integers(-5, 10**6), st.integers(-(2**70), 2**70)),
    _names,
    _names,
    _names,
    st.binary(min_size=0, max_size=40),
    st.binary(max_size=300),
)
def test_event_hash_is_the_pure_hash(
    stream: str, seq: int, type_: str, producer: str, key_id: str, prev: bytes, payload: bytes
) -> None:
    got = native.event_hash(stream, seq, type_, producer, key_id, prev, payload)
    names = (stream, type_, producer, key_id)
    plain = all(not _has_surrogate(n) and not any(c < " " or c in '"\\' for c in n) for n in names)
    if not plain or not -(2**63) <= seq < 2**63:
        assert got is None
        return
    assert got == _event_hash(_header(stream, seq, type_, producer, key_id, prev), payload)


def test_event_hash_declines_what_it_does_not_take() -> None:
    args = ("s", 0, "t", "p", "k", bytes(32), b"{}")
    assert native.event_hash(*args) is not None
    for i, bad in [(1, True), (1, 2**63), (0, "\ud800"), (5, bytearray(32)), (6, "{}")]:
        assert native.event_hash(*args[:i], bad, *args[i + 1 :]) is None
    with pytest.raises(TypeError):
        native.event_hash(*args[:6])


# ------------------------------------------------------------------ events built natively

_fields = st.tuples(
    _names,
    st.integers(-(2**70), 2**70),
    _names,
    _names,
    _names,
    st.binary(max_size=40),
    st.binary(max_size=80),
    st.one_of(st.binary(max_size=40), st.none(), st.integers()),  # not checked, as __init__
)


@settings(max_examples=300)
@given(st.lists(_fields, max_size=10))
def test_events_built_natively_are_the_classs_own(rows: list[tuple[Any, ...]]) -> None:
    built = native.events_of(rows)
    assert built == [Event(*r) for r in rows] == [native.new_event(*r) for r in rows]
    assert native.events_of([list(r) for r in rows]) == built  # a row of any sequence type
    for e, r in zip(built, rows, strict=True):
        assert type(e) is Event and hash(e) == hash(Event(*r)) and repr(e) == repr(Event(*r))
        assert [getattr(e, f) for f in FIELDS] == list(r)
        assert pickle.loads(pickle.dumps(e)) == e
        with pytest.raises(dataclasses.FrozenInstanceError):
            e.seq = 1  # type: ignore[misc]
    assert events_mod.events_of_rows is native.events_of
    assert events_mod.event_of_fields is native.new_event


def test_a_row_that_is_not_an_events_fields_is_refused() -> None:
    r = ("h1", 0, "t", "p", "k", bytes(32), b"{}", bytes(32))
    with pytest.raises(TypeError):
        native.events_of([r[:7]])
    with pytest.raises(TypeError):
        native.events_of([r, 5])
    with pytest.raises(TypeError):
        native.events_of(5)
    with pytest.raises(TypeError):
        native.new_event(*r[:7])
    with pytest.raises(ValueError):
        native.bind_event(Event, tuple(FIELDS[:7]))
    with pytest.raises(TypeError):
        native.bind_event(
            Event,
            (
                "stream",
                "seq",
                "type",
                "producer",
                "key_id",
                "prev_hash",
                "payload_bytes",
                "payload",
            ),
        )  # a property, not a slot
    assert native.new_event(*r) == Event(*r)  # still bound to Event after the refusals


def test_native_events_are_collected() -> None:
    import gc
    import weakref

    class Box:
        pass

    box = Box()
    e = native.new_event("h1", 0, "t", "p", "k", bytes(32), b"{}", box)
    ref = weakref.ref(box)
    del box, e
    gc.collect()
    assert ref() is None


# ------------------------------------------------------------------ the chain


def _chain(stream: str, payloads: list[dict[str, Any]]) -> list[Event]:
    out: list[Event] = []
    prev = bytes(32)
    for i, p in enumerate(payloads):
        with pure():
            e = make_event(stream, i, f"t{i % 3}", "dealer", "dealer-1", prev, p)
        out.append(e)
        prev = e.hash
    return out


def _rehashed(e: Event, **change: Any) -> Event:
    """``e`` changed and hashed again by the pure path (a chain that is only wrong in
    what the change made wrong)."""
    d = {f: getattr(e, f) for f in FIELDS}
    d.update(change)
    d["hash"] = _event_hash(
        _header(d["stream"], d["seq"], d["type"], d["producer"], d["key_id"], d["prev_hash"]),
        d["payload_bytes"],
    )
    return Event(**d)


def _pure_verdict(evs: list[Event], parsed: list[Any] | None = None) -> Any:
    with pure():
        try:
            return ("ok", verify_chain(evs, parsed))
        except ChainError as e:
            return ("bad", str(e))


def _same_chain(evs: list[Event], parsed: list[Any] | None = None) -> bool:
    """verify_chain with the native path answers as without it; returns whether the
    native path proved the chain."""
    proven = native.chain_intact(evs, parsed is None)
    want = _pure_verdict(evs, parsed)
    if proven and parsed is None:
        assert want[0] == "ok", evs
    try:
        got: Any = ("ok", verify_chain(evs, parsed))
    except ChainError as e:
        got = ("bad", str(e))
    assert got == want
    return bool(proven)


_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.integers(-1000, 1000),
        st.text(st.characters(exclude_categories=["Cs"]), max_size=8),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)  # what a payload holds: JSON without floats, text without lone surrogates
_payloads = st.lists(
    st.dictionaries(st.sampled_from(["a", "b", "cards", "玩家", "a\n", "é"]), _json, max_size=4),
    min_size=1,
    max_size=8,
)
_MUTATIONS = [
    "none",
    "swap",
    "drop",
    "seq",
    "stream",
    "prev",
    "hash",
    "payload",
    "uncanonical",
    "list",
    "escaped",
    "bool_seq",
]


def _mutate(evs: list[Event], how: str, at: int) -> list[Event]:
    evs = list(evs)
    i = at % len(evs)
    e = evs[i]
    if how == "swap" and len(evs) > 1:
        j = (i + 1) % len(evs)
        evs[i], evs[j] = evs[j], evs[i]
    elif how == "drop" and len(evs) > 1:
        del evs[i]
    elif how == "seq":
        evs[i] = _rehashed(e, seq=e.seq + 1)
    elif how == "stream":
        evs[i] = _rehashed(e, stream=e.stream + "x")
    elif how == "prev":
        evs[i] = _rehashed(e, prev_hash=bytes(31) + b"\x01")
    elif how == "hash":
        evs[i] = Event(*[getattr(e, f) for f in FIELDS[:-1]], bytes(32))
    elif how == "payload":
        evs[i] = Event(*[getattr(e, f) for f in FIELDS[:-2]], e.payload_bytes + b" ", e.hash)
    elif how == "uncanonical":  # hashed right, but not canonical
        evs[i] = _rehashed(e, payload_bytes=e.payload_bytes.replace(b":", b": ", 1))
    elif how == "list":  # canonical, hashed right, not an object
        evs[i] = _rehashed(e, payload_bytes=b"[" + e.payload_bytes + b"]")
    elif how == "escaped":  # a producer JSON escapes: the native path declines
        evs = _relinked([*evs[:i], _rehashed(e, producer='dealer "2"'), *evs[i + 1 :]], i)
    elif how == "bool_seq" and e.seq == 1:
        evs[i] = _rehashed(e, seq=True)
    return evs


def _relinked(evs: list[Event], after: int) -> list[Event]:
    for k in range(after + 1, len(evs)):
        evs[k] = _rehashed(evs[k], prev_hash=evs[k - 1].hash)
    return evs


@settings(max_examples=400)
@given(_payloads, st.sampled_from(_MUTATIONS), st.integers(0, 100), st.booleans())
def test_chain_intact_is_proven_only_for_what_verify_chain_accepts(
    payloads: list[dict[str, Any]], how: str, at: int, with_parsed: bool
) -> None:
    evs = _mutate(_chain("h1", payloads), how, at)
    parsed = [canonical.loads(e.payload_bytes) for e in evs] if with_parsed else None
    if parsed is not None and how in ("payload", "uncanonical", "list"):
        parsed = None  # the parsed form is the decoder's: canonical by construction
    proven = _same_chain(evs, parsed)
    if how == "none":
        with pure():
            plain = all(canonical.is_canonical(e.payload_bytes) for e in evs)
        if plain and all(_plain(canonical.loads(e.payload_bytes)) for e in evs):
            assert proven


def test_an_intact_chain_is_proven_and_its_payloads_are_the_pure_ones() -> None:
    payloads = [{"cards": [{"card": "As", "pos": i}], "n": i, "玩家": "庄"} for i in range(8)]
    evs = _chain("h9", payloads)
    assert native.chain_intact(evs, True) is True
    assert verify_chain(evs) == payloads == _pure_verdict(evs)[1]
    assert verify_chain(evs, payloads) == payloads
    assert native.chain_intact([], True) is True and verify_chain([]) == []


@pytest.mark.parametrize("how", [m for m in _MUTATIONS if m not in ("none", "escaped")])
def test_each_break_is_not_proven_and_is_named_by_the_pure_path(how: str) -> None:
    evs = _mutate(_chain("h2", [{"a": i} for i in range(4)]), how, 1)
    assert native.chain_intact(evs, True) is False
    with pytest.raises(ChainError) as caught:
        verify_chain(evs)
    assert _pure_verdict(evs) == ("bad", str(caught.value))


def test_a_name_json_escapes_is_left_to_the_pure_path() -> None:
    evs = _mutate(_chain("h3", [{"a": i} for i in range(3)]), "escaped", 0)
    assert native.chain_intact(evs, True) is False
    assert verify_chain(evs) == [{"a": i} for i in range(3)]


def test_a_sequence_of_other_things_is_refused_as_python_would() -> None:
    with pytest.raises(AttributeError):
        native.chain_intact([object()], True)
    with pytest.raises(TypeError):
        native.chain_intact(5, True)
