"""Unsigned 二八杠 / 推筒子 hand scripts: a hand's events built from tiles, dice and
decisions chosen by hand, for what-if analysis (``croupier hand replay --unsigned``),
golden vectors and tests.

:func:`script_hand` plays a hand through the engine as the dealer would - the dice,
the tiles and the reveals where the rules ask for them - but rolls the dice it is given
(one list of values per roll, in order), deals each seat the tiles it is given (in the
order that seat receives them) and takes the decisions from ``actions`` in order; once
they run out, every further decision is the timeout move (:meth:`auto_action`). Each
event is verified before it is applied, exactly as in a replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from croupier.errors import InvalidInput
from croupier.export import script_opened
from croupier.games import base as g
from croupier.games.tongzi.common import seat_of
from croupier.games.tongzi.erbagang import ErbagangEngine
from croupier.games.tongzi.tuitongzi import ANTE, TuitongziEngine, TuitongziState

Event = tuple[str, dict[str, Any]]


opened = script_opened  # the hand.opened of a script (croupier.export)


def script_hand(
    eng: ErbagangEngine | TuitongziEngine | g.Engine[Any],
    opened_payload: Mapping[str, Any],
    *,
    tiles: Mapping[int, Sequence[str]],
    dice: Sequence[Sequence[int]] = (),
    antes: Sequence[int] = (),
    actions: Sequence[tuple[int, str, Mapping[str, Any]]] = (),
    hand_id: str = "script",
) -> tuple[list[Event], Any]:
    """The events of one whole hand and its final state (an :class:`ErbagangState` or
    a :class:`TuitongziState`; see the module docstring). ``antes`` are the 推筒子 seats
    that ante."""
    events: list[Event] = []
    if not isinstance(eng, ErbagangEngine | TuitongziEngine):
        raise InvalidInput(f"{eng.variant} is not a 筒子 tile game")
    state: Any = eng.open(hand_id, opened_payload)
    events.append((g.HAND_OPENED, dict(opened_payload)))

    def step(type_: str, payload: dict[str, Any]) -> None:
        eng.step(state, type_, payload)
        events.append((type_, payload))

    if isinstance(eng, TuitongziEngine):
        for seat in antes:
            step(g.BET_PLACED, {"seat": seat, "spot": ANTE, "amount": eng.ante})
    step(g.BETTING_CLOSED, {})
    left = {s: list(ts) for s, ts in tiles.items()}
    rolls = [list(r) for r in dice]
    todo = [(s, a, dict(args)) for s, a, args in actions]
    pos = n_roll = 0
    while not eng.is_over(state):
        req = eng.next_deal(state)
        if req is not None:
            if req.dice:
                if not rolls:
                    raise InvalidInput("the script needs another roll of the dice")
                step(
                    g.DICE_ROLLED,
                    {"dice": rolls.pop(0), "faces": list(req.die_faces()), "roll": n_roll},
                )
                n_roll += 1
            for to in req.reveal:
                assert isinstance(state, TuitongziState)
                step(g.CARDS_REVEALED, {"to": to, "cards": [state.hidden[seat_of(to)]]})
            if req.cards:
                dealt = []
                for d in req.cards:
                    seat = seat_of(d.to)
                    if not left.get(seat):
                        raise InvalidInput(f"the script gives no more tiles for seat {seat}")
                    dealt.append({"to": d.to, "card": left[seat].pop(0), "pos": pos, "up": d.up})
                    pos += 1
                step(g.CARD_DEALT, {"cards": dealt})
            continue
        if todo:
            seat, action, args = todo.pop(0)
        else:
            auto = eng.auto_action(state)
            if auto is None:
                raise InvalidInput(f"the hand waits for nobody at {state.phase}")
            seat, action, args = auto[0], auto[1], {**auto[2], "auto": "timeout"}
        step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
    step(g.HAND_CLOSED, {"positions_used": pos, "carry": {}})
    return events, state
