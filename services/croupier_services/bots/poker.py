"""Poker bots: 必下德州 and 德州2+3 (family ``holdem``) and 炸金花 (``zhajinhua``).

Nothing is staked with ``PlaceBets`` (blinds and antes are posted by the rules); every
stake is a decision. The bots pick among the legal moves the engine lists for the seat
to act, at random with fixed weights, from the hand as a player sees it (other seats'
cards are ``??``, so they never read hidden cards). :func:`pick_holdem` and
:func:`pick_zhajinhua` are also what the tests use to play random legal hands.
"""

from __future__ import annotations

import random
from typing import Any

from croupier.games.base import Engine
from croupier.games.poker.holdem import HoldemEngine, HoldemState
from croupier.games.poker.zhajinhua import ZhajinhuaEngine, ZhajinhuaState
from croupier_services.bots import Bot, Events, Move, register, replay_view

Pick = tuple[int, str, dict[str, Any]]


def pick_holdem(eng: HoldemEngine, st: HoldemState, rng: random.Random) -> Pick | None:
    turn = eng.to_act(st)
    if turn is None:
        return None
    acts = turn.actions
    if turn.options is None:
        # 必下德州: check (blinds), one of the fixed amounts, or all in
        choice = rng.choice(acts)
        if choice == "bet":
            return turn.seat, "bet", {"amount": rng.choice(turn.amounts)}
        return turn.seat, choice, {}
    o = turn.options
    assert o is not None
    weights = {"fold": 2, "check": 6, "call": 6, "bet": 2, "raise": 2, "allin": 1}
    choice = rng.choices(acts, [weights[a] for a in acts])[0]
    if choice in ("bet", "raise"):
        top = min(o.max_raise_to, o.min_raise_to * 3)
        return turn.seat, choice, {"to": rng.randint(o.min_raise_to, max(o.min_raise_to, top))}
    return turn.seat, choice, {}


def pick_zhajinhua(eng: ZhajinhuaEngine, st: ZhajinhuaState, rng: random.Random) -> Pick | None:
    turn = eng.to_act(st)
    if turn is None:
        return None
    weights = {"call": 8, "fold": 1, "raise": 2, "compare": 2, "look": 3}
    choice = rng.choices(turn.actions, [weights[a] for a in turn.actions])[0]
    if choice == "raise":
        step = eng.rules.step * (2 if turn.seat in st.seen else 1)
        n = rng.randint(turn.min_raise // step, turn.max_raise // step)
        return turn.seat, "raise", {"amount": n * step}
    if choice == "compare":
        return turn.seat, "compare", {"target": rng.choice(turn.targets)}
    return turn.seat, choice, {}


@register
class HoldemBot(Bot):
    family = "holdem"

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, HoldemEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        p = pick_holdem(eng, st, rng)
        return None if p is None else Move(*p)


@register
class ZhajinhuaBot(Bot):
    family = "zhajinhua"

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        assert isinstance(eng, ZhajinhuaEngine)
        st = replay_view(eng, events)
        if st is None:
            return None
        p = pick_zhajinhua(eng, st, rng)
        return None if p is None else Move(*p)
