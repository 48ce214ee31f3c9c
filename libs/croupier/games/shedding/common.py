"""Event checks the shedding engines share: a player's action and its args, a deal of
face-down cards from the deck (one or two copies), the die that picks who starts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from croupier.cards import is_card
from croupier.errors import ActionRejected, ConfigError, RuleViolation
from croupier.games import base as g
from croupier.games.common import (
    action_fields,
    args_object,
    check_auto,
    check_dealt,
    is_int,
)
from croupier.games.shedding.moves import Shape

HIDDEN = "??"


class Direction(StrEnum):
    """Which way the turn passes. Seat numbers increase clockwise (the project's
    convention, as in :mod:`croupier.money.pots` and the poker and 筒子 engines):
    clockwise is the next higher seat, counter-clockwise (逆时针) the next lower one,
    wrapping round."""

    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter_clockwise"

    @property
    def step(self) -> int:
        """+1 or -1: the index step through the seats in increasing order."""
        return 1 if self is Direction.CLOCKWISE else -1


def play_direction(raw: Mapping[str, Any]) -> Direction:
    """The config's ``play.direction``."""
    try:
        return Direction(str(raw["play"]["direction"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ConfigError(f"config play.direction: {e!r}") from e


def parse_action(
    p: Mapping[str, Any], allowed: Mapping[str, set[str]]
) -> tuple[int, str, Mapping[str, Any]]:
    """``(seat, action, args)`` of an ``action.taken``: a known action whose args are
    among ``allowed[action]`` (plus ``auto: "timeout"`` on a 托管 move)."""
    seat, action, raw = action_fields(p, exact_seat=True)
    if action not in allowed:
        raise ActionRejected(
            f"unknown action {action!r}; one of {sorted(allowed)}", reason="unknown_action"
        )
    args = args_object(raw)
    extra = set(args) - allowed[action] - {"auto"}
    if extra:
        raise ActionRejected(
            f"{action} takes {sorted(allowed[action])}, not {sorted(extra)}", reason="malformed"
        )
    check_auto(args)
    return seat, action, args


@dataclass(frozen=True, slots=True)
class Move:
    """An ``action.taken`` as its check read it (kept by the engine's
    :class:`~croupier.games.common.Checked`): the seat, the action, its args and, for
    a play, its cards and their reading as declared (:func:`~.moves.check_play`'s,
    which the cards on the table only accept or refuse)."""

    seat: int
    action: str
    args: Mapping[str, Any]
    cards: tuple[str, ...] = ()
    shape: Shape | None = None


def check_deal(req: g.DealRequest | None, p: Mapping[str, Any], copies: int) -> None:
    """``card.dealt`` must deal exactly what ``req`` asks (targets, face down or up),
    real cards (or ``??`` in a redacted view), no card more often than the deck holds
    it, at whole positions."""
    seen: Counter[str] = Counter()

    def counted(card: object) -> str:
        if card == HIDDEN:
            return HIDDEN
        if not is_card(card):
            raise RuleViolation(f"{card!r} is not a card", reason="bad_card")
        seen[card] += 1
        if seen[card] > copies:
            raise RuleViolation(
                f"{card} dealt more often than the {copies} deck(s) hold it", reason="bad_card"
            )
        return card

    check_dealt(req, p, counted)


def check_die(p: Mapping[str, Any], faces: int, what: str) -> int:
    """``dice.rolled`` must be one die with ``faces`` faces; returns its value."""
    dice = p.get("dice")
    if p.get("faces") != [faces] or not isinstance(dice, list) or len(dice) != 1:
        raise RuleViolation(f"{what} is one die with {faces} faces", reason="bad_roll")
    value = dice[0]
    if not is_int(value) or not 1 <= value <= faces:
        raise RuleViolation(f"a die shows 1..{faces}, got {value!r}", reason="bad_roll")
    return int(value)
