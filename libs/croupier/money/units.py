"""Minor units, exact fractions and truncation.

Money is an ``int`` in minor units. Game points in the seeds carry decimals (the 001
pro-rata example pays 12.5 and 37.5 points: 001, 三公, 特殊情况), so one point is
:data:`MINOR_PER_POINT` = 100 minor units and every worked example in the seeds comes out
as a whole number of minor units.

Intermediate values are :class:`fractions.Fraction` (never ``float``) and are rounded
once. The rounding rule (README.md, "Money"): a fraction of a minor unit is truncated
from the receiver and stays with the payer. :func:`floor_to_unit` is that truncation for
an amount that someone receives; the payer's side of the same payment is the same
integer, so a payment rounded this way can never unbalance a settlement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from croupier.errors import InvalidInput

MINOR_PER_POINT: Final[int] = 100
"""Minor units in one game point (the seeds' 游戏点数 / 游戏币 / 分)."""

Number = int | Fraction
"""An exact number: an ``int`` or a ``Fraction``. ``float`` and ``bool`` are refused."""

_DECIMAL = re.compile(r"^([+-]?)(\d+)(?:\.(\d+))?$")
_RATIO = re.compile(r"^([+-]?\d+)/(\d+)$")
_PERCENT = re.compile(r"^([+-]?\d+(?:\.\d+)?)%$")


def exact(value: object, name: str = "value") -> Fraction:
    """``value`` as a ``Fraction``; ``int``, ``Fraction`` or a string ``"12.5"``,
    ``"1/20"`` or ``"5%"``. Raises :class:`InvalidInput` for ``float``, ``bool`` and
    anything else, so a float can never enter a money path."""
    # the two usual types first, by exact type: ``isinstance(x, Fraction)`` of an
    # ``int`` goes through the numeric tower's abstract-class check
    if type(value) is Fraction:
        return value
    if type(value) is int:
        return Fraction(value)
    if isinstance(value, bool):
        raise InvalidInput(f"{name} must be an exact number, not a bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        m = _RATIO.match(text)
        if m:
            if int(m.group(2)) == 0:
                raise InvalidInput(f"{name}: zero denominator in {value!r}")
            return Fraction(int(m.group(1)), int(m.group(2)))
        m = _PERCENT.match(text)
        if m:
            return exact(m.group(1), name) / 100
        m = _DECIMAL.match(text)
        if m:
            sign, whole, frac = m.group(1), m.group(2), m.group(3) or ""
            number = Fraction(int(whole + frac), 10 ** len(frac))
            return -number if sign == "-" else number
        raise InvalidInput(f"{name}: {value!r} is not an exact number")
    raise InvalidInput(
        f"{name} must be an int, Fraction or exact decimal string, not {type(value).__name__}"
    )


def whole(value: object, name: str = "amount") -> int:
    """``value`` as an ``int`` amount of minor units; refuses ``bool``, ``float`` and
    non-integral values."""
    if type(value) is int:  # the usual case, without the abstract-class check below
        return value
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise InvalidInput(
            f"{name} must be an integer number of minor units, not {type(value).__name__}"
        )
    if isinstance(value, Fraction):
        if value.denominator != 1:
            raise InvalidInput(f"{name} must be a whole number of minor units, got {value}")
        return value.numerator
    return value


def non_negative(value: object, name: str = "amount") -> int:
    """:func:`whole`, and at least 0."""
    amount = whole(value, name)
    if amount < 0:
        raise InvalidInput(f"{name} must not be negative, got {amount}")
    return amount


def points_to_minor(points: object) -> int:
    """Game points (``int``, ``Fraction`` or ``"12.5"``) to minor units, exactly.
    Raises :class:`InvalidInput` if the points are finer than one minor unit."""
    minor = exact(points, "points") * MINOR_PER_POINT
    if minor.denominator != 1:
        raise InvalidInput(f"{points!r} points is not a whole number of minor units")
    return minor.numerator


def minor_to_points(minor: int) -> Fraction:
    """Minor units to game points, exactly."""
    return Fraction(whole(minor, "minor"), MINOR_PER_POINT)


def floor_to_unit(amount: Number, unit: int = 1) -> int:
    """Truncate a received amount (>= 0) down to a whole multiple of ``unit`` minor
    units: the part cut off stays with the payer. ``unit`` = 1 truncates to minor units;
    ``unit`` = :data:`MINOR_PER_POINT` to whole points, where a seed says so (000,
    血战麻将, 查花猪: 舍去小数点, 按整数计算)."""
    if unit < 1:
        raise InvalidInput(f"rounding unit must be >= 1, got {unit}")
    if amount < 0:
        raise InvalidInput(f"only a received amount (>= 0) is truncated, got {amount}")
    return (int(amount) // unit) * unit  # int() of a non-negative Fraction is its floor


def truncate_toward_zero(amount: Number, unit: int = 1) -> int:
    """Truncate toward zero to a multiple of ``unit``: what a payer pays (as a negative
    delta) or a receiver receives when its own fraction is cut off."""
    if amount < 0:
        return -floor_to_unit(-amount, unit)
    return floor_to_unit(amount, unit)


def scaled(amount: Number, numerator: Number, denominator: Number) -> Fraction:
    """``amount * numerator / denominator`` exactly (``denominator`` > 0)."""
    if denominator <= 0:
        raise InvalidInput(f"scale denominator must be positive, got {denominator}")
    return Fraction(amount) * Fraction(numerator) / Fraction(denominator)


def product(factors: Iterable[Number]) -> Fraction:
    """The exact product of ``factors`` (1 for none)."""
    it = iter(factors)
    out: Number = next(it, 1)
    for f in it:
        out *= f
    return as_fraction(out)


def as_fraction(value: Number) -> Fraction:
    """``value`` as a ``Fraction``: a ``Fraction`` itself (immutable, so shared), else
    ``Fraction(value)`` — which for a ``Fraction`` would build a copy through the
    numeric tower's checks."""
    return value if type(value) is Fraction else Fraction(value)


def fraction_text(value: Number) -> str:
    """A ``Fraction`` (or ``int``) as ``"num/den"``, the form the settlement record uses
    for every exact value, e.g. ``"25/2"``, ``"3/1"``. Stable: always reduced."""
    if type(value) is Fraction:  # already reduced; skips the conversion (hot in records)
        num, den = value.as_integer_ratio()  # one call, not the two properties
        return f"{num}/{den}"
    if type(value) is int:
        return f"{value}/1"
    f = Fraction(value)
    return f"{f.numerator}/{f.denominator}"


def parse_fraction_text(text: str) -> Fraction:
    """Inverse of :func:`fraction_text` (also accepts the forms :func:`exact` reads)."""
    return exact(text, "fraction")
