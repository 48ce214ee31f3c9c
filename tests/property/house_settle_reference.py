"""The money kernel's house-banked settlement as it was before its integer rework, kept
verbatim (``settle_against_house`` and the helpers it used, from
``libs/croupier/money/settle.py``) as the oracle the current kernel is compared with:
every record and every result must be the very one this code gives. Also the checks a
``Wager`` made of its fields, and the baccarat engine's settlement as it was. Not to be
edited: it is what "unchanged" means."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from croupier.errors import InvalidInput, MoneyError
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.baccarat.rules import spot_result
from croupier.money.rake import RakePolicy, rake_step
from croupier.money.record import (
    ClaimLine,
    PaidLine,
    RoundingStep,
    SettlementResult,
    SpotLine,
    Step,
    TheoreticalStep,
)
from croupier.money.settle import (
    HOUSE,
    RULE_ROUNDING,
    RULE_THEORETICAL,
    SOURCE_AGAINST_HOUSE,
    SOURCE_ROUNDING,
    PaymentKey,
    Wager,
)
from croupier.money.units import Number, exact, non_negative


def wager_fields(
    participant: Any, spot: str, amount: Any, result: Any
) -> tuple[str, str, int, Fraction]:
    """What ``Wager(participant, spot, amount, result)`` held (or raised) before."""
    if not isinstance(participant, str) or not participant:
        raise InvalidInput("a wager needs a participant")
    amount = non_negative(amount, "wager amount")
    value = exact(result, "wager result")
    if value < -1:
        raise InvalidInput(f"a wager cannot lose more than its stake, result {value}")
    return participant, spot, amount, value


def baccarat_settle(engine: BaccaratEngine, st: BaccaratState) -> SettlementResult:
    """``BaccaratEngine.settle`` as it was."""
    c = engine.coup(st)
    wagers = [
        Wager(st.seats[seat].player, spot.value, amount, spot_result(spot, c, engine.paytable))
        for seat, spot, amount in st.bets
    ]
    return settle_against_house(wagers, rake_rate=Fraction(0), hand_id=st.hand_id)


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
        paid_lines.append(PaidLine(payer, payee, spot, exact_of[amount], paid))
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
    staked: Mapping[str, int] | None = None,
    carried: Mapping[str, int] | None = None,
) -> SettlementResult:
    """Step 5 and the result: rake on the rounded ``nets`` (or, on a per-unit basis, on
    the rounded payments of the rounding step, ``steps[-1]``), the deltas, the spot
    lines (``spot_totals`` is in seat order; each participant's spots are sorted) and,
    for stake-based hands, the stakes and what was handed back (stake plus rounded
    net)."""
    rounding = steps[-1]
    paid = rounding.payments if isinstance(rounding, RoundingStep) else ()
    rakes, r_steps = rake_step(nets, rake, order, paid=paid, carried=carried)
    steps.extend(r_steps)
    deltas = {p: nets[p] - rakes[p] for p in order}
    total_rake = sum(rakes.values())
    if sum(deltas.values()) + total_rake != 0:  # pragma: no cover - guarded by construction
        raise MoneyError("settlement does not balance")
    spots = [
        SpotLine(who, spot, totals[spot])
        for who, totals in spot_totals.items()
        for spot in sorted(totals)
    ]
    returned = {} if staked is None else {p: v + nets[p] for p, v in staked.items()}
    return SettlementResult(
        hand_id=hand_id,
        participants=order,
        deltas=deltas,
        rake=rakes,
        total_rake=total_rake,
        steps=tuple(steps),
        spots=tuple(spots),
        staked={} if staked is None else staked,
        returned=returned,
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
        return policy.with_exempt(house)
    return RakePolicy(
        exact(rate, "rake_rate"), cap, frozenset({house}), source=source or "variant rake rate"
    )


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
    staked = _house_stakes(wagers, house)
    policy = _house_rake(house, rake_rate, rake_cap, rake_source, rake)
    order = (*staked, house)
    exact_of = _Exact(math.lcm(*{w.result.denominator for w in wagers}))
    # A hand has a handful of distinct results; for each: does the house pay, the
    # claim's factors (the multiple, positive) and the multiple in 1/scale units.
    terms: dict[tuple[int, int], tuple[bool, tuple[Fraction], int]] = {}
    claims: list[ClaimLine] = []
    theoretical = dict.fromkeys(staked, 0)
    owed: dict[PaymentKey, int] = {}
    for w in wagers:
        result = w.result.as_integer_ratio()
        term = terms.get(result)
        if term is None:
            num, den = result
            multiple = abs(num)
            term = (num >= 0, (Fraction(multiple, den),), multiple * exact_of.scale // den)
            terms[result] = term
        house_pays, factors, per_unit = term
        player, amount = w.participant, w.amount * per_unit
        if house_pays:
            payer, payee = house, player
            theoretical[player] += amount
        else:
            payer, payee = player, house
            theoretical[player] -= amount
        claims.append(ClaimLine(payer, payee, w.spot, w.amount, factors, exact_of[amount]))
        key = (payer, payee, w.spot)
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
