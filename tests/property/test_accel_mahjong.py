"""Whether mahjong tiles win, natively (``croupier._accel.mahjong_win`` and
``mahjong_waits``, through ``win.plain_win``, ``win.Shape.is_win`` and ``Shape.waits``),
against the pure path (``Shape.standard``, ``seven_pairs``, ``thirteen_orphans``).

Pinned: every count of one suit a finished hand can hold (each 0 to 4, 2 to 11 tiles
with the melds making up the rest; every fourteen-tile count on a sample), in each
suit, under each pair of forms; random hands built from sets, with melds, honours and
0 to 3 wilds, and their waits; arbitrary counts with melds and up to four wilds; seven
pairs and thirteen orphans at their edges; what the native path does not take (a count
past 4, a count not an int, a list, the wrong length, too many melds, caps that are not
counts, too many wilds) left to the pure path, which answers; and the played hands of
the three mahjong variants replayed and settled with and without it, every outcome and
record the same.
Skipped, saying so, where the extension is not built (CI requires it)."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from test_record_render_unchanged import played_events

from croupier import accel
from croupier.games.mahjong import win
from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.tiles import ORPHANS, parse_tiles
from croupier.games.mahjong.win import Forms, Shape
from croupier.games.registry import variant_config
from croupier.settlement import settle_state

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the tests package
from tests.unit.games.test_mahjong_win import random_shape

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)

FORMS = [Forms(s, o) for s in (False, True) for o in (False, True)]


def _pure_win(shape: Shape, forms: Forms, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The forms judged one by one, and :func:`win.plain_win`'s own pure path the same."""
    forms_ = (
        shape.standard()
        or (forms.seven_pairs and shape.seven_pairs())
        or (forms.thirteen_orphans and shape.thirteen_orphans())
    )
    with monkeypatch.context() as m:
        m.setattr(win, "_native", None)
        assert shape.is_win(forms) is forms_
        if not shape.wilds:
            assert win.plain_win(shape.concealed, len(shape.melds), forms) is forms_
    return forms_


def _pure_waits(shape: Shape, forms: Forms, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    with monkeypatch.context() as m:
        m.setattr(win, "_native", None)
        return shape.waits(range(34), forms)


def _one_suit(counts: tuple[int, ...], base: int) -> Shape:
    c = [0] * 34
    c[base : base + 9] = counts
    n = sum(counts)
    return Shape(tuple(c), 0, (base,) * ((14 - n) // 3), (3,) * ((14 - n) // 3))


def test_every_count_of_a_suit_wins_as_the_pure_path() -> None:
    """The native answer against the pure suit search (``win._suit_sets`` through
    ``_std_plain``) and seven pairs, for every count of a suit: 61,587 of up to 11 tiles
    in all three suits, and 6,000 of the 118,800 fourteen-tile counts in each."""
    native = accel.native
    assert native is not None
    rng = random.Random("one suit")
    checked = wins = 0
    for counts in itertools.product(range(5), repeat=9):
        n = sum(counts)
        if n % 3 != 2 or (n == 14 and rng.random() > 6_000 / 118_800):
            continue
        for base in (0, 9, 18):
            shape = _one_suit(counts, base)
            pure = shape.standard() or (not shape.melds and shape.seven_pairs())
            assert native.mahjong_win(shape.concealed, len(shape.melds), True, False) is pure
            checked += 1
            wins += pure
    assert checked > 200_000 and 10_000 < wins < checked // 2


@pytest.mark.parametrize("forms", FORMS, ids=lambda f: f"{f.seven_pairs:d}{f.thirteen_orphans:d}")
def test_random_hands_and_their_waits_as_the_pure_path(
    forms: Forms, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"hands {forms}")
    wins = waiting = 0
    for n in range(2_000):
        shape = random_shape(rng, 14 if n % 2 else 13, (n // 2) % 4)  # 0 to 3 wilds
        if n % 2:
            won = shape.is_win(forms)
            assert won is _pure_win(shape, forms, monkeypatch), shape
            wins += won
        else:
            waits = shape.waits(range(34), forms)
            assert waits == _pure_waits(shape, forms, monkeypatch), shape
            waiting += bool(waits)
    assert wins > 150 and waiting > 150


def test_arbitrary_counts_melds_and_wilds_as_the_pure_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tiles not built from sets: any counts of a finished hand's size, half of them from
    one suit, up to four melds on any tile (their caps then as the shape reads them) and
    up to four wilds, under random forms."""
    rng = random.Random("arbitrary")
    wins = 0
    for _ in range(6_000):
        melds = rng.choice([0, 0, 0, 1, 2, 3, 4])
        wilds = rng.choice([0, 0, 1, 2, 3, 4])
        size = 14 - 3 * melds - wilds
        if size < 0:
            continue
        c = [0] * 34
        while sum(c) < size:
            t = rng.randrange(34) if rng.random() < 0.5 else rng.randrange(9)
            c[t] += c[t] < 4
        shape = Shape(tuple(c), wilds, tuple(rng.randrange(34) for _ in range(melds)), (3,) * melds)
        forms = Forms(rng.random() < 0.5, rng.random() < 0.5)
        won = shape.is_win(forms)
        assert won is _pure_win(shape, forms, monkeypatch), (shape, forms)
        wins += won
    assert wins > 500


def test_seven_pairs_and_thirteen_orphans_at_their_edges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = [
        "11223344556677m",  # seven pairs, also standard
        "1111m22p33s44s55z66z",  # four of a kind as two pairs
        "1111m222p33s44s55z66z",  # a three: no seven pairs
        "19m19p19s1234567z1m",  # thirteen orphans
        "19m19p19s1234567z",  # thirteen: no win of fourteen
        "11m19p19s1234567z9m",  # orphans, the pair elsewhere
        "111m9p19s1234567z9m",  # an orphan three times
        "19m19p19s123456z77z",  # orphans, the pair an honour
        "19m19p19s1234z66z77z",  # two pairs, a kind missing
        "19m19p19s123456z2m7z",  # a tile outside them
        "11m99m11p99p11s99s11z",  # seven pairs of 幺九
    ]
    for text in cases:
        shape = Shape.of(parse_tiles(text))
        for forms in FORMS:
            assert shape.is_win(forms) is _pure_win(shape, forms, monkeypatch), (text, forms)
    orphans = Shape.of([*ORPHANS, 0])
    assert orphans.is_win(Forms(False, True)) and not orphans.is_win(Forms(True, False))
    quads = Shape.of(parse_tiles("1111m22p33s44s55z66z"))
    assert quads.is_win(Forms(True, False)) and not quads.is_win(Forms(False, False))


def test_what_it_does_not_take_the_pure_path_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    native = accel.native
    assert native is not None
    won = Shape.of(parse_tiles("123m456m789m11p22p")).add(1)  # a fourteenth tile
    c = list(Shape.of(parse_tiles("123m456m789m111p22p")).concealed)
    assert native.mahjong_win(tuple(c), 0, True, True) is True
    refused: list[tuple[Any, int]] = [
        (tuple(c[:33]), 0),  # the wrong length
        (c, 0),  # a list
        (tuple([*c[:33], True]), 0),  # a bool is no count
        (tuple([5, *c[1:]]), 0),  # a fifth copy
        (tuple([-1, *c[1:]]), 0),
        (tuple([2**70, *c[1:]]), 0),
        (tuple(c), 5),  # five melds
        (tuple(c), -1),
    ]
    for counts, melds in refused:
        assert native.mahjong_win(counts, melds, True, True) is None, (counts, melds)
        assert native.mahjong_waits(counts, melds, True, True) is None, (counts, melds)
    # with wilds: their caps as counts are, and no more wilds than tiles in a hand
    wild = Shape.of(parse_tiles("123m456m789m23p55s"), wilds=1)
    caps = wild.caps()
    assert native.mahjong_win(wild.concealed, 0, True, True, 1, caps) is True
    for w, caps_ in [(1, list(caps)), (1, caps[:33]), (1, None), (15, caps), (-1, caps)]:
        assert native.mahjong_win(wild.concealed, 0, True, True, w, caps_) is None, (w, caps_)
    with pytest.raises(TypeError):
        native.mahjong_win(tuple(c), "0", True, True)
    # five of a tile: left to the pure path, which judges it (a 刻子 and the pair)
    five = Shape(tuple([5, *c[1:]]), 0, (), ())
    assert five.is_win() is _pure_win(five, Forms(), monkeypatch)
    assert won.is_win() is _pure_win(won, Forms(), monkeypatch)


@pytest.mark.parametrize(
    "variant", ["mahjong.xuezhan", "mahjong.xuezhan_daodi", "mahjong.guangdong"]
)
def test_played_hands_replay_and_settle_as_the_pure_path(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each played hand replayed by a fresh engine with and without the native path
    (fresh, so no answer either remembered reaches the other): the same outcome, 查大叫
    included, and the same settlement record."""
    hands = played_events(variant, 10, 3)

    def replayed() -> list[tuple[Any, bytes]]:
        eng = MahjongEngine(variant_config(variant))
        out = []
        for hand_id, events in hands:
            st = eng.replay(hand_id, events)
            eng.close_check(st)
            out.append((eng.outcome(st), settle_state(eng, st).record_bytes))
        return out

    native = replayed()
    monkeypatch.setattr(win, "_native", None)
    assert replayed() == native
