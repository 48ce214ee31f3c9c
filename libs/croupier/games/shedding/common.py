"""Event checks the shedding engines share: a player's action and its args, a deal of
face-down cards from the deck (one or two copies), the die that picks who starts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from croupier.cards import parse_card
from croupier.errors import ActionRejected, InvalidInput, RuleViolation
from croupier.games import base as g

HIDDEN = "??"


def is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_action(
    p: Mapping[str, Any], allowed: Mapping[str, set[str]]
) -> tuple[int, str, Mapping[str, Any]]:
    """``(seat, action, args)`` of an ``action.taken``: a known action whose args are
    among ``allowed[action]`` (plus ``auto: "timeout"`` on a 托管 move)."""
    try:
        seat, action, args = p["seat"], str(p["action"]), p.get("args", {})
    except (KeyError, TypeError, ValueError) as e:
        raise ActionRejected(f"malformed action: {e}", reason="malformed") from e
    if not is_int(seat):
        raise ActionRejected("seat must be an integer", reason="malformed")
    if action not in allowed:
        raise ActionRejected(
            f"unknown action {action!r}; one of {sorted(allowed)}", reason="unknown_action"
        )
    if not isinstance(args, Mapping):
        raise ActionRejected("args must be an object", reason="malformed")
    extra = set(args) - allowed[action] - {"auto"}
    if extra:
        raise ActionRejected(
            f"{action} takes {sorted(allowed[action])}, not {sorted(extra)}", reason="malformed"
        )
    if "auto" in args and args["auto"] != "timeout":
        raise ActionRejected("args.auto can only be 'timeout'", reason="malformed")
    return int(seat), action, args


def check_deal(req: g.DealRequest | None, p: Mapping[str, Any], copies: int) -> None:
    """``card.dealt`` must deal exactly what ``req`` asks (targets, face down or up),
    real cards (or ``??`` in a redacted view), no card more often than the deck holds
    it, at whole positions."""
    want = req.cards if req is not None else ()
    if not want:
        raise RuleViolation("no card is due now", reason="illegal_deal")
    cards = p.get("cards")
    if not isinstance(cards, list) or len(cards) != len(want):
        raise RuleViolation(f"{len(want)} card(s) are due in this deal", reason="illegal_deal")
    seen: Counter[str] = Counter()
    for c, d in zip(cards, want, strict=True):
        if not isinstance(c, Mapping):
            raise RuleViolation("each dealt card must be an object", reason="malformed")
        if c.get("to") != d.to or c.get("up") is not d.up:
            raise RuleViolation(
                f"next card goes to {d.to} {'up' if d.up else 'down'}, not "
                f"{c.get('to')!r} up={c.get('up')!r}",
                reason="illegal_deal",
            )
        card = c.get("card")
        if card != HIDDEN:
            try:
                ok = parse_card(str(card)) == card
            except InvalidInput:
                ok = False
            if not ok:
                raise RuleViolation(f"{card!r} is not a card", reason="bad_card")
            seen[str(card)] += 1
            if seen[str(card)] > copies:
                raise RuleViolation(
                    f"{card} dealt more often than the {copies} deck(s) hold it",
                    reason="bad_card",
                )
        pos = c.get("pos")
        if not isinstance(pos, int) or isinstance(pos, bool) or pos < 0:
            raise RuleViolation("card position must be an integer >= 0", reason="malformed")


def check_die(p: Mapping[str, Any], faces: int, what: str) -> int:
    """``dice.rolled`` must be one die with ``faces`` faces; returns its value."""
    dice = p.get("dice")
    if p.get("faces") != [faces] or not isinstance(dice, list) or len(dice) != 1:
        raise RuleViolation(f"{what} is one die with {faces} faces", reason="bad_roll")
    value = dice[0]
    if not is_int(value) or not 1 <= value <= faces:
        raise RuleViolation(f"a die shows 1..{faces}, got {value!r}", reason="bad_roll")
    return int(value)
