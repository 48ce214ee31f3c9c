from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.money.units import (
    MINOR_PER_POINT,
    exact,
    floor_to_unit,
    fraction_text,
    minor_to_points,
    non_negative,
    parse_fraction_text,
    points_to_minor,
    product,
    scaled,
    truncate_toward_zero,
    whole,
)


def test_one_point_is_one_hundred_minor_units() -> None:
    assert MINOR_PER_POINT == 100
    # 001 三公 特殊情况 pays 12.5 and 37.5 points: whole minor units.
    assert points_to_minor("12.5") == 1250
    assert points_to_minor("37.5") == 3750
    assert points_to_minor(Fraction(25, 2)) == 1250
    assert points_to_minor(950) == 95000
    assert minor_to_points(1250) == Fraction(25, 2)


def test_points_finer_than_a_minor_unit_are_refused() -> None:
    with pytest.raises(InvalidInput):
        points_to_minor("0.001")
    with pytest.raises(InvalidInput):
        points_to_minor(Fraction(1, 3))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12.5", Fraction(25, 2)),
        ("1/20", Fraction(1, 20)),
        ("5%", Fraction(1, 20)),
        ("2%", Fraction(1, 50)),
        ("-3", Fraction(-3)),
        ("0", Fraction(0)),
        ("-1/2", Fraction(-1, 2)),
        (" 7 ", Fraction(7)),
        ("0.05", Fraction(1, 20)),
    ],
)
def test_exact_reads_decimals_ratios_and_percentages(text: str, value: Fraction) -> None:
    assert exact(text) == value


@pytest.mark.parametrize("bad", [0.5, True, None, "abc", "1/0", "1e3", [1]])
def test_exact_refuses_floats_bools_and_junk(bad: object) -> None:
    with pytest.raises(InvalidInput):
        exact(bad)


def test_whole_and_non_negative() -> None:
    assert whole(Fraction(6, 2)) == 3
    assert non_negative(0) == 0
    for bad in (1.0, True, Fraction(1, 2), "3"):
        with pytest.raises(InvalidInput):
            whole(bad)
    with pytest.raises(InvalidInput):
        non_negative(-1)


def test_floor_to_unit_truncates_what_the_receiver_gets() -> None:
    assert floor_to_unit(Fraction(10000, 3)) == 3333
    # 000 血战麻将 查花猪: whole points -> 33 of 33.33.
    assert floor_to_unit(Fraction(10000, 3), MINOR_PER_POINT) == 3300
    assert floor_to_unit(Fraction(1001, 2)) == 500
    assert floor_to_unit(7) == 7
    assert floor_to_unit(0) == 0
    with pytest.raises(InvalidInput):
        floor_to_unit(Fraction(-1, 2))
    with pytest.raises(InvalidInput):
        floor_to_unit(5, 0)


def test_truncate_toward_zero() -> None:
    assert truncate_toward_zero(Fraction(-7, 2)) == -3
    assert truncate_toward_zero(Fraction(7, 2)) == 3
    assert truncate_toward_zero(Fraction(-250, 1), 100) == -200


def test_fraction_text_round_trips() -> None:
    assert fraction_text(Fraction(25, 2)) == "25/2"
    assert fraction_text(3) == "3/1"
    assert fraction_text(Fraction(-2, 4)) == "-1/2"
    assert parse_fraction_text("-1/2") == Fraction(-1, 2)


def test_product_and_scaled() -> None:
    assert product([6, 5, 3]) == 90
    assert product([]) == 1
    assert scaled(200, 100, 800) == 25
    with pytest.raises(InvalidInput):
        scaled(1, 1, 0)
