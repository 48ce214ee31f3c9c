"""查大叫's best fan (``payments.ready_fan``) reads a player's hand, tile totals and suits
once for every tile it tries: over random hands of every mahjong variant — listening
or not, with melds, a 定缺 suit, 鬼牌 held — it gives what trying each tile with the
hand read anew gives (the reference below, the loop as it was written first)."""

from __future__ import annotations

import copy
import random

import pytest

from croupier.games import base as g
from croupier.games.mahjong import payments
from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.fan import Score, WinContext, score
from croupier.games.mahjong.state import (
    AN_GANG,
    CLAIM,
    PENG,
    ROB,
    MahjongState,
    Meld,
    Player,
    Window,
)
from croupier.games.mahjong.tiles import N_TILES, parse_tiles, tile_index
from croupier.games.registry import engine, variant_config

VARIANTS = ["mahjong.xuezhan", "mahjong.xuezhan_daodi", "mahjong.guangdong"]


def reference(e: MahjongEngine, st: MahjongState, seat: int) -> int | None:
    pl = st.players[seat]
    best: int | None = None
    for t in e.universe:
        if t == st.ghost:
            continue
        shape = e.shape(st, pl)
        if shape.real_totals()[t] >= 4:
            continue
        if len(e.suits_held(pl, t)) > e.rules.max_suits:
            continue
        if pl.que is not None and pl.que in e.suits_held(pl, t):
            continue
        sc = score(shape.add(t), WinContext(), e.rules.fan)
        if sc is not None and (best is None or sc.fan > best):
            best = sc.fan
    return best


def _listening(rng: random.Random, universe: list[int], sets: int) -> list[int] | None:
    """``sets`` sets and a pair of the universe's tiles less one tile: a hand that
    waits (None when the draw did not fit)."""
    hand = [0] * N_TILES
    runs = [t for t in universe if t < 27 and t % 9 <= 6]
    for _ in range(sets):
        if runs and rng.random() < 0.6:
            start = rng.choice(runs)
            group = [start, start + 1, start + 2]
        else:
            group = [rng.choice(universe)] * 3
        for t in group:
            hand[t] += 1
    pair = rng.choice(universe)
    hand[pair] += 2
    if max(hand) > 4:
        return None
    held = [t for t in range(N_TILES) if hand[t]]
    hand[rng.choice(held)] -= 1
    return hand


def _hand(rng: random.Random, universe: list[int], n: int, ghost: int | None) -> list[int]:
    """``n`` tiles: most often a hand one tile short of a win, else tiles clustered in a
    few suits."""
    if rng.random() < 0.6:
        got = _listening(rng, universe, (n - 1) // 3)
        if got is not None:
            return got
    hand = [0] * N_TILES
    near = rng.sample(universe, min(len(universe), rng.choice([6, 9, 14])))
    while sum(hand) < n:
        t = rng.choice(near if rng.random() < 0.85 else universe)
        if ghost is not None and rng.random() < 0.05:
            t = ghost
        if hand[t] < 4:
            hand[t] += 1
    return hand


def one_player(variant: str, pl: Player, ghost: int | None = None) -> MahjongState:
    """A hand's state holding only ``pl`` (seat 1): what 查大叫 reads."""
    return MahjongState(
        variant=variant,
        table="t1",
        hand_id="t1_h1",
        hand_no=1,
        shoe_hand_no=1,
        seats={},
        players={1: pl},
        ghost=ghost,
    )


def random_state(e: MahjongEngine, rng: random.Random) -> MahjongState:
    """One player with a random hand of ``e``'s variant: most often one tile short of a
    win, with melds, a 定缺 suit, a ghost (广东) held or not."""
    universe = list(e.universe)
    ghost = rng.choice(universe) if e.variant == "mahjong.guangdong" else None
    melds = [
        Meld(rng.choice([PENG, PENG, AN_GANG]), t)
        for t in rng.sample(universe, rng.choice([0, 0, 1, 2]))
    ]
    hand = _hand(rng, universe, 13 - 3 * len(melds), ghost)
    for m in melds:  # a meld's tile is not held concealed past four in all
        hand[m.tile] = min(hand[m.tile], 4 - m.size)
    que = rng.choice([None, None, "m", "p", "s"])
    return one_player(e.variant, Player(seat=1, hand=hand, melds=melds, que=que), ghost)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_best_fan_is_what_each_tile_tried_anew_gives(variant: str) -> None:
    e = engine(variant)
    assert isinstance(e, MahjongEngine)
    rng = random.Random(variant)
    listening = 0
    for _ in range(400):
        st = random_state(e, rng)
        want = reference(e, st, 1)
        pl = st.players[1]
        assert payments.ready_fan(e, st, 1) == want, (pl.hand, pl.melds, pl.que, st.ghost)
        listening += want is not None
    assert listening > 20  # listening hands are among those drawn


def test_a_hands_best_fan_is_read_once_by_all_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remembered per engine by the shape, the suits held, the 定缺 suit and the ghost:
    the same hand asked again is not read again, the same tiles under another 定缺 suit
    are."""
    e = engine("mahjong.xuezhan")
    assert isinstance(e, MahjongEngine)
    e.ready_fans.clear()
    read: list[tuple[object, ...]] = []
    fresh = payments._ready_fan

    def counted(*args: object) -> int | None:
        read.append(args[2:])
        return fresh(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(payments, "_ready_fan", counted)
    hand = [0] * N_TILES
    for t in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13):  # 123456789m 123p 5p: waits on 5p
        hand[t] += 1

    def state(que: str | None) -> MahjongState:
        return one_player(e.variant, Player(seat=1, hand=list(hand), melds=[], que=que))

    listening = payments.ready_fan(e, state(None), 1)
    assert listening is not None and listening == reference(e, state(None), 1)
    assert payments.ready_fan(e, state(None), 1) == listening
    assert len(read) == 1
    assert payments.ready_fan(e, state("p"), 1) is None  # holds its 定缺 suit
    assert len(read) == 2 and read[1][1] == "p"
    assert payments.ready_fan(e, state("p"), 1) is None  # "not listening" remembered too
    assert len(read) == 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_tile_proved_no_win_is_refused_a_win(variant: str) -> None:
    """``MahjongEngine._no_win_on`` (the 定缺 suit held, or an isolated tile without
    wilds) only ever answers for hands that ``win_refusal`` refuses, on a discard and on
    a robbed 杠, over random hands of every kind and every tile; and it answers for
    many of them."""
    e = engine(variant)
    assert isinstance(e, MahjongEngine)
    rng = random.Random(f"no-win {variant}")
    proved = wins = 0
    for _ in range(300):
        st = random_state(e, rng)
        pl = st.players[1]
        for t in e.universe:
            if t == st.ghost or pl.hand[t] >= 4:
                continue
            for kind in (CLAIM, ROB):
                r = e.win_refusal(
                    st, 1, t, "discard" if kind == CLAIM else "rob", Window(kind, 2, t, [])
                )
                if e._no_win_on(st, st.players[1], t):
                    proved += 1
                    assert not isinstance(r, Score), (pl.hand, pl.melds, pl.que, st.ghost, t)
                wins += isinstance(r, Score)
    assert wins > 10 and proved > 1000


def _counts(*tiles: str) -> list[int]:
    hand = [0] * N_TILES
    for name in tiles:
        for t in parse_tiles([name[i : i + 2] for i in range(0, len(name), 2)]):
            hand[t] += 1
    return hand


def _without_orphans(variant: str) -> MahjongEngine:
    """The variant's engine without the thirteen-orphans form (the one form an isolated
    tile can win in): 广东's ghosts then reach the isolated-tile proof."""
    raw = copy.deepcopy(dict(variant_config(variant).raw))
    raw["forms"] = {**raw["forms"], "thirteen_orphans": False}
    return MahjongEngine(g.VariantConfig.from_json_dict(raw))


@pytest.mark.parametrize(
    ("variant", "tiles", "ghost", "tile", "how"),
    [
        # a wild makes the pair with any tile: not isolated while a ghost is held
        ("mahjong.guangdong", "1m2m3m4m5m6m7m8m9m1p2p3p5z", "5z", "9s", ROB),
        # edge and middle waits: the tile's neighbour is held
        ("mahjong.xuezhan", "1m2m3m4m5m6m7m8m9m1p1p2p3p", None, "4p", CLAIM),
        ("mahjong.xuezhan", "1m2m3m4m5m6m7m8m9m1p1p2p4p", None, "3p", CLAIM),
        # a single wait: the tile's copy is held
        ("mahjong.xuezhan_daodi", "1m2m3m4m5m6m7m8m9m1p2p3p9p", None, "9p", CLAIM),
    ],
)
def test_tiles_that_win_are_never_proved_no_win(
    variant: str, tiles: str, ghost: str | None, tile: str, how: str
) -> None:
    g_ = None if ghost is None else tile_index(ghost)
    t = tile_index(tile)
    for e in (engine(variant), _without_orphans(variant)):
        assert isinstance(e, MahjongEngine)
        st = one_player(variant, Player(seat=1, hand=_counts(tiles), melds=[]), g_)
        r = e.win_refusal(st, 1, t, "discard" if how == CLAIM else "rob", Window(how, 2, t, []))
        assert isinstance(r, Score), r
        assert not e._no_win_on(st, st.players[1], t)


@pytest.mark.parametrize(
    ("tiles", "tile", "how"),
    [
        ("1m1m9m1p9p1s9s1z2z3z4z5z6z", "7z", CLAIM),  # the thirteenth kind, an honour
        ("1m9m1p9p1s9s1z2z3z4z5z6z7z", "9m", ROB),  # the pair's second, a terminal
    ],
)
def test_thirteen_orphans_without_a_ghost_held_is_never_proved_no_win(
    tiles: str, tile: str, how: str
) -> None:
    """广东 plays 十三幺: its winning tile is isolated (no copy held, no neighbour), so
    without a ghost held the proof must still not answer while every tile held is a
    幺九; with one tile that is not, it answers for the tile held no copy of."""
    e = engine("mahjong.guangdong")
    assert isinstance(e, MahjongEngine)
    t = tile_index(tile)
    st = one_player(e.variant, Player(seat=1, hand=_counts(tiles), melds=[]), tile_index("5s"))
    r = e.win_refusal(st, 1, t, "discard" if how == CLAIM else "rob", Window(how, 2, t, []))
    assert isinstance(r, Score) and "thirteen_orphans" in dict(r.patterns), r
    assert not e._no_win_on(st, st.players[1], t)
    other = _counts(tiles.replace("1p", "2p", 1))  # one tile that is no 幺九
    st = one_player(e.variant, Player(seat=1, hand=other, melds=[]), tile_index("5s"))
    assert e._no_win_on(st, st.players[1], t) is not bool(other[t])  # a held copy: no proof


@pytest.mark.parametrize("variant", VARIANTS)
def test_holding_the_que_suit_is_the_suits_held(variant: str) -> None:
    """``holds_que`` (``win_refusal``'s 定缺 refusal and the no-win proof) reads the
    suit's counts as ``suits_held`` reads the whole hand."""
    e = engine(variant)
    assert isinstance(e, MahjongEngine)
    rng = random.Random(f"que {variant}")
    for _ in range(300):
        pl = random_state(e, rng).players[1]
        for t in (None, *e.universe):
            want = pl.que is not None and pl.que in e.suits_held(pl, t)
            assert e.holds_que(pl, t) is want
