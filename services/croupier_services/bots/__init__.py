"""Simulated players for the demo and the benchmarks: what each family's bots bet, what
they do when the rules wait for a decision, and the theoretical RTP per spot the demo
compares against.

Each family has a module here (``bots/<family>.py``) defining a :class:`Bot` subclass
decorated with :func:`register`; modules are discovered by name, so adding a family
touches no other file.

Bots only make moves the rules allow: :func:`next_move` checks every decision with the
engine's own ``verify`` (limits included) on the player's view before it is sent, and
replaces a refused one by the rules' automatic move (the dealer plays it on
``ExpireTurn``), logging why.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.games.base import Engine
from croupier.games.registry import engine as engine_for

log = logging.getLogger("croupier.demo.bots")

Events = Sequence[tuple[str, Mapping[str, Any]]]


@dataclass(frozen=True)
class Move:
    """One decision a bot sends with ``Act``: ``stake`` is what it adds on ``spot``
    (used by the demo's tally of stakes per spot; the engine itself derives stakes from
    the action). ``timeout``: the bot lets its turn run out, and the demo asks the
    dealer to play the rules' automatic move (``ExpireTurn``), which must be
    ``action``. ``refused``: why the rules refused the move the bot first chose (it
    was replaced by the automatic move, ``timeout``)."""

    seat: int
    action: str
    args: dict[str, Any] = field(default_factory=dict)
    spot: str = ""
    stake: int = 0
    timeout: bool = False
    refused: str = ""


class Bot:
    """A family's simulated players. ``bets`` are placed with ``PlaceBets`` before
    betting closes; ``move`` is asked after every response until it returns None or
    the hand closes. ``events`` are the hand's events as a player sees them (face-down
    cards redacted to ``"??"``)."""

    family: str = ""

    def bets(
        self, eng: Engine[Any], rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
    ) -> list[tuple[int, str, int]]:
        return []

    def move(self, eng: Engine[Any], events: Events, rng: random.Random) -> Move | None:
        return None

    def seat_to_act(self, eng: Engine[Any], events: Events) -> int | None:
        """The seat whose own view the bot needs before deciding (its face-down cards
        shown), read from the public view; None: the view at hand will do."""
        return None


_BOTS: dict[str, Bot] = {}


def register(cls: type[Bot]) -> type[Bot]:
    _BOTS[cls.family] = cls()
    return cls


@cache
def _load() -> None:
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{m.name}")


def bot_for(variant: str) -> tuple[Engine[Any], Bot]:
    _load()
    eng = engine_for(variant)
    return eng, _BOTS.get(eng.family, Bot())


def bets_for(
    variant: str, rng: random.Random, seats: list[int], shoe_hand_no: int, stack: int
) -> list[tuple[int, str, int]]:
    eng, bot = bot_for(variant)
    return bot.bets(eng, rng, seats, shoe_hand_no, stack)


def seat_to_act(variant: str, events: Events) -> int | None:
    """The seat whose view the family's bot wants next (:meth:`Bot.seat_to_act`)."""
    eng, bot = bot_for(variant)
    return bot.seat_to_act(eng, events)


def next_move(variant: str, events: Events, rng: random.Random) -> Move | None:
    """The decision a bot makes on a hand's events as a player sees them, or None when
    nobody has to decide (no player decisions, the dealer is dealing, the hand is over).
    A decision the engine refuses (:func:`refusal`) is logged and replaced by the rules'
    automatic move (``timeout``, with ``refused`` saying why)."""
    eng, bot = bot_for(variant)
    move = bot.move(eng, events, rng)
    if move is None or move.timeout:
        return move
    why = refusal(eng, events, move)
    if why is None:
        return move
    log.warning(
        "%s: seat %s's %s %s refused (%s); the rules' automatic move replaces it",
        variant,
        move.seat,
        move.action,
        move.args,
        why,
    )
    return Move(move.seat, move.action, timeout=True, refused=why)


def refusal(eng: Engine[Any], events: Events, move: Move) -> str | None:
    """Why the engine would refuse ``move`` now (its ``verify`` of the ``action.taken``,
    every limit included) on the player's view of ``events``, or None if it is legal."""
    st = replay_view(eng, events)
    if st is None:
        return "hand_closed: the hand is over"
    payload = {"seat": move.seat, "action": move.action, "args": move.args}
    try:
        eng.verify(st, g.ACTION_TAKEN, payload)
    except RuleViolation as e:
        return f"{e.reason}: {e}"
    return None


def replay_view(eng: Engine[Any], events: Events) -> Any | None:
    """The state a player's view of ``events`` leads to, applied without verification
    (face-down cards are ``"??"``), or None when the hand is over.

    Views of a hand grow one decision at a time, so the states of recent views are kept
    (:class:`_Views`): a view that extends a kept one only applies its new events. The
    state returned is the kept one: callers read it and never change it."""
    if not events or events[0][0] != g.HAND_OPENED:
        return None
    return _VIEWS.state(eng, events)


@dataclass
class _Kept:
    events: list[tuple[str, Mapping[str, Any]]]
    state: Any | None


class _Views:
    """States of the views last replayed, a few per hand (one per seat's view) and a few
    hands per process, each with the events it was built from."""

    per_hand = 8
    hands = 64

    def __init__(self) -> None:
        self.kept: dict[tuple[int, str], list[_Kept]] = {}

    def state(self, eng: Engine[Any], events: Events) -> Any | None:
        key = (id(eng), repr(sorted(events[0][1].items())))
        views = self.kept.pop(key, [])
        self.kept[key] = views  # most recent hand last
        while len(self.kept) > self.hands:
            del self.kept[next(iter(self.kept))]
        for i, k in enumerate(views):
            n = len(k.events)
            if n <= len(events) and all(k.events[j] == events[j] for j in range(n)):
                views.append(views.pop(i))
                if k.state is not None:
                    k.state = _apply(eng, k.state, events[n:])
                k.events = list(events)
                return k.state
        st = _apply(eng, eng.open("view", events[0][1]), events[1:])
        views.append(_Kept(list(events), st))
        del views[: -self.per_hand]
        return st


def _apply(eng: Engine[Any], st: Any, events: Events) -> Any | None:
    for type_, payload in events:
        if type_ in (g.HAND_CLOSED, g.HAND_OUTCOME, g.HAND_SETTLED):
            return None
        eng.apply(st, type_, payload)
    return st


_VIEWS = _Views()


def stake_between(rng: random.Random, lo: int, hi: int, step: int, cap: int = 100_000) -> int:
    """A random stake in whole ``step`` s between ``lo`` and ``min(hi, cap)``."""
    a, b = -(-lo // step), min(hi, cap) // step
    return rng.randint(a, max(a, b)) * step


@cache
def theoretical_rtp(variant: str) -> dict[str, Fraction]:
    return engine_for(variant).theoretical_rtp()


__all__ = [
    "Bot",
    "Move",
    "bets_for",
    "bot_for",
    "next_move",
    "refusal",
    "register",
    "replay_view",
    "seat_to_act",
    "stake_between",
    "theoretical_rtp",
]
