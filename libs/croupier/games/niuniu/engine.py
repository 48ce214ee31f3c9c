"""The Niuniu engine: one engine for niuniu.hundred (000 百人牛牛游戏规则), niuniu.banker
(000 牛牛游戏规则), niuniu.tongbi (000 通比牛牛), niuniu.classic (001 经典牛牛（Niuniu）)
and niuniu.yuele (004 牛牛游戏规则). Every difference between them is a value of
:class:`~.hands.HandRules` or :class:`~.rules.TableRules` read from
``seeds/variants/niuniu.*.json``.

A table hand (通比 and the banker games), as events:

1. ``hand.opened`` (``carry``: the banker kept from the last hand, for 抢庄), then an
   empty betting round: ``betting.closed``.
2. The banker (banker games): ``action.taken`` ``grab {grab: bool}`` from every seat
   (抢庄), or ``bank {accept: bool}`` from the seat offered the bank (004); a
   ``dice.rolled`` with one die of as many faces as candidates picks among them.
3. Bet multiples: ``bet {multiple}`` from every player (通比: everyone; else every
   seat but the banker's), from the variant's list (001: the options
   :func:`~croupier.money.classic_niuniu_bet_limits` leaves; a player left with none
   sits the hand out).
4. ``card.dealt``: five cards face down to each playing seat (target ``seat:<n>``),
   one at a time round the table.
5. ``arrange {three: [c1, c2, c3]}`` (拼牛: the three cards making 牛), ``{three: []}``
   for a hand without 牛, or ``{}`` to let the game arrange (自动组牌, also the timeout
   move); an optional ``category`` claim must match the cards.
6. ``cards.revealed`` for every playing seat (开牌), then ``hand.closed``.

A 百人牛牛 hand: ``bet.placed {seat, spot, amount}`` on ``fu``/``lu``/``shou``/``xi``
(福禄寿禧) and the queue actions ``apply_banker`` / ``leave_banker`` (上庄 / 下庄), then
``betting.closed``; then five cards face up to each of ``banker``, ``fu``, ``lu``,
``shou``, ``xi``. The seed deals before the bets; the shuffle is committed in
``hand.opened``, so the cards dealt after the close of betting are the very cards the
seed's order would have dealt first, and nobody has seen them while betting.

Money: 通比 by :func:`~croupier.money.tongbi_niuniu_claims`, the banker games by
:func:`~croupier.money.banker_game_claim`, 百人牛牛 per spot with the multiplier limited by
:func:`~croupier.money.hundred_spot_multiplier_limit`; limited liability, rake and
rounding by :func:`~croupier.money.settle`.
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
from croupier.games.common import (
    DealtWording,
    action_fields,
    args_object,
    bet_fields,
    carry_of,
    check_auto,
    check_target,
    deal_rows,
    plain_fraction,
    position,
    stake_amount,
)
from croupier.games.niuniu.hands import (
    Hand,
    HandRules,
    check_arrangement,
    evaluate,
    parse_hand,
)
from croupier.games.niuniu.probability import (
    HANDS,
    category_counts,
    pair_odds,
)
from croupier.games.niuniu.rules import (
    BANKER,
    BetLimits,
    Choice,
    Liability,
    Mode,
    TableRules,
)
from croupier.games.registry import register_family
from croupier.money import (
    HOUSE,
    BankerCover,
    Claim,
    ProportionalToCarried,
    SettlementResult,
    banker_game_claim,
    classic_niuniu_bet_limits,
    hundred_spot_multiplier_limit,
    limit_multiplier,
    settle,
    tongbi_niuniu_claims,
)
from croupier.money.liability import LiabilityRule

ACTIONS = ("grab", "bank", "bet", "arrange", "apply_banker", "leave_banker")
ARGS = {
    "grab": {"grab"},
    "bank": {"accept"},
    "bet": {"multiple"},
    "arrange": {"three", "category"},
    "apply_banker": set(),
    "leave_banker": set(),
}
SOURCE_HUNDRED = "000_d16ad353ba467b8a.txt, 百人牛牛游戏规则, 派彩"
SOURCE_TONGBI = "000_d16ad353ba467b8a.txt, 通比牛牛, 四、游戏输赢"
SOURCE_BANKER = "banker against each player: A x winner's hand multiple x bet multiple"
_DEALT = DealtWording(target="the next card goes to {to} face {face}", object_first=False)


@dataclass
class SeatPlay:
    """One seat's part in a table hand."""

    seat: int
    player: str
    stack: int
    grab: bool | None = None
    multiple: int | None = None
    options: tuple[int, ...] = ()
    out: bool = False  # sits the hand out (001: no selectable multiple)
    cards: list[str] = field(default_factory=list)
    three: tuple[str, ...] | None = None  # None until arranged
    auto: list[str] = field(default_factory=list)  # decisions the game took (timeouts)
    revealed: bool = False


@dataclass
class NiuniuState(g.HandState):
    order: list[int] = field(default_factory=list)  # seats, in seat order
    play: dict[int, SeatPlay] = field(default_factory=dict)
    banker: int | None = None  # the banker's seat (None: none, or 百人牛牛's system)
    kept_bank: bool = False  # 抢庄: the banker carried over from the last hand
    offered: int | None = None  # 004: the seat offered the bank now
    declined: list[int] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)
    void: bool = False  # nobody banks (004) or nobody can bet (001): no play
    # 百人牛牛
    bets: dict[tuple[int, str], int] = field(default_factory=dict)
    staked: dict[int, int] = field(default_factory=dict)
    boxes: dict[str, list[str]] = field(default_factory=dict)  # banker and spots
    queue: list[str] = field(default_factory=list)
    banked: int = 0  # hands the banker banked before this one
    leaving: bool = False

    def active(self) -> list[int]:
        """Seats that play cards (the banker's included)."""
        return [s for s in self.order if not self.play[s].out]

    def bettors(self) -> list[int]:
        return [s for s in self.active() if s != self.banker]


@dataclass(frozen=True, slots=True)
class Turn:
    seat: int
    actions: tuple[str, ...]


def target(seat: int) -> str:
    return f"seat:{seat}"


@register_family
class NiuniuEngine(g.Engine[NiuniuState]):
    family = "niuniu"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        g.require_deck(config, "cards52", 1)
        self.hands = HandRules.from_config(config.raw)
        self.table = TableRules.from_config(config.raw)

    @property
    def max_seats(self) -> int | None:
        return self.table.max_seats

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> NiuniuState:
        t = self.table
        o = g.parse_opened(payload, min_seats=t.min_seats, max_seats=t.max_seats)
        carry = carry_of(payload)
        order = sorted(o.seats)
        st = NiuniuState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            play={n: SeatPlay(n, o.seats[n].player, o.seats[n].stack) for n in order},
        )
        seat_of = {o.seats[n].player: n for n in order}
        if t.choice is Choice.GRAB:
            banker, regrab = carry.get("banker"), carry.get("regrab", False)
            if (banker is not None and not isinstance(banker, str)) or not isinstance(regrab, bool):
                raise RuleViolation(
                    "carry: banker is a player id, regrab a bool", reason="malformed"
                )
            if isinstance(banker, str) and banker in seat_of and not regrab:
                st.banker, st.kept_bank = seat_of[banker], True
        elif t.choice is Choice.QUEUE:
            self._open_queue(st, carry, seat_of)
        return st

    def _open_queue(
        self, st: NiuniuState, carry: Mapping[str, Any], seat_of: dict[str, int]
    ) -> None:
        """百人牛牛 上下庄: the banker carried over stays if still seated and meeting the
        上庄 requirement; otherwise the first such player of the queue banks; otherwise
        the system. Queued players no longer seated or short of the requirement leave
        the queue (系统会自动让玩家下庄)."""
        h = self.table.hundred
        assert h is not None
        banker, banked, queue = carry.get("banker"), carry.get("banked", 0), carry.get("queue", [])
        if (
            (banker is not None and not isinstance(banker, str))
            or not isinstance(banked, int)
            or isinstance(banked, bool)
            or banked < 0
            or not isinstance(queue, list)
            or not all(isinstance(p, str) for p in queue)
        ):
            raise RuleViolation(
                "carry: banker is a player id or null, banked an int >= 0, queue player ids",
                reason="malformed",
            )

        def eligible(p: str) -> bool:
            return p in seat_of and st.seats[seat_of[p]].stack >= h.requirement

        rest = [p for p in queue if p != banker]
        if isinstance(banker, str) and eligible(banker) and banked < h.max_rounds:
            st.banker, st.banked = seat_of[banker], banked
        else:
            while rest:
                p = rest.pop(0)
                if eligible(p):
                    st.banker = seat_of[p]
                    break
        st.queue = [p for p in rest if eligible(p)]

    # -- turns -----------------------------------------------------------------------
    def die_faces(self, st: NiuniuState) -> int | None:
        """Faces of the die the banker choice waits for, or None."""
        if st.phase != "banker" or st.dice:
            return None
        c = self.table.choice
        if c in (Choice.RANDOM, Choice.OFFER):
            return len(st.order)
        if c is Choice.GRAB and st.banker is None:
            if any(st.play[s].grab is None for s in st.order):
                return None
            n = len(self._grab_candidates(st))
            return n if n > 1 else None
        return None

    def _grab_candidates(self, st: NiuniuState) -> list[int]:
        grabbers = [s for s in st.order if st.play[s].grab]
        return grabbers or list(st.order)

    def to_act(self, st: NiuniuState) -> Turn | None:
        """Who must decide now (lowest seat first) and what they may do; None when the
        dealer deals, rolls or turns cards up, or the hand is over."""
        if st.closed or self.next_deal(st) is not None:
            return None
        if st.phase == "banker":
            if self.table.choice is Choice.GRAB:
                for s in st.order:
                    if st.play[s].grab is None:
                        return Turn(s, ("grab",))
            if self.table.choice is Choice.OFFER and st.offered is not None:
                return Turn(st.offered, ("bank",))
            return None
        if st.phase == "bet":
            for s in st.bettors():
                if st.play[s].multiple is None:
                    return Turn(s, ("bet",))
        if st.phase == "arrange":
            for s in st.active():
                if st.play[s].three is None:
                    return Turn(s, ("arrange",))
        return None

    def auto_action(self, st: NiuniuState) -> tuple[int, str, dict[str, Any]] | None:
        """Timeouts: 抢庄 - no grab (``grab_on_timeout``); the offered bank - declined
        (``accept_on_timeout``); the bet - the smallest multiple open to the player
        (游戏自动帮忙下注); the arrangement - the game arranges (自动组牌并摊牌)."""
        turn = self.to_act(st)
        if turn is None:
            return None
        action = turn.actions[0]
        if action == "grab":
            return turn.seat, "grab", {"grab": self.table.grab_timeout}
        if action == "bank":
            return turn.seat, "bank", {"accept": self.table.bank_timeout}
        if action == "bet":
            return turn.seat, "bet", {"multiple": st.play[turn.seat].options[0]}
        return turn.seat, "arrange", {}

    # -- checks ----------------------------------------------------------------------
    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
        seat, action, raw = action_fields(p)
        if action not in ACTIONS:
            raise ActionRejected(
                f"unknown action {action!r}; one of {list(ACTIONS)}", reason="unknown_action"
            )
        args = args_object(raw)
        check_auto(args)
        extra = set(args) - ARGS[action] - {"auto"}
        if extra:
            raise ActionRejected(
                f"{action} takes {sorted(ARGS[action]) or 'no'} args, not {sorted(extra)}",
                reason="malformed",
            )
        return seat, action, args

    def verify_action(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        seat, action, args = self._parse_action(p)
        st.seat(seat)
        if self.table.mode is Mode.HUNDRED:
            self._verify_queue_action(st, seat, action)
            return
        if action in ("apply_banker", "leave_banker"):
            raise ActionRejected(f"{self.variant} has no banker queue", reason="no_queue")
        phase_of = {"grab": "banker", "bank": "banker", "bet": "bet", "arrange": "arrange"}
        if st.phase != phase_of[action] or self.next_deal(st) is not None:
            raise ActionRejected(
                f"no {action} now (the hand is at {st.phase})", reason="wrong_phase"
            )
        choice = self.table.choice
        if action == "grab" and (choice is not Choice.GRAB or st.banker is not None):
            raise ActionRejected("the banker is not grabbed now", reason="wrong_phase")
        if action == "bank" and choice is not Choice.OFFER:
            raise ActionRejected(f"{self.variant} offers no bank", reason="wrong_phase")
        play = st.play[seat]
        if action == "grab":
            if play.grab is not None:
                raise ActionRejected(f"seat {seat} already answered", reason="already_decided")
            if not isinstance(args.get("grab"), bool):
                raise ActionRejected("grab needs grab: true or false", reason="malformed")
        elif action == "bank":
            if seat != st.offered:
                raise ActionRejected(
                    f"the bank is offered to seat {st.offered}, not seat {seat}",
                    reason="out_of_turn",
                )
            if not isinstance(args.get("accept"), bool):
                raise ActionRejected("bank needs accept: true or false", reason="malformed")
        elif action == "bet":
            self._verify_multiple(st, seat, args.get("multiple"))
        else:
            self._verify_arrangement(st, seat, args)

    def _verify_multiple(self, st: NiuniuState, seat: int, m: object) -> None:
        play = st.play[seat]
        if seat == st.banker:
            raise ActionRejected("the banker does not bet", reason="banker_cannot_bet")
        if play.out:
            raise ActionRejected(
                f"seat {seat} cannot cover the smallest multiple and sits out", reason="sits_out"
            )
        if play.multiple is not None:
            raise ActionRejected(f"seat {seat} already bet", reason="already_decided")
        if not isinstance(m, int) or isinstance(m, bool):
            raise ActionRejected(f"multiple must be an integer, got {m!r}", reason="malformed")
        if m not in self.table.multiples:
            raise ActionRejected(
                f"multiple {m} is not one of {list(self.table.multiples)}", reason="bad_multiple"
            )
        if m not in play.options:
            raise ActionRejected(
                f"seat {seat} may bet at most {max(play.options)}x (balance-limited), not {m}x",
                reason="over_limit",
            )

    def _verify_arrangement(self, st: NiuniuState, seat: int, args: Mapping[str, Any]) -> None:
        play = st.play[seat]
        if play.out:
            raise ActionRejected(f"seat {seat} sits this hand out", reason="sits_out")
        if play.three is not None:
            raise ActionRejected(f"seat {seat} already arranged", reason="already_decided")
        if any(c == "??" for c in play.cards):
            return  # a player's view of another seat: nothing to check against
        hand = evaluate(play.cards, self.hands)
        if "three" in args:
            three = args["three"]
            if not isinstance(three, list):
                raise ActionRejected("three is a list of cards", reason="malformed")
            try:
                check_arrangement(play.cards, [str(c) for c in three])
            except InvalidInput as e:
                raise ActionRejected(e.message, reason=e.reason or "bad_arrangement") from e
        if "category" in args and args["category"] != hand.category.value:
            raise ActionRejected(
                f"the cards make {hand.category.value} ({hand.category.chinese}), "
                f"not {args['category']!r}",
                reason="wrong_category",
            )

    def _verify_queue_action(self, st: NiuniuState, seat: int, action: str) -> None:
        h = self.table.hundred
        assert h is not None
        if action not in ("apply_banker", "leave_banker"):
            raise ActionRejected(f"百人牛牛 has no {action}", reason="unknown_action")
        if st.phase != "betting":
            raise ActionRejected(
                "the banker queue changes while bets are open", reason="betting_closed"
            )
        player = st.seats[seat].player
        if action == "apply_banker":
            if seat == st.banker:
                raise ActionRejected(f"{player} is the banker", reason="already_banker")
            if player in st.queue:
                raise ActionRejected(f"{player} is already queued", reason="already_queued")
            if st.seats[seat].stack < h.requirement:
                raise ActionRejected(
                    f"banking needs {h.requirement}; {player} has {st.seats[seat].stack}",
                    reason="below_requirement",
                )
        elif not (seat == st.banker and not st.leaving) and player not in st.queue:
            raise ActionRejected(f"{player} neither banks nor is queued", reason="not_banker")

    def verify_bet(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        h = self.table.hundred
        if h is None:
            raise BetRejected(
                f"{self.variant} has no spots; players bet multiples with the bet action",
                reason="no_spots",
            )
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat, spot, amount = bet_fields(p)
        st.seat(seat)
        if spot not in h.spots:
            raise BetRejected(
                f"unknown spot {spot!r}; one of {list(h.spots)}", reason="unknown_spot"
            )
        amount = stake_amount(amount, h.step)
        if seat == st.banker:
            raise BetRejected("the banker does not bet on the spots", reason="banker_cannot_bet")
        on_spot = st.bets.get((seat, spot), 0) + amount
        if on_spot < h.min_bet:
            raise BetRejected(f"{spot} minimum is {h.min_bet}", reason="under_minimum")
        if on_spot > h.max_bet:
            raise BetRejected(f"{spot} maximum is {h.max_bet} per seat", reason="over_limit")
        if st.staked.get(seat, 0) + amount > st.seats[seat].stack:
            raise BetRejected(
                f"seat {seat} has {st.seats[seat].stack} and cannot stake more",
                reason="insufficient_stack",
            )
        cover = self.cover(st)
        if sum(st.staked.values()) + amount > cover:
            raise BetRejected(
                f"the banker covers {cover} of stakes this hand (可下注额); "
                f"{cover - sum(st.staked.values())} left",
                reason="over_banker_cover",
            )

    def cover(self, st: NiuniuState) -> int:
        """百人牛牛: what all players together may stake this hand - a player banker's
        balance over the top multiplier (so the bank pays any result), or the table's
        limit against the system."""
        h = self.table.hundred
        assert h is not None
        if st.banker is None:
            return h.system_limit
        return st.seats[st.banker].stack // self.hands.max_multiplier

    def _deal_targets(self, st: NiuniuState) -> list[str]:
        if self.table.mode is Mode.HUNDRED:
            h = self.table.hundred
            assert h is not None
            return [BANKER, *h.spots]
        return [target(s) for s in st.active()]

    def verify_cards(self, st: NiuniuState, p: Mapping[str, Any]) -> list[tuple[str, str]]:
        rows = deal_rows(self.next_deal(st), p)
        seen = {c for play in st.play.values() for c in play.cards}
        seen |= {c for box in st.boxes.values() for c in box}
        out = []
        for raw, d in rows:
            c = check_target(raw, d, wording=_DEALT)
            position(c)
            card = str(c.get("card"))
            try:
                ok = parse_card(card) == card and card not in ("BJ", "RJ")
            except NotationError:
                ok = False
            if not ok or card in seen:
                raise RuleViolation(f"{card!r} is not a card of this deal", reason="bad_card")
            seen.add(card)
            out.append((d.to, card))
        return out

    def verify_reveal(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        to = p.get("to")
        if req is None or to not in req.reveal:
            raise RuleViolation(f"{to!r} is not to be turned up now", reason="illegal_reveal")
        seat = int(str(to).split(":")[1])
        if p.get("cards") != st.play[seat].cards:
            raise RuleViolation(f"{to} must show its cards as dealt", reason="bad_reveal")

    def verify_dice(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        faces = self.die_faces(st)
        if faces is None:
            raise RuleViolation("no die is due now", reason="illegal_roll")
        dice, fs, roll = p.get("dice"), p.get("faces"), p.get("roll")
        if fs != [faces] or not isinstance(dice, list) or len(dice) != 1:
            raise RuleViolation(f"one die of {faces} faces is due", reason="illegal_roll")
        v = dice[0]
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= faces:
            raise RuleViolation(
                f"a {faces}-faced die shows 1..{faces}, not {v!r}", reason="bad_roll"
            )
        if not isinstance(roll, int) or isinstance(roll, bool) or roll < 0:
            raise RuleViolation("roll must be an integer >= 0", reason="malformed")

    # -- events ------------------------------------------------------------------------
    def apply_event(self, st: NiuniuState, type_: str, p: Mapping[str, Any]) -> None:
        super().apply_event(st, type_, p)
        self._progress(st)

    def apply_bet(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        seat, spot, amount = int(p["seat"]), str(p["spot"]), int(p["amount"])
        st.bets[(seat, spot)] = st.bets.get((seat, spot), 0) + amount
        st.staked[seat] = st.staked.get(seat, 0) + amount

    def apply_betting_closed(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        st.phase = "deal" if self.table.mode is Mode.HUNDRED else "banker"

    def apply_cards(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.positions.append(int(c["pos"]))
            to, card = str(c["to"]), str(c["card"])
            if to.startswith("seat:"):
                st.play[int(to.split(":")[1])].cards.append(card)
            else:
                st.boxes.setdefault(to, []).append(card)
        st.phase = "done" if self.table.mode is Mode.HUNDRED else "arrange"

    def apply_reveal(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        play = st.play[int(str(p["to"]).split(":")[1])]
        play.cards = [str(c) for c in p["cards"]]
        play.revealed = True

    def apply_action(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        seat, action, args = self._parse_action(p)
        play = st.play[seat]
        player = st.seats[seat].player
        if args.get("auto") is not None:
            play.auto.append(action)
        if action == "grab":
            play.grab = bool(args["grab"])
        elif action == "bank":
            if args["accept"]:
                st.banker, st.offered = seat, None
            else:
                st.declined.append(seat)
                left = [s for s in st.order if s not in st.declined]
                if not left:
                    st.offered, st.void = None, True
                else:
                    after = [s for s in left if s > seat]
                    st.offered = (after or left)[0]
        elif action == "bet":
            play.multiple = int(args["multiple"])
        elif action == "arrange":
            if "three" in args and "??" not in play.cards:
                play.three = tuple(parse_card(str(c)) for c in args["three"])
            elif "??" in play.cards:
                play.three = ("??",)
            else:
                play.three = evaluate(play.cards, self.hands).three
        elif action == "apply_banker":
            st.queue.append(player)
        elif action == "leave_banker":
            if seat == st.banker:
                st.leaving = True
            else:
                st.queue.remove(player)

    def apply_dice(self, st: NiuniuState, p: Mapping[str, Any]) -> None:
        v = int(p["dice"][0])
        c = self.table.choice
        st.dice.append(v)
        if c is Choice.RANDOM:
            st.banker = st.order[v - 1]
        elif c is Choice.GRAB:
            st.banker = self._grab_candidates(st)[v - 1]
        elif c is Choice.OFFER:
            st.offered = st.order[v - 1]

    def _progress(self, st: NiuniuState) -> None:
        t = self.table
        if st.phase == "banker":
            if t.choice is Choice.GRAB and st.banker is None:
                cands = self._grab_candidates(st)
                if all(st.play[s].grab is not None for s in st.order) and len(cands) == 1:
                    st.banker = cands[0]
            if st.void:
                st.phase = "done"
                return
            if t.choice is not Choice.NONE and st.banker is None:
                return
            st.phase = "bet"
            self._open_bets(st)
        if st.phase == "bet":
            if not st.bettors():
                st.void, st.phase = True, "done"
                return
            if any(st.play[s].multiple is None for s in st.bettors()):
                return
            st.phase = "deal"
        if st.phase == "arrange" and all(st.play[s].three is not None for s in st.active()):
            st.phase = "reveal"
        if st.phase == "reveal" and all(st.play[s].revealed for s in st.active()):
            st.phase = "done"

    def _open_bets(self, st: NiuniuState) -> None:
        """The multiples each player may choose (001: 闲家最大可选倍数)."""
        t = self.table
        for s in st.order:
            play = st.play[s]
            if s == st.banker:
                continue
            if t.bet_limits is BetLimits.CLASSIC:
                assert st.banker is not None
                lim = classic_niuniu_bet_limits(
                    banker_balance=st.seats[st.banker].stack,
                    player_balance=play.stack,
                    base=t.base,
                    max_hand_multiple=self.hands.max_multiplier,
                    players=len(st.order),
                    options=t.multiples,
                )
                play.options = lim.options
                play.out = not lim.options
            else:
                play.options = t.multiples

    def next_deal(self, st: NiuniuState) -> g.DealRequest | None:
        faces = self.die_faces(st)
        if faces is not None:
            return g.DealRequest(dice=1, faces=(faces,))
        if st.phase == "deal":
            up = self.table.mode is Mode.HUNDRED
            targets = self._deal_targets(st)
            return g.DealRequest(cards=tuple(g.Deal(x, up) for _ in range(5) for x in targets))
        if st.phase == "reveal":
            due = tuple(target(s) for s in st.active() if not st.play[s].revealed)
            return g.DealRequest(reveal=due) if due else None
        return None

    def is_over(self, st: NiuniuState) -> bool:
        return st.phase == "done"

    # -- results -----------------------------------------------------------------------
    def hand_of(self, cards: Sequence[str]) -> Hand:
        return evaluate(cards, self.hands)

    def outcome(self, st: NiuniuState) -> dict[str, Any]:
        if self.table.mode is Mode.HUNDRED:
            return self._hundred_outcome(st)
        banker = st.banker
        out: dict[str, Any] = {
            "mode": self.table.mode.value,
            "banker": None
            if banker is None
            else {"seat": banker, "player": st.seats[banker].player, "kept": st.kept_bank},
            "dice": list(st.dice),
            "void": st.void,
            "seats": [],
        }
        if st.void:
            out["declined"] = list(st.declined)
            return out
        hands = {s: self.hand_of(st.play[s].cards) for s in st.active()}
        winner = max(hands, key=lambda s: hands[s].key)
        for s in st.order:
            play = st.play[s]
            row: dict[str, Any] = {"seat": s, "player": play.player}
            if play.out:
                row["out"] = True  # 001: no multiple it could cover
                out["seats"].append(row)
                continue
            row["hand"] = hands[s].to_json()
            row["shown"] = list(play.three or ())
            row["auto"] = list(play.auto)
            if s != banker:
                row["multiple"] = play.multiple
                row["options"] = list(play.options)
            if banker is not None and s != banker:
                wins = hands[s].beats(hands[banker])
                row["beats_banker"] = wins
                row["pays"] = (hands[s] if wins else hands[banker]).multiplier
            out["seats"].append(row)
        if self.table.mode is Mode.TONGBI:
            out["winner"] = {"seat": winner, "player": st.seats[winner].player}
        return out

    def hundred_limits(self, st: NiuniuState) -> dict[int, int]:
        """Each bettor's limited multiplier (受限倍数)."""
        top = self.hands.max_multiplier
        out = {}
        for seat in sorted(st.staked):
            stakes = {sp: a for (s, sp), a in st.bets.items() if s == seat}
            out[seat] = hundred_spot_multiplier_limit(
                balance=st.seats[seat].stack, stakes=stakes, max_multiplier=top
            )
        return out

    def _hundred_outcome(self, st: NiuniuState) -> dict[str, Any]:
        h = self.table.hundred
        assert h is not None
        bank = self.hand_of(st.boxes[BANKER])
        spots = {}
        for sp in h.spots:
            hand = self.hand_of(st.boxes[sp])
            wins = hand.beats(bank)
            spots[sp] = {
                "hand": hand.to_json(),
                "beats_banker": wins,
                "multiplier": (hand if wins else bank).multiplier,
            }
        banker = st.banker
        return {
            "mode": "hundred",
            "banker": {
                "player": HOUSE if banker is None else st.seats[banker].player,
                "seat": banker,
                "banked": st.banked + 1 if banker is not None else 0,
                "hand": bank.to_json(),
            },
            "spots": spots,
            "limits": {str(s): m for s, m in self.hundred_limits(st).items()},
            "queue": list(st.queue),
        }

    def _liability(self, banker: str | None, carried: dict[str, int]) -> list[LiabilityRule]:
        """The variant's limited-liability rule over the hand (config ``liability``)."""
        if self.table.liability is Liability.BANKER_COVER:
            if banker is None:
                raise ConfigError(f"{self.variant}: banker_cover needs a banker")
            return [BankerCover(banker, carried)]
        return [ProportionalToCarried(carried)]

    def _participants(self, st: NiuniuState) -> list[str]:
        return [st.seats[s].player for s in st.order]

    def settle(self, st: NiuniuState) -> SettlementResult:
        if self.table.mode is Mode.HUNDRED:
            return self._settle_hundred(st)
        t = self.table
        people = self._participants(st)
        if st.void:
            return settle([], participants=people, hand_id=st.hand_id, source="no play")
        carried = {st.seats[s].player: st.seats[s].stack for s in st.order}
        hands = {s: self.hand_of(st.play[s].cards) for s in st.active()}
        claims: list[Claim]
        if t.mode is Mode.TONGBI:
            win = max(hands, key=lambda s: hands[s].key)
            claims = tongbi_niuniu_claims(
                winner=st.seats[win].player,
                base=t.base,
                hand_multiple=hands[win].multiplier,
                bet_multiples={st.seats[s].player: int(st.play[s].multiple or 0) for s in hands},
            )
            source = SOURCE_TONGBI
        else:
            b = st.banker
            assert b is not None
            claims = []
            for s in st.bettors():
                bank_wins = hands[b].beats(hands[s])
                claims.append(
                    banker_game_claim(
                        banker=st.seats[b].player,
                        player=st.seats[s].player,
                        base=t.base,
                        banker_wins=bank_wins,
                        banker_multiple=hands[b].multiplier,
                        player_multiple=hands[s].multiplier,
                        bet_multiple=int(st.play[s].multiple or 0),
                    )
                )
            source = f"{self.config.value('source')}: {SOURCE_BANKER}"
        banker = None if st.banker is None else st.seats[st.banker].player
        liability = self._liability(banker, carried)
        return settle(
            claims,
            participants=people,
            liability=liability,
            rake=self.rake_policy(),
            hand_id=st.hand_id,
            source=source,
        )

    def _settle_hundred(self, st: NiuniuState) -> SettlementResult:
        h = self.table.hundred
        assert h is not None
        bank_id = HOUSE if st.banker is None else st.seats[st.banker].player
        bank = self.hand_of(st.boxes[BANKER])
        limits = self.hundred_limits(st)
        results = {sp: self.hand_of(st.boxes[sp]) for sp in h.spots}
        claims = []
        for (seat, sp), amount in sorted(st.bets.items()):
            player, hand = st.seats[seat].player, results[sp]
            if hand.beats(bank):
                m = limit_multiplier(hand.multiplier, limits[seat])
                claims.append(Claim(bank_id, player, amount, (m,), sp))
            else:
                m = limit_multiplier(bank.multiplier, limits[seat])
                claims.append(Claim(player, bank_id, amount, (m,), sp))
        in_hand = {st.seats[s].player for s in st.staked} | {bank_id}
        people = [st.seats[s].player for s in st.order if st.seats[s].player in in_hand]
        liability: list[LiabilityRule] = []
        if st.banker is None:
            people.append(HOUSE)  # the system bank: no limit on what it pays
        else:
            carried = {st.seats[s].player: st.seats[s].stack for s in st.order}
            liability = self._liability(bank_id, {p: carried[p] for p in people})
        return settle(
            claims,
            participants=people,
            liability=liability,
            rake=self.rake_policy(frozenset({HOUSE})),
            hand_id=st.hand_id,
            source=SOURCE_HUNDRED,
            staked=_stakes_by_player(st.seats, st.bets),
        )

    def carry(self, st: NiuniuState) -> dict[str, Any]:
        """抢庄: the banker and whether a 牛九 calls a new grab (``regrab_on``);
        百人牛牛: the banker if they bank on, hands banked, and the queue."""
        c = self.table.choice
        if c is Choice.GRAB:
            if st.banker is None or st.void:
                return {}
            cats = {self.hand_of(st.play[s].cards).category for s in st.active()}
            regrab = bool(cats & self.table.regrab_on)
            return {"banker": st.seats[st.banker].player, "regrab": regrab}
        if c is Choice.QUEUE:
            h = self.table.hundred
            assert h is not None
            b = st.banker
            if b is None:
                return {"banker": None, "banked": 0, "queue": list(st.queue)}
            player = st.seats[b].player
            banked = st.banked + 1
            after = st.seats[b].stack + self.settlement(st).deltas.get(player, 0)
            stays = not st.leaving and banked < h.max_rounds and after >= h.requirement
            return {
                "banker": player if stays else None,
                "banked": banked if stays else 0,
                "queue": list(st.queue),
            }
        return {}

    # -- bare hands and odds -----------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval H...: each hand's category and multiplier; compare A B...: the hands
        ranked, the first a banker where the variant has one (the winner's multiplier is
        what changes hands)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        if not hands or (action == "compare" and len(hands) < 2):
            raise InvalidInput("give five cards per hand (compare takes two or more hands)")
        parsed = [parse_hand(h) for h in hands]
        seen = [c for h in parsed for c in h]
        if len(set(seen)) != len(seen):
            raise InvalidInput("the hands share a card; one deck holds each card once")
        ev = [self.hand_of(h) for h in parsed]
        rows = [e.to_json() for e in ev]
        if action == "eval":
            return {"hands": rows}
        ranking = sorted(range(len(ev)), key=lambda i: ev[i].key, reverse=True)
        out: dict[str, Any] = {"hands": rows, "ranking": ranking, "winner": ranking[0]}
        if self.table.mode is not Mode.TONGBI:
            out["against_first"] = [
                {
                    "hand": i,
                    "beats_first": ev[i].beats(ev[0]),
                    "multiplier": max(ev[i], ev[0], key=lambda e: e.key).multiplier,
                }
                for i in range(1, len(ev))
            ]
        else:
            out["multiplier"] = ev[ranking[0]].multiplier
        return out

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """百人牛牛: return per unit staked on each spot against the banker, before the
        rake (exactly 1: banker and spot hands are exchangeable and the winner's
        multiplier applies both ways) and after the 5% rake on a lone spot's win
        (``<spot>.after_rake``). Exact, :func:`~.probability.pair_odds`. Other variants:
        players against each other, no spot to return on (empty)."""
        h = self.table.hundred
        if h is None:
            return {}
        odds = pair_odds(self.hands)
        before, after = odds.rtp(self.hands), odds.rtp(self.hands, self.table.rake)
        out = {sp: before for sp in h.spots}
        out.update({f"{sp}.after_rake": after for sp in h.spots})
        return out

    def rtp_table(self, places: int = 6) -> str:
        counts = category_counts(self.hands)
        lines = [f"{self.variant}: categories over all {HANDS:,} hands"]
        lines += [f"  {'category':<14}{'hands':>10}{'probability':>14}{'multiplier':>12}"]
        for cat, n in counts.items():
            lines.append(
                f"  {cat.value:<14}{n:>10,}{n / HANDS:>14.{places}f}"
                f"{self.hands.multiplier(cat):>12}"
            )
        rtp = self.theoretical_rtp()
        if rtp:
            odds = pair_odds(self.hands)
            lines.append(f"banker against a spot, all {odds.pairs:,} pairs of hands:")
            lines.append(f"  P(spot wins)            {float(odds.p_spot_wins):.{places}f}")
            win = odds.expected_win_multiple(self.hands)
            lines.append(
                f"  E[multiplier won]       {float(win):.{places}f} ({plain_fraction(win)})"
            )
            lines += [f"  {k:<24}{float(v):.{places}f}" for k, v in rtp.items()]
        return "\n".join(lines)


def _stakes_by_player(
    seats: Mapping[int, Any], bets: Mapping[tuple[int, str], int]
) -> dict[str, int]:
    """Each bettor's total stake over the spots, bettors in seat order."""
    out: dict[str, int] = {}
    for (seat, _spot), amount in sorted(bets.items()):
        player = seats[seat].player
        out[player] = out.get(player, 0) + amount
    return out
