"""The blackjack engine: one engine for 多人21点 (``blackjack.multi``) and 幸运21点
(``blackjack.lucky``), ``001_5f10773fec037198.txt``. Every difference between them is a
value of :class:`~.rules.Rules` read from ``seeds/variants/blackjack.*.json``.

The hand, as events:

1. ``bet.placed`` ``{seat, spot: "main", amount}`` - one stake per seat (added to if
   placed again). A player listed at several seats (多人21点 下注其他座位) bets on their
   first listed seat before the others.
2. ``betting.closed``; the dealer deals what :meth:`next_deal` asks: each betting
   seat's first card in seat order, then each second card, then the dealer's up card
   (one ``card.dealt``); with a hole card, the dealer's face-down card in its own
   ``card.dealt`` (``up: false``).
3. Insurance, when the dealer's up card is an ace: every betting seat answers with
   ``action.taken`` ``insurance`` (costs ``insurance.cost`` of its bet) or
   ``no_insurance``. 多人21点: if anyone insured, the dealer peeks: with a blackjack
   the dealer turns the card up (``cards.revealed``) and the hand is over; otherwise the
   insurance is lost and play goes on, the hole card still face down.
4. The players, lowest seat first, each hand to the end: ``hit``, ``stand``,
   ``double`` and ``split`` (``args`` may name the ``hand``: 0, or 1 for the right half
   of a split). Cards owed (a hit, a double, the halves of a split) are dealt at once.
5. The dealer: turns the hole card up (``cards.revealed``) if it has one, then draws
   face up by :meth:`Rules.dealer_draws`.

Targets: ``seat:<n>`` (a seat's first hand), ``seat:<n>:2`` (the right half of its
split) and ``dealer``. Wager spots in the settlement: ``main`` and ``double`` (the seat's
first hand), ``main.split`` and ``double.split`` (the right half), ``insurance``.

Secrecy: the hole card is only read by the peek (the rule itself: the dealer looks at
it) and by the check that ``cards.revealed`` shows the card dealt. Everything else -
whose turn it is, what is legal, the advisor - uses face-up cards only. Applied to a
redacted log (the hole card shown as ``??``) the engine treats the peek as passed; the
real log then carries the reveal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.cards import parse_card
from croupier.errors import (
    ActionRejected,
    BetRejected,
    ConfigError,
    InvalidInput,
    NotationError,
    RuleViolation,
)
from croupier.games import base as g
from croupier.games.blackjack.probability import Summary
from croupier.games.blackjack.rules import (
    BETTING_ACTIONS,
    INSURANCE_ACTIONS,
    PLAY_ACTIONS,
    RANK_VALUES,
    Action,
    AllBust,
    Final,
    PairMatch,
    Peek,
    Rules,
    SplitDeal,
    Tally,
)
from croupier.games.blackjack.strategy import advise, analysis, insure
from croupier.games.common import (
    action_fields,
    bet_fields,
    check_auto,
    check_dealt,
    plain_fraction,
    stake_amount,
)
from croupier.games.registry import register_family
from croupier.money import RakePolicy, SettlementResult, Wager, settle_against_house

DEALER = "dealer"
MAIN = "main"
ACTIONS = {a.value: a for a in Action}
SPOTS = (("main", "double"), ("main.split", "double.split"))


@dataclass
class Box:
    """One player hand at a seat."""

    cards: list[str] = field(default_factory=list)
    from_split: bool = False
    doubled: bool = False
    stood: bool = False
    owed: int = 0  # cards a hit or a double asked for and not yet dealt

    @property
    def tally(self) -> Tally:
        return Tally.of_cards(self.cards)


@dataclass
class SeatPlay:
    bet: int = 0
    insurance: int | None = None  # None: not decided (or not offered); 0: declined
    boxes: list[Box] = field(default_factory=list)
    splits: int = 0


@dataclass
class BlackjackState(g.HandState):
    play: dict[int, SeatPlay] = field(default_factory=dict)  # seats that bet, by seat
    own_seat: dict[str, int] = field(default_factory=dict)  # player -> their own seat
    last_bets: dict[str, int] = field(default_factory=dict)  # player -> last own-seat bet
    staked: dict[str, int] = field(default_factory=dict)  # player -> all stakes so far
    dealer: list[str] = field(default_factory=list)  # face-up cards, hole once revealed
    hole: str | None = None  # the face-down card as dealt (read by the peek only)
    hole_revealed: bool = False
    peeked: bool = False

    def order(self) -> list[int]:
        return sorted(self.play)


@dataclass(frozen=True, slots=True)
class Turn:
    """Who must decide now, on which hand, and what they may do."""

    seat: int
    hand: int
    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class TableRules:
    max_seats: int
    many_seats: bool
    min_bet: int
    max_bet: int
    step: int
    repeat: bool  # 续押 offered (and applied on a betting timeout)


def target(seat: int, hand: int) -> str:
    return f"seat:{seat}" if hand == 0 else f"seat:{seat}:{hand + 1}"


def parse_target(to: object) -> tuple[int, int] | None:
    if not isinstance(to, str) or not to.startswith("seat:"):
        return None
    parts = to.split(":")
    try:
        if len(parts) == 2:
            return int(parts[1]), 0
        if len(parts) == 3 and parts[2] == "2":
            return int(parts[1]), 1
    except ValueError:
        return None
    return None


def _blackjack_card(raw: object) -> str:
    """A dealt card: canonical, of the 52 (no jokers); ``bad_card`` otherwise."""
    try:
        card = parse_card(str(raw))
    except NotationError as e:
        raise RuleViolation(e.message, reason="bad_card") from e
    if card != raw or card in ("BJ", "RJ"):
        raise RuleViolation(f"{raw!r} is not a blackjack card", reason="bad_card")
    return card


@register_family
class BlackjackEngine(g.Engine[BlackjackState]):
    family = "blackjack"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        self.rules = Rules.from_config(raw)
        g.require_deck(config, "cards52", self.rules.decks)
        try:
            self.table = TableRules(
                max_seats=int(raw["seats"]["max"]),
                many_seats=bool(raw["seats"]["one_player_many_seats"]),
                min_bet=int(raw["bets"]["min"]),
                max_bet=int(raw["bets"]["max"]),
                step=int(raw["bets"]["step"]),
                repeat=bool(raw["bets"]["repeat"]["enabled"]),
            )
            self.rake = RakePolicy.from_config(raw)
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"blackjack config: {e!r}") from e
        t = self.table
        if not 0 < t.step <= t.min_bet <= t.max_bet or t.min_bet % t.step:
            raise ConfigError("blackjack: bets need 0 < step <= min <= max, min a multiple of step")
        for f in (self.rules.insurance_cost, self.rules.blackjack_pays, self.rules.charlie_pays):
            if (t.step * f).denominator != 1:
                raise ConfigError(f"blackjack: bet step {t.step} x {f} is not whole")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> BlackjackState:
        rows = payload.get("seats")
        if isinstance(rows, list) and len(rows) > self.table.max_seats:
            raise RuleViolation(
                f"{self.variant} seats at most {self.table.max_seats}", reason="too_many_seats"
            )
        o = g.parse_opened(payload, many_seats_per_player=self.table.many_seats)
        own: dict[str, int] = {}  # each player's own (first listed) seat
        for seat in o.seats.values():
            own.setdefault(seat.player, seat.seat)
        last = payload.get("carry", {}).get("last_bets", {})
        if not isinstance(last, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v > 0
            for k, v in last.items()
        ):
            raise RuleViolation(
                "carry.last_bets must map players to positive bets", reason="malformed"
            )
        return BlackjackState.from_opened(
            self.variant,
            hand_id,
            o,
            own_seat=own,
            last_bets={k: v for k, v in last.items() if k in own},
        )

    def carry(self, st: BlackjackState) -> dict[str, Any]:
        """续押 needs each player's last bet on their own seat (bets on other seats are
        never repeated): this hand's, or the one before for a player who sat out."""
        last = dict(st.last_bets)
        for player, seat_no in st.own_seat.items():
            if seat_no in st.play:
                last[player] = st.play[seat_no].bet
        return {"last_bets": dict(sorted(last.items()))} if self.table.repeat else {}

    # -- checks ----------------------------------------------------------------------
    def _afford(self, st: BlackjackState, seat_no: int, extra: int) -> None:
        seat = st.seat(seat_no)
        have = st.staked.get(seat.player, 0)
        if have + extra > seat.stack:
            raise ActionRejected(
                f"player {seat.player} has {seat.stack} and has staked {have}; "
                f"{extra} more is too much",
                reason="insufficient_stack",
            )

    def verify_bet(self, st: BlackjackState, p: Mapping[str, Any]) -> tuple[int, int]:
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot, amount = bet_fields(p)
        seat = st.seat(seat_no)
        if spot != MAIN:
            raise BetRejected(
                f"unknown spot {spot!r}; blackjack takes 'main'", reason="unknown_spot"
            )
        t = self.table
        amount = stake_amount(amount, t.step)
        on_seat = (st.play[seat_no].bet if seat_no in st.play else 0) + amount
        if on_seat < t.min_bet:
            raise BetRejected(f"minimum bet is {t.min_bet}", reason="under_minimum")
        if on_seat > t.max_bet:
            raise BetRejected(f"maximum bet is {t.max_bet} per seat", reason="over_limit")
        own = st.own_seat[seat.player]
        if own != seat_no and own not in st.play:
            raise BetRejected(
                f"{seat.player} bets on their own seat {own} before seat {seat_no}",
                reason="own_seat_first",
            )
        try:
            self._afford(st, seat_no, amount)
        except ActionRejected as e:
            raise BetRejected(e.message, reason=e.reason) from e
        return seat_no, amount

    def _current(self, st: BlackjackState) -> tuple[int, int] | None:
        """The hand being played (seat, hand index), lowest seat first."""
        if st.phase != "playing":
            return None
        for seat_no in st.order():
            for i, box in enumerate(st.play[seat_no].boxes):
                if not self._finished(box):
                    return seat_no, i
        return None

    def _finished(self, box: Box) -> bool:
        if box.owed or len(box.cards) < 2:
            return False
        return box.stood or self.rules.player_done(box.tally, from_split=box.from_split)

    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, Action, Mapping[str, Any]]:
        seat_no, name, args = action_fields(p)
        action = ACTIONS.get(name)
        if action is None:
            raise ActionRejected(
                f"unknown action {name!r}; one of {sorted(ACTIONS)}", reason="unknown_action"
            )
        if not isinstance(args, Mapping) or set(args) - {"hand", "auto"}:
            raise ActionRejected("args may only name the 'hand'", reason="malformed")
        check_auto(args)
        return seat_no, action, args

    def repeat_amount(self, st: BlackjackState, seat_no: int, action: Action) -> int:
        """The bet a 续押 (``repeat``) or ``min_bet`` places on ``seat_no``, checked:
        betting open, the player's own seat, no bet there yet, something to repeat, and
        the stack to cover it (如果不够则不能续押)."""
        if st.phase != "betting":
            raise ActionRejected("betting is closed", reason="betting_closed")
        if not self.table.repeat:
            raise ActionRejected(f"{self.variant} has no 续押", reason="unknown_action")
        seat = st.seat(seat_no)
        if st.own_seat[seat.player] != seat_no:
            raise ActionRejected(
                f"续押 repeats the bet on {seat.player}'s own seat "
                f"{st.own_seat[seat.player]}, not seat {seat_no}",
                reason="not_own_seat",
            )
        if seat_no in st.play:
            raise ActionRejected(f"seat {seat_no} has already bet", reason="already_bet")
        if action is Action.REPEAT:
            amount = st.last_bets.get(seat.player)
            if amount is None:
                raise ActionRejected(
                    f"{seat.player} has no earlier bet to repeat", reason="nothing_to_repeat"
                )
        else:
            amount = self.table.min_bet
        self._afford(st, seat_no, amount)
        self.verify_bet(st, {"seat": seat_no, "spot": MAIN, "amount": amount})
        return amount

    def verify_action(self, st: BlackjackState, p: Mapping[str, Any]) -> tuple[int, Action, int]:
        """Check an ``action.taken``; returns (seat, action, hand index)."""
        seat_no, action, args = self._parse_action(p)
        st.seat(seat_no)
        if action in BETTING_ACTIONS:
            self.repeat_amount(st, seat_no, action)
            return seat_no, action, 0
        if st.phase in ("betting", "dealing"):
            raise ActionRejected("no decisions before the cards are dealt", reason="not_in_play")
        if st.phase in ("peek", "dealer", "done"):
            raise ActionRejected("the players' turns are over", reason="hand_over")
        play = st.play.get(seat_no)
        if play is None:
            raise ActionRejected(f"seat {seat_no} has no bet in this hand", reason="no_bet")
        r = self.rules
        if action in INSURANCE_ACTIONS:
            if st.phase != "insurance":
                up = st.dealer[0]
                if up[0] != "A":
                    raise ActionRejected(
                        f"insurance is offered only against an ace; the dealer shows {up}",
                        reason="insurance_not_offered",
                    )
                raise ActionRejected("insurance is decided before play", reason="insurance_closed")
            if play.insurance is not None:
                raise ActionRejected(
                    f"seat {seat_no} already decided on insurance", reason="already_decided"
                )
            if action is Action.INSURE:
                self._afford(st, seat_no, int(play.bet * r.insurance_cost))
            return seat_no, action, 0
        if st.phase == "insurance":
            raise ActionRejected(
                "every seat decides on insurance first", reason="insurance_pending"
            )
        cur = self._current(st)
        if cur is None or cur[0] != seat_no:
            raise ActionRejected(
                f"it is not seat {seat_no}'s turn" + (f" (seat {cur[0]} is to act)" if cur else ""),
                reason="out_of_turn",
            )
        idx = cur[1]
        if "hand" in args:
            want = args["hand"]
            if (
                not isinstance(want, int)
                or isinstance(want, bool)
                or not 0 <= want < len(play.boxes)
            ):
                raise ActionRejected(f"seat {seat_no} has no hand {want!r}", reason="unknown_hand")
            if want != idx:
                if self._finished(play.boxes[want]):
                    raise ActionRejected(
                        f"hand {want} of seat {seat_no} is finished", reason="hand_finished"
                    )
                raise ActionRejected(
                    f"hand {idx} of seat {seat_no} is played first", reason="out_of_turn"
                )
        box = play.boxes[idx]
        if box.owed or len(box.cards) < 2:
            raise ActionRejected("a card is still owed to this hand", reason="awaiting_card")
        t = box.tally
        if action is Action.HIT:
            if r.max_cards is not None and t.n >= r.max_cards:
                raise ActionRejected(
                    f"a hand holds at most {r.max_cards} cards", reason="max_cards"
                )
        elif action is Action.DOUBLE:
            refusal = r.double_refusal(t, from_split=box.from_split)
            if refusal is not None:
                raise ActionRejected(refusal[1], reason=refusal[0])
            self._afford(st, seat_no, play.bet)
        elif action is Action.SPLIT:
            if play.splits >= r.max_splits:
                raise ActionRejected(
                    f"{self.variant} allows {r.max_splits} split per seat and round",
                    reason="split_limit",
                )
            if t.n != 2:
                raise ActionRejected(
                    "split only the first two cards", reason="split_needs_two_cards"
                )
            if not r.is_pair(box.cards):
                raise ActionRejected(
                    f"{box.cards[0]} and {box.cards[1]} are not a pair"
                    + (" (same rank needed)" if r.split_match is PairMatch.RANK else ""),
                    reason="not_a_pair",
                )
            self._afford(st, seat_no, play.bet)
        return seat_no, action, idx

    def verify_cards(
        self, st: BlackjackState, p: Mapping[str, Any]
    ) -> list[tuple[str, str, bool, int]]:
        return check_dealt(self.next_deal(st), p, _blackjack_card)

    def verify_reveal(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        if req is None or DEALER not in req.reveal:
            raise RuleViolation("nothing is to be turned up now", reason="illegal_reveal")
        if p.get("to") != DEALER or p.get("cards") != [st.hole]:
            raise RuleViolation(
                "cards.revealed must show the dealer's face-down card as dealt",
                reason="bad_reveal",
            )

    # -- events ------------------------------------------------------------------------
    def apply_event(self, st: BlackjackState, type_: str, p: Mapping[str, Any]) -> None:
        super().apply_event(st, type_, p)
        self._progress(st)

    def apply_bet(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        seat_no, amount = int(p["seat"]), int(p["amount"])
        st.play.setdefault(seat_no, SeatPlay()).bet += amount
        self._stake(st, seat_no, amount)

    def apply_betting_closed(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing" if st.play else "done"
        for play in st.play.values():
            play.boxes = [Box()]

    def apply_cards(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            self._take(st, c)

    def apply_reveal(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        st.hole_revealed = True
        st.dealer[1:1] = [str(x) for x in p["cards"]]

    def _stake(self, st: BlackjackState, seat_no: int, amount: int) -> None:
        player = st.seats[seat_no].player
        st.staked[player] = st.staked.get(player, 0) + amount

    def _take(self, st: BlackjackState, c: Mapping[str, Any]) -> None:
        card = str(c["card"])
        st.positions.append(int(c["pos"]))
        if c["to"] == DEALER:
            if c["up"]:
                st.dealer.append(card)
            else:
                st.hole = card
            return
        where = parse_target(c["to"])
        assert where is not None
        box = st.play[where[0]].boxes[where[1]]
        box.cards.append(card)
        if box.owed:
            box.owed -= 1
            if box.doubled:
                box.stood = True

    def apply_action(self, st: BlackjackState, p: Mapping[str, Any]) -> None:
        seat_no, action, _ = self._parse_action(p)
        if action in BETTING_ACTIONS:
            amount = self.repeat_amount(st, seat_no, action)
            st.play[seat_no] = SeatPlay(bet=amount)
            self._stake(st, seat_no, amount)
            return
        play = st.play[seat_no]
        r = self.rules
        if action in INSURANCE_ACTIONS:
            amount = int(play.bet * r.insurance_cost) if action is Action.INSURE else 0
            play.insurance = amount
            self._stake(st, seat_no, amount)
            return
        cur = self._current(st)
        assert cur is not None
        box = play.boxes[cur[1]]
        if action is Action.HIT:
            box.owed = 1
        elif action is Action.STAND:
            box.stood = True
        elif action is Action.DOUBLE:
            box.doubled = True
            box.owed = 1
            self._stake(st, seat_no, play.bet)
        else:
            play.splits += 1
            play.boxes = [
                Box([box.cards[0]], from_split=True),
                Box([box.cards[1]], from_split=True),
            ]
            self._stake(st, seat_no, play.bet)

    def _initial_dealt(self, st: BlackjackState) -> bool:
        if not st.dealer or (self.rules.dealer_hole_card and st.hole is None):
            return False
        return all(len(p.boxes[0].cards) == 2 for p in st.play.values())

    def _hole_makes_blackjack(self, st: BlackjackState) -> bool:
        """The peek (多人21点 买保险: the dealer looks at the face-down card)."""
        hole = st.hole
        if hole is None or hole[:1] not in RANK_VALUES:  # redacted: see the module doc
            return False
        return Tally.of_cards([st.dealer[0], hole]).total == 21

    def _progress(self, st: BlackjackState) -> None:
        """Move the phase on as far as the events so far allow."""
        r = self.rules
        if st.phase == "dealing":
            if not self._initial_dealt(st):
                return
            st.phase = "insurance" if st.dealer[0][0] == "A" else "playing"
        if st.phase == "insurance":
            if any(p.insurance is None for p in st.play.values()):
                return
            insured = any(p.insurance for p in st.play.values())
            if r.peek is Peek.IF_INSURED and insured and st.hole is not None:
                st.peeked = True
                if self._hole_makes_blackjack(st):
                    st.phase = "peek"
                    return
            st.phase = "playing"
        if st.phase == "peek":
            if st.hole_revealed:
                st.phase = "done"
            return
        if st.phase == "playing":
            if self._current(st) is not None:
                return
            st.phase = "dealer"
        if st.phase == "dealer" and self._dealer_request(st) is None:
            st.phase = "done"

    def _all_bust(self, st: BlackjackState) -> bool:
        return all(b.tally.bust for p in st.play.values() for b in p.boxes)

    def _dealer_request(self, st: BlackjackState) -> g.DealRequest | None:
        r = self.rules
        if r.dealer_hole_card and not st.hole_revealed:
            return g.DealRequest(reveal=(DEALER,))
        t = Tally.of_cards(st.dealer)
        if t.n >= 2 and r.all_bust is AllBust.SECOND_CARD_ONLY and self._all_bust(st):
            return None
        if r.dealer_draws(t):
            return g.DealRequest(cards=(g.Deal(DEALER, True),))
        return None

    def next_deal(self, st: BlackjackState) -> g.DealRequest | None:
        r = self.rules
        if st.phase == "dealing":
            if not st.dealer:
                seats = st.order()
                deals = [g.Deal(target(s, 0)) for _ in range(2) for s in seats]
                return g.DealRequest(cards=(*deals, g.Deal(DEALER, True)))
            if r.dealer_hole_card and st.hole is None:
                return g.DealRequest(cards=(g.Deal(DEALER, False),))
            return None
        if st.phase == "peek":
            return g.DealRequest(reveal=(DEALER,)) if not st.hole_revealed else None
        if st.phase == "playing":
            cur = self._current(st)
            if cur is None:
                return None
            seat_no, idx = cur
            boxes = st.play[seat_no].boxes
            box = boxes[idx]
            if box.owed:
                return g.DealRequest(cards=(g.Deal(target(seat_no, idx)),))
            if len(box.cards) < 2:
                if r.split_deal is SplitDeal.BOTH:
                    due = [i for i, b in enumerate(boxes) if len(b.cards) < 2]
                else:
                    due = [idx]
                return g.DealRequest(cards=tuple(g.Deal(target(seat_no, i)) for i in due))
            return None
        if st.phase == "dealer":
            return self._dealer_request(st)
        return None

    def is_over(self, st: BlackjackState) -> bool:
        return st.phase == "done"

    # -- whose turn ----------------------------------------------------------------------
    def to_act(self, st: BlackjackState) -> Turn | None:
        """Who must decide now and the actions open to them (None: nobody; the dealer
        deals or the hand is over). Reads face-up cards only."""
        if st.closed:
            return None
        if st.phase == "insurance":
            for seat_no in st.order():
                if st.play[seat_no].insurance is None:
                    return Turn(seat_no, 0, self._legal(st, seat_no, INSURANCE_ACTIONS))
            return None
        cur = self._current(st)
        if cur is None or self.next_deal(st) is not None:
            return None
        return Turn(cur[0], cur[1], self._legal(st, cur[0], PLAY_ACTIONS))

    def _legal(
        self, st: BlackjackState, seat_no: int, actions: Sequence[Action]
    ) -> tuple[Action, ...]:
        return tuple(
            a
            for a in actions
            if self.can(st, g.ACTION_TAKEN, {"seat": seat_no, "action": a.value, "args": {}})
        )

    def auto_action(self, st: BlackjackState) -> tuple[int, str, dict[str, Any]] | None:
        """超时保护 (001, 多人21点): a seat that lets the betting countdown run out gets 续押,
        or the minimum bet when it cannot repeat (one own seat per call, lowest first;
        other seats a player bets on are never bet automatically); a player who lets a
        decision time out is played by the strategy guide (:meth:`advise`), step by
        step to the end of the hand."""
        if st.closed:
            return None
        if st.phase == "betting":
            if not self.table.repeat:
                return None
            for seat_no in sorted(st.own_seat.values()):
                for action in BETTING_ACTIONS:
                    p: dict[str, Any] = {"seat": seat_no, "action": action.value, "args": {}}
                    if self.can(st, g.ACTION_TAKEN, p):
                        return seat_no, action.value, {}
            return None
        turn = self.to_act(st)
        if turn is None:
            return None
        return turn.seat, self.advise(st, turn).value, {}

    def advise(self, st: BlackjackState, turn: Turn) -> Action:
        """Basic strategy's choice for ``turn`` (多人21点 超时保护)."""
        box = st.play[turn.seat].boxes[turn.hand]
        if Action.INSURE in turn.actions or Action.DECLINE in turn.actions:
            return Action.INSURE if insure(self.rules, box.cards) else Action.DECLINE
        return advise(
            self.rules,
            box.cards,
            st.dealer[0],
            from_split=box.from_split,
            legal=turn.actions,
            dealer_checked=st.peeked,
        )

    # -- results -------------------------------------------------------------------------
    def dealer_final(self, st: BlackjackState) -> Final:
        return self.rules.dealer_final(Tally.of_cards(st.dealer))

    def outcome(self, st: BlackjackState) -> dict[str, Any]:
        r = self.rules
        dealer = self.dealer_final(st)
        seats = []
        for seat_no in st.order():
            play = st.play[seat_no]
            hands = []
            for box in play.boxes:
                f = r.player_final(box.tally, from_split=box.from_split)
                hands.append(
                    {
                        "cards": list(box.cards),
                        "total": box.tally.total,
                        "hand": f.to_text(),
                        "doubled": box.doubled,
                        "result": plain_fraction(r.pay(f, dealer)),
                    }
                )
            row: dict[str, Any] = {
                "seat": seat_no,
                "player": st.seats[seat_no].player,
                "bet": play.bet,
                "split": play.splits > 0,
                "hands": hands,
            }
            if play.insurance:
                row["insurance"] = play.insurance
                row["insurance_result"] = plain_fraction(r.insurance_result(dealer))
            seats.append(row)
        return {
            "dealer": {
                "cards": list(st.dealer),
                "total": Tally.of_cards(st.dealer).total,
                "hand": dealer.to_text(),
            },
            "peeked": st.peeked,
            "seats": seats,
        }

    def wagers(self, st: BlackjackState) -> list[Wager]:
        r = self.rules
        dealer = self.dealer_final(st)
        out = []
        for seat_no in st.order():
            play = st.play[seat_no]
            player = st.seats[seat_no].player
            for i, box in enumerate(play.boxes):
                result = r.pay(r.player_final(box.tally, from_split=box.from_split), dealer)
                out.append(Wager(player, SPOTS[i][0], play.bet, result))
                if box.doubled:
                    out.append(Wager(player, SPOTS[i][1], play.bet, result))
            if play.insurance:
                out.append(Wager(player, "insurance", play.insurance, r.insurance_result(dealer)))
        return out

    def settle(self, st: BlackjackState) -> SettlementResult:
        """Against the house; the rake is the variant's (多人21点: 2% on each player's net
        for the hand, and a winning insurance raked on its own, ``rake.own_spots``)."""
        return settle_against_house(self.wagers(st), rake=self.rake, hand_id=st.hand_id)

    # -- bare hands and odds ---------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval/compare PLAYER DEALER: both hands' classes and what a unit stake on the
        player's hand gets (a first hand, not from a split)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        if len(hands) != 2:
            raise InvalidInput("blackjack takes two hands: the player's and the dealer's")
        try:
            player, dealer = [[parse_card(c) for c in h] for h in hands]
        except NotationError as e:
            raise InvalidInput(e.message) from e
        if any(c[:1] not in RANK_VALUES for c in (*player, *dealer)):
            raise InvalidInput("jokers are not blackjack cards")
        pt, dt = Tally.of_cards(player), Tally.of_cards(dealer)
        pf = self.rules.player_final(pt, from_split=False)
        df = self.rules.dealer_final(dt)
        return {
            "player": {"cards": player, "total": pt.total, "hand": pf.to_text()},
            "dealer": {"cards": dealer, "total": dt.total, "hand": df.to_text()},
            "result": plain_fraction(self.rules.pay(pf, df)),
        }

    def summary(self) -> Summary:
        return analysis(self.rules).summary()

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Return per unit staked on each wager spot under basic strategy (infinite
        deck, before rake), and per unit of initial bet for the whole round (``round``,
        and ``round_after_rake``)."""
        s = self.summary()
        out = dict(s.spot_rtp)
        out["round"] = 1 + s.ev
        out["round_after_rake"] = s.rtp
        return out

    def rtp_table(self, places: int = 6) -> str:
        s = self.summary()
        lines = [
            f"{self.variant}: basic strategy, infinite deck, per unit of initial bet",
            f"{'house edge':<22}{float(s.house_edge) * 100:.{max(places - 2, 0)}f}%",
            f"{'expected result':<22}{float(s.ev):.{places}f} (before rake)",
            f"{'expected rake':<22}{float(s.rake):.{places}f}",
            f"{'P(double)':<22}{float(s.p_double):.{places}f}",
            f"{'P(split)':<22}{float(s.p_split):.{places}f}",
            "RTP per unit staked on each spot (before rake):",
        ]
        lines += [f"  {k:<20}{float(v):.{places}f}" for k, v in s.spot_rtp.items()]
        return "\n".join(lines)
