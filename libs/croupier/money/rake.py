"""Rake (抽水 / 服务费 / 运营费用): a rate on what a winner won, on the variant's basis.

The seeds take the fee from winners' profit, not from the pot - 5% of each winner's
profit per hand in 000: 百人牛牛, 百人三公, 必下德州 item 7, 牛牛 结算规则, 十三水,
通比牛牛, 推筒子, 炸金花; 斗地主 1.4.3 and 加倍斗地主 1.3.3 (from the winning side);
血战麻将 游戏抽佣; 广东麻将 实际输赢; 5% also in 001 (二八杠, 抢庄玩法介绍, 经典牛牛),
2% in 001 三公 and 多人21点, and none in 000 百家乐玩法规则介绍 (no service fee).

Basis (:class:`RakeBasis`, a config value of every variant with its ``source``):

* ``net`` - on each participant's net profit for the hand, where the text says so
  (000's ``系统每局将对赢家抽取盈利的5%``): for each participant whose net result (after
  caps and limited liability) is a profit ``p`` > 0 and who is not exempt (the house,
  when it is the counterparty), rake = ``floor(rate * p)``;
* ``per_comparison`` - on each won banker-against-player comparison, where the text
  writes the money per comparison (001's ``庄家胜利所赢游戏币=A*M*Y-抽水``, 二八杠's
  ``独立赔付``): every pair of participants that exchanged money is one comparison, its
  winner pays ``floor(rate * won)`` on it, and a comparison lost is not set against one
  won (a banker who wins 100 from A and loses 100 to B pays rake on the 100).

``own_spots`` are raked on their own on either basis: what a participant won on such a
spot is a unit of its own, not netted with the rest of the hand, while a loss on it
counts with the rest (多人21点's insurance: ``闲家保险胜利所赢游戏币=2*保险金额-抽水``
raked even when the main bet loses, and ``闲家胜利所赢游戏币=当前下注数*牌型倍数
-保险失败所输游戏币+...-抽水`` rakes a main win net of the insurance lost).

The fraction of a unit is truncated and stays with the winner. With an optional per-hand
``cap``, if the raw rakes add up to more than the cap each is scaled to
``floor(raw * cap / total_raw)``, so the hand's rake never exceeds the cap and every
truncation again favours the winner. Where the hand's liability rule knows what each
participant carried, no rake makes anyone lose more than they carried: a participant's
rake is at most ``carried + net`` (what they still hold of what they brought), taken
from their units in seat order. Only the per-unit bases can reach that limit (a banker
who could not cover its losses yet won a comparison: the money it won there went to the
winners' pool, so it keeps none of it to pay rake from).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final

from croupier.errors import InvalidInput
from croupier.money.record import PaidLine, RakeStep, RakeUnitStep
from croupier.money.units import exact, non_negative

FIVE_PERCENT: Final[Fraction] = Fraction(1, 20)
"""The usual rate (000 and 001, see module docstring)."""
TWO_PERCENT: Final[Fraction] = Fraction(1, 50)
"""001, 三公 抽水 and 多人21点 游戏抽水: 2% of the winner's win."""

RULE_RAKE = "rake_on_net_profit"
RULE_RAKE_PER_COMPARISON = "rake_per_comparison"
RULE_RAKE_OWN_SPOT = "rake_on_own_spot"
RULE_RAKE_TOTAL = "rake_total"


class RakeBasis(StrEnum):
    """What the rate is applied to (module docstring)."""

    NET = "net"
    PER_COMPARISON = "per_comparison"


SOURCE_RAKE = (
    "DESIGN.md Money; 000 必下德州规则 item 7 (5% of the winner's profit) "
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
    basis: RakeBasis = RakeBasis.NET
    own_spots: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        rate = exact(self.rate, "rake rate")
        if not 0 <= rate < 1:
            raise InvalidInput(f"rake rate must be in [0, 1), got {rate}")
        object.__setattr__(self, "rate", rate)
        if self.cap is not None:
            object.__setattr__(self, "cap", non_negative(self.cap, "rake cap"))
        object.__setattr__(self, "exempt", frozenset(self.exempt))
        try:
            object.__setattr__(self, "basis", RakeBasis(self.basis))
        except ValueError as e:
            raise InvalidInput(f"unknown rake basis {self.basis!r}") from e
        object.__setattr__(self, "own_spots", frozenset(self.own_spots))

    @property
    def by_unit(self) -> bool:
        """True when the rake is not simply on each participant's net for the hand."""
        return self.basis is RakeBasis.PER_COMPARISON or bool(self.own_spots)

    def with_exempt(self, *who: str) -> RakePolicy:
        """The same policy with ``who`` exempt too (the house as counterparty)."""
        return RakePolicy(
            self.rate,
            self.cap,
            self.exempt | frozenset(who),
            self.source,
            self.rule,
            self.basis,
            self.own_spots,
        )

    @classmethod
    def from_config(
        cls, raw: Mapping[str, Any], exempt: frozenset[str] = frozenset()
    ) -> RakePolicy:
        """A variant config's ``rake`` section: ``rate`` (or ``value``), ``basis``
        (``net`` or ``per_comparison``, with ``basis_source``), optional ``own_spots``
        and ``cap``, and the ``source`` of the rate (on a per-unit basis followed by
        the ``basis_source``; a net basis keeps the source alone, as records of hands
        settled before the basis was a config value have it)."""
        try:
            section = raw["rake"]
            rate = section["rate"] if "rate" in section else section["value"]
            basis = RakeBasis(str(section["basis"]))
            source = str(section["source"])
            own = frozenset(str(s) for s in section.get("own_spots", ()))
            if basis is not RakeBasis.NET or own:  # net records keep their source as it was
                source = f"{source}; basis {basis.value}: {section['basis_source']}"
            cap = section.get("cap")
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidInput(f"rake config: {e!r}") from e
        return cls(exact(str(rate), "rake rate"), cap, exempt, source, basis=basis, own_spots=own)


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
    profits: Mapping[str, int],
    policy: RakePolicy,
    order: Sequence[str],
    *,
    paid: Sequence[PaidLine] = (),
    carried: Mapping[str, int] | None = None,
) -> tuple[dict[str, int], list[RakeStep | RakeUnitStep]]:
    """The rake of a hand whose rounded nets are ``profits`` and rounded payments
    ``paid``, and the steps that record it: one :class:`RakeStep` on the ``net`` basis;
    on a per-unit basis one :class:`RakeUnitStep` per unit won and a closing
    :class:`RakeStep` of the totals. ``carried`` (from the hand's liability rule) limits
    each participant's rake to ``carried + net``."""
    if policy.by_unit:
        return _rake_by_unit(profits, policy, order, paid, carried)
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
    return rakes, [step]


UnitKey = tuple[str, str, str]
"""``(winner, counterparty, spot)``: counterparty ``""`` on the net basis, spot ``""``
unless the spot is raked on its own."""


def rake_units(
    paid: Sequence[PaidLine], policy: RakePolicy, order: Sequence[str]
) -> dict[UnitKey, int]:
    """What each participant won on each rake unit (module docstring), from the rounded
    payments; only units won (> 0), in seat order of winner, then counterparty."""
    per_comparison = policy.basis is RakeBasis.PER_COMPARISON
    totals: dict[UnitKey, int] = {}
    for line in paid:
        spot = line.spot if line.spot in policy.own_spots else ""
        for who, other, amount, own in (
            (line.payee, line.payer, line.paid, spot),
            (line.payer, line.payee, -line.paid, ""),  # a loss counts with the rest
        ):
            key = (who, other if per_comparison else "", own)
            totals[key] = totals.get(key, 0) + amount
    rank = {p: i for i, p in enumerate(order)}
    return {
        k: totals[k]
        for k in sorted(totals, key=lambda k: (rank[k[0]], rank.get(k[1], -1), k[2]))
        if totals[k] > 0
    }


def _rake_by_unit(
    profits: Mapping[str, int],
    policy: RakePolicy,
    order: Sequence[str],
    paid: Sequence[PaidLine],
    carried: Mapping[str, int] | None,
) -> tuple[dict[str, int], list[RakeStep | RakeUnitStep]]:
    won = {k: v for k, v in rake_units(paid, policy, order).items() if k[0] not in policy.exempt}
    num, den = policy.rate.numerator, policy.rate.denominator
    raw = {k: v * num // den for k, v in won.items()}
    total = sum(raw.values())
    cap = policy.cap
    unit_rake = (
        {k: r * cap // total for k, r in raw.items()} if cap is not None and total > cap else raw
    )
    limits: dict[str, int] = {}
    if carried is not None:
        left = {p: max(0, carried[p] + profits[p]) for p in order if p in carried}
        for k, r in unit_rake.items():
            who = k[0]
            if who in left and r > left[who]:
                limits[who] = carried[who] + profits[who]
                unit_rake[k] = left[who]
            if who in left:
                left[who] -= unit_rake[k]
    per_comparison = policy.basis is RakeBasis.PER_COMPARISON
    steps: list[RakeStep | RakeUnitStep] = [
        RakeUnitStep(
            rule=(
                RULE_RAKE_OWN_SPOT
                if k[2]
                else RULE_RAKE_PER_COMPARISON
                if per_comparison
                else RULE_RAKE
            ),
            source=policy.source,
            rate=policy.rate,
            winner=k[0],
            against=k[1],
            spot=k[2],
            won=v,
            rake=unit_rake[k],
        )
        for k, v in won.items()
    ]
    rakes = dict.fromkeys(order, 0)
    for k, r in unit_rake.items():
        rakes[k[0]] += r
    steps.append(
        RakeStep(
            rule=RULE_RAKE_TOTAL,
            source=policy.source,
            rate=policy.rate,
            cap=policy.cap,
            exempt=tuple(sorted(policy.exempt)),
            profits=tuple((p, profits[p]) for p in order),
            rakes=tuple((p, rakes[p]) for p in order),
            basis=policy.basis.value,
            own_spots=tuple(sorted(policy.own_spots)),
            limits=tuple((p, limits[p]) for p in order if p in limits),
        )
    )
    return rakes, steps
