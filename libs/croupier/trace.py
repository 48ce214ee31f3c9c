"""W3C trace context for a hand: one hand is one trace, dealer -> rules -> settlement.

The trace id of a hand is derived from its id: the first 16 bytes of SHA-256 of the
hand id (:func:`hand_trace_id`). Every hop computes the same id with nothing stored:
the messages of a hand are published later, by the outbox relay, outside the request
that produced them, and the outbox table has no column for headers (adding one would
take a migration for a value any hop can recompute).

Each published message is a span of that trace whose span id is derived from its
``Nats-Msg-Id`` (``hand:<id>``, ``outcome:<id>``, ``settled:<id>``): a new span id per
hop, the same one when a message is published again. :func:`traceparent_for_message`
gives the ``traceparent`` header the bus puts on every message it publishes.
"""

from __future__ import annotations

import hashlib
import re

VERSION = "00"
SAMPLED = "01"
_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


def hand_trace_id(hand_id: str) -> str:
    """The trace id (32 lowercase hex digits) of hand ``hand_id``."""
    return hashlib.sha256(hand_id.encode()).digest()[:16].hex()


def span_id(seed: str) -> str:
    """A span id (16 hex digits) derived from ``seed`` (never all zero)."""
    s = hashlib.sha256(b"span:" + seed.encode()).digest()[:8].hex()
    return s if s != "0" * 16 else "0" * 15 + "1"


def traceparent(trace_id: str, span: str, flags: str = SAMPLED) -> str:
    return f"{VERSION}-{trace_id}-{span}-{flags}"


def hand_traceparent(hand_id: str) -> str:
    """The ``traceparent`` of the dealer's opening of hand ``hand_id`` (the root span
    of the hand's trace, as a caller continuing the trace sees it)."""
    return traceparent(hand_trace_id(hand_id), span_id(f"open:{hand_id}"))


def hand_of_msg_id(msg_id: str) -> str | None:
    """The hand a message id names (``<kind>:<hand id>``, a hand id has no ``:``; a
    suffix after the hand id is ignored), or None."""
    parts = msg_id.split(":")
    return parts[1] if len(parts) >= 2 and parts[0] and parts[1] else None


def traceparent_for_message(msg_id: str) -> str | None:
    """The ``traceparent`` of a message of a hand: the hand's trace, a span of its own
    (None when the message id names no hand)."""
    hand = hand_of_msg_id(msg_id)
    if hand is None:
        return None
    return traceparent(hand_trace_id(hand), span_id(msg_id))


def trace_id_of(value: str | None) -> str | None:
    """The trace id of a ``traceparent`` value (None if absent, malformed, or the
    all-zero invalid id)."""
    m = _TRACEPARENT.match(value or "")
    if m is None or m.group(1) == "ff" or set(m.group(2)) == {"0"}:
        return None
    return m.group(2)
