"""开心摇摇乐 exact probabilities over all 6**6 rolls, the spot RTPs pinned, and the
payout reading decided by the RTP each reading implies (000_d16ad353ba467b8a.txt,
开心摇摇乐, 二、注点赔率: "1赔X")."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from croupier.games.dice.engine import DiceEngine
from croupier.games.dice.probability import (
    ROLLS,
    SEED_RTP,
    profit_reading,
    side_classes,
    yaoyao_odds,
)
from croupier.games.dice.rules import (
    SEED_PAYTABLE,
    Pattern,
    Paytable,
    Round,
    Spot,
    Winner,
    spot_result,
)
from croupier.games.registry import variant_config


def test_brute_force_over_all_46656_rolls_matches_the_class_enumeration() -> None:
    results: dict[Spot, Counter[Fraction]] = {s: Counter() for s in Spot}
    winners: Counter[Winner] = Counter()
    for dice in product(range(1, 7), repeat=6):
        rnd = Round.of(dice)
        winners[rnd.winner] += 1
        for s in Spot:
            results[s][spot_result(s, rnd)] += 1
    odds = yaoyao_odds()
    assert sum(winners.values()) == ROLLS == 46656
    assert dict(winners) == odds.winner
    assert {s: dict(c) for s, c in results.items()} == {s: dict(c) for s, c in odds.results.items()}


def test_three_dice_classes() -> None:
    c = side_classes()
    assert sum(c.values()) == 216
    by_pattern: Counter[Pattern] = Counter()
    for (_, pat), n in c.items():
        by_pattern[pat] += n
    assert by_pattern == {
        Pattern.TRIPLE: 6,
        Pattern.STRAIGHT: 24,
        Pattern.PAIR: 90,
        Pattern.NONE: 96,
    }


def test_exact_probabilities() -> None:
    o = yaoyao_odds()
    assert o.winner == {Winner.RED: 21162, Winner.BLUE: 21162, Winner.TIE: 4332}
    assert o.low_wins == 854  # 427 each side: a winning total of 7 or less
    assert o.side_pattern[Pattern.PAIR] == 90 * 216


def test_seed_rtps_are_pinned() -> None:
    rtp = yaoyao_odds().rtp
    assert rtp == SEED_RTP
    # red: 2 back on 20,735 wins, 1.5 back on 427 low wins, the stake back on 4,332 ties
    assert rtp[Spot.RED] == (2 * (21162 - 427) + Fraction(3, 2) * 427 + 4332) / ROLLS
    assert rtp[Spot.TIE] == Fraction(8 * 4332, ROLLS)
    assert rtp[Spot.RED_PAIR] == Fraction(90, 216) * Fraction(23, 10)
    assert rtp[Spot.RED_STRAIGHT] == Fraction(24, 216) * 8
    assert rtp[Spot.RED_TRIPLE] == Fraction(6, 216) * 30
    assert all(v < 1 for v in rtp.values())
    assert round(float(rtp[Spot.RED]), 6) == 0.995424


def test_the_profit_reading_is_not_a_reading() -> None:
    # "1赔X" as X profit: red/blue and the pairs return more than staked
    rtp = yaoyao_odds(profit_reading()).rtp
    assert rtp[Spot.RED] > Fraction(144, 100) and rtp[Spot.BLUE] == rtp[Spot.RED]
    assert rtp[Spot.RED_PAIR] == Fraction(11, 8)  # 137.5%
    assert rtp[Spot.RED_STRAIGHT] == 1  # break-even: no house game either
    assert rtp[Spot.TIE] == Fraction(9 * 4332, ROLLS) and rtp[Spot.RED_TRIPLE] == Fraction(31, 36)


def test_a_pair_counting_triples_would_return_more_than_staked() -> None:
    assert Fraction(90 + 6, 216) * SEED_PAYTABLE.pair > 1


def test_the_engine_reports_the_rtp_per_spot() -> None:
    e = DiceEngine(variant_config("dice.yaoyao"))
    assert e.theoretical_rtp() == {s.value: v for s, v in SEED_RTP.items()}
    table = e.rtp_table()
    assert "red" in table and "0.995424" in table and "0.742798" in table


def test_a_different_paytable_changes_the_rtp() -> None:
    p = Paytable(main=Fraction(2), main_low=Fraction(2))
    assert yaoyao_odds(p).rtp[Spot.RED] == Fraction(2 * 21162 + 4332, ROLLS)
