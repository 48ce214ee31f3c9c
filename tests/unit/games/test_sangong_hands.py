"""Sangong hands: points, categories, multipliers and tie rules of the three variants,
with the seeds' own examples (000_d16ad353ba467b8a.txt, 百人三公游戏规则;
001_5f10773fec037198.txt, 抢庄玩法介绍 and 三公) as golden cases."""

from __future__ import annotations

import itertools

import pytest

from croupier.errors import ConfigError, InvalidInput
from croupier.games.registry import variant_config
from croupier.games.sangong.engine import SangongEngine
from croupier.games.sangong.hands import (
    Category,
    HandRules,
    SangongTie,
    banker_wins,
    evaluate,
)

VARIANTS = ["sangong.hundred", "sangong.grab", "sangong.classic"]


def rules(variant: str) -> HandRules:
    return SangongEngine(variant_config(variant)).hands


def ev(variant: str, text: str) -> tuple[str, int, int]:
    h = evaluate(text.split(), rules(variant))
    return h.label, h.points, h.multiplier


def beats(variant: str, a: str, b: str) -> bool:
    """Hand ``a`` (as banker) beats ``b``, and ``b`` as banker loses to ``a``."""
    r = rules(variant)
    ha, hb = evaluate(a.split(), r), evaluate(b.split(), r)
    return banker_wins(ha, hb, r) and not banker_wins(hb, ha, r)


@pytest.mark.parametrize("variant", VARIANTS)
def test_points_are_the_last_digit_of_the_sum(variant: str) -> None:
    # 001 牌型算法: KQ9 = 9, 553 = 3, 235 = 0; 000 点数计算: A K 10 = 1
    assert ev(variant, "Kd Qh 9s")[:2] == ("points:9", 9)
    assert ev(variant, "5d 5h 3s")[:2] == ("points:3", 3)
    assert ev(variant, "2d 3h 5s")[:2] == ("points:0", 0)
    assert ev(variant, "Ad Kh Ts")[:2] == ("points:1", 1)
    assert ev(variant, "9d 9h 3s")[:2] == ("points:1", 1)


@pytest.mark.parametrize(
    ("variant", "table"),
    [
        # 000 牌型说明 and 001 抢庄 牌型倍数: 爆玖 5, 炸弹 4, 三公 3, 7-9 2, 0-6 1
        ("sangong.hundred", {"baojiu": 5, "bomb": 4, "sangong": 3}),
        ("sangong.grab", {"baojiu": 5, "bomb": 4, "sangong": 3}),
        # 001 三公: 炸弹 3, 三公 3, 九点-七点 2, 六点-零点 1; no 爆玖
        ("sangong.classic", {"bomb": 3, "sangong": 3}),
    ],
)
def test_multipliers(variant: str, table: dict[str, int]) -> None:
    cases = {"baojiu": "3s 3h 3d", "bomb": "Ks Kh Kd", "sangong": "Ks Qh Jd"}
    for label, want in table.items():
        assert ev(variant, cases[label]) == (label, 0 if label != "baojiu" else 9, want)
    for pts, hand in enumerate(["Ks Qh Td", *(f"{r}s Kh Td" for r in "A23456789")]):
        assert ev(variant, hand) == (f"points:{pts}", pts, 2 if pts >= 7 else 1)


def test_333_is_baojiu_where_the_variant_has_it_and_a_bomb_otherwise() -> None:
    assert ev("sangong.hundred", "3s 3h 3c")[0] == "baojiu"
    assert ev("sangong.grab", "3s 3h 3c")[0] == "baojiu"
    assert ev("sangong.classic", "3s 3h 3c") == ("bomb", 9, 3)
    # 000: 爆玖 > 炸弹 (KKK); 001 三公's bomb order skips 333: placed between 444 and 222
    assert beats("sangong.hundred", "3s 3h 3c", "Ks Kh Kc")
    assert beats("sangong.grab", "3s 3h 3c", "Ks Kh Kc")
    assert beats("sangong.classic", "4s 4h 4c", "3s 3h 3c")
    assert beats("sangong.classic", "3s 3h 3c", "2s 2h 2c")


@pytest.mark.parametrize("variant", VARIANTS)
def test_category_order(variant: str) -> None:
    # 基本牌型大小比较: (爆玖 >) 炸弹 > 三公 > 9 > 8 > ... > 0
    order = ["As Ah Ad", "Js Jh Qd", "9s Kh Qd", "8s Kh Qd", "7s Kh Qd", "As Kh Qd", "Ts Kh Qd"]
    for hi, lo in itertools.pairwise(order):
        assert beats(variant, hi, lo), (hi, lo)
    # the lowest bomb beats the highest 三公
    assert beats(variant, "As Ah Ac", "Ks Kh Qs")


@pytest.mark.parametrize("variant", VARIANTS)
def test_bombs_by_rank(variant: str) -> None:
    # 001 炸弹大小比较: KKK > QQQ > JJJ > 101010 > 999 > ... > 222 > AAA
    # (333 is 爆玖 where the variant has it)
    ranks = "KQJT98765432A" if variant == "sangong.classic" else "KQJT9876542A"
    bombs = [f"{r}s {r}h {r}d" for r in ranks]
    for hi, lo in itertools.pairwise(bombs):
        assert beats(variant, hi, lo), (hi, lo)


@pytest.mark.parametrize("variant", VARIANTS)
def test_points_ties(variant: str) -> None:
    # 点数牌大小比较: more face cards (J Q 9 > J T 9), then the highest card (K Q 9 > J Q 9),
    # then its suit (♠K♦Q♥9 > ♥K♦Q♥9)
    assert beats(variant, "Js Qd 9c", "Jh Td 9h")
    assert beats(variant, "Ks Qd 9c", "Jh Qh 9h")
    assert beats(variant, "Ks Qd 9h", "Kh Qc 9c")
    # points before face cards
    assert beats(variant, "4s 5d Tc", "Ks Qd 8c")
    # suit order ♠ > ♥ > ♣ > ♦ on the highest card
    assert beats(variant, "Kh 9d Qc", "Kc 9h Qd")
    assert beats(variant, "Kc 9d Qs", "Kd 9h Qh")


def test_sangong_ties_highest_card_or_card_by_card() -> None:
    # 001 抢庄 三公大小比较: the highest face card (KQJ > QQJ), then its suit (♠K♦Q♥J > ♥K♦Q♥J)
    for v in ("sangong.hundred", "sangong.grab"):
        assert beats(v, "Ks Qd Jh", "Qs Qh Jd")
        assert beats(v, "Ks Qd Jh", "Kh Qc Jc")
        # only the highest card counts: K♠ J J beats K♥ Q Q
        assert beats(v, "Ks Jd Jh", "Kh Qc Qd")
    # 001 三公: card by card (KQQ > KQJ), then the highest face card's suit
    c = "sangong.classic"
    assert beats(c, "Kh Qc Qd", "Ks Qs Jh")
    assert beats(c, "Ks Qd Jh", "Kh Qc Jc")
    assert beats(c, "Ks Qc Qd", "Kh Qs Qh")
    assert rules(c).sangong_tie is SangongTie.CARD_BY_CARD


def test_both_zero_points_banker_wins_only_in_grab() -> None:
    # 001 抢庄 特殊情况: banker and player both 0 points -> the banker
    zero_hi, zero_lo = "Ks Qs Tc", "2d 3h 5c"
    g = rules("sangong.grab")
    hi, lo = evaluate(zero_hi.split(), g), evaluate(zero_lo.split(), g)
    assert banker_wins(lo, hi, g) and banker_wins(hi, lo, g)
    for v in ("sangong.hundred", "sangong.classic"):
        r = rules(v)
        hi, lo = evaluate(zero_hi.split(), r), evaluate(zero_lo.split(), r)
        assert banker_wins(hi, lo, r) and not banker_wins(lo, hi, r)
    # not a 0-point hand: 三公 still beats a 0-point banker
    s = evaluate(["Ks", "Qd", "Jh"], g)
    assert not banker_wins(lo, s, g)


def test_faces_count_j_q_k_only() -> None:
    h = evaluate(["Ts", "Jd", "Qh"], rules("sangong.grab"))
    assert (h.category, h.faces, h.points) == (Category.POINTS, 2, 0)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (["As", "Kd"], "3 cards"),
        (["As", "Kd", "As"], "three different"),
        (["As", "Kd", "BJ"], "jokers"),
        (["As", "Kd", "Zz"], "not a card"),
    ],
)
def test_bad_hands(cards: list[str], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        evaluate(cards, rules("sangong.hundred"))


def test_bad_configs() -> None:
    good = dict(
        baojiu=5,
        bomb=4,
        sangong=3,
        point_multipliers=(1,) * 7 + (2,) * 3,
        sangong_tie=SangongTie.HIGHEST_CARD,
    )
    assert HandRules(**good).max_multiplier == 5  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ten numbers"):
        HandRules(**{**good, "point_multipliers": (1,) * 9})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="integers >= 1"):
        HandRules(**{**good, "bomb": 0})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="hands"):
        HandRules.from_config({"hands": {}})
    with pytest.raises(InvalidInput, match="no 爆玖"):
        HandRules(**{**good, "baojiu": None}).multiplier(Category.BAOJIU)  # type: ignore[arg-type]
