"""The settlement record: one frozen dataclass per step, each naming the rule that caused
it and the seed section it comes from, and the :class:`SettlementResult` that carries
them.

:meth:`SettlementResult.to_json_dict` renders the whole record with ``int`` and ``str``
values only (exact fractions as ``"num/den"``, booleans never), so it can be stored as
canonical JSON and compared bit for bit by an auditor who reruns the settlement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import TypeAlias, cast

from croupier import canonical
from croupier.errors import InvalidInput, MoneyError
from croupier.money.units import fraction_text

JsonValue: TypeAlias = int | str | list["JsonValue"] | dict[str, "JsonValue"]
JsonDict: TypeAlias = dict[str, JsonValue]

RECORD_VERSION = 2
"""Version 2 lists ``staked``/``returned`` for the stake-based hands whose loss can
exceed the stake (百人牛牛, 百人三公, 二八杠); version 1 left them empty there."""
RECORD_VERSIONS: frozenset[int] = frozenset({1, 2})
"""Bumped whenever the record's shape or any rule's arithmetic changes."""


class StepKind(StrEnum):
    """What a step did, in pipeline order."""

    THEORETICAL = "theoretical"
    CAP = "cap"
    LIABILITY = "liability"
    ROUNDING = "rounding"
    POTS = "pots"
    RAKE = "rake"


def _nets_json(nets: tuple[tuple[str, Fraction], ...]) -> JsonDict:
    return {who: fraction_text(v) for who, v in nets}


def _ints_json(pairs: tuple[tuple[str, int], ...]) -> JsonDict:
    return {who: v for who, v in pairs}


@dataclass(frozen=True, slots=True)
class ClaimLine:
    """One theoretical amount: ``payer`` owes ``payee`` ``base`` x the product of
    ``factors`` on ``spot``."""

    payer: str
    payee: str
    spot: str
    base: int
    factors: tuple[Fraction, ...]
    amount: Fraction

    def to_json_dict(self) -> JsonDict:
        return cast(JsonDict, _claims_json((self,))[0])


@dataclass(frozen=True, slots=True)
class PaymentLine:
    """An exact payment from ``payer`` to ``payee`` (before rounding)."""

    payer: str
    payee: str
    spot: str
    amount: Fraction

    def to_json_dict(self) -> JsonDict:
        return {
            "payer": self.payer,
            "payee": self.payee,
            "spot": self.spot,
            "amount": fraction_text(self.amount),
        }


@dataclass(frozen=True, slots=True)
class PaidLine:
    """A payment after rounding: ``exact`` owed, ``paid`` in whole units (``paid`` <=
    ``exact``; the difference stays with the payer)."""

    payer: str
    payee: str
    spot: str
    exact: Fraction
    paid: int

    def to_json_dict(self) -> JsonDict:
        return cast(JsonDict, _paid_json((self,))[0])


@dataclass(frozen=True, slots=True)
class TheoreticalStep:
    """The amounts the game's formula gives, before any cap or liability."""

    rule: str
    source: str
    claims: tuple[ClaimLine, ...]
    nets: tuple[tuple[str, Fraction], ...]
    kind: StepKind = StepKind.THEORETICAL

    def to_json_dict(self) -> JsonDict:
        return {
            "step": self.kind.value,
            "rule": self.rule,
            "source": self.source,
            "claims": _claims_json(self.claims),
            "nets": _nets_json(self.nets),
        }


@dataclass(frozen=True, slots=True)
class CapAdjustment:
    """One claim cut by a cap: its multiple and amount before and after."""

    payer: str
    payee: str
    spot: str
    multiple_before: Fraction
    multiple_after: Fraction
    amount_before: Fraction
    amount_after: Fraction

    def to_json_dict(self) -> JsonDict:
        return {
            "payer": self.payer,
            "payee": self.payee,
            "spot": self.spot,
            "multiple_before": fraction_text(self.multiple_before),
            "multiple_after": fraction_text(self.multiple_after),
            "amount_before": fraction_text(self.amount_before),
            "amount_after": fraction_text(self.amount_after),
        }


@dataclass(frozen=True, slots=True)
class CapStep:
    """A cap (封顶) applied to the claims; ``adjustments`` lists the claims it cut."""

    rule: str
    source: str
    limit: str
    adjustments: tuple[CapAdjustment, ...]
    kind: StepKind = StepKind.CAP

    def to_json_dict(self) -> JsonDict:
        return {
            "step": self.kind.value,
            "rule": self.rule,
            "source": self.source,
            "limit": self.limit,
            "adjustments": [a.to_json_dict() for a in self.adjustments],
        }


@dataclass(frozen=True, slots=True)
class LiabilityStep:
    """A limited-liability rule: nets before and after, and the payments that result."""

    rule: str
    source: str
    before: tuple[tuple[str, Fraction], ...]
    after: tuple[tuple[str, Fraction], ...]
    payments: tuple[PaymentLine, ...]
    changed: tuple[str, ...]
    note: str = ""
    kind: StepKind = StepKind.LIABILITY

    def to_json_dict(self) -> JsonDict:
        return {
            "step": self.kind.value,
            "rule": self.rule,
            "source": self.source,
            "before": _nets_json(self.before),
            "after": _nets_json(self.after),
            "changed": list(self.changed),
            "payments": [p.to_json_dict() for p in self.payments],
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class RoundingStep:
    """Exact payments brought to whole units, each truncated from its receiver."""

    rule: str
    source: str
    unit: int
    payments: tuple[PaidLine, ...]
    kept_by_payers: tuple[tuple[str, Fraction], ...]
    kind: StepKind = StepKind.ROUNDING

    def to_json_dict(self) -> JsonDict:
        return {
            "step": self.kind.value,
            "rule": self.rule,
            "source": self.source,
            "unit": self.unit,
            "payments": _paid_json(self.payments),
            "kept_by_payers": _nets_json(self.kept_by_payers),
        }


@dataclass(frozen=True, slots=True)
class PotRecord:
    """One main or side pot: who put what in, who could win it, who did, who got what."""

    index: int
    amount: int
    level: int
    contributions: tuple[tuple[str, int], ...]
    eligible: tuple[str, ...]
    winners: tuple[str, ...]
    shares: tuple[tuple[str, int], ...]
    odd_units: tuple[str, ...]

    def to_json_dict(self) -> JsonDict:
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


@dataclass(frozen=True, slots=True)
class PotsStep:
    """Side pots built from contributions and awarded to the best eligible hands."""

    rule: str
    source: str
    odd_unit_rule: str
    contributed: tuple[tuple[str, int], ...]
    folded: tuple[str, ...]
    returned: tuple[tuple[str, int], ...]
    pots: tuple[PotRecord, ...]
    kind: StepKind = StepKind.POTS

    def to_json_dict(self) -> JsonDict:
        return {
            "step": self.kind.value,
            "rule": self.rule,
            "source": self.source,
            "odd_unit_rule": self.odd_unit_rule,
            "contributed": _ints_json(self.contributed),
            "folded": list(self.folded),
            "uncalled_returned": _ints_json(self.returned),
            "pots": [p.to_json_dict() for p in self.pots],
        }


@dataclass(frozen=True, slots=True)
class RakeUnitStep:
    """Rake on one unit a participant won: one banker-against-player comparison
    (``against`` the counterparty; basis ``per_comparison``) and/or one spot raked on its
    own (``spot``). ``won`` is what the unit paid ``winner`` after rounding, ``rake`` what
    was taken from it (after any cap or the carried limit, see the closing
    :class:`RakeStep`)."""

    rule: str
    source: str
    rate: Fraction
    winner: str
    against: str
    spot: str
    won: int
    rake: int
    kind: StepKind = StepKind.RAKE

    def to_json_dict(self) -> JsonDict:
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


@dataclass(frozen=True, slots=True)
class RakeStep:
    """Rake on each participant's net profit for the hand, truncated, optionally capped;
    on a per-unit basis (``basis``/``own_spots`` set) the totals of the
    :class:`RakeUnitStep` s before it, with ``limits`` where a participant's rake was cut
    to what they still held (carried + net)."""

    rule: str
    source: str
    rate: Fraction
    cap: int | None
    exempt: tuple[str, ...]
    profits: tuple[tuple[str, int], ...]
    rakes: tuple[tuple[str, int], ...]
    kind: StepKind = StepKind.RAKE
    basis: str = ""
    own_spots: tuple[str, ...] = ()
    limits: tuple[tuple[str, int], ...] = ()

    def to_json_dict(self) -> JsonDict:
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


# The JSON of the record's most numerous lines, a whole step's at a time (one loop, no
# call per line): each line class's ``to_json_dict`` is its one-line list's.
def _claims_json(claims: tuple[ClaimLine, ...]) -> list[JsonValue]:
    text = fraction_text
    return [
        {
            "payer": c.payer,
            "payee": c.payee,
            "spot": c.spot,
            "base": c.base,
            "factors": [text(f) for f in c.factors],
            "amount": text(c.amount),
        }
        for c in claims
    ]


def _paid_json(payments: tuple[PaidLine, ...]) -> list[JsonValue]:
    text = fraction_text
    return [
        {
            "payer": p.payer,
            "payee": p.payee,
            "spot": p.spot,
            "exact": text(p.exact),
            "paid": p.paid,
        }
        for p in payments
    ]


def _spots_json(spots: tuple[SpotLine, ...]) -> list[JsonValue]:
    return [{"participant": s.participant, "spot": s.spot, "amount": s.amount} for s in spots]


# Positional builders of the record's line classes for the kernel's hot loops: the very
# object ``cls(*fields)`` gives (these classes have no __post_init__), with each slot set
# directly instead of through the frozen dataclass's ``object.__setattr__`` per field.
_new = object.__new__
_CLAIM_SLOTS = tuple(ClaimLine.__dict__[f.name].__set__ for f in fields(ClaimLine))
_PAID_SLOTS = tuple(PaidLine.__dict__[f.name].__set__ for f in fields(PaidLine))


def claim_line(
    payer: str, payee: str, spot: str, base: int, factors: tuple[Fraction, ...], amount: Fraction
) -> ClaimLine:
    """``ClaimLine(payer, payee, spot, base, factors, amount)``."""
    line: ClaimLine = _new(ClaimLine)
    s_payer, s_payee, s_spot, s_base, s_factors, s_amount = _CLAIM_SLOTS
    s_payer(line, payer)
    s_payee(line, payee)
    s_spot(line, spot)
    s_base(line, base)
    s_factors(line, factors)
    s_amount(line, amount)
    return line


def paid_line(payer: str, payee: str, spot: str, exact: Fraction, paid: int) -> PaidLine:
    """``PaidLine(payer, payee, spot, exact, paid)``."""
    line: PaidLine = _new(PaidLine)
    s_payer, s_payee, s_spot, s_exact, s_paid = _PAID_SLOTS
    s_payer(line, payer)
    s_payee(line, payee)
    s_spot(line, spot)
    s_exact(line, exact)
    s_paid(line, paid)
    return line


Step: TypeAlias = (
    TheoreticalStep | CapStep | LiabilityStep | RoundingStep | PotsStep | RakeUnitStep | RakeStep
)


@dataclass(frozen=True, slots=True)
class SpotLine:
    """What one participant won (+) or lost (-) on one spot, before rake."""

    participant: str
    spot: str
    amount: int

    def to_json_dict(self) -> JsonDict:
        return cast(JsonDict, _spots_json((self,))[0])


_SPOT_SLOTS = tuple(SpotLine.__dict__[f.name].__set__ for f in fields(SpotLine))


def spot_line(participant: str, spot: str, amount: int) -> SpotLine:
    """``SpotLine(participant, spot, amount)`` (as :func:`claim_line`)."""
    line: SpotLine = _new(SpotLine)
    s_participant, s_spot, s_amount = _SPOT_SLOTS
    s_participant(line, participant)
    s_spot(line, spot)
    s_amount(line, amount)
    return line


def _frozen_map(pairs: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(pairs))


@dataclass(frozen=True)
class SettlementResult:
    """A settled hand.

    ``deltas``: each participant's final change in minor units, after rake (the house,
    where it is the counterparty, is a participant). ``rake``: rake per participant;
    ``total_rake`` their sum. Invariant, checked on construction: ``sum(deltas) +
    total_rake == 0``. ``spots``: per participant and spot, the amount won or lost
    before rake, from the rounded payments (where a hand-level liability rule changed a
    participant's net, their payments are under the spot ``"net"``; the liability step
    holds the nets). ``pots``: side pots (poker-style hands only).
    ``staked`` / ``returned``: stakes put in and gross amounts paid back, per
    participant (for stake-based games; empty otherwise). ``stakes_since``: the first
    record version that lists them for this kind of hand (2 where a multiplied loss can
    exceed the stake - 百人牛牛, 百人三公, 二八杠 - recorded empty under version 1).
    """

    hand_id: str
    participants: tuple[str, ...]
    deltas: Mapping[str, int]
    rake: Mapping[str, int]
    total_rake: int
    steps: tuple[Step, ...]
    spots: tuple[SpotLine, ...] = ()
    pots: tuple[PotRecord, ...] = ()
    staked: Mapping[str, int] = field(default_factory=lambda: _frozen_map({}))
    returned: Mapping[str, int] = field(default_factory=lambda: _frozen_map({}))
    stakes_since: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "deltas", _frozen_map(self.deltas))
        object.__setattr__(self, "rake", _frozen_map(self.rake))
        object.__setattr__(self, "staked", _frozen_map(self.staked))
        object.__setattr__(self, "returned", _frozen_map(self.returned))
        self._check_balance()

    def _check_balance(self) -> None:
        if sum(self.deltas.values()) + self.total_rake != 0:
            raise MoneyError(
                f"settlement does not balance: deltas sum {sum(self.deltas.values())}, "
                f"rake {self.total_rake}"
            )
        if sum(self.rake.values()) != self.total_rake:
            raise MoneyError("per-participant rake does not add up to the total rake")

    @classmethod
    def of_own_maps(
        cls,
        hand_id: str,
        participants: tuple[str, ...],
        deltas: dict[str, int],
        rake: dict[str, int],
        total_rake: int,
        steps: tuple[Step, ...],
        spots: tuple[SpotLine, ...],
        staked: dict[str, int],
        returned: dict[str, int],
    ) -> SettlementResult:
        """``cls(hand_id, participants, deltas, rake, total_rake, steps, spots,
        staked=staked, returned=returned)`` for dicts the caller built for this result
        and keeps no hold on (the kernel's own): each is wrapped read-only as it is,
        without the copy the constructor makes of a mapping someone else may hold. The
        same result, the same checks."""
        result = object.__new__(cls)
        vars(result).update(
            hand_id=hand_id,
            participants=participants,
            deltas=MappingProxyType(deltas),
            rake=MappingProxyType(rake),
            total_rake=total_rake,
            steps=steps,
            spots=spots,
            pots=(),
            staked=MappingProxyType(staked),
            returned=MappingProxyType(returned),
            stakes_since=1,
        )
        result._check_balance()
        return result

    def delta(self, participant: str) -> int:
        """The final delta of ``participant`` (0 if absent)."""
        return self.deltas.get(participant, 0)

    def record_body(self, version: int = RECORD_VERSION) -> bytes:
        """The record at ``version`` as canonical JSON: the bytes stored and hashed
        (:func:`croupier.settlement.settlement_of`)."""
        return canonical.dumps(self.to_json_dict(version), check=False)  # ints and strings

    def to_json_dict(self, version: int = RECORD_VERSION) -> JsonDict:
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
            "staked": dict(staked),
            "returned": dict(returned),
            "spots": _spots_json(self.spots),
            "pots": [p.to_json_dict() for p in self.pots],
            "steps": [s.to_json_dict() for s in self.steps],
        }
