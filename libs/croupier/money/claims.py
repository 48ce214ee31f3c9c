"""Claims: the theoretical amounts a hand's outcome gives, before caps and liability.

A claim says ``payer`` owes ``payee`` ``base`` minor units times the product of
``factors`` on ``spot``. Keeping the factors apart (e.g. room base 100 x hand multiple 6
x bet multiples 5 and 3, 000 通比牛牛 四、游戏输赢) lets a cap act on the multiple and
lets an auditor read every factor in the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from croupier.errors import InvalidInput
from croupier.money.record import ClaimLine
from croupier.money.units import Number, exact, non_negative, product


@dataclass(frozen=True, slots=True)
class Claim:
    """``payer`` owes ``payee`` ``base * prod(factors)`` minor units on ``spot``.

    ``base`` is a whole, non-negative number of minor units; ``factors`` are exact and
    non-negative (``int``, ``Fraction`` or strings like ``"1/2"``), stored as
    ``Fraction``."""

    payer: str
    payee: str
    base: int
    factors: tuple[Fraction | int, ...] = ()
    spot: str = ""

    def __post_init__(self) -> None:
        if not self.payer or not self.payee:
            raise InvalidInput("a claim needs a payer and a payee")
        if self.payer == self.payee:
            raise InvalidInput(f"{self.payer!r} cannot owe itself")
        object.__setattr__(self, "base", non_negative(self.base, "claim base"))
        factors = tuple(exact(f, "claim factor") for f in self.factors)
        for f in factors:
            if f < 0:
                raise InvalidInput(f"claim factors must not be negative, got {f}")
        object.__setattr__(self, "factors", factors)

    @property
    def multiple(self) -> Fraction:
        """The product of the factors."""
        return product(self.factors)

    @property
    def amount(self) -> Fraction:
        """``base * multiple``, exact."""
        return self.base * self.multiple

    def line(self) -> ClaimLine:
        return ClaimLine(
            self.payer,
            self.payee,
            self.spot,
            self.base,
            tuple(Fraction(f) for f in self.factors),
            self.amount,
        )


def nets_of(
    payments: Iterable[tuple[str, str, Number]], order: Sequence[str]
) -> dict[str, Fraction]:
    """Net result per participant (in ``order``) of ``(payer, payee, amount)`` flows."""
    nets = {p: Fraction(0) for p in order}
    for payer, payee, amount in payments:
        if payer not in nets or payee not in nets:
            missing = payer if payer not in nets else payee
            raise InvalidInput(f"{missing!r} is not a participant")
        nets[payer] -= amount
        nets[payee] += amount
    return nets


def ordered(nets: Mapping[str, Fraction], order: Sequence[str]) -> tuple[tuple[str, Fraction], ...]:
    """``nets`` as ``(participant, value)`` pairs in ``order``."""
    return tuple((p, Fraction(nets.get(p, 0))) for p in order)
