"""Limits at the edge: what a gateway request may hold, checked before anything else.

Every string a client sends has a length and a character set, every number a range,
every list a size; ``args_json`` has a byte size and a nesting depth. A request outside
them is refused with :class:`~croupier.errors.FieldRejected` (``INVALID_ARGUMENT``), whose
``reason`` says which limit and whose ``field`` names the offending field — and whose
message never repeats the offending value unless it is short and printable, so an error
never echoes unbounded input. Nothing is written for a refused request.

The same numbers are documented in ``proto/croupier/v1/gateway.proto`` (and the README's
"Request ids and edge limits" section); ``tests/unit/test_limits.py`` pins them.

The rules of each game check the rest (known spots, stake minima and maxima, whose turn it
is); these limits only keep what reaches the rules, the log and the ledger bounded and
printable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from croupier import canonical
from croupier.errors import FieldRejected, InvalidInput

TABLE_ID = re.compile(r"[A-Za-z0-9_]{1,40}")
"""Table ids: 1-40 characters of ``A-Z a-z 0-9 _`` (hand and shoe ids derive from them)."""
HAND_ID = re.compile(r"[A-Za-z0-9_]{1,64}")
"""Hand ids as the dealer makes them (``<table>_h<n>``)."""
VARIANT = re.compile(r"[a-z0-9_.]{1,64}")
PLAYER_ID = re.compile(r"[A-Za-z0-9_.:@-]{1,64}")
"""Player (ledger account) ids: 1-64 characters of ``A-Z a-z 0-9 _ . : @ -``."""
NAME = re.compile(r"[A-Za-z0-9_.:-]{1,32}")
"""Bet spots and action names: 1-32 characters of ``A-Z a-z 0-9 _ . : -``."""
REQUEST_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
"""Request ids: 1-128 characters of ``A-Z a-z 0-9 _ . : -`` (a UUID fits)."""

MAX_CLIENT_SEED = 128
"""Longest client seed, in characters (any printable text; no control characters)."""
MAX_SEAT = 999
"""Seat numbers are 0..999."""
MAX_SEATS = 1000
"""Most seats in one hand (a variant's own ``seats.max`` is usually far lower)."""
MAX_STACK = 10**15
"""Largest stake a seat brings to a hand, in minor units (10 trillion points)."""
MAX_AMOUNT = 10**15
"""Largest single bet, in minor units."""
MAX_BETS = 500
"""Most bets in one PlaceBets call (a larger list is sent in several calls: a seat's
stake on a spot is cumulative)."""
MAX_ARGS_BYTES = 4096
"""Largest ``args_json``, in UTF-8 bytes."""
MAX_ARGS_DEPTH = 6
"""Deepest nesting of arrays and objects in ``args_json``."""
MAX_ARGS_STRING = 256
"""Longest string (key or value) inside ``args_json``."""
MAX_JSON_INT = 2**53 - 1
"""Largest integer (in absolute value) inside ``args_json`` (exact in every JSON
implementation)."""
MAX_SEQ = 2**31 - 1
"""Largest ``expected_seq``."""

_SHOWN = 64
"""A refused value is quoted in the message only when at most this long and printable."""


def _printable(s: str) -> bool:
    return s.isprintable()


def _shown(value: str) -> str:
    """A refused string as the message may quote it (bounded, no control characters)."""
    if len(value) <= _SHOWN and _printable(value):
        return f" {value!r}"
    return ""


def check_name(field: str, value: str, pattern: re.Pattern[str], what: str) -> str:
    """``value`` if it matches ``pattern`` in full; else :class:`FieldRejected` with reason
    ``too_long``, ``empty`` or ``bad_characters``."""
    if pattern.fullmatch(value):
        return value
    longest = _longest(pattern)
    if not value:
        raise FieldRejected(f"{field} is empty; {what}", reason="empty", field=field)
    if len(value) > longest:
        raise FieldRejected(
            f"{field} is {len(value)} characters, at most {longest}; {what}",
            reason="too_long",
            field=field,
            limit=longest,
        )
    raise FieldRejected(
        f"{field}{_shown(value)} has characters outside the allowed set; {what}",
        reason="bad_characters",
        field=field,
    )


def _longest(pattern: re.Pattern[str]) -> int:
    m = re.search(r"\{\d+,(\d+)\}", pattern.pattern)
    assert m is not None
    return int(m.group(1))


def check_text(field: str, value: str, longest: int) -> str:
    """Free text (a client seed): at most ``longest`` characters, none a control
    character."""
    if len(value) > longest:
        raise FieldRejected(
            f"{field} is {len(value)} characters, at most {longest}",
            reason="too_long",
            field=field,
            limit=longest,
        )
    if not _printable(value):
        raise FieldRejected(
            f"{field} holds a control or unprintable character",
            reason="bad_characters",
            field=field,
        )
    return value


def check_int(field: str, value: int, low: int, high: int, reason: str = "out_of_range") -> int:
    if not low <= value <= high:
        raise FieldRejected(
            f"{field} must be in {low}..{high}; got {value}",
            reason=reason,
            field=field,
            limit=high,
        )
    return value


def table_id(value: str, field: str = "table_id") -> str:
    return check_name(field, value, TABLE_ID, "table id must be 1-40 characters of A-Z a-z 0-9 _")


def hand_id(value: str, field: str = "hand_id") -> str:
    return check_name(field, value, HAND_ID, "a hand id is 1-64 characters of A-Z a-z 0-9 _")


def variant(value: str, field: str = "variant") -> str:
    return check_name(field, value, VARIANT, "a variant id is 1-64 characters of a-z 0-9 _ .")


def client_seed(value: str, field: str = "client_seed") -> str:
    return check_text(field, value, MAX_CLIENT_SEED)


def request_id(value: str, field: str = "request_id") -> str:
    return check_name(
        field, value, REQUEST_ID, "a request id is 1-128 characters of A-Z a-z 0-9 _ . : -"
    )


def seat(value: int, field: str = "seat") -> int:
    return check_int(field, value, 0, MAX_SEAT)


def expected_seq(value: int, field: str = "expected_seq") -> int:
    return check_int(field, value, 0, MAX_SEQ)


@dataclass(frozen=True)
class SeatIn:
    seat: int
    player: str
    stack: int


def seat_count(n: int, max_seats: int | None = None) -> int:
    """At most ``max_seats`` seats (the variant's own limit), never over :data:`MAX_SEATS`."""
    most = min(MAX_SEATS, max_seats) if max_seats is not None else MAX_SEATS
    if n > most:
        raise FieldRejected(
            f"{n} seats; this table seats at most {most}",
            reason="too_many_seats",
            field="seats",
            limit=most,
        )
    return n


def seats(rows: Sequence[SeatIn], max_seats: int | None = None) -> list[SeatIn]:
    """The seats of an OpenHand: at most ``max_seats`` (see :func:`seat_count`), each a
    seat number, a player id and a stack within their limits."""
    seat_count(len(rows), max_seats)
    for i, r in enumerate(rows):
        seat(r.seat, f"seats[{i}].seat")
        check_name(
            f"seats[{i}].player_id",
            r.player,
            PLAYER_ID,
            "a player id is 1-64 characters of A-Z a-z 0-9 _ . : @ -",
        )
        check_int(f"seats[{i}].stack_minor", r.stack, 0, MAX_STACK, reason="bad_stack")
    return list(rows)


@dataclass(frozen=True)
class BetIn:
    seat: int
    spot: str
    amount: int


def bets(rows: Sequence[BetIn]) -> list[BetIn]:
    """The bets of one PlaceBets call: at most :data:`MAX_BETS`, each on a seat number, a
    spot name and a positive amount of at most :data:`MAX_AMOUNT` minor units."""
    if len(rows) > MAX_BETS:
        raise FieldRejected(
            f"{len(rows)} bets in one call; at most {MAX_BETS} (send the rest in another call)",
            reason="too_many_bets",
            field="bets",
            limit=MAX_BETS,
        )
    for i, b in enumerate(rows):
        seat(b.seat, f"bets[{i}].seat")
        check_name(
            f"bets[{i}].spot", b.spot, NAME, "a spot is 1-32 characters of A-Z a-z 0-9 _ . : -"
        )
        if not 0 < b.amount <= MAX_AMOUNT:
            raise FieldRejected(
                f"bets[{i}].amount_minor must be a positive integer of at most {MAX_AMOUNT}; "
                f"got {b.amount}",
                reason="bad_amount",
                field=f"bets[{i}].amount_minor",
                limit=MAX_AMOUNT,
            )
    return list(rows)


def action(value: str, field: str = "action") -> str:
    return check_name(field, value, NAME, "an action is 1-32 characters of A-Z a-z 0-9 _ . : -")


def args_json(text: str, field: str = "args_json") -> dict[str, Any]:
    """Parse an action's arguments: a JSON object of at most :data:`MAX_ARGS_BYTES`
    bytes and :data:`MAX_ARGS_DEPTH` levels, whose strings are printable and at most
    :data:`MAX_ARGS_STRING` characters and whose numbers are integers of at most
    :data:`MAX_JSON_INT`. Empty means ``{}``."""
    raw = text or "{}"
    size = len(raw.encode())
    if size > MAX_ARGS_BYTES:
        raise FieldRejected(
            f"{field} is {size} bytes, at most {MAX_ARGS_BYTES}",
            reason="json_too_large",
            field=field,
            limit=MAX_ARGS_BYTES,
        )
    if _depth(raw) > MAX_ARGS_DEPTH:
        raise FieldRejected(
            f"{field} nests deeper than {MAX_ARGS_DEPTH} levels",
            reason="json_too_deep",
            field=field,
            limit=MAX_ARGS_DEPTH,
        )
    try:
        value = canonical.loads(raw)
    except (ValueError, InvalidInput) as e:
        raise FieldRejected(
            f"{field} is not valid JSON: {str(e)[:120]}", reason="bad_json", field=field
        ) from e
    if not isinstance(value, dict):
        raise FieldRejected(f"{field} must be a JSON object", reason="bad_json", field=field)
    _walk(value, field)
    return value


def _depth(text: str) -> int:
    """Deepest nesting of ``[`` and ``{`` outside strings (counted before parsing, so a
    deeply nested document never reaches the parser's recursion)."""
    depth = most = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
        elif ch in "]}":
            depth -= 1
    return most


def _walk(value: Any, field: str) -> None:
    if isinstance(value, str):
        if len(value) > MAX_ARGS_STRING or not _printable(value):
            raise FieldRejected(
                f"{field} holds a string longer than {MAX_ARGS_STRING} characters or with "
                "control characters",
                reason="bad_characters",
                field=field,
            )
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if abs(value) > MAX_JSON_INT:
            raise FieldRejected(
                f"{field} holds an integer beyond ±{MAX_JSON_INT}",
                reason="out_of_range",
                field=field,
                limit=MAX_JSON_INT,
            )
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _walk(k, field)
            _walk(v, field)
    elif isinstance(value, list):
        for v in value:
            _walk(v, field)
