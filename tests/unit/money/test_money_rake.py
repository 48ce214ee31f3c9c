from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.errors import InvalidInput
from croupier.money import FIVE_PERCENT, NO_RAKE, TWO_PERCENT, RakePolicy, rake_on_profits
from croupier.money.rake import rake_step


def test_rates_of_the_seeds() -> None:
    assert Fraction(5, 100) == FIVE_PERCENT
    assert Fraction(2, 100) == TWO_PERCENT
    assert NO_RAKE.rate == 0


def test_rake_is_on_profit_and_truncated() -> None:
    policy = RakePolicy(FIVE_PERCENT)
    assert rake_on_profits({"A": 100000, "B": -20000, "C": 0}, policy) == {
        "A": 5000,
        "B": 0,
        "C": 0,
    }
    assert rake_on_profits({"A": 39}, policy) == {"A": 1}
    assert rake_on_profits({"A": 19}, policy) == {"A": 0}
    assert rake_on_profits({"A": 1225}, RakePolicy(TWO_PERCENT)) == {"A": 24}


def test_exempt_participants_pay_no_rake() -> None:
    policy = RakePolicy(FIVE_PERCENT, exempt=frozenset({"house"}))
    assert rake_on_profits({"house": 1000, "p": 1000}, policy) == {"house": 0, "p": 50}


def test_cap_per_hand_scales_each_rake_down_truncated() -> None:
    policy = RakePolicy(FIVE_PERCENT, cap=40)
    assert rake_on_profits({"A": 1000, "B": 600}, policy) == {"A": 25, "B": 15}
    # raw 3, 3, 3 under a cap of 4: 3*4//9 = 1 each, 3 in all (never above the cap).
    assert rake_on_profits({"A": 60, "B": 60, "C": 60}, RakePolicy(FIVE_PERCENT, cap=4)) == {
        "A": 1,
        "B": 1,
        "C": 1,
    }
    assert rake_on_profits({"A": 1000}, RakePolicy(FIVE_PERCENT, cap=100)) == {"A": 50}
    assert rake_on_profits({"A": 1000}, RakePolicy(FIVE_PERCENT, cap=0)) == {"A": 0}


def test_policy_validation() -> None:
    assert RakePolicy("5%").rate == FIVE_PERCENT  # type: ignore[arg-type]
    for bad in (Fraction(1), Fraction(-1, 20), 0.05):
        with pytest.raises(InvalidInput):
            RakePolicy(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        RakePolicy(FIVE_PERCENT, cap=-1)


def test_rake_step_records_rate_profits_and_rakes() -> None:
    rakes, steps = rake_step({"A": 1000, "B": -1000}, RakePolicy(FIVE_PERCENT), ["B", "A"])
    (step,) = steps
    assert rakes == {"A": 50, "B": 0}
    assert step.to_json_dict() == {
        "step": "rake",
        "rule": "rake_on_net_profit",
        "source": step.source,
        "rate": "1/20",
        "exempt": [],
        "profits": {"B": -1000, "A": 1000},
        "rakes": {"B": 0, "A": 50},
    }
