"""Unsigned poker hand scripts: a hand's events built from chosen cards, dice and
actions, for golden vectors, what-if analysis (``croupier hand replay --unsigned``) and
tests.

:func:`script_hand` plays a hand through the engine as the dealer would — the button die,
cards and reveals where the rules ask for them — dealing the cards it is given per target
(``seat:<n>``, ``board``) and taking the actions in the order given. Each event is
verified before it is applied, exactly as in a replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from croupier.errors import InvalidInput
from croupier.export import script_opened
from croupier.games import base as g

Event = tuple[str, dict[str, Any]]
Action = tuple[int, str, dict[str, Any]]


opened = script_opened  # the hand.opened of a script (croupier.export)


class Feeder:
    """The dealer's part of a scripted hand: deals the given cards per target (then from
    ``deck``), rolls the given dice and turns face-down cards up, whenever the rules ask
    for them."""

    def __init__(
        self,
        cards: Mapping[str, Sequence[str]],
        dice: Sequence[int] = (),
        deck: Sequence[str] = (),
    ) -> None:
        self.queues = {t: list(c) for t, c in cards.items()}
        self.deck = list(deck)  # for targets without cards of their own
        self.rolls = list(dice)
        self.face_down: dict[str, list[str]] = {}
        self.pos = 0

    def advance(self, eng: g.Engine[Any], state: Any) -> list[Event]:
        """Step every dealer event due now; returns them."""
        out: list[Event] = []

        def step(type_: str, payload: dict[str, Any]) -> None:
            eng.step(state, type_, payload)
            out.append((type_, payload))

        while not eng.is_over(state) and (req := eng.next_deal(state)) is not None:
            if req.dice:
                if not self.rolls:
                    raise InvalidInput(f"the rules roll {req.dice} die/dice; give dice=")
                faces = list(req.die_faces())
                step(g.DICE_ROLLED, {"dice": [self.rolls.pop(0)], "faces": faces, "roll": 0})
            for target in req.reveal:
                cards = list(self.face_down.get(target, []))
                step(g.CARDS_REVEALED, {"to": target, "cards": cards})
            if req.cards:
                rows = []
                for d in req.cards:
                    q = self.queues.get(d.to) or self.deck
                    if not q:
                        raise InvalidInput(f"no card left for {d.to}")
                    card = q.pop(0)
                    rows.append({"to": d.to, "card": card, "pos": self.pos, "up": d.up})
                    if not d.up:
                        self.face_down.setdefault(d.to, []).append(card)
                    self.pos += 1
                step(g.CARD_DEALT, {"cards": rows})
        return out


def script_hand(
    eng: g.Engine[Any],
    opened_payload: Mapping[str, Any],
    *,
    cards: Mapping[str, Sequence[str]],
    actions: Sequence[Action] = (),
    dice: Sequence[int] = (),
    hand_id: str = "script",
    close: bool = True,
) -> tuple[list[Event], Any]:
    """The events of one hand and its final state. Stops when the hand is over (closed
    with ``hand.closed`` when ``close``) or when the actions run out."""
    state = eng.open(hand_id, opened_payload)
    events: list[Event] = [(g.HAND_OPENED, dict(opened_payload))]
    feeder = Feeder(cards, dice)
    eng.step(state, g.BETTING_CLOSED, {})
    events.append((g.BETTING_CLOSED, {}))
    todo = list(actions)
    while True:
        events += feeder.advance(eng, state)
        if eng.is_over(state) or not todo:
            break
        seat, action, args = todo.pop(0)
        payload = {"seat": seat, "action": action, "args": dict(args)}
        eng.step(state, g.ACTION_TAKEN, payload)
        events.append((g.ACTION_TAKEN, payload))
    if close and eng.is_over(state):
        payload = {"positions_used": feeder.pos, "carry": eng.carry(state)}
        eng.step(state, g.HAND_CLOSED, payload)
        events.append((g.HAND_CLOSED, payload))
    return events, state
