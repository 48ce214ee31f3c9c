"""Sangong bots. ``sangong.hundred``: each seat stakes on one or two of the spots
东南西北, small enough against its balance that the multiplier limit rarely binds.
The grab tables: each seat grabs about half the time (with a random multiple where the
variant grabs with multiples), and every player picks a random bet multiple among those
the balance limit allows."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.sangong.engine import SPOTS, Act, SangongEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view, stake_between

GRAB_RATE = 0.5
SECOND_SPOT_RATE = 0.3


@register
class SangongBot(Bot):
    family = "sangong"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, SangongEngine)
        lim = eng.spot_limits
        if lim is None:
            return []
        # the top multiplier on every spot stays covered: no limit binds
        cap = max(lim.min, stack // (2 * eng.hands.max_multiplier))
        out = []
        for seat in seats:
            spots = rng.sample(SPOTS, 2 if rng.random() < SECOND_SPOT_RATE else 1)
            for spot in spots:
                out.append((seat, spot, stake_between(rng, lim.min, lim.max, lim.step, cap=cap)))
        return out

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, SangongEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        turns = eng.to_act(st)
        if not turns:
            return None
        t = turns[0]
        if Act.BET in t.actions:
            return Move(t.seat, Act.BET.value, {"multiple": rng.choice(t.multiples)})
        if Act.GRAB in t.actions and rng.random() < GRAB_RATE:
            args = {"multiple": rng.choice(t.multiples)} if t.multiples else {}
            return Move(t.seat, Act.GRAB.value, args)
        return Move(t.seat, Act.PASS.value, {})
