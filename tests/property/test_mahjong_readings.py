"""``fan.readings`` answers a hand that is no win in any form at once, with no reading
(its patterns are not read): over random hands — concealed tiles, wilds, exposed melds,
complete or not, winning or not — it gives every reading the full reading gives, for
every set of winning forms."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.games.mahjong import fan
from croupier.games.mahjong.fan import WinContext
from croupier.games.mahjong.tiles import N_TILES
from croupier.games.mahjong.win import Forms, Shape


@st.composite
def shapes(draw: Any) -> Shape:
    melds = draw(
        st.lists(st.tuples(st.integers(0, N_TILES - 1), st.sampled_from([3, 4])), max_size=4)
    )
    wilds = draw(st.integers(0, 3))
    n = 14 - 3 * len(melds) - wilds + draw(st.sampled_from([0, 0, 0, -1, 1]))
    # tiles drawn near each other, so that wins (runs, pungs, pairs) are common
    base = draw(st.integers(0, N_TILES - 9))
    pool = st.one_of(st.integers(base, base + 8), st.integers(0, N_TILES - 1))
    concealed = [0] * N_TILES
    for t in draw(st.lists(pool, min_size=max(n, 0), max_size=max(n, 0))):
        if concealed[t] < 4:
            concealed[t] += 1
    return Shape.of(
        [t for t in range(N_TILES) for _ in range(concealed[t])], wilds=wilds, melds=melds
    )


@st.composite
def paired(draw: Any) -> Shape:
    """Seven pairs (a pair sometimes a quad, a tile sometimes a wild), or the thirteen
    orphans and one more, or one tile off either."""
    if draw(st.booleans()):
        tiles = [
            t
            for t in draw(st.lists(st.integers(0, N_TILES - 1), min_size=7, max_size=7))
            for _ in range(2)
        ]
    else:
        orphans = [0, 8, 9, 17, 18, 26, *range(27, 34)]
        tiles = [*orphans, draw(st.sampled_from(orphans))]
    if draw(st.booleans()):
        tiles[draw(st.integers(0, 13))] = draw(st.integers(0, N_TILES - 1))
    wilds = draw(st.integers(0, 2))
    kept = [t for t in tiles[wilds:] if tiles.count(t) <= 4]
    return Shape.of(kept, wilds=wilds + len(tiles[wilds:]) - len(kept))


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(shapes(), paired()),
    st.builds(Forms, st.booleans(), st.booleans()),
    st.builds(WinContext, self_draw=st.booleans(), gangs=st.integers(0, 4)),
)
def test_readings_are_the_full_readings(shape: Shape, forms: Forms, ctx: WinContext) -> None:
    assert fan.readings(shape, ctx, forms) == fan._all_readings(shape, ctx, forms)
