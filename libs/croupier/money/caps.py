"""Caps (封顶): limits on multiples and amounts, applied to claims before liability.

Three shapes cover the seeds:

* :class:`MultipleCap` - every claim's multiple at most ``limit``: 000 斗地主 1.4.1
  (叫分*倍数 at most 30), 000 加倍斗地主 1.3.1 (a farmer's multiple at most 128), fan caps
  expressed as multiples (000 广东麻将推倒胡 番数上限 7番 = 2^7; 004 血战到底麻将 积分计算
  最高为3番 = 8倍, which leaves the 刮风/下雨 gang payments out, hence ``spots``).
* :class:`ParticipantMultipleCap` - the multiples of all claims one participant is party
  to add up to at most ``limit``, scaled pro rata if over: 000 加倍斗地主 1.3.1 (the
  landlord at most 256, "农民之和").
* :class:`PairAmountCap` - the total one payer owes one payee at most ``limit`` minor
  units; claims count in the order given (the order they arose in the hand) and what
  goes past the limit is not counted: 004 血战到底麻将 积分计算 (at most 24 points from any
  single player in a 1-point room; 24 x the room base in general).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from croupier.errors import InvalidInput
from croupier.money.claims import Claim
from croupier.money.record import CapAdjustment, CapStep
from croupier.money.units import Number, exact, fraction_text, non_negative

RULE_DOUDIZHU_CAP = "doudizhu_cap"
SOURCE_DOUDIZHU_CAP = "000 斗地主 1.4.1 封顶限制 (叫分*倍数 at most 30)"
RULE_DOUDIZHU_DOUBLING_FARMER_CAP = "doudizhu_doubling_farmer_cap"
RULE_DOUDIZHU_DOUBLING_LANDLORD_CAP = "doudizhu_doubling_landlord_cap"
SOURCE_DOUDIZHU_DOUBLING_CAP = (
    "000 加倍斗地主 1.3.1 封顶限制 (farmer at most 128, landlord at most 256 = 农民之和)"
)
RULE_FAN_CAP = "fan_cap"
SOURCE_GUANGDONG_FAN_CAP = "000 广东麻将推倒胡 基本番型 (番数上限为7番)"
SOURCE_XUEZHAN_DAODI_FAN_CAP = (
    "004 血战到底麻将游戏规则 积分计算 (at most 3 fan, i.e. 8x) and 2、出牌规则 "
    "(刮风/下雨 counted apart)"
)
RULE_PAIR_CAP = "per_payer_cap"
SOURCE_XUEZHAN_DAODI_PAIR_CAP = (
    "004 血战到底麻将游戏规则 积分计算 (at most 24 points from any single player in a 1-point room)"
)


@dataclass(frozen=True, slots=True)
class MultipleCap:
    """Each claim's multiple (product of its factors) at most ``limit``; only claims on
    ``spots`` if given."""

    limit: Fraction
    rule: str
    source: str
    spots: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        limit = exact(self.limit, "cap limit")
        if limit < 0:
            raise InvalidInput(f"cap limit must not be negative, got {limit}")
        object.__setattr__(self, "limit", limit)
        object.__setattr__(self, "spots", frozenset(self.spots))


@dataclass(frozen=True, slots=True)
class ParticipantMultipleCap:
    """The multiples of all claims ``participant`` is party to add up to at most
    ``limit``; if over, each is scaled by ``limit / total``."""

    participant: str
    limit: Fraction
    rule: str
    source: str

    def __post_init__(self) -> None:
        limit = exact(self.limit, "cap limit")
        if limit < 0:
            raise InvalidInput(f"cap limit must not be negative, got {limit}")
        object.__setattr__(self, "limit", limit)


@dataclass(frozen=True, slots=True)
class PairAmountCap:
    """What one payer owes one payee (all spots together) at most ``limit`` minor units.
    The pair's claims count in the order given; the claim that crosses the limit is cut
    to it and later ones to 0 (the excess is not counted). Cutting in order rather than pro
    rata keeps whole claims whole, so a capped total is exactly the limit. Only claims
    on ``spots`` count and are cut, if given."""

    limit: int
    rule: str
    source: str
    spots: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "limit", non_negative(self.limit, "cap limit"))
        object.__setattr__(self, "spots", frozenset(self.spots))


CapRule: TypeAlias = MultipleCap | ParticipantMultipleCap | PairAmountCap

Capped: TypeAlias = tuple[Claim, Fraction]
"""A claim and its current multiple (its amount is ``claim.base * multiple``)."""


def cap_multiple(multiple: Number, limit: Number) -> Fraction:
    """``min(multiple, limit)``, exact."""
    return Fraction(min(Fraction(multiple), Fraction(limit)))


def cap_fan(fan: int, max_fan: int) -> int:
    """A fan count at most ``max_fan`` (004 血战到底 积分计算: fan above 3 counts as 3)."""
    if fan < 0 or max_fan < 0:
        raise InvalidInput("fan counts must not be negative")
    return min(fan, max_fan)


def doudizhu_cap() -> MultipleCap:
    """000 斗地主 1.4.1: 叫分 x 倍数 at most 30 on each farmer's claim (the landlord's
    amount is the farmers' sum, so at most 2 x 30)."""
    return MultipleCap(Fraction(30), RULE_DOUDIZHU_CAP, SOURCE_DOUDIZHU_CAP)


def doudizhu_doubling_caps(landlord: str) -> tuple[MultipleCap, ParticipantMultipleCap]:
    """000 加倍斗地主 1.3.1: each farmer's multiple (叫分 x 抢地主翻倍数 x 倍数, and the
    farmer's own 加倍, which the score formula 1.3.4 multiplies in) at most 128; the
    landlord's, the sum of the farmers', at most 256."""
    return (
        MultipleCap(Fraction(128), RULE_DOUDIZHU_DOUBLING_FARMER_CAP, SOURCE_DOUDIZHU_DOUBLING_CAP),
        ParticipantMultipleCap(
            landlord,
            Fraction(256),
            RULE_DOUDIZHU_DOUBLING_LANDLORD_CAP,
            SOURCE_DOUDIZHU_DOUBLING_CAP,
        ),
    )


def fan_cap(max_fan: int, source: str, spots: Sequence[str] = ()) -> MultipleCap:
    """A fan cap as a multiple cap: ``2 ** max_fan`` on claims whose multiple is
    ``2 ** fan`` (on ``spots`` only, if given)."""
    if max_fan < 0:
        raise InvalidInput("max_fan must not be negative")
    return MultipleCap(Fraction(2**max_fan), RULE_FAN_CAP, source, frozenset(spots))


def xuezhan_daodi_pair_cap(base: int) -> PairAmountCap:
    """004 血战到底: at most 24 x the room base collected from any single player."""
    return PairAmountCap(
        24 * non_negative(base, "base"), RULE_PAIR_CAP, SOURCE_XUEZHAN_DAODI_PAIR_CAP
    )


def _adjust(claim: Claim, before: Fraction, after: Fraction) -> CapAdjustment:
    return CapAdjustment(
        claim.payer, claim.payee, claim.spot, before, after, claim.base * before, claim.base * after
    )


def apply_cap(claims: Sequence[Capped], cap: CapRule) -> tuple[list[Capped], CapStep]:
    """Apply one cap to ``(claim, multiple)`` pairs; returns the new pairs and the step."""
    out: list[Capped] = list(claims)
    adjustments: list[CapAdjustment] = []
    if isinstance(cap, MultipleCap):
        for i, (claim, m) in enumerate(out):
            if (not cap.spots or claim.spot in cap.spots) and m > cap.limit:
                out[i] = (claim, cap.limit)
                adjustments.append(_adjust(claim, m, cap.limit))
        limit_text = fraction_text(cap.limit)
    elif isinstance(cap, ParticipantMultipleCap):
        idx = [i for i, (c, _) in enumerate(out) if cap.participant in (c.payer, c.payee)]
        total = sum((out[i][1] for i in idx), Fraction(0))
        if total > cap.limit:
            for i in idx:
                claim, m = out[i]
                new = m * cap.limit / total
                out[i] = (claim, new)
                adjustments.append(_adjust(claim, m, new))
        limit_text = fraction_text(cap.limit)
    else:
        groups: dict[tuple[str, str], list[int]] = {}
        for i, (c, _) in enumerate(out):
            if not cap.spots or c.spot in cap.spots:
                groups.setdefault((c.payer, c.payee), []).append(i)
        for idx in groups.values():
            room = Fraction(cap.limit)
            for i in idx:
                claim, m = out[i]
                amount = claim.base * m
                if amount <= room:
                    room -= amount
                    continue
                new = room / claim.base
                out[i] = (claim, new)
                adjustments.append(_adjust(claim, m, new))
                room = Fraction(0)
        limit_text = str(cap.limit)
    return out, CapStep(cap.rule, cap.source, limit_text, tuple(adjustments))
