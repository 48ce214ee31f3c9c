"""炸金花 (``zhajinhua``): 000_d16ad353ba467b8a.txt, 炸金花 (基本规则, 牌型大小, 牌型的比较).

The hand, as events:

1. ``hand.opened`` (2-5 seats), ``betting.closed`` at once. The button follows the last
   hand's clockwise, or a die places it on a table's first hand. Every seat pays the ante
   (底注) and gets three face-down cards, one round at a time from the seat after the button.
2. ``action.taken``, clockwise from the seat after the button, one turn each per round:

   * ``call`` (跟注): pays the current bet; the table's bet is kept as the *blind* amount
     ``unit``: a seat that has not looked pays ``unit`` (暗注), one that has looked pays
     ``2 * unit`` (明注) — a blind bet counts as twice a seen bet;
   * ``raise {"amount"}`` (加注): pays more; the new ``unit`` is ``amount`` (blind) or
     ``amount / 2`` (seen); a seen-equivalent bet may not pass the single-bet cap (单注封顶);
   * ``compare {"target"}`` (比牌): pays twice its call (比牌费用等于当前跟注的两倍) and
     compares with one other seat still in; the challenger loses ties
     (主动比牌者为负者); the loser is out;
   * ``fold`` (弃牌); and ``look`` (看牌) at any time, which ends no turn.

   A seat whose turn comes while it cannot pay its call is folded by the rules
   (余额不足跟注时 … 系统自动弃牌); the outcome lists it. After the round cap (封顶轮次)
   or once the pot reaches the total cap (总注封顶), everyone still in goes to showdown.
3. A compare's result is announced by the dealer as a ``cards.revealed`` with no cards for
   the target ``compare_loser:<seat>`` (the engine asks for it with
   :class:`~croupier.games.base.DealRequest` ``reveal``): the log then says who lost,
   and a redacted view (where both hands are ``??``) follows the hand without either
   hand being shown to anyone.
4. The winner (or the showdown's equal winners, who split the winnings) takes the pot,
   less 5% of the net profit.

Visibility (基本规则): :func:`visible_hands` says whose cards a seat may see at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from croupier.games.common import carry_of, int_arg
from croupier.games.poker import hands
from croupier.games.poker.betting import (
    ButtonRule,
    Chips,
    button_die,
    button_from_carry,
    button_from_roll,
    check_args,
    check_dealt,
    clockwise,
    parse_action,
    rake_policy,
    seat_target,
    settle_single_pot,
    target_seat,
)
from croupier.games.registry import register_family
from croupier.money import RakePolicy, SettlementResult

ACTIONS = ("call", "raise", "compare", "fold", "look")
LOSER = "compare_loser:"


@dataclass(frozen=True)
class ZhajinhuaRules:
    min_seats: int
    max_seats: int
    button: ButtonRule
    ante: int
    first_unit: int
    step: int
    bet_cap: int  # 单注封顶, as a seen (明注) amount
    round_cap: int  # 封顶轮次
    total_cap: int  # 总注封顶
    compare_from_round: int
    three_card: hands.ThreeCardRules
    rake: RakePolicy

    @classmethod
    def from_config(cls, cfg: g.VariantConfig) -> ZhajinhuaRules:
        v = cfg.value
        try:
            r = cls(
                min_seats=int(v("seats", "min")),
                max_seats=int(v("seats", "max")),
                button=ButtonRule(v("button")),
                ante=int(v("ante")),
                first_unit=int(v("bets", "first_unit")),
                step=int(v("bets", "step")),
                bet_cap=int(v("bets", "single_cap")),
                round_cap=int(v("caps", "rounds")),
                total_cap=int(v("caps", "total")),
                compare_from_round=int(v("compare", "from_round")),
                three_card=hands.rules_from_config(dict(v("ranking")), cfg.variant),
                rake=rake_policy(v("rake")),
            )
        except (TypeError, ValueError, NotationError) as e:
            raise ConfigError(f"{cfg.variant}: {e}") from e
        if not 2 <= r.min_seats <= r.max_seats <= 17:
            raise ConfigError(f"{cfg.variant}: bad seat counts")
        if not 0 < r.step <= r.first_unit and r.first_unit % r.step == 0:
            raise ConfigError(f"{cfg.variant}: first unit must be a multiple of the step")
        if 2 * r.first_unit > r.bet_cap or r.round_cap < 1:
            raise ConfigError(f"{cfg.variant}: caps below the first bet")
        if r.total_cap <= r.max_seats * r.ante or r.ante <= 0:
            raise ConfigError(f"{cfg.variant}: the total cap must exceed the antes")
        return r


@dataclass
class Compare:
    challenger: int
    target: int
    loser: int | None = None  # None until the dealer announces it


@dataclass
class ZhajinhuaState(g.HandState):
    order: list[int] = field(default_factory=list)
    players: dict[int, str] = field(default_factory=dict)
    chips: Chips = field(default_factory=lambda: Chips({}))
    live: set[int] = field(default_factory=set)
    seen: set[int] = field(default_factory=set)
    button: int | None = None
    hole: dict[int, list[str]] = field(default_factory=dict)
    dealt: set[str] = field(default_factory=set)
    unit: int = 0
    turn: int | None = None
    round_no: int = 0
    compares: list[Compare] = field(default_factory=list)
    folded: list[int] = field(default_factory=list)
    auto_folded: list[int] = field(default_factory=list)
    end: str = ""  # last_standing | round_cap | total_cap
    decided_by_compare: bool = False  # the last two's compare ended the hand

    @property
    def pending(self) -> Compare | None:
        if self.compares and self.compares[-1].loser is None:
            return self.compares[-1]
        return None

    @property
    def showdown(self) -> bool:
        return self.end in ("round_cap", "total_cap")


@dataclass(frozen=True, slots=True)
class ZTurn:
    seat: int
    actions: tuple[str, ...]
    call: int
    min_raise: int  # smallest raise amount (this seat pays), 0 if none
    max_raise: int
    compare_cost: int
    targets: tuple[int, ...]


def call_amount(st: ZhajinhuaState, seat: int) -> int:
    return st.unit * (2 if seat in st.seen else 1)


def visible_hands(st: ZhajinhuaState, viewer: int | None) -> frozenset[int]:
    """Seats whose cards ``viewer`` (a seat, or None for an onlooker) may see.

    000_d16ad353ba467b8a.txt, 炸金花, 基本规则: during the hand a seat sees its own cards
    only (a compare is made without either side seeing the other's cards); when the hand
    is over, each seat sees the seats it compared with or that compared with it; if a
    compare between the last two decided the hand, everyone at the table (folded and
    beaten seats, onlookers) sees those two; if the hand ended because the other seats
    folded, nothing more is shown. A showdown forced by a cap is read as everyone still in
    comparing with everyone else: they see each other's hands, and when exactly two are
    in it, it is the last two's compare and everyone sees both.
    """
    own = {viewer} if viewer is not None and viewer in st.players else set()
    if st.phase != "done" and not st.closed:
        return frozenset(own)
    out = set(own)
    if viewer is not None:
        for c in st.compares:
            if viewer == c.challenger:
                out.add(c.target)
            elif viewer == c.target:
                out.add(c.challenger)
        if st.showdown and viewer in st.live:
            out |= st.live
    if (st.showdown and len(st.live) == 2) or st.decided_by_compare:
        last = st.compares[-1] if st.decided_by_compare else None
        out |= {last.challenger, last.target} if last is not None else st.live
    return frozenset(out)


@register_family
class ZhajinhuaEngine(g.Engine[ZhajinhuaState]):
    family = "zhajinhua"
    display_name = "炸金花"

    def visible_to(self, state: ZhajinhuaState, viewer: int | None) -> frozenset[str]:
        return frozenset(seat_target(s) for s in visible_hands(state, viewer))

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        g.require_deck(config, "cards52", 1)
        self.rules = ZhajinhuaRules.from_config(config)

    @property
    def max_seats(self) -> int | None:
        return self.rules.max_seats

    def open(self, hand_id: str, payload: Mapping[str, Any]) -> ZhajinhuaState:
        r = self.rules
        o = g.parse_opened(payload, min_seats=r.min_seats, max_seats=r.max_seats)
        for s in o.seats.values():
            if s.stack < r.ante:
                raise RuleViolation(
                    f"seat {s.seat} carries {s.stack}, less than the ante {r.ante}",
                    reason="short_stack",
                )
        carry = carry_of(payload)
        order = sorted(o.seats)
        return ZhajinhuaState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            players={s: o.seats[s].player for s in order},
            chips=Chips({s: o.seats[s].stack for s in order}),
            live=set(order),
            button=button_from_carry(r.button, order, carry),
            unit=r.first_unit,
        )

    def carry(self, st: ZhajinhuaState) -> dict[str, Any]:
        return {"button": st.button} if st.button is not None else {}

    # -- dealing ---------------------------------------------------------------------
    def loser_of(self, st: ZhajinhuaState, c: Compare) -> int:
        """The challenger wins only with a strictly stronger hand (ties lose)."""
        rules = self.rules.three_card
        a = hands.rank3(st.hole[c.challenger], rules)
        b = hands.rank3(st.hole[c.target], rules)
        return c.target if a > b else c.challenger

    def next_deal(self, st: ZhajinhuaState) -> g.DealRequest | None:
        if st.phase == "button":
            return button_die(st.order)
        if st.phase == "hole":
            assert st.button is not None
            seats = clockwise(st.order, st.button)
            return g.DealRequest(
                cards=tuple(g.Deal(seat_target(s), False) for _ in range(3) for s in seats)
            )
        if st.phase == "act" and st.pending is not None:
            return g.DealRequest(reveal=(f"{LOSER}{self.loser_of(st, st.pending)}",))
        return None

    def is_over(self, st: ZhajinhuaState) -> bool:
        return st.phase == "done"

    # -- verification ----------------------------------------------------------------
    def verify_bet(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        raise BetRejected(
            "炸金花 takes no bets before the cards: the ante is posted by the rules and "
            "every bet is an action",
            reason="no_bets",
        )

    def verify_dice(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        if st.phase != "button":
            raise RuleViolation("no dice are to be rolled now", reason="illegal_dice")
        button_from_roll(st.order, p)

    def verify_cards(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        check_dealt(self.next_deal(st), p, st.dealt)

    def verify_reveal(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        if req is None or p.get("to") not in req.reveal or p.get("cards") != []:
            raise RuleViolation(
                "the only announcement due is the loser of the compare, with no cards",
                reason="bad_reveal",
            )

    def verify_action(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> int:
        """Check an action; returns what it pays."""
        seat, action, args = parse_action(p, ACTIONS)
        st.seat(seat)
        if st.phase != "act":
            raise ActionRejected(
                "no betting now" + (" (the hand is over)" if st.phase == "done" else ""),
                reason="not_in_play",
            )
        if seat not in st.live:
            raise ActionRejected(f"seat {seat} is out of this hand", reason="folded")
        check_args(action, args, {"raise": ("amount",), "compare": ("target",)}.get(action, ()))
        if action == "look":
            if seat in st.seen:
                raise ActionRejected(f"seat {seat} has already looked", reason="already_looked")
            return 0
        if st.pending is not None:
            raise ActionRejected("a compare is being decided", reason="compare_pending")
        if st.turn != seat:
            raise ActionRejected(
                f"it is not seat {seat}'s turn (seat {st.turn} is to act)", reason="out_of_turn"
            )
        call = call_amount(st, seat)
        left = st.chips.left(seat)
        if action == "fold":
            return 0
        if action == "call":
            return call
        if action == "raise":
            amount = int_arg(args, "amount")
            seen = seat in st.seen
            if seen and amount % 2:
                raise ActionRejected(
                    "a seen raise is twice a blind unit: the amount must be even",
                    reason="bad_amount",
                )
            unit = amount // 2 if seen else amount
            if unit <= st.unit:
                raise ActionRejected(
                    f"a raise must pay more than the call of {call}", reason="under_minimum"
                )
            if unit % self.rules.step:
                raise ActionRejected(
                    f"bets go in steps of {self.rules.step} (blind)", reason="bad_amount"
                )
            if 2 * unit > self.rules.bet_cap:
                cap = self.rules.bet_cap if seen else self.rules.bet_cap // 2
                raise ActionRejected(
                    f"a {'seen' if seen else 'blind'} bet is capped at {cap} (单注封顶)",
                    reason="over_cap",
                )
            if amount > left:
                raise ActionRejected(
                    f"seat {seat} has {left} left; {amount} is too much",
                    reason="insufficient_stack",
                )
            return amount
        # compare
        if st.round_no < self.rules.compare_from_round:
            raise ActionRejected(
                f"compares start in round {self.rules.compare_from_round}",
                reason="compare_too_early",
            )
        target = int_arg(args, "target")
        if target == seat:
            raise ActionRejected("a seat cannot compare with itself", reason="bad_target")
        if target not in st.players:
            raise ActionRejected(f"seat {target} is not at this hand", reason="unknown_seat")
        if target not in st.live:
            raise ActionRejected(
                f"seat {target} is out of this hand (folded or beaten)", reason="target_folded"
            )
        cost = 2 * call
        if cost > left:
            raise ActionRejected(
                f"a compare costs {cost}; seat {seat} has {left}", reason="insufficient_stack"
            )
        return cost

    # -- application -----------------------------------------------------------------
    def apply_event(self, st: ZhajinhuaState, type_: str, p: Mapping[str, Any]) -> None:
        super().apply_event(st, type_, p)
        self._progress(st)

    def apply_betting_closed(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        st.phase = "button"

    def apply_dice(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        st.button = button_from_roll(st.order, p)

    def apply_cards(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            card = str(c["card"])
            st.positions.append(int(c["pos"]))
            st.dealt.add(card)
            seat = target_seat(str(c["to"]))
            assert seat is not None
            st.hole.setdefault(seat, []).append(card)

    def apply_reveal(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        c = st.pending
        assert c is not None
        c.loser = int(str(p["to"])[len(LOSER) :])
        st.live.discard(c.loser)
        st.decided_by_compare = len(st.live) == 1
        self._pass_turn(st, c.challenger)

    def apply_action(self, st: ZhajinhuaState, p: Mapping[str, Any]) -> None:
        seat, action = int(p["seat"]), str(p["action"])
        args = p.get("args", {})
        if action == "look":
            st.seen.add(seat)
            if st.turn == seat and st.chips.left(seat) < call_amount(st, seat):
                st.live.discard(seat)
                st.auto_folded.append(seat)
                self._pass_turn(st, seat)
            return
        if action == "fold":
            st.live.discard(seat)
            st.folded.append(seat)
            self._pass_turn(st, seat)
        elif action == "call":
            st.chips.pay(seat, call_amount(st, seat))
            self._pass_turn(st, seat)
        elif action == "raise":
            amount = int(args["amount"])
            st.unit = amount // 2 if seat in st.seen else amount
            st.chips.pay(seat, amount)
            self._pass_turn(st, seat)
        else:
            st.chips.pay(seat, 2 * call_amount(st, seat))
            st.compares.append(Compare(seat, int(args["target"])))
            st.turn = None  # until the dealer announces the loser

    def _pos(self, st: ZhajinhuaState, seat: int) -> int:
        assert st.button is not None
        return clockwise(st.order, st.button).index(seat)

    def _end(self, st: ZhajinhuaState, why: str) -> None:
        st.end = why
        st.turn = None
        st.phase = "done"

    def _pass_turn(self, st: ZhajinhuaState, actor: int) -> None:
        r = self.rules
        while True:
            if len(st.live) == 1:
                self._end(st, "last_standing")
                return
            nxt = next(s for s in clockwise(st.order, actor) if s in st.live)
            if self._pos(st, nxt) <= self._pos(st, actor):
                st.round_no += 1
            if st.chips.pot >= r.total_cap:
                self._end(st, "total_cap")
                return
            if st.round_no > r.round_cap:
                self._end(st, "round_cap")
                return
            if st.chips.left(nxt) < call_amount(st, nxt):
                st.live.discard(nxt)
                st.auto_folded.append(nxt)
                actor = nxt
                continue
            st.turn = nxt
            return

    def _progress(self, st: ZhajinhuaState) -> None:
        if st.phase == "button" and st.button is not None:
            for s in st.order:
                st.chips.pay(s, self.rules.ante)
            st.phase = "hole"
        dealt = len(st.hole) == len(st.order) and all(len(h) == 3 for h in st.hole.values())
        if st.phase == "hole" and dealt:
            st.phase = "act"
            assert st.button is not None
            self._pass_turn(st, st.button)

    # -- decisions -------------------------------------------------------------------
    def to_act(self, st: ZhajinhuaState) -> ZTurn | None:
        if st.phase != "act" or st.closed or st.turn is None:
            return None
        seat = st.turn
        r = self.rules
        call = call_amount(st, seat)
        left = st.chips.left(seat)
        mult = 2 if seat in st.seen else 1
        lo = (st.unit // r.step + 1) * r.step * mult
        hi = min(r.bet_cap // 2 // r.step * r.step * mult, left // (r.step * mult) * r.step * mult)
        acts = ["call", "fold"]
        if lo <= hi:
            acts.append("raise")
        targets = tuple(s for s in clockwise(st.order, seat) if s in st.live and s != seat)
        if 2 * call <= left and st.round_no >= r.compare_from_round:
            acts.append("compare")
        if seat not in st.seen:
            acts.append("look")
        return ZTurn(
            seat, tuple(acts), call, lo if lo <= hi else 0, hi if lo <= hi else 0, 2 * call, targets
        )

    def auto_action(self, st: ZhajinhuaState) -> tuple[int, str, dict[str, Any]] | None:
        """A turn that times out folds (default: the section names no timeout move)."""
        if self.to_act(st) is None:
            return None
        assert st.turn is not None
        return st.turn, "fold", {}

    # -- results ---------------------------------------------------------------------
    def winners(self, st: ZhajinhuaState) -> list[int]:
        if not self.is_over(st) and not st.closed:
            raise InvalidInput(f"hand {st.hand_id} is not over")
        live = [s for s in st.order if s in st.live]
        if len(live) == 1:
            return live
        ranks = {s: hands.rank3(st.hole[s], self.rules.three_card) for s in live}
        top = max(ranks.values())
        return [s for s in live if ranks[s] == top]

    def settle(self, st: ZhajinhuaState) -> SettlementResult:
        return settle_single_pot(
            st.order, st.players, st.chips, self.winners(st), self.rules.rake, st.hand_id
        )

    def outcome(self, st: ZhajinhuaState) -> dict[str, Any]:
        """The result; hands only of the seats every onlooker may see (visible_hands)."""
        res = self.settlement(st)
        public = visible_hands(st, None)
        rules = self.rules.three_card
        seats = []
        for s in st.order:
            row: dict[str, Any] = {
                "seat": s,
                "player": st.players[s],
                "put": st.chips.put[s],
                "looked": s in st.seen,
                "status": "in"
                if s in st.live
                else "auto_folded"
                if s in st.auto_folded
                else "folded"
                if s in st.folded
                else "beaten",
                "delta": res.deltas[st.players[s]],
            }
            if s in public:
                row["cards"] = list(st.hole[s])
                row["hand"] = hands.describe3(hands.rank3(st.hole[s], rules), rules)
            seats.append(row)
        return {
            "button": st.button,
            "end": st.end,
            "rounds": st.round_no,
            "pot": st.chips.pot,
            "winners": self.winners(st),
            "compares": [
                {"challenger": c.challenger, "target": c.target, "loser": c.loser}
                for c in st.compares
            ],
            "seats": seats,
            "rake": res.total_rake,
        }

    def describe(self, action: str, hands_: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval H... / compare CHALLENGER TARGET (the challenger loses ties)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        try:
            parsed = [[parse_card(c) for c in h] for h in hands_]
        except NotationError as e:
            raise InvalidInput(e.message) from e
        if not parsed or any(len(h) != 3 for h in parsed):
            raise InvalidInput("炸金花 hands are 3 cards each")
        every = [c for h in parsed for c in h]
        if len(set(every)) != len(every):
            raise InvalidInput("a card appears twice")
        rules = self.rules.three_card
        ranks = [hands.rank3(h, rules) for h in parsed]
        out: dict[str, Any] = {
            "hands": [
                {"cards": h, "hand": hands.describe3(s, rules), "strength": s}
                for h, s in zip(parsed, ranks, strict=True)
            ]
        }
        if action == "compare":
            if len(parsed) != 2:
                raise InvalidInput("compare takes the challenger's and the target's hands")
            out["winner"] = 0 if ranks[0] > ranks[1] else 1
        else:
            top = max(ranks)
            out["winners"] = [i for i, s in enumerate(ranks) if s == top]
        return out
