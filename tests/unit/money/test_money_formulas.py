from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.money import (
    Claim,
    banker_game_claim,
    doudizhu_claims,
    mahjong_discard_claim,
    mahjong_self_draw_claims,
    tongbi_niuniu_claims,
)


def test_claim_validation_and_amount() -> None:
    c = Claim("b", "a", 10000, (6, 5, "3"), "tongbi")
    assert c.factors == (6, 5, 3)
    assert c.multiple == 90
    assert c.amount == 900000
    assert Claim("a", "b", 7).amount == 7
    for kwargs in (
        {"payer": "a", "payee": "a", "base": 1},
        {"payer": "", "payee": "b", "base": 1},
        {"payer": "a", "payee": "b", "base": -1},
        {"payer": "a", "payee": "b", "base": 1.0},
    ):
        with pytest.raises(InvalidInput):
            Claim(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        Claim("a", "b", 1, (Fraction(-1),))
    with pytest.raises(InvalidInput):
        Claim("a", "b", 1, (0.5,))  # type: ignore[arg-type]


def test_doudizhu_classic_claims() -> None:
    claims = doudizhu_claims(
        landlord="L", farmers=["F1", "F2"], base=1000, bid=3, multiple=4, landlord_wins=False
    )
    assert [(c.payer, c.payee, c.base, c.factors) for c in claims] == [
        ("L", "F1", 1000, (3, 4)),
        ("L", "F2", 1000, (3, 4)),
    ]
    claims = doudizhu_claims(
        landlord="L", farmers=["F1", "F2"], base=1000, bid=1, multiple=2, landlord_wins=True
    )
    assert [(c.payer, c.payee, c.amount) for c in claims] == [("F1", "L", 2000), ("F2", "L", 2000)]


def test_doudizhu_doubling_claims() -> None:
    claims = doudizhu_claims(
        landlord="L",
        farmers=["F1", "F2"],
        base=1000,
        bid=3,
        multiple=2,
        landlord_wins=False,
        grab=2,
        doubling={"F1": 2},
    )
    assert [c.factors for c in claims] == [(3, 2, 2, 2), (3, 2, 1, 2)]
    assert [c.amount for c in claims] == [24000, 12000]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bid": 4},
        {"bid": 0},
        {"farmers": ["L", "F2"]},
        {"farmers": ["F1", "F1"]},
        {"farmers": []},
        {"doubling": {"F1": 3}},
        {"multiple": 0},
        {"grab": 0},
    ],
)
def test_doudizhu_claims_refuse_bad_input(kwargs: dict[str, object]) -> None:
    args: dict[str, object] = {
        "landlord": "L",
        "farmers": ["F1", "F2"],
        "base": 10,
        "bid": 3,
        "multiple": 2,
        "landlord_wins": True,
    }
    args.update(kwargs)
    with pytest.raises(InvalidInput):
        doudizhu_claims(**args)  # type: ignore[arg-type]


def test_tongbi_claims() -> None:
    claims = tongbi_niuniu_claims(
        winner="a", base=10000, hand_multiple=6, bet_multiples={"a": 5, "b": 3, "c": 1}
    )
    assert [(c.payer, c.payee, c.amount) for c in claims] == [
        ("b", "a", 900000),
        ("c", "a", 300000),
    ]
    with pytest.raises(InvalidInput):
        tongbi_niuniu_claims(winner="z", base=1, hand_multiple=1, bet_multiples={"a": 1})
    with pytest.raises(InvalidInput):
        tongbi_niuniu_claims(winner="a", base=1, hand_multiple=0, bet_multiples={"a": 1})


def test_banker_game_claim_both_ways() -> None:
    won = banker_game_claim(
        banker="B",
        player="p",
        base=100,
        banker_wins=True,
        banker_multiple=3,
        player_multiple=2,
        bet_multiple=4,
    )
    assert (won.payer, won.payee, won.amount, won.spot) == ("p", "B", 1200, "p")
    lost = banker_game_claim(
        banker="B",
        player="p",
        base=100,
        banker_wins=False,
        banker_multiple=3,
        player_multiple=2,
        bet_multiple=4,
        spot="east",
    )
    assert (lost.payer, lost.payee, lost.amount, lost.spot) == ("B", "p", 800, "east")


def test_mahjong_claims() -> None:
    claims = mahjong_self_draw_claims(winner="W", payers=["X", "Y", "Z"], base=10000, fan=3)
    assert sum(c.amount for c in claims) == 240000
    assert all(c.amount == 80000 for c in claims)
    assert mahjong_discard_claim(winner="A", discarder="B", base=1000, fan=0).amount == 1000
    with pytest.raises(InvalidInput):
        mahjong_self_draw_claims(winner="W", payers=["W"], base=1, fan=0)
    with pytest.raises(InvalidInput):
        mahjong_discard_claim(winner="A", discarder="B", base=1, fan=-1)
