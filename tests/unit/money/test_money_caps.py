from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.money import (
    Claim,
    MultipleCap,
    PairAmountCap,
    ParticipantMultipleCap,
    cap_fan,
    cap_multiple,
    doudizhu_cap,
    doudizhu_doubling_caps,
    fan_cap,
    xuezhan_daodi_pair_cap,
)
from croupier.money.caps import Capped, apply_cap


def capped(*claims: Claim) -> list[Capped]:
    return [(c, c.multiple) for c in claims]


def amounts(pairs: list[Capped]) -> list[Fraction]:
    return [c.base * m for c, m in pairs]


def test_helpers() -> None:
    assert cap_multiple(48, 30) == 30
    assert cap_multiple(Fraction(5, 2), 30) == Fraction(5, 2)
    assert cap_fan(5, 3) == 3
    assert cap_fan(2, 3) == 2
    with pytest.raises(InvalidInput):
        cap_fan(-1, 3)


def test_doudizhu_cap_30_cuts_bid_times_multiple() -> None:
    claims = capped(Claim("F1", "L", 1000, (3, 16)), Claim("F2", "L", 1000, (3, 4)))
    out, step = apply_cap(claims, doudizhu_cap())
    assert amounts(out) == [30000, 12000]
    assert step.limit == "30/1"
    assert len(step.adjustments) == 1
    adj = step.adjustments[0]
    assert (adj.multiple_before, adj.multiple_after) == (48, 30)
    assert (adj.amount_before, adj.amount_after) == (48000, 30000)
    assert "1.4.1" in step.source


def test_doubling_caps_farmer_128_and_landlord_256() -> None:
    farmer, landlord = doudizhu_doubling_caps("L")
    claims = capped(Claim("L", "F1", 100, (3, 4, 2, 8)), Claim("L", "F2", 100, (3, 4, 2, 8)))
    out, _ = apply_cap(claims, farmer)
    assert [m for _, m in out] == [128, 128]
    out, step = apply_cap(out, landlord)
    assert [m for _, m in out] == [128, 128]
    assert step.adjustments == ()
    # A landlord total above 256 is scaled pro rata.
    out, step = apply_cap(
        capped(Claim("L", "F1", 100, (200,)), Claim("L", "F2", 100, (120,))), landlord
    )
    assert [m for _, m in out] == [160, 96]
    assert len(step.adjustments) == 2


def test_multiple_cap_only_on_listed_spots() -> None:
    cap = fan_cap(3, "004 血战到底", spots=("hu",))
    assert cap.limit == 8
    out, _ = apply_cap(
        capped(Claim("B", "A", 10, (16,), "hu"), Claim("B", "A", 10, (16,), "gang")), cap
    )
    assert amounts(out) == [80, 160]


def test_pair_cap_counts_claims_in_order_and_drops_the_excess() -> None:
    cap = xuezhan_daodi_pair_cap(100)  # 24 points in a 1-point room
    assert cap.limit == 2400
    claims = capped(
        Claim("B", "A", 100, (8,), "hu"),
        Claim("B", "A", 100, (8,), "gang"),
        Claim("C", "A", 100, (8,), "hu"),
        Claim("B", "A", 100, (5,), "hua_zhu"),
        Claim("B", "A", 100, (8,), "gang"),
    )
    out, step = apply_cap(claims, cap)
    assert amounts(out) == [800, 800, 800, 500, 300]
    out2, step2 = apply_cap(capped(*[c for c, _ in claims], Claim("B", "A", 100, (1,))), cap)
    assert amounts(out2)[-2:] == [300, 0]
    assert len(step2.adjustments) == 2
    assert step.limit == "2400"


def test_pair_cap_is_directional() -> None:
    cap = PairAmountCap(100, "r", "s")
    out, _ = apply_cap(capped(Claim("A", "B", 150), Claim("B", "A", 150)), cap)
    assert amounts(out) == [100, 100]


def test_cap_validation() -> None:
    with pytest.raises(InvalidInput):
        MultipleCap(Fraction(-1), "r", "s")
    with pytest.raises(InvalidInput):
        ParticipantMultipleCap("L", Fraction(-1), "r", "s")
    with pytest.raises(InvalidInput):
        PairAmountCap(-5, "r", "s")
    with pytest.raises(InvalidInput):
        fan_cap(-1, "s")
