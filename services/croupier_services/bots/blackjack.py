"""Blackjack bots: random main bets, basic strategy (the 超时保护 advisor), now and then
the insurance basic strategy declines, so the demo also plays insurance, the peek and
their settlement, and now and then a decision left to time out."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.blackjack.engine import BlackjackEngine
from croupier.games.blackjack.rules import Action
from croupier_services.bots import Bot, Events, Move, register, replay_view, stake_between

INSURE_RATE = 0.25
TIMEOUT_RATE = 0.05  # decisions left to 超时保护 (the dealer plays the strategy guide)


@register
class BlackjackBot(Bot):
    family = "blackjack"

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        assert isinstance(eng, BlackjackEngine)
        t = eng.table
        return [(seat, "main", stake_between(rng, t.min_bet, t.max_bet, t.step)) for seat in seats]

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, BlackjackEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        turn = eng.to_act(st)
        if turn is None:
            return None
        action = eng.advise(st, turn)
        timeout = rng.random() < TIMEOUT_RATE
        offered = action is Action.DECLINE and Action.INSURE in turn.actions
        if offered and not timeout and rng.random() < INSURE_RATE:
            action = Action.INSURE
        play = st.play[turn.seat]
        spot, stake = "", 0
        if action is Action.INSURE:
            spot, stake = "insurance", int(play.bet * eng.rules.insurance_cost)
        elif action is Action.DOUBLE:
            spot, stake = ("double" if turn.hand == 0 else "double.split"), play.bet
        elif action is Action.SPLIT:
            spot, stake = "main.split", play.bet
        return Move(turn.seat, action.value, {}, spot, stake, timeout)
