"""What a viewer may see of a hand: redaction of face-down cards and conversion to the
protobuf envelope. The server seed never appears in an event before ``shoe.revealed``,
and cards not yet dealt are in no event at all, so redaction only has to hide face-down
cards from everyone but their owner until the rules turn them up."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from croupier.events import Event
from croupier.games import base as g
from croupier.pb.croupier.v1 import envelope_pb2

HIDDEN = "??"


def _visible_to(entry: dict[str, Any], seat: int | None, revealed: set[str]) -> bool:
    if entry.get("up", True):
        return True
    to = str(entry.get("to", ""))
    return (seat is not None and to == f"seat:{seat}") or to in revealed


def redact(
    events: Iterable[Event],
    seat: int | None,
    shown: Iterable[str] = (),
    private: Callable[[str], frozenset[str]] | None = None,
) -> list[envelope_pb2.Event]:
    """Events as ``seat`` (None: the public) may see them; ``shown`` are further targets
    whose face-down cards the rules let this viewer see (:meth:`Engine.visible_to`),
    ``private`` names an action's arguments only its seat sees until the hand closes
    (:meth:`Engine.private_args`). A redacted event keeps its hash (so a client can
    later check it against the revealed log) but shows ``??``."""
    evs = list(events)
    revealed = {str(e.payload.get("to")) for e in evs if e.type == g.CARDS_REVEALED}
    revealed |= set(shown)
    closed = any(e.type == g.HAND_CLOSED for e in evs)
    out = []
    for e in evs:
        payload_json = e.payload_bytes.decode()
        if e.type == g.ACTION_TAKEN and private is not None and not closed:
            p = e.payload
            hide = private(str(p.get("action"))) & set(p.get("args", {}))
            if hide and p.get("seat") != seat:
                p["args"] = {k: HIDDEN if k in hide else v for k, v in p["args"].items()}
                p["redacted"] = True
                payload_json = json.dumps(p, sort_keys=True, separators=(",", ":"))
        if e.type == g.CARD_DEALT:
            p = e.payload
            cards = p["cards"]
            if not all(_visible_to(c, seat, revealed) for c in cards):
                p["cards"] = [
                    c if _visible_to(c, seat, revealed) else {**c, "card": HIDDEN} for c in cards
                ]
                p["redacted"] = True
                payload_json = json.dumps(p, sort_keys=True, separators=(",", ":"))
        out.append(to_pb(e, payload_json))
    return out


def redact_public(
    events: list[Event], private: Callable[[str], frozenset[str]] | None = None
) -> list[Event]:
    """Events whose public form is the event itself; face-down cards and actions with
    private arguments (``private``: :meth:`Engine.private_args`) are withheld from the
    table feed entirely (a seat sees its own through GetHandView)."""
    out = []
    for e in events:
        if e.type == g.CARD_DEALT and not all(c.get("up", True) for c in e.payload["cards"]):
            continue
        hidden = private(str(e.payload.get("action"))) if private is not None else frozenset()
        if e.type == g.ACTION_TAKEN and hidden & set(e.payload.get("args", {})):
            continue
        out.append(e)
    return out


def to_pb(e: Event, payload_json: str | None = None) -> envelope_pb2.Event:
    return envelope_pb2.Event(
        stream=e.stream,
        seq=e.seq,
        type=e.type,
        producer=e.producer,
        key_id=e.key_id,
        prev_hash=e.prev_hash,
        hash=e.hash,
        payload_json=payload_json if payload_json is not None else e.payload_bytes.decode(),
    )
