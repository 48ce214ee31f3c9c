"""Unsigned Niuniu hand scripts: a hand's events built from cards chosen by hand, for
what-if analysis (``croupier hand replay --unsigned``), golden vectors and tests.

:func:`script_hand` plays a hand through the engine as the dealer would - dice, cards
and reveals where the rules ask for them - but deals the cards it is given per target
(``seat:<n>``, or ``banker``/``fu``/``lu``/``shou``/``xi``) and takes every decision
from ``decide`` (by default the timeout move, :meth:`NiuniuEngine.auto_action`). Each
event is verified before it is applied, exactly as in a replay.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from croupier.errors import InvalidInput
from croupier.export import script_opened
from croupier.games import base as g
from croupier.games.niuniu.engine import NiuniuEngine, NiuniuState, Turn

Event = tuple[str, dict[str, Any]]
Decide = Callable[[NiuniuState, Turn], tuple[str, dict[str, Any]]]


opened = script_opened  # the hand.opened of a script (croupier.export)


def script_hand(
    eng: NiuniuEngine,
    opened_payload: Mapping[str, Any],
    *,
    cards: Mapping[str, Sequence[str]],
    dice: Sequence[int] = (),
    bets: Sequence[tuple[int, str, int]] = (),
    before_close: Sequence[tuple[int, str, dict[str, Any]]] = (),
    decide: Decide | None = None,
    hand_id: str = "script",
) -> tuple[list[Event], NiuniuState]:
    """The events of one whole hand and its final state (see the module docstring).
    ``before_close`` are actions taken while bets are open (百人牛牛's queue)."""
    events: list[Event] = []
    state = eng.open(hand_id, opened_payload)
    events.append((g.HAND_OPENED, dict(opened_payload)))

    def step(type_: str, payload: dict[str, Any]) -> None:
        eng.step(state, type_, payload)
        events.append((type_, payload))

    for seat, action, args in before_close:
        step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": dict(args)})
    for seat, spot, amount in bets:
        step(g.BET_PLACED, {"seat": seat, "spot": spot, "amount": amount})
    step(g.BETTING_CLOSED, {})
    left = {k: list(v) for k, v in cards.items()}
    rolls = list(dice)
    pos = 0
    while not eng.is_over(state):
        req = eng.next_deal(state)
        if req is not None:
            if req.dice:
                if not rolls:
                    raise InvalidInput("the script needs another die value")
                roll = len(dice) - len(rolls)
                step(
                    g.DICE_ROLLED,
                    {"dice": [rolls.pop(0)], "faces": list(req.die_faces()), "roll": roll},
                )
            for t in req.reveal:
                seat = int(t.split(":")[1])
                step(g.CARDS_REVEALED, {"to": t, "cards": list(state.play[seat].cards)})
            if req.cards:
                dealt = []
                for d in req.cards:
                    if not left.get(d.to):
                        raise InvalidInput(f"the script gives no more cards for {d.to}")
                    dealt.append({"to": d.to, "card": left[d.to].pop(0), "pos": pos, "up": d.up})
                    pos += 1
                step(g.CARD_DEALT, {"cards": dealt})
            continue
        turn = eng.to_act(state)
        if turn is None:
            raise InvalidInput(f"the hand waits for nobody at {state.phase}")
        if decide is None:
            auto = eng.auto_action(state)
            assert auto is not None
            action, args = auto[1], auto[2]
        else:
            action, args = decide(state, turn)
        step(g.ACTION_TAKEN, {"seat": turn.seat, "action": action, "args": args})
    step(g.HAND_CLOSED, {"positions_used": pos, "carry": eng.carry(state)})
    return events, state
