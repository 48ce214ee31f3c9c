"""The 幸运五张 engine (``videopoker.lucky5``, ``001_5f10773fec037198.txt``, 幸运五张).

The hand, as events:

1. ``bet.placed`` ``{seat, spot: "main", amount}`` - the seat's stake (one seat).
2. ``betting.closed``; the dealer deals 5 cards face up to ``hand``.
3. The winning cards are held automatically (:func:`.rules.auto_hold`, 获胜手牌的牌面将
   被系统自动保留); the player may change the holds and draws once with
   ``action.taken`` ``draw`` ``{hold: [cards]}`` (``hold`` left out: the automatic
   holds). A timed-out player draws on the automatic holds (``auto_action``).
4. The dealer deals one face-up card to ``draw`` for each card not held; the final
   hand is the held cards plus the drawn ones. The hand is over.

Money: the stake against the house at the paytable's "for 1" value
(``settle_against_house``; result = value - 1, -1 for nothing), no rake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.cards import CARDS52
from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput
from croupier.games import base as g
from croupier.games.common import (
    DEALT_FACE,
    NOT_FRESH_52,
    bet_fields,
    check_dealt,
    plain_fraction,
    stake_amount,
    unseen_card,
)
from croupier.games.poker.hands import describe, rank5
from croupier.games.registry import register_family
from croupier.games.videopoker.probability import deals_by_line, draw_value, line_values
from croupier.games.videopoker.rules import (
    PayHand,
    auto_hold,
    classify,
    paytable_from_config,
)
from croupier.money import SettlementResult, Wager, settle_against_house

HAND, DRAW, MAIN = "hand", "draw", "main"
_VALID = frozenset(CARDS52)


@dataclass
class VideoPokerState(g.HandState):
    seat_no: int | None = None
    bet: int = 0
    dealt: list[str] = field(default_factory=list)
    hold: list[str] | None = None  # None until the draw is asked for
    drawn: list[str] = field(default_factory=list)

    @property
    def final(self) -> list[str]:
        assert self.hold is not None
        return [*self.hold, *self.drawn]


@register_family
class VideoPokerEngine(g.Engine[VideoPokerState]):
    family = "videopoker"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "cards52", 1)
        self.paytable = paytable_from_config(raw)
        try:
            self.min_bet = int(raw["bets"]["min"])
            self.max_bet = int(raw["bets"]["max"])
            self.stake_step = int(raw["bets"]["step"])
            self.rake_rate = Fraction(str(raw["rake"]["rate"]))
            self.rake_source = str(raw["rake"]["source"])
            self.stated_rtp = Fraction(str(raw["auto_hold_rtp"]["value"]))
            self.losing_value = Fraction(str(raw["auto_hold_rtp"]["losing_deals_value"]))
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            raise ConfigError(f"videopoker config: {e!r}") from e
        if not 0 < self.stake_step <= self.min_bet <= self.max_bet:
            raise ConfigError("videopoker: bets need 0 < step <= min <= max")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> VideoPokerState:
        o = g.parse_opened(payload, max_seats=self.max_seats)
        return VideoPokerState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    def verify_bet(self, st: VideoPokerState, p: Mapping[str, Any]) -> tuple[int, int]:
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot, amount = bet_fields(p)
        seat = st.seat(seat_no)
        if spot != MAIN:
            raise BetRejected(
                f"unknown spot {spot!r}; 幸运五张 takes 'main'", reason="unknown_spot"
            )
        amount = stake_amount(amount, self.stake_step)
        if st.seat_no is not None and st.seat_no != seat_no:
            raise BetRejected("one seat plays each hand", reason="one_seat")
        total = st.bet + amount
        if total < self.min_bet:
            raise BetRejected(f"minimum bet is {self.min_bet}", reason="under_minimum")
        if total > self.max_bet:
            raise BetRejected(f"maximum bet is {self.max_bet}", reason="over_limit")
        if total > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack} and cannot stake {total}",
                reason="insufficient_stack",
            )
        return seat_no, amount

    # -- the draw ------------------------------------------------------------------------
    def to_act(self, st: VideoPokerState) -> int | None:
        """The seat that must draw now, or None."""
        if st.phase == "hold" and not st.closed:
            return st.seat_no
        return None

    def auto_hold(self, st: VideoPokerState) -> tuple[str, ...]:
        return auto_hold(st.dealt)

    def verify_action(self, st: VideoPokerState, p: Mapping[str, Any]) -> list[str]:
        try:
            seat_no, name, args = int(p["seat"]), str(p["action"]), p.get("args", {})
        except (KeyError, TypeError, ValueError) as e:
            raise ActionRejected(f"malformed action: {e}", reason="malformed") from e
        st.seat(seat_no)
        if name != "draw":
            raise ActionRejected(
                f"unknown action {name!r}; 幸运五张 takes 'draw'", reason="unknown_action"
            )
        if st.phase != "hold":
            raise ActionRejected("there is nothing to draw to now", reason="not_now")
        if seat_no != st.seat_no:
            raise ActionRejected(f"seat {st.seat_no} plays this hand", reason="out_of_turn")
        if not isinstance(args, Mapping) or set(args) - {"hold", "auto"}:
            raise ActionRejected("draw takes {hold: [cards]}", reason="malformed")
        if "hold" not in args:
            return list(self.auto_hold(st))
        hold = args["hold"]
        if not isinstance(hold, list) or not all(isinstance(c, str) for c in hold):
            raise ActionRejected("hold must be a list of cards", reason="malformed")
        for c in hold:
            if c not in st.dealt:
                raise ActionRejected(
                    f"{c!r} is not in the hand {' '.join(st.dealt)}", reason="not_in_hand"
                )
        if len(set(hold)) != len(hold):
            raise ActionRejected("a card is held twice", reason="malformed")
        return [c for c in st.dealt if c in hold]  # in dealt order

    def auto_action(self, st: VideoPokerState) -> tuple[int, str, dict[str, Any]] | None:
        seat = self.to_act(st)
        if seat is None:
            return None
        return seat, "draw", {"hold": list(self.auto_hold(st))}

    # -- deals -------------------------------------------------------------------------
    def next_deal(self, st: VideoPokerState) -> g.DealRequest | None:
        if st.phase == "dealing":
            return g.DealRequest(cards=(g.Deal(HAND, True),) * 5)
        if st.phase == "drawing":
            assert st.hold is not None
            return g.DealRequest(cards=(g.Deal(DRAW, True),) * (5 - len(st.hold)))
        return None

    def verify_cards(self, st: VideoPokerState, p: Mapping[str, Any]) -> None:
        fresh = unseen_card(_VALID, {*st.dealt, *st.drawn}, NOT_FRESH_52)
        check_dealt(self.next_deal(st), p, fresh, wording=DEALT_FACE)

    def apply_bet(self, st: VideoPokerState, p: Mapping[str, Any]) -> None:
        st.seat_no = int(p["seat"])
        st.bet += int(p["amount"])

    def apply_betting_closed(self, st: VideoPokerState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing" if st.bet else "done"

    def apply_cards(self, st: VideoPokerState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.positions.append(int(c["pos"]))
            (st.dealt if st.phase == "dealing" else st.drawn).append(str(c["card"]))
        st.phase = "hold" if st.phase == "dealing" else "done"

    def apply_action(self, st: VideoPokerState, p: Mapping[str, Any]) -> None:
        st.hold = self.verify_action(st, p)
        st.phase = "drawing" if len(st.hold) < 5 else "done"

    def is_over(self, st: VideoPokerState) -> bool:
        return st.phase == "done"

    # -- results -----------------------------------------------------------------------
    def line(self, st: VideoPokerState) -> PayHand:
        return classify(st.final)

    def outcome(self, st: VideoPokerState) -> dict[str, Any]:
        if st.hold is None:
            return {"bet": 0, "result": "0"}
        line = self.line(st)
        return {
            "seat": st.seat_no,
            "bet": st.bet,
            "dealt": list(st.dealt),
            "auto_hold": list(self.auto_hold(st)),
            "hold": list(st.hold),
            "drawn": list(st.drawn),
            "final": st.final,
            "hand": describe(rank5(st.final)),
            "line": line.value,
            "pays": plain_fraction(self.paytable[line]),
            "result": plain_fraction(self.paytable.result(line)),
        }

    def settle(self, st: VideoPokerState) -> SettlementResult:
        wagers = []
        if st.seat_no is not None and st.hold is not None:
            result = self.paytable.result(self.line(st))
            wagers.append(Wager(st.seats[st.seat_no].player, MAIN, st.bet, result))
        return settle_against_house(
            wagers, rake_rate=self.rake_rate, rake_source=self.rake_source, hand_id=st.hand_id
        )

    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval HAND [HOLD]``: the paytable line of 5 cards, the automatic hold, and the
        exact expected return (per unit staked) of drawing to ``HOLD`` (default: the
        automatic hold). ``compare A B``: two 5-card hands by the paytable."""
        if action == "compare":
            if len(hands) != 2:
                raise InvalidInput("compare takes two 5-card hands")
            a, b = (classify(list(h)) for h in hands)
            pa, pb = self.paytable[a], self.paytable[b]
            return {
                "a": {"cards": list(hands[0]), "line": a.value, "pays": plain_fraction(pa)},
                "b": {"cards": list(hands[1]), "line": b.value, "pays": plain_fraction(pb)},
                "winner": "a" if pa > pb else "b" if pb > pa else "tie",
            }
        if action != "eval":
            raise InvalidInput(f"unknown rules action {action!r}")
        if len(hands) not in (1, 2):
            raise InvalidInput("eval takes HAND (5 cards) and optionally HOLD")
        dealt = list(hands[0])
        line = classify(dealt)
        auto = list(auto_hold(dealt))
        hold = list(hands[1]) if len(hands) == 2 else auto
        value = draw_value(dealt, hold, self.paytable)
        return {
            "cards": dealt,
            "hand": describe(rank5(dealt)),
            "line": line.value,
            "pays": plain_fraction(self.paytable[line]),
            "auto_hold": auto,
            "hold": hold,
            "expected_return": plain_fraction(value),
            "expected_return_decimal": f"{float(value):.6f}",
        }

    def rtp_parts(self) -> tuple[dict[PayHand, int], dict[PayHand, Fraction], Fraction]:
        """Deals per line, each winning line's draw value (both recomputed here, exactly)
        and the losing deals' summed value (from the config: the one figure that needs
        the full enumeration of ``bench/bench_videopoker_rtp.py``)."""
        return deals_by_line(), line_values(self.paytable), self.losing_value

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """The exact return per unit staked on ``main`` when the player keeps the
        automatic holds: (winning deals x their draw values + the losing deals' value) /
        C(52,5). Equal to the config's ``auto_hold_rtp`` (checked by the tests)."""
        deals, values, losing = self.rtp_parts()
        total = losing + sum((values[h] * n for h, n in deals.items() if h in values), Fraction(0))
        return {"main": total / sum(deals.values())}

    def rtp_table(self, places: int = 6) -> str:
        deals, values, losing = self.rtp_parts()
        n = sum(deals.values())
        lines = [
            f"{self.variant}: the automatic hold (winning cards kept, nothing else), {n:,} deals",
            f"  {'dealt':<18}{'deals':>10}{'pays':>6}{'draw value':>14}",
        ]
        for line in PayHand:
            value = values.get(line, losing / deals[line] if line is PayHand.NOTHING else 0)
            lines.append(
                f"  {line.value:<18}{deals[line]:>10,}{plain_fraction(self.paytable[line]):>6}"
                f"{float(value):>14.{places}f}"
            )
        rtp = self.theoretical_rtp()["main"]
        lines.append(f"  RTP {rtp.numerator}/{rtp.denominator} = {float(rtp):.{places + 2}f}")
        return "\n".join(lines)
