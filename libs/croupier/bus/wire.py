"""The bytes of a bus message: one batch of events with the seals that cover them.

A message is canonical-free JSON ``{"kind", "events": [...], "seals": [...]}``; each
event is rebuilt byte-exactly from it (payloads re-serialised canonically) and its hash
is checked by the consumer, so the transport encoding is not trusted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from croupier.errors import InvalidInput
from croupier.events import Event, Seal


@dataclass(frozen=True, slots=True)
class Message:
    kind: str  # "hand" | "shoe" | "outcome" | "settled"
    events: tuple[Event, ...]
    seals: tuple[Seal, ...]
    # the events' payloads as parsed: by the decoder, which built each event's bytes as
    # their canonical encoding, then as the chain check returned them (None: parse
    # ``e.payload``)
    payloads: tuple[dict[str, Any], ...] | None = field(default=None, compare=False, repr=False)

    def parsed_payloads(self) -> list[dict[str, Any]]:
        """Each event's payload, parsed once: the chain check's parse when it ran."""
        if self.payloads is not None:
            return list(self.payloads)
        return [e.payload for e in self.events]


def _event(e: Event) -> dict[str, Any]:
    # the payload travels as its stored canonical bytes, spliced in unparsed: the same
    # bytes the standard library would write for the parsed payload (keys sorted, compact)
    return {**e.json_header(), "payload": orjson.Fragment(e.payload_bytes)}


def encode(kind: str, events: Sequence[Event], seals: Sequence[Seal]) -> bytes:
    """The message: ``events`` and, of each seal, what covers them — a version-2 seal
    only with its entries naming the message's streams and their audit paths (a seal
    naming none of them is left out), a version-1 seal whole."""
    streams = {e.stream for e in events}
    parts = [s.part_for(streams) for s in seals]
    seal_dicts = [p.to_json_dict() for p in parts if p is not None]
    try:
        return orjson.dumps(
            {"kind": kind, "events": [_event(e) for e in events], "seals": seal_dicts}
        )
    except TypeError:  # what orjson declines (an integer beyond 64 bits): the standard library
        body = {"kind": kind, "events": [e.to_json_dict() for e in events], "seals": seal_dicts}
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


class _Seals:
    """Seals already rebuilt from messages, reused when a message carries one again.

    A version-1 batch seal covers up to hundreds of hands and travels whole in each of
    their messages; rebuilding its entries every time is most of a consumer's decode. (A
    version-2 seal travels in part, a few entries and paths: it is rebuilt each time.) The
    reuse is keyed
    on the seal's whole content — producer, key id, time, signature and every entry, the
    entries compared as parsed — so a seal with any field changed is rebuilt (and then
    verified) as new; a copied signature over other entries never matches."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self.kept: dict[tuple[str, str, int, str], tuple[list[Any], Seal]] = {}

    def get(self, d: Any) -> Seal:
        try:
            if "paths" in d:
                return Seal.from_json_dict(d)
            key = (d["producer"], d["key_id"], d["sealed_at_ms"], d["signature"])
            entries = d["entries"]
            hit = self.kept.get(key)  # TypeError: a part is not hashable
        except (KeyError, TypeError):  # not a mapping, a part missing or unhashable
            return Seal.from_json_dict(d)  # words the error
        if hit is not None and hit[0] == entries:
            return hit[1]
        s = Seal.from_json_dict(d)
        if len(self.kept) >= self.size:
            del self.kept[next(iter(self.kept))]
        self.kept[key] = (entries, s)
        return s


_SEALS = _Seals()


def _message(d: Any, by_orjson: bool) -> Message:
    # each event's bytes are the canonical encoding of the payload parsed here, so the
    # parse travels with the message (the chain check need not parse the bytes again);
    # what orjson parsed holds JSON's types only, which the encoding checks more cheaply
    raw = d["events"]
    return Message(
        str(d["kind"]),
        tuple(Event.from_json_dict(e, json_types_only=by_orjson) for e in raw),
        tuple(_SEALS.get(s) for s in d["seals"]),
        tuple(e["payload"] for e in raw),
    )


def decode(data: bytes) -> Message:
    try:
        try:
            return _message(orjson.loads(data), True)
        except (ValueError, InvalidInput):
            # orjson declines NaN and turns integers beyond 64 bits into floats (which
            # canonical JSON refuses): the standard library's parse decides then
            return _message(json.loads(data), False)
    except (ValueError, KeyError, TypeError) as e:
        raise InvalidInput(f"malformed bus message: {e}") from e
