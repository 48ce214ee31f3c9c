"""The settlement pipeline for claim-based hands, and the house-banked flavour.

:func:`settle` runs, in the order README.md (Money) states:

1. **theoretical** - the claims as the game's formula gives them (exact);
2. **caps** (封顶) - each :mod:`~croupier.money.caps` rule in turn;
3. **limited liability** - each :mod:`~croupier.money.liability` rule in turn: rules on
   one payer's payments (查大叫, 花猪) first, then at most one rule on the whole hand
   (banker cover, Dou Dizhu, proportional to carried);
4. **rounding** - what each payer owes each payee on each spot (all their claims on
   that spot added up) is brought to whole units by truncating it from the receiver;
   the cut-off fraction stays with the payer, so rounding can never unbalance the hand;
5. **rake** - on the variant's basis (:mod:`~croupier.money.rake`): each
   participant's net profit for the hand, or each won comparison, truncated.

The design brief lists rake before rounding. Here the rake is still taken on each net profit
after liability, but on the profit as rounded, because that is what the participant
actually receives - so ``rake <= rate * profit`` holds for the figures in the record.
For the seeds' rates (5% and 2%, whose reciprocals are whole numbers)
``floor(rate * floor(x)) == floor(rate * x)`` for every exact profit ``x``: the order
of the two truncations cannot change the rake on a profit received in one payment.

A hand rule (banker cover, Dou Dizhu, proportional) that changes any net - or that
leaves fractional claims - replaces the claims by a canonical decomposition of the new
nets: losers in seat order pay winners in seat order, each payment as large as both
remaining amounts allow, under the spot ``"net"``. Every participant is then only a
payer or only a receiver, so truncation can only shrink each one's result and nobody
ends up beyond the limit the rule set. What a receiver paid in several fractional parts
loses to truncation depends on seat order and on nothing else: it is the odd-unit rule
of claim-based hands.

On the ``per_comparison`` rake basis a hub rule (banker cover, Dou Dizhu) keeps every
payment between the hub and one player instead: each player's result after the rule is
paid to or by the hub, so each comparison stays a payment of its own and is raked on
its own (what the hub pays and what it receives each add up to the whole units of
their exact total, :func:`_through_hub`). Composition with limited
liability, in the documented order (README, Money): 防以小博大 clamps each player's
comparison to what they carried, the banker's cover then scales the winners' (or the
losers') comparisons pro rata, and only then is each comparison raked - on what was
actually paid in it. No rake makes anyone lose more than they carried: a banker who
could not cover pays no rake on comparisons it won, because what it won there went to
the winners (its rake is at most ``carried + net``, :mod:`~croupier.money.rake`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Final, TypeAlias, cast

from croupier.accel import native as _native
from croupier.errors import InvalidInput
from croupier.money.caps import Capped, CapRule, apply_cap
from croupier.money.claims import Claim, nets_of, ordered
from croupier.money.liability import (
    BankerCover,
    ChaDaJiao,
    DouDizhuThreeStep,
    HandRule,
    HuaZhuSplit,
    LiabilityRule,
    ProportionalToCarried,
    banker_pro_rata,
    cap_by_carried,
    cha_da_jiao,
    doudizhu_three_step,
    hua_zhu_split,
    proportional_to_carried,
)
from croupier.money.rake import NO_RAKE, RakeBasis, RakePolicy, rake_step
from croupier.money.record import (
    RECORD_VERSION,
    ClaimLine,
    LiabilityStep,
    PaidLine,
    PaymentLine,
    RoundingStep,
    SettlementResult,
    SpotLine,
    Step,
    StepKind,
    TheoreticalStep,
    claim_line,
    paid_line,
    spot_line,
)
from croupier.money.units import Number, exact, floor_to_unit, non_negative

if TYPE_CHECKING:
    from croupier._accel import HouseRows

HOUSE: Final = "house"
"""The participant id of the house bank when it is the counterparty."""

RULE_THEORETICAL: Final = "theoretical"
RULE_ROUNDING: Final = "truncate_from_receiver"
SOURCE_ROUNDING: Final = (
    "README.md, Money: a fraction of a minor unit is truncated from the receiver and stays "
    "with the payer"
)
NET_SPOT: Final = "net"
"""Spot label of a payment that replaces pairwise amounts after a hand-level rule."""
DECOMPOSED: Final = "nets paid losers -> winners in seat order"

PaymentKey: TypeAlias = tuple[str, str, str]
"""``(payer, payee, spot)``: what one payer owes one payee on one spot."""


def _check_participants(participants: Sequence[str]) -> tuple[str, ...]:
    order = tuple(participants)
    for p in order:
        if not isinstance(p, str) or not p:
            raise InvalidInput(f"participant ids must be non-empty strings, got {p!r}")
    if len(set(order)) != len(order):
        raise InvalidInput("participant ids must be unique")
    return order


def _nets(payments: Sequence[PaymentLine], order: Sequence[str]) -> dict[str, Fraction]:
    return nets_of(((p.payer, p.payee, p.amount) for p in payments), order)


def _spot_label(lines: Sequence[PaymentLine]) -> str:
    spots = sorted({p.spot for p in lines})
    return "+".join(spots) if spots else NET_SPOT


def _apply_payer_rule(
    payments: list[PaymentLine], rule: ChaDaJiao | HuaZhuSplit, order: Sequence[str]
) -> tuple[list[PaymentLine], tuple[str, ...], str]:
    mine = [
        p for p in payments if p.payer == rule.payer and (not rule.spots or p.spot in rule.spots)
    ]
    owed: dict[str, Fraction] = {}
    for p in mine:
        owed[p.payee] = owed.get(p.payee, Fraction(0)) + p.amount
    owed = {q: owed[q] for q in order if q in owed}
    new: dict[str, Fraction]
    if isinstance(rule, ChaDaJiao):
        new = cha_da_jiao(rule.balance, owed, rule.fan)
        note = f"balance {rule.balance}"
    else:
        whole_owed = {}
        for q, v in owed.items():
            if v.denominator != 1:
                raise InvalidInput(f"花猪 claims must be whole minor units, {q!r} is owed {v}")
            whole_owed[q] = v.numerator
        new = {
            q: Fraction(v)
            for q, v in hua_zhu_split(rule.balance, whole_owed, unit=rule.unit).items()
        }
        note = f"balance {rule.balance}, unit {rule.unit}"
    changed = tuple(q for q in owed if new[q] != owed[q])
    if not changed:
        return payments, (), note
    out = [p for p in payments if not (p in mine and p.payee in changed)]
    for q in changed:
        lines = [p for p in mine if p.payee == q]
        out.append(PaymentLine(rule.payer, q, _spot_label(lines), new[q]))
    return out, tuple(sorted(set(changed) | {rule.payer}, key=order.index)), note


def _decompose(nets: dict[str, Fraction], order: Sequence[str]) -> list[PaymentLine]:
    """Losers in seat order pay winners in seat order (north-west corner)."""
    losers = [p for p in order if nets[p] < 0]
    winners = [p for p in order if nets[p] > 0]
    owe = {p: -nets[p] for p in losers}
    due = {p: nets[p] for p in winners}
    out: list[PaymentLine] = []
    i = j = 0
    while i < len(losers) and j < len(winners):
        payer, payee = losers[i], winners[j]
        amount = min(owe[payer], due[payee])
        out.append(PaymentLine(payer, payee, NET_SPOT, amount))
        owe[payer] -= amount
        due[payee] -= amount
        if owe[payer] == 0:
            i += 1
        if due[payee] == 0:
            j += 1
    return out


def _through_hub(
    hub: str,
    payments: Sequence[PaymentLine],
    nets: dict[str, Fraction],
    order: Sequence[str],
    unit: int,
) -> list[PaymentLine]:
    """Each player's net paid to or by ``hub``, under the spots of its claims.

    Both sides are brought to whole ``unit`` s here, each so that it adds up to the
    whole units of its exact total (:func:`_whole_shares`): what the hub receives, and
    what it pays. A hub that wins its cover from losers scaled pro rata so receives
    exactly what the liability rule gave it (truncating each receipt on its own could
    leave it below that, and below what it may lose); a hub that cannot cover pays out
    exactly what it has, pro rata (truncating each payment from its receiver would leave
    the odd units with the hub: a banker who carried nothing could end a few units up,
    past 防以小博大's "win at most what was carried")."""
    receipts = {q: -nets[q] for q in order if q != hub and nets[q] < 0}
    paid = {q: nets[q] for q in order if q != hub and nets[q] > 0}
    whole = {**_whole_shares(receipts, order, unit), **_whole_shares(paid, order, unit)}
    out: list[PaymentLine] = []
    for q in order:
        if q == hub or nets[q] == 0:
            continue
        spot = _spot_label([p for p in payments if q in (p.payer, p.payee)])
        if nets[q] > 0:
            out.append(PaymentLine(hub, q, spot, Fraction(whole[q])))
        else:
            out.append(PaymentLine(q, hub, spot, Fraction(whole[q])))
    return out


def _whole_shares(
    amounts: Mapping[str, Fraction], order: Sequence[str], unit: int
) -> dict[str, int]:
    """``amounts`` (each > 0) in whole ``unit`` s adding up to the whole units of their
    exact total: each truncated, and the units the truncations leave one each to the
    largest fractions (seat order on ties). Each share is its amount truncated or one
    unit more, never more than its amount rounded up to a whole unit."""
    whole = {q: floor_to_unit(v, unit) for q, v in amounts.items()}
    short = floor_to_unit(sum(amounts.values(), Fraction(0)), unit) - sum(whole.values())
    by_fraction = sorted(amounts, key=lambda q: (-(amounts[q] - whole[q]), order.index(q)))
    for q in by_fraction[: short // unit]:
        whole[q] += unit
    return whole


DECOMPOSED_HUB: Final = "nets paid to or by the hub, one payment per comparison"


def _apply_hand_rule(
    payments: list[PaymentLine],
    rule: HandRule,
    order: Sequence[str],
    unit: int,
    per_comparison: bool = False,
) -> tuple[list[PaymentLine], dict[str, Fraction], str]:
    nets = _nets(payments, order)
    if not payments:
        return payments, nets, "no claims"
    if isinstance(rule, BankerCover | DouDizhuThreeStep):
        hub = rule.banker if isinstance(rule, BankerCover) else rule.landlord
        if hub not in order:
            raise InvalidInput(f"{hub!r} is not a participant")
        for p in payments:
            if hub not in (p.payer, p.payee):
                raise InvalidInput(
                    f"{rule.rule}: every claim must involve {hub!r}, not {p.payer!r} -> {p.payee!r}"
                )
        parties = [q for q in order if q != hub and any(q in (p.payer, p.payee) for p in payments)]
        if isinstance(rule, BankerCover):
            if hub not in rule.carried:
                raise InvalidInput(f"no carried amount for the banker {hub!r}")
            results = {q: nets[q] for q in parties}
            after = banker_pro_rata(hub, cap_by_carried(results, rule.carried), rule.carried[hub])
        else:
            after = doudizhu_three_step(
                hub, {hub: nets[hub], **{q: nets[q] for q in parties}}, rule.carried
            )
    else:
        if per_comparison:
            raise InvalidInput(
                "a per-comparison rake needs a hub rule (banker cover, Dou Dizhu), "
                "not proportional liability"
            )
        active = {q: v for q, v in nets.items() if v != 0}
        after = proportional_to_carried(active, rule.carried)
    new_nets = {q: after.get(q, nets[q]) for q in order}
    whole = all(p.amount.denominator == 1 and p.amount.numerator % unit == 0 for p in payments)
    if new_nets == nets and whole:
        return payments, new_nets, "no limit binds; claims kept"
    if per_comparison:
        return _through_hub(hub, payments, new_nets, order, unit), new_nets, DECOMPOSED_HUB
    return _decompose(new_nets, order), new_nets, DECOMPOSED


def _check_rule_order(liability: Sequence[LiabilityRule]) -> None:
    seen_hand = False
    for rule in liability:
        if isinstance(rule, ChaDaJiao | HuaZhuSplit):
            if seen_hand:
                raise InvalidInput("payer rules (查大叫, 花猪) come before the hand rule")
        elif isinstance(rule, BankerCover | DouDizhuThreeStep | ProportionalToCarried):
            if seen_hand:
                raise InvalidInput("at most one hand-level liability rule")
            seen_hand = True
        else:
            raise InvalidInput(f"unknown liability rule {rule!r}")


def settle(
    claims: Sequence[Claim],
    *,
    participants: Sequence[str],
    caps: Sequence[CapRule] = (),
    liability: Sequence[LiabilityRule] = (),
    rake: RakePolicy = NO_RAKE,
    unit: int = 1,
    hand_id: str = "",
    source: str = "",
    staked: Mapping[str, int] | None = None,
) -> SettlementResult:
    """Settle a hand given as claims. ``participants`` in seat order (it fixes the order
    of the record and of the odd-unit rule); ``unit`` is the rounding step in minor
    units (1, or :data:`~croupier.money.units.MINOR_PER_POINT` where a seed truncates to
    whole points); ``source`` names the seed formula that produced the claims.
    ``staked``: for stake-based hands, each bettor's total stake; the result then lists
    it and ``returned`` (stake plus net before rake, negative where a multiplied loss
    exceeds the stake), recorded from record version 2 on."""
    order = _check_participants(participants)
    if isinstance(unit, bool) or not isinstance(unit, int) or unit < 1:
        raise InvalidInput("rounding unit must be an int >= 1")
    for c in claims:
        if not isinstance(c, Claim):
            raise InvalidInput(f"not a Claim: {c!r}")
        for who in (c.payer, c.payee):
            if who not in order:
                raise InvalidInput(f"{who!r} is not a participant")
    _check_rule_order(liability)
    steps: list[Step] = []
    theo_nets = nets_of(((c.payer, c.payee, c.amount) for c in claims), order)
    steps.append(
        TheoreticalStep(
            RULE_THEORETICAL, source, tuple(c.line() for c in claims), ordered(theo_nets, order)
        )
    )

    capped: list[Capped] = [(c, c.multiple) for c in claims]
    for cap in caps:
        capped, cap_step = apply_cap(capped, cap)
        steps.append(cap_step)

    payments = [
        PaymentLine(c.payer, c.payee, c.spot, c.amount if m is c.multiple else m * c.base)
        for c, m in capped
    ]
    per_comparison = rake.basis is RakeBasis.PER_COMPARISON
    carried: Mapping[str, int] | None = None
    for rule in liability:
        before = _nets(payments, order)
        if isinstance(rule, ChaDaJiao | HuaZhuSplit):
            if rule.payer not in order:
                raise InvalidInput(f"{rule.payer!r} is not a participant")
            payments, changed, note = _apply_payer_rule(payments, rule, order)
            after = _nets(payments, order)
        else:
            payments, after, note = _apply_hand_rule(payments, rule, order, unit, per_comparison)
            carried = rule.carried
            changed = tuple(q for q in order if after[q] != before[q])
        steps.append(
            LiabilityStep(
                rule.rule,
                rule.source,
                ordered(before, order),
                ordered(after, order),
                tuple(payments),
                changed,
                note,
            )
        )

    grouped: dict[PaymentKey, Fraction] = {}
    for p in payments:
        key = (p.payer, p.payee, p.spot)
        so_far = grouped.get(key)
        grouped[key] = p.amount if so_far is None else so_far + p.amount
    exact_of = _Exact(math.lcm(*(amount.denominator for amount in grouped.values())))
    owed = {key: a.numerator * (exact_of.scale // a.denominator) for key, a in grouped.items()}
    rounding, nets, spot_totals = _round(owed, exact_of, unit, order)
    steps.append(rounding)
    if staked is not None:
        for who, amount in staked.items():
            if who not in order:
                raise InvalidInput(f"{who!r} is not a participant")
            non_negative(amount, "stake")
    result = _result(
        steps,
        nets,
        spot_totals,
        rake=rake,
        order=order,
        hand_id=hand_id,
        carried=carried,
        staked=None if staked is None else dict(staked),
    )
    if staked is None:
        return result
    return dataclasses.replace(result, stakes_since=2)


class _Exact(dict[int, Fraction]):
    """Exact amounts counted in whole ``1/scale`` minor units: ``exact_of[n]`` is
    ``Fraction(n, scale)``, built once per hand however often the record repeats it (a
    claim's amount is usually also its payment's, and often a net)."""

    __slots__ = ("scale",)

    def __init__(self, scale: int) -> None:
        super().__init__()
        self.scale = scale

    def __missing__(self, amount: int) -> Fraction:
        # Fraction(n) skips the gcd: the usual case of whole multiples only
        value = Fraction(amount) if self.scale == 1 else Fraction(amount, self.scale)
        self[amount] = value
        return value


_EXACT_TABLES: dict[int, _Exact] = {}
_TABLE_LIMIT: Final = 4096
"""Entries an exact-amount table holds before it starts again (tables: as many)."""


def _exact_table(scale: int) -> _Exact:
    """The exact amounts in ``1/scale`` minor units, shared by every hand settled in
    this process: a ``Fraction`` is immutable, and stakes and their multiples recur from
    hand to hand, so most amounts are built once. Bounded: a table (or the set of
    tables) that grows past :data:`_TABLE_LIMIT` is emptied and fills again."""
    table = _EXACT_TABLES.get(scale)
    if table is None:
        if len(_EXACT_TABLES) >= _TABLE_LIMIT:
            _EXACT_TABLES.clear()
        table = _EXACT_TABLES[scale] = _Exact(scale)
    elif len(table) >= _TABLE_LIMIT:
        table.clear()
    return table


def _round(
    owed: Mapping[PaymentKey, int], exact_of: _Exact, unit: int, order: Sequence[str]
) -> tuple[RoundingStep, dict[str, int], dict[str, dict[str, int]]]:
    """Step 4: each amount ``owed`` (in ``1/exact_of.scale`` minor units, >= 0) truncated
    from its receiver to whole ``unit`` s; the payer keeps the fraction. Returns the
    record, each participant's rounded net and, per participant in ``order``, the
    rounded total per spot."""
    scale = exact_of.scale
    paid_lines: list[PaidLine] = []
    kept = dict.fromkeys(order, 0)
    nets = dict.fromkeys(order, 0)
    spot_totals: dict[str, dict[str, int]] = {p: {} for p in order}
    for (payer, payee, spot), amount in owed.items():
        if amount < 0:
            raise InvalidInput(
                f"only a received amount (>= 0) is truncated, got {exact_of[amount]}"
            )
        paid = amount // scale // unit * unit  # floor_to_unit(amount / scale, unit)
        paid_lines.append(paid_line(payer, payee, spot, exact_of[amount], paid))
        kept[payer] += amount - paid * scale
        nets[payer] -= paid
        nets[payee] += paid
        received, given = spot_totals[payee], spot_totals[payer]
        received[spot] = received.get(spot, 0) + paid
        given[spot] = given.get(spot, 0) - paid
    step = RoundingStep(
        RULE_ROUNDING,
        SOURCE_ROUNDING,
        unit,
        tuple(paid_lines),
        tuple([(p, exact_of[kept[p]]) for p in order if kept[p]]),
    )
    return step, nets, spot_totals


def _result(
    steps: list[Step],
    nets: Mapping[str, int],
    spot_totals: Mapping[str, Mapping[str, int]],
    *,
    rake: RakePolicy,
    order: tuple[str, ...],
    hand_id: str,
    staked: dict[str, int] | None = None,
    carried: Mapping[str, int] | None = None,
) -> SettlementResult:
    """Step 5 and the result: rake on the rounded ``nets`` (or, on a per-unit basis, on
    the rounded payments of the rounding step, ``steps[-1]``), the deltas, the spot
    lines (``spot_totals`` is in seat order; each participant's spots are sorted) and,
    for stake-based hands, the stakes and what was handed back (stake plus rounded
    net). ``staked`` becomes the result's own: a dict nobody else holds."""
    rounding = steps[-1]
    paid = rounding.payments if isinstance(rounding, RoundingStep) else ()
    rakes, r_steps = rake_step(nets, rake, order, paid=paid, carried=carried)
    steps.extend(r_steps)
    deltas = {p: nets[p] - rakes[p] for p in order}
    spots = [
        spot_line(who, spot, totals[spot])
        for who, totals in spot_totals.items()
        for spot in sorted(totals)
    ]
    returned = {} if staked is None else {p: v + nets[p] for p, v in staked.items()}
    # every dict here is this hand's own
    return SettlementResult.of_own_maps(
        hand_id,
        order,
        deltas,
        rakes,
        sum(rakes.values()),
        tuple(steps),
        tuple(spots),
        {} if staked is None else staked,
        returned,
    )


@dataclass(frozen=True, slots=True)
class Wager:
    """One stake against the house: ``participant`` put ``amount`` minor units on
    ``spot``; ``result`` is the profit multiple the outcome gives - e.g. 1, 1/2, 8, 11
    for a win, 0 for a push (stake returned), -1 for a loss, -1/2 for half the stake
    lost (000 楚汉德州: half the stake back on a draw)."""

    participant: str
    spot: str
    amount: int
    result: Fraction | int

    def __post_init__(self) -> None:
        if not isinstance(self.participant, str) or not self.participant:
            raise InvalidInput("a wager needs a participant")
        amount = self.amount
        if type(amount) is not int or amount < 0:  # bool, Fraction, negative: the full check
            object.__setattr__(self, "amount", non_negative(amount, "wager amount"))
        result = self.result
        if type(result) is not Fraction:  # int, str, a subclass: as exact() reads it
            result = exact(result, "wager result")
            object.__setattr__(self, "result", result)
        if result.numerator < -result.denominator:  # result < -1 (denominator > 0)
            raise InvalidInput(f"a wager cannot lose more than its stake, result {result}")


SOURCE_AGAINST_HOUSE: Final = (
    "wager x profit multiple, house as counterparty; each spot paid on its own, "
    "fractions truncated from the receiver (README.md, Money)"
)


def _house_stakes(wagers: Sequence[Wager], house: str) -> dict[str, int]:
    """Check ``house`` and ``wagers``; each player's total stake, players in order of
    first wager."""
    if not isinstance(house, str) or not house:
        raise InvalidInput("house id must be a non-empty string")
    staked: dict[str, int] = {}
    for w in wagers:
        if not isinstance(w, Wager):
            raise InvalidInput(f"not a Wager: {w!r}")
        if w.participant == house:
            raise InvalidInput(f"the house {house!r} cannot place a wager")
        staked[w.participant] = staked.get(w.participant, 0) + w.amount
    return staked


def _house_rake(
    house: str, rate: Number, cap: int | None, source: str, policy: RakePolicy | None
) -> RakePolicy:
    """The rake on players' winnings (``policy`` if given, else ``rate`` on each
    player's net profit); the house is exempt."""
    if policy is not None:
        kept = _EXEMPT_POLICIES.get(id(policy))
        if kept is not None and kept[0] is policy and kept[1] == house:
            return kept[2]
        out = policy.with_exempt(house)
        if len(_EXEMPT_POLICIES) >= _POLICY_LIMIT:
            _EXEMPT_POLICIES.clear()
        _EXEMPT_POLICIES[id(policy)] = (policy, house, out)
        return out
    # Exact types only: a bool (== 1), a float or a string is built, and refused, anew.
    rate_key: tuple[int, int] | None = (
        (rate, 1)
        if type(rate) is int
        else (rate.numerator, rate.denominator)
        if type(rate) is Fraction
        else None
    )
    cacheable = (
        rate_key is not None
        and (cap is None or type(cap) is int)
        and type(house) is str
        and type(source) is str
    )
    key = (house, rate_key, cap, source)
    if cacheable and (built := _RATE_POLICIES.get(key)) is not None:
        return built
    built = RakePolicy(
        exact(rate, "rake_rate"), cap, frozenset({house}), source=source or "variant rake rate"
    )
    if cacheable:
        if len(_RATE_POLICIES) >= _POLICY_LIMIT:
            _RATE_POLICIES.clear()
        _RATE_POLICIES[key] = built
    return built


_POLICY_LIMIT: Final = 256
_RATE_POLICIES: dict[tuple[str, tuple[int, int] | None, int | None, str], RakePolicy] = {}
"""The house-exempt policy of each (house, rate, cap, source) asked for: a policy is
immutable and checked once."""
_EXEMPT_POLICIES: dict[int, tuple[RakePolicy, str, RakePolicy]] = {}
"""A variant's policy with the house exempt, by the variant policy's identity (kept,
so that the identity stays its own)."""


def _settle_against_house_generic(
    wagers: Sequence[Wager],
    *,
    house: str = HOUSE,
    rake_rate: Number = 0,
    rake_cap: int | None = None,
    rake_source: str = "",
    hand_id: str = "",
    rake: RakePolicy | None = None,
) -> SettlementResult:
    """:func:`settle_against_house` run through the general :func:`settle` pipeline:
    one claim per wager, from the house on a win or a push, to the house on a loss.
    The reference the direct computation is tested and benchmarked against."""
    staked = _house_stakes(wagers, house)
    claims = [
        Claim(house, w.participant, w.amount, (w.result,), w.spot)
        if w.result >= 0
        else Claim(w.participant, house, w.amount, (-w.result,), w.spot)
        for w in wagers
    ]
    result = settle(
        claims,
        participants=[*staked, house],
        rake=_house_rake(house, rake_rate, rake_cap, rake_source, rake),
        hand_id=hand_id,
        source=SOURCE_AGAINST_HOUSE,
    )
    returned = {p: v + result.deltas[p] + result.rake[p] for p, v in staked.items()}
    return dataclasses.replace(result, staked=staked, returned=returned)


def settle_against_house(
    wagers: Sequence[Wager],
    *,
    house: str = HOUSE,
    rake_rate: Number = 0,
    rake_cap: int | None = None,
    rake_source: str = "",
    hand_id: str = "",
    rake: RakePolicy | None = None,
) -> SettlementResult:
    """Settle wagers against the house (baccarat and other banked spots).

    Each spot is paid on its own (a player's wagers on one spot with the same sign of
    result are added up first): a win pays ``floor(stake * result)``, a loss costs
    ``floor(stake * -result)`` - either way the fraction is truncated from the receiver,
    i.e. kept by the house when it pays and by the player when they pay. Rake at
    ``rake_rate`` (0 allowed) on each player's net profit over all their wagers, or by
    the given ``rake`` policy (its basis, and its spots raked on their own); the house
    is exempt. Participants: players in order of first wager, then ``house``.
    ``staked`` / ``returned`` in the result are each player's stakes and the gross
    amounts handed back (stake plus win, the stake on a push, what is left of the stake
    on a partial loss).

    The result, record included, is the one :func:`settle` gives for one claim per
    wager (from the house when ``result >= 0``, to it otherwise): such claims meet no
    cap and no liability rule, so the theoretical step is worked out directly, in
    integers - every amount counted in ``1/scale`` minor units, ``scale`` the least
    common multiple of the results' denominators - and handed to :func:`settle`'s own
    rounding and rake."""
    _check_house(house)
    rows: list[_Row] = []
    for w in wagers:
        if not isinstance(w, Wager):
            raise InvalidInput(f"not a Wager: {w!r}")
        if w.participant == house:
            raise InvalidInput(f"the house {house!r} cannot place a wager")
        # a Wager's result is a Fraction once built (__post_init__)
        rows.append((w.participant, w.spot, w.amount, cast(Fraction, w.result)))
    policy = _house_rake(house, rake_rate, rake_cap, rake_source, rake)
    return _settle_rows(rows, house, policy, hand_id)


def settle_spots_against_house(
    stakes: Sequence[tuple[str, str, int]],
    results: Mapping[str, Number],
    *,
    house: str = HOUSE,
    rake_rate: Number = 0,
    rake_cap: int | None = None,
    rake_source: str = "",
    hand_id: str = "",
    rake: RakePolicy | None = None,
) -> SettlementResult:
    """:func:`settle_against_house` for a coup that gives each spot one result (baccarat,
    dice): ``stakes`` are ``(participant, spot, amount)`` in the order placed,
    ``results`` each spot's profit multiple. The result is the one
    ``settle_against_house([Wager(p, spot, amount, results[spot]) ...])`` gives, record
    included; each spot's result is checked once, as a :class:`Wager` checks it."""
    _check_house(house)
    checked: dict[str, Fraction] = {}
    rows: list[_Row] = []
    for player, spot, amount in stakes:
        if not isinstance(player, str) or not player:
            raise InvalidInput("a wager needs a participant")
        if type(amount) is not int or amount < 0:  # bool, Fraction, negative: as a Wager
            amount = non_negative(amount, "wager amount")
        result = checked.get(spot)
        if result is None:
            if spot not in results:
                raise InvalidInput(f"no result for spot {spot!r}")
            result = exact(results[spot], "wager result")
            if result.numerator < -result.denominator:  # < -1 (denominator > 0)
                raise InvalidInput(f"a wager cannot lose more than its stake, result {result}")
            checked[spot] = result
        if player == house:
            raise InvalidInput(f"the house {house!r} cannot place a wager")
        rows.append((player, spot, amount, result))
    policy = _house_rake(house, rake_rate, rake_cap, rake_source, rake)
    return _settle_rows(rows, house, policy, hand_id)


_Row: TypeAlias = tuple[str, str, int, Fraction]
"""A checked wager: participant, spot, amount, result."""


def _check_house(house: object) -> None:
    if not isinstance(house, str) or not house:
        raise InvalidInput("house id must be a non-empty string")


def _settle_rows(
    rows: list[_Row], house: str, policy: RakePolicy, hand_id: str
) -> SettlementResult:
    """The settlement of checked wagers (the docstring of :func:`settle_against_house`):
    the native path's where it is built and takes them (:mod:`croupier.accel`), else the
    pure path's, :func:`_settle_exact_rows` - the same result, the same record bytes."""
    if _native is not None and not policy.by_unit:
        texts = _native_texts(policy)
        if texts is not None:
            out = _native.house_rows(
                rows, house, hand_id, *texts[0], policy.cap, texts[1], texts[2], RECORD_VERSION
            )
            if out is not None:
                return NativeHouseResult.of(out, rows, house, policy, hand_id)
    return _settle_exact_rows(rows, house, policy, hand_id)


_NativeTexts: TypeAlias = tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]
_NATIVE_TEXTS: dict[int, tuple[RakePolicy, _NativeTexts | None]] = {}
_INT62: Final = 1 << 62


def _native_texts(policy: RakePolicy) -> _NativeTexts | None:
    """What the native call takes of ``policy`` (its rate, exemptions sorted, the
    record's fixed texts), built once per policy object; ``None`` where it cannot take
    it (a rate past 62 bits)."""
    kept = _NATIVE_TEXTS.get(id(policy))
    if kept is not None and kept[0] is policy:
        return kept[1]
    num, den = policy.rate.as_integer_ratio()
    out: _NativeTexts | None = None
    if num < _INT62 and den < _INT62:
        texts = (
            *(RULE_THEORETICAL, SOURCE_AGAINST_HOUSE, RULE_ROUNDING, SOURCE_ROUNDING),
            *(policy.rule, policy.source),
            *(StepKind.THEORETICAL.value, StepKind.ROUNDING.value, StepKind.RAKE.value),
        )
        out = ((num, den), tuple(sorted(policy.exempt)), texts)
    if len(_NATIVE_TEXTS) >= _POLICY_LIMIT:
        _NATIVE_TEXTS.clear()
    _NATIVE_TEXTS[id(policy)] = (policy, out)
    return out


class NativeHouseResult(SettlementResult):
    """A house settlement the native path computed (:func:`_settle_rows`): its deltas,
    rake, stakes and record bytes as that path gave them; its ``steps`` and ``spots``
    (objects nobody on the hot path reads) rebuilt by the pure path the first time they
    are asked for. Equal to the pure path's :class:`SettlementResult`, and its record
    the same bytes."""

    _inputs: tuple[list[_Row], str, RakePolicy, str]
    _body: bytes

    @classmethod
    def of(
        cls, out: HouseRows, rows: list[_Row], house: str, policy: RakePolicy, hand_id: str
    ) -> NativeHouseResult:
        body, order, deltas, rakes, total_rake, staked, returned = out
        # the steps and spots it is given are placeholders: the properties below, which
        # take precedence over the instance's own values, build them when asked for
        result = super().of_own_maps(
            hand_id, order, deltas, rakes, total_rake, (), (), staked, returned
        )
        vars(result).update(_inputs=(rows, house, policy, hand_id), _body=body)
        return cast(NativeHouseResult, result)

    def _exact(self) -> SettlementResult:
        kept = vars(self).get("_exact_result")
        if kept is None:
            kept = vars(self)["_exact_result"] = _settle_exact_rows(*self._inputs)
        return cast(SettlementResult, kept)

    @property
    def steps(self) -> tuple[Step, ...]:
        return self._exact().steps

    @property
    def spots(self) -> tuple[SpotLine, ...]:
        return self._exact().spots

    def record_body(self, version: int = RECORD_VERSION) -> bytes:
        if version == RECORD_VERSION:
            return self._body
        return self._exact().record_body(version)

    # Compared, hashed and shown as the pure path's result (its steps built).
    def __repr__(self) -> str:
        return repr(self._exact())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NativeHouseResult):
            other = other._exact()
        return self._exact() == other

    def __hash__(self) -> int:
        return hash(self._exact())


def _settle_exact_rows(
    rows: Sequence[_Row], house: str, policy: RakePolicy, hand_id: str
) -> SettlementResult:
    """The pure path of :func:`_settle_rows`."""
    staked: dict[str, int] = {}
    results: dict[int, Fraction] = {}  # each distinct result object: a hand has a handful
    for player, _, amount, result in rows:
        staked[player] = staked.get(player, 0) + amount
        results[id(result)] = result
    order = (*staked, house)
    ratios = {key: r.as_integer_ratio() for key, r in results.items()}
    scale = math.lcm(*{den for _, den in ratios.values()})
    exact_of = _exact_table(scale)
    # For each result: does the house pay, the claim's factors (the multiple,
    # positive) and the multiple in 1/scale units.
    terms = {
        key: (num >= 0, _factors(abs(num), den), abs(num) * (scale // den))
        for key, (num, den) in ratios.items()
    }
    claims: list[ClaimLine] = []
    theoretical = dict.fromkeys(staked, 0)
    owed: dict[PaymentKey, int] = {}
    for player, spot, stake, result in rows:
        house_pays, factors, per_unit = terms[id(result)]
        amount = stake * per_unit
        if house_pays:
            theoretical[player] += amount
            claims.append(claim_line(house, player, spot, stake, factors, exact_of[amount]))
            key = (house, player, spot)
        else:
            theoretical[player] -= amount
            claims.append(claim_line(player, house, spot, stake, factors, exact_of[amount]))
            key = (player, house, spot)
        owed[key] = owed.get(key, 0) + amount
    theoretical[house] = -sum(theoretical.values())
    theoretical_step = TheoreticalStep(
        RULE_THEORETICAL,
        SOURCE_AGAINST_HOUSE,
        tuple(claims),
        tuple([(p, exact_of[v]) for p, v in theoretical.items()]),
    )
    rounding, nets, spot_totals = _round(owed, exact_of, 1, order)
    return _result(
        [theoretical_step, rounding],
        nets,
        spot_totals,
        rake=policy,
        order=order,
        hand_id=hand_id,
        staked=staked,
    )


_FACTORS: dict[tuple[int, int], tuple[Fraction]] = {}


def _factors(multiple: int, den: int) -> tuple[Fraction]:
    """``(Fraction(multiple, den),)``, one tuple per multiple for the process (bounded
    as the exact-amount tables are)."""
    key = (multiple, den)
    out = _FACTORS.get(key)
    if out is None:
        if len(_FACTORS) >= _TABLE_LIMIT:
            _FACTORS.clear()
        out = _FACTORS[key] = (Fraction(multiple, den),)
    return out
