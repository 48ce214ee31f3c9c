"""The Hold'em evaluator's tables, 5-card rows and 楚汉德州's run-outs counted natively
(``croupier._accel.poker_nonflush``, ``poker_flush``, ``poker_rows5``, ``poker_runout``)
against the pure functions of ``croupier.games.poker.hands`` and
``croupier.games.chuhan.probability``.

Pinned: the non-flush table (every multiset of 5, 6 and 7 ranks, 73,775 entries) and
the flush table (8,192 rank masks) are the pure tables entry for entry; ``rows5`` gives
``rank5`` of every 5 of n cards in ``combinations`` order, natively and on the pure
path, over random hands of 5 to 13 cards (flushes and straight flushes among them);
cards it does not take (a repeated card, a rank or suit out of range, too many or too
few) are left to the pure path (``None``), and a card off the deck is refused as
``rank5`` refuses it. The run-outs count each side's wins and the ties as the pure
enumeration does, after the flop, the turn and the river and once before the flop;
deals it does not take are left to the pure path. Skipped, saying so, where the
extension is not built (CI requires it); the refusal of a card off the deck is pinned
on both paths."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from croupier import accel
from croupier.cards import CARDS52
from croupier.errors import NotationError
from croupier.games.chuhan import probability
from croupier.games.poker import hands

needs_native = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)


@needs_native
def test_the_non_flush_table_is_the_pure_one() -> None:
    assert accel.native is not None
    pure: dict[int, int] = {}
    hands._fill_nonflush(pure)
    native = accel.native.poker_nonflush()
    assert len(native) == len(pure) == 73_775
    assert native == pure
    hands._ready()
    assert pure == hands._NONFLUSH  # what the evaluator reads


@needs_native
def test_the_flush_table_is_the_pure_one() -> None:
    assert accel.native is not None
    pure = [0] * 8192
    hands._fill_flush(pure)
    assert accel.native.poker_flush() == pure
    assert pure == hands._FLUSH


def _codes(cards: list[str]) -> tuple[list[int], list[int]]:
    return (
        [hands.RANK_ORDER.index(c[0]) for c in cards],
        [hands.SUIT_ORDER.index(c[1]) for c in cards],
    )


@needs_native
def test_rows5_reads_every_row_as_rank5(monkeypatch: pytest.MonkeyPatch) -> None:
    assert accel.native is not None
    rng = random.Random("rows5")
    hearts = [c for c in CARDS52 if c[1] == "h"]
    flushes = 0
    for n in range(300):
        size = 5 + n % 9
        # every third hand mostly one suit: flushes and straight flushes
        pool = hearts + rng.sample(CARDS52, 6) if n % 3 == 0 else CARDS52
        cards = rng.sample(sorted(set(pool)), size)
        want = [hands.rank5(five) for five in combinations(cards, 5)]
        flushes += sum(hands.category(s) >= hands.Category.FLUSH for s in want)
        assert accel.native.poker_rows5(*_codes(cards)) == want, cards
        assert hands.rows5(cards) == want
        with monkeypatch.context() as m:
            m.setattr(hands, "_native", None)
            assert hands.rows5(cards) == want
    assert flushes > 100


@needs_native
@pytest.mark.parametrize(
    ("ranks", "suits"),
    [
        ([0, 1, 2, 3, 3], [0, 0, 0, 0, 0]),  # a card twice
        ([0, 1, 2, 3, 13], [0, 0, 0, 0, 0]),  # no such rank
        ([0, 1, 2, 3, 4], [0, 0, 0, 0, 4]),  # no such suit
        ([0, 1, 2, 3, -1], [0, 0, 0, 0, 0]),
        ([0, 1, 2, 3], [0, 0, 0, 0]),  # four cards
        ([0, 1, 2, 3, 4], [0, 0, 0, 0]),  # counts differ
        ([*list(range(13)), 0, 1, 2, 3], [0] * 13 + [1] * 4),  # 17 cards
        ([0, 1, 2, 3, True], [0, 0, 0, 0, 0]),  # a bool is not a rank
        ([0, 1, 2, 3, 1 << 70], [0, 0, 0, 0, 0]),
    ],
)
def test_rows5_leaves_what_it_does_not_take(ranks: list[int], suits: list[int]) -> None:
    assert accel.native is not None
    assert accel.native.poker_rows5(ranks, suits) is None


@pytest.mark.parametrize("native", [True, False])
def test_rows5_refuses_a_card_off_the_deck(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not native:
        monkeypatch.setattr(hands, "_native", None)
    with pytest.raises(NotationError, match="'Xh' is not a card"):
        hands.rows5(["As", "Ks", "Qs", "Js", "Xh"])


@needs_native
@pytest.mark.parametrize("board", [3, 4, 5])
def test_runouts_count_as_the_pure_enumeration(board: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """楚汉德州's run-out odds (``probability._runout_odds``): natively counted, the pure
    enumeration's counts, over random deals after the flop, the turn and the river,
    flush-heavy ones among them."""
    rng = random.Random(f"runouts {board}")
    hearts = [c for c in CARDS52 if c[1] == "h"]
    for n in range(40):
        pool = sorted(set(hearts + rng.sample(CARDS52, 10))) if n % 2 else CARDS52
        cards = rng.sample(pool, 4 + board)
        chu, han, shown = tuple(cards[:2]), tuple(cards[2:4]), tuple(cards[4:])
        native = probability._runout_odds.__wrapped__(chu, han, shown)
        with monkeypatch.context() as m:
            m.setattr(probability, "_native", None)
            assert native == probability._runout_odds.__wrapped__(chu, han, shown), cards


@needs_native
def test_a_runout_before_the_flop_counts_as_the_pure_enumeration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every one of the 1,712,304 boards of two suited pairs (the pure path: ~2 s)."""
    chu, han = ("Ah", "Kh"), ("Qs", "Qd")
    native = probability._runout_odds.__wrapped__(chu, han, ())
    assert native.runouts == 1_712_304
    with monkeypatch.context() as m:
        m.setattr(probability, "_native", None)
        assert native == probability._runout_odds.__wrapped__(chu, han, ())


@needs_native
@pytest.mark.parametrize(
    ("cards", "n_chu", "n_han"),
    [
        (["As", "Ks", "Qs", "Qd", "2c", "3c", "As"], 2, 2),  # a card twice
        (["As", "Ks", "Qs", "Qd", "Jd", "2c", "3c", "4c"], 3, 2),  # three hole cards
        (["As", "Ks", "Qs", "Qd", "2c", "3c", "4c", "5c", "6c", "7c"], 2, 2),  # six shown
        (["As", "Ks", "Qs"], 2, 2),  # fewer cards than the holes
    ],
)
def test_runouts_it_does_not_take_are_left_to_the_pure_path(
    cards: list[str], n_chu: int, n_han: int
) -> None:
    assert accel.native is not None
    assert accel.native.poker_runout(*hands.card_codes(cards), n_chu, n_han) is None
