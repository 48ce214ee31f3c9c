"""Exact Sangong probabilities: the category distribution over the 22,100 three-card
hands, recounted here by combinatorics, and the banker-versus-player matchup, whose
inclusion-exclusion count is held against visiting every pair of a smaller deck. The
theoretical RTP of every sangong.hundred spot (000_d16ad353ba467b8a.txt, 百人三公游戏规则)
and of a grab-table player is pinned."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import pytest

from croupier.cards import CARDS52
from croupier.games.registry import variant_config
from croupier.games.sangong.engine import SPOTS, SangongEngine
from croupier.games.sangong.hands import Category
from croupier.games.sangong.probability import (
    all_hands,
    category_counts,
    label_counts,
    matchup,
    matchup_brute_force,
)

VARIANTS = ["sangong.hundred", "sangong.grab", "sangong.classic"]


def eng(variant: str) -> SangongEngine:
    """The engine, built from its config alone (not through the registry of every
    family)."""
    return SangongEngine(variant_config(variant))


def points_counts() -> dict[int, int]:
    """Hands that are neither a triple nor three face cards, by points - counted over
    rank multisets (4 suits each) rather than by evaluating hands."""
    values = {r: (i + 1 if i < 9 else 0) for i, r in enumerate("A23456789TJQK")}
    out = dict.fromkeys(range(10), 0)
    for ranks in itertools.combinations_with_replacement("A23456789TJQK", 3):
        if len(set(ranks)) == 1 or all(r in "JQK" for r in ranks):
            continue
        ways = 1
        for r in set(ranks):
            ways *= comb(4, ranks.count(r))
        out[sum(values[r] for r in ranks) % 10] += ways
    return out


def test_the_category_distribution_over_22100_hands() -> None:
    pts = points_counts()
    # 9 and every odd total: 2208; even totals: 2160
    assert [pts[p] for p in range(9, -1, -1)] == [2208, 2160] * 5
    assert sum(pts.values()) == comb(52, 3) - 13 * 4 - (comb(12, 3) - 3 * 4) == 21840
    expected_points = {f"points:{p}": pts[p] for p in range(9, -1, -1)}
    with_baojiu = {"baojiu": 4, "bomb": 48, "sangong": 208, **expected_points}
    without = {"bomb": 52, "sangong": 208, **expected_points}
    for v in VARIANTS:
        counts = label_counts(eng(v).hands)
        assert counts == (without if v == "sangong.classic" else with_baojiu)
        assert sum(counts.values()) == 22100
        assert list(counts) == list(with_baojiu if v != "sangong.classic" else without)
        by_category = category_counts(eng(v).hands)
        assert sum(by_category.values()) == 22100
        assert by_category[Category.POINTS] == 21840 and by_category[Category.SANGONG] == 208


SMALL = [c for c in CARDS52 if c[0] in "3TKA9"]  # 20 cards: 爆玖, bombs, 三公, points


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_counting_agrees_with_every_pair_of_a_small_deck(variant: str) -> None:
    r = eng(variant).hands
    assert matchup(r, SMALL) == matchup_brute_force(r, SMALL)


def test_exact_matchups() -> None:
    pairs = 22100 * 18424
    h = eng("sangong.hundred").matchup()
    # no ties in one deck and a symmetric game: the spot wins exactly half the pairs and
    # wins as much as it loses
    assert (h.pairs, h.player_wins) == (pairs, pairs // 2)
    assert h.player_win_multiples == h.banker_win_multiples == 315861080
    assert h.rtp == 1
    g = eng("sangong.grab").matchup()
    # 001 抢庄: both 0 points go to the banker
    assert (g.player_wins, g.player_win_multiples, g.banker_win_multiples) == (
        201639304,
        313915184,
        317806976,
    )
    # the rule moves exactly the pairs where both have 0 points and the player's hand is
    # the stronger: half of the disjoint 0-point pairs
    g_rules = eng("sangong.grab").hands
    zero = [h for h in all_hands(g_rules) if h.zero_points]
    masks = [sum(1 << CARDS52.index(c) for c in h.cards) for h in zero]
    both_zero = sum(1 for a in masks for b in masks if not a & b)
    assert len(zero) == 2160 and both_zero == 3891792
    assert pairs // 2 - g.player_wins == both_zero // 2
    assert g_rules.zero_points_banker_wins
    assert g.p_player == Fraction(201639304, pairs)
    c = eng("sangong.classic").matchup()
    assert (c.player_wins, c.player_win_multiples) == (pairs // 2, 314830584)
    assert c.rtp == 1


def test_theoretical_rtp_of_every_hundred_spot() -> None:
    rtp = eng("sangong.hundred").theoretical_rtp()
    after = Fraction(195688673, 203585200)  # 1 - 5% x 315861080 / 407170400
    assert after == 1 - Fraction(1, 20) * Fraction(315861080, 22100 * 18424)
    for spot in SPOTS:
        assert rtp[spot] == 1
        assert rtp[f"{spot}.after_rake"] == after
    assert f"{float(after):.6f}" == "0.961213"
    assert set(rtp) == {*SPOTS, *(f"{s}.after_rake" for s in SPOTS)}


def test_theoretical_rtp_of_a_grab_table_player() -> None:
    g = eng("sangong.grab").theoretical_rtp()
    assert g == {
        "player": Fraction(25204913, 25448150),
        "player.after_rake": Fraction(69211223, 72709000),
    }
    c = eng("sangong.classic").theoretical_rtp()
    assert c == {"player": 1, "player.after_rake": Fraction(2505461177, 2544815000)}


def test_rtp_table_prints_the_distribution_and_the_rtps() -> None:
    text = eng("sangong.hundred").rtp_table()
    assert "baojiu" in text and "points:0" in text and "0.961213" in text
    assert "407170400" in text
