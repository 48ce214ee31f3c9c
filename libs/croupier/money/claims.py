"""Claims: the theoretical amounts a hand's outcome gives, before caps and liability.

A claim says ``payer`` owes ``payee`` ``base`` minor units times the product of
``factors`` on ``spot``. Keeping the factors apart (e.g. room base 100 x hand multiple 6
x bet multiples 5 and 3, 000 通比牛牛 四、游戏输赢) lets a cap act on the multiple and
lets an auditor read every factor in the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from croupier.errors import InvalidInput
from croupier.money.record import ClaimLine, claim_line
from croupier.money.units import Number, as_fraction, exact, non_negative, product


@dataclass(frozen=True, slots=True)
class Claim:
    """``payer`` owes ``payee`` ``base * prod(factors)`` minor units on ``spot``.

    ``base`` is a whole, non-negative number of minor units; ``factors`` are exact and
    non-negative (``int``, ``Fraction`` or strings like ``"1/2"``), stored as
    ``Fraction``. ``multiple`` (the product of the factors) and ``amount`` (``base *
    multiple``) are worked out once, on construction: a settlement reads each of them
    several times (the nets, the record, the caps)."""

    payer: str
    payee: str
    base: int
    factors: tuple[Fraction | int, ...] = ()
    spot: str = ""
    multiple: Fraction = field(init=False, repr=False, compare=False)
    """The product of the factors."""
    amount: Fraction = field(init=False, repr=False, compare=False)
    """``base * multiple``, exact."""

    def __post_init__(self) -> None:
        if not self.payer or not self.payee:
            raise InvalidInput("a claim needs a payer and a payee")
        if self.payer == self.payee:
            raise InvalidInput(f"{self.payer!r} cannot owe itself")
        base = non_negative(self.base, "claim base")
        object.__setattr__(self, "base", base)
        factors = tuple(exact(f, "claim factor") for f in self.factors)
        for f in factors:
            if f.numerator < 0:  # a Fraction's sign is its numerator's
                raise InvalidInput(f"claim factors must not be negative, got {f}")
        object.__setattr__(self, "factors", factors)
        multiple = product(factors)
        object.__setattr__(self, "multiple", multiple)
        # Fraction * int, not int * Fraction: the reflected operator checks the int
        # against the numeric tower's abstract classes
        object.__setattr__(self, "amount", multiple * base)

    def line(self) -> ClaimLine:
        return claim_line(
            self.payer,
            self.payee,
            self.spot,
            self.base,
            self.factors,  # type: ignore[arg-type]  # each a Fraction (exact)
            self.amount,
        )


def nets_of(
    payments: Iterable[tuple[str, str, Number]], order: Sequence[str]
) -> dict[str, Fraction]:
    """Net result per participant (in ``order``) of ``(payer, payee, amount)`` flows.

    Counted in ``int`` while every amount is whole (the usual hand), in ``Fraction``
    from the start again once one is not; the nets are ``Fraction`` either way."""
    flows = payments if isinstance(payments, list | tuple) else list(payments)
    counts: dict[str, int] = dict.fromkeys(order, 0)
    for payer, payee, amount in flows:
        if payer not in counts or payee not in counts:
            missing = payer if payer not in counts else payee
            raise InvalidInput(f"{missing!r} is not a participant")
        n, d = amount.as_integer_ratio()
        if d != 1:
            return _fraction_nets(flows, order)
        counts[payer] -= n
        counts[payee] += n
    return {p: Fraction(v) for p, v in counts.items()}


def _fraction_nets(
    flows: Sequence[tuple[str, str, Number]], order: Sequence[str]
) -> dict[str, Fraction]:
    nets = {p: Fraction(0) for p in order}
    for payer, payee, amount in flows:
        if payer not in nets or payee not in nets:
            missing = payer if payer not in nets else payee
            raise InvalidInput(f"{missing!r} is not a participant")
        nets[payer] -= amount
        nets[payee] += amount
    return nets


def ordered(nets: Mapping[str, Fraction], order: Sequence[str]) -> tuple[tuple[str, Fraction], ...]:
    """``nets`` as ``(participant, value)`` pairs in ``order``."""
    return tuple((p, as_fraction(nets.get(p, 0))) for p in order)
