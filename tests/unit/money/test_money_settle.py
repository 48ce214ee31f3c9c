from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

import pytest

from croupier import canonical
from croupier.errors import InvalidInput, MoneyError
from croupier.money import (
    FIVE_PERCENT,
    HOUSE,
    MINOR_PER_POINT,
    BankerCover,
    ChaDaJiao,
    Claim,
    DouDizhuThreeStep,
    HuaZhuSplit,
    ProportionalToCarried,
    RakePolicy,
    SettlementResult,
    StepKind,
    Wager,
    settle,
    settle_against_house,
)
from croupier.money.record import JsonValue, LiabilityStep, RoundingStep

F = Fraction


def walk(value: JsonValue) -> None:
    """Only int, str, list and dict in a record; never bool or float."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str)
            walk(v)
    elif isinstance(value, list):
        for v in value:
            walk(v)
    else:
        assert type(value) in (int, str), value


def test_pipeline_order_and_steps() -> None:
    claims = [Claim("b", "a", 10000, (6, 5, 3), "tongbi")]
    r = settle(claims, participants=["a", "b"], rake=RakePolicy(FIVE_PERCENT))
    assert [s.kind for s in r.steps] == [StepKind.THEORETICAL, StepKind.ROUNDING, StepKind.RAKE]
    assert dict(r.deltas) == {"a": 855000, "b": -900000}
    assert r.total_rake == 45000
    assert [(s.participant, s.spot, s.amount) for s in r.spots] == [
        ("a", "tongbi", 900000),
        ("b", "tongbi", -900000),
    ]


def test_banker_cover_pays_the_new_nets_losers_to_winners_in_seat_order() -> None:
    claims = [
        Claim("bk", "A", 20000, (), "east"),
        Claim("bk", "B", 20000, (), "south"),
        Claim("bk", "C", 40000, (), "west"),
        Claim("D", "bk", 5000, (), "north"),
    ]
    carried = {"A": 10**6, "B": 10**6, "C": 10**6, "D": 10**6, "bk": 10000}
    r = settle(
        claims, participants=["A", "B", "C", "D", "bk"], liability=[BankerCover("bk", carried)]
    )
    # Pool 5000 collected + 10000 carried = 15000 over wins of 80000.
    assert dict(r.deltas) == {"A": 3750, "B": 3750, "C": 7500, "D": -5000, "bk": -10000}
    step = r.steps[1]
    assert isinstance(step, LiabilityStep)
    assert step.changed == ("A", "B", "C", "bk")
    assert [(p.payer, p.payee, p.spot, p.amount) for p in step.payments] == [
        ("D", "A", "net", 3750),
        ("D", "B", "net", 1250),
        ("bk", "B", "net", 2500),
        ("bk", "C", "net", 7500),
    ]
    assert {(s.participant, s.spot) for s in r.spots} == {
        (p, "net") for p in ("A", "B", "C", "D", "bk")
    }


def test_banker_cover_unchanged_keeps_the_claims() -> None:
    claims = [Claim("bk", "A", 200, (), "east"), Claim("D", "bk", 500, (), "north")]
    r = settle(
        claims,
        participants=["A", "D", "bk"],
        liability=[BankerCover("bk", {"A": 500, "D": 500, "bk": 500})],
    )
    assert [(s.participant, s.spot, s.amount) for s in r.spots] == [
        ("A", "east", 200),
        ("D", "north", -500),
        ("bk", "east", -200),
        ("bk", "north", 500),
    ]


def test_limits_hold_after_rounding_when_the_hub_collects_fractions() -> None:
    # The banker may win at most 0: losers pay 1/2 each exactly, the winner gets 1.
    claims = [Claim("p0", "bk", 1), Claim("bk", "p1", 1), Claim("p3", "bk", 1)]
    carried = {"p0": 1, "p1": 1, "p3": 1, "bk": 0}
    r = settle(
        claims, participants=["p0", "p1", "p3", "bk"], liability=[BankerCover("bk", carried)]
    )
    assert dict(r.deltas) == {"p0": 0, "p1": 0, "p3": 0, "bk": 0}


def test_banker_cover_rounding_stays_with_the_banker() -> None:
    claims = [Claim("bk", p, 100) for p in ("A", "B", "C")]
    carried = {"A": 100, "B": 100, "C": 100, "bk": 100}
    r = settle(claims, participants=["A", "B", "C", "bk"], liability=[BankerCover("bk", carried)])
    assert dict(r.deltas) == {"A": 33, "B": 33, "C": 33, "bk": -99}
    rounding = r.steps[2]
    assert isinstance(rounding, RoundingStep)
    assert rounding.kept_by_payers == (("bk", F(1)),)


def test_banker_cover_needs_every_claim_to_involve_the_banker() -> None:
    with pytest.raises(InvalidInput):
        settle(
            [Claim("A", "B", 1)],
            participants=["A", "B", "bk"],
            liability=[BankerCover("bk", {"A": 1, "B": 1, "bk": 1})],
        )
    with pytest.raises(InvalidInput):
        settle(
            [Claim("bk", "A", 1)], participants=["A", "bk"], liability=[BankerCover("bk", {"A": 1})]
        )


def test_doudizhu_rule_in_the_pipeline() -> None:
    claims = [Claim("L", "F1", 12000), Claim("L", "F2", 12000)]
    r = settle(
        claims,
        participants=["L", "F1", "F2"],
        liability=[DouDizhuThreeStep("L", {"L": 15000, "F1": 10**6, "F2": 10**6})],
        rake=RakePolicy(FIVE_PERCENT),
    )
    assert dict(r.deltas) == {"L": -15000, "F1": 7125, "F2": 7125}


def test_proportional_decomposes_losers_to_winners_and_truncates_receivers() -> None:
    claims = [
        Claim("C", "A", 30000, (), "hu"),
        Claim("D", "A", 10000, (), "hu"),
        Claim("D", "B", 5000, (), "gang"),
    ]
    carried = {"A": 10**6, "B": 10**6, "C": 10001, "D": 10**6}
    r = settle(
        claims, participants=["A", "B", "C", "D"], liability=[ProportionalToCarried(carried)]
    )
    step = r.steps[1]
    assert isinstance(step, LiabilityStep)
    assert dict(step.after) == {"A": F(200008, 9), "B": F(25001, 9), "C": -10001, "D": -15000}
    assert [(p.payer, p.payee, p.amount) for p in step.payments] == [
        ("C", "A", 10001),
        ("D", "A", F(109999, 9)),
        ("D", "B", F(25001, 9)),
    ]
    assert dict(r.deltas) == {"A": 22223, "B": 2777, "C": -10001, "D": -14999}


def test_proportional_unchanged_keeps_the_original_payments() -> None:
    claims = [Claim("B", "A", 100, (), "hu")]
    r = settle(
        claims, participants=["A", "B"], liability=[ProportionalToCarried({"A": 100, "B": 100})]
    )
    assert [(s.participant, s.spot) for s in r.spots] == [("A", "hu"), ("B", "hu")]


def test_whole_point_rounding_unit() -> None:
    # 000 广东麻将 实际输赢: 按需赔付 truncated to whole points.
    claims = [Claim("C", "A", 10000), Claim("C", "B", 10000)]
    r = settle(
        claims,
        participants=["A", "B", "C"],
        liability=[ProportionalToCarried({"A": 10**6, "B": 10**6, "C": 10050})],
        unit=MINOR_PER_POINT,
    )
    assert dict(r.deltas) == {"A": 5000, "B": 5000, "C": -10000}


def test_payer_rules_then_hand_rule() -> None:
    claims = [
        Claim("P", "X", 16000, (), "hua_zhu"),
        Claim("P", "Y", 16000, (), "hua_zhu"),
        Claim("P", "Z", 16000, (), "hua_zhu"),
        Claim("Q", "X", 500, (), "gang"),
    ]
    r = settle(
        claims,
        participants=["P", "Q", "X", "Y", "Z"],
        liability=[
            HuaZhuSplit("P", 10000, spots=frozenset({"hua_zhu"})),
            ProportionalToCarried({p: 10**6 for p in "PQXYZ"}),
        ],
    )
    assert dict(r.deltas) == {"P": -9900, "Q": -500, "X": 3800, "Y": 3300, "Z": 3300}


def test_cha_da_jiao_in_the_pipeline_leaves_other_payers_alone() -> None:
    claims = [
        Claim("P", "X", 2000, (), "cha_da_jiao"),
        Claim("P", "Y", 8000, (), "cha_da_jiao"),
        Claim("Q", "Y", 300, (), "gang"),
    ]
    r = settle(
        claims,
        participants=["P", "Q", "X", "Y"],
        liability=[ChaDaJiao("P", 6000, {"X": 1, "Y": 3})],
    )
    assert dict(r.deltas) == {"P": -6000, "Q": -300, "X": 1500, "Y": 4800}
    unchanged = settle(
        claims,
        participants=["P", "Q", "X", "Y"],
        liability=[ChaDaJiao("P", 10**6, {"X": 1, "Y": 3})],
    )
    step = unchanged.steps[1]
    assert isinstance(step, LiabilityStep)
    assert step.changed == ()


def test_rule_order_and_participants_are_checked() -> None:
    claims = [Claim("B", "A", 100)]
    carried = {"A": 1, "B": 1}
    for liability in (
        [ProportionalToCarried(carried), ProportionalToCarried(carried)],
        [ProportionalToCarried(carried), HuaZhuSplit("B", 1)],
        ["nonsense"],
    ):
        with pytest.raises(InvalidInput):
            settle(claims, participants=["A", "B"], liability=liability)  # type: ignore[arg-type]
    for participants in (["A"], ["A", "B", "A"], ["A", "B", ""]):
        with pytest.raises(InvalidInput):
            settle(claims, participants=participants)
    with pytest.raises(InvalidInput):
        settle(claims, participants=["A", "B"], unit=0)
    with pytest.raises(InvalidInput):
        settle(["claim"], participants=["A", "B"])  # type: ignore[list-item]
    with pytest.raises(InvalidInput):
        settle(claims, participants=["A", "B"], liability=[HuaZhuSplit("Z", 1)])


# -- house-banked ------------------------------------------------------------------------
def test_against_house_truncates_in_the_receivers_disfavour() -> None:
    wagers = [
        Wager("p1", "banker", 1001, F(1, 2)),
        Wager("p1", "player", 400, F(-1)),
        Wager("p2", "tie", 100, F(0)),
        Wager("p2", "chu", 301, F(-1, 2)),
    ]
    r = settle_against_house(wagers, rake_rate=FIVE_PERCENT, hand_id="coup-1")
    # p1: +500 (500.5 truncated, the house keeps 0.5) - 400 = 100 profit, 5 rake.
    # p2: tie returned; half of 301 lost = 150.5 -> pays 150 (keeps 0.5).
    assert dict(r.deltas) == {"p1": 95, "p2": -150, HOUSE: 50}
    assert dict(r.rake) == {"p1": 5, "p2": 0, HOUSE: 0}
    assert dict(r.staked) == {"p1": 1401, "p2": 401}
    assert dict(r.returned) == {"p1": 1501, "p2": 251}
    assert r.participants == ("p1", "p2", HOUSE)
    spots = {(s.participant, s.spot): s.amount for s in r.spots}
    assert spots[("p1", "banker")] == 500
    assert spots[("p2", "tie")] == 0
    d = r.to_json_dict()
    walk(d)
    assert d["staked"] == {"p1": 1401, "p2": 401}


def test_against_house_pays_each_spot_on_its_own() -> None:
    wagers = [
        Wager("p", "big", 3, F(1, 2)),
        Wager("p", "big", 3, F(1, 2)),
        Wager("p", "small", 3, F(3, 2)),
    ]
    r = settle_against_house(wagers)
    # big: 6 * 1/2 = 3; small: 4.5 -> 4.
    assert dict(r.deltas) == {"p": 7, HOUSE: -7}
    assert r.total_rake == 0


def test_against_house_paytable_multiples() -> None:
    wagers = [
        Wager("p", "tie", 1000, F(8)),
        Wager("q", "banker_pair", 1000, F(11)),
        Wager("r", "player", 1000, F(-1)),
    ]
    r = settle_against_house(wagers, rake_rate=0)
    assert dict(r.deltas) == {"p": 8000, "q": 11000, "r": -1000, HOUSE: -18000}
    assert settle_against_house([]).deltas == {HOUSE: 0}


@pytest.mark.parametrize(
    "make",
    [
        lambda: Wager("p", "s", -1, F(1)),
        lambda: Wager("p", "s", 1, F(-2)),
        lambda: Wager("p", "s", 1, 0.5),
        lambda: Wager("", "s", 1, F(1)),
        lambda: Wager("p", "s", 1.0, F(1)),
    ],
)
def test_bad_wagers(make: object) -> None:
    with pytest.raises(InvalidInput):
        make()  # type: ignore[operator]


def test_the_house_cannot_wager() -> None:
    with pytest.raises(InvalidInput):
        settle_against_house([Wager(HOUSE, "s", 1, F(1))])
    with pytest.raises(InvalidInput):
        settle_against_house([Wager("p", "s", 1, F(1))], house="")
    with pytest.raises(InvalidInput):
        settle_against_house(["wager"])  # type: ignore[list-item]


# -- the record ----------------------------------------------------------------------------
def test_result_refuses_to_be_unbalanced() -> None:
    with pytest.raises(MoneyError):
        SettlementResult("h", ("a", "b"), {"a": 1, "b": 0}, {"a": 0, "b": 0}, 0, ())
    with pytest.raises(MoneyError):
        SettlementResult("h", ("a", "b"), {"a": 1, "b": -2}, {"a": 0, "b": 0}, 1, ())


def test_result_maps_are_read_only_and_records_are_stable() -> None:
    claims = [Claim("b", "a", 999, (F(1, 3),), "x"), Claim("c", "a", 10, (2,), "y")]
    r = settle(claims, participants=["a", "b", "c"], rake=RakePolicy(FIVE_PERCENT), hand_id="h9")
    assert isinstance(r.deltas, MappingProxyType)
    with pytest.raises(TypeError):
        r.deltas["a"] = 5  # type: ignore[index]
    assert r.delta("a") == 333 + 20 - 17
    assert r.delta("zzz") == 0
    d = r.to_json_dict()
    walk(d)
    assert d["record_version"] == 2
    assert r.to_json_dict(1)["record_version"] == 1
    steps = d["steps"]
    assert isinstance(steps, list)
    theo = steps[0]
    assert isinstance(theo, dict)
    assert theo["claims"][0]["factors"] == ["1/3"]  # type: ignore[index,call-overload]
    again = settle(
        claims, participants=["a", "b", "c"], rake=RakePolicy(FIVE_PERCENT), hand_id="h9"
    )
    assert canonical.dumps(again.to_json_dict()) == canonical.dumps(d)
    assert again == r
