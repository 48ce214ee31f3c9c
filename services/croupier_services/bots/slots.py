"""多财多福 bots: a spin at a random line bet; after a win, collect half the time,
otherwise guess 童男 or 童女 at a multiple the balance covers (mostly x1)."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.slots.double_up import Pick
from croupier.games.slots.engine import COLLECT, DOUBLE, GUESS, SPIN, SlotEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view

COLLECT_RATE = 0.5
TIMES_WEIGHTS = {1: 6, 2: 2, 3: 1, 5: 1}


@register
class SlotBot(Bot):
    family = "slots"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, SlotEngine)
        stake = rng.choice(eng.line_bets) * eng.lines
        return [(seat, SPIN, stake) for seat in seats[:1] if stake <= stack]

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, SlotEngine)
        st = replay_view(eng, events)
        if st is None or eng.auto_action(st) is None:
            return None
        if rng.random() < COLLECT_RATE:
            return Move(st.seat_no, COLLECT)
        d = eng.double_up
        ok = [m for m in d.multiples if d.top_up(st.win, m) <= st.balance]
        times = rng.choices(ok, weights=[TIMES_WEIGHTS.get(m, 1) for m in ok])[0]
        pick = rng.choice(list(Pick)).value
        return Move(st.seat_no, GUESS, {"pick": pick, "times": times}, DOUBLE, times * st.win)
