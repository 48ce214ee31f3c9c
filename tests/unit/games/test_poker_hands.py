"""The poker evaluators: treys cross-checks, exact enumeration oracles, hand-built cases.

Category counts are the classic enumeration figures: 3-card hands over C(52,3) = 22,100
(trips 52, straight flush 48, flush 1,096, straight 720, pair 3,744, high card 16,440 —
with A-2-3 and Q-K-A both straights); 5-card hands over C(52,5) = 2,598,960. The full
7-card enumeration over 133,784,560 hands lives in ``bench/bench_poker_eval.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from treys import Card, Evaluator

from croupier.errors import ConfigError, NotationError
from croupier.games.poker import hands as h
from croupier.games.poker.hands import Category, Category3
from croupier.games.shisanshui.hands import _five_table

DECK = [r + s for s in "shdc" for r in "A23456789TJQK"]
EVAL = Evaluator()


def _treys(cards: tuple[str, ...]) -> int:
    cs = [Card.new(c) for c in cards]
    return int(EVAL.evaluate(cs[:2], cs[2:]))


def _same_order(ours: list[int], theirs: list[int]) -> None:
    """``ours`` (higher better) and treys (lower better) induce the same weak order."""
    fwd: dict[int, int] = {}
    back: dict[int, int] = {}
    for a, b in zip(ours, theirs, strict=True):
        assert fwd.setdefault(a, b) == b, f"strength {a:#x} maps to two treys ranks"
        assert back.setdefault(b, a) == a, f"treys rank {b} maps to two strengths"
    keys = sorted(fwd)
    mapped = [fwd[k] for k in keys]
    assert mapped == sorted(mapped, reverse=True)


@pytest.mark.parametrize("n", [5, 6, 7])
def test_matches_treys_on_100k_random_hands(n: int) -> None:
    rng = random.Random(4000 + n)
    hands = [tuple(rng.sample(DECK, n)) for _ in range(100_000 if n != 6 else 20_000)]
    ours = [h.best_of(x) if n != 5 else h.rank5(x) for x in hands]
    _same_order(ours, [_treys(x) for x in hands])


def test_best_of_is_best_rank5_subset_sampled_7() -> None:
    rng = random.Random(7)
    cats: Counter[Category] = Counter()
    for _ in range(5_000):
        x = rng.sample(DECK, 7)
        best = h.best_of(x)
        assert best == max(h.rank5(f) for f in combinations(x, 5))
        s, five = h.best_five(x)
        assert s == best and h.rank5(five) == best and set(five) <= set(x)
        cats[h.category(best)] += 1
    assert set(cats) >= set(Category) - {Category.STRAIGHT_FLUSH, Category.QUADS}


# how many of the C(52,5) five-card hands fall in each category (the standard counts)
FIVE_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.QUADS: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.TRIPS: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


def test_five_card_category_counts_by_full_enumeration() -> None:
    counts: Counter[int] = Counter()
    rank5 = h.rank5
    for five in combinations(DECK, 5):
        counts[rank5(five) >> 20] += 1
    assert {Category(k): v for k, v in counts.items()} == FIVE_CARD_COUNTS
    assert sum(counts.values()) == 2_598_960


def test_the_shisanshui_share_table_counts_each_category_as_the_deck_holds_it() -> None:
    """十三水's table of every 5-card strength with the hands at or below it (read from
    the evaluator's tables by rank pattern, suit assignments counted): each category's
    hands as the full enumeration counts them."""
    keys, cum = _five_table()
    by_category: Counter[Category] = Counter()
    for k, below, upto in zip(keys, [0, *cum], cum, strict=False):
        by_category[h.category(k)] += upto - below
    assert by_category == FIVE_CARD_COUNTS


def test_seven_cards_fixed_hole_sub_deck_against_brute_force() -> None:
    """Every 7-card hand of As Ks plus 5 of a 20-card sub-deck (15,504 hands, rich in
    pairs, trips, quads, full houses and wheels) equals the best of its 21 five-card
    subsets."""
    sub = [c for c in DECK if c[0] in "AK2345" and c not in ("As", "Ks")][:20]
    for board in combinations(sub, 5):
        x = ("As", "Ks", *board)
        assert h.best_of(x) == max(h.rank5(f) for f in combinations(x, 5))


EXPECTED3 = {
    Category3.TRIPS: 52,
    Category3.STRAIGHT_FLUSH: 48,
    Category3.FLUSH: 1_096,
    Category3.STRAIGHT: 720,
    Category3.PAIR: 3_744,
    Category3.HIGH_CARD: 16_440,
}


@pytest.mark.parametrize("rules", [h.ZHAJINHUA, h.TWO_PLUS_THREE], ids=lambda r: r.name)
def test_three_card_category_counts_by_enumeration(rules: h.ThreeCardRules) -> None:
    counts = Counter(h.category3(h.rank3(t, rules)) for t in combinations(DECK, 3))
    assert counts == EXPECTED3
    assert sum(counts.values()) == 22_100


def test_three_card_counts_without_a23() -> None:
    rules = h.ThreeCardRules(name="x", ace_low_straight=False)
    counts = Counter(h.category3(h.rank3(t, rules)) for t in combinations(DECK, 3))
    assert counts[Category3.STRAIGHT_FLUSH] == 44
    assert counts[Category3.STRAIGHT] == 660


def test_three_card_distinct_strengths_and_order() -> None:
    zjh = h.ZHAJINHUA
    strengths = {h.rank3(t, zjh) for t in combinations(DECK, 3)}
    # 13 trips + 12 SF + 274 flush + 12 straights + 156 pairs + 274 high cards
    assert len(strengths) == 13 + 12 + 274 + 12 + 156 + 274


def _r3(text: str, rules: h.ThreeCardRules = h.ZHAJINHUA) -> int:
    return h.rank3(text.split(), rules)


def test_three_card_hand_built_order() -> None:
    # 豹子 > 顺金 > 金花 > 顺子 > 对子 > 单张 (000, 炸金花, 牌型的比较)
    ladder = ["2s 2h 2d", "As 2s 3s", "As Ks 9s", "Qh Kd As", "As Ah 2d", "As Kd Jh"]
    assert [_r3(x) for x in ladder] == sorted((_r3(x) for x in ladder), reverse=True)
    # AKQ is the highest and A23 the lowest straight
    assert _r3("As Kh Qd") > _r3("Ks Qh Jd") > _r3("4s 3h 2d") > _r3("As 2h 3d")
    assert _r3("Qs Ks As") > _r3("Ks Qs Js") > _r3("3s 2s As")
    assert h.category3(_r3("As 2h 3d")) == Category3.STRAIGHT
    # A23 beats any pair? no: a straight beats pairs
    assert _r3("As 2h 3d") > _r3("As Ad Kh")
    # suits never rank
    assert _r3("As Kh 9d") == _r3("Ac Kd 9h")
    assert _r3("Ks Kh 4d") == _r3("Kc Kd 4h")
    # pairs compare the pair, then the kicker; others card by card from the top
    assert _r3("Ks Kh 2d") > _r3("Qs Qh Ad")
    assert _r3("Ks Kh 9d") > _r3("Kc Kd 8h")
    assert _r3("As Jh 3d") > _r3("Ac Th 9d")
    assert _r3("As Jh 4d") > _r3("Ac Jd 3h")
    assert h.describe3(_r3("As 2h 3d"), h.ZHAJINHUA) == "顺子 A23"
    assert h.describe3(_r3("9s 9h Kd"), h.TWO_PLUS_THREE) == "对子 99K"


def test_pair_kicker_reading_off() -> None:
    r = h.ThreeCardRules(name="x", pair_kicker_counts=False)
    assert _r3("Ks Kh 9d", r) == _r3("Kc Kd 8h", r)


def test_best3_of5() -> None:
    rules = h.TWO_PLUS_THREE
    # hole 9s 9h, board 9d 2c Kh -> 豹子 999
    assert h.category3(h.best3_of5(["9s", "9h", "9d", "2c", "Kh"], rules)) == Category3.TRIPS
    # hole As 2s, board 3s Kd Kc -> 同花顺 A23 (beats the KK pair)
    s = h.best3_of5(["As", "2s", "3s", "Kd", "Kc"], rules)
    assert h.category3(s) == Category3.STRAIGHT_FLUSH
    rng = random.Random(3)
    for _ in range(2_000):
        x = rng.sample(DECK, 5)
        best, trio = h.best_three(x, rules)
        assert best == h.best3_of5(x, rules) == max(h.rank3(t, rules) for t in combinations(x, 3))
        assert h.rank3(trio, rules) == best


def test_best3_of5_equals_reference_on_every_five_card_hand() -> None:
    """The table-driven best3_of5 against the max of rank3 over the 10 trios, all 2,598,960
    hands (about 8 s)."""
    rules = h.TWO_PLUS_THREE
    fast, ref = h.best3_of5, h._best3_of5_reference
    bad = [x for x in combinations(DECK, 5) if fast(x, rules) != ref(x, rules)]
    assert bad == []


# A-2-3 and Q-K-A in spades and hearts with J and 4 beside them (3, 4 and 5 suited cards,
# straight flushes at both ends, trips, pairs with kickers), plus an off-suit A-2-3 / Q-K-A.
_EDGE_DECK = [r + s for s in "sh" for r in "A234JQK"] + ["Ad", "2d", "3d", "Kc", "Qc", "Ac"]


@pytest.mark.parametrize(
    "rules",
    [
        h.ZHAJINHUA,
        h.rules_from_config({"ace_low_straight": False}, "no_a23"),
        h.rules_from_config({"pair_kicker_counts": False}, "no_kicker"),
        h.rules_from_config({"ace_low_straight": False, "pair_kicker_counts": False}, "neither"),
    ],
    ids=lambda r: r.name,
)
def test_best3_of5_equals_reference_under_every_rule_option(rules: h.ThreeCardRules) -> None:
    fast, ref = h.best3_of5, h._best3_of5_reference
    edge = list(combinations(_EDGE_DECK, 5))
    assert len(edge) == 15_504
    rng = random.Random(35)
    sampled = [tuple(rng.sample(DECK, 5)) for _ in range(100_000)]
    bad = [x for x in edge + sampled if fast(x, rules) != ref(x, rules)]
    assert bad == []
    cats = Counter(h.category3(fast(x, rules)) for x in edge)
    assert cats[Category3.STRAIGHT_FLUSH] and cats[Category3.TRIPS] and cats[Category3.PAIR]


@pytest.mark.parametrize(
    "cards",
    [
        ["As", "Ks", "2d", "3d"],
        ["As", "Ks", "2d", "3d", "3d"],
        ["As", "As", "As", "As", "As"],
        ["As", "Ks", "2d", "3d", "1x"],
        ["As", "As", "2d", "3d", "1x"],
        ["As", "Ks", "2d", "3d", "4d", "5d"],
        "AsKsQ",
    ],
)
def test_best3_of5_refuses_what_the_reference_refuses(cards: list[str] | str) -> None:
    with pytest.raises(NotationError) as ours:
        h.best3_of5(cards, h.TWO_PLUS_THREE)
    with pytest.raises(NotationError) as theirs:
        h._best3_of5_reference(cards, h.TWO_PLUS_THREE)
    assert str(ours.value) == str(theirs.value)


def test_holdem_hand_built_cases() -> None:
    def s(text: str) -> int:
        return h.best_of(text.split())

    wheel = s("As 2d 3h 4c 5s")
    assert h.category(wheel) == Category.STRAIGHT and h.describe(wheel) == "straight: 5"
    assert s("2d 3h 4c 5s 6s") > wheel
    assert h.is_royal(s("As Ks Qs Js Ts 2d 2h"))
    assert not h.is_royal(s("Ks Qs Js Ts 9s 2d 2h"))
    assert h.describe(s("As Ks Qs Js Ts")) == "royal flush"
    steel = s("As 2s 3s 4s 5s Kd Kh")
    assert h.category(steel) == Category.STRAIGHT_FLUSH and h.describe(steel).endswith(": 5")
    # two trips make a full house, the higher trips on top
    fh = s("9s 9d 9h 4c 4s 4d 2h")
    assert h.category(fh) == Category.FULL_HOUSE and h.describe(fh) == "full house: 9 4"
    # three pairs: the best two pairs plus the best remaining card (a lower pair's rank)
    assert h.describe(s("Ks Kd 7h 7c 5s 5d 2h")) == "two pair: K 7 5"
    # quads kicker from trips
    assert h.describe(s("8s 8d 8h 8c Qs Qd Qh")) == "four of a kind: 8 Q"
    # a flush beats a straight on the same 7 cards
    assert h.category(s("2h 6h 9h Jh Kh Td Qc")) == Category.FLUSH
    # kicker decides, fifth kicker included
    assert s("As Kd 9h 7c 4s") > s("Ad Kc 9s 7h 3d")
    # board plays: tie
    assert s("2c 3d As Ks Qs Js Ts") == s("4c 5d As Ks Qs Js Ts")


@pytest.mark.parametrize(
    ("fn", "arg"),
    [
        (h.rank5, ["As", "Kd", "9h", "7c"]),
        (h.rank5, ["As", "Kd", "9h", "7c", "Xx"]),
        (h.best_of, ["As", "Kd", "9h", "7c"]),
        (h.best_of, ["As", "Kd", "9h", "7c", "5s", "4s", "3s", "2s"]),
        (h.best_of, ["As", "Kd", "9h", "7c", "BJ"]),
    ],
)
def test_bad_input_holdem(fn: object, arg: list[str]) -> None:
    with pytest.raises(NotationError):
        fn(arg)  # type: ignore[operator]


def test_bad_input_three_card() -> None:
    with pytest.raises(NotationError, match="'1s' is not a card"):
        h.rank3(["As", "1s", "2d"], h.ZHAJINHUA)
    with pytest.raises(NotationError, match="expected 3 distinct"):
        h.rank3(["As", "As", "2d"], h.ZHAJINHUA)
    with pytest.raises(NotationError, match="expected 5 distinct"):
        h.best3_of5(["As", "Ks", "2d", "3d"], h.TWO_PLUS_THREE)
    with pytest.raises(NotationError, match="expected 5 distinct"):
        h.best3_of5(["As", "Ks", "2d", "3d", "3d"], h.TWO_PLUS_THREE)


def test_rules_from_config() -> None:
    r = h.rules_from_config({"ace_low_straight": False}, "x")
    assert r == h.ThreeCardRules(name="x", ace_low_straight=False)
    with pytest.raises(ConfigError, match="unknown 3-card rule fields"):
        h.rules_from_config({"aces": 1}, "x")
