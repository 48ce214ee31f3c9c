"""Event checks that several game families make the same way.

* ``hand.opened``: :func:`carry_of` reads the ``carry`` the previous hand left.
* ``bet.placed {seat, spot, amount}``: :func:`bet_fields` reads the fields,
  :func:`stake_amount` checks the amount (positive, in whole stake steps).
* ``action.taken {seat, action, args}``: :func:`action_fields` reads the three fields,
  :func:`args_object` insists that ``args`` is an object, :func:`int_arg` reads an
  integer argument, :func:`check_auto` accepts
  the one value of the reserved ``args.auto`` (``"timeout"``, the dealer's mark on a
  move it made for a player whose turn ran out, :meth:`Engine.auto_action`).
* ``card.dealt {cards: [{to, card, up, pos}]}``: :func:`deal_rows` pairs the dealt
  rows with the :class:`~croupier.games.base.Deal` s the engine asked for,
  :func:`check_target` and :func:`position` check one row's target and face and its
  shoe position; :func:`check_dealt` runs them all, in that order, around a family's
  own reading of the card (:func:`unseen_card` reads one not dealt before from a fixed
  deck), worded by default or by a family's :class:`DealtWording`.
* ``dice.rolled {dice, faces, roll}``: :func:`check_roll` checks the dice against the
  faces asked for and the hand's roll counter (dice and slots, whose every hand commits
  to a fresh seed).
* outcomes and rule tables: :func:`plain_fraction` writes an exact multiple or rate.
* a step: :class:`Checked` keeps what an event's check read of its payload for the
  move that follows with the same payload.

A family whose checks differ (another order, other reasons) keeps its own; these are
for the checks that are the same. Every failure raises :class:`ActionRejected` (an
action) or :class:`RuleViolation` (a dealer's event) with a precise message and
``reason``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeGuard, TypeVar

from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.games import base as g

T = TypeVar("T")

AUTO = "timeout"
"""The one value of ``args.auto``: the dealer made this move on a timeout."""


def is_int(x: object) -> TypeGuard[int]:
    """An ``int`` and not a ``bool`` (JSON's integers)."""
    return isinstance(x, int) and not isinstance(x, bool)


def carry_of(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``carry`` of a ``hand.opened`` payload (``{}`` when absent), which must be an
    object (:class:`RuleViolation` ``malformed``)."""
    carry = payload.get("carry", {})
    if not isinstance(carry, Mapping):
        raise RuleViolation("carry must be an object", reason="malformed")
    return carry


# -- bet.placed --------------------------------------------------------------------------


def bet_fields(p: Mapping[str, Any]) -> tuple[int, str, Any]:
    """``(seat, spot, amount)`` of a ``bet.placed`` payload, the seat read with
    ``int()``, the amount unchecked. Raises :class:`BetRejected` (``malformed``)."""
    try:
        return int(p["seat"]), str(p["spot"]), p["amount"]
    except (KeyError, TypeError, ValueError) as e:
        raise BetRejected(f"malformed bet: {e}", reason="malformed") from e


def stake_amount(amount: object, step: int = 1) -> int:
    """A bet's amount: a positive integer, a whole number of ``step`` s (``bad_amount``)."""
    if not is_int(amount) or amount <= 0:
        raise BetRejected(f"amount must be a positive integer, got {amount!r}", reason="bad_amount")
    if amount % step:
        raise BetRejected(f"amount must be a multiple of {step}", reason="bad_amount")
    return amount


# -- action.taken ------------------------------------------------------------------------


def action_fields(p: Mapping[str, Any], *, exact_seat: bool = False) -> tuple[int, str, Any]:
    """``(seat, action, args)`` of an ``action.taken`` payload, ``args`` as given
    (default ``{}``), unchecked. The seat is read with ``int()``; with ``exact_seat`` it
    must already be an integer. Raises :class:`ActionRejected` (``malformed``)."""
    try:
        seat, action, args = p["seat"], str(p["action"]), p.get("args", {})
        if not exact_seat:
            seat = int(seat)
    except (KeyError, TypeError, ValueError) as e:
        raise ActionRejected(f"malformed action: {e}", reason="malformed") from e
    if not is_int(seat):
        raise ActionRejected(f"seat must be an integer, got {seat!r}", reason="malformed")
    return int(seat), action, args


def args_object(args: object) -> Mapping[str, Any]:
    """``args`` of an action, which must be an object (``malformed`` otherwise). A
    ``dict`` (every parsed payload's) is one without the abstract class's check."""
    if type(args) is not dict and not isinstance(args, Mapping):
        raise ActionRejected("args must be an object", reason="malformed")
    return args


def int_arg(args: Mapping[str, Any], name: str) -> int:
    """An action's integer argument ``args[name]`` (``malformed`` if it is not one)."""
    v = args.get(name)
    if not is_int(v):
        raise ActionRejected(f"'{name}' must be an integer, got {v!r}", reason="malformed")
    return v


def check_auto(args: Mapping[str, Any]) -> None:
    """``args.auto``, where present, may only be ``"timeout"`` (``malformed``)."""
    if args.get("auto", AUTO) != AUTO:
        raise ActionRejected(f"args.auto can only be {AUTO!r}", reason="malformed")


# -- card.dealt --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealtWording:
    """The words of the ``card.dealt`` refusals (:func:`deal_rows`, :func:`check_target`),
    as :meth:`str.format` templates, for a family that words them its own way.

    ``none_due`` and ``count`` (``illegal_deal``) know ``{noun}`` and ``{n}``, the number
    of cards due; ``target`` (``illegal_deal``) knows ``{noun}``, ``{to}`` and ``{face}``
    (``up`` or ``down``) of the card due, and the row as dealt: ``{row}``, ``{got_to}``,
    ``{got_up}``. With ``object_first`` a row that is not an object is ``malformed``;
    without, it is refused with ``target`` like a row going elsewhere (``{got_to}`` and
    ``{got_up}`` are then ``None``)."""

    none_due: str = "no {noun} is due now"
    count: str = "{n} {noun}(s) are due in this deal"
    target: str = "next {noun} goes to {to} {face}, not {got_to!r} up={got_up!r}"
    object_first: bool = True


DEALT = DealtWording()
"""The default wording of the ``card.dealt`` refusals."""

DEALT_FACE = DealtWording(
    none_due="no cards are to be dealt now",
    count="expected {n} cards",
    target="the next card goes face {face} to {to}",
    object_first=False,
)
"""The wording of the ``card.dealt`` refusals of 十三水 and 幸运五张."""

NOT_FRESH_52 = "{card!r} is not a fresh 52-card card"
"""The :func:`unseen_card` refusal of the families dealt from one 52-card deck without
jokers that word it so (十三水, 幸运五张, 楚汉德州)."""


def deal_rows(
    req: g.DealRequest | None,
    p: Mapping[str, Any],
    noun: str = "card",
    wording: DealtWording = DEALT,
) -> list[tuple[Any, g.Deal]]:
    """The rows of a ``card.dealt`` payload, each with the :class:`Deal` it answers: a
    deal must be due (``req`` asks for cards) and the payload must hold a list of as many
    rows (``illegal_deal`` otherwise). The rows themselves are not checked yet."""
    want = req.cards if req is not None else ()
    if not want:
        raise RuleViolation(wording.none_due.format(noun=noun), reason="illegal_deal")
    rows = p.get("cards")
    if not isinstance(rows, list) or len(rows) != len(want):
        raise RuleViolation(wording.count.format(noun=noun, n=len(want)), reason="illegal_deal")
    return list(zip(rows, want, strict=True))


def check_target(
    c: object, d: g.Deal, noun: str = "card", wording: DealtWording = DEALT
) -> Mapping[str, Any]:
    """One dealt row: an object (``malformed``) going to ``d.to`` face up or down as
    ``d`` asks (``illegal_deal``)."""
    if type(c) is dict or isinstance(c, Mapping):
        if c.get("to") == d.to and c.get("up") is d.up:
            return c
    elif wording.object_first:
        raise RuleViolation(f"each dealt {noun} must be an object", reason="malformed")
    got = c if isinstance(c, Mapping) else {}
    raise RuleViolation(
        wording.target.format(
            noun=noun,
            to=d.to,
            face="up" if d.up else "down",
            row=c,
            got_to=got.get("to"),
            got_up=got.get("up"),
        ),
        reason="illegal_deal",
    )


def position(c: Mapping[str, Any], noun: str = "card") -> int:
    """A dealt row's shoe position, an integer >= 0 (``malformed``)."""
    pos = c.get("pos")
    if not is_int(pos) or pos < 0:
        raise RuleViolation(f"{noun} position must be an integer >= 0", reason="malformed")
    return pos


def check_dealt(
    req: g.DealRequest | None,
    p: Mapping[str, Any],
    read: Callable[[object], str],
    noun: str = "card",
    wording: DealtWording = DEALT,
) -> list[tuple[str, str, bool, int]]:
    """A ``card.dealt`` payload against the request it answers, row by row: the target
    and face (:func:`check_target`), the card by the family's ``read`` (which returns
    it in canonical form or raises ``bad_card``, and may keep count of what it has
    seen), then the position (:func:`position`). Returns ``(to, card, up, pos)`` rows."""
    out = []
    for raw, d in deal_rows(req, p, noun, wording):
        c = check_target(raw, d, noun, wording)
        card = read(c.get("card"))
        out.append((d.to, card, d.up, position(c, noun)))
    return out


def unseen_card(deck: Collection[str], seen: set[str], refusal: str) -> Callable[[object], str]:
    """A ``read`` for :func:`check_dealt`: a card of ``deck`` (written as the deck writes
    it) that is not in ``seen``, which it then joins; any other is refused with
    ``refusal`` (a template of ``{card}``, the value dealt) as ``bad_card``."""

    def read(card: object) -> str:
        if card not in deck or card in seen:
            raise RuleViolation(refusal.format(card=card), reason="bad_card")
        seen.add(str(card))
        return str(card)

    return read


# -- dice.rolled -------------------------------------------------------------------------


def check_roll(p: Mapping[str, Any], faces: Sequence[int], rolls_so_far: int) -> list[int]:
    """The dice of a ``dice.rolled`` payload ``p`` that must answer a request for dice
    with ``faces``, the hand's ``rolls_so_far``-th roll (each hand commits to a fresh
    seed, so its rolls are numbered from 0): the same faces, one value ``1..faces[i]``
    per die, the roll number. Whether the values are the ones the committed seed gives
    is the auditor's check once the seed is revealed."""
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
    for i, (v, f) in enumerate(zip(dice, faces, strict=True)):
        if not is_int(v) or not 1 <= v <= f:
            raise RuleViolation(f"die {i} shows {v!r}, not a value 1..{f}", reason="bad_die")
    if not is_int(roll) or roll != rolls_so_far:
        raise RuleViolation(
            f"this is roll {rolls_so_far} of the hand, the event says {roll!r}",
            reason="bad_roll_number",
        )
    return list(dice)


def check_requested_roll(
    req: g.DealRequest | None, p: Mapping[str, Any], rolls_so_far: int
) -> list[int]:
    """:func:`check_roll` against the engine's request, which must be due
    (:class:`ActionRejected` ``illegal_roll`` otherwise)."""
    if req is None:
        raise ActionRejected("no dice are to be rolled now", reason="illegal_roll")
    return check_roll(p, req.die_faces(), rolls_so_far)


# -- outcomes ----------------------------------------------------------------------------


def plain_fraction(f: Fraction) -> str:
    """An exact value as a game's outcome and rule tables write it: ``"3"`` when whole,
    else ``"n/d"`` (``"19/20"``)."""
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


class Checked(Generic[T]):
    """What an engine's check last read of an event's payload (an action parsed, a
    play's cards read), by the payload object: the move of that same payload reads it
    instead of parsing the payload again (a step checks an event, then makes it, with
    one payload). What is kept must be read from the payload alone — never from the
    state — so that it holds for whatever state the payload is then applied to; another
    payload object is parsed afresh. One entry: nothing grows."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Mapping[str, Any], T] | None = None

    def keep(self, p: Mapping[str, Any], value: T) -> T:
        self._last = (p, value)
        return value

    def of(self, p: Mapping[str, Any]) -> T | None:
        last = self._last
        return last[1] if last is not None and last[0] is p else None
