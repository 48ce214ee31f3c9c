"""Checking a ``dice.rolled`` event against what the engine asked the dealer for.

Every die of a dice game, and every reel stop of a slot (a "die" with as many faces as
the strip has stops), comes from the dealer's fair RNG as ``dice.rolled {dice, faces,
roll}`` (:mod:`croupier.games.base`). The engine names the faces it wants in a
:class:`~croupier.games.base.DealRequest`; :func:`check_roll` checks that the event
answers exactly that request: the same faces, one value ``1..faces[i]`` per die, and
the shoe's roll counter continuing from the hand's previous roll. Whether the values
are the ones the committed seed gives is the auditor's check once the seed is revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from croupier.errors import RuleViolation


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_roll(p: Mapping[str, Any], faces: Sequence[int], rolls_so_far: int) -> list[int]:
    """The dice of a ``dice.rolled`` payload ``p`` that must answer a request for dice
    with ``faces``, the hand's ``rolls_so_far``-th roll (each hand commits to a fresh seed,
    so its rolls are numbered from 0). Raises :class:`RuleViolation` with a precise
    reason otherwise."""
    dice, got_faces, roll = p.get("dice"), p.get("faces"), p.get("roll")
    if not isinstance(dice, list) or not isinstance(got_faces, list):
        raise RuleViolation("dice.rolled needs lists 'dice' and 'faces'", reason="malformed")
    if got_faces != list(faces):
        raise RuleViolation(
            f"the rules ask for dice with faces {list(faces)}, not {got_faces}",
            reason="illegal_roll",
        )
    if len(dice) != len(faces):
        raise RuleViolation(
            f"{len(faces)} dice are rolled here, not {len(dice)}", reason="illegal_roll"
        )
    for i, (d, f) in enumerate(zip(dice, faces, strict=True)):
        if not _is_int(d) or not 1 <= d <= f:
            raise RuleViolation(f"die {i} shows {d!r}, not a value 1..{f}", reason="bad_die")
    if not _is_int(roll) or roll != rolls_so_far:
        raise RuleViolation(
            f"this is roll {rolls_so_far} of the hand, the event says {roll!r}",
            reason="bad_roll_number",
        )
    return list(dice)
