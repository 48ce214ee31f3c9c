"""Niuniu bots. 百人牛牛: random stakes on one to four of the spots 福禄寿禧. The table
games: grab the bank now and then, accept an offered bank most of the time, pick a random
allowed bet multiple, and arrange their own five cards (拼牛) when they can see them -
otherwise, and now and then on purpose, they leave the arrangement to the game (自动组牌),
so the demo plays both kinds of 摊牌."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.niuniu.engine import NiuniuEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view, stake_between

GRAB_RATE = 0.4
ACCEPT_RATE = 0.8
AUTO_ARRANGE_RATE = 0.2


@register
class NiuniuBot(Bot):
    family = "niuniu"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, NiuniuEngine)
        h = eng.table.hundred
        if h is None:
            return []
        out = []
        for seat in seats:
            spots = rng.sample(h.spots, rng.randint(1, len(h.spots)))
            hi = min(h.max_bet, stack // (len(spots) * eng.hands.max_multiplier))
            out += [(seat, sp, stake_between(rng, h.min_bet, hi, h.step, 10_000)) for sp in spots]
        return out

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, NiuniuEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        turn = eng.to_act(st)
        if turn is None:
            return None
        action = turn.actions[0]
        if action == "grab":
            return Move(turn.seat, "grab", {"grab": rng.random() < GRAB_RATE})
        if action == "bank":
            return Move(turn.seat, "bank", {"accept": rng.random() < ACCEPT_RATE})
        if action == "bet":
            return Move(turn.seat, "bet", {"multiple": rng.choice(st.play[turn.seat].options)})
        cards = st.play[turn.seat].cards
        if "??" in cards or rng.random() < AUTO_ARRANGE_RATE:
            return Move(turn.seat, "arrange", {})
        hand = eng.hand_of(cards)
        return Move(
            turn.seat, "arrange", {"three": list(hand.three), "category": hand.category.value}
        )
