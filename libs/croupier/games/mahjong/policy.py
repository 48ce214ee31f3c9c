"""The 托管 policy (automatic play): what a player who timed out, left, or handed
over the decision (``auto``) does, and what the demo's players do."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from croupier.games.mahjong.state import CLAIM, QUE, SWAP, TURN, MahjongState
from croupier.games.mahjong.tiles import (
    N_TILES,
    SUITS,
    is_terminal_or_honour,
    names,
    suit_of,
    tile_name,
)

if TYPE_CHECKING:
    from croupier.games.mahjong.engine import MahjongEngine

Action = tuple[int, str, dict[str, Any]]


def discard_choice(e: MahjongEngine, st: MahjongState, seat: int) -> int:
    """The 托管 discard: a tile of the 定缺 suit first, then (广东: never a ghost)
    the tile with the fewest neighbours; honours and terminals before middle tiles."""
    pl = st.players[seat]
    held = [t for t in range(N_TILES) if pl.hand[t] and t != st.ghost]
    if pl.que is not None:
        que = [t for t in held if suit_of(t) == pl.que]
        if que:
            return que[0]
    suits = e.suits_held(pl)
    if e.rules.max_suits < 3 and len(suits) > e.rules.max_suits:
        counts = {s: sum(pl.hand[t] for t in held if suit_of(t) == s) for s in suits}
        worst = min(sorted(s for s in suits if counts[s]), key=lambda s: counts[s])
        return next(t for t in held if suit_of(t) == worst)

    def value(t: int) -> tuple[int, int]:
        h = pl.hand
        v = 4 * (h[t] - 1)
        if t < 27:
            for d, wgt in ((1, 3), (2, 1)):
                for u in (t - d, t + d):
                    if 0 <= u < 27 and u // 9 == t // 9:
                        v += wgt * min(h[u], 1)
        return v, 0 if is_terminal_or_honour(t) else 1

    return min(held, key=lambda t: (value(t), -t))


def advise(e: MahjongEngine, st: MahjongState, seat: int) -> Action:
    """The 托管 decision for ``seat`` (used by ``auto`` and the demo's players):
    take every win, 杠 and 碰 what helps (never the 定缺 suit), discard by
    :meth:`discard_choice`; 换三张 the three most isolated tiles of the shortest
    suit holding three; 定缺 the shortest suit."""
    pl = st.players[seat]
    if st.step == SWAP:
        by_suit = {
            s: [t for t in range(N_TILES) if suit_of(t) == s for _ in range(pl.hand[t])]
            for s in SUITS
        }
        suit = min((s for s in SUITS if len(by_suit[s]) >= 3), key=lambda s: len(by_suit[s]))
        return seat, "swap", {"tiles": names(by_suit[suit][:3])}
    if st.step == QUE:
        counts = {s: sum(pl.hand[t] for t in range(N_TILES) if suit_of(t) == s) for s in SUITS}
        return seat, "que", {"suit": min(SUITS, key=lambda s: counts[s])}
    if e.can_win(st, seat) is not None:
        return seat, "hu", {}
    if st.step == TURN:
        for t, _ in e.gang_options(st, seat):
            if pl.que is None or suit_of(t) != pl.que:
                return seat, "gang", {"tile": tile_name(t)}
        return seat, "discard", {"tile": tile_name(e.discard_choice(st, seat))}
    w = st.window
    assert w is not None
    if w.kind == CLAIM and (pl.que is None or suit_of(w.tile) != pl.que):
        if e.can_ming_gang(st, seat, w.tile):
            return seat, "gang", {}
        if e.can_peng(st, seat, w.tile) and pl.hand[w.tile] == 2:
            return seat, "peng", {}
    return seat, "pass", {}
