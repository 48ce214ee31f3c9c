"""The bytes of a bus message: one batch of events with the seals that cover them.

A message is canonical-free JSON ``{"kind", "events": [...], "seals": [...]}``; each
event is rebuilt byte-exactly from it (payloads re-serialised canonically) and its hash
is checked by the consumer, so the transport encoding is not trusted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from croupier.errors import InvalidInput
from croupier.events import Event, Seal


@dataclass(frozen=True, slots=True)
class Message:
    kind: str  # "hand" | "shoe" | "outcome" | "settled"
    events: tuple[Event, ...]
    seals: tuple[Seal, ...]


def encode(kind: str, events: Sequence[Event], seals: Sequence[Seal]) -> bytes:
    body: dict[str, Any] = {
        "kind": kind,
        "events": [e.to_json_dict() for e in events],
        "seals": [s.to_json_dict() for s in seals],
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def decode(data: bytes) -> Message:
    try:
        d = json.loads(data)
        return Message(
            str(d["kind"]),
            tuple(Event.from_json_dict(e) for e in d["events"]),
            tuple(Seal.from_json_dict(s) for s in d["seals"]),
        )
    except (ValueError, KeyError, TypeError) as e:
        raise InvalidInput(f"malformed bus message: {e}") from e
