"""Betting and pot mechanics shared by the poker games: seats in clockwise order, the
button, chips put in, the deal checks, a no-limit betting round, and the money at the
end (side pots through :func:`croupier.money.settle_pots`, a single pot split by claims
through :func:`croupier.money.settle`).

Clockwise is increasing seat number, wrapping round: the seat after the highest seat is
the lowest. Every function is pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any

from croupier.cards import CARDS52
from croupier.errors import ActionRejected, ConfigError, RuleViolation
from croupier.games import base as g
from croupier.games.common import (
    DealtWording,
    action_fields,
    args_object,
    check_auto,
    int_arg,
    unseen_card,
)
from croupier.games.common import check_dealt as check_rows
from croupier.money import (
    Claim,
    PotSeat,
    RakePolicy,
    SettlementResult,
    settle,
    settle_pots,
)

_DECK = frozenset(CARDS52)
_DEALT = DealtWording(target="expected a card to {to} face {face}, got {row!r}", object_first=False)
HIDDEN = "??"


# ------------------------------------------------------------------------------ seats


def clockwise(seats: Sequence[int], after: int) -> list[int]:
    """``seats`` in clockwise order starting with the first seat after ``after``
    (``after`` itself last if it is one of them)."""
    order = sorted(seats)
    later = [s for s in order if s > after]
    return later + [s for s in order if s <= after]


def next_seat(seats: Sequence[int], after: int) -> int:
    return clockwise(seats, after)[0]


class ButtonRule(Enum):
    """How a hand's button (庄家) is placed."""

    ROTATE = "rotate"  # random on a table's first hand, then clockwise
    RANDOM = "random"  # a die every hand


def button_from_carry(
    rule: ButtonRule, seats: Sequence[int], carry: Mapping[str, Any]
) -> int | None:
    """The button when it follows from the previous hand, or None (a die decides)."""
    if rule is not ButtonRule.ROTATE:
        return None
    prev = carry.get("button")
    if not isinstance(prev, int) or isinstance(prev, bool):
        return None
    return next_seat(seats, prev)


def button_die(seats: Sequence[int]) -> g.DealRequest:
    """One die with as many faces as seats: face ``k`` puts the button on the k-th seat."""
    return g.DealRequest(dice=1, faces=(len(seats),))


def button_from_roll(seats: Sequence[int], payload: Mapping[str, Any]) -> int:
    """Check a ``dice.rolled`` against :func:`button_die` and return the button seat."""
    dice, faces = g.check_dice(payload)
    if faces != [len(seats)] or len(dice) != 1:
        raise RuleViolation(
            f"the button takes one {len(seats)}-sided die, got faces {faces}", reason="bad_dice"
        )
    return sorted(seats)[dice[0] - 1]


# ------------------------------------------------------------------------------ chips


@dataclass
class Chips:
    """What each seat carried into the hand and has put in so far."""

    stack: dict[int, int]
    put: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for s in self.stack:
            self.put.setdefault(s, 0)

    def left(self, seat: int) -> int:
        return self.stack[seat] - self.put[seat]

    def pay(self, seat: int, amount: int) -> None:
        if not 0 <= amount <= self.left(seat):
            raise AssertionError(f"seat {seat} cannot pay {amount}")
        self.put[seat] += amount

    @property
    def pot(self) -> int:
        return sum(self.put.values())


def parse_action(p: Mapping[str, Any], known: Sequence[str]) -> tuple[int, str, Mapping[str, Any]]:
    """``action.taken`` → (seat, action, args), with precise errors."""
    seat, action, raw = action_fields(p, exact_seat=True)
    args = args_object(raw)
    if action not in known:
        raise ActionRejected(
            f"unknown action {action!r}; one of {sorted(known)}", reason="unknown_action"
        )
    return seat, action, args


def check_args(action: str, args: Mapping[str, Any], takes: Sequence[str] = ()) -> None:
    """An action's ``args`` hold only the fields it ``takes`` (and ``auto``, the mark of a
    timeout move): any other field is refused (``malformed``), so that no event carries
    an amount or a target the engine would ignore."""
    extra = sorted(set(args) - {*takes, "auto"})
    if extra:
        want = f"only {', '.join(repr(t) for t in takes)}" if takes else "no arguments"
        raise ActionRejected(f"'{action}' takes {want}, not {extra}", reason="malformed")
    check_auto(args)


# ------------------------------------------------------------------------------ deals


def check_dealt(
    req: g.DealRequest | None, p: Mapping[str, Any], dealt: set[str]
) -> list[tuple[str, str, bool, int]]:
    """A ``card.dealt`` must be exactly the cards ``req`` asked for: same targets, same
    face, in order; each card a real card not dealt before in this hand. Returns
    (to, card, up, pos) rows."""
    read = unseen_card(_DECK, set(dealt), "{card!r} is not an undealt card of the deck")
    return check_rows(req, p, read, wording=_DEALT)


def seat_target(seat: int) -> str:
    return f"seat:{seat}"


def target_seat(to: str) -> int | None:
    if to.startswith("seat:"):
        try:
            return int(to[5:])
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------------- no-limit round


@dataclass
class Round:
    """One betting round of a no-limit game (德州2+3 下注规则).

    ``bet`` is the round contribution everyone still in must match; ``full`` is the
    level a raise must reach to be a full raise (twice ``bet``, or the minimum bet when
    nobody has bet). ``acted`` holds the seats that acted since the last full raise: an
    all-in below a full raise makes them act again, but only to call or fold.
    """

    index: int
    order: list[int]  # seats in clockwise acting order for this round
    put: dict[int, int] = field(default_factory=dict)
    bet: int = 0
    acted: set[int] = field(default_factory=set)
    turn: int | None = None
    raises: int = 0


@dataclass(frozen=True, slots=True)
class NoLimit:
    """The no-limit rules: the minimum bet, the minimum raise (a raise takes the round's
    bet to at least ``raise_factor`` times what it was), and whether the first round
    allows a check."""

    min_bet: int
    raise_factor: int = 2
    check_in_first_round: bool = False


@dataclass(frozen=True, slots=True)
class Options:
    """What the seat to act may do now, with the amounts (round contributions)."""

    seat: int
    to_call: int
    can_check: bool
    can_call: bool
    can_raise: bool
    min_raise_to: int  # round total
    max_raise_to: int  # round total (all in)


def round_needs(rnd: Round, chips: Chips, live: set[int], seat: int) -> bool:
    """Does ``seat`` still have to act in this round?"""
    if seat not in live or chips.left(seat) == 0:
        return False
    if rnd.put.get(seat, 0) < rnd.bet:
        return True
    if seat in rnd.acted:
        return False
    # Nobody else can still bet: nothing to decide.
    others = [s for s in live if s != seat and chips.left(s) > 0]
    return bool(others)


def next_turn(rnd: Round, chips: Chips, live: set[int], after: int | None) -> int | None:
    order = rnd.order if after is None else clockwise(rnd.order, after)
    for s in order:
        if round_needs(rnd, chips, live, s):
            return s
    return None


def options(rnd: Round, rules: NoLimit, chips: Chips, live: set[int], seat: int) -> Options:
    put = rnd.put.get(seat, 0)
    left = chips.left(seat)
    to_call = min(rnd.bet - put, left)
    can_check = rnd.bet == put and (rnd.index > 0 or rules.check_in_first_round)
    others = [s for s in live if s != seat and chips.left(s) > 0]
    min_to = rules.min_bet if rnd.bet == 0 else rnd.bet * rules.raise_factor
    max_to = put + left
    can_raise = bool(others) and seat not in rnd.acted and max_to > rnd.bet
    return Options(seat, to_call, can_check, to_call > 0, can_raise, min_to, max_to)


def verify_nl(
    rnd: Round,
    rules: NoLimit,
    chips: Chips,
    live: set[int],
    seat: int,
    action: str,
    args: Mapping[str, Any],
) -> int:
    """Check a no-limit action by the seat to act; returns the chips it puts in."""
    if rnd.turn != seat:
        raise ActionRejected(
            f"it is not seat {seat}'s turn"
            + (f" (seat {rnd.turn} is to act)" if rnd.turn is not None else ""),
            reason="out_of_turn",
        )
    o = options(rnd, rules, chips, live, seat)
    put = rnd.put.get(seat, 0)
    if action == "fold":
        return 0
    if action == "check":
        if not o.can_check:
            why = "there is a bet to call" if rnd.bet > put else "no check in the first round"
            raise ActionRejected(f"seat {seat} cannot check: {why}", reason="cannot_check")
        return 0
    if action == "call":
        if not o.can_call:
            raise ActionRejected("nothing to call; check or bet", reason="nothing_to_call")
        return o.to_call
    if action == "allin":
        left = chips.left(seat)
        if put + left > rnd.bet and not o.can_raise:
            raise ActionRejected(
                f"seat {seat} may only call or fold now (no raise is open to it)",
                reason="raise_closed",
            )
        return left
    # bet / raise to a round total
    to = int_arg(args, "to")
    if action == "bet" and rnd.bet > 0:
        raise ActionRejected(f"there is a bet of {rnd.bet}; raise instead", reason="bet_exists")
    if action == "raise" and rnd.bet == 0:
        raise ActionRejected("nobody has bet; bet instead", reason="nothing_to_raise")
    if not o.can_raise:
        raise ActionRejected(
            f"seat {seat} may only call or fold now (no raise is open to it)",
            reason="raise_closed",
        )
    if to > o.max_raise_to:
        raise ActionRejected(
            f"seat {seat} has only {o.max_raise_to} for this round", reason="insufficient_stack"
        )
    if to < o.min_raise_to and to != o.max_raise_to:
        what = "bet is the big blind" if rnd.bet == 0 else f"raise is to {o.min_raise_to}"
        raise ActionRejected(
            f"{action} to {to} is too small: the minimum {what} (or all in)",
            reason="under_minimum",
        )
    return to - put


def apply_nl(
    rnd: Round, rules: NoLimit, chips: Chips, live: set[int], seat: int, action: str, amount: int
) -> None:
    """Apply an action checked by :func:`verify_nl` that puts in ``amount``."""
    if action == "fold":
        live.discard(seat)
    else:
        chips.pay(seat, amount)
        put = rnd.put.get(seat, 0) + amount
        rnd.put[seat] = put
        if put > rnd.bet:
            full = rules.min_bet if rnd.bet == 0 else rnd.bet * rules.raise_factor
            if put >= full:
                rnd.acted = set()
                rnd.raises += 1
            rnd.bet = put
    rnd.acted.add(seat)
    rnd.turn = next_turn(rnd, chips, live, seat)


# ------------------------------------------------------------------------------ money


def settle_showdown(
    order: Sequence[int],
    players: Mapping[int, str],
    chips: Chips,
    live: set[int],
    strengths: Mapping[int, int],
    button: int,
    rake: RakePolicy,
    hand_id: str,
) -> SettlementResult:
    """Main and side pots from the smallest stack up (:func:`settle_pots`)."""
    seats = [
        PotSeat(players[s], chips.put[s], strengths.get(s) if s in live else None, s not in live)
        for s in order
    ]
    return settle_pots(seats, button=players[button], rake=rake, hand_id=hand_id)


SOURCE_SINGLE_POT = (
    "000_d16ad353ba467b8a.txt, 炸金花: folded chips are not returned (弃牌 … 不收回本副牌筹码); "
    "the winner takes every chip put in, equal winners at a showdown split the winnings "
    "(牌型相同的赢家平分盈利): each gets their own chips back and an equal share of the others'"
)


def settle_single_pot(
    order: Sequence[int],
    players: Mapping[int, str],
    chips: Chips,
    winners: Sequence[int],
    rake: RakePolicy,
    hand_id: str,
) -> SettlementResult:
    """One pot, no side pots: every loser's chips go to the winners in equal shares."""
    k = len(winners)
    claims = [
        Claim(players[s], players[w], chips.put[s], (Fraction(1, k),), spot="pot")
        for s in order
        if s not in winners and chips.put[s]
        for w in winners
    ]
    return settle(
        claims,
        participants=[players[s] for s in order],
        rake=rake,
        hand_id=hand_id,
        source=SOURCE_SINGLE_POT,
    )


def rake_policy(raw: Mapping[str, Any]) -> RakePolicy:
    """``{"rate": "1/20", "cap": null, "source": ...}`` from a config."""
    try:
        rate = Fraction(str(raw["rate"]))
        cap = raw.get("cap")
        return RakePolicy(rate, cap=None if cap is None else int(cap), source=str(raw["source"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
        raise ConfigError(f"rake config: {e!r}") from e
