"""楚汉德州 rules that are numbers: spots, odds, the hand-type paytable, limits.

Sources: ``000_d16ad353ba467b8a.txt``, 楚汉德州 (one betting round; a tie returns half of
the Chu/Han stakes) and 保险楚汉德州规则 (three rounds; Chu/Han/tie odds change with the
cards shown; betting skipped when either side's odds are at most 1.01; hand-type bets in
round 1 only; on a tie only round-1 Chu/Han stakes get half back). Neither section gives
an odds formula or a hand-type paytable. They are derived here from the exact
probabilities of :mod:`.probability` at the variant's ``margin`` (house edge):

Odds are **decimal** (赔率 as the seed quotes it: "1.01" returns 1.01 per 1 staked,
stake included), truncated to ``odds_places`` decimals, never above ``max_odds``:

* Chu (or Han) when a tie returns ``r`` of the stake (``r`` = 1/2 in round 1, 0 later)::

      odds = floor((1 - margin - r * P(tie)) / P(side))

  so the spot returns ``P(side) * odds + P(tie) * r <= 1 - margin``;
* tie, and each hand type ``k`` (the category of the winning hand)::

      odds = floor((1 - margin) / P(event))

A spot whose event cannot happen any more is closed (no odds). Truncation only lowers a
return, so every spot's RTP is at most ``1 - margin`` - exactly what :func:`spot_rtp`
states and the tests pin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from croupier.errors import ConfigError
from croupier.games.poker.hands import Category

__all__ = [
    "HAND_TYPES",
    "Limits",
    "OddsRule",
    "Side",
    "Spot",
    "decimal_odds",
    "side_odds",
    "spot_of_type",
]


class Side(Enum):
    CHU = "chu"
    HAN = "han"


class Spot(Enum):
    """Bet spots: the war result and the winning hand type (one spot per category)."""

    CHU = "chu"
    HAN = "han"
    TIE = "tie"
    HIGH_CARD = "type.high_card"
    PAIR = "type.pair"
    TWO_PAIR = "type.two_pair"
    TRIPS = "type.trips"
    STRAIGHT = "type.straight"
    FLUSH = "type.flush"
    FULL_HOUSE = "type.full_house"
    QUADS = "type.quads"
    STRAIGHT_FLUSH = "type.straight_flush"

    @property
    def is_type(self) -> bool:
        return self.value.startswith("type.")

    @property
    def category(self) -> Category:
        return Category[self.name]


WAR_SPOTS = (Spot.CHU, Spot.HAN, Spot.TIE)
HAND_TYPES = tuple(s for s in Spot if s.is_type)


def spot_of_type(cat: Category) -> Spot:
    return Spot[cat.name]


def _floor_to(x: Fraction, places: int) -> Fraction:
    scale = 10**places
    return Fraction(math.floor(x * scale), scale)


@dataclass(frozen=True, slots=True)
class OddsRule:
    """How odds are derived: margin, decimals kept, ceiling, and the skip threshold."""

    margin: Fraction
    places: int
    max_odds: Fraction
    skip_at_or_below: Fraction

    def __post_init__(self) -> None:
        if not 0 <= self.margin < 1 or self.places < 0 or self.max_odds <= 1:
            raise ConfigError(f"chuhan odds rule out of range: {self}")


def decimal_odds(
    p: Fraction,
    rule: OddsRule,
    *,
    refund: Fraction = Fraction(0),
    p_refund: Fraction = Fraction(0),
) -> Fraction | None:
    """Decimal odds of an event of probability ``p`` whose stake gets ``refund`` back with
    probability ``p_refund`` otherwise (see the module docstring); None when ``p == 0``
    (the spot is closed)."""
    if p <= 0:
        return None
    raw = (1 - rule.margin - refund * p_refund) / p
    return min(_floor_to(raw, rule.places), rule.max_odds)


def side_odds(
    p_side: Fraction, p_tie: Fraction, rule: OddsRule, refund: Fraction
) -> Fraction | None:
    return decimal_odds(p_side, rule, refund=refund, p_refund=p_tie)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-seat, per-spot, per-round stake limits (渠道设置的下注金额的上、下限)."""

    min: int
    max: int


def fraction_of(value: Any, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(f"{where}: expected a number as a string, got {value!r}")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ConfigError(f"{where}: not a number: {value!r}") from None


def odds_table(raw: Mapping[str, Any], where: str) -> dict[Spot, Fraction]:
    """``{spot value: "decimal odds"}`` from a config block."""
    out: dict[Spot, Fraction] = {}
    for k, v in raw.items():
        if k == "source":
            continue
        try:
            spot = Spot(k)
        except ValueError:
            raise ConfigError(f"{where}: unknown spot {k!r}") from None
        out[spot] = fraction_of(v, f"{where}.{k}")
    return out


def text(f: Fraction) -> str:
    """A fraction as an exact string: decimal when it has one ("193/100" -> "1.93"),
    else ``n/d``."""
    for places in range(7):
        if 10**places % f.denominator == 0:
            n = f.numerator * (10**places // f.denominator)
            if places == 0:
                return str(n)
            digits = str(abs(n)).rjust(places + 1, "0")
            return ("-" if n < 0 else "") + digits[:-places] + "." + digits[-places:]
    return f"{f.numerator}/{f.denominator}"
