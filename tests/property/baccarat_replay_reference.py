"""The baccarat replay as it was before its rework for speed, kept verbatim as the
oracle the current code is compared with: the engine's event dispatch and replay
(``libs/croupier/games/base.py``: ``parse_opened``, ``verify_event``, ``apply_event``,
``replay``), the baccarat engine's deal, next deal and outcome
(``libs/croupier/games/baccarat/engine.py``) and the rules it used (``card_point``,
``total``, ``next_recipient``, ``evaluate`` of ``libs/croupier/games/baccarat/rules.py``).
Every state, outcome and refusal must be the very one this code gives. Not to be edited:
it is what "unchanged" means."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from croupier.cards import RANKS, SUITS, parse_card
from croupier.errors import NotationError, RuleViolation
from croupier.games import base as g
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.baccarat.rules import (
    CARD_POINTS as _CARD_POINTS,
)
from croupier.games.baccarat.rules import (
    Coup,
    Side,
    Spot,
    _banker_draws,
    _is_natural,
    _player_draws,
    _winner,
    spot_result,
)
from croupier.games.base import (
    ACTION_TAKEN,
    BET_PLACED,
    BETTING_CLOSED,
    CARD_DEALT,
    CARDS_REVEALED,
    DICE_ROLLED,
    HAND_OPENED,
    HAND_OUTCOME,
    HAND_SETTLED,
    Opened,
    Seat,
)
from croupier.games.common import plain_fraction

S = BaccaratState  # the engine's state type, as the generic base code names it

# -- libs/croupier/games/baccarat/rules.py --------------------------------------------


def card_point(card: str) -> int:
    """Baccarat point of a card such as ``"9h"``; :class:`NotationError` if malformed."""
    try:
        return _CARD_POINTS[card]
    except (KeyError, TypeError):
        raise NotationError(
            f"not a card: {card!r} (expected rank {RANKS} + suit {SUITS})"
        ) from None


def total(cards: Iterable[str]) -> int:
    """Total of a hand: the sum of its card points modulo 10."""
    return sum(card_point(c) for c in cards) % 10


def next_recipient(player_cards: Sequence[str], banker_cards: Sequence[str]) -> Side | None:
    """Which side receives the next card of the coup, or ``None`` when it is complete.

    Validates that the cards so far follow the deal order described in the module
    docstring; raises :class:`RuleViolation` (reason ``illegal_deal``) if a side holds
    a card it should not have received, :class:`NotationError` for a malformed card.
    """
    return _next_by_points(
        [card_point(c) for c in player_cards], [card_point(c) for c in banker_cards]
    )


def _next_by_points(player: Sequence[int], banker: Sequence[int]) -> Side | None:
    """:func:`next_recipient` on the cards' point values."""
    n_player, n_banker = len(player), len(banker)
    if n_player < 2 or n_banker < 2:
        if n_player == n_banker:
            return Side.PLAYER
        if n_player == n_banker + 1:
            return Side.BANKER
        raise RuleViolation(
            f"initial deal out of order: player {n_player} card(s), banker {n_banker}",
            reason="illegal_deal",
        )
    player_two = (player[0] + player[1]) % 10
    banker_two = (banker[0] + banker[1]) % 10
    natural = _is_natural(player_two) or _is_natural(banker_two)
    player_takes = not natural and _player_draws(player_two)
    if n_player > 2 + player_takes:
        raise RuleViolation(
            f"player may not hold {n_player} cards here (two-card totals "
            f"player {player_two}, banker {banker_two})",
            reason="illegal_deal",
        )
    if player_takes and n_player == 2:
        if n_banker > 2:
            raise RuleViolation("banker drew before the player's third card", reason="illegal_deal")
        return Side.PLAYER
    third = player[2] if player_takes else None
    banker_takes = not natural and _banker_draws(banker_two, third)
    if n_banker > 2 + banker_takes:
        raise RuleViolation(
            f"banker may not hold {n_banker} cards here (banker two-card total "
            f"{banker_two}, player third card {third})",
            reason="illegal_deal",
        )
    if banker_takes and n_banker == 2:
        return Side.BANKER
    return None


def evaluate(player_cards: Sequence[str], banker_cards: Sequence[str]) -> Coup:
    """The :class:`Coup` for a complete deal; :class:`RuleViolation` if illegal or unfinished."""
    player_points = [card_point(c) for c in player_cards]
    banker_points = [card_point(c) for c in banker_cards]
    if _next_by_points(player_points, banker_points) is not None:
        raise RuleViolation(
            f"coup not complete: player {len(player_cards)} card(s), banker {len(banker_cards)}",
            reason="incomplete_coup",
        )
    return _coup(tuple(player_cards), tuple(banker_cards), player_points, banker_points)


def _coup(
    player_cards: tuple[str, ...],
    banker_cards: tuple[str, ...],
    player_points: Sequence[int],
    banker_points: Sequence[int],
) -> Coup:
    player_total = sum(player_points) % 10
    banker_total = sum(banker_points) % 10
    return Coup(
        player_cards=player_cards,
        banker_cards=banker_cards,
        player_total=player_total,
        banker_total=banker_total,
        winner=_winner(player_total, banker_total),
        natural=_is_natural((player_points[0] + player_points[1]) % 10)
        or _is_natural((banker_points[0] + banker_points[1]) % 10),
        player_pair=player_cards[0][0] == player_cards[1][0],
        banker_pair=banker_cards[0][0] == banker_cards[1][0],
        card_count=len(player_cards) + len(banker_cards),
    )


# -- libs/croupier/games/base.py ------------------------------------------------------


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
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (seat_no, stack)):
            raise RuleViolation("seat and stack must be integers", reason="malformed")
        if not isinstance(player, str):
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
        seats[seat_no] = Seat(seat_no, player, stack)
        players[player] = stack
    return Opened(table, hand_no, shoe_hand_no, seats)


class ReferenceEngine(BaccaratEngine):
    """The baccarat engine with the code of before wherever the replay changed."""

    def open(self, hand_id: str, payload: Mapping[str, Any]) -> BaccaratState:
        o = parse_opened(payload, max_seats=self.max_seats)
        return BaccaratState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    def verify_event(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """Legality check of a non-closing event: the type's ``verify_*`` hook, or
        ``unknown_event`` for a type the engine has no hook for."""
        hooks: dict[str, Callable[[S, Mapping[str, Any]], object]] = {
            BET_PLACED: self.verify_bet,
            BETTING_CLOSED: self.verify_betting_closed,
            CARD_DEALT: self.verify_cards,
            CARDS_REVEALED: self.verify_reveal,
            DICE_ROLLED: self.verify_dice,
            ACTION_TAKEN: self.verify_action,
        }
        hook = hooks.get(type_)
        if hook is None:
            raise self.unknown_event(type_)
        hook(state, payload)

    def apply_event(self, state: S, type_: str, payload: Mapping[str, Any]) -> None:
        """State change of a verified non-closing event: the type's ``apply_*`` hook."""
        hooks: dict[str, Callable[[S, Mapping[str, Any]], None]] = {
            BET_PLACED: self.apply_bet,
            BETTING_CLOSED: self.apply_betting_closed,
            CARD_DEALT: self.apply_cards,
            CARDS_REVEALED: self.apply_reveal,
            DICE_ROLLED: self.apply_dice,
            ACTION_TAKEN: self.apply_action,
        }
        hook = hooks.get(type_)
        if hook is not None:
            hook(state, payload)

    def replay(self, hand_id: str, events: Sequence[tuple[str, Mapping[str, Any]]]) -> S:
        """Rebuild a hand's state from its (type, payload) events, checking each one.
        Events the engine does not own (outcome, settled) are skipped."""
        if not events or events[0][0] != HAND_OPENED:
            raise RuleViolation("a hand starts with hand.opened", reason="no_open")
        self.check_version(events[0][1])
        state = self.open(hand_id, events[0][1])
        for type_, payload in events[1:]:
            if type_ in (HAND_OUTCOME, HAND_SETTLED):
                continue
            self.step(state, type_, payload)
        return state

    # -- libs/croupier/games/baccarat/engine.py --------------------------------------
    def verify_cards(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        self._dealt(st, p, apply=False)

    def apply_cards(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        self._dealt(st, p, apply=True)

    def _dealt(self, st: BaccaratState, p: Mapping[str, Any], *, apply: bool) -> None:
        if st.phase != "dealing":
            raise RuleViolation("cards are dealt only after betting closes", reason="not_dealing")
        player, banker = list(st.player), list(st.banker)
        cards = p.get("cards")
        if not isinstance(cards, list) or not cards:
            raise RuleViolation("card.dealt needs a non-empty cards list", reason="malformed")
        for c in cards:
            if not isinstance(c, Mapping):
                raise RuleViolation("each dealt card must be an object", reason="malformed")
            want = next_recipient(player, banker)
            if want is None:
                raise RuleViolation("the coup is complete; no more cards", reason="illegal_deal")
            if c.get("to") != want.value:
                raise RuleViolation(
                    f"next card goes to {want.value}, not {c.get('to')!r}", reason="illegal_deal"
                )
            if c.get("up") is not True:
                raise RuleViolation("baccarat cards are dealt face up", reason="illegal_deal")
            try:
                card = parse_card(str(c.get("card")))
            except NotationError as e:
                raise RuleViolation(e.message, reason="bad_card") from e
            if card != c.get("card") or card in ("BJ", "RJ"):
                raise RuleViolation(f"{c.get('card')!r} is not a baccarat card", reason="bad_card")
            if not isinstance(c.get("pos"), int) or c["pos"] < 0:
                raise RuleViolation("card position must be an integer >= 0", reason="malformed")
            (player if want is Side.PLAYER else banker).append(card)
        if apply:
            st.player, st.banker = player, banker
            st.positions += [int(c["pos"]) for c in cards]

    def next_deal(self, st: BaccaratState) -> g.DealRequest | None:
        if st.phase != "dealing":
            return None
        if not st.player and not st.banker:  # the first four: P, B, P, B in one event
            p, b = Side.PLAYER.value, Side.BANKER.value
            return g.DealRequest(cards=tuple(g.Deal(t, True) for t in (p, b, p, b)))
        side = next_recipient(st.player, st.banker)
        if side is None:
            return None
        return g.DealRequest(cards=(g.Deal(side.value, True),))

    def is_over(self, st: BaccaratState) -> bool:
        return st.phase == "dealing" and next_recipient(st.player, st.banker) is None

    def coup(self, st: BaccaratState) -> Coup:
        return evaluate(st.player, st.banker)

    def outcome(self, st: BaccaratState) -> dict[str, Any]:
        c = self.coup(st)
        return {
            "player": list(c.player_cards),
            "banker": list(c.banker_cards),
            "player_total": c.player_total,
            "banker_total": c.banker_total,
            "winner": c.winner.value,
            "natural": c.natural,
            "player_pair": c.player_pair,
            "banker_pair": c.banker_pair,
            "cards": c.card_count,
            "spots": {s.value: plain_fraction(spot_result(s, c, self.paytable)) for s in Spot},
        }
