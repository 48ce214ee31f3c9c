"""A hand without wilds or limits is judged suit by suit (``win._std_plain``, each
suit's nine counts remembered): the same answer as the general search (``win._std``)
over every hand drawn here — built wins (sets and a pair, honours among them), wins with
a tile changed, added or taken, and arbitrary counts of every size a hand can have —
and ``Shape.standard`` takes that path exactly when there are no wilds and no limits."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.games.mahjong import win
from croupier.games.mahjong.tiles import N_TILES
from croupier.games.mahjong.win import NO_LIMITS, ZERO_CAPS, Limits, Shape


def _general(c: tuple[int, ...]) -> bool:
    return win._std(c, 0, False, ZERO_CAPS, NO_LIMITS)


def _built(rng: random.Random, sets: int) -> list[int]:
    """Counts of ``sets`` random sets and a pair, no tile past four copies (or fewer
    when the draw fails to fit)."""
    c = [0] * N_TILES
    for _ in range(sets):
        for _try in range(20):
            if rng.random() < 0.5:  # a 顺子 in a suit
                start = rng.randrange(3) * 9 + rng.randrange(7)
                run = (start, start + 1, start + 2)
                if all(c[t] < 4 for t in run):
                    for t in run:
                        c[t] += 1
                    break
            else:
                t = rng.randrange(N_TILES)
                if c[t] <= 1:
                    c[t] += 3
                    break
    for _try in range(20):
        t = rng.randrange(N_TILES)
        if c[t] <= 2:
            c[t] += 2
            break
    return c


def test_built_wins_and_their_neighbours_agree() -> None:
    rng = random.Random(20261207)
    wins = 0
    for _ in range(6_000):
        sets = rng.choice([0, 1, 2, 3, 4, 4, 4])
        c = _built(rng, sets)
        cases = [c]
        # one tile changed, added or taken: near misses and other wins
        for _k in range(3):
            d = list(c)
            held = [t for t in range(N_TILES) if d[t]]
            op = rng.random()
            if op < 0.4 and held:
                d[rng.choice(held)] -= 1
                t = rng.randrange(N_TILES)
                d[t] = min(4, d[t] + 1)
            elif op < 0.7:
                t = rng.randrange(N_TILES)
                d[t] = min(4, d[t] + 1)
            elif held:
                d[rng.choice(held)] -= 1
            cases.append(d)
        for d in cases:
            t = tuple(d)
            got = win._std_plain(t)
            assert got == _general(t), t
            wins += got
    assert wins > 3_000  # the built hands are mostly wins: both answers are exercised


@st.composite
def counts(draw: Any) -> tuple[int, ...]:
    n = draw(st.sampled_from([2, 5, 8, 11, 14, 3, 13]))
    base = draw(st.integers(0, N_TILES - 9))
    pool = st.one_of(st.integers(base, base + 8), st.integers(0, N_TILES - 1))
    c = [0] * N_TILES
    for t in draw(st.lists(pool, min_size=n, max_size=n)):
        if c[t] < 4:
            c[t] += 1
    return tuple(c)


@settings(max_examples=3_000)
@given(counts())
def test_arbitrary_counts_agree(c: tuple[int, ...]) -> None:
    assert win._std_plain(c) == _general(c)


def test_the_path_is_taken_only_without_wilds_or_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    hand = Shape.of([0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 27, 27, 31, 31])
    calls: list[int] = []
    real = win._std

    def general(*a: Any) -> bool:
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(win, "_std", general)
    assert hand.standard()
    assert calls == []
    assert hand.standard(Limits(pungs_only=True)) is False
    assert calls
    calls.clear()
    assert Shape.of([0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 27, 27, 31], wilds=1).standard()
    assert calls
