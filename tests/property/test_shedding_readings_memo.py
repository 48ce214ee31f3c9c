"""A play's readings are remembered (``moves.readings``, a bounded memory keyed by the
cards in their order and the move rules): over random card sets under every variant's
rules, each answer equals a fresh reading (``moves._read``), as a new list a caller may
change without reaching the next answer, and other rules or another order of the same
cards are answered on their own terms."""

from __future__ import annotations

import random

from croupier.cards import CARDS54
from croupier.games.registry import engine
from croupier.games.shedding import moves

VARIANTS = ("doudizhu.classic", "doudizhu.doubling", "doudizhu.three", "shuangkou")


def _rules() -> list[moves.MoveRules]:
    out = []
    for v in VARIANTS:
        r = engine(v).rules.moves  # type: ignore[attr-defined]
        assert isinstance(r, moves.MoveRules)
        out.append(r)
    return out


def _cards(rng: random.Random) -> list[str]:
    deck = list(CARDS54) * 2
    n = rng.choice([1, 2, 3, 4, 4, 5, 6, 6, 8, 10, 12])
    if rng.random() < 0.5:  # clustered ranks: pairs, trios, bombs and chains are common
        ranks = rng.sample(range(13), rng.randint(1, 5))
        pool = [c for c in deck if c[0] in "3456789TJQKA2"[min(ranks) : max(ranks) + 3]]
        return rng.sample(pool or deck, min(n, len(pool or deck)))
    return rng.sample(deck, n)


def test_remembered_readings_equal_fresh_ones() -> None:
    rng = random.Random(5_2026)
    rules = _rules()
    legal = 0
    for _ in range(3_000):
        cards = _cards(rng)
        for r in rules:
            fresh = moves._read(list(cards), r)
            first = moves.readings(cards, r)
            assert first == fresh, (cards, r)
            first.append(moves.Shape(moves.Kind.SINGLE, 3, 1))  # the caller's own list
            again = moves.readings(list(cards), r)
            assert again == fresh and again is not first
            legal += bool(fresh)
        shuffled = list(cards)
        rng.shuffle(shuffled)
        for r in rules:
            assert moves.readings(shuffled, r) == moves._read(shuffled, r)
    assert legal > 1_000  # legal plays among those drawn
