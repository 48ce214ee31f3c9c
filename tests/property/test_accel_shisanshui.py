"""十三水's automatic arrangement searched natively (``croupier._accel.shisanshui_split``,
through ``hands._best_normal``) against the pure search (``hands._search``) over the
same rows: every back with every middle of the cards left, the legal split of the
greatest (shares, back, middle, front), the first found among equals.

Pinned: over random 13-card hands, the native split is the pure one and the whole
arrangement is what the pure path arranges; over random rows of few values (so that
many splits tie on every part of the key, and only the order of the search decides),
the same masks; rows it does not take (a value past 62 bits, a share past 60, a bool,
the wrong count) are left to the pure search (``None``). Skipped, saying so, where the
extension is not built (CI requires it)."""

from __future__ import annotations

import random

import pytest

from croupier import accel
from croupier.cards import CARDS52
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
        s5 = dict(zip(hands._FIVE_MASKS, fives, strict=True))
        s3 = dict(zip(hands._THREE_MASKS, threes, strict=True))
        got = accel.native.shisanshui_split(fives, threes)
        try:
            want = hands._search(s5, s3)
        except AssertionError:  # no legal split in these rows (real cards always have one)
            assert got is None
            continue
        assert got == want
        legal += 1
    assert legal > 20


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
