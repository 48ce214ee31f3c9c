"""Baccarat bots: a main spot (banker and player twice as often as tie) and each side
spot now and then, big/small only while the seed allows them."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier_services.bots import Bot, register, stake_between

SIDE_RATE = 0.15


@register
class BaccaratBot(Bot):
    family = "baccarat"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        limits = eng.config.raw["spots"]
        step = int(eng.config.raw.get("stake_step", 1))
        last_big_small = int(eng.config.raw["no_big_small_after_hand"])
        out = []
        for seat in seats:
            spots = [rng.choice(("banker", "player", "banker", "player", "tie"))]
            for side in ("banker_pair", "player_pair", "big", "small", "super6"):
                if side in ("big", "small") and shoe_hand_no > last_big_small:
                    continue
                if rng.random() < SIDE_RATE:
                    spots.append(side)
            for spot in spots:
                lim = limits[spot]
                out.append((seat, spot, stake_between(rng, int(lim["min"]), int(lim["max"]), step)))
        return out
