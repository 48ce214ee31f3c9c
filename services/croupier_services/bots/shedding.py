"""斗地主 (``doudizhu.*``) and 百变双扣 (``shuangkou``) bots: no bets (the stake is the
room base); bids at random above the table's, grabs and doubles now and then, and plays
through the legal-move generator - mostly the 托管 choice, sometimes a random legal move
(bombs included), so the demo also sees bombs, springs, farmer wins and star bombs.

A seat's cards are face down. Given the view of the seat to act (``seat_to_act`` names
it) the bot plays that seat's cards itself; on a view where they are hidden (the demo
sees the public view, or the last actor's) it bids, grabs and doubles all the same (no
cards needed) and for a play lets the turn run out (``Move.timeout``): the dealer then
plays the rules' 托管 move, from the same generator.
"""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.shedding.common import HIDDEN
from croupier.games.shedding.engine import DoudizhuEngine
from croupier.games.shedding.shuangkou import ShuangkouEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view

RANDOM_PLAY = 0.25
GRAB = 0.3
DOUBLE = 0.3


@register
class DoudizhuBot(Bot):
    family = "doudizhu"

    def seat_to_act(self, eng: Engine[Any], events: Events) -> int | None:
        """The seat whose view the bot needs next (None: nobody is to act)."""
        assert isinstance(eng, DoudizhuEngine)
        st = replay_view(eng, events)
        turn = eng.to_act(st) if st is not None else None
        return turn[0] if turn is not None else None

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, DoudizhuEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        turn = eng.to_act(st)
        if turn is None:
            return None
        seat, phase = turn
        if phase == "bidding":
            higher = [b for b in eng.rules.bids if b > st.top_bid]
            options = [0, *higher]
            return Move(seat, "bid", {"points": rng.choice(options)})
        if phase == "grabbing":
            return Move(seat, "grab", {"grab": rng.random() < GRAB})
        if phase == "doubling":
            return Move(seat, "double", {"double": rng.random() < DOUBLE})
        if HIDDEN in st.hands[seat]:
            return Move(seat, "play", timeout=True)
        plays = eng.legal_plays(st, seat)
        leading = st.trick is None or st.trick[0] == seat
        if plays and rng.random() < RANDOM_PLAY:
            return Move(seat, "play", rng.choice(plays).args())
        auto = eng.auto_play(st, seat)
        if auto is None:
            return None if leading else Move(seat, "pass", {})
        return Move(seat, "play", auto.args())


@register
class ShuangkouBot(Bot):
    family = "shuangkou"

    def seat_to_act(self, eng: Engine[Any], events: Events) -> int | None:
        """The seat whose view the bot needs next (None: nobody is to act)."""
        assert isinstance(eng, ShuangkouEngine)
        st = replay_view(eng, events)
        return eng.to_act(st) if st is not None else None

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, ShuangkouEngine)
        st = replay_view(eng, events)
        seat = eng.to_act(st) if st is not None else None
        if st is None or seat is None:
            return None
        if HIDDEN in st.hands[seat]:
            return Move(seat, "play", timeout=True)
        plays = eng.legal_plays(st, seat)
        if plays and rng.random() < RANDOM_PLAY:
            return Move(seat, "play", rng.choice(plays).args())
        auto = eng.auto_play(st, seat)
        if auto is None:
            return Move(seat, "pass", {})
        return Move(seat, "play", auto.args())
