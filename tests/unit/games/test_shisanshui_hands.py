"""十三水 rows, 倒水, the 13 special hands in the seed's order, and the automatic
arrangement (always legal; the best by its documented measure, checked against every
one of the 72,072 ways to split 13 cards).

Rules: 000_d16ad353ba467b8a.txt, 十三水规则 (基本规则, 3、普通牌型, 4、特殊牌型)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.poker.hands import rank5
from croupier.games.shisanshui import hands
from croupier.games.shisanshui.hands import (
    Arrangement,
    Special,
    _five_table,
    _three_table,
    auto_arrange,
    best_normal,
    check_arrangement,
    front_strength,
    is_fouled,
    row_score,
    special_of,
    special_rows,
)


def c(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def test_the_front_is_ranked_on_the_five_card_scale() -> None:
    # a front pair of kings with an ace beats a middle pair of kings with a queen...
    assert front_strength(c("Kc Kd As")) > rank5(c("Ks Kh Qd 7c 2d"))
    # ...and a front equal in every card it has is not above the middle (not fouled)
    assert front_strength(c("Kc Kd Qs")) <= rank5(c("Ks Kh Qd 7c 2d"))
    assert front_strength(c("Ac Kd 9s")) < rank5(c("As Kh 9d 7c 2d"))
    assert front_strength(c("Ac Kd Qs")) > rank5(c("As Kh Jd 7c 2d"))
    assert front_strength(c("5c 5d 5s")) > rank5(c("As Ah Kd Kc 2d"))  # trips > two pair
    assert front_strength(c("5c 5d 5s")) < rank5(c("6s 6h 6d Kc 2d"))
    # no 3-card straight or flush in the front
    assert front_strength(c("2h 3h 4h")) < front_strength(c("2c 2d 3s"))


def test_fouled_arrangements() -> None:
    assert is_fouled(c("Ac Ad 2s"), c("Kc Kd 7s 8h 9d"), c("Qs Qh Jd Jc 3d"))
    assert is_fouled(c("Ac 4d 2s"), c("Kc Kd Ks 8h 9d"), c("Qs Qh Jd Jc 3d"))
    assert not is_fouled(c("Ac 4d 2s"), c("Kc Kd 7s 8h 9d"), c("Qs Qh Jd Jc 3d"))


HANDS = {
    Special.QING_LONG: "As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s",
    Special.YI_TIAO_LONG: "Ah Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s",
    Special.SHI_ER_HUANG_ZU: "As Ah Ad Ks Kh Kd Qs Qh Qd Qc Js Jh Jd",
    Special.SAN_TONG_HUA_SHUN: "2h 3h 4h 5d 6d 7d 8d 9d 9s Ts Js Qs Ks",
    Special.SAN_FEN_TIAN_XIA: "9s 9h 9d 9c 5s 5h 5d 5c 2s 2h 2d 2c Kd",
    Special.QUAN_DA: "As Ah 8d 8c 9s 9h Td Jc Qs Kh Kd Tc Js",
    Special.QUAN_XIAO: "2s 2h 3d 3c 4s 5h 6d 7c 8s 8h 4d 5c 6s",
    Special.COU_YI_SE: "As Ks 2c 5c 7s 9c Jc Js 3s 4c 6s 8c Tc",
    Special.WU_DUI_SAN_TIAO: "As Ah 3d 3c 4s 4h 6d 6c 7s 7h 9d 9c 9s",
    Special.SI_TAO_SAN_TIAO: "As Ah Ad 3s 3h 3d 6s 6h 6d 9s 9h 9d Kc",
    Special.LIU_DUI_BAN: "As Ah 3d 3c 4s 4h 6d 6c 7s 7h 9d 9c Kc",
    Special.SAN_SHUN_ZI: "Ah 2d 3c 3s 4h 5d 6c 7s 9h Td Jc Qs Kh",
    Special.SAN_TONG_HUA: "2h 7h 9h 3c 5c 8c Jc Kc 2s 4s 6s Ts Qs",
}


@pytest.mark.parametrize("special", list(Special))
def test_each_special_hand_is_found(special: Special) -> None:
    found = special_of(c(HANDS[special]))
    assert found is not None and found[0] is special
    a = auto_arrange(c(HANDS[special]))
    assert a.special is special
    check_arrangement(c(HANDS[special]), a)


def test_the_specials_rank_in_the_seeds_order() -> None:
    names = [s.value for s in Special]
    assert names == [
        "qing_long", "yi_tiao_long", "shi_er_huang_zu", "san_tong_hua_shun",
        "san_fen_tian_xia", "quan_da", "quan_xiao", "cou_yi_se", "wu_dui_san_tiao",
        "si_tao_san_tiao", "liu_dui_ban", "san_shun_zi", "san_tong_hua",
    ]  # fmt: skip
    # a hand with several takes the largest: 清龙 is also 三同花 and 三顺子
    assert special_of(c(HANDS[Special.QING_LONG])) == (Special.QING_LONG, None)
    # 十二皇族 with a four of a kind is not 三分天下 but is still 十二皇族
    got = special_of(c(HANDS[Special.SHI_ER_HUANG_ZU]))
    assert got is not None and got[0] is Special.SHI_ER_HUANG_ZU


def test_special_readings() -> None:
    # a four of a kind counts as two pairs in 六对半
    hand = c("As Ah Ad Ac 4s 4h 6d 6c 7s 7h 9d 9c Kc")
    assert special_of(hand) == (Special.LIU_DUI_BAN, None)
    # ...and as three of a kind plus a single in 四套三条 (the larger one wins)
    hand = c("As Ah Ad Ac 3s 3h 3d 6s 6h 6d 9s 9h 9d")
    assert special_of(hand) == (Special.SI_TAO_SAN_TIAO, None)
    # an ordinary hand has none
    assert special_of(c("As Kd 9c 7h 5s 3d 2c Jh Td 8s 6c 4h 4d")) is None


def test_check_arrangement_reasons() -> None:
    hand = c("As Ah Kd Ks Qs Qc Js Jc 5s 6h 8d 9c 2d")
    good = Arrangement(c("2d 5s 6h"), c("Kd Ks 8d 9c Ah"), c("As Qs Qc Js Jc"))
    check_arrangement(hand, good)
    rows = (good.front, good.middle, good.back)
    for a, reason in (
        (Arrangement(c("2d 5s 7h"), good.middle, good.back), "not_in_hand"),
        (Arrangement(c("2d 5s 6h Ah"), c("Kd Ks 8d 9c"), good.back), "bad_rows"),
        (Arrangement(c("Qs Qc 2d"), c("Kd 5s 6h 8d 9c"), c("As Ah Js Jc Ks")), "fouled"),
        (Arrangement(*rows, Special.LIU_DUI_BAN), "no_special"),
        (Arrangement(*rows, Special.SAN_SHUN_ZI), "no_special"),
    ):
        with pytest.raises(InvalidInput) as err:
            check_arrangement(hand, a)
        assert err.value.reason == reason


def test_the_random_row_tables_count_every_hand() -> None:
    keys, cum = _five_table()
    assert (len(keys), cum[-1]) == (7462, 2598960)  # distinct 5-card strengths, C(52,5)
    # each category's hands: test_poker_hands.py, beside the deck's full enumeration
    # of each strength, as many as hold it: the four royal flushes at the top, the
    # 1,020 hands of 7-5-4-3-2 not all one suit at the bottom
    assert (keys[-1], cum[-1] - cum[-2]) == (rank5(["As", "Ks", "Qs", "Js", "Ts"]), 4)
    assert (keys[0], cum[0]) == (rank5(["7s", "5h", "4s", "3s", "2s"]), 1_020)
    keys3, cum3 = _three_table()
    assert (len(keys3), cum3[-1]) == (455, 22100)  # 286 high cards + 156 pairs + 13 trips


def _brute_best(hand: tuple[str, ...]) -> tuple[float, int, int, int]:
    best: tuple[float, int, int, int] | None = None
    for back in combinations(hand, 5):
        rest = [x for x in hand if x not in back]
        for middle in combinations(rest, 5):
            front = [x for x in rest if x not in middle]
            f, m, b = front_strength(front), rank5(middle), rank5(back)
            if f <= m <= b:
                key = (row_score(f, m, b), b, m, f)
                best = key if best is None or key > best else best
    assert best is not None
    return best


def test_the_automatic_arrangement_is_the_best_legal_one() -> None:
    rng = random.Random(13)
    for hand in (
        c("As Ah Kd Ks Qs Qc Js Jc 5s 6h 8d 9c 2d"),
        tuple(rng.sample(CARDS52, 13)),
        tuple(rng.sample(CARDS52, 13)),
    ):
        a = best_normal(hand)
        check_arrangement(hand, a)
        f, m, b = a.strengths
        assert (row_score(f, m, b), b, m, f) == _brute_best(hand)


def test_the_automatic_arrangement_is_always_legal() -> None:
    rng = random.Random(29)
    for _ in range(25):
        hand = tuple(rng.sample(CARDS52, 13))
        a = auto_arrange(hand)
        check_arrangement(hand, a)  # raises if fouled, not the hand, or a false special


def test_front_categories_over_every_three_cards() -> None:
    """All C(52,3) = 22,100 fronts: 52 trips, 3,744 pairs, 18,304 high cards (no
    straights or flushes in a 十三水 front)."""
    from collections import Counter

    from croupier.games.poker.hands import category

    got = Counter(category(front_strength(t)).name for t in combinations(CARDS52, 3))
    assert got == {"TRIPS": 52, "PAIR": 3744, "HIGH_CARD": 18304}


def _is_run(cards: tuple[str, ...]) -> bool:
    vals = sorted("23456789TJQKA".index(c[0]) for c in cards)
    n = len(vals)
    return vals == list(range(vals[0], vals[0] + n)) or vals == [*range(n - 1), 12]


def _split_exists(hand: tuple[str, ...], row_ok: object) -> bool:
    """Brute force over every 3/5/5 split (the oracle for the row-based specials)."""
    assert callable(row_ok)
    for front in combinations(hand, 3):
        if not row_ok(front):
            continue
        rest = [x for x in hand if x not in front]
        for middle in combinations(rest, 5):
            back = tuple(x for x in rest if x not in middle)
            if row_ok(middle) and row_ok(back):
                return True
    return False


def _built(rng: random.Random, kind: str) -> tuple[str, ...]:
    """Three rows of 3, 5, 5 cards that are flushes / straights / straight flushes."""
    ranks = "A23456789TJQKA"
    while True:
        cards: list[str] = []
        for n in (3, 5, 5):
            suit = rng.choice("shdc")
            if kind == "flush":
                row = [r + suit for r in rng.sample("23456789TJQKA", n)]
            else:
                lo = rng.randint(0, 14 - n)
                row = [
                    r + (suit if kind == "straight_flush" else rng.choice("shdc"))
                    for r in ranks[lo : lo + n]
                ]
            cards += row
        if len(set(cards)) == 13:
            return tuple(cards)


@pytest.mark.parametrize("kind", ["flush", "straight", "straight_flush"])
def test_row_based_specials_agree_with_every_split(kind: str) -> None:
    """三同花 / 三顺子 / 三同花顺 are found exactly when some 3/5/5 split makes them,
    on hands drawn to make them likely (two suits; a run of ranks; both)."""
    rng = random.Random(kind)
    special = {
        "flush": Special.SAN_TONG_HUA,
        "straight": Special.SAN_SHUN_ZI,
        "straight_flush": Special.SAN_TONG_HUA_SHUN,
    }[kind]

    def row_ok(r: tuple[str, ...]) -> bool:
        flush = len({x[1] for x in r}) == 1
        run = _is_run(r)
        return {"flush": flush, "straight": run, "straight_flush": flush and run}[kind]

    found = 0
    for i in range(16):
        if i % 2:  # built to qualify, then one card swapped half of the time
            hand = _built(rng, kind)
            if i % 4 == 3:
                out = rng.choice(hand)
                fresh = rng.choice([c for c in CARDS52 if c not in hand])
                hand = (*(x for x in hand if x != out), fresh)
        elif kind == "flush":
            suits = rng.sample("shdc", 2)
            hand = tuple(rng.sample([r + s for r in "23456789TJQKA" for s in suits], 13))
        else:
            lo = rng.randint(0, 4)
            suits = rng.sample("shdc", 2 if kind == "straight_flush" else 4)
            pool = [r + s for r in "A23456789TJQKA"[lo : lo + 10] for s in suits]
            hand = tuple(rng.sample(sorted(set(pool)), 13))
        rows = special_rows(hand, special)
        assert (rows is not None) == _split_exists(hand, row_ok), hand
        if rows is not None:
            found += 1
            check_arrangement(hand, Arrangement(rows[0], rows[1], rows[2], special))
    assert found >= 1


def test_the_rows_are_read_as_rank5_and_the_front_strength_read_them() -> None:
    """Every row of a hand: a 5-card row's strength from its keys' sum is ``rank5``'s,
    a front's remembered by its ranks is ``front_strength``'s, each share the share of
    that strength — flushes and straight flushes among them."""
    rng = random.Random("十三水 rows")
    suited = [c for c in CARDS52 if c[1] == "h"] + rng.sample(CARDS52, 10)
    for n in range(40):
        cards = tuple(
            sorted(
                rng.sample(sorted(set(suited)) if n % 2 else CARDS52, 13),
                key=lambda c: (hands._VAL[c[0]], c[1]),
                reverse=True,
            )
        )
        fives, threes = hands._rows(cards)
        five, three = hands._five_table(), hands._three_table()
        for (s, p), idx in zip(fives, combinations(range(13), 5), strict=True):
            want = hands.rank5([cards[i] for i in idx])
            assert (s, p) == (want, hands._share(want, five)), [cards[i] for i in idx]
        for (s, p), idx in zip(threes, hands._THREES, strict=True):
            want = hands.front_strength([cards[i] for i in idx])
            assert (s, p) == (want, hands._share(want, three))
