"""Golden vectors: every worked money example in the seeds, from seeds/golden/money/*.json.

Each vector is ``{"id", "source", "inputs", "expected"}``; ``inputs.kind`` selects how it
is settled, ``units`` says whether amounts are points (converted with
``points_to_minor``: 1 point = 100 minor units) or minor units. Figures are compared
exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from croupier.money import (
    BankerCover,
    ChaDaJiao,
    Claim,
    DouDizhuThreeStep,
    HuaZhuSplit,
    LiabilityRule,
    PairAmountCap,
    PotSeat,
    RakeBasis,
    RakePolicy,
    RakeUnitStep,
    SettlementResult,
    Wager,
    classic_niuniu_bet_limits,
    doudizhu_cap,
    doudizhu_claims,
    doudizhu_doubling_caps,
    exact,
    fan_cap,
    mahjong_discard_claim,
    mahjong_self_draw_claims,
    points_to_minor,
    settle,
    settle_against_house,
    settle_pots,
    tongbi_niuniu_claims,
    xuezhan_daodi_pair_cap,
)
from croupier.money.caps import CapRule
from croupier.money.record import LiabilityStep, TheoreticalStep

GOLDEN = Path(__file__).resolve().parents[2] / "seeds" / "golden" / "money"
VECTORS = sorted(GOLDEN.glob("*.json"))

REQUIRED = {
    "holdem_must_bet_settlement_example",
    "tongbi_niuniu_example_1",
    "tongbi_niuniu_example_2",
    "qiangzhuang_sangong_banker_pro_rata",
    "sangong_banker_pro_rata",
    "classic_niuniu_banker_pro_rata",
    "xuezhan_self_draw_2400",
    "xuezhan_daodi_example_1",
    "xuezhan_daodi_example_2",
    "xuezhan_daodi_example_3",
    "xuezhan_hua_zhu_split",
    "doudizhu_farmers_win",
    "doudizhu_landlord_wins",
    "doudizhu_doubling_farmers_win",
    "doudizhu_doubling_landlord_wins",
}


def _no_float(text: str) -> Any:
    raise AssertionError(f"float {text!r} in a golden vector; write decimals as strings")


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), parse_float=_no_float)
    return data


def money(value: Any, units: str) -> int:
    if units == "points":
        return points_to_minor(value)
    assert units == "minor"
    assert isinstance(value, int)
    return value


def money_map(values: Mapping[str, Any], units: str) -> dict[str, int]:
    return {k: money(v, units) for k, v in values.items()}


def theoretical(result: SettlementResult) -> dict[str, Fraction]:
    step = result.steps[0]
    assert isinstance(step, TheoreticalStep)
    return dict(step.nets)


def after_liability(result: SettlementResult) -> dict[str, Fraction]:
    steps = [s for s in result.steps if isinstance(s, LiabilityStep)]
    assert steps, "the vector expects a liability step"
    return dict(steps[-1].after)


def check_result(result: SettlementResult, inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    units = exp["units"]
    assert dict(result.deltas) == money_map(exp["deltas"], units)
    assert dict(result.rake) == money_map(exp["rake"], units)
    assert result.total_rake == money(exp["total_rake"], units)
    assert sum(result.deltas.values()) + result.total_rake == 0
    if "theoretical" in exp:
        assert theoretical(result) == money_map(exp["theoretical"], units)
    if "after_liability" in exp:
        assert after_liability(result) == money_map(exp["after_liability"], units)
    # The record is plain JSON and stable.
    record = result.to_json_dict()
    assert json.loads(json.dumps(record)) == record


def rake_of(inputs: dict[str, Any]) -> RakePolicy:
    basis = RakeBasis(inputs.get("rake_basis", "net"))
    return RakePolicy(exact(inputs["rake_rate"]), basis=basis)


def check_units(result: SettlementResult, exp: dict[str, Any]) -> None:
    """``comparison_rakes``: each won comparison as ``[winner, against, won, rake]``."""
    if "comparison_rakes" not in exp:
        return
    units = exp["units"]
    got = [
        [s.winner, s.against, s.won, s.rake] for s in result.steps if isinstance(s, RakeUnitStep)
    ]
    assert got == [
        [w, a, money(won, units), money(rake, units)] for w, a, won, rake in exp["comparison_rakes"]
    ]


def run_side_pots(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    seats = [
        PotSeat(
            s["participant"], money(s["contributed"], u), s.get("strength"), s.get("folded", False)
        )
        for s in inputs["seats"]
    ]
    result = settle_pots(seats, button=inputs["button"], rake=rake_of(inputs))
    check_result(result, inputs, exp)
    eu = exp["units"]
    assert [
        (p.amount, list(p.eligible), list(p.winners), dict(p.contributions)) for p in result.pots
    ] == [
        (money(p["amount"], eu), p["eligible"], p["winners"], money_map(p["contributions"], eu))
        for p in exp["pots"]
    ]
    pots_step = result.steps[0]
    assert dict(pots_step.returned) == money_map(exp["uncalled_returned"], eu)  # type: ignore[union-attr]


def run_tongbi(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    claims = tongbi_niuniu_claims(
        winner=inputs["winner"],
        base=money(inputs["base"], u),
        hand_multiple=inputs["hand_multiple"],
        bet_multiples=inputs["bet_multiples"],
    )
    result = settle(claims, participants=list(inputs["bet_multiples"]), rake=rake_of(inputs))
    check_result(result, inputs, exp)


def run_banker_cover(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    banker = inputs["banker"]
    players = inputs["players"]
    claims = [
        Claim(banker, p, money(v["theoretical"], u), (), p)
        if money(v["theoretical"], u) >= 0
        else Claim(p, banker, -money(v["theoretical"], u), (), p)
        for p, v in players.items()
    ]
    carried = {p: money(v["carried"], u) for p, v in players.items()}
    carried[banker] = money(inputs["banker_carried"], u)
    result = settle(
        claims,
        participants=[*players, banker],
        liability=[BankerCover(banker, carried)],
        rake=rake_of(inputs),
    )
    check_result(result, inputs, exp)
    check_units(result, exp)


def run_mahjong(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    base = money(inputs["base"], u)
    claims: list[Claim] = []
    for w in inputs["wins"]:
        if w["type"] == "self_draw":
            claims += mahjong_self_draw_claims(
                winner=w["winner"], payers=w["payers"], base=base, fan=w["fan"]
            )
        else:
            claims.append(
                mahjong_discard_claim(
                    winner=w["winner"], discarder=w["discarder"], base=base, fan=w["fan"]
                )
            )
    caps: list[CapRule] = []
    if "max_fan" in inputs:
        caps.append(fan_cap(inputs["max_fan"], "004 血战到底 积分计算", spots=("hu",)))
    if "pair_cap_base" in inputs:
        caps.append(xuezhan_daodi_pair_cap(money(inputs["pair_cap_base"], u)))
    result = settle(claims, participants=inputs["participants"], caps=caps, rake=rake_of(inputs))
    check_result(result, inputs, exp)


def _claim(c: dict[str, Any], units: str) -> Claim:
    return Claim(
        c["payer"],
        c["payee"],
        money(c["base"], units),
        tuple(exact(f) for f in c["factors"]),
        c.get("spot", ""),
    )


def run_claims(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    claims = [_claim(c, u) for c in inputs["claims"]]
    caps: list[CapRule] = []
    for cap in inputs.get("caps", []):
        assert cap["type"] == "pair_amount"
        caps.append(PairAmountCap(money(cap["limit"], u), "per_payer_cap", "vector"))
    liability: list[LiabilityRule] = []
    for rule in inputs.get("liability", []):
        if rule["rule"] == "hua_zhu":
            liability.append(HuaZhuSplit(rule["payer"], money(rule["balance"], u)))
        else:
            assert rule["rule"] == "cha_da_jiao"
            liability.append(ChaDaJiao(rule["payer"], money(rule["balance"], u), rule["fan"]))
    result = settle(
        claims,
        participants=inputs["participants"],
        caps=caps,
        liability=liability,
        rake=rake_of(inputs),
    )
    check_result(result, inputs, exp)
    if "extra_claim_over_cap" in inputs:
        over = settle(
            [*claims, _claim(inputs["extra_claim_over_cap"], u)],
            participants=inputs["participants"],
            caps=caps,
            rake=rake_of(inputs),
        )
        want = exp["expected_over_cap"]
        assert theoretical(over) == money_map(want["theoretical"], exp["units"])
        assert dict(over.deltas) == money_map(want["deltas"], exp["units"])


def run_doudizhu(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    landlord, farmers = inputs["landlord"], inputs["farmers"]
    doubling = inputs["variant"] == "doubling"
    claims = doudizhu_claims(
        landlord=landlord,
        farmers=farmers,
        base=money(inputs["base"], u),
        bid=inputs["bid"],
        multiple=inputs["multiple"],
        landlord_wins=inputs["landlord_wins"],
        grab=inputs.get("grab", 1),
        doubling=inputs.get("doubling") if doubling else None,
    )
    caps: list[CapRule] = list(doudizhu_doubling_caps(landlord)) if doubling else [doudizhu_cap()]
    liability: list[LiabilityRule] = []
    if "carried" in inputs:
        liability.append(DouDizhuThreeStep(landlord, money_map(inputs["carried"], u)))
    result = settle(
        claims,
        participants=[landlord, *farmers],
        caps=caps,
        liability=liability,
        rake=rake_of(inputs),
    )
    check_result(result, inputs, exp)


def run_classic_limits(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    limits = classic_niuniu_bet_limits(
        banker_balance=money(inputs["banker_balance"], u),
        player_balance=money(inputs["player_balance"], u),
        base=money(inputs["base"], u),
        max_hand_multiple=inputs["max_hand_multiple"],
        players=inputs["players"],
        options=inputs["options"],
    )
    assert limits.banker_max == exp["banker_max"]
    assert limits.player_cover_max == exp["player_cover_max"]
    assert limits.common_max == exp["common_max"]
    assert limits.player_max == exp["player_max"]
    assert list(limits.options) == exp["options"]


def run_against_house(inputs: dict[str, Any], exp: dict[str, Any]) -> None:
    u = inputs["units"]
    wagers = [
        Wager(w["participant"], w["spot"], money(w["amount"], u), exact(w["result"]))
        for w in inputs["wagers"]
    ]
    policy = RakePolicy(exact(inputs["rake_rate"]), own_spots=frozenset(inputs["own_spots"]))
    result = settle_against_house(wagers, rake=policy)
    check_result(result, inputs, exp)


RUNNERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "against_house": run_against_house,
    "side_pots": run_side_pots,
    "tongbi_niuniu": run_tongbi,
    "banker_cover": run_banker_cover,
    "mahjong": run_mahjong,
    "claims": run_claims,
    "doudizhu": run_doudizhu,
    "classic_niuniu_bet_limits": run_classic_limits,
}


def test_the_required_vectors_are_all_there() -> None:
    assert {p.stem for p in VECTORS} >= REQUIRED


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_golden_vector(path: Path) -> None:
    vector = load(path)
    assert set(vector) == {"id", "source", "inputs", "expected"}
    assert vector["id"] == path.stem
    assert any(
        f in vector["source"]
        for f in (
            "000_d16ad353ba467b8a.txt",
            "001_5f10773fec037198.txt",
            "004_5b64d410fb5765b6.txt",
        )
    )
    assert vector["inputs"]["units"] in ("points", "minor")
    RUNNERS[vector["inputs"]["kind"]](vector["inputs"], vector["expected"])
