"""Exact distributions of the 筒子 hands (croupier.games.tongzi.probability): the kind
enumeration against a brute force over the 40 physical tiles, the pinned RTPs of every
variant and of the readings the configs rejected, and the ``croupier rtp`` tables."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from croupier.games.registry import engine
from croupier.games.tongzi.probability import (
    HANDS,
    ORDERED_PAIRS,
    category_table,
    erbagang_odds,
    full_table_sweeps,
    head_to_head,
    tuitongzi_ante_rtp,
    tuitongzi_heads_up,
)
from croupier.games.tongzi.tiles import TILES, Category, SamePoints, TileRules, kind_pairs

ERBA = TileRules.from_config(engine("erbagang").config.raw)
TUI = TileRules.from_config(engine("tuitongzi").config.raw)
FIVE = Fraction(1, 20)
PHYSICAL = [(t, copy) for t in TILES for copy in range(4)]


def test_sizes() -> None:
    assert HANDS == 780 == len(list(itertools.combinations(PHYSICAL, 2)))
    assert ORDERED_PAIRS == 780 * 703 == 548_340


def test_one_hand_distribution_by_class_and_points() -> None:
    rows = {r.label: r.count for r in category_table(ERBA)}
    assert rows["天王 5z"] == 6
    assert all(rows[f"对子 {n}p"] == 6 for n in range(1, 10))
    assert rows["二八杠"] == 16
    # point hands: odd points 80 ways, even points 64, 鳖十 48 (1+9, 3+7, 4+6)
    assert [rows[f"{n}点"] for n in range(9, 0, -1)] == [80, 64, 80, 64, 80, 64, 80, 64, 80]
    assert rows["鳖十"] == 48
    assert sum(rows.values()) == 780
    by_cat: dict[Category, int] = {}
    for r in category_table(ERBA):
        by_cat[r.category] = by_cat.get(r.category, 0) + r.count
    assert by_cat == {
        Category.WHITE_PAIR: 6,
        Category.PAIR: 54,
        Category.ERBA: 16,
        Category.POINTS: 656,
        Category.ZERO: 48,
    }
    assert sum(r.probability for r in category_table(ERBA)) == 1
    tui = [r.label for r in category_table(TUI)]
    assert (
        tui[0] == "豹子 5z" and tui[10] == "二八杠" and tui[11] == "散牌 9" and tui[-1] == "散牌 0"
    )


def brute_head_to_head(rules: TileRules) -> tuple[int, int, int]:
    """Every ordered pair of disjoint physical hands, one by one."""
    hands = list(itertools.combinations(range(40), 2))
    key = {hd: rules.evaluate([PHYSICAL[hd[0]][0], PHYSICAL[hd[1]][0]]).key for hd in hands}
    win = equal = lose = 0
    for a in hands:
        ka = key[a]
        for b in hands:
            if a[0] in b or a[1] in b:
                continue
            kb = key[b]
            if kb > ka:
                win += 1
            elif kb == ka:
                equal += 1
            else:
                lose += 1
    return win, equal, lose


@pytest.mark.parametrize("same", list(SamePoints))
def test_the_kind_enumeration_equals_the_brute_force_over_physical_tiles(
    same: SamePoints,
) -> None:
    rules = TileRules(same_points=same)
    assert head_to_head(rules) == brute_head_to_head(rules)


def test_erbagang_player_rtp_pinned() -> None:
    o = erbagang_odds(ERBA, Fraction(1), FIVE)
    assert head_to_head(ERBA) == (270_900, 6_540, 270_900)
    assert (o.win, o.equal, o.lose) == (
        Fraction(4515, 9139),
        Fraction(109, 9139),
        Fraction(4515, 9139),
    )
    assert o.rtp_before_rake == Fraction(9030, 9139)  # 0.988073
    assert o.rtp == Fraction(2709, 2812)  # 0.963371
    for v in ("erbagang", "erbagang.dice2"):
        rtp = engine(v).theoretical_rtp()
        assert rtp == {"player": Fraction(2709, 2812), "player_before_rake": Fraction(9030, 9139)}
        cfg = engine(v).config.raw["rtp"]
        assert Fraction(cfg["player"]) == rtp["player"]
        assert Fraction(cfg["player_before_rake"]) == rtp["player_before_rake"]


def test_rejected_erbagang_readings_pinned() -> None:
    # equal points go to the banker (not the reading chosen): a much worse bet
    loose = erbagang_odds(TileRules(same_points=SamePoints.EQUAL), Fraction(1), FIVE)
    assert loose.rtp_before_rake == Fraction(125594, 137085)  # 0.916176
    assert loose.rtp == Fraction(62797, 70300)  # 0.893272
    # 白板 half a point with the high tile rule: the very same odds as 0 points
    half = erbagang_odds(TileRules(white_points=Fraction(1, 2)), Fraction(1), FIVE)
    assert (half.win, half.equal, half.rtp) == (
        Fraction(4515, 9139),
        Fraction(109, 9139),
        Fraction(2709, 2812),
    )
    # every reading leaves the player below 1
    for r in (loose, half):
        assert r.rtp < r.rtp_before_rake < 1


def test_tuitongzi_heads_up_rtp_pinned() -> None:
    o = tuitongzi_heads_up(TUI, FIVE)
    assert (o.win, o.split) == (Fraction(4515, 9139), Fraction(109, 9139))
    assert o.rtp == Fraction(35653, 36556)  # 0.975298: 1 - 5% x P(a winner)/2
    assert o.rtp == 1 - FIVE * (1 - o.split) / 2
    loose = tuitongzi_heads_up(TileRules(same_points=SamePoints.EQUAL), FIVE)
    assert (loose.split, loose.rtp) == (Fraction(11491, 137085), Fraction(2678903, 2741700))
    rtp = engine("tuitongzi").theoretical_rtp()
    assert rtp == {
        "ante": Fraction(35653, 36556),
        "ante_3_players": Fraction(7423001, 7676760),  # 0.966945
        "ante_4_players": Fraction(448731211, 466089000),  # 0.962759
    }
    cfg = engine("tuitongzi").config.raw["rtp"]
    assert {k: Fraction(cfg[k]) for k in rtp} == rtp
    assert tuitongzi_ante_rtp(TUI, FIVE, 2) == o.rtp
    # about 1 - 5% x (n - 1) / n: a little above it, as equal best hands share
    for n in (3, 4):
        assert 1 - FIVE * (n - 1) / n < rtp[f"ante_{n}_players"] < 1 - FIVE * (n - 2) / n


@pytest.mark.parametrize("variant", ["erbagang", "erbagang.dice2", "tuitongzi"])
def test_rtp_tables_print(variant: str) -> None:
    text = engine(variant).rtp_table()
    assert "780" in text and "548340" in text
    assert "0.963371" in text or "0.975298" in text


KIND = {t: i for i, t in enumerate(TILES)}


def left_after(*hands: tuple[str, str]) -> list[int] | None:
    c = [4] * 10
    for h in hands:
        for t in h:
            c[KIND[t]] -= 1
    return c if min(c) >= 0 else None


def ways(c: list[int], h: tuple[str, str]) -> int:
    x, y = KIND[h[0]], KIND[h[1]]
    return c[x] * (c[x] - 1) // 2 if x == y else c[x] * c[y]


def three_hand_oracle(rules: TileRules) -> tuple[int, int, Fraction]:
    """Explicit loops over three ordered hands (kinds, with multiplicities): deals where
    the first hand is at least each of the other two, where it is below both, and one
    player's expected share of a three-player pot."""
    hands = [t for t, _ in kind_pairs()]
    key = {h: rules.evaluate(h).key for h in hands}
    atleast = below = 0
    profit = Fraction(0)
    c0 = [4] * 10
    for a in hands:
        na = ways(c0, a)
        ca = left_after(a)
        assert ca is not None
        for b in hands:
            nb = ways(ca, b)
            if not nb:
                continue
            cb = left_after(a, b)
            assert cb is not None
            for d in hands:
                nd = ways(cb, d)
                if not nd:
                    continue
                w = na * nb * nd
                if key[b] <= key[a] and key[d] <= key[a]:
                    atleast += w
                    ties = (key[b] == key[a]) + (key[d] == key[a])
                    profit += w * (Fraction(3, ties + 1) - 1)
                if key[b] > key[a] and key[d] > key[a]:
                    below += w
    return atleast, below, profit


def test_several_hands_against_explicit_loops() -> None:
    total3 = 780 * 703 * 630
    atleast, below, profit = three_hand_oracle(TUI)
    assert tuitongzi_ante_rtp(TUI, FIVE, 3) == 1 - FIVE * profit / total3
    two = full_table_sweeps(ERBA, players=2)
    assert (two.tongsha, two.tongpei) == (Fraction(atleast, total3), Fraction(below, total3))
    one = full_table_sweeps(ERBA, players=1)
    w, e, lose = head_to_head(ERBA)
    assert (one.tongsha, one.tongpei) == (
        Fraction(lose + e, ORDERED_PAIRS),
        Fraction(w, ORDERED_PAIRS),
    )


def test_full_table_sweeps_pinned() -> None:
    sw = full_table_sweeps(ERBA)
    assert sw.total == 780 * 703 * 630 * 561 == 193_799_806_200
    assert sw.tongsha == Fraction(5946661, 23304450)  # 0.255173
    assert sw.tongpei == Fraction(19870024, 81565575)  # 0.243608
    cfg = engine("erbagang").config.raw["sweep"]
    assert (Fraction(cfg["tongsha"]), Fraction(cfg["tongpei"])) == (sw.tongsha, sw.tongpei)
    with pytest.raises(ValueError):
        tuitongzi_ante_rtp(TUI, FIVE, 5)
