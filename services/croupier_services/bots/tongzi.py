"""Bots of the 筒子 tile games.

二八杠 (``erbagang``): no ``bet.placed`` (the betting round is empty); every seat grabs
the bank with a random multiple (often none), then every player bets a few times the
base. 推筒子 (``tuitongzi``): every seat antes; in the raise round a player raises now
and then, more often when the tile it shows is high, and folds otherwise."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.tongzi.erbagang import ErbagangEngine
from croupier.games.tongzi.tiles import tile_rank
from croupier.games.tongzi.tuitongzi import TuitongziEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view

GRABS = (0, 0, 0, 1, 2, 5, 10, 20, 50, 100, 200)
MAX_BET = 10  # bots bet 1x to 10x the base
RAISE_STEPS = 5  # bots raise at most 5 steps


@register
class ErbagangBot(Bot):
    family = "erbagang"

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, ErbagangEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        w = eng.waiting(st)
        if w is None or not w.seats:
            return None
        seat = w.seats[0]
        if w.action == "grab":
            return Move(seat, "grab", {"multiple": min(rng.choice(GRABS), eng.grab_cap(st, seat))})
        m = rng.randint(eng.bet_min, max(eng.bet_min, min(MAX_BET, eng.bet_cap(st, seat))))
        return Move(seat, "bet", {"multiple": m}, "player", m * eng.base)


@register
class TuitongziBot(Bot):
    family = "tuitongzi"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, TuitongziEngine)
        return [(seat, "ante", eng.ante) for seat in seats if stack >= eng.ante]

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, TuitongziEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        waiting = eng.waiting(st)
        if not waiting:
            return None
        seat = waiting[0]
        shown = st.tiles[seat][0]
        cap = eng.raise_cap(st, seat)
        keen = 0.6 if shown != "??" and tile_rank(shown) >= 7 else 0.25
        if not cap or rng.random() >= keen:
            return Move(seat, "fold")
        top = min(cap, eng.raise_min + eng.raise_step * (RAISE_STEPS - 1))
        amount = rng.randrange(eng.raise_min, top + 1, eng.raise_step)
        return Move(seat, "raise", {"amount": amount}, "raise", amount)
