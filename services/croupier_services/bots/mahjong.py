"""Mahjong bots (血战麻将, 血战到底, 广东麻将). The players follow the engine's 托管 policy
(:meth:`croupier.games.mahjong.engine.MahjongEngine.advise`: every win taken, 杠 and 碰
when they help and never in the 定缺 suit, the discard with the fewest neighbours,
换三张 and 定缺 by the shortest suit). A player's view hides the other hands, and who may
claim a discard depends on them, so a view cannot tell whose decision the hand waits
for: the bots let every turn time out, and the dealer plays the rules' 托管 move
(:meth:`~croupier.games.mahjong.engine.MahjongEngine.auto_action`) for whoever it waits
on."""

from __future__ import annotations

import random
from typing import Any

from croupier.games import base as g
from croupier.games.base import Engine
from croupier.games.mahjong.engine import MahjongEngine
from croupier_services.bots import Bot, Events, Move, register


@register
class MahjongBot(Bot):
    family = "mahjong"

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, MahjongEngine)
        if not events or events[0][0] != g.HAND_OPENED:
            return None
        if any(t in (g.HAND_CLOSED, g.HAND_OUTCOME, g.HAND_SETTLED) for t, _ in events):
            return None
        seats = sorted(int(s["seat"]) for s in events[0][1]["seats"])
        return Move(seats[0], "", timeout=True)
