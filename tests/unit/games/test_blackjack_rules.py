"""Blackjack rules (croupier.games.blackjack.rules) and the two variant configs: card
values, the dealer's drawing rule, what each hand class pays, the doubling and pair
rules, and every difference between 多人21点 and 幸运21点 as a config value with its
source note (001_5f10773fec037198.txt).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from croupier.errors import ConfigError
from croupier.games.blackjack.probability import dealer_distribution
from croupier.games.blackjack.rules import (
    AllBust,
    Final,
    Kind,
    PairMatch,
    Peek,
    Rules,
    SplitDeal,
    Tally,
    card_value,
)
from croupier.games.registry import variant_config

MULTI_CFG = variant_config("blackjack.multi")
LUCKY_CFG = variant_config("blackjack.lucky")
MULTI = Rules.from_config(MULTI_CFG.raw)
LUCKY = Rules.from_config(LUCKY_CFG.raw)
META = {"variant", "version", "family", "source", "minor_unit"}


def tally(*cards: str) -> Tally:
    return Tally.of_cards(cards)


def test_card_values_and_totals() -> None:
    assert [card_value(c) for c in ("As", "2h", "9d", "Tc", "Js", "Qh", "Kd")] == [
        1, 2, 9, 10, 10, 10, 10,
    ]  # fmt: skip
    t = tally("As", "6d")
    assert (t.total, t.soft, t.hard, t.n) == (17, True, 7, 2)
    t = tally("As", "6d", "9c")
    assert (t.total, t.soft, t.bust) == (16, False, False)  # the ace falls back to 1
    assert tally("As", "Ad").total == 12
    assert tally("Ks", "Qd", "2c").bust


# --- every difference is a config value with a source ------------------------------------


def test_every_config_block_names_its_source() -> None:
    for cfg in (MULTI_CFG, LUCKY_CFG):
        for key, block in cfg.raw.items():
            if key in META:
                continue
            assert isinstance(block, dict) and any(k.endswith("source") for k in block), key
            assert any(
                "001_5f10773fec037198.txt" in str(v) or str(v).startswith(("default", "computed"))
                for k, v in block.items()
                if k.endswith("source")
            ), key


def test_the_differences_between_the_variants_are_exactly_these_config_values() -> None:
    differ = {
        f.name: (getattr(MULTI, f.name), getattr(LUCKY, f.name))
        for f in dataclasses.fields(Rules)
        if getattr(MULTI, f.name) != getattr(LUCKY, f.name)
    }
    assert differ == {
        "decks": (4, 2),
        "dealer_hole_card": (True, False),
        "charlie_cards": (5, None),
        "charlie_pays": (Fraction(3, 2), Fraction(0)),
        "dealer_charlie": (True, False),
        "max_cards": (5, None),
        "double_totals": (None, (9, 10, 11)),
        "double_without_ace": (False, True),
        "double_after_split": (True, False),
        "split_match": (PairMatch.VALUE, PairMatch.RANK),
        "split_deal": (SplitDeal.BOTH, SplitDeal.IN_TURN),
        "peek": (Peek.IF_INSURED, Peek.NEVER),
        "all_bust": (AllBust.PLAY_OUT, AllBust.SECOND_CARD_ONLY),
        "rake": (Fraction(1, 50), Fraction(0)),
    }
    # and the table: a fresh shuffle per hand against a two-deck shoe with a cut card
    assert MULTI_CFG.raw["shoe"]["per_hand"] is True
    assert LUCKY_CFG.raw["shoe"] == {**LUCKY_CFG.raw["shoe"], "per_hand": False}
    assert (MULTI_CFG.raw["seats"]["max"], LUCKY_CFG.raw["seats"]["max"]) == (5, 3)


def test_the_rules_they_share() -> None:
    for r in (MULTI, LUCKY):
        assert r.blackjack_pays == Fraction(3, 2) and not r.blackjack_after_split
        assert r.insurance_cost == Fraction(1, 2) and r.insurance_pays == 2
        assert r.max_splits == 1
        assert r.dealer_stands_on == 17 and not r.dealer_hits_soft_17


def test_lucky_reshuffles_when_fewer_than_half_a_deck_remain() -> None:
    # 幸运21点 游戏规则: reshuffle with fewer than half a deck (半副牌) left. The dealer
    # opens a new shoe once pos >= size - cut_card_from_end, i.e. with cut_card_from_end
    # cards or fewer left.
    left_at_cut = LUCKY_CFG.raw["shoe"]["cut_card_from_end"]
    assert LUCKY_CFG.deck.size == 104 and left_at_cut == 26 - 1


def test_blackjack_and_charlie_read_as_3_to_2() -> None:
    # "2:3" / "2赔3" as profit 2/3 would pay a blackjack less than an ordinary win
    assert MULTI.blackjack_pays > 1 and LUCKY.blackjack_pays > 1
    assert MULTI.charlie_pays == MULTI.blackjack_pays


def test_insurance_1_to_2_means_a_win_pays_twice_the_insurance() -> None:
    """多人21点 结算: a winning insurance wins twice the insurance. Over an infinite deck the
    reading 'profit 2' returns 12/13 of the insurance; 'profit 1/2' would return 6/13."""
    p = dealer_distribution(MULTI, 1)[Final(Kind.BLACKJACK, 21)]
    assert p == Fraction(4, 13)

    def rtp(pays: Fraction) -> Fraction:
        return 1 + p * pays - (1 - p)

    assert rtp(MULTI.insurance_pays) == Fraction(12, 13)
    assert rtp(Fraction(1, 2)) == Fraction(6, 13)
    assert MULTI.insurance_result(Final(Kind.BLACKJACK, 21)) == 2
    assert MULTI.insurance_result(Final(Kind.POINTS, 21)) == -1


# --- the dealer's drawing rule -------------------------------------------------------------


@pytest.mark.parametrize("rules", [MULTI, LUCKY], ids=["multi", "lucky"])
def test_dealer_draws_below_17_and_stands_on_every_17(rules: Rules) -> None:
    assert rules.dealer_draws(tally("Ah"))  # one card: always draws
    assert rules.dealer_draws(tally("Th", "6c"))  # 16 (幸运21点's "不足16点" typo)
    assert rules.dealer_draws(tally("Th", "2c", "4d"))
    assert rules.dealer_draws(tally("Ah", "5c"))  # soft 16
    assert not rules.dealer_draws(tally("Th", "7c"))  # 17 (多人21点 leaves 17 open)
    assert not rules.dealer_draws(tally("Ah", "6c"))  # soft 17 stands
    assert not rules.dealer_draws(tally("Ah", "Kc"))  # blackjack
    assert not rules.dealer_draws(tally("Th", "9c", "5d"))  # bust
    assert rules.dealer_draws(tally("Ah", "6c", "9d"))  # soft 17 + 9 = hard 16


def test_the_multi_dealer_stops_at_five_cards_the_lucky_dealer_does_not() -> None:
    five = tally("2h", "3s", "2d", "3c", "4s")  # 14 in five cards
    assert not MULTI.dealer_draws(five) and MULTI.dealer_final(five).kind is Kind.CHARLIE
    assert LUCKY.dealer_draws(five) and LUCKY.dealer_final(five) == Final(Kind.POINTS, 14)


# --- hand classes and pays ---------------------------------------------------------------


def test_hand_classes() -> None:
    assert MULTI.player_final(tally("As", "Kd"), from_split=False).kind is Kind.BLACKJACK
    assert MULTI.player_final(tally("As", "Kd"), from_split=True) == Final(Kind.POINTS, 21)
    assert MULTI.player_final(tally("7s", "7d", "7c"), from_split=False) == Final(Kind.POINTS, 21)
    five = tally("2c", "3d", "Ah", "2s", "4d")
    assert MULTI.player_final(five, from_split=False).kind is Kind.CHARLIE
    assert LUCKY.player_final(five, from_split=False) == Final(Kind.POINTS, 12)
    assert MULTI.player_final(tally("2c", "3d", "9h", "4s", "Td"), from_split=False).kind is (
        Kind.BUST
    )
    assert MULTI.player_done(five, from_split=False)
    assert not LUCKY.player_done(five, from_split=False)
    assert LUCKY.player_done(tally("7s", "7d", "7c"), from_split=False)  # 21 stands
    assert MULTI.player_done(tally("7s", "7d", "7c"), from_split=False)  # in both variants


BJ, CH, BUST = Final(Kind.BLACKJACK, 21), Final(Kind.CHARLIE), Final(Kind.BUST)


def pts(n: int) -> Final:
    return Final(Kind.POINTS, n)


@pytest.mark.parametrize(
    ("player", "dealer", "result"),
    [
        (BJ, pts(20), Fraction(3, 2)),
        (BJ, BJ, 0),
        (BJ, CH, Fraction(3, 2)),
        (BJ, BUST, Fraction(3, 2)),
        (CH, pts(21), Fraction(3, 2)),
        (CH, BUST, Fraction(3, 2)),
        (CH, CH, 0),
        (CH, BJ, -1),
        (pts(21), BJ, -1),
        (pts(20), CH, -1),
        (pts(20), pts(19), 1),
        (pts(18), pts(18), 0),
        (pts(17), pts(18), -1),
        (pts(12), BUST, 1),
        (BUST, BUST, -1),
        (BUST, pts(17), -1),
    ],
)
def test_what_a_unit_stake_gets(player: Final, dealer: Final, result: Any) -> None:
    assert MULTI.pay(player, dealer) == result


def test_doubling_rules() -> None:
    assert MULTI.double_refusal(tally("Tc", "6d"), from_split=False) is None
    assert MULTI.double_refusal(tally("Tc", "6d"), from_split=True) is None
    assert MULTI.double_refusal(tally("2c", "3d", "4h"), from_split=False) == (
        "double_needs_two_cards",
        "double only on the first two cards (3 held)",
    )
    assert LUCKY.double_refusal(tally("5c", "4d"), from_split=False) is None
    assert LUCKY.double_refusal(tally("5c", "4d"), from_split=True)[0] == (  # type: ignore[index]
        "no_double_after_split"
    )
    for hand in (("Tc", "2d"), ("4c", "4d"), ("Ac", "8d"), ("Ac", "Tc")):
        assert LUCKY.double_refusal(tally(*hand), from_split=False)[0] == "double_total"  # type: ignore[index]


def test_pairs() -> None:
    assert MULTI.is_pair(["Kc", "Qd"]) and not LUCKY.is_pair(["Kc", "Qd"])
    assert MULTI.is_pair(["8c", "8d"]) and LUCKY.is_pair(["8c", "8d"])
    assert LUCKY.is_pair(["Kc", "Kd"]) and not MULTI.is_pair(["Kc", "5d"])
    assert not MULTI.is_pair(["8c", "8d", "8h"])


def test_config_errors() -> None:
    bad = {**MULTI_CFG.raw, "split": {**MULTI_CFG.raw["split"], "max_splits": 3}}
    with pytest.raises(ConfigError, match="max_splits"):
        Rules.from_config(bad)
    with pytest.raises(ConfigError):
        Rules.from_config({**MULTI_CFG.raw, "dealer": {}})
    bad = {**MULTI_CFG.raw, "charlie": {**MULTI_CFG.raw["charlie"], "cards": None}}
    with pytest.raises(ConfigError, match="charlie"):
        Rules.from_config(bad)
