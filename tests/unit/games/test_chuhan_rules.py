"""楚汉德州 numbers: the exact prior and the odds derived from it, the runout odds of
保险楚汉德州's later rounds, the odds formulas and the skip rule.

Rules: 000_d16ad353ba467b8a.txt, 楚汉德州 and 保险楚汉德州规则; the seed gives no odds
or paytable, so seeds/variants/chuhan*.json derive them at a 5% margin from the prior
that bench/bench_chuhan_prior.py enumerates (every board, every Chu/Han deal)."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations

import pytest
from treys import Card, Evaluator  # type: ignore[import-untyped]

from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.chuhan.engine import ChuhanEngine
from croupier.games.chuhan.probability import (
    PAIRS_PER_BOARD,
    board_counts,
    canonical_board,
    runout_odds,
)
from croupier.games.chuhan.rules import (
    HAND_TYPES,
    OddsRule,
    Spot,
    decimal_odds,
    side_odds,
    text,
)
from croupier.games.poker.hands import best_of
from croupier.games.registry import engine, variant_config

VARIANTS = ("chuhan", "chuhan.insured")


def eng(variant: str) -> ChuhanEngine:
    e = engine(variant)
    assert isinstance(e, ChuhanEngine)
    return e


def test_the_prior_is_a_distribution_and_symmetric() -> None:
    for v in VARIANTS:
        e = eng(v)
        p = e.prior
        assert p["chu"] == p["han"] and p["chu"] + p["han"] + p["tie"] == 1
        assert sum(e.prior_types.values()) == 1
        assert p["tie"] == Fraction(14141282977, 347672625300)  # about 4.07%
    assert eng("chuhan").prior == eng("chuhan.insured").prior


@pytest.mark.parametrize("variant", VARIANTS)
def test_round_one_odds_are_the_formula_at_the_margin(variant: str) -> None:
    """Chu/Han: floor2((1 - 0.05 - P(tie) / 2) / P(side)) - the tie returns half in
    round 1 in both variants; the tie and every hand type: floor2(0.95 / P)."""
    e = eng(variant)
    p, rule = e.prior, e.rule
    assert rule.margin == Fraction(1, 20) and rule.places == 2
    assert e.tie_refund == Fraction(1, 2) and e.refund_rounds == frozenset({1})
    assert e.first_odds[Spot.CHU] == side_odds(p["chu"], p["tie"], rule, Fraction(1, 2))
    assert e.first_odds[Spot.HAN] == e.first_odds[Spot.CHU] == Fraction(193, 100)
    assert e.first_odds[Spot.TIE] == decimal_odds(p["tie"], rule) == Fraction(2335, 100)
    for spot in HAND_TYPES:
        assert e.first_odds[spot] == decimal_odds(e.prior_types[spot.category], rule)
    table = {s.value: text(o) for s, o in e.first_odds.items()}
    assert table == {
        "chu": "1.93", "han": "1.93", "tie": "23.35", "type.high_card": "16.02",
        "type.pair": "2.55", "type.two_pair": "3.02", "type.trips": "13.21",
        "type.straight": "11.84", "type.flush": "18.1", "type.full_house": "20.2",
        "type.quads": "304.41", "type.straight_flush": "1573.52",
    }  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_round_one_spot_returns_at_most_one_minus_the_margin(variant: str) -> None:
    rtp = eng(variant).theoretical_rtp()
    assert set(rtp) == {s.value for s in Spot}
    for spot, r in rtp.items():
        assert Fraction(93, 100) < r <= Fraction(95, 100), spot
    # Chu: P(chu) x 1.93 + P(tie) / 2
    p = eng(variant).prior
    assert rtp["chu"] == p["chu"] * Fraction(193, 100) + p["tie"] / 2
    assert "rtp" in eng(variant).rtp_table()


def test_limits_keep_a_win_within_fifty_thousand_points() -> None:
    e = eng("chuhan")
    for spot in Spot:
        lim = e.limits[spot]
        assert lim.min == 100
        if spot not in (Spot.CHU, Spot.HAN):
            assert lim.max * e.first_odds[spot] <= 5_000_000
            assert (lim.max + 100) * e.first_odds[spot] > 5_000_000


def test_board_counts_match_a_pair_by_pair_count() -> None:
    board = ("Ah", "Kh", "7d", "7c", "2s")
    rest = [c for c in CARDS52 if c not in board]
    holes = list(combinations(rest, 2))
    strength = {h: best_of((*board, *h)) for h in holes}
    wins = ties = 0
    for a in holes:
        sa = strength[a]
        for b in holes:
            if a[0] in b or a[1] in b:
                continue
            sb = strength[b]
            wins += sa > sb
            ties += sa == sb
    got = board_counts(board)
    assert sum(got.chu_wins) == wins and sum(got.ties) == ties
    assert 2 * wins + ties == PAIRS_PER_BOARD


def test_the_prior_agrees_with_a_sample_of_boards() -> None:
    """The stored prior is the full enumeration; 300 random boards estimate P(tie) and
    P(winner makes a pair) within 5 standard errors."""
    e = eng("chuhan")
    rng = random.Random(8)
    ties: list[float] = []
    pairs: list[float] = []
    for _ in range(300):
        c = board_counts(rng.sample(CARDS52, 5))
        ties.append(sum(c.ties) / PAIRS_PER_BOARD)
        pairs.append((2 * c.chu_wins[1] + c.ties[1]) / PAIRS_PER_BOARD)
    for xs, want in ((ties, e.prior["tie"]), (pairs, e.prior_types[Spot.PAIR.category])):
        mean = sum(xs) / len(xs)
        se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
        assert abs(mean - float(want)) < 5 * se


def test_boards_differing_by_suits_only_count_alike() -> None:
    a = ("Ah", "Kh", "7d", "7c", "2s")
    b = ("As", "Ks", "7c", "7h", "2d")  # hearts->spades, diamonds->clubs, clubs->hearts...
    assert canonical_board(a) == canonical_board(b)
    assert board_counts(a) == board_counts(b)


_TREYS = Evaluator()


def _treys_odds(chu: list[str], han: list[str], board: list[str]) -> tuple[int, int, int]:
    seen = {*chu, *han, *board}
    rest = [c for c in CARDS52 if c not in seen]
    tc = [Card.new(x) for x in chu]
    th = [Card.new(x) for x in han]
    w = l_ = t = 0
    for extra in combinations(rest, 5 - len(board)):
        b = [Card.new(x) for x in (*board, *extra)]
        a, h = _TREYS.evaluate(b, tc), _TREYS.evaluate(b, th)  # lower is better in treys
        w += a < h
        l_ += h < a
        t += a == h
    return w, l_, t


@pytest.mark.parametrize(
    ("chu", "han", "board"),
    [
        (["Qs", "Qd"], ["Ah", "Kh"], ["2c", "7d", "9s"]),
        (["5h", "6h"], ["As", "Ad"], ["7h", "8h", "Kc"]),
        (["Tc", "Jc"], ["9d", "Td"], ["Qc", "Kd", "2h", "3s"]),
    ],
)
def test_runout_odds_agree_with_an_independent_evaluator(
    chu: list[str], han: list[str], board: list[str]
) -> None:
    r = runout_odds(chu, han, board)
    w, l_, t = _treys_odds(chu, han, board)
    n = w + l_ + t
    assert r.runouts == n == math.comb(48 - len(board), 5 - len(board))
    assert (r.chu, r.han, r.tie) == (Fraction(w, n), Fraction(l_, n), Fraction(t, n))
    # symmetric
    m = runout_odds(han, chu, board)
    assert (m.chu, m.han, m.tie) == (r.han, r.chu, r.tie)


def test_runout_odds_refuse_bad_cards() -> None:
    with pytest.raises(InvalidInput):
        runout_odds(["As", "As"], ["Kd", "Kc"], [])
    with pytest.raises(InvalidInput):
        runout_odds(["As", "Ah"], ["Kd", "Kc"], ["2c", "3c", "4c", "5c", "6c", "7c"])
    with pytest.raises(InvalidInput):
        runout_odds(["As", "Xx"], ["Kd", "Kc"], [])


def test_later_round_odds_have_no_refund_and_close_impossible_spots() -> None:
    e = eng("chuhan.insured")
    odds = e.round_odds(["Qs", "Qd"], ["Ah", "Kh"], ["2c", "7d", "9s"], refund=False)
    # P(chu) = 251/330, P(han) = 79/330, no tie possible
    assert odds[Spot.CHU] == Fraction(124, 100)  # floor2(0.95 x 330 / 251) = 1.24
    assert odds[Spot.HAN] == Fraction(396, 100)  # floor2(0.95 x 330 / 79) = 3.96
    assert odds[Spot.TIE] is None and not e.skip(odds)
    odds = e.round_odds(["7s", "3s"], ["5d", "9s"], ["9d", "8d", "8c"], refund=False)
    assert odds[Spot.HAN] == Fraction(99, 100) and e.skip(odds)  # at most 1.01: skipped
    odds = e.round_odds(["Qs", "Qd"], ["Qh", "Qc"], ["2c", "7d", "9s"], refund=False)
    assert odds[Spot.CHU] is None and odds[Spot.HAN] is None and e.skip(odds)


def test_a_tie_at_odds_of_at_most_1_01_is_not_offered() -> None:
    """000_d16ad353ba467b8a.txt, 保险楚汉德州规则, 注意 i: odds of at most 1.01 are not bet on.
    Han Kc 8d vs Chu Kh 2s on 8h As Kd Ad: Han wins on 2 rivers of 44 and every other
    river ties; the tie would be quoted 0.99 (floor2(0.95 x 44 / 42)), a bet that loses
    money when it wins: the spot is closed while Han (20.90) stays open."""
    e = eng("chuhan.insured")
    odds = e.round_odds(["Kh", "2s"], ["Kc", "8d"], ["8h", "As", "Kd", "Ad"], refund=False)
    assert odds[Spot.HAN] == Fraction(2090, 100) and odds[Spot.CHU] is None
    assert odds[Spot.TIE] is None and not e.skip(odds)


def test_the_odds_formulas() -> None:
    rule = OddsRule(Fraction(1, 20), 2, Fraction(100), Fraction(101, 100))
    assert decimal_odds(Fraction(1, 2), rule) == Fraction(19, 10)
    assert decimal_odds(Fraction(0), rule) is None
    assert decimal_odds(Fraction(1, 1000), rule) == 100  # the ceiling
    # the exact 1.01 threshold: P = 0.95 / 1.01 gives 0.94059... -> odds 1.01 -> skipped
    assert decimal_odds(Fraction(95, 101), rule) == Fraction(101, 100)
    assert side_odds(Fraction(2, 5), Fraction(1, 5), rule, Fraction(1, 2)) == Fraction(212, 100)
    assert text(Fraction(193, 100)) == "1.93" and text(Fraction(1, 3)) == "1/3"
    assert text(Fraction(-1, 2)) == "-0.5" and text(Fraction(7)) == "7"


def test_config_shapes_are_checked() -> None:
    from croupier.errors import ConfigError
    from croupier.games.base import VariantConfig

    raw = dict(variant_config("chuhan").raw)
    raw["rounds"] = {"value": 2}
    with pytest.raises(ConfigError):
        ChuhanEngine(VariantConfig.from_json_dict(raw))
    raw = dict(variant_config("chuhan").raw)
    raw["odds"] = {k: v for k, v in raw["odds"].items() if k != "tie"}
    with pytest.raises(ConfigError):
        ChuhanEngine(VariantConfig.from_json_dict(raw))


@pytest.mark.parametrize("variant", ["chuhan", "chuhan.insured"])
def test_every_config_block_cites_a_seed_section_or_a_default(variant: str) -> None:
    raw = variant_config(variant).raw
    assert str(raw["source"]).startswith("00")
    for key, block in raw.items():
        if not isinstance(block, dict):
            continue
        notes = [str(v) for k, v in block.items() if k.endswith("source")]
        assert any(
            n.startswith(("000_d16ad353ba467b8a.txt", "001_5f10773fec037198.txt"))
            or n.startswith(("default:", "computed:"))
            for n in notes
        ), f"{variant}.{key}: {notes}"
