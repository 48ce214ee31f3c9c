"""Properties of the money kernel, for every flavour: zero-sum, nobody loses more than
they carried, pots add up to contributions, rake at most rate x profit, the same input
gives the same record, and seat order changes nothing but the documented odd units."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.money import (
    FIVE_PERCENT,
    TWO_PERCENT,
    BankerCover,
    ChaDaJiao,
    Claim,
    DouDizhuThreeStep,
    HuaZhuSplit,
    LiabilityStep,
    PotSeat,
    ProportionalToCarried,
    RakeBasis,
    RakePolicy,
    RakeStep,
    RakeUnitStep,
    RoundingStep,
    SettlementResult,
    Wager,
    banker_pro_rata,
    cap_by_carried,
    cha_da_jiao,
    classic_niuniu_bet_limits,
    doudizhu_three_step,
    fan_cap,
    hua_zhu_split,
    hundred_spot_multiplier_limit,
    proportional_to_carried,
    settle,
    settle_against_house,
    settle_pots,
    xuezhan_daodi_pair_cap,
)

BASES = st.sampled_from(list(RakeBasis))
PROFILE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RATES = st.sampled_from([Fraction(0), FIVE_PERCENT, TWO_PERCENT, Fraction(3, 100)])
NAMES = [f"p{i}" for i in range(9)]


def balanced(r: SettlementResult) -> None:
    assert sum(r.deltas.values()) + r.total_rake == 0
    assert sum(r.rake.values()) == r.total_rake
    assert all(v >= 0 for v in r.rake.values())


def rake_bounded(r: SettlementResult, rate: Fraction, exempt: tuple[str, ...] = ()) -> None:
    for who, rake in r.rake.items():
        profit = r.deltas[who] + rake
        if profit <= 0 or who in exempt:
            assert rake == 0
        else:
            assert rake <= rate * profit
            assert rake == rate.numerator * profit // rate.denominator


def rake_bounded_by_basis(
    r: SettlementResult, policy: RakePolicy, carried: dict[str, int] | None = None
) -> None:
    """Net basis: :func:`rake_bounded`. Per unit: every unit's rake is at most rate x
    what that unit paid its winner (exactly the truncated rate unless the carried limit
    cut it), the units add up to each participant's rake, and nobody loses more than
    carried because of the rake."""
    if not policy.by_unit:
        rake_bounded(r, policy.rate, tuple(policy.exempt))
        return
    units = [s for s in r.steps if isinstance(s, RakeUnitStep)]
    total = r.steps[-1]
    assert isinstance(total, RakeStep) and total.basis == policy.basis.value
    limited = dict(total.limits)
    per: dict[str, int] = dict.fromkeys(r.participants, 0)
    for u in units:
        assert u.won > 0
        assert 0 <= u.rake <= policy.rate * u.won
        if u.winner in policy.exempt:
            assert u.rake == 0
        elif u.winner not in limited and policy.cap is None:
            assert u.rake == policy.rate.numerator * u.won // policy.rate.denominator
        per[u.winner] += u.rake
    assert per == dict(r.rake)
    if carried is not None:
        for who, limit in limited.items():
            assert r.rake[who] == max(0, limit)
            assert r.deltas[who] >= -carried[who]


def same_record(a: SettlementResult, b: SettlementResult) -> None:
    assert canonical.dumps(a.to_json_dict()) == canonical.dumps(b.to_json_dict())


# -- side pots ------------------------------------------------------------------------------
@st.composite
def tables(draw: st.DrawFn) -> list[PotSeat]:
    n = draw(st.integers(2, 9))
    seats = []
    for i in range(n):
        contributed = draw(st.integers(0, 5000))
        folded = draw(st.booleans())
        strength = draw(st.integers(0, 3))  # few values: ties are common
        seats.append(PotSeat(NAMES[i], contributed, None if folded else strength, folded))
    if all(s.folded for s in seats):
        s = seats[0]
        seats[0] = PotSeat(s.participant, s.contributed, 0, False)
    return seats


@PROFILE
@given(tables(), RATES, st.integers(0, 8))
def test_pots_conserve_money(seats: list[PotSeat], rate: Fraction, b: int) -> None:
    button = seats[b % len(seats)].participant
    r = settle_pots(seats, button=button, rake=RakePolicy(rate))
    balanced(r)
    rake_bounded(r, rate)
    contributed = sum(s.contributed for s in seats)
    returned = sum(v for _, v in r.steps[0].returned)  # type: ignore[union-attr]
    assert sum(p.amount for p in r.pots) + returned == contributed
    assert sum(r.returned.values()) == contributed
    live = {s.participant for s in seats if not s.folded}
    for pot in r.pots:
        assert set(pot.winners) <= set(pot.eligible) <= live
        assert sum(v for _, v in pot.shares) == pot.amount
        assert sum(v for _, v in pot.contributions) == pot.amount
        assert len(pot.odd_units) < len(pot.winners) or len(pot.winners) == 1
    for s in seats:
        assert r.deltas[s.participant] >= -s.contributed  # nobody loses more than put in
        if s.folded:
            assert r.deltas[s.participant] <= 0 or r.returned[s.participant] > 0


@PROFILE
@given(tables(), RATES, st.randoms(use_true_random=False))
def test_pots_seat_order_only_moves_odd_units(
    seats: list[PotSeat], rate: Fraction, rnd: object
) -> None:
    policy = RakePolicy(rate)
    first = settle_pots(seats, rake=policy)
    same_record(first, settle_pots(seats, rake=policy))  # same input, same record
    shuffled = list(seats)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    other = settle_pots(shuffled, rake=policy)
    balanced(other)
    assert [(p.amount, set(p.eligible), set(p.winners)) for p in first.pots] == [
        (p.amount, set(p.eligible), set(p.winners)) for p in other.pots
    ]
    if all(not p.odd_units for p in first.pots):
        assert dict(first.deltas) == dict(other.deltas)
    else:
        gross_a = {w: sum(v for x, v in p.shares if x == w) for p in first.pots for w in p.winners}
        gross_b = {w: sum(v for x, v in p.shares if x == w) for p in other.pots for w in p.winners}
        for w in gross_a:
            assert abs(gross_a[w] - gross_b[w]) <= len(first.pots)


# -- banker games (flavours 1 and 2) --------------------------------------------------------
money_amounts = st.integers(0, 100_000)


@st.composite
def banker_hands(draw: st.DrawFn) -> tuple[list[Claim], dict[str, int], list[str]]:
    n = draw(st.integers(1, 8))
    players = NAMES[:n]
    claims = []
    for p in players:
        amount = draw(money_amounts)
        if draw(st.booleans()):
            claims.append(Claim("bk", p, amount, (), p))
        else:
            claims.append(Claim(p, "bk", amount, (), p))
    carried = {p: draw(money_amounts) for p in [*players, "bk"]}
    return claims, carried, [*players, "bk"]


@PROFILE
@given(banker_hands(), RATES, BASES)
def test_banker_cover(
    hand: tuple[list[Claim], dict[str, int], list[str]], rate: Fraction, basis: RakeBasis
) -> None:
    claims, carried, order = hand
    policy = RakePolicy(rate, basis=basis)
    r = settle(claims, participants=order, liability=[BankerCover("bk", carried)], rake=policy)
    balanced(r)
    rake_bounded_by_basis(r, policy, carried)
    rounding = next(s for s in r.steps if isinstance(s, RoundingStep))
    kept = dict(rounding.kept_by_payers)
    for who in order:
        gross = r.deltas[who] + r.rake[who]
        # losses at most carried; wins too, but for the fractions of a unit a payer keeps
        # (DESIGN.md, Money: "a fraction of a minor unit is truncated from the receiver
        # and stays with the payer") on the net basis; per comparison the banker pays and
        # receives whole units adding up to its exact totals and keeps none
        assert -carried[who] <= gross <= carried[who] + int(kept.get(who, 0))
        assert r.deltas[who] >= -carried[who]  # the rake included
    if basis is RakeBasis.PER_COMPARISON:  # one payment per comparison, all with the banker
        rounding = next(s for s in r.steps if isinstance(s, RoundingStep))
        assert all("bk" in (p.payer, p.payee) for p in rounding.payments)
        # every comparison paid on its own: the banker receives exactly the whole units of
        # what the losers owe it and pays out exactly the whole units of what it owes (a
        # short banker all it has), so it never ends up beyond its cover either way and
        # keeps no fraction (config version 3)
        after = next(s for s in r.steps if isinstance(s, LiabilityStep)).after
        exact_bk = dict(after)["bk"]
        assert abs(r.deltas["bk"] + r.rake["bk"] - exact_bk) < 1
        assert "bk" not in kept
        assert -carried["bk"] <= r.deltas["bk"] + r.rake["bk"] <= carried["bk"]
    same_record(
        r, settle(claims, participants=order, liability=[BankerCover("bk", carried)], rake=policy)
    )
    reordered = settle(
        claims,
        participants=list(reversed(order)),
        liability=[BankerCover("bk", carried)],
        rake=policy,
    )
    if basis is RakeBasis.NET:
        assert dict(reordered.deltas) == dict(r.deltas)
    else:  # the odd units of the banker's receipts and payments go by seat order on ties
        assert reordered.deltas["bk"] + reordered.rake["bk"] == r.deltas["bk"] + r.rake["bk"]
        assert all(
            abs((reordered.deltas[p] + reordered.rake[p]) - (r.deltas[p] + r.rake[p])) <= 1
            for p in order
        )


@PROFILE
@given(
    st.dictionaries(st.sampled_from(NAMES), st.integers(-(10**5), 10**5), min_size=1),
    st.integers(0, 10**5),
    st.integers(0, 10**5),
)
def test_flavours_1_and_2_exact(results: dict[str, int], player_cap: int, cover: int) -> None:
    capped = cap_by_carried(results, dict.fromkeys(results, player_cap))
    assert all(abs(v) <= player_cap and v * results[p] >= 0 for p, v in capped.items())
    out = banker_pro_rata("bk", capped, cover)
    assert sum(out.values()) == 0
    assert abs(out["bk"]) <= cover
    for p in results:
        assert abs(out[p]) <= abs(capped[p])
        assert out[p] * capped[p] >= 0


# -- Dou Dizhu and proportional (flavours 3 and 4) -------------------------------------------
@st.composite
def doudizhu_hands(draw: st.DrawFn) -> tuple[dict[str, int], dict[str, int]]:
    farmer_amounts = [draw(st.integers(0, 50_000)) for _ in range(2)]
    sign = draw(st.sampled_from([1, -1]))
    scores = {"F1": sign * farmer_amounts[0], "F2": sign * farmer_amounts[1]}
    scores["L"] = -(scores["F1"] + scores["F2"])
    carried = {p: draw(st.integers(0, 60_000)) for p in scores}
    return scores, carried


@PROFILE
@given(doudizhu_hands())
def test_doudizhu_is_proportional_liability_with_two_sides(
    hand: tuple[dict[str, int], dict[str, int]],
) -> None:
    scores, carried = hand
    out = doudizhu_three_step("L", scores, carried)
    assert sum(out.values()) == 0
    for p, v in out.items():
        assert abs(v) <= carried[p]
        assert v * scores[p] >= 0
    assert out == proportional_to_carried(scores, carried)


@PROFILE
@given(doudizhu_hands(), RATES)
def test_doudizhu_pipeline(hand: tuple[dict[str, int], dict[str, int]], rate: Fraction) -> None:
    scores, carried = hand
    claims = [
        Claim("L", f, v) if v > 0 else Claim(f, "L", -v)
        for f, v in scores.items()
        if f != "L" and v
    ]
    r = settle(
        claims,
        participants=["L", "F1", "F2"],
        liability=[DouDizhuThreeStep("L", carried)],
        rake=RakePolicy(rate),
    )
    balanced(r)
    rake_bounded(r, rate)
    for p in scores:
        assert abs(r.deltas[p] + r.rake[p]) <= carried[p]


@st.composite
def mahjong_hands(draw: st.DrawFn) -> tuple[list[Claim], dict[str, int], list[str]]:
    n = draw(st.integers(2, 6))
    order = NAMES[:n]
    claims = []
    for _ in range(draw(st.integers(1, 8))):
        payer, payee = draw(st.permutations(order))[:2]
        claims.append(
            Claim(
                payer,
                payee,
                draw(st.integers(1, 5000)),
                (Fraction(2) ** draw(st.integers(0, 4)),),
                draw(st.sampled_from(["hu", "gang", "hua_zhu"])),
            )
        )
    carried = {p: draw(st.integers(0, 60_000)) for p in order}
    return claims, carried, order


@PROFILE
@given(mahjong_hands(), RATES, st.randoms(use_true_random=False))
def test_proportional_pipeline(
    hand: tuple[list[Claim], dict[str, int], list[str]], rate: Fraction, rnd: object
) -> None:
    claims, carried, order = hand
    policy = RakePolicy(rate)
    rule = ProportionalToCarried(carried)
    r = settle(claims, participants=order, liability=[rule], rake=policy)
    balanced(r)
    rake_bounded(r, rate)
    for p in order:
        assert abs(r.deltas[p] + r.rake[p]) <= carried[p]
    same_record(r, settle(claims, participants=order, liability=[rule], rake=policy))
    shuffled = list(order)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    other = settle(claims, participants=shuffled, liability=[rule], rake=policy)
    for p in order:  # only the truncation of fractional parts can move
        gross_a = r.deltas[p] + r.rake[p]
        gross_b = other.deltas[p] + other.rake[p]
        assert abs(gross_a - gross_b) <= len(order)


@PROFILE
@given(
    st.dictionaries(st.sampled_from(NAMES), st.integers(-(10**5), 10**5), min_size=1),
    st.integers(0, 10**5),
)
def test_proportional_exact(raw: dict[str, int], cap: int) -> None:
    nets = dict(raw)
    first = next(iter(nets))
    nets[first] -= sum(nets.values())
    carried = dict.fromkeys(nets, cap)
    out = proportional_to_carried(nets, carried)
    assert sum(out.values()) == 0
    for p, v in out.items():
        assert abs(v) <= cap
        assert abs(v) <= abs(nets[p])
        assert v * nets[p] >= 0


# -- 查大叫 and 花猪 (flavours 5 and 6) --------------------------------------------------------
claims_by_listener = st.dictionaries(
    st.sampled_from(NAMES), st.integers(0, 20_000), min_size=1, max_size=3
)


@PROFILE
@given(claims_by_listener, st.integers(0, 60_000), st.data())
def test_cha_da_jiao(owed: dict[str, int], balance: int, data: st.DataObject) -> None:
    fan = {p: data.draw(st.integers(0, 6)) for p in owed}
    out = cha_da_jiao(balance, owed, fan)
    total_owed = sum(owed.values())
    assert all(0 <= out[p] <= owed[p] for p in owed)
    if balance >= total_owed:
        assert out == owed
    else:
        assert sum(out.values()) == balance


@PROFILE
@given(claims_by_listener, st.integers(0, 60_000), st.sampled_from([1, 100]))
def test_hua_zhu(owed: dict[str, int], balance: int, unit: int) -> None:
    out = hua_zhu_split(balance, owed, unit=unit)
    assert all(0 <= out[p] <= owed[p] for p in owed)
    assert sum(out.values()) <= balance
    if balance >= sum(owed.values()):
        assert out == owed
    else:
        short = [p for p in owed if out[p] < owed[p]]
        assert all(out[p] % unit == 0 for p in short)
        assert len({out[p] for p in short}) <= 1  # an equal split among the short
        assert balance - sum(out.values()) < unit * max(1, len(short))


@PROFILE
@given(claims_by_listener, st.integers(0, 60_000), RATES, st.booleans())
def test_payer_rules_in_the_pipeline(
    owed: dict[str, int], balance: int, rate: Fraction, hua_zhu: bool
) -> None:
    order = ["payer", *owed]
    claims = [Claim("payer", p, v, (), "x") for p, v in owed.items()]
    rule: HuaZhuSplit | ChaDaJiao = (
        HuaZhuSplit("payer", balance)
        if hua_zhu
        else ChaDaJiao("payer", balance, dict.fromkeys(owed, 2))
    )
    r = settle(claims, participants=order, liability=[rule], rake=RakePolicy(rate))
    balanced(r)
    rake_bounded(r, rate)
    assert -r.deltas["payer"] <= balance
    for p, v in owed.items():
        assert r.deltas[p] + r.rake[p] <= v


# -- house-banked -----------------------------------------------------------------------------
results = st.sampled_from(
    [
        Fraction(-1),
        Fraction(-1, 2),
        Fraction(0),
        Fraction(1, 2),
        Fraction(1),
        Fraction(3, 2),
        Fraction(8),
        Fraction(11),
        Fraction(23, 10),
    ]
)
wagers = st.lists(
    st.builds(
        Wager,
        st.sampled_from(NAMES[:4]),
        st.sampled_from(["banker", "player", "tie"]),
        st.integers(0, 100_000),
        results,
    ),
    max_size=12,
)


@PROFILE
@given(wagers, RATES, st.randoms(use_true_random=False))
def test_against_house(ws: list[Wager], rate: Fraction, rnd: object) -> None:
    r = settle_against_house(ws, rake_rate=rate)
    balanced(r)
    rake_bounded(r, rate, exempt=("house",))
    assert r.rake["house"] == 0
    for p in {w.participant for w in ws}:
        mine = [w for w in ws if w.participant == p]
        exact = sum((w.amount * w.result for w in mine), Fraction(0))
        gross = r.deltas[p] + r.rake[p]
        # Each spot's win is truncated down (the house keeps the fraction), each spot's
        # loss too (the player keeps it): less than one unit per spot either way.
        wins = len({w.spot for w in mine if w.result >= 0})
        losses = len({w.spot for w in mine if w.result < 0})
        assert -losses < exact - gross < wins or exact == gross
        assert r.deltas[p] >= -sum(w.amount for w in mine)
        assert r.returned[p] == r.staked[p] + gross >= 0
    shuffled = list(ws)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    other = settle_against_house(shuffled, rake_rate=rate)
    assert dict(other.deltas) == dict(r.deltas)
    same_record(r, settle_against_house(ws, rake_rate=rate))


# -- rounding and limits -----------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=0, max_value=10**7), st.sampled_from([FIVE_PERCENT, TWO_PERCENT]))
def test_rake_rates_with_whole_reciprocals_commute_with_truncation(
    profit: Fraction, rate: Fraction
) -> None:
    assert (rate * int(profit)).__floor__() == (rate * profit).__floor__()


@PROFILE
@given(
    st.integers(0, 10**7),
    st.integers(0, 10**7),
    st.integers(1, 1000),
    st.integers(1, 10),
    st.integers(2, 6),
)
def test_classic_niuniu_limits(banker: int, player: int, base: int, top: int, players: int) -> None:
    lim = classic_niuniu_bet_limits(
        banker_balance=banker,
        player_balance=player,
        base=base,
        max_hand_multiple=top,
        players=players,
    )
    assert set(lim.options) <= {1, 3, 6, 10}
    for m in lim.options:
        # A player who loses at the top hand multiple is covered, and so are all the
        # players together from the banker's balance.
        assert m * base * top <= player
        assert m * base * top * (players - 1) <= banker


def json_only(value: object) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(json_only(v) for v in value)
    return type(value) in (int, str)


@PROFILE
@given(mahjong_hands())
def test_records_hold_ints_and_strings_only(
    hand: tuple[list[Claim], dict[str, int], list[str]],
) -> None:
    claims, carried, order = hand
    r = settle(
        claims,
        participants=order,
        liability=[ProportionalToCarried(carried)],
        rake=RakePolicy(FIVE_PERCENT),
    )
    assert json_only(r.to_json_dict())


@PROFILE
@given(st.integers(0, 10**6), st.lists(st.integers(0, 10**4), max_size=4), st.integers(1, 10))
def test_hundred_spot_limit_is_the_largest_covered_multiplier(
    balance: int, stakes: list[int], top: int
) -> None:
    total = sum(stakes)
    if total > balance:
        return
    limit = hundred_spot_multiplier_limit(
        balance=balance, stakes={f"s{i}": v for i, v in enumerate(stakes)}, max_multiplier=top
    )
    assert 0 <= limit <= top
    if total:
        assert limit * total <= balance
        assert limit == top or (limit + 1) * total > balance


@PROFILE
@given(mahjong_hands(), st.integers(0, 4), st.integers(1, 400))
def test_caps_only_ever_cut(
    hand: tuple[list[Claim], dict[str, int], list[str]], max_fan: int, base: int
) -> None:
    claims, _, order = hand
    caps = [fan_cap(max_fan, "test", spots=("hu",)), xuezhan_daodi_pair_cap(base)]
    r = settle(claims, participants=order, caps=caps)
    balanced(r)
    paid: dict[tuple[str, str], int] = {}
    for step in r.steps:
        if step.kind == "rounding":
            for line in step.payments:  # type: ignore[union-attr]
                key = (line.payer, line.payee)
                paid[key] = paid.get(key, 0) + line.paid
    for (payer, payee), amount in paid.items():
        owed = sum(c.amount for c in claims if (c.payer, c.payee) == (payer, payee))
        assert amount <= min(owed, 24 * base)


@st.composite
def insured_wagers(draw: st.DrawFn) -> list[Wager]:
    wagers = []
    for p in NAMES[: draw(st.integers(1, 5))]:
        stake = draw(st.integers(1, 2000)) * 100
        wagers.append(Wager(p, "main", stake, draw(st.sampled_from([-1, 0, 1, Fraction(3, 2)]))))
        if draw(st.booleans()):
            wagers.append(Wager(p, "insurance", stake // 2, draw(st.sampled_from([-1, 2]))))
    return wagers


@PROFILE
@given(insured_wagers(), RATES, BASES)
def test_spots_raked_on_their_own(wagers: list[Wager], rate: Fraction, basis: RakeBasis) -> None:
    """多人21点: insurance is raked on its own, the rest of a player's hand on its net."""
    policy = RakePolicy(rate, basis=basis, own_spots=frozenset({"insurance"}))
    r = settle_against_house(wagers, rake=policy)
    balanced(r)
    rake_bounded_by_basis(r, policy.with_exempt("house"))
    assert r.rake["house"] == 0
    for w in wagers:
        if w.spot == "insurance" and w.result > 0:
            unit = [
                u
                for u in r.steps
                if isinstance(u, RakeUnitStep)
                and u.winner == w.participant
                and u.spot == "insurance"
            ]
            assert [u.won for u in unit] == [w.amount * 2]
        staked = sum(x.amount for x in wagers if x.participant == w.participant)
        assert r.deltas[w.participant] >= -staked  # never more than staked, rake included


@PROFILE
@given(doudizhu_hands(), RATES)
def test_doudizhu_per_comparison(
    hand: tuple[dict[str, int], dict[str, int]], rate: Fraction
) -> None:
    scores, carried = hand
    claims = [
        Claim("L", f, v) if v > 0 else Claim(f, "L", -v)
        for f, v in scores.items()
        if f != "L" and v
    ]
    policy = RakePolicy(rate, basis=RakeBasis.PER_COMPARISON)
    r = settle(
        claims,
        participants=["L", "F1", "F2"],
        liability=[DouDizhuThreeStep("L", carried)],
        rake=policy,
    )
    balanced(r)
    rake_bounded_by_basis(r, policy, carried)
    for p in scores:
        assert r.deltas[p] >= -carried[p]


def test_banker_cover_a_short_banker_keeps_no_fraction() -> None:
    """Pinned (found by ``test_banker_cover``): the banker carried 0, wins 1 from p0 and
    owes p1 and p2 1/2 each by its cover. Per comparison the banker pays out exactly the
    1 it has, the odd unit to the first of the equal fractions (p1): it ends at 0, not
    +1 past what it carried (config version 3; before it, each payment was truncated
    from its receiver and the unit stayed with the banker). On the net basis p0 pays the
    winners directly and, as a payer, keeps the unit truncation leaves."""
    claims = [
        Claim("p0", "bk", 1, (), "p0"),
        Claim("bk", "p1", 1, (), "p1"),
        Claim("bk", "p2", 1, (), "p2"),
    ]
    carried = {"p0": 1, "p1": 1, "p2": 1, "bk": 0}
    for basis, deltas, kept in (
        (RakeBasis.PER_COMPARISON, {"p0": -1, "p1": 1, "p2": 0, "bk": 0}, {}),
        (RakeBasis.NET, {"p0": 0, "p1": 0, "p2": 0, "bk": 0}, {"p0": Fraction(1)}),
    ):
        r = settle(
            claims,
            participants=["p0", "p1", "p2", "bk"],
            liability=[BankerCover("bk", carried)],
            rake=RakePolicy(Fraction(0), basis=basis),
        )
        balanced(r)
        assert dict(r.deltas) == deltas
        rounding = next(s for s in r.steps if isinstance(s, RoundingStep))
        assert dict(rounding.kept_by_payers) == kept
