from __future__ import annotations

import json

import pytest

from croupier import canonical
from croupier.errors import InvalidInput
from croupier.money import FIVE_PERCENT, PotSeat, RakePolicy, build_pots, settle_pots
from croupier.money.record import PotsStep


def seed_table() -> list[PotSeat]:
    """000 必下德州规则 结算例子, in points x 100."""
    return [
        PotSeat("A", 40000, 4),
        PotSeat("B", 20000, 1),
        PotSeat("C", 80000, 2),
        PotSeat("D", 160000, 3),
    ]


def test_seed_table() -> None:
    r = settle_pots(seed_table(), rake=RakePolicy(FIVE_PERCENT))
    assert dict(r.deltas) == {"A": 95000, "B": -20000, "C": -80000, "D": 0}
    assert dict(r.rake) == {"A": 5000, "B": 0, "C": 0, "D": 0}
    assert [(p.amount, p.eligible, p.winners) for p in r.pots] == [
        (80000, ("A", "B", "C", "D"), ("A",)),
        (60000, ("A", "C", "D"), ("A",)),
        (80000, ("C", "D"), ("D",)),
    ]
    step = r.steps[0]
    assert isinstance(step, PotsStep)
    assert step.returned == (("D", 80000),)
    assert dict(r.staked) == {"A": 40000, "B": 20000, "C": 80000, "D": 160000}
    assert dict(r.returned) == {"A": 140000, "B": 0, "C": 0, "D": 160000}


def test_pots_add_up_to_contributions() -> None:
    pots, returned = build_pots(seed_table())
    assert sum(p.amount for p in pots) + sum(returned.values()) == 300000
    assert [p.level for p in pots] == [20000, 40000, 80000]
    assert pots[1].contributions == (("A", 20000), ("C", 20000), ("D", 20000))


def test_folded_chips_stay_in_the_pots_they_reached() -> None:
    # B folds after putting in 300; A all-in 200; C and D 500 each.
    seats = [
        PotSeat("A", 200, 1),
        PotSeat("B", 300, folded=True),
        PotSeat("C", 500, 3),
        PotSeat("D", 500, 2),
    ]
    r = settle_pots(seats)
    assert [(p.amount, p.eligible, p.winners) for p in r.pots] == [
        (800, ("A", "C", "D"), ("C",)),
        (700, ("C", "D"), ("C",)),
    ]
    assert dict(r.deltas) == {"A": -200, "B": -300, "C": 1000, "D": -500}


def test_folded_chips_above_every_live_level_go_to_the_last_pot() -> None:
    seats = [PotSeat("A", 100, 1), PotSeat("B", 400, folded=True), PotSeat("C", 400, folded=True)]
    pots, returned = build_pots(seats)
    assert returned == {}
    assert [(p.amount, p.eligible) for p in pots] == [(900, ("A",))]
    r = settle_pots(seats)
    assert dict(r.deltas) == {"A": 800, "B": -400, "C": -400}


def test_uncalled_chips_are_returned_even_to_a_folded_player() -> None:
    seats = [PotSeat("A", 500, folded=True), PotSeat("B", 200, 1), PotSeat("C", 200, 2)]
    r = settle_pots(seats)
    assert r.steps[0].returned == (("A", 300),)  # type: ignore[union-attr]
    assert dict(r.deltas) == {"A": -200, "B": -200, "C": 400}


def test_ties_split_with_odd_units_clockwise_from_the_button() -> None:
    seats = [PotSeat("A", 34, 5), PotSeat("B", 33, 5), PotSeat("C", 33, 5), PotSeat("D", 0, 1)]
    # A's unmatched unit goes back first; 99 then splits evenly three ways.
    r = settle_pots(seats)
    assert r.steps[0].returned == (("A", 1),)  # type: ignore[union-attr]
    assert dict(r.deltas) == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert r.pots[0].odd_units == ()
    seats = [PotSeat("A", 50, 5), PotSeat("B", 50, 5), PotSeat("C", 50, 5), PotSeat("D", 50, 1)]
    r = settle_pots(seats)  # 200 / 3 = 66 r 2: A and B (first after the button) get one more
    assert dict(r.deltas) == {"A": 17, "B": 17, "C": 16, "D": -50}
    assert r.pots[0].odd_units == ("A", "B")
    r = settle_pots(seats, button="A")  # first after the button is B
    assert dict(r.deltas) == {"A": 16, "B": 17, "C": 17, "D": -50}
    assert r.pots[0].odd_units == ("B", "C")
    r = settle_pots(seats, button="B")
    assert dict(r.deltas) == {"A": 17, "B": 16, "C": 17, "D": -50}
    assert r.pots[0].winners == ("C", "A", "B")


def test_tuple_strengths_and_last_player_standing() -> None:
    seats = [PotSeat("A", 100, (2, 14, 13)), PotSeat("B", 100, (2, 14, 12))]
    assert dict(settle_pots(seats).deltas) == {"A": 100, "B": -100}
    alone = [PotSeat("A", 100), PotSeat("B", 150, folded=True)]
    assert dict(settle_pots(alone).deltas) == {"A": 100, "B": -100}
    nothing = [PotSeat("A", 0, 1), PotSeat("B", 0, 2)]
    r = settle_pots(nothing)
    assert dict(r.deltas) == {"A": 0, "B": 0}
    assert r.pots == ()


def test_rake_on_net_profit_with_a_cap() -> None:
    seats = [PotSeat("A", 10000, 2), PotSeat("B", 10000, 1), PotSeat("C", 10000, 2)]
    r = settle_pots(seats, rake=RakePolicy(FIVE_PERCENT, cap=600))
    # A and C profit 5000 each: raw rake 250 + 250 under a cap of 600.
    assert dict(r.rake) == {"A": 250, "B": 0, "C": 250}
    r = settle_pots(seats, rake=RakePolicy(FIVE_PERCENT, cap=300))
    assert dict(r.rake) == {"A": 150, "B": 0, "C": 150}
    assert sum(r.deltas.values()) + r.total_rake == 0


@pytest.mark.parametrize(
    "seats",
    [
        [PotSeat("A", 1, 1), PotSeat("A", 1, 2)],
        [PotSeat("A", -1, 1), PotSeat("B", 1, 2)],
        [PotSeat("A", True, 1), PotSeat("B", 1, 2)],  # type: ignore[arg-type]
        [PotSeat("A", 1.0, 1), PotSeat("B", 1, 2)],  # type: ignore[arg-type]
        [PotSeat("A", 1, folded=True), PotSeat("B", 1, folded=True)],
        [PotSeat("A", 5, 1), PotSeat("B", 5)],
        [PotSeat("", 5, 1)],
        ["A"],
    ],  # type: ignore[list-item]
)
def test_bad_seats(seats: list[PotSeat]) -> None:
    with pytest.raises(InvalidInput):
        settle_pots(seats)


def test_unknown_button() -> None:
    with pytest.raises(InvalidInput):
        settle_pots([PotSeat("A", 1, 1)], button="Z")


def test_record_is_canonical_json() -> None:
    r = settle_pots(seed_table(), rake=RakePolicy(FIVE_PERCENT), hand_id="h1")
    d = r.to_json_dict()
    assert d["hand_id"] == "h1"
    assert d["pots"][1]["name"] == "side1"  # type: ignore[index]
    body = canonical.dumps(d)
    assert canonical.loads(body) == json.loads(body)
    assert (
        canonical.dumps(
            settle_pots(seed_table(), rake=RakePolicy(FIVE_PERCENT), hand_id="h1").to_json_dict()
        )
        == body
    )
