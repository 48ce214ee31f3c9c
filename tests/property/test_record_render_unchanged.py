"""The settlement record, its bytes and hash, the postings and the ``hand.settled``
payload are the very ones the rendering before its rework gave
(``record_render_reference``, kept verbatim), for both record versions: over the money
kernel's flavours (house wagers with fractional results and rake caps, banker cover, Dou
Dizhu, proportional liability with caps, payer rules, pots, spots raked on their own),
over random baccarat coups, and over hands of every variant played by the demo's bots."""

from __future__ import annotations

import asyncio
import random
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import record_render_reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_money_house_fastpath import wagers
from test_money_house_unchanged import random_coup
from test_money_properties import (
    BASES,
    RATES,
    banker_hands,
    doudizhu_hands,
    insured_wagers,
    mahjong_hands,
    tables,
)

from croupier import canonical
from croupier.games.baccarat.engine import BaccaratEngine
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variants
from croupier.money import (
    BankerCover,
    ChaDaJiao,
    Claim,
    DouDizhuThreeStep,
    HuaZhuSplit,
    PotSeat,
    ProportionalToCarried,
    RakePolicy,
    SettlementResult,
    Wager,
    fan_cap,
    settle,
    settle_against_house,
    settle_pots,
    xuezhan_daodi_pair_cap,
)
from croupier.money.record import RECORD_VERSIONS
from croupier.settlement import HandSettlement, settle_state, settlement_of

PROFILE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same_settlement(hs: HandSettlement, old: ref.Settled) -> None:
    assert hs.record == old.record
    assert hs.record_bytes == old.record_bytes
    assert hs.record_hash == old.record_hash
    assert hs.postings == old.postings
    assert (hs.rake, hs.staked, hs.returned) == (old.rake, old.staked, old.returned)
    assert hs.settled_payload() == old.settled_payload
    assert canonical.dumps(hs.settled_payload()) == old.settled_bytes


def renders_as_before(r: SettlementResult, variant: str = "test.variant") -> None:
    for version in sorted(RECORD_VERSIONS):
        new = r.to_json_dict(version)
        old = ref.settlement_result(r, version)
        assert new == old
        assert canonical.dumps(new) == canonical.dumps(old)
        same_settlement(
            settlement_of(r, r.hand_id, variant, version), ref.settled_from(r, variant, version)
        )
    for step in r.steps:  # each line rendered on its own too
        for name in ("claims", "payments", "adjustments", "pots"):
            for line in getattr(step, name, ()):
                assert line.to_json_dict() == ref.render(line)
        assert step.to_json_dict() == ref.render(step)
    for spot in r.spots:
        assert spot.to_json_dict() == ref.render(spot)


@PROFILE
@given(wagers, RATES, st.one_of(st.none(), st.integers(0, 50), st.integers(0, 10**6)))
def test_house_wagers(ws: list[Wager], rate: Fraction, cap: int | None) -> None:
    """Fractional results (19/20, 1/3, -2/7, ...), rake rates, rake caps."""
    renders_as_before(settle_against_house(ws, rake_rate=rate, rake_cap=cap, hand_id="h1"))


@PROFILE
@given(insured_wagers(), RATES, BASES)
def test_spots_raked_on_their_own(ws: list[Wager], rate: Fraction, basis: Any) -> None:
    policy = RakePolicy(rate, basis=basis, own_spots=frozenset({"insurance"}))
    renders_as_before(settle_against_house(ws, rake=policy))


@PROFILE
@given(banker_hands(), RATES, BASES)
def test_banker_cover(
    hand: tuple[list[Claim], dict[str, int], list[str]], rate: Fraction, basis: Any
) -> None:
    claims, carried, order = hand
    r = settle(
        claims,
        participants=order,
        liability=[BankerCover("bk", carried)],
        rake=RakePolicy(rate, basis=basis),
        staked={p: carried[p] for p in order[:2]},
    )
    renders_as_before(r)


@PROFILE
@given(doudizhu_hands(), RATES, BASES)
def test_doudizhu(hand: tuple[dict[str, int], dict[str, int]], rate: Fraction, basis: Any) -> None:
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
        rake=RakePolicy(rate, basis=basis),
    )
    renders_as_before(r)


@PROFILE
@given(mahjong_hands(), RATES, st.integers(0, 4), st.integers(1, 400), st.integers(1, 100))
def test_caps_and_liability(
    hand: tuple[list[Claim], dict[str, int], list[str]],
    rate: Fraction,
    max_fan: int,
    base: int,
    unit: int,
) -> None:
    """Caps, payer rules (查大叫, 花猪) and proportional liability, with fractional nets
    and a rounding unit."""
    claims, carried, order = hand
    caps = [fan_cap(max_fan, "test", spots=("hu",)), xuezhan_daodi_pair_cap(base)]
    payer = order[0]
    rules = [
        ChaDaJiao(payer, carried[payer], dict.fromkeys(order[1:], 2)),
        ProportionalToCarried(carried),
    ]
    for liability in ([], rules[:1], rules[1:], rules):
        r = settle(
            claims,
            participants=order,
            caps=caps,
            liability=liability,
            rake=RakePolicy(rate),
            unit=unit,
            hand_id="mj",
        )
        renders_as_before(r)
    whole = [
        Claim(c.payer, c.payee, c.base * int(c.multiple), (), c.spot)
        for c in claims
        if c.multiple.denominator == 1
    ]
    r = settle(
        whole,
        participants=order,
        liability=[HuaZhuSplit(payer, carried[payer], unit=unit)],
        rake=RakePolicy(rate),
    )
    renders_as_before(r)


@PROFILE
@given(tables(), RATES, st.integers(1, 3))
def test_pots(seats: list[PotSeat], rate: Fraction, button: int) -> None:
    who = seats[button % len(seats)].participant
    renders_as_before(settle_pots(seats, button=who, rake=RakePolicy(rate), hand_id="pk"))


@pytest.mark.parametrize("seed", range(3))
def test_baccarat_coups(seed: int) -> None:
    eng = engine_for("baccarat")
    assert isinstance(eng, BaccaratEngine)
    rng = random.Random(seed)
    for n in range(200):
        st_ = random_coup(eng, rng, f"h{seed}-{n}")
        for version in sorted(RECORD_VERSIONS):
            same_settlement(settle_state(eng, st_, version), ref.settle_state(eng, st_, version))


def played(variant: str, hands: int, seed: int) -> list[Any]:
    """``hands`` closed hands of ``variant`` played by the demo's bots in process."""
    out = []
    for hand_id, events in played_events(variant, hands, seed):
        eng = engine_for(variant)
        state = eng.replay(hand_id, events)
        eng.close_check(state)
        out.append(state)
    return out


def played_events(variant: str, hands: int, seed: int) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The events (type, payload) of ``hands`` closed hands of ``variant`` played by the
    demo's bots in process, with each hand's id."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the tests package
    from croupier_services.demo import Progress, Refusals, play_table
    from tests.integration.test_demo_seeds import LocalTables

    class Quiet(Progress):
        def step(self) -> None:
            pass

    tables_ = LocalTables(seed)
    rng = random.Random(f"{variant} {seed}")
    ids = asyncio.run(
        play_table(
            tables_,
            variant,
            f"{variant.replace('.', '_')}_t",
            6,
            hands,
            rng,
            Quiet(hands, variant),
            defaultdict(int),
            Refusals(),
        )
    )
    return [
        (hand_id, [(e.type, e.payload) for e in tables_.hands[hand_id].stream(hand_id).events])
        for hand_id in ids
    ]


@pytest.mark.parametrize("variant", sorted(variants()))
def test_every_variant(variant: str) -> None:
    eng = engine_for(variant)
    for state in played(variant, 6, 7):
        for version in sorted(RECORD_VERSIONS):
            same_settlement(
                settle_state(eng, state, version), ref.settle_state(eng, state, version)
            )
