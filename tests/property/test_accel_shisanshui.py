"""十三水's automatic arrangement searched natively (``croupier._accel.shisanshui_split``,
through ``hands._best_normal``) against the pure search (``hands._search``) over the
same rows: every back with every middle of the cards left, the legal split of the
greatest (shares, back, middle, front), the first found among equals.

Pinned: over random 13-card hands, the native split is the pure one and the whole
arrangement is what the pure path arranges; over random rows of few values (so that
many splits tie on every part of the key, and only the order of the search decides),
the same masks, and over rows whose shares grow with their strengths (as every real
hand's do: the native search then passes over the backs and middles that cannot reach
the best total found) the same masks; rows it does not take (a value past 62 bits, a
share past 60, a bool, the wrong count) are left to the pure search (``None``). The
rows read natively (``shisanshui_best``, from shares bound once) split as the rows
``hands._rows`` reads; cards it does not take are left to Python, and shares it cannot
read are refused without unbinding the ones bound. Skipped, saying so, where the
extension is not built (CI requires it)."""

from __future__ import annotations

import random

import pytest

from croupier import accel
from croupier.cards import CARDS52
from croupier.games.poker.hands import card_codes
from croupier.games.shisanshui import hands

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)


def _pure(monkeypatch: pytest.MonkeyPatch, cards: tuple[str, ...]) -> hands.Arrangement:
    with monkeypatch.context() as m:
        m.setattr(hands, "_native", None)
        return hands._best_normal.__wrapped__(cards)  # type: ignore[attr-defined,no-any-return]


def _sorted(cards: list[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=lambda c: (hands._VAL[c[0]], c[1]), reverse=True))


def test_random_hands_arrange_as_the_pure_search(monkeypatch: pytest.MonkeyPatch) -> None:
    assert accel.native is not None
    rng = random.Random("十三水 split")
    pool = [c for c in CARDS52 if c[0] in "9TJQKA"]  # 24 cards: pairs, trips, flushes
    for n in range(120):
        cards = _sorted(rng.sample(CARDS52 if n % 2 else pool, 13))
        native = hands._best_normal.__wrapped__(cards)  # type: ignore[attr-defined]
        assert native == _pure(monkeypatch, cards), cards


@pytest.mark.parametrize("top", [1, 2, 3, 50])
def test_tied_rows_split_as_the_pure_search(top: int) -> None:
    """Rows of values up to ``top``: at 1 to 3 most splits tie on the whole key."""
    assert accel.native is not None
    rng = random.Random(f"ties {top}")
    legal = 0
    for _ in range(30):
        fives = [(rng.randint(0, top), rng.randint(0, top)) for _ in range(1287)]
        threes = [(rng.randint(0, top), rng.randint(0, top)) for _ in range(286)]
        legal += _splits_as_the_pure_search(fives, threes)
    assert legal > 20


def _splits_as_the_pure_search(fives: list[tuple[int, int]], threes: list[tuple[int, int]]) -> bool:
    """The native split of the rows is the pure search's; whether they have a legal
    split at all (real cards always do; random rows may not, and then neither finds one)."""
    assert accel.native is not None
    s5 = dict(zip(hands._FIVE_MASKS, fives, strict=True))
    s3 = dict(zip(hands._THREE_MASKS, threes, strict=True))
    got = accel.native.shisanshui_split(fives, threes)
    try:
        want = hands._search(s5, s3)
    except AssertionError:  # no legal split in these rows
        assert got is None
        return False
    assert got == want
    return True


@pytest.mark.parametrize(("top", "step"), [(2, 1), (3, 2), (6, 3), (60, 1), (60, 7)])
def test_rows_whose_shares_grow_with_strength_split_as_the_pure_search(top: int, step: int) -> None:
    """Rows as real cards give them, a share growing with its strength (here
    ``strength // step``: several strengths to a share), where the native search passes
    over backs and middles that cannot reach the best total: the same masks as the whole
    pure search, ties on every part of the key included."""
    assert accel.native is not None
    rng = random.Random(f"grow {top} {step}")
    legal = 0
    for _ in range(30):
        strengths = [rng.randint(0, top) for _ in range(1287)]
        fives = [(x, x // step) for x in strengths]
        threes = [(rng.randint(0, top), rng.randint(0, top)) for _ in range(286)]
        legal += _splits_as_the_pure_search(fives, threes)
    assert legal > 20


def test_equal_keys_go_to_the_first_split_of_the_pure_order() -> None:
    """Every split ties on the whole key at its best, once by a back of share 0 first in
    the pure order and once by backs of a greater share met first by a search that takes
    the greater shares first: the pure order's first still wins. (Every 5-card row of
    strength 1, each front of strength 0 and share 0; a row holding the last card
    shares 2, the others 0 — no two such rows are disjoint, so the best total is 2.)"""
    assert accel.native is not None
    fives = [(1, 2 if mask >> 12 & 1 else 0) for mask in hands._FIVE_MASKS]
    threes = [(0, 0)] * 286
    s5 = dict(zip(hands._FIVE_MASKS, fives, strict=True))
    s3 = dict(zip(hands._THREE_MASKS, threes, strict=True))
    want = hands._search(s5, s3)
    assert not want[2] >> 12 & 1  # the pure order's first: a back of share 0
    assert accel.native.shisanshui_split(fives, threes) == want


def test_rows_it_does_not_take_are_left_to_the_pure_search() -> None:
    assert accel.native is not None
    split = accel.native.shisanshui_split
    five, three = [(1, 1)] * 1287, [(1, 1)] * 286
    assert split(five, three) is not None
    for bad5, bad3 in [
        (five[:-1], three),
        (five, [*three, (1, 1)]),
        ([(1 << 62, 1), *five[1:]], three),
        (five, [(1, 1 << 60), *three[1:]]),
        ([(True, 1), *five[1:]], three),
        (five, [(1, -1), *three[1:]]),
        ([(1, 1, 1), *five[1:]], three),
        (tuple(five), three),
    ]:
        assert split(bad5, bad3) is None


def test_rows_read_natively_give_the_split_of_the_rows_read_in_python() -> None:
    """``shisanshui_best`` reads each row's strength and share itself (from the shares
    bound once): the split of the rows ``hands._rows`` reads, over random hands, half of
    them drawn from few suits (flushes, straight flushes)."""
    assert accel.native is not None
    rng = random.Random("十三水 rows read natively")
    pool = [c for c in CARDS52 if c[1] in "hs"]
    cards = _sorted(rng.sample(CARDS52, 13))
    assert hands._native_best(cards) is not None  # binds
    for n in range(80):
        cards = _sorted(rng.sample(pool if n % 2 else CARDS52, 13))
        want = accel.native.shisanshui_split(*hands._rows(cards))
        assert accel.native.shisanshui_best(*card_codes(cards)) == want, cards


def test_cards_the_native_reading_does_not_take_are_left_to_python() -> None:
    assert accel.native is not None
    hands._native_best(_sorted(CARDS52[:13]))  # binds
    ranks, suits = card_codes(CARDS52[:13])
    best = accel.native.shisanshui_best
    assert best(ranks, suits) is not None
    for r, s in [
        (ranks[:12], suits[:12]),  # twelve cards
        ([ranks[1], *ranks[1:]], [suits[1], *suits[1:]]),  # a card twice
        ([13, *ranks[1:]], suits),
        (ranks, [4, *suits[1:]]),
        ([True, *ranks[1:]], suits),
    ]:
        assert best(r, s) is None


@pytest.mark.parametrize(
    ("strengths", "shares", "fronts"),
    [
        ([1, 2], [1], [(0, 0)] * 13**3),  # a share short
        ([], [], [(0, 0)] * 13**3),
        ([2, 1], [1, 1], [(0, 0)] * 13**3),  # not ascending
        ([1, 1], [1, 1], [(0, 0)] * 13**3),
        ([1, 2], [1, 1 << 60], [(0, 0)] * 13**3),  # a share past 60 bits
        ([1, 2], [1, 1], [(0, 0)] * 100),  # fronts short
        ([1, 2], [1, 1], [(0, -1)] * 13**3),
    ],
)
def test_shares_that_cannot_be_read_are_not_bound(
    strengths: list[int], shares: list[int], fronts: list[tuple[int, int]]
) -> None:
    assert accel.native is not None
    cards = _sorted(CARDS52[13:26])
    hands._native_best(cards)  # binds
    before = accel.native.shisanshui_best(*card_codes(cards))
    with pytest.raises(ValueError, match=r"within 60 bits|as many shares"):
        accel.native.shisanshui_bind(strengths, shares, fronts)
    assert accel.native.shisanshui_best(*card_codes(cards)) == before  # what was bound
