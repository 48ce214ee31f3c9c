"""Baccarat rules and exact odds.

Rules: 000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍 (一 玩法, 二 补牌规则, 三 赔付).
Published reference values used as independent checks:

* 8-deck combination counts over 416*415*...*411 ordered six-card sequences
  (banker 2,292,252,566,437,888; player 2,230,518,282,592,256; tie 475,627,426,473,216),
  as tabulated e.g. on casinoexploit.com's baccarat page;
* banker/player/tie by number of decks (1, 2, 4, 6, 8), Yui-Bin Chen's table on
  vegastrip.com (percent to 4 decimals) and multiplayerbaccarat.com (6 decks, 6 decimals).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from croupier.errors import ConfigError, InvalidInput, NotationError, RuleViolation
from croupier.games.baccarat.probability import (
    BaccaratOdds,
    OutcomeClass,
    PayoutReading,
    baccarat_odds,
    format_odds_table,
    fresh_shoe,
    odds_for_shoe,
    outcome_distribution,
    payout_reading_rtps,
)
from croupier.games.baccarat.rules import (
    SEED_PAYTABLE,
    Coup,
    Paytable,
    Side,
    Spot,
    Winner,
    banker_draws,
    card_point,
    deal_coup,
    evaluate,
    is_natural,
    next_recipient,
    paytable_from_config,
    player_draws,
    point,
    spot_result,
    total,
)

CONFIG_PATH = Path(__file__).resolve().parents[3] / "seeds" / "variants" / "baccarat.json"


def deal(*cards: str) -> Coup:
    """Deal a coup from exactly these cards, in shoe order; all must be used."""
    it: Iterator[str] = iter(cards)
    coup = deal_coup(lambda: next(it))
    assert next(it, None) is None, "coup used fewer cards than given"
    return coup


def decimals(value: Fraction, places: int) -> int:
    """``value`` scaled by 10**places and rounded, exactly."""
    scaled: int = round(value * 10**places)
    return scaled


@pytest.fixture(scope="module")
def odds8() -> BaccaratOdds:
    return baccarat_odds(8)


# --- points and notation ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "value"),
    [*((str(v), v) for v in range(2, 10)), ("A", 1), ("T", 0), ("J", 0), ("Q", 0), ("K", 0)],
)
def test_point_of_every_rank(rank: str, value: int) -> None:
    assert point(rank) == value
    for suit in "shdc":
        assert card_point(rank + suit) == value


def test_total_is_modulo_ten() -> None:
    assert total(["7s", "8h"]) == 5
    assert total(["9s", "9h", "9d"]) == 7
    assert total(["Ts", "Jh", "Kd"]) == 0
    assert total([]) == 0


@pytest.mark.parametrize("bad", ["10s", "As ", "as", "AS", "Ax", "A", "", "1s", "BJ", "Ts\n"])
def test_bad_card_notation(bad: str) -> None:
    with pytest.raises(NotationError):
        card_point(bad)
    with pytest.raises(NotationError):
        total(["As", bad])


@pytest.mark.parametrize("bad", ["1", "10", "a", "", "As"])
def test_bad_rank(bad: str) -> None:
    with pytest.raises(NotationError):
        point(bad)


# --- drawing tables: every cell -----------------------------------------------------------

# 补牌规则, 闲家: 0-5 须补牌, 6-7 不须补牌, 8-9 天生赢家.
PLAYER_TABLE = {0: True, 1: True, 2: True, 3: True, 4: True, 5: True}
PLAYER_TABLE |= {6: False, 7: False, 8: False, 9: False}

# 补牌规则, 庄家, written out as a chart: rows are the banker's two-card total, the first
# column is "player stood" (the note: banker draws on 0-5), then the point value of the
# player's third card 0..9. D = draw, S = stand.
BANKER_CHART = """
    -  0 1 2 3 4 5 6 7 8 9
0   D  D D D D D D D D D D
1   D  D D D D D D D D D D
2   D  D D D D D D D D D D
3   D  D D D D D D D D S D
4   D  S S D D D D D D S S
5   D  S S S S D D D D S S
6   S  S S S S S S D D S S
7   S  S S S S S S S S S S
8   S  S S S S S S S S S S
9   S  S S S S S S S S S S
"""


def _banker_cells() -> list[tuple[int, int | None, bool]]:
    rows = [line.split() for line in BANKER_CHART.strip().splitlines()]
    header = rows[0]
    cells: list[tuple[int, int | None, bool]] = []
    for row in rows[1:]:
        banker_total = int(row[0])
        for column, mark in zip(header, row[1:], strict=True):
            third = None if column == "-" else int(column)
            cells.append((banker_total, third, mark == "D"))
    return cells


BANKER_CELLS = _banker_cells()


def card_of(value: int, suit: str) -> str:
    """A card of the given baccarat point value."""
    return ("K" if value == 0 else "A" if value == 1 else str(value)) + suit


def test_banker_chart_covers_every_cell() -> None:
    assert len(BANKER_CELLS) == 10 * 11
    assert len({(b, t) for b, t, _ in BANKER_CELLS}) == 110


@pytest.mark.parametrize(("player_total", "draws"), sorted(PLAYER_TABLE.items()))
def test_player_table(player_total: int, draws: bool) -> None:
    assert player_draws(player_total) is draws


@pytest.mark.parametrize(("banker_total", "third", "draws"), BANKER_CELLS)
def test_banker_table(banker_total: int, third: int | None, draws: bool) -> None:
    assert banker_draws(banker_total, third) is draws


@pytest.mark.parametrize(("banker_total", "third", "draws"), BANKER_CELLS)
def test_banker_table_through_a_real_deal(
    banker_total: int, third: int | None, draws: bool
) -> None:
    """The same cell reached by dealing cards: the coup gives the banker a third card iff D."""
    if banker_total >= 8:
        return  # a banker natural ends the coup before anyone draws
    banker = ["Ts", card_of(banker_total, "h")]
    # player 6 stands; player 0 draws the third card under test
    player = ["Ts", "6h"] if third is None else ["Ts", "Kh", card_of(third, "d")]
    if draws:
        banker.append("4c")
    coup = evaluate(player, banker)
    assert coup.card_count == len(player) + len(banker)
    if not draws:
        with pytest.raises(RuleViolation):
            evaluate(player, [*banker, "4c"])
    else:
        with pytest.raises(RuleViolation):
            evaluate(player, banker[:2])


@pytest.mark.parametrize("bad", [-1, 10, True, 2.0, None])
def test_table_inputs_are_checked(bad: object) -> None:
    with pytest.raises(InvalidInput):
        player_draws(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        is_natural(bad)  # type: ignore[arg-type]
    if bad is not None:
        with pytest.raises(InvalidInput):
            banker_draws(bad, None)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput):
            banker_draws(3, bad)  # type: ignore[arg-type]


# --- golden hands ----------------------------------------------------------------------


def test_deal_order_is_player_banker_player_banker() -> None:
    assert next_recipient([], []) is Side.PLAYER
    assert next_recipient(["2s"], []) is Side.BANKER
    assert next_recipient(["2s"], ["3s"]) is Side.PLAYER
    assert next_recipient(["2s", "2h"], ["3s"]) is Side.BANKER
    coup = deal("4s", "3c", "5h", "5d")
    assert coup.player_cards == ("4s", "5h")
    assert coup.banker_cards == ("3c", "5d")


def test_natural_nine_beats_natural_eight() -> None:
    coup = deal("4s", "3c", "5h", "5d")
    assert (coup.player_total, coup.banker_total) == (9, 8)
    assert coup.winner is Winner.PLAYER
    assert coup.natural and coup.card_count == 4
    assert not coup.player_pair and not coup.banker_pair


def test_banker_natural_stops_a_player_who_would_draw() -> None:
    coup = deal("2s", "9h", "3s", "Kd")
    assert (coup.player_total, coup.banker_total) == (5, 9)
    assert coup.natural and coup.card_count == 4
    assert coup.winner is Winner.BANKER
    assert next_recipient(["2s", "3s"], ["9h", "Kd"]) is None
    with pytest.raises(RuleViolation):
        evaluate(["2s", "3s", "4s"], ["9h", "Kd"])


def test_natural_tie() -> None:
    coup = deal("8s", "8h", "Ts", "Kh")
    assert coup.winner is Winner.TIE and coup.natural
    assert spot_result(Spot.TIE, coup) == 8
    assert spot_result(Spot.BANKER, coup) == 0
    assert spot_result(Spot.PLAYER, coup) == 0
    assert spot_result(Spot.SMALL, coup) == Fraction(3, 2)


def test_banker_three_stands_on_player_third_eight() -> None:
    coup = deal("2s", "Ts", "3d", "3h", "8c")
    assert coup.player_cards == ("2s", "3d", "8c")
    assert coup.banker_cards == ("Ts", "3h")
    assert (coup.player_total, coup.banker_total) == (3, 3)
    assert coup.winner is Winner.TIE and coup.card_count == 5 and not coup.natural


def test_banker_three_draws_on_player_third_nine() -> None:
    coup = deal("2s", "Ts", "3d", "3h", "9c", "5s")
    assert coup.banker_cards == ("Ts", "3h", "5s")
    assert (coup.player_total, coup.banker_total) == (4, 8)
    assert coup.winner is Winner.BANKER and coup.card_count == 6


@pytest.mark.parametrize(("third", "banker_final"), [("6c", 6), ("7c", 6)])
def test_banker_six_draws_on_player_third_six_or_seven(third: str, banker_final: int) -> None:
    coup = deal("As", "3s", "2d", "3h", third, "Kd")
    assert len(coup.banker_cards) == 3 and coup.banker_total == banker_final
    assert coup.banker_pair and not coup.player_pair
    assert coup.card_count == 6


def test_banker_six_stands_on_player_third_five() -> None:
    coup = deal("As", "4s", "2d", "2h", "5c")
    assert coup.banker_cards == ("4s", "2h")
    assert (coup.player_total, coup.banker_total) == (8, 6)
    assert coup.winner is Winner.PLAYER and coup.banker_pair is False


def test_player_stands_on_six_banker_five_draws() -> None:
    coup = deal("4s", "Ks", "2d", "5h", "2c")
    assert coup.player_cards == ("4s", "2d")
    assert coup.banker_cards == ("Ks", "5h", "2c")
    assert (coup.player_total, coup.banker_total) == (6, 7)
    assert coup.winner is Winner.BANKER and coup.card_count == 5


def test_player_stands_on_seven_banker_five_draws_to_a_losing_six() -> None:
    coup = deal("7s", "5s", "Qd", "Jh", "Ah")
    assert (coup.player_total, coup.banker_total) == (7, 6)
    assert coup.winner is Winner.PLAYER
    assert spot_result(Spot.SUPER6, coup) == -1
    assert spot_result(Spot.BANKER, coup) == -1


def test_player_stands_on_seven_banker_six_stands() -> None:
    coup = deal("7s", "6s", "Qd", "Jh")
    assert coup.card_count == 4 and not coup.natural
    assert coup.winner is Winner.PLAYER
    assert spot_result(Spot.SMALL, coup) == Fraction(3, 2)
    assert spot_result(Spot.BIG, coup) == -1


def test_super6_with_two_cards() -> None:
    coup = deal("5s", "2s", "Kd", "4h", "9c")  # player 5 draws a 9; banker 6 stands on 9
    assert (coup.player_total, coup.banker_total, coup.card_count) == (4, 6, 5)
    assert coup.banker_wins_with_6
    assert spot_result(Spot.SUPER6, coup) == 12
    assert spot_result(Spot.BANKER, coup) == Fraction(1, 2)
    assert spot_result(Spot.PLAYER, coup) == -1
    assert spot_result(Spot.BIG, coup) == Fraction(1, 2)
    assert spot_result(Spot.SMALL, coup) == -1


def test_super6_with_three_cards() -> None:
    coup = deal("Ts", "As", "2d", "2h", "2c", "3d")  # banker 3 draws on the player's 2
    assert coup.banker_cards == ("As", "2h", "3d")
    assert (coup.player_total, coup.banker_total, coup.card_count) == (4, 6, 6)
    assert spot_result(Spot.SUPER6, coup) == 12
    assert spot_result(Spot.BANKER, coup) == Fraction(1, 2)


def test_six_six_tie_is_not_super6() -> None:
    coup = deal("Ts", "As", "6d", "2h", "3c")  # player 6 stands, banker 3 draws to 6
    assert (coup.player_total, coup.banker_total) == (6, 6)
    assert coup.winner is Winner.TIE and not coup.banker_wins_with_6
    assert spot_result(Spot.SUPER6, coup) == -1
    assert spot_result(Spot.BANKER, coup) == 0


def test_pairs_are_by_rank_not_by_value() -> None:
    coup = deal("Ts", "Jh", "Th", "Kd", "9s", "7c")
    assert coup.player_pair  # T and T
    assert not coup.banker_pair  # J and K are both 0 but not a pair
    assert (coup.player_total, coup.banker_total) == (9, 7)
    assert spot_result(Spot.PLAYER_PAIR, coup) == 11
    assert spot_result(Spot.BANKER_PAIR, coup) == -1
    nines = deal("As", "9s", "Ah", "9d")
    assert nines.player_pair and nines.banker_pair and nines.natural
    assert spot_result(Spot.BANKER_PAIR, nines) == 11


def test_pair_ignores_the_third_card() -> None:
    coup = deal("2s", "Ts", "3d", "Kh", "2h", "Tc")  # P1/P3 share a rank, P1/P2 do not
    assert not coup.player_pair and not coup.banker_pair


def test_every_spot_on_a_banker_win_player_win_and_tie() -> None:
    banker7 = deal("4s", "Ks", "2d", "5h", "2c")
    player9 = deal("4s", "3c", "5h", "5d")
    tie3 = deal("2s", "Ts", "3d", "3h", "8c")
    expected = {
        Spot.BANKER: (1, -1, 0),
        Spot.PLAYER: (-1, 1, 0),
        Spot.TIE: (-1, -1, 8),
        Spot.BANKER_PAIR: (-1, -1, -1),
        Spot.PLAYER_PAIR: (-1, -1, -1),
        Spot.BIG: (Fraction(1, 2), -1, Fraction(1, 2)),
        Spot.SMALL: (-1, Fraction(3, 2), -1),
        Spot.SUPER6: (-1, -1, -1),
    }
    for spot, results in expected.items():
        got = tuple(spot_result(spot, c) for c in (banker7, player9, tie3))
        assert got == results, spot


# --- illegal and incomplete deals ------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ([], ["As"]),  # banker before player
        (["As", "2s"], []),  # player's second card before banker's first
        (["As", "2s", "3s"], ["4s"]),
        (["4s", "3s", "2s"], ["Ks", "Kh"]),  # player 7 may not draw
        (["2s", "3s"], ["Ks", "Kh", "As"]),  # banker draws before the player's third
        (["2s", "3s", "8s"], ["Ks", "3h", "As"]),  # banker 3 stands on player third 8
        (["7s", "Ks"], ["6s", "Kh", "As"]),  # banker 6 stands when player stood
        (["2s", "Ts", "4s", "4h"], ["Ks", "Kh"]),
    ],
)
def test_illegal_deals_are_rejected(player: list[str], banker: list[str]) -> None:
    with pytest.raises(RuleViolation) as info:
        next_recipient(player, banker)
    assert info.value.reason == "illegal_deal"


def test_incomplete_coup_is_rejected() -> None:
    with pytest.raises(RuleViolation) as info:
        evaluate(["2s", "3s"], ["Ks", "Kh"])
    assert info.value.reason == "incomplete_coup"


def test_deal_coup_rejects_a_malformed_card() -> None:
    cards = iter(["As", "Kd", "10h"])
    with pytest.raises(NotationError):
        deal_coup(lambda: next(cards))


# --- exact probabilities ----------------------------------------------------------------


def test_eight_deck_main_outcomes_to_six_decimals(odds8: BaccaratOdds) -> None:
    assert odds8.shoe_size == 416
    assert decimals(odds8.banker_win, 6) == 458597
    assert decimals(odds8.player_win, 6) == 446247
    assert decimals(odds8.tie, 6) == 95156
    assert odds8.banker_win + odds8.player_win + odds8.tie == 1


def test_eight_deck_published_combination_counts(odds8: BaccaratOdds) -> None:
    dist = odds8.distribution
    assert dist.denominator == 416 * 415 * 414 * 413 * 412 * 411 == 4_998_398_275_503_360
    assert sum(dist.weights.values()) == dist.denominator
    assert dist.weight_where(winner=Winner.BANKER) == 2_292_252_566_437_888
    assert dist.weight_where(winner=Winner.PLAYER) == 2_230_518_282_592_256
    assert dist.weight_where(winner=Winner.TIE) == 475_627_426_473_216


def test_eight_deck_side_events_exact(odds8: BaccaratOdds) -> None:
    # A pair needs P1 and P2 (positions 1 and 3) of one rank: 13 ranks of 32 cards.
    assert odds8.player_pair == odds8.banker_pair == Fraction(13 * 32 * 31, 416 * 415)
    assert odds8.player_pair == Fraction(31, 415)
    assert odds8.big + odds8.small == 1
    assert decimals(odds8.banker_win_with_6, 9) == 53863716
    assert decimals(odds8.big, 9) == 621131509
    assert decimals(odds8.small, 9) == 378868491
    assert decimals(odds8.natural, 9) == 343049097


RTP_8_DECKS = {
    Spot.BANKER: Fraction(19240298465317, 19524993263685),
    Spot.PLAYER: Fraction(19283843717413, 19524993263685),
    Spot.TIE: Fraction(619306544887, 723147898655),
    Spot.BANKER_PAIR: Fraction(372, 415),
    Spot.PLAYER_PAIR: Fraction(372, 415),
    Spot.BIG: Fraction(230105, 246974),
    Spot.SMALL: Fraction(350890, 370461),
    Spot.SUPER6: Fraction(210337737856, 300384511749),
}
RTP_8_DECKS_9DP = {
    Spot.BANKER: 985418955,
    Spot.PLAYER: 987649187,
    Spot.TIE: 856403712,
    Spot.BANKER_PAIR: 896385542,
    Spot.PLAYER_PAIR: 896385542,
    Spot.BIG: 931697264,
    Spot.SMALL: 947171227,
    Spot.SUPER6: 700228306,
}


@pytest.mark.parametrize("spot", list(Spot))
def test_eight_deck_rtp_of_every_spot(odds8: BaccaratOdds, spot: Spot) -> None:
    assert odds8.rtp[spot] == RTP_8_DECKS[spot]
    assert decimals(odds8.rtp[spot], 9) == RTP_8_DECKS_9DP[spot]


def test_rtp_formulas_agree_with_event_probabilities(odds8: BaccaratOdds) -> None:
    o = odds8
    b6 = o.banker_win_with_6
    assert o.rtp[Spot.BANKER] == 1 + (o.banker_win - b6) + b6 / 2 - o.player_win
    assert o.rtp[Spot.PLAYER] == 1 + o.player_win - o.banker_win
    assert o.rtp[Spot.TIE] == 9 * o.tie
    assert o.rtp[Spot.PLAYER_PAIR] == 12 * o.player_pair
    assert o.rtp[Spot.BIG] == Fraction(3, 2) * o.big
    assert o.rtp[Spot.SMALL] == Fraction(5, 2) * o.small
    assert o.rtp[Spot.SUPER6] == 13 * b6


@pytest.mark.parametrize(
    ("decks", "banker", "player", "tie"),
    [
        (1, 459624, 446760, 93615),
        (2, 459073, 446508, 94419),
        (4, 458761, 446340, 94898),
        (6, 458653, 446279, 95069),
    ],
)
def test_published_values_for_other_shoe_sizes(
    decks: int, banker: int, player: int, tie: int
) -> None:
    odds = baccarat_odds(decks)
    assert decimals(odds.banker_win, 6) == banker
    assert decimals(odds.player_win, 6) == player
    assert decimals(odds.tie, 6) == tie


# --- independent oracle: every ordering of a small shoe --------------------------------


def _oracle(shoe: list[str]) -> Counter[OutcomeClass]:
    """Count outcome classes over all ordered 6-card draws of distinct physical cards.

    Every ordering of the shoe is equally likely and a coup takes at most six cards from
    the top, so each ordered 6-card draw is one equally likely case.
    """
    counts: Counter[OutcomeClass] = Counter()
    for draw in itertools.permutations(shoe, 6):
        coup = deal_coup(iter(draw).__next__)
        counts[
            OutcomeClass(
                player_total=coup.player_total,
                banker_total=coup.banker_total,
                card_count=coup.card_count,
                natural=coup.natural,
                player_pair=coup.player_pair,
                banker_pair=coup.banker_pair,
            )
        ] += 1
    return counts


SMALL_SHOES = {
    # zero-value ranks (same value, different rank), rank pairs, naturals
    "zeros_and_pairs": ["Ts", "Th", "Jd", "Kc", "Kd", "As", "Ah", "5s", "6c", "9d"],
    # spread of values so every banker row 3-6 meets several player third cards
    "spread": ["As", "2s", "3h", "3d", "4d", "5c", "6s", "7h", "8d", "Qs"],
}


@pytest.mark.parametrize("name", sorted(SMALL_SHOES))
def test_fast_enumeration_matches_exhaustive_card_orderings(name: str) -> None:
    shoe = SMALL_SHOES[name]
    expected = _oracle(shoe)
    dist = outcome_distribution(Counter(card[0] for card in shoe))
    assert dist.denominator == sum(expected.values()) == 10 * 9 * 8 * 7 * 6 * 5
    assert dict(dist.weights) == dict(expected)


def test_outcome_distribution_input_checks() -> None:
    with pytest.raises(InvalidInput):
        outcome_distribution({"A": 5})  # fewer than six cards
    with pytest.raises(InvalidInput):
        outcome_distribution({"A": -1, "2": 10})
    with pytest.raises(NotationError):
        outcome_distribution({"X": 10})
    with pytest.raises(InvalidInput):
        fresh_shoe(0)


def test_odds_for_shoe_equals_fresh_shoe(odds8: BaccaratOdds) -> None:
    assert fresh_shoe(8) == {r: 32 for r in "A23456789TJQK"}
    assert odds_for_shoe(fresh_shoe(8)).rtp == odds8.rtp


# --- the reading of "1赔X" -------------------------------------------------------------

TOTAL_RETURN_RTP_6DP = {
    Spot.BANKER: 526822,
    Spot.PLAYER: 541403,
    Spot.TIE: 761248,
    Spot.BANKER_PAIR: 821687,
    Spot.PLAYER_PAIR: 821687,
    Spot.BIG: 310566,
    Spot.SMALL: 568303,
    Spot.SUPER6: 646365,
}


def test_payout_reading_profit_is_the_valid_one(odds8: BaccaratOdds) -> None:
    readings = payout_reading_rtps(odds8)
    profit = readings[PayoutReading.PROFIT]
    total_return = readings[PayoutReading.TOTAL_RETURN]
    # The profit reading: a house edge on every spot, no RTP above 1.
    assert all(Fraction(7, 10) < rtp < 1 for rtp in profit.values())
    assert profit == odds8.rtp
    # The total-return reading: recomputed exactly, and rejected.
    for spot, expected in TOTAL_RETURN_RTP_6DP.items():
        assert decimals(total_return[spot], 6) == expected
        assert total_return[spot] < profit[spot]
    # Under it a winning big bet, or a banker bet winning with 6, would lose money...
    assert SEED_PAYTABLE.big - 1 < 0 and SEED_PAYTABLE.banker_with_6 - 1 < 0
    # ...and a winning banker/player bet would only get its stake back, like a tie refund.
    assert SEED_PAYTABLE.banker - 1 == SEED_PAYTABLE.player - 1 == 0
    assert total_return[Spot.BIG] < Fraction(1, 2)


def test_a_reading_paying_more_than_x_would_exceed_rtp_one(odds8: BaccaratOdds) -> None:
    generous = Paytable(banker=Fraction(2), banker_with_6=Fraction(3, 2), player=Fraction(2))
    odds = baccarat_odds(8, generous)
    assert odds.rtp[Spot.BANKER] > 1 and odds.rtp[Spot.PLAYER] > 1


# --- config and table ------------------------------------------------------------------


def test_config_matches_the_rules_and_documents_every_number() -> None:
    config = json.loads(CONFIG_PATH.read_text(encoding="utf-8"))
    assert config["variant"] == "baccarat" and config["family"] == "baccarat"
    assert config["source"] == "000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍"
    assert paytable_from_config(config) == SEED_PAYTABLE
    assert config["decks"] == 8
    assert config["shoe_cards"] == sum(fresh_shoe(config["decks"]).values()) == 416
    assert config["no_big_small_after_hand"] == 30
    assert Fraction(config["rake"]["rate"]) == 0 and config["rake"]["source"]
    assert config["cut_card"]["source"].startswith("default:")
    assert 6 <= config["cut_card"]["cards_behind"] < config["shoe_cards"] - 30 * 6
    assert config["table_limit"]["source"].startswith("default:")
    for key, value in config.items():
        if isinstance(value, int) and key != "version":
            assert config["sources"].get(key), key
    assert set(config["spots"]) == {spot.value for spot in Spot}
    for name, spot in config["spots"].items():
        assert spot["source"].startswith("000_d16ad353ba467b8a.txt, 百家乐玩法规则介绍"), name
        assert spot["limits_source"].startswith("default:"), name
        assert 0 < spot["min"] <= spot["max"] <= config["table_limit"]["max_total_stake"]
        assert spot["min"] % config["stake_step"] == 0 == spot["max"] % config["stake_step"]
        # stated rule for the default maxima: no single win profits more than 5,000,000
        assert Fraction(spot["win"]) * spot["max"] <= 5_000_000, name
    assert config["spots"]["banker"]["push_on_tie"] is True
    assert config["spots"]["player"]["push_on_tie"] is True


def test_paytable_from_config_rejects_bad_configs() -> None:
    config = json.loads(CONFIG_PATH.read_text(encoding="utf-8"))
    with pytest.raises(ConfigError):
        paytable_from_config({})
    broken = json.loads(json.dumps(config))
    del broken["spots"]["banker"]["win_with_6"]
    with pytest.raises(ConfigError):
        paytable_from_config(broken)
    broken = json.loads(json.dumps(config))
    broken["spots"]["tie"]["win"] = "eight"
    with pytest.raises(ConfigError):
        paytable_from_config(broken)
    broken = json.loads(json.dumps(config))
    broken["spots"]["big"]["win"] = "-1/2"
    with pytest.raises(ConfigError):
        paytable_from_config(broken)


def test_formatted_table_has_six_decimals(odds8: BaccaratOdds) -> None:
    text = format_odds_table(odds8)
    for needle in ("0.458597", "0.446247", "0.095156", "0.985419", "0.700228", "8 decks"):
        assert needle in text
    for spot in Spot:
        assert spot.value in text
    assert "0.458597423" in format_odds_table(odds8, places=9)
    with pytest.raises(InvalidInput):
        format_odds_table(odds8, places=5)
