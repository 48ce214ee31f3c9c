"""A hand holding wilds (广东's 鬼牌), asked at every other player's discard, is first
asked whether any tile at all could make it a win (``win.could_win_with_one_more``,
remembered per engine by the hand): where it says no, no discard and no robbed 杠 is
judged by the wild search. It never says no where a tile or a wild wins — over hands
with wilds, melds and every form — and in the engine it proves many hands no win,
each refused by ``win_refusal``."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.fan import Score
from croupier.games.mahjong.state import CLAIM, ROB, Window
from croupier.games.mahjong.tiles import N_TILES
from croupier.games.mahjong.win import Forms, Shape, could_win_with_one_more
from croupier.games.registry import engine
from tests.property.test_mahjong_ready_fan import random_state

FORMS = [Forms(), Forms(seven_pairs=False), Forms(thirteen_orphans=True)]


@st.composite
def hands(draw: Any) -> tuple[int, ...]:
    """3k+1 tiles, most from one stretch of nine, none past four copies."""
    n = draw(st.sampled_from([1, 4, 7, 10, 13]))
    base = draw(st.integers(0, N_TILES - 9))
    pool = st.one_of(st.integers(base, base + 8), st.integers(0, N_TILES - 1))
    c = [0] * N_TILES
    for t in draw(st.lists(pool, min_size=n, max_size=n)):
        c[t] += 1 if c[t] < 4 else 0
    while sum(c) % 3 != 1:  # copies refused past four: the first tiles not held four
        c[next(t for t in range(N_TILES) if c[t] < 4)] += 1
    return tuple(c)


@settings(max_examples=1_500)
@given(hands(), st.integers(0, 3), st.integers(0, 2), st.sampled_from(FORMS), st.randoms())
def test_never_no_where_a_tile_or_a_wild_wins(
    c: tuple[int, ...], wilds: int, melds: int, forms: Forms, rng: random.Random
) -> None:
    """Wilds take the place of real tiles and melds of three of them: the hand keeps
    3k+1 tiles. ``could_win_with_one_more`` says no only where no tile and no wild
    makes the shape a win."""
    real = [t for t in range(N_TILES) for _ in range(c[t])]
    rng.shuffle(real)
    drop = min(len(real), wilds + 3 * melds)
    concealed = list(c)
    for t in real[:drop]:
        concealed[t] -= 1
    melds = max(0, drop - wilds) // 3
    wilds = drop - 3 * melds
    meld_tiles = tuple(rng.sample(range(N_TILES), melds))
    shape = Shape(tuple(concealed), wilds, meld_tiles, (3,) * melds)
    assert shape.n_concealed + 3 * melds == sum(c)
    wins = shape.add(None).is_win(forms) or any(shape.add(t).is_win(forms) for t in range(N_TILES))
    if wins:
        assert could_win_with_one_more(shape.concealed, wilds, bool(melds), forms), shape


def test_hands_with_wilds_proved_no_win_are_refused_a_win() -> None:
    """广东 (thirteen orphans played, so no tile is isolated): every hand holding a
    ghost, or offered the ghost, that the proof answers for is refused a win on that
    tile, on a discard and on a robbed 杠; and the proof answers for many."""
    e = engine("mahjong.guangdong")
    assert isinstance(e, MahjongEngine)
    rng = random.Random("one short 广东")
    proved = asked = 0
    while asked < 3_000:
        st = random_state(e, rng)
        pl = st.players[1]
        assert st.ghost is not None
        if pl.que is not None:
            continue  # the 定缺 refusal is another proof's
        for t in e.universe:
            if pl.hand[t] >= 4 or not (pl.hand[st.ghost] or t == st.ghost):
                continue
            asked += 1
            if not e._no_win_on(st, pl, t):
                continue
            proved += 1
            for kind in (CLAIM, ROB):
                how = "discard" if kind == CLAIM else "rob"
                r = e.win_refusal(st, 1, t, how, Window(kind, 2, t, []))
                assert not isinstance(r, Score), (pl.hand, pl.melds, st.ghost, t)
    assert proved > 300
