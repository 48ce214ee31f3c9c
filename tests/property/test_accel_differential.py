"""The native accelerator (:mod:`croupier.accel`) against the pure-Python path it stands
in for: the same settlement, the same record bytes, over random wagers (players named in
any script, fractional results, rake rates, caps and exemptions, amounts up to and past
63 bits) and over hands of every variant played by the demo's bots. Where the native
path declines (an amount past 63 bits, a name JSON escapes), the pure path settles and
the result is the same. Skipped, saying so, where the extension is not built; CI sets
``CROUPIER_NATIVE=require``, which makes its absence an error instead."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_money_house_fastpath import AMOUNTS, PAYTABLE, SPOTS
from test_record_render_unchanged import played

from croupier import accel
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variants
from croupier.money.rake import RakePolicy
from croupier.money.record import RECORD_VERSIONS, SettlementResult
from croupier.settlement import HandSettlement, settle_state

kernel = sys.modules["croupier.money.settle"]  # the module (croupier.money.settle is a function)

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)

PROFILE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["p1", "p2", "p3", "玩家", "庄", "b0p10", "B", "a", "🂡", "house2", "Z9"]
# names the native path declines (JSON escapes them): the pure path settles
ESCAPED = ['say "hi"', "back\\slash", "tab\there", "nl\n", "\x00"]
RESULTS = st.one_of(
    st.sampled_from([Fraction(r) for r in PAYTABLE]),
    st.sampled_from([Fraction(19, 20), Fraction(1, 3), Fraction(-2, 7), Fraction(7, 5)]),
    st.fractions(min_value=-1, max_value=50, max_denominator=1_000),
)
BIG = st.sampled_from([2**62, 2**63 - 1, 2**63, 2**70, 10**18])


def rows_of(draw: Any, names: list[str], amounts: Any) -> list[tuple[str, str, int, Fraction]]:
    """Checked wagers as the kernel's entry points build them: one result object per
    spot (``settle_spots_against_house``) or one per wager (``settle_against_house``)."""
    n = draw(st.integers(1, 24))
    shared = draw(st.booleans())
    by_spot: dict[str, Fraction] = {}
    rows = []
    for _ in range(n):
        spot = draw(st.sampled_from([*SPOTS, "大", "小"]))
        result = by_spot.setdefault(spot, draw(RESULTS)) if shared else draw(RESULTS)
        rows.append((draw(st.sampled_from(names)), spot, draw(amounts), result))
    return rows


@st.composite
def policies(draw: Any, house: str) -> RakePolicy:
    rate = draw(st.sampled_from([Fraction(0), Fraction(1, 20), Fraction(1, 50), Fraction(3, 7)]))
    cap = draw(st.one_of(st.none(), st.integers(0, 50), st.integers(0, 10**9)))
    exempt = draw(st.sets(st.sampled_from(NAMES), max_size=3)) | {house}
    source = draw(st.sampled_from(["variant rake rate", "001 三公 抽水", "README.md, Money"]))
    return RakePolicy(rate, cap, frozenset(exempt), source)


@st.composite
def hands(draw: Any, names: list[str], amounts: Any = AMOUNTS) -> tuple[Any, ...]:
    house = draw(st.sampled_from(["house", "casino", "庄家"]))
    return (
        rows_of(draw, names, amounts),
        house,
        draw(policies(house)),
        draw(st.text(max_size=10).filter(lambda t: t.isprintable() and not {'"', "\\"} & set(t))),
    )


def same(native: SettlementResult, exact: SettlementResult) -> None:
    """Everything the native result says is the pure path's."""
    assert native.record_body() == exact.record_body()
    for version in sorted(RECORD_VERSIONS):
        assert native.record_body(version) == exact.record_body(version)
        assert native.to_json_dict(version) == exact.to_json_dict(version)
    assert native.participants == exact.participants
    assert list(native.deltas.items()) == list(exact.deltas.items())
    assert list(native.rake.items()) == list(exact.rake.items())
    assert native.total_rake == exact.total_rake
    assert list(native.staked.items()) == list(exact.staked.items())
    assert list(native.returned.items()) == list(exact.returned.items())
    assert native.steps == exact.steps and native.spots == exact.spots
    assert native == exact and exact == native and repr(native) == repr(exact)


@PROFILE
@given(hands(NAMES))
@example(([("p1", "tie", 0, Fraction(0))], "house", RakePolicy(Fraction(0)), ""))
@example(([("p1", "x", 7, Fraction(-1, 3)), ("p1", "x", 5, Fraction(-1, 3))], "house",
          RakePolicy(Fraction(1, 20), 0, frozenset({"house"})), "h"))  # fmt: skip
def test_random_wagers_settle_natively_as_the_pure_path(hand: tuple[Any, ...]) -> None:
    rows, house, policy, hand_id = hand
    native = kernel._settle_rows(rows, house, policy, hand_id)
    if fits_63_bits(rows):
        assert isinstance(native, kernel.NativeHouseResult)  # it took them all
    if isinstance(native, kernel.NativeHouseResult):
        same(native, kernel._settle_exact_rows(rows, house, policy, hand_id))
    else:
        assert native == kernel._settle_exact_rows(rows, house, policy, hand_id)


def fits_63_bits(rows: list[tuple[str, str, int, Fraction]]) -> bool:
    """Every amount the kernel works with well inside 63 bits: the stakes, and the
    claims in ``1/scale`` minor units (their sum bounds each of them)."""
    scale = math.lcm(*(r.denominator for *_, r in rows))
    claims = sum(a * abs(r.numerator) * (scale // r.denominator) for *_, a, r in rows)
    return max(claims, sum(a for *_, a, _ in rows)) < 2**62


@PROFILE
@given(hands(NAMES + ESCAPED) | hands(NAMES, st.one_of(AMOUNTS, BIG)))
def test_what_the_native_path_declines_the_pure_path_settles(hand: tuple[Any, ...]) -> None:
    rows, house, policy, hand_id = hand
    exact = kernel._settle_exact_rows(rows, house, policy, hand_id)
    out = kernel._settle_rows(rows, house, policy, hand_id)
    if any(who in ESCAPED for who, *_ in rows):
        assert type(out) is SettlementResult
    elif fits_63_bits(rows):
        assert isinstance(out, kernel.NativeHouseResult)
    if isinstance(out, kernel.NativeHouseResult):
        same(out, exact)
    else:
        assert out == exact and out.record_body() == exact.record_body()


def test_an_amount_past_63_bits_is_settled_by_the_pure_path() -> None:
    rows = [("p1", "banker", 2**62, Fraction(3)), ("p2", "player", 10, Fraction(1))]
    out = kernel._settle_rows(rows, "house", RakePolicy(Fraction(0)), "h")
    assert type(out) is SettlementResult
    assert out.deltas["p1"] == 3 * 2**62


def test_a_per_unit_rake_is_settled_by_the_pure_path() -> None:
    rows = [("p1", "banker", 100, Fraction(1)), ("p2", "player", 10, Fraction(1))]
    policy = RakePolicy(Fraction(1, 20), exempt=frozenset({"house"}), own_spots={"banker"})
    assert type(kernel._settle_rows(rows, "house", policy, "h")) is SettlementResult


def settled(variant: str, states: list[Any]) -> tuple[list[HandSettlement], int]:
    eng = engine_for(variant)
    out = [settle_state(eng, s) for s in states]
    return out, sum(isinstance(eng.settle(s), kernel.NativeHouseResult) for s in states)


# the variants whose hands are wagers against the house on a net rake basis (多人21点
# rakes a winning insurance on its own, ``rake.own_spots``: the pure path settles it)
NATIVE_VARIANTS = {
    "baccarat",
    "blackjack.lucky",
    "chuhan",
    "chuhan.insured",
    "dice.yaoyao",
    "slots.duocai",
    "videopoker.lucky5",
}


@pytest.mark.parametrize("variant", sorted(variants()))
def test_every_variant_settles_natively_as_the_pure_path(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    states = played(variant, 12, 11)
    native, taken = settled(variant, states)
    monkeypatch.setattr(kernel, "_native", None)
    exact, none = settled(variant, states)
    assert none == 0
    # every hand of these variants takes the native path; no hand of the others does
    assert taken == (len(states) if variant in NATIVE_VARIANTS else 0)
    for a, b in zip(native, exact, strict=True):
        assert a.record_bytes == b.record_bytes and a.record_hash == b.record_hash
        assert a.settled_payload() == b.settled_payload()
        assert (a.postings, a.rake) == (b.postings, b.rake)
        assert (a.staked, a.returned) == (b.staked, b.returned)
        assert a.result == b.result and a.pvp_turnover == b.pvp_turnover
        assert a.record == b.record


def _accel_in_a_process(env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_it_is_turned_off_and_required_by_the_environment() -> None:
    off = _accel_in_a_process(
        {"CROUPIER_NATIVE": "0"}, "from croupier import accel; print(accel.native, accel.status)"
    )
    assert off.returncode == 0 and off.stdout.startswith("None off (CROUPIER_NATIVE=0)")
    # the module hidden from the import system: as if it had not been built
    hidden = "import sys; sys.modules['croupier._accel'] = None; from croupier import accel; "
    absent = _accel_in_a_process({"CROUPIER_NATIVE": ""}, hidden + "print(accel.status)")
    assert absent.returncode == 0 and "not built" in absent.stdout
    required = _accel_in_a_process({"CROUPIER_NATIVE": "require"}, hidden + "print(1)")
    assert required.returncode != 0
    assert "NativeMissing: CROUPIER_NATIVE=require but croupier._accel is not built" in (
        required.stderr
    )
    # an extension built from older sources (another interface): not used, and refused
    stale = (
        "import sys, types; old = types.ModuleType('croupier._accel'); old.INTERFACE = 2; "
        "sys.modules['croupier._accel'] = old; from croupier import accel; "
    )
    used = _accel_in_a_process({"CROUPIER_NATIVE": ""}, stale + "print(accel.native, accel.status)")
    assert used.returncode == 0 and used.stdout.startswith(
        f"None built from other sources (interface 2, this code calls {accel.INTERFACE})"
    )
    refused = _accel_in_a_process({"CROUPIER_NATIVE": "require"}, stale + "print(1)")
    assert refused.returncode != 0 and "is built from other sources" in refused.stderr
    assert accel.native is not None and accel.native.INTERFACE == accel.INTERFACE
