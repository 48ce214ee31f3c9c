"""``Event.from_json_dict`` sets the slots of an event whose fields have their exact
types directly (the bus decoder rebuilds every event of every hand with it); the result,
or the error, is the same as the dataclass constructor's with the conversions it had
before (kept here verbatim as the oracle), for any mapping: exact types, subclasses,
numbers as strings, booleans, missing keys, bad hex, payloads canonical JSON refuses."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.errors import InvalidInput
from croupier.events import GENESIS, Event, make_event


def reference(d: Mapping[str, Any]) -> Event:
    try:
        return Event(
            stream=str(d["stream"]),
            seq=int(d["seq"]),
            type=str(d["type"]),
            producer=str(d["producer"]),
            key_id=str(d["key_id"]),
            prev_hash=bytes.fromhex(d["prev"]),
            payload_bytes=canonical.dumps(d["payload"]),
            hash=bytes.fromhex(d["hash"]),
        )
    except (KeyError, ValueError, TypeError) as e:
        raise InvalidInput(f"malformed event: {e}") from e


class Text(str):
    pass


class Kind(str, enum.Enum):  # noqa: UP042 - str() is "Kind.BET", not the value
    BET = "bet.placed"


def outcome(f: Any, d: Mapping[str, Any]) -> tuple[str, Any]:
    try:
        e = f(d)
    except Exception as err:  # the error itself is compared
        return type(err).__name__, str(err)
    return "ok", (e, type(e), [type(getattr(e, n)) for n in e.__slots__])


texts = st.one_of(
    st.text(max_size=8),
    st.text(max_size=8).map(Text),
    st.just(Kind.BET),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
)
ints = st.one_of(st.integers(-(2**70), 2**70), st.booleans(), st.text("0123456789-", max_size=4))
hexes = st.one_of(
    st.binary(min_size=0, max_size=33).map(bytes.hex),
    st.just("zz"),
    st.just(" 00 "),
    st.integers(),
    st.none(),
)
json_values = st.recursive(
    st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none(), st.floats()),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = {
    "stream": texts,
    "seq": ints,
    "type": texts,
    "producer": texts,
    "key_id": texts,
    "prev": hexes,
    "hash": hexes,
    "payload": json_values,
}


@st.composite
def mappings(draw: st.DrawFn) -> dict[str, Any]:
    d = {k: draw(v) for k, v in FIELDS.items()}
    for k in draw(st.sets(st.sampled_from(sorted(FIELDS)), max_size=2)):
        del d[k]
    return d


@settings(max_examples=3000)
@given(mappings())
def test_any_mapping_rebuilds_as_the_constructor_did(d: dict[str, Any]) -> None:
    assert outcome(Event.from_json_dict, d) == outcome(reference, d)


def test_a_real_event_rebuilds_equal_and_whole() -> None:
    e = make_event("h1", 0, "hand.opened", "dealer", "dealer-k1", GENESIS, {"b": [1, "x"]})
    d = e.to_json_dict()
    rebuilt = Event.from_json_dict(d)
    assert rebuilt == e == reference(d)
    assert hash(rebuilt) == hash(e)
    assert rebuilt.recompute_hash() == e.hash
    assert type(rebuilt) is Event
