"""开心摇摇乐 bots: red or blue most of the time, tie and the side bets now and then.
The hand has no decisions after betting (撤销 happens while betting is open; the demo
places its bets in one go)."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.dice.engine import DiceEngine
from croupier.games.dice.rules import Spot
from croupier_services.bots import Bot, register, stake_between

SIDE_RATE = 0.2
SIDE_SPOTS = [s for s in Spot if s not in (Spot.RED, Spot.BLUE)]


@register
class DiceBot(Bot):
    family = "dice"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, DiceEngine)
        out = []
        for seat in seats:
            spots = [rng.choice((Spot.RED, Spot.BLUE))]
            spots += [s for s in SIDE_SPOTS if rng.random() < SIDE_RATE]
            for spot in spots:
                lim = eng.limits[spot]
                out.append((seat, spot.value, stake_between(rng, lim.min, lim.max, eng.stake_step)))
        return out
