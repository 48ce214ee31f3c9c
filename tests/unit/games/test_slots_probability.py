"""多财多福's RTP, proved: every one of the 27,000 stop combinations enumerated gives
exactly the config's target of 96% (24/25), the independence argument gives the same
number, and the double-up's guess is fair (croupier.games.slots.probability,
seeds/variants/slots.duocai.json target_rtp)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from croupier.games.registry import variant_config
from croupier.games.slots.double_up import guess_rtp
from croupier.games.slots.engine import SlotEngine
from croupier.games.slots.probability import rtp_by_independence, spin_odds
from croupier.games.slots.reels import Machine


@cache
def eng() -> SlotEngine:
    return SlotEngine(variant_config("slots.duocai"))


def test_the_enumerated_rtp_is_the_stated_96_percent() -> None:
    e = eng()
    o = spin_odds(e.machine)
    assert o.combinations == sum(o.pays.values()) == 27000
    assert o.total_pay == 5 * 25920  # 25,920 line bets per line over all combinations
    assert o.rtp == Fraction(24, 25) == e.target_rtp
    assert e.theoretical_rtp() == {"spin": Fraction(24, 25), "double": Fraction(1)}


def test_the_independence_argument_gives_the_same_rtp() -> None:
    m = eng().machine
    assert rtp_by_independence(m) == spin_odds(m).rtp
    # and a single line enumerated on its own has the same expected pay
    line_machine = Machine(m.strips, m.rows, ((0, 2, 1),), m.paytable)
    assert spin_odds(line_machine).rtp == Fraction(24, 25)


def test_hit_frequency_and_largest_pay() -> None:
    o = spin_odds(eng().machine)
    assert o.hit_frequency == Fraction(991, 2250)  # 11,892 of 27,000: 44.04%
    assert o.max_pay == 152 and o.pays[152] == 1
    assert o.line_wins[("fu", 3)] == 5 * 3 * 3 * 2
    assert o.line_wins[("fu", 1)] == 5 * 3 * 27 * 30


def test_the_double_up_guess_is_fair() -> None:
    assert guess_rtp() == 1


def test_the_rtp_table_prints_the_proof() -> None:
    table = eng().rtp_table()
    assert "27,000 stop combinations" in table and "0.960000" in table and "24/25" in table
