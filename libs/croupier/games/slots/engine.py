"""The slot engine: 多财多福 (``slots.duocai``, ``000_d16ad353ba467b8a.txt``).

One hand is one spin, with its double-up. As events:

1. ``bet.placed`` ``{seat, spot: "spin", amount}``: the stake, the line bet times the
   lines; the line bet is one of the config's ``line_bets`` (the +/- buttons walk that
   ladder: 1、1 选择不同的游戏底分). One spin bet per hand, one seat per table.
2. ``betting.closed`` (GO); the dealer rolls one die per reel in one ``dice.rolled``, die
   ``i`` with as many faces as reel ``i`` has stops, showing the stop index plus one.
3. A spin that pays nothing ends the hand (3: the stake is lost). A paying spin opens
   the double-up (:mod:`.double_up`): ``action.taken`` ``collect`` (收分), or ``guess``
   with ``args {pick: "boy" | "girl", times: 1 | 2 | 3 | 5}``, answered by the dealer's
   two-faced die in its own ``dice.rolled``; repeat until a collect, a wrong guess, the
   8th right guess or a short balance ends it. A timeout collects (``auto_action``).

自动 (auto-spin) is the gateway opening hands one after another with the same stake and
collecting every win; each spin is an ordinary hand, so the log needs nothing new.

Money (``settle_against_house``): the spin is a wager on spot ``spin`` whose result is
``pays / lines - 1`` (pays in line bets); every guess is a wager on spot ``double`` of
``times x W``, result +1 or -1. Nobody loses more than the stack: the stake and every
top-up come out of the balance the engine tracks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput
from croupier.games import base as g
from croupier.games.common import (
    action_fields,
    args_object,
    bet_fields,
    check_requested_roll,
    stake_amount,
)
from croupier.games.registry import register_family
from croupier.games.slots.double_up import (
    DIE_FACES,
    DoubleUp,
    Pick,
    double_up_from_config,
    drawn,
    guess_rtp,
)
from croupier.games.slots.probability import format_odds_table, spin_odds
from croupier.games.slots.reels import Machine, Spin, machine_from_config
from croupier.money import SettlementResult, Wager, settle_against_house

SPIN = "spin"
DOUBLE = "double"
COLLECT = "collect"
GUESS = "guess"
PICKS = {p.value: p for p in Pick}


@dataclass(frozen=True, slots=True)
class Guess:
    pick: Pick
    times: int
    stake: int  # times x the win at stake
    top_up: int  # what came from the balance
    die: int | None = None

    @property
    def right(self) -> bool:
        return self.die is not None and drawn(self.die) is self.pick


@dataclass
class SlotState(g.HandState):
    seat_no: int = 0
    stake: int = 0
    line_bet: int = 0
    balance: int = 0  # the stack minus the stake and every top-up so far
    spin: Spin | None = None
    win: int = 0  # what the double-up holds now (collected at the end unless lost)
    guesses: list[Guess] = field(default_factory=list)
    end: str = ""  # why the hand ended
    rolls: int = 0

    @property
    def right_guesses(self) -> int:
        return sum(1 for x in self.guesses if x.right)


@register_family
class SlotEngine(g.Engine[SlotState]):
    family = "slots"
    display_name = "多财多福"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        self.machine: Machine = machine_from_config(raw)
        self.double_up: DoubleUp = double_up_from_config(raw)
        try:
            self.line_bets = tuple(int(x) for x in raw["line_bets"]["values"])
            self.target_rtp = Fraction(str(raw["target_rtp"]["value"]))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"slots config: {e!r}") from e
        if not self.line_bets or any(b <= 0 for b in self.line_bets):
            raise ConfigError("slots: line bets must be positive")
        if list(self.line_bets) != sorted(set(self.line_bets)):
            raise ConfigError("slots: line bets must be increasing")
        if self.max_seats != 1:
            raise ConfigError("slots: one seat per machine (seats.max = 1)")

    @property
    def lines(self) -> int:
        return len(self.machine.lines)

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> SlotState:
        o = g.parse_opened(payload, max_seats=1)
        (seat,) = o.seats.values()
        return SlotState.from_opened(
            self.variant,
            hand_id,
            o,
            seat_no=seat.seat,
            balance=seat.stack,
        )

    # -- checks ----------------------------------------------------------------------
    def verify_bet(self, st: SlotState, p: Mapping[str, Any]) -> int:
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot, amount = bet_fields(p)
        if seat_no not in st.seats:
            raise BetRejected(f"seat {seat_no} is not at this hand", reason="unknown_seat")
        seat = st.seats[seat_no]
        if spot != SPIN:
            raise BetRejected(
                f"unknown spot {spot!r}; a slot takes {SPIN!r}", reason="unknown_spot"
            )
        amount = stake_amount(amount)
        if st.stake:
            raise BetRejected(
                "one spin per hand; the stake is already placed", reason="already_bet"
            )
        allowed = [b * self.lines for b in self.line_bets]
        if amount not in allowed:
            raise BetRejected(
                f"the stake is a line bet x {self.lines} lines, one of {allowed}",
                reason="bad_amount",
            )
        if amount > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack}, the spin costs {amount}",
                reason="insufficient_stack",
            )
        return amount

    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
        seat_no, action, args = action_fields(p)
        return seat_no, action, args_object(args)

    def verify_action(self, st: SlotState, p: Mapping[str, Any]) -> Guess | None:
        """Check an ``action.taken``; the :class:`Guess` it makes (None: collect)."""
        seat_no, action, args = self._parse_action(p)
        st.seat(seat_no)
        if action not in (COLLECT, GUESS):
            raise ActionRejected(
                f"unknown action {action!r}; one of {[COLLECT, GUESS]}", reason="unknown_action"
            )
        if st.phase != "double":
            raise ActionRejected(
                "the double-up is open only after a winning spin, until it ends",
                reason="not_in_double_up",
            )
        if action == COLLECT:
            if set(args) - {"auto"} or args.get("auto", "timeout") != "timeout":
                raise ActionRejected(
                    "collect takes no args (the dealer's timeout adds auto: timeout)",
                    reason="malformed",
                )
            return None
        if set(args) != {"pick", "times"}:
            raise ActionRejected("guess takes args pick and times", reason="malformed")
        pick = PICKS.get(str(args["pick"]))
        if pick is None:
            raise ActionRejected(
                f"pick {args['pick']!r}: one of {sorted(PICKS)} (童男/童女)", reason="bad_pick"
            )
        times = args["times"]
        if (
            not isinstance(times, int)
            or isinstance(times, bool)
            or times not in self.double_up.multiples
        ):
            raise ActionRejected(
                f"times {times!r}: one of {list(self.double_up.multiples)}", reason="bad_multiple"
            )
        top_up = self.double_up.top_up(st.win, times)
        if top_up > st.balance:
            raise ActionRejected(
                f"x{times} takes {top_up} from the balance, which holds {st.balance}",
                reason="insufficient_stack",
            )
        return Guess(pick, times, times * st.win, top_up)

    def verify_dice(self, st: SlotState, p: Mapping[str, Any]) -> None:
        check_requested_roll(self.next_deal(st), p, st.rolls)

    def apply_bet(self, st: SlotState, p: Mapping[str, Any]) -> None:
        st.stake = int(p["amount"])
        st.line_bet = st.stake // self.lines
        st.balance -= st.stake

    def apply_betting_closed(self, st: SlotState, p: Mapping[str, Any]) -> None:
        if st.stake:
            st.phase = "spinning"
        else:
            st.phase, st.end = "done", "no_bet"

    def apply_action(self, st: SlotState, p: Mapping[str, Any]) -> None:
        guess = self.verify_action(st, p)
        if guess is None:
            st.phase, st.end = "done", "collected"
        else:
            st.guesses.append(guess)
            st.balance -= guess.top_up
            st.phase = "guessing"

    def apply_dice(self, st: SlotState, p: Mapping[str, Any]) -> None:
        dice = [int(d) for d in p["dice"]]
        st.rolls += 1
        if st.phase == "spinning":
            st.spin = self.machine.spin([d - 1 for d in dice])
            st.win = st.line_bet * st.spin.pays
            if not st.win:
                st.phase, st.end = "done", "no_win"
            elif not self.double_up.enabled:
                st.phase, st.end = "done", "collected"
            else:
                self._open_double(st)
        else:
            last = st.guesses[-1]
            guess = Guess(last.pick, last.times, last.stake, last.top_up, dice[0])
            st.guesses[-1] = guess
            if not guess.right:
                st.win = 0
                st.phase, st.end = "done", "lost"
            else:
                st.win = 2 * guess.stake
                self._open_double(st)

    def _open_double(self, st: SlotState) -> None:
        d = self.double_up
        if st.right_guesses >= d.max_wins:
            st.phase, st.end = "done", "max_wins"
        elif d.short(st.balance, st.win):
            st.phase, st.end = "done", "balance_short"
        else:
            st.phase = "double"

    def next_deal(self, st: SlotState) -> g.DealRequest | None:
        if st.phase == "spinning":
            return g.DealRequest(dice=len(self.machine.strips), faces=self.machine.faces)
        if st.phase == "guessing":
            return g.DealRequest(dice=1, faces=DIE_FACES)
        return None

    def is_over(self, st: SlotState) -> bool:
        return st.phase == "done"

    def auto_action(self, st: SlotState) -> tuple[int, str, dict[str, Any]] | None:
        """15 s idle in the double-up (7): collect."""
        if st.phase == "double" and not st.closed:
            return st.seat_no, COLLECT, {}
        return None

    # -- results -----------------------------------------------------------------------
    def outcome(self, st: SlotState) -> dict[str, Any]:
        spin = st.spin
        return {
            "stake": st.stake,
            "line_bet": st.line_bet,
            "lines": self.lines,
            "stops": [] if spin is None else list(spin.stops),
            "window": [] if spin is None else [list(row) for row in spin.window],
            "line_wins": []
            if spin is None
            else [
                {"line": w.line, "symbols": list(w.symbols), "run": w.run, "pays": w.pay}
                for w in spin.wins
            ],
            "pays": 0 if spin is None else spin.pays,
            "spin_win": 0 if spin is None else st.line_bet * spin.pays,
            "double_up": [
                {
                    "pick": x.pick.value,
                    "times": x.times,
                    "stake": x.stake,
                    "top_up": x.top_up,
                    "die": x.die,
                    "drawn": None if x.die is None else drawn(x.die).value,
                    "right": x.right,
                }
                for x in st.guesses
            ],
            "end": st.end,
            "collected": st.win,
        }

    def wagers(self, st: SlotState) -> list[Wager]:
        if not st.stake or st.spin is None:
            return []
        player = st.seats[st.seat_no].player
        out = [Wager(player, SPIN, st.stake, Fraction(st.spin.pays, self.lines) - 1)]
        out += [Wager(player, DOUBLE, x.stake, 1 if x.right else -1) for x in st.guesses]
        return out

    def settle(self, st: SlotState) -> SettlementResult:
        return settle_against_house(self.wagers(st), rake_rate=0, hand_id=st.hand_id)

    # -- bare spins and odds --------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval STOPS: the reels' dice as rolled (``1 5 30``, die = stop index + 1): the
        window and what every line pays, in line bets."""
        if action != "eval":
            raise InvalidInput(f"多财多福 has only 'eval', not {action!r}")
        if len(hands) != 1:
            raise InvalidInput("多财多福 takes one hand: the reels' dice")
        try:
            dice = [int(d) for d in hands[0]]
        except ValueError as e:
            raise InvalidInput(f"reel dice are integers: {e}") from e
        faces = self.machine.faces
        if len(dice) != len(faces) or any(
            not 1 <= d <= f for d, f in zip(dice, faces, strict=False)
        ):
            raise InvalidInput(f"one die per reel, 1..{list(faces)}; got {dice}")
        spin = self.machine.spin([d - 1 for d in dice])
        return {
            "stops": list(spin.stops),
            "window": [list(row) for row in spin.window],
            "line_wins": [
                {"line": w.line, "symbols": list(w.symbols), "run": w.run, "pays": w.pay}
                for w in spin.wins
            ],
            "pays": spin.pays,
        }

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Per unit staked: ``spin`` by enumerating every stop combination; ``double``,
        one guess of the double-up (exactly 1: a fair guess)."""
        return {SPIN: spin_odds(self.machine).rtp, DOUBLE: guess_rtp()}

    def rtp_table(self, places: int = 6) -> str:
        return format_odds_table(self.machine, places)
