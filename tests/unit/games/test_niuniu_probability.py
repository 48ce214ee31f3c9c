"""Exact Niuniu odds, pinned: the category distribution of every variant over all
2,598,960 hands (counted by rank multiset with suit combinatorics and checked here
against a full enumeration of a smaller, decisive sample), and 百人牛牛's banker-versus-
spot game over all 3,986,646,103,440 ordered pairs of disjoint hands (inclusion-
exclusion; the direct double loop in bench/bench_niuniu_pairs.py agrees)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from croupier.games.niuniu.engine import NiuniuEngine
from croupier.games.niuniu.hands import Category, HandRules, evaluate
from croupier.games.niuniu.probability import (
    HANDS,
    PAIRS,
    category_counts,
    multiset_categories,
    pair_odds,
    rank_multisets,
    ways,
)
from croupier.games.registry import variant_config

C = Category
DECK = [r + s for r in "A23456789TJQK" for s in "shdc"]

# 000 and 001 (same categories; only the multipliers differ)
COUNTS_000 = {
    C.FIVE_SMALL: 776,
    C.FOUR_BOMB: 608,
    C.FIVE_FLOWER: 768,
    C.FOUR_FLOWER: 1968,
    C.NIUNIU: 189008,
    C.NIU_9: 171288,
    C.NIU_8: 168072,
    C.NIU_7: 171288,
    C.NIU_6: 168072,
    C.NIU_5: 177408,
    C.NIU_4: 168072,
    C.NIU_3: 171288,
    C.NIU_2: 168072,
    C.NIU_1: 171288,
    C.NO_NIU: 870984,
}
# 004: no 小牛牛 (its hands fall to 无牛 or 四炸), no 四花牛 (牛牛), 五花牛 above 四炸
COUNTS_004 = {
    C.FIVE_FLOWER: 792,
    C.FOUR_BOMB: 600,
    C.NIUNIU: 190976,
    C.NIU_9: 171288,
    C.NIU_8: 168072,
    C.NIU_7: 171288,
    C.NIU_6: 168072,
    C.NIU_5: 177408,
    C.NIU_4: 168072,
    C.NIU_3: 171288,
    C.NIU_2: 168072,
    C.NIU_1: 171288,
    C.NO_NIU: 871744,
}


def engine(variant: str) -> NiuniuEngine:
    """The variant's engine, built without loading the other families."""
    return NiuniuEngine(variant_config(variant))


def rules(variant: str) -> HandRules:
    return engine(variant).hands


@pytest.mark.parametrize(
    ("variant", "counts"),
    [
        ("niuniu.hundred", COUNTS_000),
        ("niuniu.banker", COUNTS_000),
        ("niuniu.tongbi", COUNTS_000),
        ("niuniu.classic", COUNTS_000),
        ("niuniu.yuele", COUNTS_004),
    ],
)
def test_category_distribution_over_all_hands(variant: str, counts: dict[C, int]) -> None:
    got = category_counts(rules(variant))
    assert got == counts
    assert list(got) == list(counts)  # highest first
    assert sum(got.values()) == HANDS == 2_598_960


def test_the_004_differences_add_up() -> None:
    # 四炸 that are five flowers (JJJJ/QQQQ/KKKK with another face card: 3 x 4 x 2 = 24)
    # move to 五花牛; five-small hands become 无牛 or (AAAA2...) 四炸; 四花牛 -> 牛牛
    assert COUNTS_004[C.FIVE_FLOWER] == COUNTS_000[C.FIVE_FLOWER] + 24
    four_small = 16  # AAAA2 AAAA3 AAAA4 2222A, 4 suits each: 小牛牛 in 000, 四炸 in 004
    assert COUNTS_004[C.FOUR_BOMB] == COUNTS_000[C.FOUR_BOMB] - 24 + four_small
    assert COUNTS_004[C.NO_NIU] == COUNTS_000[C.NO_NIU] + COUNTS_000[C.FIVE_SMALL] - four_small
    assert COUNTS_004[C.NIUNIU] == COUNTS_000[C.NIUNIU] + COUNTS_000[C.FOUR_FLOWER]


def test_multiset_counting_matches_card_level_enumeration_on_a_sample() -> None:
    """Every rank multiset's suit count is C(4, c) per rank; a full enumeration of the
    hands drawn from 24 cards (A-6 in all suits) agrees card by card."""
    assert sum(ways(c) for c in rank_multisets(5)) == HANDS
    assert len(list(rank_multisets(5))) == math.comb(17, 5) - 13 == 6175  # no five of a rank
    small_deck = [c for c in DECK if c[0] in "A23456"]
    r = rules("niuniu.banker")
    direct: dict[C, int] = {}
    for hand in itertools.combinations(small_deck, 5):
        cat = evaluate(hand, r).category
        direct[cat] = direct.get(cat, 0) + 1
    by_multiset: dict[C, int] = {}
    for counts, cat in multiset_categories(r).items():
        if all(c == 0 for c in counts[6:]):
            by_multiset[cat] = by_multiset.get(cat, 0) + ways(counts)
    assert direct == by_multiset
    assert sum(direct.values()) == math.comb(24, 5)


def test_banker_against_spot_exact() -> None:
    r = rules("niuniu.hundred")
    odds = pair_odds(r)
    assert odds.pairs == PAIRS == 3_986_646_103_440
    assert odds.p_spot_wins == Fraction(1, 2)  # exchangeable hands, no ties in one deck
    assert all(v.denominator == 1 for v in odds.spot_wins.values())
    assert odds.spot_wins[C.NIUNIU] == 278_967_671_648
    assert odds.spot_wins[C.NO_NIU] == 224_353_239_496
    assert odds.spot_wins[C.FIVE_SMALL] == 1_190_330_632
    assert odds.expected_win_multiple(r) == Fraction(2666267834, 2373003633)


def test_hundred_rtp_per_spot() -> None:
    e = engine("niuniu.hundred")
    rtp = e.theoretical_rtp()
    for spot in ("fu", "lu", "shou", "xi"):
        assert rtp[spot] == 1  # before rake: the winner's multiplier applies both ways
        assert rtp[f"{spot}.after_rake"] == Fraction(22396902413, 23730036330)
    assert 0.9438 < float(rtp["fu.after_rake"]) < 0.9439
    assert "0.943821" in e.rtp_table()


def test_other_variants_have_no_spot_rtp_but_print_their_categories() -> None:
    for v in ("niuniu.banker", "niuniu.tongbi", "niuniu.classic", "niuniu.yuele"):
        e = engine(v)
        assert e.theoretical_rtp() == {}
        assert "no_niu" in e.rtp_table() and "2,598,960" in e.rtp_table()


def test_pair_odds_agree_with_sampled_pairs() -> None:
    """A sampled sanity check of the exact figure (fixed seed, wide margin)."""
    r = rules("niuniu.hundred")
    rng = random.Random(11)
    n, wins, mult = 4000, 0, 0
    for _ in range(n):
        cards = rng.sample(DECK, 10)
        s, b = evaluate(cards[:5], r), evaluate(cards[5:], r)
        if s.beats(b):
            wins += 1
            mult += s.multiplier
    assert abs(wins / n - 0.5) < 0.03
    assert abs(mult / n - float(pair_odds(r).expected_win_multiple(r))) < 0.1
