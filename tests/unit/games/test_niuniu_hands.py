"""Niuniu hands per variant: the seeds' example hands (000 百人牛牛游戏规则 示例, 牛牛游戏规则
and 通比牛牛's examples), each category's definition and the order the five sections give,
the ties (highest card then suit; 004's 四炸 by the four's rank), the arrangement claim
(拼牛) and an independent brute-force evaluator over random hands."""

from __future__ import annotations

import itertools
import random

import pytest

from croupier.errors import InvalidInput
from croupier.games.niuniu.engine import NiuniuEngine
from croupier.games.niuniu.hands import (
    Category,
    FourBombTies,
    HandRules,
    check_arrangement,
    evaluate,
    parse_hand,
)
from croupier.games.registry import variant_config

VARIANTS = ["niuniu.hundred", "niuniu.banker", "niuniu.tongbi", "niuniu.classic", "niuniu.yuele"]
C = Category


def engine(variant: str) -> NiuniuEngine:
    """The variant's engine, built without loading the other families."""
    return NiuniuEngine(variant_config(variant))


def rules(variant: str) -> HandRules:
    return engine(variant).hands


def ev(text: str, variant: str = "niuniu.banker") -> Category:
    return evaluate(parse_hand(text.split()), rules(variant)).category


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        # 000 百人牛牛游戏规则, 示例 (hearts 3, spades 2, ...)
        ("3h 2s 2h As Ah", C.FIVE_SMALL),
        ("Ks Kh Kc Kd 8h", C.FOUR_BOMB),
        ("Ks Kh Kc Qs Js", C.FIVE_FLOWER),
        ("Kh Kd Qh Jh Th", C.FOUR_FLOWER),
        ("Kc Qc Jc 9c Ac", C.NIUNIU),
        ("Kd Qd Jd Td 9d", C.NIU_9),
        ("Ks Qh 9c 8d 7d", C.NO_NIU),
        # 000 牛牛游戏规则 / 通比牛牛: 32211, 88886, KKQQJ, KKQJ10, J5546, 46Q99 = 牛8,
        # 78A4J 无牛, 785K10 牛牛
        ("3s 2h 2d Ac Ad", C.FIVE_SMALL),
        ("8s 8h 8d 8c 6s", C.FOUR_BOMB),
        ("Ks Kh Qs Qh Js", C.FIVE_FLOWER),
        ("Ks Kh Qs Js Ts", C.FOUR_FLOWER),
        ("Js 5h 5d 4c 6s", C.NIUNIU),
        ("4s 6h Qd 9c 9s", C.NIU_8),
        ("7s 8h Ad 4c Js", C.NO_NIU),
        ("7s 8h 5d Kc Ts", C.NIUNIU),
    ],
)
def test_the_seed_examples(cards: str, category: Category) -> None:
    for v in ("niuniu.hundred", "niuniu.banker", "niuniu.tongbi", "niuniu.classic"):
        assert ev(cards, v) is category


def test_the_order_of_000_and_001_and_that_of_004() -> None:
    full = [C.FIVE_SMALL, C.FOUR_BOMB, C.FIVE_FLOWER, C.FOUR_FLOWER, C.NIUNIU, C.NIU_9]
    for v in VARIANTS[:4]:
        order = rules(v).order
        assert [order.index(c) for c in full] == sorted(
            (order.index(c) for c in full), reverse=True
        )
    yuele = rules("niuniu.yuele").order
    assert C.FIVE_SMALL not in yuele and C.FOUR_FLOWER not in yuele
    assert yuele[-3:] == (C.NIUNIU, C.FOUR_BOMB, C.FIVE_FLOWER)  # 004 item 8


def test_yuele_has_neither_five_small_nor_four_flower() -> None:
    assert ev("3s 2h 2d Ac Ad", "niuniu.yuele") is C.NO_NIU  # 32211: no 10 from three
    assert ev("Ks Kh Qs Js Ts", "niuniu.yuele") is C.NIUNIU  # KKQJ10: plain 牛牛


def test_a_hand_both_four_bomb_and_five_flower_counts_as_the_larger() -> None:
    # 004 item 12: 五花牛 > 四炸 there; 000/001: 四炸 > 五花牛
    assert ev("Ks Kh Kd Kc Qs", "niuniu.yuele") is C.FIVE_FLOWER
    assert ev("Ks Kh Kd Kc Qs", "niuniu.banker") is C.FOUR_BOMB
    # five small and four of a kind: 小牛牛 is larger in 000
    assert ev("As Ah Ad Ac 2s", "niuniu.tongbi") is C.FIVE_SMALL
    assert ev("As Ah Ad Ac 2s", "niuniu.yuele") is C.FOUR_BOMB  # no 牛, 四炸 needs none


def test_four_bomb_needs_no_niu() -> None:
    assert ev("8s 8h 8d 8c 6s") is C.FOUR_BOMB  # 8+8+8 = 24: no 牛 in 88886
    assert ev("8s 8h 8d 8c 6s", "niuniu.yuele") is C.FOUR_BOMB


def test_five_small_needs_every_card_below_5_and_a_sum_up_to_10() -> None:
    assert ev("4s 2h 2d Ac As") is C.FIVE_SMALL  # 10
    assert ev("4s 3h 2d Ac As") is not C.FIVE_SMALL  # 11
    assert ev("5s 2h Ad Ac As") is not C.FIVE_SMALL  # a 5 is not below 5


def test_niu_numbers_and_niuniu() -> None:
    assert ev("Ks Qh 7d 3c As") is C.NIU_1  # 牛丁 (004: 牛丁 is 牛一)
    assert ev("Ks Qh Jd 5c 5s") is C.NIUNIU  # 10 + 10 + 10 | 5 + 5
    assert ev("9s 9h 2d 5c 5s") is C.NIUNIU  # 9+9+2 = 20 | 5+5 = 10
    assert ev("9s 9h 2d 3c 6s") is C.NIU_9  # 9+9+2 = 20 | 3+6 = 9


def test_ties_compare_the_highest_card_then_its_suit() -> None:
    r = rules("niuniu.banker")
    a = evaluate(parse_hand(["Ks", "7h", "2d", "3c", "8s"]), r)  # 7+3+K | 2+8: 牛牛, by K♠
    b = evaluate(parse_hand(["Kh", "7s", "2c", "3d", "8d"]), r)
    assert a.category is b.category
    assert a.beats(b) and not b.beats(a)  # ♠ > ♥
    c = evaluate(parse_hand(["Kc", "7c", "2h", "3h", "8h"]), r)
    d = evaluate(parse_hand(["Kd", "7d", "2s", "3s", "8c"]), r)
    assert c.beats(d)  # ♣ > ♦
    assert a.beats(c) and b.beats(c)


def test_no_niu_against_niu_and_no_niu_against_no_niu() -> None:
    r = rules("niuniu.yuele")
    niu1 = evaluate(parse_hand(["Ks", "Qh", "7d", "3c", "As"]), r)
    none_k = evaluate(parse_hand(["Kd", "Qd", "9c", "8d", "7d"]), r)
    none_q = evaluate(parse_hand(["Qs", "Jh", "9s", "8h", "6d"]), r)
    assert niu1.beats(none_k)  # 004 item 7: no 牛 loses
    assert none_k.beats(none_q)  # item 9: the highest card


def test_four_bomb_ties_by_rank_of_the_four_in_004_by_highest_card_elsewhere() -> None:
    low_four_high_kicker = "2s 2h 2d 2c Ks"
    high_four_low_kicker = "3s 3h 3d 3c Qs"
    for v, low_wins in (("niuniu.yuele", False), ("niuniu.banker", True)):
        r = rules(v)
        a = evaluate(parse_hand(low_four_high_kicker.split()), r)
        b = evaluate(parse_hand(high_four_low_kicker.split()), r)
        assert a.category is b.category is C.FOUR_BOMB
        assert a.beats(b) is low_wins
    assert rules("niuniu.yuele").four_bomb_ties is FourBombTies.QUAD_RANK


@pytest.mark.parametrize(
    ("variant", "multipliers"),
    [
        # no_niu, niu1..6, niu7, niu8, niu9, niuniu, four_flower, five_flower, four_bomb, small
        ("niuniu.banker", [1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 10]),
        ("niuniu.hundred", [1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 10]),
        ("niuniu.tongbi", [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 5, 6]),
        ("niuniu.classic", [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 4]),
    ],
)
def test_multipliers_of_the_000_and_001_tables(variant: str, multipliers: list[int]) -> None:
    r = rules(variant)
    assert [r.multiplier(c) for c in r.order] == multipliers


def test_yuele_payouts() -> None:
    r = rules("niuniu.yuele")
    want = {C.NIU_8: 2, C.NIU_9: 2, C.NIUNIU: 3, C.FOUR_BOMB: 4, C.FIVE_FLOWER: 5}
    for c in r.order:
        assert r.multiplier(c) == want.get(c, 1)


def test_arrangement_claims() -> None:
    cards = parse_hand(["4s", "6h", "Qd", "9c", "9s"])
    assert check_arrangement(cards, ["4s", "6h", "Qd"]) == ("4s", "6h", "Qd")
    for three, reason in (
        (["4s", "6h", "9c"], "not_niu"),
        (["4s", "6h", "Ah"], "bad_arrangement"),
        (["4s", "6h"], "bad_arrangement"),
        (["4s", "4s", "Qd"], "bad_arrangement"),
        (["xx", "6h", "Qd"], "bad_arrangement"),
        ([], "has_niu"),
    ):
        with pytest.raises(InvalidInput) as err:
            check_arrangement(cards, three)
        assert err.value.reason == reason
    assert check_arrangement(parse_hand(["7s", "8h", "Ad", "4c", "Js"]), []) == ()


def test_parse_hand_refuses_bad_hands() -> None:
    for text in ("As Ks Qs Js", "As As Qs Js Ts", "As Ks Qs Js BJ", "As Ks Qs Js 1x"):
        with pytest.raises(InvalidInput):
            parse_hand(text.split())


def brute(cards: list[str], variant: str) -> Category:
    """An independent evaluator: every split of 3 + 2 cards, then the special hands."""
    pts = {r: min(i + 1, 10) for i, r in enumerate("A23456789TJQK")}
    vals = [pts[c[0]] for c in cards]
    ranks = [c[0] for c in cards]
    options = []
    for idx in itertools.combinations(range(5), 3):
        if sum(vals[i] for i in idx) % 10 == 0:
            rest = sum(vals) - sum(vals[i] for i in idx)
            options.append(C.NIUNIU if rest % 10 == 0 else C(f"niu{rest % 10}"))
    base = options[0] if options else C.NO_NIU
    assert len(set(options)) <= 1  # any valid three give the same niu number
    special = []
    if max(ranks.count(r) for r in ranks) == 4:
        special.append(C.FOUR_BOMB)
    if all(r in "JQK" for r in ranks):
        special.append(C.FIVE_FLOWER)
    if variant != "niuniu.yuele":
        if all(v < 5 for v in vals) and sum(vals) <= 10:
            special.append(C.FIVE_SMALL)
        if sum(r in "JQK" for r in ranks) == 4 and "T" in ranks:
            special.append(C.FOUR_FLOWER)
    order = (
        [C.FIVE_FLOWER, C.FOUR_BOMB]
        if variant == "niuniu.yuele"
        else [C.FIVE_SMALL, C.FOUR_BOMB, C.FIVE_FLOWER, C.FOUR_FLOWER]
    )
    for c in order:
        if c in special:
            return c
    return base


@pytest.mark.parametrize("variant", ["niuniu.banker", "niuniu.yuele"])
def test_random_hands_agree_with_a_brute_force_evaluator(variant: str) -> None:
    deck = [r + s for r in "A23456789TJQK" for s in "shdc"]
    rng = random.Random(7)
    r = rules(variant)
    for _ in range(3000):
        cards = rng.sample(deck, 5)
        assert evaluate(cards, r).category is brute(cards, variant), cards
    # and every special hand from a rigged sample
    faces = [c for c in deck if c[0] in "JQKT"]
    smalls = [c for c in deck if c[0] in "A234"]
    for pool in (faces, smalls):
        for _ in range(500):
            cards = rng.sample(pool, 5)
            assert evaluate(cards, r).category is brute(cards, variant), cards
