"""A hand without wilds or limits is judged suit by suit (``win._std_plain``, each
suit's nine counts remembered): the same answer as the general search (``win._std``)
over every hand drawn here — built wins (sets and a pair, honours among them), wins with
a tile changed, added or taken, and arbitrary counts of every size a hand can have —
and ``Shape.standard`` takes that path exactly when there are no wilds and no limits.
Without wilds, a limited question (the fan patterns': only 刻子, only some tiles, 幺九
in every set; ``standard_with`` a given 刻子 and pair) is asked of each of the hand's
decompositions (``win._plain_parts``, remembered by the counts) instead of a search of
its own. A hand with wilds is refused at once when even wilds free of every cap could
not complete it (``win._wilds_needed``, a lower bound of what the search needs): over
built wins with tiles turned into wilds, random hands, exposed melds and every kind of
limit, ``Shape.standard`` and ``Shape.standard_with`` answer as the general search
alone does."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.games.mahjong import win
from croupier.games.mahjong.tiles import N_TILES
from croupier.games.mahjong.win import NO_LIMITS, ZERO_CAPS, Limits, Shape

LIMITS = [
    NO_LIMITS,
    Limits(pungs_only=True),
    Limits(yaojiu_sets=True),
    Limits(allowed=frozenset(range(9))),  # one suit only (清一色)
    Limits(allowed=frozenset(range(9)) | frozenset(range(27, N_TILES))),
    Limits(pungs_only=True, allowed=frozenset(range(27, N_TILES))),
]


def _general_standard(shape: Shape, limits: Limits) -> bool:
    """``Shape.standard`` as the general search alone answers it."""
    if not shape.complete():
        return False
    if limits.allowed is not None and any(t not in limits.allowed for t in shape.melds):
        return False
    if limits.yaojiu_sets and not all(win.is_terminal_or_honour(t) for t in shape.melds):
        return False
    return win._std(shape.concealed, shape.wilds, False, shape.caps(), limits)


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

    parts: list[int] = []
    decompose = win._plain_parts

    def decomposed(c: Any) -> Any:
        parts.append(1)
        return decompose(c)

    monkeypatch.setattr(win, "_std", general)
    monkeypatch.setattr(win, "_plain_parts", decomposed)
    assert hand.standard()
    assert calls == [] and parts == []
    assert hand.standard(Limits(pungs_only=True)) is False
    assert hand.standard_with([27], 31)
    assert calls == [] and len(parts) == 2  # without wilds: its decompositions
    assert Shape.of([0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 27, 27, 31], wilds=1).standard()
    assert calls and len(parts) == 2


def test_hands_with_wilds_melds_and_limits_answer_as_the_search_alone() -> None:
    rng = random.Random(7_2026)
    wins = refused = 0
    for _ in range(4_000):
        melds = [rng.randrange(N_TILES) for _ in range(rng.choice([0, 0, 0, 1, 2]))]
        c = _built(rng, 4 - len(melds))
        # some tiles become wilds (鬼牌), some hands lose or gain a tile
        wilds = 0
        for _k in range(rng.choice([0, 1, 1, 2, 3, 4])):
            held = [t for t in range(N_TILES) if c[t]]
            if held:
                c[rng.choice(held)] -= 1
                wilds += 1
        if rng.random() < 0.4:
            held = [t for t in range(N_TILES) if c[t]]
            if held:
                c[rng.choice(held)] -= 1
            t = rng.randrange(N_TILES)
            c[t] = min(4, c[t] + 1)
        for t in melds:
            c[t] = min(c[t], 1)  # no tile past four copies with its 刻子 exposed
        shape = Shape(tuple(c), wilds, tuple(melds), tuple(3 for _ in melds))
        for limits in LIMITS:
            want = _general_standard(shape, limits)
            assert shape.standard(limits) == want, (shape, limits)
            wins += want
        if wilds and win._wilds_needed(shape.concealed) > wilds:
            refused += 1
        if _general_standard(shape, NO_LIMITS):
            assert win._wilds_needed(shape.concealed) <= wilds, shape  # a lower bound
    assert wins > 1_000 and refused > 200  # both answers, and the early refusal, exercised


def _general_with(shape: Shape, pungs: list[int], pair: int | None, limits: Limits) -> bool:
    """``Shape.standard_with`` as the general search answers it: the 刻子 and the pair
    taken out of the concealed tiles (an exposed meld counts for its 刻子), the rest
    searched within the limits."""
    if not _general_standard(shape, limits):
        return False
    for t in (*pungs, *([] if pair is None else [pair])):
        if not win._allowed(t, limits) or (limits.yaojiu_sets and not win.is_terminal_or_honour(t)):
            return False
    c = list(shape.concealed)
    for t in pungs:
        if t not in shape.melds:
            if c[t] < 3:
                return False
            c[t] -= 3
    if pair is not None:
        if c[pair] < 2:
            return False
        c[pair] -= 2
    return win._std(tuple(c), 0, pair is not None, ZERO_CAPS, limits)


def test_wins_without_wilds_hold_a_given_pung_and_pair_as_the_search_finds() -> None:
    """The fan patterns' 三元/四喜 questions and random ones, over built wins (honours
    and 刻子 among them, melds exposed) and their neighbours, under every limit."""
    rng = random.Random("standard_with")
    held = 0
    for _ in range(1_500):
        melds = [rng.randrange(N_TILES) for _ in range(rng.choice([0, 0, 1, 2]))]
        c = _built(rng, 4 - len(melds))
        for t in melds:
            c[t] = min(c[t], 1)
        if rng.random() < 0.3:
            c[rng.randrange(N_TILES)] += 1
            c[next(t for t in range(N_TILES) if c[t])] -= 1
        shape = Shape(tuple(c), 0, tuple(melds), tuple(3 for _ in melds))
        tiles = [t for t in range(N_TILES) if c[t] >= 2 or t in melds] or [0]
        questions: list[tuple[list[int], int | None]] = [
            ([31, 32, 33], None),
            ([31, 32], 33),
            ([27, 28, 29, 30], None),
            ([27, 28, 29], 30),
            (rng.sample(tiles, min(2, len(tiles))), None),
            (rng.sample(tiles, 1), rng.choice(tiles)),
            ([], rng.choice(tiles)),
        ]
        for pungs, pair in questions:
            for limits in LIMITS:
                want = _general_with(shape, pungs, pair, limits)
                assert shape.standard_with(pungs, pair, limits) == want, (shape, pungs, pair)
                held += want
    assert held > 500


@settings(max_examples=2_000)
@given(counts(), st.integers(0, 4), st.sampled_from(LIMITS))
def test_arbitrary_hands_with_wilds_answer_as_the_search_alone(
    c: tuple[int, ...], wilds: int, limits: Limits
) -> None:
    d = list(c)
    for _ in range(wilds):  # the wilds replace tiles, so the count stays a hand's
        held = [t for t in range(N_TILES) if d[t]]
        if held:
            d[held[0]] -= 1
    shape = Shape(tuple(d), wilds)
    assert shape.standard(limits) == _general_standard(shape, limits)


@given(
    st.lists(st.integers(0, 4), min_size=N_TILES, max_size=N_TILES),
    st.integers(0, 6),
    st.lists(st.tuples(st.integers(0, N_TILES - 1), st.sampled_from([3, 4])), max_size=4),
)
def test_a_shapes_tile_count_and_odd_counts(
    counts: list[int], wilds: int, melds: list[tuple[int, int]]
) -> None:
    """``n_concealed`` is worked out once, at construction (and again for each tile or
    wild a shape gains); the odd counts of seven pairs are read by value, as the sum of
    each count's parity."""
    shape = Shape(tuple(counts), wilds, tuple(t for t, _ in melds), tuple(n for _, n in melds))
    assert shape.n_concealed == sum(counts) + wilds
    assert shape.add(None).n_concealed == shape.add(5).n_concealed == shape.n_concealed + 1
    assert win._odd_counts(shape.concealed) == sum(n % 2 for n in counts)
    want = not melds and shape.n_concealed == 14 and sum(n % 2 for n in counts) <= wilds
    assert shape.seven_pairs() is want
    assert Shape(tuple(counts), wilds) == Shape(tuple(counts), wilds)


def test_odd_counts_past_four_copies_fall_back_to_parity() -> None:
    counts = (5, 7, 6, 1) + (0,) * (N_TILES - 4)
    assert win._odd_counts(counts) == 3
