"""From a finished hand to money: the settlement record, the ``hand.settled`` payload and
the ledger postings. Pure; the settlement service persists what this returns and the
auditor recomputes it bit for bit.

Accounts: ``player:<id>`` for each player, ``house:<variant>`` for the house bank (the
counterparty of banked games; it also absorbs truncated fractions), ``rake:<variant>``
for rake revenue. A hand's postings are the net deltas and sum to exactly zero.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from croupier.accel import maker, sha256
from croupier.errors import MoneyError
from croupier.games.base import Engine, HandState
from croupier.money.record import RECORD_VERSION, RECORD_VERSIONS, SettlementResult

HOUSE = "house"


def recorded_version(record_bytes: bytes | None) -> int:
    """The settlement record version a stored record (canonical JSON) was written with:
    a hand is rebuilt, audited and shown at that version. The current version when
    there is no record or it names none this code knows (a comparison then fails)."""
    if record_bytes is None:
        return RECORD_VERSION
    try:
        try:
            doc = orjson.loads(record_bytes)
        except orjson.JSONDecodeError:  # NaN, lone surrogates, ...: as the standard parser
            doc = json.loads(record_bytes)
        version = doc.get("record_version")
    except (ValueError, AttributeError):
        return RECORD_VERSION
    if isinstance(version, int) and not isinstance(version, bool) and version in RECORD_VERSIONS:
        return version
    return RECORD_VERSION


@dataclass(frozen=True, slots=True)
class HandSettlement:
    hand_id: str
    variant: str
    record_bytes: bytes  # canonical JSON of the kernel's record (steps, deltas, rake)
    record_hash: str
    postings: tuple[tuple[str, int], ...]
    rake: int
    staked: int
    returned: int
    result: SettlementResult  # what the kernel settled
    record_version: int  # the version ``record_bytes`` is written at

    @property
    def record(self) -> dict[str, Any]:
        """The settlement kernel's record as a value, its keys in the kernel's order (a
        history reads them in that order), built when asked for (each call a new value):
        the hot path stores and hashes :attr:`record_bytes` and never needs it."""
        return self.result.to_json_dict(self.record_version)

    def settled_payload(self) -> dict[str, Any]:
        return {
            "record_hash": self.record_hash,
            "postings": [[a, n] for a, n in self.postings],
            "rake": self.rake,
        }

    @property
    def pvp_turnover(self) -> int | None:
        """For a hand played player against player (the house no participant: no house
        stake, so no RTP), the money that changed hands: what the losing players paid,
        in minor units; ``None`` for a hand against the house."""
        deltas = self.result.deltas
        if HOUSE in deltas:
            return None
        return sum(-d for d in deltas.values() if d < 0)

    @property
    def idempotency_key(self) -> str:
        return f"settle:{self.hand_id}"


_new_settlement = maker(HandSettlement)


def account_for(participant: str, variant: str) -> str:
    if participant == HOUSE:
        return f"house:{variant}"
    return f"player:{participant}"


def postings_for(deltas: Mapping[str, int], rake: int, variant: str) -> tuple[tuple[str, int], ...]:
    lines: dict[str, int] = {}
    for who, d in deltas.items():
        acc = account_for(who, variant)
        lines[acc] = lines.get(acc, 0) + d
    if rake:
        lines[f"rake:{variant}"] = lines.get(f"rake:{variant}", 0) + rake
    # Every participant keeps a line, zero included: a hand that moves no money (a push,
    # a coup without bets) is still settled once, with a transaction that says so.
    out = tuple(sorted(lines.items())) or ((account_for(HOUSE, variant), 0),)
    if sum(lines.values()) != 0:
        raise MoneyError(f"postings do not balance: {out}")
    return out


def settle_state(
    engine: Engine[Any], state: HandState, record_version: int = RECORD_VERSION
) -> HandSettlement:
    """``record_version``: the settlement record version to write (the auditor passes
    the one a hand was recorded with)."""
    return settlement_of(engine.settlement(state), state.hand_id, engine.variant, record_version)


def settlement_of(
    result: SettlementResult, hand_id: str, variant: str, record_version: int = RECORD_VERSION
) -> HandSettlement:
    """The settlement of hand ``hand_id`` of ``variant`` that the kernel settled as
    ``result`` (:func:`settle_state`)."""
    body = result.record_body(record_version)
    rake = int(result.total_rake)
    return _new_settlement(  # HandSettlement's fields in order
        hand_id,
        variant,
        body,
        sha256(body).hex(),
        postings_for(result.deltas, rake, variant),
        rake,
        sum(result.staked.values()),
        # returned: a loss beyond the stake (百人 multipliers) is no negative payout,
        # count what is paid back
        sum([v for v in result.returned.values() if v > 0]),
        result,
        record_version,
    )


def settle_events(
    engine: Engine[Any], hand_id: str, events: Sequence[tuple[str, Mapping[str, Any]]]
) -> HandSettlement:
    state = engine.replay(hand_id, events)
    engine.close_check(state)
    return settle_state(engine, state)
