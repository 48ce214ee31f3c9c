"""十三水 bots: every seat clicks 自动比牌 (``auto_arrange``), the system arranging its
cards - a bot watching the public view never sees its own face-down cards."""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.shisanshui.engine import ShisanshuiEngine
from croupier_services.bots import Bot, Events, Move, register, replay_view


@register
class ShisanshuiBot(Bot):
    family = "shisanshui"

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, ShisanshuiEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        waiting = eng.to_act(st)
        if not waiting:
            return None
        return Move(waiting[0], "auto_arrange")
