"""Hold'em-style games: 必下德州 (``holdem.must_bet``, 000_d16ad353ba467b8a.txt, 必下德州规则)
and 德州2+3 (``holdem.two_plus_three``, 001_5f10773fec037198.txt, 德州2+3). One engine; every
difference is a config value read into :class:`HoldemRules`.

The hand, as events:

1. ``hand.opened`` (2-9 seats with stacks; ``carry`` holds the last button), then
   ``betting.closed`` at once: nothing is staked before the cards (blinds are forced and
   posted by the rules, not placed).
2. The button: from the previous hand's (the next seat clockwise, 必下德州 基本规则 1), or,
   on a table's first hand and in every 德州2+3 hand (庄家位置系统随机指定), a die with as
   many faces as seats (``dice.rolled``): face *k* puts it on the *k*-th seat. The two seats
   after the button post the small and the big blind (with two players the button posts
   the big blind, as the seeds say it: the two seats after the button).
3. ``card.dealt``: two face-down hole cards to each ``seat:<n>``, one round at a time (德州2+3
   starts with the big blind, 底牌; 必下德州 with the small blind), then the board cards
   face up to ``board``: all five at once (必下德州), or two, then one (德州2+3).
4. ``action.taken``. 必下德州 (one round, 基本规则 3): every seat picks one of the venue's
   fixed amounts as its total stake for the hand (``bet {"amount"}``); the blinds may also
   ``check`` (stay at the blind); ``allin`` puts in a stack smaller than the largest amount.
   德州2+3 (three rounds, 下注规则): ``fold``, ``check`` (not in the first round), ``call``,
   ``bet {"to"}`` / ``raise {"to"}`` (round totals), ``allin``.
5. Showdown: ``cards.revealed`` for each seat still in, clockwise from the button; main and
   side pots from the smallest stack up (:func:`croupier.money.settle_pots`), rake on the
   winners' net profit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
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
from croupier.games.common import carry_of
from croupier.games.poker import hands
from croupier.games.poker.betting import (
    ButtonRule,
    Chips,
    NoLimit,
    Options,
    Round,
    apply_nl,
    button_die,
    button_from_carry,
    button_from_roll,
    check_args,
    check_dealt,
    clockwise,
    next_turn,
    options,
    parse_action,
    rake_policy,
    seat_target,
    settle_showdown,
    target_seat,
    verify_nl,
)
from croupier.games.registry import register_family
from croupier.money import RakePolicy, SettlementResult

BOARD = "board"
NL_ACTIONS = ("fold", "check", "call", "bet", "raise", "allin")
FIXED_ACTIONS = ("bet", "check", "allin")


class Style(Enum):
    FIXED = "fixed_amounts"  # 必下德州
    NO_LIMIT = "no_limit"  # 德州2+3


class Showdown(Enum):
    BEST5_OF7 = "best5_of7"
    BEST3_OF5 = "best3_of5"


class Timeout(Enum):
    FOLD = "fold"
    SMALLEST = "check_or_smallest"  # blinds check, others the smallest amount


@dataclass(frozen=True)
class HoldemRules:
    min_seats: int
    max_seats: int
    button: ButtonRule
    small_blind: int
    big_blind: int
    deal_from_big_blind: bool
    streets: tuple[int, ...]  # board cards dealt before each betting round
    style: Style
    amounts: tuple[int, ...]  # fixed amounts (必下德州)
    no_limit: NoLimit
    showdown: Showdown
    three_card: hands.ThreeCardRules
    timeout: Timeout
    rake: RakePolicy

    @classmethod
    def from_config(cls, cfg: g.VariantConfig) -> HoldemRules:
        v = cfg.value
        try:
            style = Style(v("betting", "style"))
            big = int(v("blinds", "big"))
            three = dict(v("showdown", "three_card")) if style is Style.NO_LIMIT else {}
            r = cls(
                min_seats=int(v("seats", "min")),
                max_seats=int(v("seats", "max")),
                button=ButtonRule(v("button")),
                small_blind=int(v("blinds", "small")),
                big_blind=big,
                deal_from_big_blind=v("deal", "first") == "big_blind",
                streets=tuple(int(x) for x in v("streets")),
                style=style,
                amounts=tuple(int(x) for x in v("betting", "amounts"))
                if style is Style.FIXED
                else (),
                no_limit=NoLimit(
                    min_bet=int(v("betting", "min_bet")),
                    raise_factor=int(v("betting", "raise_factor")),
                    check_in_first_round=bool(v("betting", "check_in_first_round")),
                )
                if style is Style.NO_LIMIT
                else NoLimit(big),
                showdown=Showdown(v("showdown", "hand")),
                three_card=hands.rules_from_config(three, cfg.variant),
                timeout=Timeout(v("timeout")),
                rake=rake_policy(v("rake")),
            )
        except (TypeError, ValueError, NotationError) as e:
            raise ConfigError(f"{cfg.variant}: {e}") from e
        if not 2 <= r.min_seats <= r.max_seats or 2 * r.max_seats + sum(r.streets) > 52:
            raise ConfigError(f"{cfg.variant}: bad seat counts")
        if not 0 < r.small_blind <= r.big_blind:
            raise ConfigError(f"{cfg.variant}: blinds need 0 < small <= big")
        if sum(r.streets) != (5 if r.showdown is Showdown.BEST5_OF7 else 3):
            raise ConfigError(f"{cfg.variant}: the streets must deal the whole board")
        if r.style is Style.FIXED and (
            not r.amounts or list(r.amounts) != sorted(set(r.amounts)) or r.amounts[0] < big
        ):
            raise ConfigError(f"{cfg.variant}: fixed amounts must rise from the big blind")
        return r


@dataclass
class HoldemState(g.HandState):
    order: list[int] = field(default_factory=list)  # seats, ascending
    players: dict[int, str] = field(default_factory=dict)
    chips: Chips = field(default_factory=lambda: Chips({}))
    live: set[int] = field(default_factory=set)
    button: int | None = None
    sb: int | None = None
    bb: int | None = None
    hole: dict[int, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    dealt: set[str] = field(default_factory=set)
    street: int = 0  # index of the betting round being played or next
    rnd: Round | None = None  # the no-limit round in play
    chosen: dict[int, str] = field(default_factory=dict)  # fixed amounts: seat -> action
    revealed: set[int] = field(default_factory=set)
    ended_by_folds: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    """Who acts and what they may do. ``amounts``: the totals a fixed-amount seat may
    pick; ``options``: the no-limit choices with their amounts."""

    seat: int
    actions: tuple[str, ...]
    amounts: tuple[int, ...] = ()
    options: Options | None = None


@register_family
class HoldemEngine(g.Engine[HoldemState]):
    family = "holdem"
    display_name = "hold'em"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        g.require_deck(config, "cards52", 1)
        self.rules = HoldemRules.from_config(config)

    @property
    def max_seats(self) -> int | None:
        return self.rules.max_seats

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> HoldemState:
        r = self.rules
        o = g.parse_opened(payload, min_seats=r.min_seats, max_seats=r.max_seats)
        for s in o.seats.values():
            if s.stack <= 0:
                raise RuleViolation(
                    f"seat {s.seat} has no chips to play a hand", reason="empty_stack"
                )
        carry = carry_of(payload)
        order = sorted(o.seats)
        st = HoldemState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            players={s: o.seats[s].player for s in order},
            chips=Chips({s: o.seats[s].stack for s in order}),
            live=set(order),
        )
        st.button = button_from_carry(r.button, order, carry)
        return st

    # -- dealing ---------------------------------------------------------------------
    def _board_due(self, st: HoldemState) -> int:
        """Board cards that must be out before the current betting round."""
        return sum(self.rules.streets[: st.street + 1])

    def next_deal(self, st: HoldemState) -> g.DealRequest | None:
        if st.phase == "button":
            return button_die(st.order)
        if st.phase == "hole":
            assert st.sb is not None and st.bb is not None
            start = st.sb if self.rules.deal_from_big_blind else st.button
            assert start is not None
            seats = clockwise(st.order, start)
            return g.DealRequest(
                cards=tuple(g.Deal(seat_target(s), False) for _ in range(2) for s in seats)
            )
        if st.phase == "board":
            n = self._board_due(st) - len(st.board)
            return g.DealRequest(cards=tuple(g.Deal(BOARD, True) for _ in range(n)))
        if st.phase == "showdown":
            assert st.button is not None
            due = [seat_target(s) for s in clockwise(sorted(st.live), st.button)]
            due = [t for t in due if int(t[5:]) not in st.revealed]
            return g.DealRequest(reveal=(due[0],)) if due else None
        return None

    def is_over(self, st: HoldemState) -> bool:
        return st.phase == "done"

    def carry(self, st: HoldemState) -> dict[str, Any]:
        return {"button": st.button} if st.button is not None else {}

    # -- verification ----------------------------------------------------------------
    def verify_bet(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        raise BetRejected(
            f"{self.variant} takes no bets before the cards: the blinds are posted by "
            "the rules and every stake is an action",
            reason="no_bets",
        )

    def verify_dice(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        if st.phase != "button":
            raise RuleViolation("no dice are to be rolled now", reason="illegal_dice")
        button_from_roll(st.order, p)

    def verify_cards(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        check_dealt(self.next_deal(st), p, st.dealt)

    def verify_reveal(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        to = p.get("to")
        if req is None or to not in req.reveal:
            raise RuleViolation("nothing is to be turned up now", reason="illegal_reveal")
        seat = target_seat(str(to))
        assert seat is not None
        if p.get("cards") != st.hole[seat]:
            raise RuleViolation(
                f"cards.revealed must show {to}'s hole cards as dealt", reason="bad_reveal"
            )

    def verify_action(self, st: HoldemState, p: Mapping[str, Any]) -> int:
        """Check an ``action.taken``; returns the chips it puts in."""
        known = FIXED_ACTIONS if self.rules.style is Style.FIXED else NL_ACTIONS
        seat, action, args = parse_action(p, (*known, *NL_ACTIONS))
        st.seat(seat)
        if st.phase != "act":
            raise ActionRejected(
                "no betting now" + (" (the hand is over)" if st.phase == "done" else ""),
                reason="not_in_play",
            )
        if action not in known:
            raise ActionRejected(
                f"{self.variant} has no '{action}'; one of {list(known)}",
                reason="unknown_action",
            )
        if seat not in st.live:
            raise ActionRejected(f"seat {seat} has folded", reason="folded")
        amount_arg = "amount" if self.rules.style is Style.FIXED else "to"
        check_args(action, args, (amount_arg,) if action in ("bet", "raise") else ())
        if self.rules.style is Style.FIXED:
            return self._verify_fixed(st, seat, action, args)
        assert st.rnd is not None
        return verify_nl(st.rnd, self.rules.no_limit, st.chips, st.live, seat, action, args)

    def _verify_fixed(
        self, st: HoldemState, seat: int, action: str, args: Mapping[str, Any]
    ) -> int:
        if seat in st.chosen:
            raise ActionRejected(
                f"seat {seat} has already chosen ({st.chosen[seat]})", reason="already_acted"
            )
        c = st.chips
        put, left = c.put[seat], c.left(seat)
        if left == 0:
            raise ActionRejected(f"seat {seat} is all in", reason="all_in")
        if action == "check":
            if put == 0:
                raise ActionRejected(
                    "only the blinds may check; pick an amount", reason="cannot_check"
                )
            return 0
        if action == "allin":
            if c.stack[seat] > self.rules.amounts[-1]:
                raise ActionRejected(
                    f"all in is for stacks below {self.rules.amounts[-1]}; pick an amount",
                    reason="over_limit",
                )
            return left
        amount = args.get("amount")
        if amount not in self.rules.amounts or isinstance(amount, bool):
            raise ActionRejected(
                f"the amounts are {list(self.rules.amounts)}, not {amount!r}",
                reason="bad_amount",
            )
        assert isinstance(amount, int)
        if amount <= put:
            raise ActionRejected(
                f"seat {seat} has {put} in already; raise to more or check",
                reason="under_minimum",
            )
        if amount > c.stack[seat]:
            raise ActionRejected(
                f"seat {seat} carries {c.stack[seat]}; {amount} is too much (all in instead)",
                reason="insufficient_stack",
            )
        return amount - put

    # -- application -----------------------------------------------------------------
    def apply_event(self, st: HoldemState, type_: str, p: Mapping[str, Any]) -> None:
        super().apply_event(st, type_, p)
        self._progress(st)

    def apply_betting_closed(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        st.phase = "button"

    def apply_dice(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        st.button = button_from_roll(st.order, p)

    def apply_cards(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            card = str(c["card"])
            st.positions.append(int(c["pos"]))
            st.dealt.add(card)
            if c["to"] == BOARD:
                st.board.append(card)
            else:
                seat = target_seat(str(c["to"]))
                assert seat is not None
                st.hole.setdefault(seat, []).append(card)

    def apply_reveal(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        seat = target_seat(str(p["to"]))
        assert seat is not None
        st.revealed.add(seat)

    def apply_action(self, st: HoldemState, p: Mapping[str, Any]) -> None:
        seat, action = int(p["seat"]), str(p["action"])
        args = p.get("args", {})
        if self.rules.style is Style.FIXED:
            put = st.chips.put[seat]
            if action == "allin":
                st.chips.pay(seat, st.chips.left(seat))
            elif action == "bet":
                st.chips.pay(seat, int(args["amount"]) - put)
            st.chosen[seat] = action if action != "bet" else f"bet {args['amount']}"
            return
        assert st.rnd is not None
        amount = {
            "fold": 0,
            "check": 0,
            "call": min(st.rnd.bet - st.rnd.put.get(seat, 0), st.chips.left(seat)),
            "allin": st.chips.left(seat),
        }.get(action)
        if amount is None:
            amount = int(args["to"]) - st.rnd.put.get(seat, 0)
        apply_nl(st.rnd, self.rules.no_limit, st.chips, st.live, seat, action, amount)

    def _post_blinds(self, st: HoldemState) -> None:
        assert st.button is not None
        r = self.rules
        after = clockwise(st.order, st.button)
        st.sb, st.bb = after[0], after[1]
        st.chips.pay(st.sb, min(r.small_blind, st.chips.left(st.sb)))
        st.chips.pay(st.bb, min(r.big_blind, st.chips.left(st.bb)))

    def _start_round(self, st: HoldemState) -> None:
        r = self.rules
        assert st.button is not None and st.bb is not None and st.sb is not None
        if r.style is Style.FIXED:
            return
        if st.street == 0:
            order = [s for s in clockwise(st.order, st.bb) if s in st.live]
            rnd = Round(0, order, put={st.sb: st.chips.put[st.sb], st.bb: st.chips.put[st.bb]})
            rnd.bet = r.big_blind
            # 德州2+3: no check in the first round and the round ends once every seat has
            # put in the same; the big blind's forced bet is its action (see the config).
            if not r.no_limit.check_in_first_round:
                rnd.acted.add(st.bb)
        else:
            rnd = Round(st.street, [s for s in clockwise(st.order, st.button) if s in st.live])
        rnd.turn = next_turn(rnd, st.chips, st.live, None)
        st.rnd = rnd

    def _round_over(self, st: HoldemState) -> bool:
        if self.rules.style is Style.FIXED:
            return all(s in st.chosen or st.chips.left(s) == 0 for s in st.live)
        return st.rnd is None or st.rnd.turn is None or len(st.live) == 1

    def _progress(self, st: HoldemState) -> None:
        while True:
            if st.phase == "button":
                if st.button is None:
                    return
                self._post_blinds(st)
                st.phase = "hole"
            elif st.phase == "hole":
                if len(st.hole) < len(st.order) or any(len(h) < 2 for h in st.hole.values()):
                    return
                st.phase = "board"
            elif st.phase == "board":
                if len(st.board) < self._board_due(st):
                    return
                st.phase = "act"
                self._start_round(st)
            elif st.phase == "act":
                if not self._round_over(st):
                    return
                st.rnd = None
                if len(st.live) == 1:
                    st.ended_by_folds = True
                    st.phase = "done"
                elif st.street + 1 < len(self.rules.streets):
                    st.street += 1
                    st.phase = "board"
                else:
                    st.phase = "showdown"
            elif st.phase == "showdown":
                if len(st.revealed) < len(st.live):
                    return
                st.phase = "done"
            else:
                return

    # -- decisions -------------------------------------------------------------------
    def to_act(self, st: HoldemState) -> Turn | None:
        """The next seat to decide and its choices (None: nobody; dealing or over).
        必下德州's seats choose independently; this names the first one still to choose,
        clockwise from the big blind."""
        if st.phase != "act" or st.closed:
            return None
        if self.rules.style is Style.FIXED:
            assert st.bb is not None
            for s in clockwise(st.order, st.bb):
                if s in st.live and s not in st.chosen and st.chips.left(s) > 0:
                    return self._fixed_turn(st, s)
            return None
        assert st.rnd is not None
        seat = st.rnd.turn
        if seat is None:
            return None
        o = options(st.rnd, self.rules.no_limit, st.chips, st.live, seat)
        acts = ["fold"]
        if o.can_check:
            acts.append("check")
        if o.can_call:
            acts.append("call")
        if o.can_raise and o.max_raise_to >= o.min_raise_to:
            acts.append("raise" if st.rnd.bet else "bet")
        if o.can_raise or o.to_call == st.chips.left(seat) > 0:
            acts.append("allin")
        return Turn(seat, tuple(acts), options=o)

    def _fixed_turn(self, st: HoldemState, seat: int) -> Turn:
        c = st.chips
        amounts = tuple(a for a in self.rules.amounts if c.put[seat] < a <= c.stack[seat])
        acts = []
        if c.put[seat]:
            acts.append("check")
        if amounts:
            acts.append("bet")
        if c.stack[seat] <= self.rules.amounts[-1]:
            acts.append("allin")
        return Turn(seat, tuple(acts), amounts=amounts)

    def auto_action(self, st: HoldemState) -> tuple[int, str, dict[str, Any]] | None:
        """德州2+3 下注规则: 20 seconds to act, then the hand is folded. 必下德州 (a bet is
        compulsory): a blind checks, any other seat stakes the smallest amount it can."""
        turn = self.to_act(st)
        if turn is None:
            return None
        if self.rules.timeout is Timeout.FOLD:
            return turn.seat, "fold", {}
        if "check" in turn.actions:
            return turn.seat, "check", {}
        if turn.amounts:
            return turn.seat, "bet", {"amount": turn.amounts[0]}
        return turn.seat, "allin", {}

    # -- results ---------------------------------------------------------------------
    def strength(self, st: HoldemState, seat: int) -> int:
        cards = [*st.hole[seat], *st.board]
        if self.rules.showdown is Showdown.BEST5_OF7:
            return hands.best_of(cards)
        return hands.best3_of5(cards, self.rules.three_card)

    def describe_strength(self, strength: int) -> str:
        if self.rules.showdown is Showdown.BEST5_OF7:
            return hands.describe(strength)
        return hands.describe3(strength, self.rules.three_card)

    def settle(self, st: HoldemState) -> SettlementResult:
        if not self.is_over(st) and not st.closed:
            raise InvalidInput(f"hand {st.hand_id} is not over")
        shown = {} if st.ended_by_folds else {s: self.strength(st, s) for s in st.live}
        assert st.button is not None
        return settle_showdown(
            st.order, st.players, st.chips, st.live, shown, st.button, self.rules.rake, st.hand_id
        )

    def outcome(self, st: HoldemState) -> dict[str, Any]:
        res = self.settlement(st)
        seats = []
        for s in st.order:
            row: dict[str, Any] = {
                "seat": s,
                "player": st.players[s],
                "put": st.chips.put[s],
                "folded": s not in st.live,
                "delta": res.deltas[st.players[s]],
            }
            if not st.ended_by_folds and s in st.live:
                strength = self.strength(st, s)
                row["hole"] = list(st.hole[s])
                row["hand"] = self.describe_strength(strength)
                row["strength"] = strength
            seats.append(row)
        return {
            "button": st.button,
            "small_blind": st.sb,
            "big_blind": st.bb,
            "board": list(st.board),
            "showdown": not st.ended_by_folds,
            "seats": seats,
            "pots": [p.to_json_dict() for p in res.pots],
            "rake": res.total_rake,
        }

    # -- bare hands ------------------------------------------------------------------
    def describe(self, action: str, hands_: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval BOARD HOLE... / compare BOARD HOLE HOLE...: each hand's best combination
        with the board and the winners (ties share)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        if len(hands_) < 2:
            raise InvalidInput("give the board first, then one or more hole-card hands")
        try:
            board, *holes = [[parse_card(c) for c in h] for h in hands_]
        except NotationError as e:
            raise InvalidInput(e.message) from e
        need = sum(self.rules.streets)
        if len(board) != need or any(len(h) != 2 for h in holes):
            raise InvalidInput(f"{self.variant}: a board of {need} cards and 2 hole cards each")
        every = [c for h in (board, *holes) for c in h]
        if len(set(every)) != len(every):
            raise InvalidInput("a card appears twice")
        rows = []
        strengths = []
        for h in holes:
            cards = [*h, *board]
            if self.rules.showdown is Showdown.BEST5_OF7:
                s, best = hands.best_five(cards)
            else:
                s, best = hands.best_three(cards, self.rules.three_card)
            strengths.append(s)
            rows.append({"hole": h, "best": list(best), "hand": self.describe_strength(s)})
        top = max(strengths)
        return {
            "board": board,
            "hands": rows,
            "winners": [i for i, s in enumerate(strengths) if s == top],
        }
