"""楚汉德州 bots: round-1 stakes on Chu, Han, the tie and now and then a hand type; in
保险楚汉德州's later rounds they bet on one side or pass; the seat holding the reveal
right (开牌权 / 咪牌) reveals."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.chuhan.engine import ChuhanEngine
from croupier.games.chuhan.rules import HAND_TYPES, Spot
from croupier_services.bots import Bot, Events, Move, register, replay_view, stake_between

BET_LATER_RATE = 0.5


@register
class ChuhanBot(Bot):
    family = "chuhan"

    def _stake(self, eng: ChuhanEngine, rng: random.Random, spot: Spot, cap: int) -> int:
        lim = eng.limits[spot]
        return stake_between(rng, lim.min, lim.max, eng.stake_step, cap=cap)

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, ChuhanEngine)
        out = []
        for seat in seats:
            spots = [rng.choice((Spot.CHU, Spot.HAN))]
            if rng.random() < 0.2:
                spots.append(Spot.TIE)
            if rng.random() < 0.3:
                spots.append(rng.choice(HAND_TYPES))
            for spot in spots:
                out.append((seat, spot.value, self._stake(eng, rng, spot, 50_000)))
        return out

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, ChuhanEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        turn = eng.to_act(st)
        if turn is None:
            return None
        seat = turn.seats[0]
        if turn.actions == ("reveal",):
            return Move(seat, "reveal")
        open_sides = [s for s in (Spot.CHU, Spot.HAN, Spot.TIE) if s in st.odds]
        left = st.seats[seat].stack - st.staked.get(seat, 0)
        if not open_sides or rng.random() > BET_LATER_RATE:
            return Move(seat, "pass")
        spot = rng.choice(open_sides)
        # at long odds the table's max_return binds before the spot's limit
        most = min(20_000, left, int(eng.max_return / st.odds[spot]))
        amount = self._stake(eng, rng, spot, most)
        if amount <= 0 or amount > most or amount < eng.limits[spot].min:
            return Move(seat, "pass")
        label = f"{spot.value}.r{st.round}"
        return Move(seat, "bet", {"stakes": {spot.value: amount}}, label, amount)
