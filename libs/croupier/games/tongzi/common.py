"""What both 筒子 engines share: checking the dealer's dice and tiles against what the
rules asked for, seat order around the table, and reading the table's config.

Seat direction: seat numbers increase clockwise (the project's convention, as in
:mod:`croupier.money.pots`); counter-clockwise is the order of decreasing seat numbers,
wrapping from the lowest seat to the highest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from croupier.errors import ActionRejected, ConfigError, NotationError, RuleViolation
from croupier.games import base as g
from croupier.games.common import action_fields, check_auto, check_dealt
from croupier.games.tongzi.tiles import COPIES, parse_tile


class Direction(StrEnum):
    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter_clockwise"


def around(seats: Sequence[int], start: int, direction: Direction) -> list[int]:
    """``seats`` (seat numbers, any order) starting with ``start`` and going round the
    table in ``direction``."""
    ring = sorted(seats)
    if direction is Direction.COUNTER_CLOCKWISE:
        ring.reverse()
    i = ring.index(start)
    return ring[i:] + ring[:i]


def check_dice(req: g.DealRequest | None, p: Mapping[str, Any], last_roll: int) -> list[int]:
    """A ``dice.rolled`` payload against the request it answers: as many dice as asked,
    each within its faces, the faces as asked, ``roll`` an integer after the hand's last
    roll. Returns the dice."""
    if req is None or not req.dice:
        raise RuleViolation("no dice are due now", reason="illegal_roll")
    faces = list(req.die_faces())
    dice, got_faces, roll = p.get("dice"), p.get("faces"), p.get("roll")
    if not isinstance(dice, list) or len(dice) != req.dice:
        raise RuleViolation(f"{req.dice} die/dice are due, got {dice!r}", reason="illegal_roll")
    if got_faces is not None and got_faces != faces:
        raise RuleViolation(
            f"dice with faces {faces} are due, got {got_faces!r}", reason="illegal_roll"
        )
    for d, f in zip(dice, faces, strict=True):
        if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= f:
            raise RuleViolation(f"a die of {f} faces shows 1..{f}, got {d!r}", reason="bad_die")
    if not isinstance(roll, int) or isinstance(roll, bool) or roll <= last_roll:
        raise RuleViolation(
            f"roll must be an integer after {last_roll}, got {roll!r}", reason="malformed"
        )
    return list(dice)


def check_tiles(
    req: g.DealRequest | None, p: Mapping[str, Any], held: Sequence[str]
) -> list[tuple[str, str, bool, int]]:
    """A ``card.dealt`` payload against the request it answers: the targets and faces
    as asked, every tile a 筒子 tile, no kind more than four times with the tiles
    already ``held`` in the hand, positions integers >= 0. Returns (to, tile, up, pos)."""
    count: dict[str, int] = {}
    for t in held:
        count[t] = count.get(t, 0) + 1

    def counted(raw: object) -> str:
        try:
            tile = parse_tile(raw)
        except NotationError as e:
            raise RuleViolation(e.message, reason="bad_card") from e
        if tile != raw:
            raise RuleViolation(f"{raw!r} is not in canonical form", reason="bad_card")
        count[tile] = count.get(tile, 0) + 1
        if count[tile] > COPIES:
            raise RuleViolation(f"{tile} dealt more than {COPIES} times", reason="bad_card")
        return tile

    return check_dealt(req, p, counted, noun="tile")


def target(seat: int) -> str:
    return f"seat:{seat}"


def seat_of(to: str) -> int:
    return int(to.split(":", 1)[1])


def parse_action(p: Mapping[str, Any], allowed_args: set[str]) -> tuple[int, str, dict[str, Any]]:
    """``action.taken`` fields; ``args`` may also carry the dealer's ``auto`` marker,
    which is only ever ``"timeout"``."""
    seat_no, name, args = action_fields(p, exact_seat=True)
    if not isinstance(args, Mapping) or set(args) - allowed_args - {"auto"}:
        raise ActionRejected(
            f"args may only hold {sorted(allowed_args)}, got {args!r}", reason="malformed"
        )
    check_auto(args)
    return seat_no, name, dict(args)


def config_int(raw: Mapping[str, Any], *path: str) -> int:
    node: Any = raw
    try:
        for k in path:
            node = node[k]
        if isinstance(node, Mapping):
            node = node["value"]
        if not isinstance(node, int) or isinstance(node, bool):
            raise TypeError(f"not an integer: {node!r}")
        return node
    except (KeyError, TypeError) as e:
        raise ConfigError(f"config {'.'.join(path)}: {e!r}") from e


def require(raw: Mapping[str, Any], value: object, *path: str) -> None:
    """A config value the engine implements one way only: refuse any other."""
    node: Any = raw
    try:
        for k in path:
            node = node[k]
    except (KeyError, TypeError) as e:
        raise ConfigError(f"config {'.'.join(path)}: {e!r}") from e
    if node != value:
        raise ConfigError(f"config {'.'.join(path)} must be {value!r}, got {node!r}")
