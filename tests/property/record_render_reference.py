"""The settlement record's rendering as it was before it was reworked to cost less, kept
verbatim (each record class's ``to_json_dict``, ``fraction_text``, and
``croupier.settlement.settle_state`` with ``postings_for`` and
``HandSettlement.settled_payload``) as the
oracle the current code is compared with: every record dict, record bytes, record hash,
``hand.settled`` payload and posting must be the very one this code gives. Each method
is a function here, of the object it rendered (``self``); a nested object's
``to_json_dict()`` is :func:`render` of it. Not to be edited: it is what "unchanged"
means."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from croupier import canonical
from croupier.errors import InvalidInput, MoneyError
from croupier.games.base import Engine, HandState
from croupier.money.record import (
    RECORD_VERSION,
    RECORD_VERSIONS,
    CapAdjustment,
    CapStep,
    ClaimLine,
    JsonDict,
    LiabilityStep,
    PaidLine,
    PaymentLine,
    PotRecord,
    PotsStep,
    RakeStep,
    RakeUnitStep,
    RoundingStep,
    SettlementResult,
    SpotLine,
    TheoreticalStep,
)
from croupier.money.units import Number
from croupier.settlement import HOUSE


def fraction_text(value: Number) -> str:
    """A ``Fraction`` (or ``int``) as ``"num/den"``, the form the settlement record uses
    for every exact value, e.g. ``"25/2"``, ``"3/1"``. Stable: always reduced."""
    if type(value) is Fraction:  # already reduced; skips the conversion (hot in records)
        return f"{value.numerator}/{value.denominator}"
    if type(value) is int:
        return f"{value}/1"
    f = Fraction(value)
    return f"{f.numerator}/{f.denominator}"


def _nets_json(nets: tuple[tuple[str, Fraction], ...]) -> JsonDict:
    return {who: fraction_text(v) for who, v in nets}


def _ints_json(pairs: tuple[tuple[str, int], ...]) -> JsonDict:
    return {who: v for who, v in pairs}


def claim_line(self: ClaimLine) -> JsonDict:
    return {
        "payer": self.payer,
        "payee": self.payee,
        "spot": self.spot,
        "base": self.base,
        "factors": [fraction_text(f) for f in self.factors],
        "amount": fraction_text(self.amount),
    }


def payment_line(self: PaymentLine) -> JsonDict:
    return {
        "payer": self.payer,
        "payee": self.payee,
        "spot": self.spot,
        "amount": fraction_text(self.amount),
    }


def paid_line(self: PaidLine) -> JsonDict:
    return {
        "payer": self.payer,
        "payee": self.payee,
        "spot": self.spot,
        "exact": fraction_text(self.exact),
        "paid": self.paid,
    }


def theoretical_step(self: TheoreticalStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "claims": [render(c) for c in self.claims],
        "nets": _nets_json(self.nets),
    }


def cap_adjustment(self: CapAdjustment) -> JsonDict:
    return {
        "payer": self.payer,
        "payee": self.payee,
        "spot": self.spot,
        "multiple_before": fraction_text(self.multiple_before),
        "multiple_after": fraction_text(self.multiple_after),
        "amount_before": fraction_text(self.amount_before),
        "amount_after": fraction_text(self.amount_after),
    }


def cap_step(self: CapStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "limit": self.limit,
        "adjustments": [render(a) for a in self.adjustments],
    }


def liability_step(self: LiabilityStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "before": _nets_json(self.before),
        "after": _nets_json(self.after),
        "changed": list(self.changed),
        "payments": [render(p) for p in self.payments],
        "note": self.note,
    }


def rounding_step(self: RoundingStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "unit": self.unit,
        "payments": [render(p) for p in self.payments],
        "kept_by_payers": _nets_json(self.kept_by_payers),
    }


def pot_record(self: PotRecord) -> JsonDict:
    return {
        "index": self.index,
        "name": "main" if self.index == 0 else f"side{self.index}",
        "amount": self.amount,
        "level": self.level,
        "contributions": _ints_json(self.contributions),
        "eligible": list(self.eligible),
        "winners": list(self.winners),
        "shares": _ints_json(self.shares),
        "odd_units": list(self.odd_units),
    }


def pots_step(self: PotsStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "odd_unit_rule": self.odd_unit_rule,
        "contributed": _ints_json(self.contributed),
        "folded": list(self.folded),
        "uncalled_returned": _ints_json(self.returned),
        "pots": [render(p) for p in self.pots],
    }


def rake_unit_step(self: RakeUnitStep) -> JsonDict:
    return {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "rate": fraction_text(self.rate),
        "winner": self.winner,
        "against": self.against,
        "spot": self.spot,
        "won": self.won,
        "rake": self.rake,
    }


def rake_step(self: RakeStep) -> JsonDict:
    out: JsonDict = {
        "step": self.kind.value,
        "rule": self.rule,
        "source": self.source,
        "rate": fraction_text(self.rate),
        "exempt": list(self.exempt),
        "profits": _ints_json(self.profits),
        "rakes": _ints_json(self.rakes),
    }
    if self.cap is not None:
        out["cap"] = self.cap
    if self.basis:
        out["basis"] = self.basis
        out["own_spots"] = list(self.own_spots)
        out["limits"] = _ints_json(self.limits)
    return out


def spot_line(self: SpotLine) -> JsonDict:
    return {"participant": self.participant, "spot": self.spot, "amount": self.amount}


def settlement_result(self: SettlementResult, version: int = RECORD_VERSION) -> JsonDict:
    """The record as ``int``/``str``/``list``/``dict`` only; exact fractions are
    ``"num/den"``. Keys are stable; serialise canonically (sorted keys) to compare.
    ``version``: the record version to write (the auditor rebuilds a hand's record
    with the version it was recorded with)."""
    if version not in RECORD_VERSIONS:
        raise InvalidInput(f"unknown settlement record version {version!r}")
    listed = version >= self.stakes_since
    staked = self.staked if listed else {}
    returned = self.returned if listed else {}
    return {
        "record_version": version,
        "hand_id": self.hand_id,
        "participants": list(self.participants),
        "deltas": {p: self.deltas[p] for p in self.participants},
        "rake": {p: self.rake[p] for p in self.participants},
        "total_rake": self.total_rake,
        "staked": {p: v for p, v in staked.items()},
        "returned": {p: v for p, v in returned.items()},
        "spots": [render(s) for s in self.spots],
        "pots": [render(p) for p in self.pots],
        "steps": [render(s) for s in self.steps],
    }


_RENDER: dict[type, Callable[[Any], JsonDict]] = {
    ClaimLine: claim_line,
    PaymentLine: payment_line,
    PaidLine: paid_line,
    TheoreticalStep: theoretical_step,
    CapAdjustment: cap_adjustment,
    CapStep: cap_step,
    LiabilityStep: liability_step,
    RoundingStep: rounding_step,
    PotRecord: pot_record,
    PotsStep: pots_step,
    RakeUnitStep: rake_unit_step,
    RakeStep: rake_step,
    SpotLine: spot_line,
    SettlementResult: settlement_result,
}


def render(obj: Any) -> JsonDict:
    """``obj.to_json_dict()`` as it was."""
    return _RENDER[type(obj)](obj)


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
    if sum(n for _, n in out) != 0:
        raise MoneyError(f"postings do not balance: {out}")
    return out


@dataclass(frozen=True)
class Settled:
    """What ``settle_state`` gave, and the ``hand.settled`` payload's bytes."""

    record: dict[str, Any]
    record_bytes: bytes
    record_hash: str
    postings: tuple[tuple[str, int], ...]
    rake: int
    staked: int
    returned: int
    settled_payload: dict[str, Any]
    settled_bytes: bytes


def settle_state(
    engine: Engine[Any], state: HandState, record_version: int = RECORD_VERSION
) -> Settled:
    """``croupier.settlement.settle_state`` as it was, of the engine's settlement."""
    result = engine.settle(state)
    return settled_from(result, engine.variant, record_version)


def settled_from(
    result: SettlementResult, variant: str, record_version: int = RECORD_VERSION
) -> Settled:
    record = settlement_result(result, record_version)
    body = canonical.dumps(record, check=False)  # built by the kernel: ints and strings
    deltas: Mapping[str, int] = dict(result.deltas)
    rake = int(result.total_rake)
    postings = postings_for(deltas, rake, variant)
    staked = sum(result.staked.values())
    returned = sum(max(0, v) for v in result.returned.values())
    record_hash = hashlib.sha256(body).hexdigest()
    payload = {
        "record_hash": record_hash,
        "postings": [[a, n] for a, n in postings],
        "rake": rake,
    }
    return Settled(
        record,
        body,
        record_hash,
        postings,
        rake,
        staked,
        returned,
        payload,
        canonical.dumps(payload),
    )
