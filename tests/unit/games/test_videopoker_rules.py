"""幸运五张 hands, the automatic hold and the exact return of the automatic hold.

Rules: 001_5f10773fec037198.txt, 幸运五张; paytable and RTP from
seeds/variants/videopoker.lucky5.json (standard 9/6 Jacks or Better, "for 1")."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement

import pytest

from croupier.cards import CARDS52
from croupier.errors import InvalidInput
from croupier.games.registry import engine, variant_config
from croupier.games.videopoker.engine import VideoPokerEngine
from croupier.games.videopoker.probability import (
    FRESH,
    deals_by_line,
    draw_distribution,
    draw_value,
    line_values,
)
from croupier.games.videopoker.rules import (
    PayHand,
    Paytable,
    auto_hold,
    classify,
    paytable_from_config,
)

TABLE = paytable_from_config(variant_config("videopoker.lucky5").raw)
DEALS = {
    PayHand.ROYAL_FLUSH: 4,
    PayHand.STRAIGHT_FLUSH: 36,
    PayHand.FOUR_OF_A_KIND: 624,
    PayHand.FULL_HOUSE: 3744,
    PayHand.FLUSH: 5108,
    PayHand.STRAIGHT: 10200,
    PayHand.THREE_OF_A_KIND: 54912,
    PayHand.TWO_PAIR: 123552,
    PayHand.JACKS_OR_BETTER: 337920,
    PayHand.NOTHING: 2062860,
}


def h(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize(
    ("cards", "line", "held"),
    [
        ("As Ks Qs Js Ts", PayHand.ROYAL_FLUSH, "As Ks Qs Js Ts"),
        ("5d 4d 3d 2d Ad", PayHand.STRAIGHT_FLUSH, "5d 4d 3d 2d Ad"),
        ("9c 9d 9h 9s 2c", PayHand.FOUR_OF_A_KIND, "9c 9d 9h 9s"),
        ("3c 3d 3h Ks Kc", PayHand.FULL_HOUSE, "3c 3d 3h Ks Kc"),
        ("2h 7h 9h Jh Kh", PayHand.FLUSH, "2h 7h 9h Jh Kh"),
        ("Ac 2d 3h 4s 5c", PayHand.STRAIGHT, "Ac 2d 3h 4s 5c"),
        ("Tc Jd Qh Ks Ac", PayHand.STRAIGHT, "Tc Jd Qh Ks Ac"),
        ("7c 7d 7h Ks 2c", PayHand.THREE_OF_A_KIND, "7c 7d 7h"),
        ("2c 2d 5h 5s Kc", PayHand.TWO_PAIR, "2c 2d 5h 5s"),
        ("Jc 4d Jh 8s 2c", PayHand.JACKS_OR_BETTER, "Jc Jh"),
        ("Ac 4d Ah 8s 2c", PayHand.JACKS_OR_BETTER, "Ac Ah"),
        ("Tc 4d Th 8s 2c", PayHand.NOTHING, ""),
        ("Ac Kd Qh Js 9c", PayHand.NOTHING, ""),
        ("Kc Qc Jc Tc 8d", PayHand.NOTHING, ""),  # four to a royal is not a win
    ],
)
def test_lines_and_the_automatic_hold(cards: str, line: PayHand, held: str) -> None:
    assert classify(h(cards)) is line
    assert auto_hold(h(cards)) == tuple(h(held))  # in dealt order


def test_the_nine_six_paytable_is_for_one_and_pays_nothing_for_nothing() -> None:
    want = {"royal_flush": 800, "straight_flush": 50, "four_of_a_kind": 25, "full_house": 9}
    want |= {"flush": 6, "straight": 4, "three_of_a_kind": 3, "two_pair": 2}
    want |= {"jacks_or_better": 1, "nothing": 0}
    assert {k.value: v for k, v in TABLE.items()} == want
    assert TABLE.result(PayHand.JACKS_OR_BETTER) == 0  # the stake back
    assert TABLE.result(PayHand.NOTHING) == -1
    assert TABLE.result(PayHand.ROYAL_FLUSH) == 799


def test_every_deal_counted_by_line() -> None:
    """All C(52,5) deals classified, grouped by rank pattern (a representative of each
    of the 6,175 rank multisets, weighted by its suit assignments; all-distinct ranks
    split into the 4 one-suit and 1,020 other assignments): the textbook counts."""
    got: Counter[PayHand] = Counter()
    for ranks in combinations_with_replacement("23456789TJQKA", 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        seen: Counter[str] = Counter()
        cards = []
        for r in ranks:
            cards.append(r + "shdc"[seen[r]])
            seen[r] += 1
        if len(counts) == 5:
            got[classify([r + "s" for r in ranks])] += 4
            got[classify([r + ("h" if i == 0 else "s") for i, r in enumerate(ranks)])] += 1020
        else:
            got[classify(cards)] += math.prod(math.comb(4, n) for n in counts.values())
    assert got == DEALS == deals_by_line()
    assert sum(got.values()) == math.comb(52, 5)


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (PayHand.JACKS_OR_BETTER, Fraction(1661, 1081)),
        (PayHand.TWO_PAIR, Fraction(122, 47)),
        (PayHand.THREE_OF_A_KIND, Fraction(4651, 1081)),
        (PayHand.FOUR_OF_A_KIND, Fraction(25)),
    ],
)
def test_a_winning_lines_draw_has_one_value_for_every_deal(line: PayHand, value: Fraction) -> None:
    """Closed forms: e.g. two pair draws 1 of 47 with 4 outs to a full house,
    (4 x 9 + 43 x 2) / 47; trips draw 2 of 47: 46 quads, 66 full houses, 969 trips.
    Checked by enumerating every draw for several random deals of the line."""
    rng = random.Random(4)
    found = 0
    while found < 4:
        deal = rng.sample(CARDS52, 5)
        if classify(deal) is line:
            found += 1
            assert draw_value(deal, auto_hold(deal), TABLE) == value


def test_draw_distribution_counts_every_draw() -> None:
    dist = draw_distribution(h("Jc 4d Jh 8s 2c"), h("Jc Jh"))
    assert sum(dist.values()) == math.comb(47, 3)
    assert dist[PayHand.FOUR_OF_A_KIND] == 45
    assert dist[PayHand.FULL_HOUSE] == 165
    assert dist[PayHand.THREE_OF_A_KIND] == 1854
    assert dist[PayHand.TWO_PAIR] == 2592
    with pytest.raises(InvalidInput):
        draw_distribution(h("Jc 4d Jh 8s 2c"), h("Qs"))


def test_the_stated_rtp_adds_up_from_the_lines_and_the_losing_deals() -> None:
    """auto_hold_rtp in the config = (winning deals x their draw values + the losing
    deals' fresh-draw value) / C(52,5); the full enumeration is
    bench/bench_videopoker_rtp.py."""
    raw = variant_config("videopoker.lucky5").raw["auto_hold_rtp"]
    rtp, losing = Fraction(raw["value"]), Fraction(raw["losing_deals_value"])
    line_value = {
        PayHand.ROYAL_FLUSH: Fraction(800),
        PayHand.STRAIGHT_FLUSH: Fraction(50),
        PayHand.FOUR_OF_A_KIND: Fraction(25),
        PayHand.FULL_HOUSE: Fraction(9),
        PayHand.FLUSH: Fraction(6),
        PayHand.STRAIGHT: Fraction(4),
        PayHand.THREE_OF_A_KIND: Fraction(4651, 1081),
        PayHand.TWO_PAIR: Fraction(122, 47),
        PayHand.JACKS_OR_BETTER: Fraction(1661, 1081),
    }
    total = losing + sum(line_value[k] * DEALS[k] for k in line_value)
    assert total / math.comb(52, 5) == rtp == Fraction(412929359, 565000865)
    assert f"{float(rtp):.8f}" == raw["decimal"] == "0.73084730"
    # a losing deal's value is at most what a fresh 5 from 47 can be: below 1, above 0
    assert 0 < losing / DEALS[PayHand.NOTHING] < 1
    # "to 1" would return more than staked: not a reading
    assert Fraction(raw["to_one_reading"]) > 1
    e = engine("videopoker.lucky5")
    assert isinstance(e, VideoPokerEngine) and e.theoretical_rtp() == {"main": rtp}
    assert e.stated_rtp == rtp and line_values(TABLE) == line_value
    assert "412929359/565000865" in e.rtp_table()


def test_the_losing_deals_value_agrees_with_a_sampled_estimate() -> None:
    """Monte Carlo over 60,000 (losing deal, fresh draw of 5 from the other 47): the
    mean value is the stored losing value per losing deal, within 5 standard errors."""
    raw = variant_config("videopoker.lucky5").raw["auto_hold_rtp"]
    per_deal = Fraction(raw["losing_deals_value"]) / DEALS[PayHand.NOTHING]
    rng = random.Random(7)
    values: list[float] = []
    while len(values) < 60_000:
        ten = rng.sample(CARDS52, 10)
        if classify(ten[:5]) is not PayHand.NOTHING:
            continue
        values.append(float(TABLE[classify(ten[5:])]))
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    assert abs(mean - float(per_deal)) < 5 * sd / math.sqrt(len(values))
    assert math.comb(47, 5) == FRESH


def test_a_paytable_without_a_line_is_refused() -> None:
    from croupier.errors import ConfigError

    with pytest.raises(ConfigError):
        paytable_from_config({"paytable": {"royal_flush": 800}})
    assert isinstance(TABLE, Paytable)


@pytest.mark.parametrize("variant", ["videopoker.lucky5"])
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
