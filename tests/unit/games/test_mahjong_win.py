"""Mahjong win detection and listening (croupier.games.mahjong.win), cross-checked
against a brute-force search that substitutes every possible tile for every wild tile
(never a fifth copy) and checks the result with a plain recursive decomposition, on
many random hands - near-wins built from sets, with exposed melds and 0-3 wilds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement

import pytest

from croupier.errors import NotationError
from croupier.games.mahjong.tiles import (
    ORPHANS,
    ghost_of,
    parse_tiles,
    tile_index,
    tile_name,
)
from croupier.games.mahjong.win import Forms, Limits, Shape

ALL = Forms(seven_pairs=True, thirteen_orphans=True)


# -- the oracle ------------------------------------------------------------------------
@cache
def _plain(c: tuple[int, ...], pair_done: bool) -> bool:
    """Sets and one pair, no wilds: the textbook recursion."""
    i = next((k for k in range(34) if c[k]), -1)
    if i < 0:
        return pair_done
    lst = list(c)
    if c[i] >= 3:
        lst[i] -= 3
        if _plain(tuple(lst), pair_done):
            return True
        lst[i] += 3
    if c[i] >= 2 and not pair_done:
        lst[i] -= 2
        if _plain(tuple(lst), True):
            return True
        lst[i] += 2
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        lst[i] -= 1
        lst[i + 1] -= 1
        lst[i + 2] -= 1
        if _plain(tuple(lst), pair_done):
            return True
    return False


def _plain_win(c: Sequence[int], n_melds: int, forms: Forms) -> bool:
    if sum(c) + 3 * n_melds != 14:
        return False
    if _plain(tuple(c), False):
        return True
    if forms.seven_pairs and not n_melds and all(n % 2 == 0 for n in c):
        return True
    if forms.thirteen_orphans and not n_melds:
        return all(c[t] >= 1 for t in ORPHANS) and not any(
            c[t] for t in range(34) if t not in ORPHANS
        )
    return False


def brute_win(shape: Shape, forms: Forms = ALL) -> bool:
    totals = shape.real_totals()
    for sub in combinations_with_replacement(range(34), shape.wilds):
        c = list(shape.concealed)
        ok = True
        for t in sub:
            c[t] += 1
            if totals[t] + sub.count(t) > 4:
                ok = False
                break
        if ok and _plain_win(c, len(shape.melds), forms):
            return True
    return False


def brute_waits(shape: Shape, forms: Forms = ALL) -> list[int]:
    totals = shape.real_totals()
    return [t for t in range(34) if totals[t] < 4 and brute_win(shape.add(t), forms)]


# -- random hands ----------------------------------------------------------------------
def random_shape(rng: random.Random, size: int, wilds: int) -> Shape:
    """A hand of ``size`` concealed tiles (14 or 13 with melds) built mostly from sets,
    then perturbed, then ``wilds`` of its tiles turned wild."""
    pool = [4] * 34
    tiles: list[int] = []
    melds: list[tuple[int, int]] = []
    n_melds = rng.choice([0, 0, 0, 1, 2])
    while len(melds) < n_melds:
        t = rng.randrange(34)
        if pool[t] >= 3:
            size_ = 4 if rng.random() < 0.3 and pool[t] == 4 else 3
            pool[t] -= size_
            melds.append((t, size_))
    want = 14 - 3 * n_melds - (14 - size)
    while len(tiles) < want:
        r = rng.random()
        t = rng.randrange(34)
        if r < 0.35 and t < 27 and t % 9 <= 6 and all(pool[t + k] for k in range(3)):
            group = [t, t + 1, t + 2]
        elif r < 0.6 and pool[t] >= 3:
            group = [t] * 3
        elif r < 0.85 and pool[t] >= 2:
            group = [t] * 2
        elif pool[t]:
            group = [t]
        else:
            continue
        group = group[: want - len(tiles)]
        for x in group:
            pool[x] -= 1
        tiles += group
    if rng.random() < 0.3:  # perturb one tile
        i = rng.randrange(len(tiles))
        t = rng.randrange(34)
        if pool[t]:
            pool[tiles[i]] += 1
            pool[t] -= 1
            tiles[i] = t
    rng.shuffle(tiles)
    return Shape.of(tiles[wilds:], wilds=wilds, melds=melds)


@pytest.mark.parametrize(("wilds", "n"), [(0, 600), (1, 300), (2, 120), (3, 25)])
def test_win_detection_matches_brute_force(wilds: int, n: int) -> None:
    rng = random.Random(7000 + wilds)
    wins = 0
    for _ in range(n):
        s = random_shape(rng, 14, wilds)
        assert s.is_win(ALL) == brute_win(s), s
        wins += s.is_win(ALL)
    assert 0.1 * n < wins < 0.95 * n  # the sample holds wins and non-wins


@pytest.mark.parametrize(("wilds", "n"), [(0, 200), (1, 40), (2, 8)])
def test_waits_match_brute_force(wilds: int, n: int) -> None:
    rng = random.Random(8000 + wilds)
    listening = 0
    for _ in range(n):
        s = random_shape(rng, 13, wilds)
        got = s.waits(range(34), ALL)
        assert got == brute_waits(s), s
        listening += bool(got)
    assert listening > n // 10


def test_the_nine_gates_wait_on_every_tile_of_the_suit() -> None:
    s = Shape.of(parse_tiles("1112345678999m"))
    assert s.waits(range(34)) == list(range(9))


def test_thirteen_orphans_waits_thirteen_ways_only_where_allowed() -> None:
    s = Shape.of(parse_tiles("19m19p19s1234567z"))
    assert s.waits(range(34), ALL) == list(ORPHANS)
    assert s.waits(range(34), Forms(seven_pairs=True, thirteen_orphans=False)) == []


def test_seven_pairs_count_four_of_a_kind_as_two_pairs() -> None:
    s = Shape.of(parse_tiles("11112233557799m"))
    assert s.seven_pairs() and s.seven_pairs_quads() == 1 and not s.standard()
    assert s.is_win() and not s.is_win(Forms(seven_pairs=False))
    assert Shape.of(parse_tiles("1133557799m22p4s")).waits(range(27)) == [tile_index("4s")]
    # 2 wilds may turn a pair into four of a kind (豪华七对)
    assert Shape.of(parse_tiles("113355779m"), wilds=5).seven_pairs_quads() >= 1


def test_a_wild_is_never_a_fifth_copy() -> None:
    melds = [(30, 3), (31, 3), (32, 3)]
    four = Shape.of(parse_tiles("1111m"), wilds=1, melds=melds)
    # 111m + (1m, wild) or (11m) + (11m, wild): the wild would be a fifth 1m
    assert not four.is_win() and not brute_win(four)
    three = Shape.of(parse_tiles("111m2m"), wilds=1, melds=melds)
    assert three.is_win() and brute_win(three)  # 111m + 2m-wild as 22m


def test_all_wilds_and_single_ghost_waits() -> None:
    melds = [(0, 3), (9, 3), (18, 3), (27, 3)]
    alone = Shape.of([], wilds=1, melds=melds)
    # anything but a tile already held three times in a 碰: the wild would be a fifth
    assert alone.waits(range(34)) == [t for t in range(34) if t not in (0, 9, 18, 27)]
    assert alone.waits(range(34)) == brute_waits(alone)
    assert Shape.of([], wilds=2, melds=melds).is_win()
    assert Shape.of(parse_tiles("5m"), wilds=1, melds=melds).is_win()


def test_limits_restrict_the_sets() -> None:
    pungs = Shape.of(parse_tiles("111222333m444p55s"))
    assert pungs.standard(Limits(pungs_only=True))
    chows = Shape.of(parse_tiles("123m456p789s123s55m"))
    assert chows.standard() and not chows.standard(Limits(pungs_only=True))
    yj = Shape.of(parse_tiles("123m789m123p999s11s"))
    assert yj.standard(Limits(yaojiu_sets=True))
    assert not chows.standard(Limits(yaojiu_sets=True))
    honours = Shape.of(parse_tiles("111222333444z55z"))
    assert honours.standard(Limits(allowed=frozenset(range(27, 34))))
    assert honours.standard_with((27, 28, 29, 30), None)
    assert not chows.standard_with((27,), None)


def test_tile_notation_and_ghost_order() -> None:
    assert [tile_name(i) for i in parse_tiles("19m 5p 7s 1z7z")] == [
        "1m",
        "9m",
        "5p",
        "7s",
        "1z",
        "7z",
    ]
    assert tile_name(ghost_of(tile_index("9m"))) == "1m"
    assert tile_name(ghost_of(tile_index("3s"))) == "4s"
    # 东南西北中发白: 4z -> 7z (中), 7z -> 6z (发), 6z -> 5z (白), 5z -> 1z (东)
    assert [tile_name(ghost_of(tile_index(t))) for t in ("4z", "7z", "6z", "5z")] == [
        "7z",
        "6z",
        "5z",
        "1z",
    ]
    for bad in ("0m", "8z", "xx", "5"):
        with pytest.raises(NotationError):
            parse_tiles(bad)
