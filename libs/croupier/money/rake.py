"""Rake (抽水 / 服务费 / 运营费用): a rate on each participant's net profit for the hand.

The seeds take the fee from winners' profit, not from the pot - 5% of each winner's
profit per hand in 000: 百人牛牛, 百人三公, 必下德州 item 7, 牛牛 结算规则, 十三水,
通比牛牛, 推筒子, 炸金花; 斗地主 1.4.3 and 加倍斗地主 1.3.3 (from the winning side);
血战麻将 游戏抽佣; 广东麻将 实际输赢; 5% also in 001 (二八杠, 抢庄玩法介绍, 经典牛牛),
2% in 001 三公 and 多人21点, and none in 000 百家乐玩法规则介绍 (no service fee).

Rule: for each participant whose net result for the hand (after caps and limited
liability) is a profit ``p`` > 0 and who is not exempt (the house, when it is the
counterparty), rake = ``floor(rate * p)``: the fraction of a unit is truncated and stays
with the winner. With an optional per-hand ``cap``, if the raw rakes add up to more than
the cap each is scaled to ``floor(raw * cap / total_raw)``, so the hand's rake never
exceeds the cap and every truncation again favours the winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from croupier.errors import InvalidInput
from croupier.money.record import RakeStep
from croupier.money.units import exact, non_negative

FIVE_PERCENT: Final[Fraction] = Fraction(1, 20)
"""The usual rate (000 and 001, see module docstring)."""
TWO_PERCENT: Final[Fraction] = Fraction(1, 50)
"""001, 三公 抽水 and 多人21点 游戏抽水: 2% of the winner's win."""

RULE_RAKE = "rake_on_net_profit"
SOURCE_RAKE = (
    "README.md, Money; 000 必下德州规则 item 7 (5% of the winner's profit) "
    "and the same rule in 000/001"
)


@dataclass(frozen=True, slots=True)
class RakePolicy:
    """A variant's rake: ``rate`` (0 <= rate < 1, exact), optional per-hand ``cap`` in
    minor units, participants ``exempt`` from rake (e.g. ``"house"``), and the seed
    ``source`` of the rate for the record."""

    rate: Fraction = Fraction(0)
    cap: int | None = None
    exempt: frozenset[str] = field(default_factory=frozenset)
    source: str = SOURCE_RAKE
    rule: str = RULE_RAKE

    def __post_init__(self) -> None:
        rate = exact(self.rate, "rake rate")
        if not 0 <= rate < 1:
            raise InvalidInput(f"rake rate must be in [0, 1), got {rate}")
        object.__setattr__(self, "rate", rate)
        if self.cap is not None:
            object.__setattr__(self, "cap", non_negative(self.cap, "rake cap"))
        object.__setattr__(self, "exempt", frozenset(self.exempt))


NO_RAKE: Final[RakePolicy] = RakePolicy(Fraction(0), source="no rake")


def rake_on_profits(profits: Mapping[str, int], policy: RakePolicy) -> dict[str, int]:
    """Rake per participant for integer net ``profits`` (negative = loss, no rake).

    >>> rake_on_profits({"A": 1000, "B": -200}, RakePolicy(FIVE_PERCENT))
    {'A': 50, 'B': 0}
    """
    rate = policy.rate
    num, den = rate.numerator, rate.denominator
    raw: dict[str, int] = {}
    total = 0
    for who, profit in profits.items():
        if profit > 0 and num and who not in policy.exempt:
            r = profit * num // den
            raw[who] = r
            total += r
        else:
            raw[who] = 0
    cap = policy.cap
    if cap is not None and total > cap:
        return {who: r * cap // total for who, r in raw.items()}
    return raw


def rake_step(
    profits: Mapping[str, int], policy: RakePolicy, order: Sequence[str]
) -> tuple[dict[str, int], RakeStep]:
    """:func:`rake_on_profits` plus the :class:`RakeStep` that records it."""
    rakes = rake_on_profits(profits, policy)
    step = RakeStep(
        rule=policy.rule,
        source=policy.source,
        rate=policy.rate,
        cap=policy.cap,
        exempt=tuple(sorted(policy.exempt)),
        profits=tuple((p, profits[p]) for p in order),
        rakes=tuple((p, rakes[p]) for p in order),
    )
    return rakes, step
