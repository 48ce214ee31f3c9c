"""The dice engine: 开心摇摇乐 (``dice.yaoyao``, ``000_d16ad353ba467b8a.txt``).

The hand, as events:

1. ``bet.placed`` ``{seat, spot, amount}`` on any :class:`~.rules.Spot`, as often as
   the player likes while betting is open (amounts on one spot add up).
2. ``action.taken`` while betting is open:

   * ``{seat, action: "cancel", args: {}}``: 撤销 (一、6) clears every bet the seat has
     placed in this hand; it may bet again after.
   * ``{seat, action: "repeat", args: {}}``: 重复投 (一、5) places the player's bets of
     their last round, spot by spot and amount by amount, before anything else this
     hand (the gateway sends it at the start of every round for a player who ticked
     重复投). The last round's bets travel in ``carry.last_bets`` (``{player: [[spot,
     amount], ...]}``): this hand's, or the one before for a player who did not bet.
     All of them or none: each must pass the same checks as a bet.

3. ``betting.closed``; the dealer rolls six dice in one ``dice.rolled`` (faces all 6):
   red's three, then blue's three.

Then the hand is over. A hand where nobody bet still rolls (the table shows a round).

开骰盅 (一、4, the player with the most on red opens red's cup, likewise blue) is a
ceremony with no effect on money: the outcome names the two openers
(:meth:`DiceEngine.openers`) so the gateway can hand them the cup; the dice are the
dealer's fair roll either way.

Spot limits and the stake step are config values (``seeds/variants/dice.yaoyao.json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.common import (
    action_fields,
    bet_fields,
    check_requested_roll,
    plain_fraction,
    stake_amount,
)
from croupier.games.dice.probability import YaoyaoOdds, format_odds_table, yaoyao_odds
from croupier.games.dice.rules import (
    Round,
    Side,
    Spot,
    paytable_from_config,
    spot_result,
)
from croupier.games.registry import register_family
from croupier.money import SettlementResult, Wager, settle_against_house

SPOTS = {s.value: s for s in Spot}
CANCEL = "cancel"
REPEAT = "repeat"
ACTIONS = (CANCEL, REPEAT)
DICE = 6
_SPOTS = tuple(Spot)  # every spot, in the order the carry lists them


@dataclass
class DiceState(g.HandState):
    bets: list[tuple[int, Spot, int]] = field(default_factory=list)  # in the order placed
    cancelled: list[int] = field(default_factory=list)  # seats that cancelled, in order
    dice: list[int] = field(default_factory=list)
    rolls: int = 0
    last_bets: dict[str, list[tuple[Spot, int]]] = field(default_factory=dict)  # carried in

    def staked(self, seat: int, spot: Spot | None = None) -> int:
        return sum(a for s, sp, a in self.bets if s == seat and (spot is None or sp is spot))


@dataclass(frozen=True)
class SpotLimit:
    min: int
    max: int


@register_family
class DiceEngine(g.Engine[DiceState]):
    family = "dice"
    display_name = "开心摇摇乐"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        self.paytable = paytable_from_config(raw)
        try:
            self.limits = {
                s: SpotLimit(int(raw["spots"][s.value]["min"]), int(raw["spots"][s.value]["max"]))
                for s in Spot
            }
            self.stake_step = int(raw["stake_step"])
            self.rake = Fraction(str(raw["rake"]["rate"]))
            self.rake_source = str(raw["rake"]["source"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"dice config: {e!r}") from e
        if self.stake_step <= 0:
            raise ConfigError("dice config: stake_step must be positive")
        for s, lim in self.limits.items():
            if not 0 < lim.min <= lim.max or lim.min % self.stake_step:
                raise ConfigError(f"dice config: {s.value} needs 0 < min <= max, min in steps")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> DiceState:
        o = g.parse_opened(payload, max_seats=self.max_seats)
        carry = payload.get("carry", {})
        last = carry.get("last_bets", {}) if isinstance(carry, Mapping) else None
        players = {s.player for s in o.seats.values()}
        return DiceState.from_opened(
            self.variant,
            hand_id,
            o,
            last_bets={k: v for k, v in _parse_last_bets(last).items() if k in players},
        )

    def carry(self, st: DiceState) -> dict[str, Any]:
        """重复投 needs each player's bets of their last round: this hand's (after any
        撤销), or the one before for a player who has no bet in this hand."""
        last = {k: [[sp.value, a] for sp, a in v] for k, v in st.last_bets.items()}
        # each seat's stake per spot, summed once (not once per seat and spot)
        by_seat: dict[int, dict[Spot, int]] = {}
        for seat_no, spot, amount in st.bets:
            per = by_seat.setdefault(seat_no, {})
            per[spot] = per.get(spot, 0) + amount
        for seat_no, seat in st.seats.items():
            on = by_seat.get(seat_no)
            if on and sum(on.values()):
                last[seat.player] = [[sp.value, on[sp]] for sp in _SPOTS if on.get(sp)]
        return {"last_bets": dict(sorted(last.items()))}

    # -- checks ----------------------------------------------------------------------
    def verify_bet(self, st: DiceState, p: Mapping[str, Any]) -> tuple[int, Spot, int]:
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot_name, amount = bet_fields(p)
        if seat_no not in st.seats:
            raise BetRejected(f"seat {seat_no} is not at this hand", reason="unknown_seat")
        seat = st.seats[seat_no]
        spot = SPOTS.get(spot_name)
        if spot is None:
            raise BetRejected(
                f"unknown spot {spot_name!r}; one of {sorted(SPOTS)}", reason="unknown_spot"
            )
        amount = stake_amount(amount, self.stake_step)
        lim = self.limits[spot]
        on_spot = st.staked(seat_no, spot) + amount
        if on_spot < lim.min:
            raise BetRejected(f"{spot.value} minimum is {lim.min}", reason="under_minimum")
        if on_spot > lim.max:
            raise BetRejected(f"{spot.value} maximum is {lim.max} per seat", reason="over_limit")
        if st.staked(seat_no) + amount > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack} and has staked {st.staked(seat_no)}; "
                f"{amount} more is too much",
                reason="insufficient_stack",
            )
        return seat_no, spot, amount

    def verify_action(self, st: DiceState, p: Mapping[str, Any]) -> tuple[int, str]:
        seat_no, action, args = action_fields(p)
        seat = st.seat(seat_no)
        if action not in ACTIONS:
            raise ActionRejected(
                f"unknown action {action!r}; 开心摇摇乐 has {list(ACTIONS)}",
                reason="unknown_action",
            )
        if not isinstance(args, Mapping) or args:
            raise ActionRejected(f"{action} takes no args", reason="malformed")
        if st.phase != "betting":
            raise ActionRejected(f"{action} is open only while betting is", reason="betting_closed")
        if action == CANCEL:
            if not st.staked(seat_no):
                raise ActionRejected(f"seat {seat_no} has no bet to cancel", reason="no_bet")
            return seat_no, action
        if st.staked(seat_no):
            raise ActionRejected(
                f"重复投 comes before any other bet; seat {seat_no} has already bet",
                reason="already_bet",
            )
        last = st.last_bets.get(seat.player)
        if not last:
            raise ActionRejected(
                f"{seat.player} has no earlier round to repeat", reason="nothing_to_repeat"
            )
        scratch = DiceState(st.variant, st.table, st.hand_id, st.hand_no, st.shoe_hand_no, st.seats)
        for spot, amount in last:
            bet = {"seat": seat_no, "spot": spot.value, "amount": amount}
            try:
                self.verify_bet(scratch, bet)
            except BetRejected as e:
                raise ActionRejected(f"重复投: {e.message}", reason=e.reason) from e
            scratch.bets.append((seat_no, spot, amount))
        return seat_no, action

    def verify_dice(self, st: DiceState, p: Mapping[str, Any]) -> None:
        check_requested_roll(self.next_deal(st), p, st.rolls)

    def apply_bet(self, st: DiceState, p: Mapping[str, Any]) -> None:
        st.bets.append((int(p["seat"]), SPOTS[str(p["spot"])], int(p["amount"])))

    def apply_action(self, st: DiceState, p: Mapping[str, Any]) -> None:
        seat_no, action = int(p["seat"]), str(p["action"])
        if action == CANCEL:
            st.bets = [b for b in st.bets if b[0] != seat_no]
            st.cancelled.append(seat_no)
        else:
            player = st.seats[seat_no].player
            st.bets += [(seat_no, sp, a) for sp, a in st.last_bets[player]]

    def apply_betting_closed(self, st: DiceState, p: Mapping[str, Any]) -> None:
        st.phase = "rolling"

    def apply_dice(self, st: DiceState, p: Mapping[str, Any]) -> None:
        st.dice = [int(d) for d in p["dice"]]
        st.rolls += 1
        st.phase = "done"

    def next_deal(self, st: DiceState) -> g.DealRequest | None:
        if st.phase == "rolling":
            return g.DealRequest(dice=DICE, faces=(6,) * DICE)
        return None

    def is_over(self, st: DiceState) -> bool:
        return st.phase == "done"

    # -- results -----------------------------------------------------------------------
    def round(self, st: DiceState) -> Round:
        return Round.of(st.dice)

    def openers(self, st: DiceState) -> dict[str, int | None]:
        """开骰盅: for red and blue, the seat with the most staked on that side (the red or
        blue spot); among equals the first to reach that amount. None: nobody bet on it."""
        out: dict[str, int | None] = {}
        for side in Side:
            spot = Spot(side.value)
            totals: dict[int, int] = {}
            best: int | None = None
            for seat_no, sp, amount in st.bets:
                if sp is not spot:
                    continue
                totals[seat_no] = totals.get(seat_no, 0) + amount
                if best is None or totals[seat_no] > totals[best]:
                    best = seat_no
            out[side.value] = best
        return out

    def outcome(self, st: DiceState) -> dict[str, Any]:
        r = self.round(st)
        return {
            "red": list(r.red),
            "blue": list(r.blue),
            "red_total": r.red_total,
            "blue_total": r.blue_total,
            "winner": r.winner.value,
            "low_win": r.winning_total is not None and r.winning_total < self.paytable.low_below,
            "red_pattern": r.pattern(Side.RED).value,
            "blue_pattern": r.pattern(Side.BLUE).value,
            "openers": self.openers(st),
            "cancelled": list(st.cancelled),
            "spots": {s.value: plain_fraction(spot_result(s, r, self.paytable)) for s in Spot},
        }

    def wagers(self, st: DiceState) -> list[Wager]:
        r = self.round(st)
        return [
            Wager(st.seats[seat].player, spot.value, amount, spot_result(spot, r, self.paytable))
            for seat, spot, amount in st.bets
        ]

    def settle(self, st: DiceState) -> SettlementResult:
        return settle_against_house(
            self.wagers(st), rake_rate=self.rake, rake_source=self.rake_source, hand_id=st.hand_id
        )

    # -- bare rolls and odds ---------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval/compare RED BLUE: three dice each (``3 4 5``), the round's outcome and
        every spot's result."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        if len(hands) != 2 or any(len(h) != 3 for h in hands):
            raise InvalidInput("开心摇摇乐 takes two hands of three dice: red's and blue's")
        try:
            dice = [int(d) for h in hands for d in h]
        except ValueError as e:
            raise InvalidInput(f"dice are integers 1-6: {e}") from e
        st = DiceState(self.variant, "", "eval", 0, 0, {}, phase="done", dice=dice)
        out = self.outcome(st)
        del out["openers"], out["cancelled"]
        return out

    def odds(self) -> YaoyaoOdds:
        return yaoyao_odds(self.paytable)

    def theoretical_rtp(self) -> dict[str, Fraction]:
        return {s.value: v for s, v in self.odds().rtp.items()}

    def rtp_table(self, places: int = 6) -> str:
        return format_odds_table(self.odds(), places=places)


def _parse_last_bets(last: object) -> dict[str, list[tuple[Spot, int]]]:
    """``carry.last_bets`` of ``hand.opened``, checked."""
    bad = RuleViolation(
        "carry.last_bets must map players to [[spot, positive amount], ...]", reason="malformed"
    )
    if not isinstance(last, Mapping):
        raise bad
    out: dict[str, list[tuple[Spot, int]]] = {}
    for player, rows in last.items():
        if not isinstance(player, str) or not isinstance(rows, list) or not rows:
            raise bad
        parsed = []
        for row in rows:
            if not isinstance(row, list) or len(row) != 2 or row[0] not in SPOTS:
                raise bad
            amount = row[1]
            if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
                raise bad
            parsed.append((SPOTS[row[0]], amount))
        out[player] = parsed
    return out
