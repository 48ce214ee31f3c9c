"""幸运五张 bots: a random stake, then the draw - on the automatic holds, or now and then
on holds of their own (keeping a low pair or four cards of one suit), so the demo plays
changed holds too."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from croupier.games.base import Engine
from croupier.games.videopoker.engine import MAIN, VideoPokerEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view, stake_between


@register
class VideoPokerBot(Bot):
    family = "videopoker"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, VideoPokerEngine)
        return [(seats[0], MAIN, stake_between(rng, eng.min_bet, eng.max_bet, eng.stake_step))]

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, VideoPokerEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        seat = eng.to_act(st)
        if seat is None:
            return None
        hold = list(eng.auto_hold(st))
        if not hold:
            ranks = Counter(c[0] for c in st.dealt)
            suits = Counter(c[1] for c in st.dealt)
            pair = [r for r, n in ranks.items() if n == 2]
            suit, n = suits.most_common(1)[0]
            if pair:
                hold = [c for c in st.dealt if c[0] == pair[0]]
            elif n == 4:
                hold = [c for c in st.dealt if c[1] == suit]
        return Move(seat, "draw", {"hold": hold})
