"""The 斗地主 move engine: detection of every move type of 000 斗地主 1.3.1 / 004 三人斗地主
6、牌型, ambiguous readings, illegal shapes, comparison (000 1.3.2, 004 7、牌型的大小), and
the legal-move generator checked against the detector."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from croupier.cards import CARDS54
from croupier.errors import ActionRejected
from croupier.games.shedding.generator import choose, legal_moves
from croupier.games.shedding.moves import (
    CLASSIC,
    Kind,
    MoveRules,
    Shape,
    beats,
    check_play,
    holds,
    parse_shape,
    readings,
    value_of,
)

THREE = MoveRules(chain_key="highest")


def R(text: str) -> list[Shape]:
    return readings(text.split())


def S(kind: Kind, rank: str, length: int = 1) -> Shape:
    return Shape(kind, value_of(rank + "s" if rank not in ("BJ", "RJ") else rank), length)


@pytest.mark.parametrize(
    ("cards", "want"),
    [
        ("BJ RJ", [S(Kind.ROCKET, "RJ")]),
        ("2s 2h 2d 2c", [S(Kind.BOMB, "2")]),
        ("7h", [S(Kind.SINGLE, "7")]),
        ("RJ", [S(Kind.SINGLE, "RJ")]),
        ("Ks Kh", [S(Kind.PAIR, "K")]),
        ("Ks Kh Kd", [S(Kind.TRIO, "K")]),
        ("Ks Kh Kd 5s", [S(Kind.TRIO_SINGLE, "K")]),
        ("Ks Kh Kd 5s 5h", [S(Kind.TRIO_PAIR, "K")]),
        ("3s 4h 5d 6c 7s", [S(Kind.STRAIGHT, "3", 5)]),
        ("Ts Jh Qd Kc As", [S(Kind.STRAIGHT, "T", 5)]),
        ("3s 3h 4s 4h 5s 5h", [S(Kind.PAIR_STRAIGHT, "3", 3)]),
        ("Qs Qh Ks Kh As Ah", [S(Kind.PAIR_STRAIGHT, "Q", 3)]),
        ("3s 3h 3d 4s 4h 4d", [S(Kind.TRIO_STRAIGHT, "3", 2)]),
        ("Ks Kh Kd As Ah Ad", [S(Kind.TRIO_STRAIGHT, "K", 2)]),
        ("3s 3h 3d 4s 4h 4d 5s 6s", [S(Kind.AIRPLANE_SINGLES, "3", 2)]),
        ("3s 3h 3d 4s 4h 4d 5s 5h 6s 6h", [S(Kind.AIRPLANE_PAIRS, "3", 2)]),
        (
            "3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 8s 8h 9s 9h",
            [S(Kind.AIRPLANE_PAIRS, "3", 3)],
        ),
        ("5s 5h 5d 5c 3s 4s", [S(Kind.FOUR_TWO_SINGLES, "5")]),
        ("5s 5h 5d 5c 3s 3h 4s 4h", [S(Kind.FOUR_TWO_PAIRS, "5")]),
    ],
)
def test_every_move_type_of_the_seed_is_detected(cards: str, want: list[Shape]) -> None:
    assert R(cards) == want


@pytest.mark.parametrize(
    ("cards", "want"),
    [
        # the example: a 三顺 of four, or an airplane of three with single wings
        (
            "3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 6d",
            {
                S(Kind.TRIO_STRAIGHT, "3", 4),
                S(Kind.AIRPLANE_SINGLES, "3", 3),
                S(Kind.AIRPLANE_SINGLES, "4", 3),
            },
        ),
        # two fours: 四带二 of either four with the other as two pairs
        ("5s 5h 5d 5c 6s 6h 6d 6c", {S(Kind.FOUR_TWO_PAIRS, "5"), S(Kind.FOUR_TWO_PAIRS, "6")}),
        # 5555+33: two single kickers that happen to pair up
        ("5s 5h 5d 5c 3s 3h", {S(Kind.FOUR_TWO_SINGLES, "5")}),
        # 333444+5566 is an airplane with pair wings; and with four singles? no: 8 != 10
        ("3s 3h 3d 4s 4h 4d 5s 5h", {S(Kind.AIRPLANE_SINGLES, "3", 2)}),
        # a 6-card straight is also never a 双顺
        ("3s 4s 5s 6s 7s 8s", {S(Kind.STRAIGHT, "3", 6)}),
    ],
)
def test_ambiguous_cards_give_every_reading(cards: str, want: set[Shape]) -> None:
    assert set(R(cards)) == want


@pytest.mark.parametrize(
    "cards",
    [
        "Js Qs Ks As 2s",  # through 2
        "Ks As 2s 3s 4s",  # wraps round
        "Ts Js Qs Ks As BJ",  # with a joker
        "3s 4s 5s 6s",  # four cards
        "3s 5s 6s 7s 8s",  # a gap
        "3s 3h 4s 4h",  # two pairs only
        "Ks Kh As Ah 2s 2h",  # pair straight through 2
        "As Ah Ad 2s 2h 2d",  # trio straight through 2
        "3s 3h 3d 3c 4s",  # a bomb with one card
        "5s 5h 5d 5c 3s 3h 4s",  # four with three
        "3s 3h 3d 4s 4h 4d 5s 5h 6s",  # airplane with mixed wings
        "3s 3h 3d 5s 5h 5d 6s 7s",  # airplane of trios not in a row
        "3s 3h 3d 4s 4h 4d 3c 6s",  # wing of the body's rank
        "2s 2h 2d As Ah Ad 5s 6s",  # airplane through 2
        "Qs Kh",
        "",
    ],
)
def test_illegal_shapes_read_as_nothing(cards: str) -> None:
    assert R(cards) == []


def test_comparison() -> None:
    rocket, bomb2, bomb3 = S(Kind.ROCKET, "RJ"), S(Kind.BOMB, "2"), S(Kind.BOMB, "3")
    single2, single_a = S(Kind.SINGLE, "2"), S(Kind.SINGLE, "A")
    assert beats(rocket, bomb2) and not beats(bomb2, rocket) and not beats(rocket, rocket)
    assert beats(bomb3, single2) and beats(bomb2, bomb3) and not beats(bomb3, bomb2)
    assert beats(single2, single_a) and not beats(single_a, single2)
    assert beats(S(Kind.SINGLE, "RJ"), S(Kind.SINGLE, "BJ"))
    # 777+9 < 888+Q (000 1.3.2): only the trio counts
    assert beats(S(Kind.TRIO_SINGLE, "8"), S(Kind.TRIO_SINGLE, "7"))
    # same kind, same size only
    assert not beats(S(Kind.TRIO_PAIR, "8"), S(Kind.TRIO_SINGLE, "7"))
    assert not beats(S(Kind.STRAIGHT, "4", 6), S(Kind.STRAIGHT, "3", 5))
    assert beats(S(Kind.STRAIGHT, "4", 5), S(Kind.STRAIGHT, "3", 5))  # 34567 < 45678
    # the seed's own example, 000 1.3.2: 34567 < 56789
    low, high = R("3s 4h 5d 6c 7s"), R("5s 6h 7d 8c 9s")
    assert beats(high[0], low[0]) and not beats(low[0], high[0])
    assert not beats(S(Kind.PAIR, "4"), S(Kind.SINGLE, "3"))
    assert not beats(S(Kind.FOUR_TWO_SINGLES, "9"), S(Kind.BOMB, "3"))  # 四带二 is no bomb
    assert beats(S(Kind.BOMB, "3"), S(Kind.FOUR_TWO_PAIRS, "A"))


def test_chains_compare_the_same_by_highest_card_as_by_lowest() -> None:
    """004 compares 顺牌 by the highest card, 000 by the first: at one length they agree."""
    kinds = (Kind.STRAIGHT, Kind.PAIR_STRAIGHT, Kind.AIRPLANE_SINGLES, Kind.AIRPLANE_PAIRS)
    n = 0
    for kind in kinds:
        for length in range(2, 8):
            for a in range(3, 15 - length + 1):
                for b in range(3, 15 - length + 1):
                    x, y = Shape(kind, a, length), Shape(kind, b, length)
                    assert beats(x, y, CLASSIC) == beats(x, y, THREE)
                    n += 1
    assert n > 500


def test_check_play_errors_are_precise() -> None:
    with pytest.raises(ActionRejected) as e:
        check_play(["Js", "Qs", "Ks", "As", "2s"], S(Kind.STRAIGHT, "J", 5), None)
    assert e.value.reason == "illegal_move"
    cards = ["3s", "3h", "3d", "4s", "4h", "4d", "5s", "5h", "5d", "6s", "6h", "6d"]
    with pytest.raises(ActionRejected) as e:
        check_play(cards, S(Kind.AIRPLANE_SINGLES, "5", 3), None)
    assert e.value.reason == "wrong_reading" and "trio_straight:3x4" in e.value.message
    check_play(cards, S(Kind.AIRPLANE_SINGLES, "4", 3), None)
    with pytest.raises(ActionRejected) as e:
        check_play(["3s"], S(Kind.SINGLE, "3"), S(Kind.SINGLE, "3"))
    assert e.value.reason == "does_not_beat"
    shape = parse_shape({"move": "airplane_singles", "rank": "4"}, 12)
    assert shape == S(Kind.AIRPLANE_SINGLES, "4", 3)
    for bad in ({"move": "fish", "rank": "4"}, {"move": "pair", "rank": "1"}, {"move": "pair"}):
        with pytest.raises(ActionRejected) as e:
            parse_shape(bad, 2)
        assert e.value.reason == "bad_move"
    with pytest.raises(ActionRejected) as e:
        parse_shape({"move": "fish", "rank": "4"}, 2)
    assert e.value.message.endswith("'fish' is not a valid Kind")  # the enum's own words
    for kind in Kind:  # every move found by its name
        assert parse_shape({"move": kind.value, "rank": "5"}, 5).kind is kind


def test_holds_is_the_multiset_difference() -> None:
    rng = random.Random("holds")
    for _ in range(2_000):
        hand = rng.sample(list(CARDS54) * 2, rng.randint(0, 27))
        cards = rng.sample(list(CARDS54) * 2, rng.randint(1, 8))
        if rng.random() < 0.5:
            cards = rng.sample(hand, min(len(hand), len(cards))) or cards
        assert holds(hand, cards) is not bool(Counter(cards) - Counter(hand)), (hand, cards)


def _hand(rng: random.Random, n: int) -> list[str]:
    return rng.sample(list(CARDS54), n)


def test_every_generated_move_reads_as_declared_and_beats_the_table() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        hand = _hand(rng, rng.choice((5, 10, 17, 20)))
        leads = legal_moves(hand, None)
        assert leads, "a hand always has a lead"
        table = rng.choice(leads).shape
        for table_shape in (None, table):
            for p in legal_moves(hand, table_shape):
                assert not Counter(p.cards) - Counter(hand)
                check_play(p.cards, p.shape, table_shape)
                checked += 1
    assert checked > 5000


def test_the_generator_finds_every_reading_of_a_whole_hand() -> None:
    """Oracle: the generator's moves that use all of a small set of cards are exactly the
    detector's readings (as shapes), for sets built from random moves."""
    rng = random.Random(11)
    for _ in range(400):
        hand = _hand(rng, rng.choice((8, 12, 16)))
        for p in rng.sample(legal_moves(hand, None), 5):
            cards = list(p.cards)
            whole = {q.shape for q in legal_moves(cards, None) if len(q.cards) == len(cards)}
            assert whole == set(readings(cards)), cards


def test_the_automatic_choice() -> None:
    hand = ["3s", "3h", "4s", "9d", "9c", "9h", "Ks", "BJ", "RJ"]
    lead = choose(hand, None)
    assert lead is not None and lead.shape == S(Kind.PAIR, "3")  # the lowest rank, longest
    assert lead.cards == ("3s", "3h")
    follow = choose(hand, S(Kind.SINGLE, "T"))
    assert follow is not None and follow.shape == S(Kind.SINGLE, "K")
    assert choose(hand, S(Kind.SINGLE, "T"), partner_on_table=True) is None
    assert choose(hand, S(Kind.BOMB, "3")) is None  # the rocket is kept ...
    bombed = choose(hand, S(Kind.BOMB, "3"), opponent_cards_left=2)  # ... unless needed
    assert bombed is not None and bombed.shape.kind is Kind.ROCKET
    out = choose(["5s", "5h"], S(Kind.PAIR, "4"), partner_on_table=True)
    assert out is not None and out.shape == S(Kind.PAIR, "5")  # going out beats passing
