"""The game-rule interface every game family implements.

A game engine is a pure, deterministic state machine over a hand's events. The dealer
runs it to validate bets and actions and to learn what to deal next; the rule service
runs it to check a closed hand and emit the outcome; settlement runs it to turn the
outcome into money; the auditor runs it to reproduce all of that. No I/O, clock or RNG.

The vocabulary of events the engines see (``type`` → payload):

``hand.opened``      ``{variant, config_version, table, shoe, hand_no, shoe_hand_no,
                      seats: [{seat, player, stack}], params}`` (dealer)
``bets.placed``      ``{bets: [{seat, spot, amount}, ...]}`` (gateway; the bets of one
                      call, in order: the same as as many ``bet.placed`` events, each
                      checked against those before it, and one event, one row and one
                      hash instead of one per bet)
``bet.placed``       ``{seat, spot, amount}`` (gateway; one bet: what the dealer wrote
                      before ``bets.placed``, still replayed and audited as written)
``betting.closed``   ``{}`` (dealer)
``card.dealt``       ``{cards: [{to, card, pos, up}]}`` (dealer; ``to`` is a target the
                      engine named, ``pos`` the position in the shoe, ``up`` face up)
``dice.rolled``      ``{dice: [..], faces: [..], roll: n}`` (dealer; ``dice[i]`` is in
                      ``1..faces[i]``; ``roll`` counts the rolls of the shoe from 0,
                      and the values are :func:`croupier.fair.roll` of the shoe's
                      seed, so the auditor re-derives them after the reveal. A slot's
                      reel stops are "dice" with as many faces as the strip has stops)
``action.taken``     ``{seat, action, args}`` (gateway; bids, plays, claims, hits...)
``cards.revealed``   ``{to, cards}`` (dealer; face-down cards turned up, e.g. showdown)
``hand.closed``      ``{positions_used, carry}`` (dealer; nothing more will be dealt;
                      ``carry`` is :meth:`Engine.carry` of the final state: what the
                      table's next hand inherits, e.g. the button or the banker; the next
                      ``hand.opened`` repeats it as its ``carry``)
``hand.outcome``     engine's :meth:`Engine.outcome` (rules)
``hand.settled``     settlement record summary (settlement)

Each family names its own targets, spots and actions, and validates them with
``verify_*``/``can_*`` methods in the style of pokerkit: ``verify`` raises a precise
:class:`croupier.errors.RuleViolation`, ``can`` answers a bool, ``apply`` does it.

:meth:`Engine.verify` and :meth:`Engine.apply` handle ``hand.closed`` and ``away``
themselves, take a ``bets.placed`` one ``bet.placed`` at a time, and pass every other
event to :meth:`Engine.verify_event` /
:meth:`Engine.apply_event`, which dispatch by type to one pair of hooks per type:

=====================  ===========================  ======================
event type             check (may return a parse)   state change
=====================  ===========================  ======================
``bet.placed``         ``verify_bet``               ``apply_bet``
(``bets.placed``)      ``verify_bet`` per bet       ``apply_bet`` per bet
``betting.closed``     ``verify_betting_closed``    ``apply_betting_closed``
``card.dealt``         ``verify_cards``             ``apply_cards``
``cards.revealed``     ``verify_reveal``            ``apply_reveal``
``dice.rolled``        ``verify_dice``              ``apply_dice``
``action.taken``       ``verify_action``            ``apply_action``
=====================  ===========================  ======================

A family defines the hooks of the events it has. A ``verify_*`` hook it does not define
refuses the event (:class:`croupier.errors.ActionRejected`, reason ``unknown_event``,
"<name> has no <type> event", the name being :attr:`Engine.display_name` or else the
family), as does any other type; ``verify_betting_closed`` by default refuses a second
close (reason ``betting_closed``) unless the phase is still ``"betting"``. An
``apply_*`` hook it does not define changes nothing. A family whose checks are not one
per type overrides ``verify_event``/``apply_event`` (calling ``super()`` where it only
adds a step, e.g. moving the hand on after every event).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import islice
from typing import Any, ClassVar, Generic, Self, TypeVar

from croupier.accel import maker
from croupier.cards import DeckSpec
from croupier.errors import (
    ActionRejected,
    BetRejected,
    ConfigError,
    InvalidInput,
    RuleViolation,
    SignatureError,
)
from croupier.money import RakePolicy, SettlementResult

# Event types
HAND_OPENED = "hand.opened"
BET_PLACED = "bet.placed"
BETS_PLACED = "bets.placed"
BETTING_CLOSED = "betting.closed"
CARD_DEALT = "card.dealt"
DICE_ROLLED = "dice.rolled"
ACTION_TAKEN = "action.taken"
CARDS_REVEALED = "cards.revealed"
HAND_CLOSED = "hand.closed"
HAND_OUTCOME = "hand.outcome"
HAND_SETTLED = "hand.settled"
AWAY = "away"  # the action.taken by which a seat hands itself over to 托管
SHOE_OPENED = "shoe.opened"
SHOE_REVEALED = "shoe.revealed"
SHOE_CLIENT_SEED = "shoe.client_seed"  # a player's own client seed, before any deal
HAND_VOIDED = "hand.voided"  # settlement's signed authority for a ledger void

# Who may write each event type. A log where, say, the dealer's key placed a bet is
# refused even if every signature is good.
PRODUCER_OF = {
    HAND_OPENED: "dealer",
    BETTING_CLOSED: "dealer",
    CARD_DEALT: "dealer",
    DICE_ROLLED: "dealer",
    CARDS_REVEALED: "dealer",
    HAND_CLOSED: "dealer",
    SHOE_OPENED: "dealer",
    SHOE_REVEALED: "dealer",
    BET_PLACED: "gateway",
    BETS_PLACED: "gateway",
    ACTION_TAKEN: "gateway",
    HAND_OUTCOME: "rules",
    HAND_SETTLED: "settlement",
    SHOE_CLIENT_SEED: "gateway",
    HAND_VOIDED: "settlement",
}


# The hooks of each non-closing event type (:meth:`Engine.verify_event`,
# :meth:`Engine.apply_event`), by method name: looked up on the engine per event.
_VERIFY_HOOKS = {
    BET_PLACED: "verify_bet",
    BETTING_CLOSED: "verify_betting_closed",
    CARD_DEALT: "verify_cards",
    CARDS_REVEALED: "verify_reveal",
    DICE_ROLLED: "verify_dice",
    ACTION_TAKEN: "verify_action",
}
_APPLY_HOOKS = {
    BET_PLACED: "apply_bet",
    BETTING_CLOSED: "apply_betting_closed",
    CARD_DEALT: "apply_cards",
    CARDS_REVEALED: "apply_reveal",
    DICE_ROLLED: "apply_dice",
    ACTION_TAKEN: "apply_action",
}
_NOT_OWNED = frozenset({HAND_OUTCOME, HAND_SETTLED})  # events a replay skips


@cache
def _plain_dispatch(cls: type[Engine[Any]]) -> bool:
    """Whether ``cls`` keeps :class:`Engine`'s own ``verify``, ``apply`` and their
    per-type dispatch, so that a bet's check and change are its two hooks."""
    return all(
        getattr(cls, name) is getattr(Engine, name)
        for name in ("verify", "apply", "verify_event", "apply_event")
    )


def _closed(state: HandState) -> ActionRejected:
    return ActionRejected(f"hand {state.hand_id} is closed", reason="hand_closed")


def check_producers(events: Sequence[Any]) -> None:
    """Raise :class:`croupier.errors.SignatureError` at the first event whose producer
    may not write its type (or whose type is unknown)."""
    for e in events:
        want = PRODUCER_OF.get(e.type)
        if want != e.producer:
            raise SignatureError(
                f"{e.stream}#{e.seq}: {e.type} written by {e.producer}"
                + (f", only {want} may" if want else " (unknown event type)"),
                reason="wrong_producer",
                stream=e.stream,
                seq=e.seq,
            )


def placed_bets(type_: str, payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The bets an event places, in order: ``bet.placed``'s one, ``bets.placed``'s list,
    none for any other type. A ``bets.placed`` whose ``bets`` is not a non-empty list of
    objects is refused (:class:`croupier.errors.BetRejected`, reason ``malformed``); each
    bet's own fields are the engine's to check, as for ``bet.placed``."""
    if type_ == BET_PLACED:
        return [payload]
    if type_ != BETS_PLACED:
        return []
    bets = payload.get("bets")
    if (
        not isinstance(bets, list)
        or not bets
        or not all(isinstance(b, Mapping) for b in bets)
        or len(payload) != 1
    ):
        raise BetRejected(
            "bets.placed holds one key, bets: a non-empty list of {seat, spot, amount}",
            reason="malformed",
        )
    return bets


def check_dice(payload: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    """Validate the shape of a ``dice.rolled`` payload: as many dice as faces, each value
    in ``1..faces``, a roll number. Returns (dice, faces). A family that asks for dice
    calls this from its ``verify_dice``, then checks these are the dice it asked for."""
    dice, faces, roll = payload.get("dice"), payload.get("faces"), payload.get("roll")
    ok = (
        isinstance(dice, list)
        and isinstance(faces, list)
        and len(dice) == len(faces) > 0
        and isinstance(roll, int)
        and not isinstance(roll, bool)
        and roll >= 0
        and all(isinstance(x, int) and not isinstance(x, bool) for x in (*dice, *faces))
    )
    if not ok:
        raise RuleViolation(f"malformed dice.rolled: {dict(payload)!r}", reason="malformed")
    assert isinstance(dice, list) and isinstance(faces, list)
    for v, f in zip(dice, faces, strict=True):
        if f < 2 or not 1 <= v <= f:
            raise RuleViolation(f"a {f}-sided die cannot show {v}", reason="bad_dice")
    return dice, faces


@dataclass(frozen=True, slots=True)
class VariantConfig:
    """A variant's versioned rules config, loaded from ``seeds/variants/<id>.json``."""

    variant: str
    version: int
    family: str
    deck: DeckSpec
    raw: Mapping[str, Any]

    @classmethod
    def from_json_dict(cls, d: Mapping[str, Any]) -> VariantConfig:
        try:
            deck = d.get("deck", {})
            return cls(
                variant=str(d["variant"]),
                version=int(d["version"]),
                family=str(d["family"]),
                deck=DeckSpec(str(deck.get("base", "cards52")), int(deck.get("copies", 1))),
                raw=d,
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"variant config: {e}") from e

    def value(self, *path: str) -> Any:
        node: Any = self.raw
        for p in path:
            if not isinstance(node, Mapping) or p not in node:
                raise ConfigError(f"{self.variant} config has no {'.'.join(path)}")
            node = node[p]
        if isinstance(node, Mapping) and "value" in node:
            return node["value"]
        return node


def require_deck(config: VariantConfig, base: str, copies: int = 1) -> None:
    """Raise :class:`ConfigError` unless the variant's config deals ``copies`` of the
    deck ``base`` - the one set a family's rules are written for."""
    if config.deck.base != base or config.deck.copies != copies:
        decks = "one deck" if copies == 1 else f"{copies} decks"
        raise ConfigError(
            f"{config.variant}: the rules deal {decks} of {base}, "
            f"the config has {config.deck.copies} x {config.deck.base}"
        )


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    player: str
    stack: int  # minor units carried into the hand


_new_seat = maker(Seat)


@dataclass(frozen=True, slots=True)
class Deal:
    """One card the dealer must deal next: to a target, face up or down."""

    to: str
    up: bool = True


@dataclass(frozen=True, slots=True)
class DealRequest:
    """What the dealer must do now. ``cards`` are dealt in order from the shoe;
    ``dice`` asks for that many dice instead; ``reveal`` names targets whose face-down
    cards the dealer must now turn up (a ``cards.revealed`` event per target, listing
    that target's face-down cards in the order they were dealt)."""

    cards: tuple[Deal, ...] = ()
    dice: int = 0
    reveal: tuple[str, ...] = ()
    faces: tuple[int, ...] = ()  # faces of each die (empty: all six-sided)

    def die_faces(self) -> tuple[int, ...]:
        """Faces of each requested die."""
        if not self.faces:
            return (6,) * self.dice
        if len(self.faces) != self.dice or any(f < 2 for f in self.faces):
            raise ConfigError(f"dice request: {self.dice} dice with faces {self.faces}")
        return self.faces


@dataclass(frozen=True, slots=True)
class Opened:
    """The family-independent part of a ``hand.opened`` payload, validated."""

    table: str
    hand_no: int
    shoe_hand_no: int
    seats: dict[int, Seat]


def parse_opened(
    payload: Mapping[str, Any],
    *,
    min_seats: int = 1,
    max_seats: int | None = None,
    many_seats_per_player: bool = False,
) -> Opened:
    """Validate the table, hand numbers and seats of ``hand.opened``: integers where
    integers belong, seat numbers unique, players unique (or, where one player may play
    several seats, listed with one stack), stacks not negative, and the variant's seat
    count. Raises :class:`RuleViolation` with a precise reason."""
    try:
        rows = [(s["seat"], s["player"], s["stack"]) for s in payload["seats"]]
        table = str(payload["table"])
        hand_no, shoe_hand_no = int(payload["hand_no"]), int(payload["shoe_hand_no"])
    except (KeyError, TypeError, ValueError) as e:
        raise RuleViolation(f"malformed hand.opened: {e}", reason="malformed") from e
    if len(rows) < min_seats:
        raise RuleViolation(f"a hand needs at least {min_seats} seat(s)", reason="no_seats")
    if max_seats is not None and len(rows) > max_seats:
        raise RuleViolation(f"at most {max_seats} seats", reason="too_many_seats")
    seats: dict[int, Seat] = {}
    players: dict[str, int] = {}  # player -> stack
    for seat_no, player, stack in rows:
        # exact types first (what a parsed payload holds), subclasses checked after
        if (type(seat_no) is not int or type(stack) is not int) and not (
            isinstance(seat_no, int)
            and not isinstance(seat_no, bool)
            and isinstance(stack, int)
            and not isinstance(stack, bool)
        ):
            raise RuleViolation("seat and stack must be integers", reason="malformed")
        if type(player) is not str and not isinstance(player, str):
            raise RuleViolation("player must be a string", reason="malformed")
        if seat_no in seats:
            raise RuleViolation(f"seat {seat_no} given twice", reason="duplicate_seat")
        if not player or (player in players and not many_seats_per_player):
            raise RuleViolation(
                f"player {player!r} seated twice or unnamed", reason="duplicate_player"
            )
        if stack < 0:
            raise RuleViolation(f"seat {seat_no} has a negative stack", reason="bad_stack")
        if players.get(player, stack) != stack:
            raise RuleViolation(
                f"player {player!r} is listed with two different stacks", reason="bad_stack"
            )
        seats[seat_no] = _new_seat(seat_no, player, stack)
        players[player] = stack
    return Opened(table, hand_no, shoe_hand_no, seats)


@dataclass
class HandState:
    """Fields every family's state has. Families subclass it."""

    variant: str
    table: str
    hand_id: str
    hand_no: int
    shoe_hand_no: int
    seats: dict[int, Seat]
    phase: str = "betting"
    closed: bool = False
    positions: list[int] = field(default_factory=list)
    away: set[int] = field(default_factory=set)  # seats played by 托管 to the end

    @classmethod
    def from_opened(cls, variant: str, hand_id: str, o: Opened, **fields: Any) -> Self:
        """A family's state for a hand: the common fields from the validated
        ``hand.opened`` (:func:`parse_opened`), the family's own from ``fields``."""
        return cls(
            variant=variant,
            table=o.table,
            hand_id=hand_id,
            hand_no=o.hand_no,
            shoe_hand_no=o.shoe_hand_no,
            seats=o.seats,
            **fields,
        )

    def seat(self, n: int) -> Seat:
        s = self.seats.get(n)
        if s is None:
            raise RuleViolation(f"seat {n} is not at this hand", reason="unknown_seat")
        return s


S = TypeVar("S", bound=HandState)


class Engine(ABC, Generic[S]):
    """One engine per game family; an instance is bound to one variant's config."""

    family: ClassVar[str]
    #: How refusals name the game ("<name> has no <type> event"); empty: the family id.
    display_name: ClassVar[str] = ""
    #: Event types whose ``apply_*`` hook makes every check of their ``verify_*`` hook,
    #: with the same refusal, before it changes anything: :meth:`step` runs that hook
    #: alone instead of both (a deal checked once, not twice). Default none.
    checked_by_apply: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config: VariantConfig) -> None:
        if config.family != self.family:
            raise ConfigError(f"{config.variant} is a {config.family} variant, not {self.family}")
        self.config = config
        self._last_settled: tuple[S, SettlementResult] | None = None
        self._rakes: dict[frozenset[str], RakePolicy] = {}

    @property
    def variant(self) -> str:
        return self.config.variant

    def rake_policy(self, exempt: frozenset[str] = frozenset()) -> RakePolicy:
        """The variant's rake (its config's ``rake`` section), ``exempt`` from it those
        named: built once per engine and exemption, not per hand settled (reading the
        section, its rate parsed, was ~2 % of a banker game's replay and settlement)."""
        kept = self._rakes.get(exempt)
        if kept is None:
            if len(self._rakes) >= 64:  # exemptions are few (none, the house); bounded
                self._rakes.clear()
            kept = self._rakes[exempt] = RakePolicy.from_config(self.config.raw, exempt)
        return kept

    # -- lifecycle -------------------------------------------------------------------
    @abstractmethod
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> S:
        """Build the state from a ``hand.opened`` payload (validating it)."""

    def verify(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """Raise :class:`RuleViolation` unless the event is legal now."""
        if state.closed:
            raise _closed(state)
        if type_ == HAND_CLOSED:
            self.close_check(state)
            if "carry" in payload and payload["carry"] != self.carry(state):
                raise RuleViolation(
                    f"hand.closed carries {payload['carry']!r}, the rules give "
                    f"{self.carry(state)!r}",
                    reason="bad_carry",
                )
            return
        if type_ == ACTION_TAKEN and payload.get("action") == AWAY:
            self._verify_away(state, payload)
            return
        if type_ == BETS_PLACED:  # each bet against those before it, on a copy
            trial = copy.deepcopy(state)
            for bet in placed_bets(type_, payload):
                self.verify(trial, BET_PLACED, bet)
                self.apply(trial, BET_PLACED, bet)
            return
        self.verify_event(state, type_, payload)

    def apply(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """Apply a verified event to the state."""
        if type_ == HAND_CLOSED:
            state.closed = True
            state.phase = "closed"
            return
        self._changed(state)
        if type_ == ACTION_TAKEN and payload.get("action") == AWAY:
            state.away.add(int(payload["seat"]))
            self.on_away(state, int(payload["seat"]))
            return
        if type_ == BETS_PLACED:
            for bet in placed_bets(type_, payload):
                self.apply(state, BET_PLACED, bet)
            return
        self.apply_event(state, type_, payload)

    def on_away(self, state: S, seat: int) -> None:
        """What the rules attach to a seat leaving, beyond 托管 playing its turns (e.g.
        血战到底: a winner who leaves early forfeits the fan won). Default nothing."""

    def _verify_away(self, state: S, payload: Mapping[str, Any]) -> None:
        """``away``: the seat left (or asked for 托管); the rules' automatic move plays its
        every turn to the end of the hand. Any family, any phase."""
        seat = payload.get("seat")
        if (
            not isinstance(seat, int)
            or isinstance(seat, bool)
            or payload.get("args")
            not in (
                None,
                {},
            )
        ):
            raise ActionRejected("away takes a seat and no arguments", reason="malformed")
        state.seat(seat)
        if seat in state.away:
            raise ActionRejected(f"seat {seat} is already away", reason="already_away")

    # -- events: one verify/apply hook per type ----------------------------------------
    def verify_event(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """Legality check of a non-closing event: the type's ``verify_*`` hook, or
        ``unknown_event`` for a type the engine has no hook for."""
        name = _VERIFY_HOOKS.get(type_)
        if name is None:
            raise self.unknown_event(type_)
        hook: Callable[[S, Mapping[str, Any]], object] = getattr(self, name)
        hook(state, payload)

    def apply_event(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """State change of a verified non-closing event: the type's ``apply_*`` hook."""
        name = _APPLY_HOOKS.get(type_)
        if name is not None:
            hook: Callable[[S, Mapping[str, Any]], None] = getattr(self, name)
            hook(state, payload)

    def unknown_event(self, type_: str) -> ActionRejected:
        """The refusal of an event type this engine does not have."""
        name = self.display_name or self.family
        return ActionRejected(f"{name} has no {type_} event", reason="unknown_event")

    def verify_bet(self, state: S, payload: Mapping[str, Any]) -> object:
        """``bet.placed``: raise unless the bet is legal now. Default: no such event."""
        raise self.unknown_event(BET_PLACED)

    def verify_betting_closed(self, state: S, payload: Mapping[str, Any]) -> object:
        """``betting.closed``: refused once betting is no longer the phase."""
        if state.phase != "betting":
            raise ActionRejected("betting is already closed", reason="betting_closed")
        return None

    def verify_cards(self, state: S, payload: Mapping[str, Any]) -> object:
        """``card.dealt``: raise unless these are the cards asked for. Default: no such
        event."""
        raise self.unknown_event(CARD_DEALT)

    def verify_reveal(self, state: S, payload: Mapping[str, Any]) -> object:
        """``cards.revealed``: raise unless this turn-up is due and shows the cards as
        dealt. Default: no such event."""
        raise self.unknown_event(CARDS_REVEALED)

    def verify_dice(self, state: S, payload: Mapping[str, Any]) -> object:
        """``dice.rolled``: raise unless these are the dice asked for. Default: no such
        event."""
        raise self.unknown_event(DICE_ROLLED)

    def verify_action(self, state: S, payload: Mapping[str, Any]) -> object:
        """``action.taken`` (other than ``away``): raise unless the seat may do this now.
        Default: no such event."""
        raise self.unknown_event(ACTION_TAKEN)

    def apply_bet(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply a verified ``bet.placed``. Default: nothing changes."""

    def apply_betting_closed(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply ``betting.closed``. Default: nothing changes."""

    def apply_cards(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply a verified ``card.dealt``. Default: nothing changes."""

    def apply_reveal(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply a verified ``cards.revealed``. Default: nothing changes."""

    def apply_dice(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply a verified ``dice.rolled``. Default: nothing changes."""

    def apply_action(self, state: S, payload: Mapping[str, Any]) -> None:
        """Apply a verified ``action.taken``. Default: nothing changes."""

    @abstractmethod
    def next_deal(self, state: S) -> DealRequest | None:
        """What the dealer must deal now, or ``None`` when it must wait or is done."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True when nothing more can happen and the hand can be closed."""

    @abstractmethod
    def outcome(self, state: S) -> dict[str, Any]:
        """JSON-able outcome of a finished hand (categories, winners, multipliers)."""

    @abstractmethod
    def settle(self, state: S) -> SettlementResult:
        """Money for a finished hand, through the settlement kernel."""

    def settlement(self, state: S) -> SettlementResult:
        """:meth:`settle`, worked out once for the last hand asked about once it is over
        (or closed): the close's check (where the carry reads the money), the outcome
        (where it shows it), the settlement service and the audit each ask for it in
        turn. Every event :meth:`step` or :meth:`apply` takes on that state but its
        close (which sets only ``closed`` and ``phase``, read by no settlement) forgets
        it; a hand not yet over is settled afresh each time."""
        kept = self._last_settled
        if kept is not None and kept[0] is state:
            return kept[1]
        result = self.settle(state)
        if state.closed or self.is_over(state):
            self._last_settled = (state, result)
        return result

    def _changed(self, state: S) -> None:
        """An event other than the close is taken on ``state``: its settlement, if
        remembered, is worked out anew."""
        kept = self._last_settled
        if kept is not None and kept[0] is state:
            self._last_settled = None

    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``croupier rules eval|compare``: JSON describing hands (category, multiplier,
        winner). Families with comparable hands override this."""
        raise InvalidInput(f"{self.variant} has no '{action}' for bare hands")

    @property
    def max_seats(self) -> int | None:
        """Most seats a hand may have (None: no limit of the family's own)."""
        seats = self.config.raw.get("seats")
        if isinstance(seats, Mapping) and "max" in seats:
            return int(seats["max"])
        return None

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Exact return to player per unit staked on each spot, where the family has a
        closed-form or enumerable game (empty otherwise)."""
        return {}

    def rtp_table(self, places: int = 6) -> str:
        """``croupier rtp``: a printable table of exact probabilities and RTPs; for a
        game the players play against each other (no ``theoretical_rtp``), what applies
        instead: there is no RTP, the house only takes the rake, at its rate and basis."""
        rtp = self.theoretical_rtp()
        if not rtp:
            return self.players_only_text()
        return "\n".join(f"{k:<14}{float(v):.{places}f}" for k, v in rtp.items())

    def players_only_text(self) -> str:
        """What ``croupier rtp`` says of a game the players play against each other."""
        rake = self.rake_policy()
        raw = self.config.raw["rake"]
        rate = rake.rate
        head = (
            f"{self.variant}: the players play against each other, so there is no RTP: "
            "what the players win the players lose, and the house takes only the rake."
        )
        if rate == 0:
            return f"{head}\nrake          none ({raw['source']})"
        return "\n".join(
            [
                head,
                f"rake          {rate.numerator}/{rate.denominator} = {float(rate):.2%} "
                f"({raw['source']})",
                f"basis         {rake.basis.value} ({raw['basis_source']})",
            ]
        )

    def carry(self, state: S) -> dict[str, Any]:
        """What the table's next hand inherits from this finished one (the button, the
        banker and the banker queue, the dealer seat...), written into ``hand.closed``
        and repeated in the next ``hand.opened`` as ``carry``. JSON-able; default none."""
        return {}

    def visible_to(self, state: S, viewer: int | None) -> frozenset[str]:
        """Deal targets whose face-down cards ``viewer`` (a seat, None: the public) may
        see besides its own seat's and those turned up by ``cards.revealed`` (e.g.
        炸金花: the hands one compared with, once the hand is over). Default none."""
        return frozenset()

    def private_args(self, action: str) -> frozenset[str]:
        """Arguments of ``action`` that only the acting seat may see until the hand is
        closed (e.g. 换三张's three tiles); views show others ``??``. Default none."""
        return frozenset()

    def auto_action(self, state: S) -> tuple[int, str, dict[str, Any]] | None:
        """The action taken for the player whose turn it is when the turn times out or
        the player has left (托管, 超时保护): ``(seat, action, args)``, or None when no
        one is waiting to act. The dealer appends it as an ordinary ``action.taken``
        with ``args["auto"] = "timeout"``; it must pass :meth:`verify` like any other."""
        return None

    # -- derived ---------------------------------------------------------------------
    def can(self, state: S, type_: str, payload: Mapping[str, Any]) -> bool:
        try:
            self.verify(state, type_, payload)
        except RuleViolation:
            return False
        return True

    def step(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """verify then apply. A ``bets.placed`` is stepped bet by bet on the state
        itself (no copy): when one bet is refused the bets before it stay applied, so a
        caller that keeps the state after a refusal rebuilds it (the dealer replays the
        hand's events; a replay that raises is abandoned). Where it applies an event
        past :meth:`apply`, it forgets the state's settlement as :meth:`apply` does."""
        if type_ == BETS_PLACED:
            bets = placed_bets(type_, payload)
            if _plain_dispatch(type(self)):
                # what verify() and apply() would call for each bet, without their
                # dispatch per bet (a bet never closes the hand: one check of that)
                if state.closed:
                    raise _closed(state)
                self._changed(state)
                verify_bet, apply_bet = self.verify_bet, self.apply_bet
                for bet in bets:
                    verify_bet(state, bet)
                    apply_bet(state, bet)
                return
            for bet in bets:
                self.verify(state, BET_PLACED, bet)
                self.apply(state, BET_PLACED, bet)
            return
        if type_ in self.checked_by_apply:
            if state.closed:
                raise _closed(state)
            self._changed(state)
            self.apply_event(state, type_, payload)
            return
        self.verify(state, type_, payload)
        self.apply(state, type_, payload)

    def replay(self, hand_id: str, events: Sequence[tuple[str, Mapping[str, Any]]]) -> S:
        """Rebuild a hand's state from its (type, payload) events, checking each one.
        Events the engine does not own (outcome, settled) are skipped."""
        if not events or events[0][0] != HAND_OPENED:
            raise RuleViolation("a hand starts with hand.opened", reason="no_open")
        self.check_version(events[0][1])
        state = self.open(hand_id, events[0][1])
        owned = [(t, p) for t, p in islice(events, 1, None) if t not in _NOT_OWNED]
        if self.fast_steps(state, owned):
            return state
        step = self.step
        for type_, payload in owned:
            step(state, type_, payload)
        return state

    def fast_steps(self, state: S, steps: list[tuple[str, Mapping[str, Any]]]) -> bool:
        """Step ``steps`` (the events after ``hand.opened``, none of them an outcome or a
        settlement) on ``state`` just opened, all at once, where a family has a faster
        way that it has proven to give :meth:`step`'s state (a native path): ``True``
        and ``state`` is stepped; ``False`` and ``state`` is untouched, for the caller
        to :meth:`step` each event (which decides and words any refusal). Default:
        ``False``."""
        return False

    def check_version(self, opened: Mapping[str, Any]) -> None:
        """A hand is judged only by the rules it was dealt under: ``hand.opened`` names its
        config version, and a different version here is refused (reason
        ``config_version``) rather than replayed under other rules. (The dealer always
        writes the version; a bare payload built by hand, without one, is taken as
        the current version.)"""
        version = opened.get("config_version", self.config.version)
        if version != self.config.version:
            raise RuleViolation(
                f"hand was dealt under {self.variant} config version {version!r}; "
                f"these rules are version {self.config.version}",
                reason="config_version",
            )

    def close_check(self, state: S) -> None:
        if not state.closed and not self.is_over(state):
            raise ActionRejected("the hand is not over", reason="not_over")
