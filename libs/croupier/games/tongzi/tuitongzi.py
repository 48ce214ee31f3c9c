"""The 推筒子 engine (000_d16ad353ba467b8a.txt, 推筒子游戏规则); numbers the seed leaves
out come from ``seeds/variants/tuitongzi.json`` with their ``source`` notes.

The hand, as events:

1. ``hand.opened`` with seats numbered 1 .. ``wheel.faces`` (the wheel names a seat).
2. 底注: ``bet.placed`` ``{seat, spot: "ante", amount}``, the fixed ante, once per seat;
   the seats that ante are the hand's players (a seat that does not ante sits the hand
   out). ``betting.closed``; with fewer than two players nothing is dealt and the hand
   is over (the ante comes back).
3. 发牌: the wheel, one dealer die of ``wheel.faces`` faces (``dice.rolled``), names a
   seat; if nobody plays there the deal starts at the next player in the deal
   direction (counter-clockwise). Each player in turn gets two tiles, the first face up
   (亮出左边第一张) and the second face down (``card.dealt`` to ``seat:<n>``).
4. 加注: every player sends ``raise`` ``{amount}`` or ``fold`` (any order); a player who
   lets the countdown run out folds (:meth:`auto_action`).
5. 比牌: the face-down tiles are turned up (``cards.revealed``, the raisers first).

Money, one :func:`~croupier.money.settle_pots` over each player's ante + raise: the
ante level is the base pot (底注池), contested by every player; what lies above it comes
only from raisers, so only raisers contest it (加注池, side pots by raise size if the
raises differ; the part of the largest raise nobody matched goes back). Ties split; 5%
rake on each winner's profit for the hand. With no raiser the raise pot is empty and the
base pot's winner takes everything there is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.common import int_arg, plain_fraction
from croupier.games.registry import register_family
from croupier.games.tongzi.common import (
    Direction,
    around,
    check_dice,
    check_tiles,
    config_int,
    parse_action,
    require,
    seat_of,
    target,
)
from croupier.games.tongzi.probability import (
    category_table,
    format_distribution,
    tuitongzi_ante_rtp,
    tuitongzi_heads_up,
)
from croupier.games.tongzi.tiles import PairHand, TileRules, parse_hand
from croupier.money import PotSeat, RakePolicy, SettlementResult, settle, settle_pots

ANTE = "ante"
RAISE = "raise"
FOLD = "fold"


@dataclass
class TuitongziState(g.HandState):
    antes: dict[int, int] = field(default_factory=dict)
    players: list[int] = field(default_factory=list)  # seats that anted, clockwise
    wheel: int | None = None
    deal_order: list[int] = field(default_factory=list)
    tiles: dict[int, list[str]] = field(default_factory=dict)  # as dealt, "??" if hidden
    hidden: dict[int, str] = field(default_factory=dict)  # the face-down tile as dealt
    revealed: list[int] = field(default_factory=list)
    raises: dict[int, int] = field(default_factory=dict)  # 0: folded
    last_roll: int = -1

    def raisers(self) -> list[int]:
        return [s for s in self.deal_order if self.raises.get(s, 0) > 0]


@register_family
class TuitongziEngine(g.Engine[TuitongziState]):
    family = "tuitongzi"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "tongzi40", 1)
        self.tiles = TileRules.from_config(raw)
        self.ante = config_int(raw, "ante")
        self.min_players = config_int(raw, "seats", "min")
        self.faces = config_int(raw, "wheel", "faces")
        self.raise_min = config_int(raw, "raise", "min")
        self.raise_max = config_int(raw, "raise", "max")
        self.raise_step = config_int(raw, "raise", "step")
        require(raw, 2, "deal", "tiles_each")
        require(raw, True, "deal", "first_up")
        try:
            self.direction = Direction(str(raw["wheel"]["direction"]))
            self.rake = RakePolicy(
                Fraction(str(raw["rake"]["rate"])), source=str(raw["rake"]["source"])
            )
            timeout = str(raw["timeout"]["action"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"tuitongzi config: {e!r}") from e
        if timeout != FOLD:
            raise ConfigError("tuitongzi: a player who times out folds")
        if self.max_seats is None or not 2 <= self.min_players <= self.max_seats <= self.faces:
            raise ConfigError("tuitongzi: 2 <= seats.min <= seats.max <= wheel.faces")
        if self.max_seats * 2 > 40:
            raise ConfigError("tuitongzi: 40 tiles deal two each to at most 20 players")
        s = self.raise_step
        if not (self.ante > 0 and 0 < s <= self.raise_min <= self.raise_max):
            raise ConfigError("tuitongzi: ante > 0 and 0 < raise.step <= raise.min <= raise.max")
        if self.raise_min % s or self.raise_max % s:
            raise ConfigError("tuitongzi: raise limits must be multiples of raise.step")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> TuitongziState:
        o = g.parse_opened(payload, min_seats=1, max_seats=self.max_seats)
        for n in o.seats:
            if not 1 <= n <= self.faces:
                raise RuleViolation(
                    f"seats are numbered 1..{self.faces} (the wheel's numbers), not {n}",
                    reason="unknown_seat",
                )
        return TuitongziState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    # -- checks ----------------------------------------------------------------------
    def verify_bet(self, st: TuitongziState, p: Mapping[str, Any]) -> tuple[int, int]:
        if st.phase != "betting":
            raise BetRejected("the ante is placed before betting closes", reason="betting_closed")
        try:
            seat_no, spot, amount = p["seat"], str(p["spot"]), p["amount"]
        except (KeyError, TypeError, ValueError) as e:
            raise BetRejected(f"malformed bet: {e}", reason="malformed") from e
        if not isinstance(seat_no, int) or isinstance(seat_no, bool):
            raise BetRejected("seat must be an integer", reason="malformed")
        seat = st.seat(seat_no)
        if spot != ANTE:
            raise BetRejected(
                f"unknown spot {spot!r}; tuitongzi takes the 'ante' (raises are actions)",
                reason="unknown_spot",
            )
        if amount != self.ante or isinstance(amount, bool):
            raise BetRejected(
                f"the ante is exactly {self.ante}, not {amount!r}", reason="bad_amount"
            )
        if seat_no in st.antes:
            raise BetRejected(f"seat {seat_no} has already anted", reason="already_decided")
        if seat.stack < self.ante:
            raise BetRejected(
                f"seat {seat_no} carries {seat.stack}, less than the ante {self.ante}",
                reason="insufficient_stack",
            )
        return seat_no, self.ante

    def raise_cap(self, st: TuitongziState, seat_no: int) -> int:
        """The largest raise ``seat_no`` may make: ``raise.max`` and what its stack
        holds beyond the ante, in whole steps (0: it cannot raise)."""
        room = st.seat(seat_no).stack - st.antes.get(seat_no, 0)
        cap = min(self.raise_max, room // self.raise_step * self.raise_step)
        return cap if cap >= self.raise_min else 0

    def verify_action(self, st: TuitongziState, p: Mapping[str, Any]) -> tuple[int, str, int]:
        seat_no, name, args = parse_action(p, {"amount"})
        st.seat(seat_no)
        if name not in (RAISE, FOLD):
            raise ActionRejected(
                f"unknown action {name!r}; tuitongzi takes 'raise' and 'fold'",
                reason="unknown_action",
            )
        if st.phase != "raise":
            raise ActionRejected("raises are made once the tiles are dealt", reason="not_raising")
        if seat_no not in st.players:
            raise ActionRejected(f"seat {seat_no} did not ante this hand", reason="no_bet")
        if seat_no in st.raises:
            raise ActionRejected(f"seat {seat_no} already decided", reason="already_decided")
        if name == FOLD:
            if "amount" in args:
                raise ActionRejected("a fold takes no amount", reason="malformed")
            return seat_no, name, 0
        amount = int_arg(args, "amount")
        cap = self.raise_cap(st, seat_no)
        if amount % self.raise_step or amount < self.raise_min:
            raise ActionRejected(
                f"a raise is at least {self.raise_min}, in steps of {self.raise_step}, "
                f"not {amount}",
                reason="bad_amount",
            )
        if amount > cap:
            raise ActionRejected(
                f"seat {seat_no} may raise at most {cap} (raise.max {self.raise_max}, and its "
                f"stack {st.seat(seat_no).stack} less the ante), not {amount}",
                reason="raise_over_cap",
            )
        return seat_no, name, amount

    def verify_reveal(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        to = p.get("to")
        if req is None or to not in req.reveal:
            raise RuleViolation(f"{to!r} has nothing to turn up now", reason="illegal_reveal")
        s = seat_of(str(to))
        if p.get("cards") != [st.hidden.get(s)]:
            raise RuleViolation(
                f"cards.revealed must show {to}'s face-down tile as dealt", reason="bad_reveal"
            )

    # -- events ------------------------------------------------------------------------
    def verify_dice(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        check_dice(self.next_deal(st), p, st.last_roll)

    def verify_cards(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        held = [t for ts in st.tiles.values() for t in ts if t != "??"]
        check_tiles(self.next_deal(st), p, held + list(st.hidden.values()))

    def apply_bet(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        st.antes[int(p["seat"])] = int(p["amount"])

    def apply_betting_closed(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        st.players = sorted(st.antes)
        st.phase = "wheel" if len(st.players) >= self.min_players else "done"

    def apply_dice(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        st.last_roll = int(p["roll"])
        st.wheel = int(p["dice"][0])
        st.deal_order = self.deal_order(st.players, st.wheel)
        st.phase = "dealing"

    def apply_cards(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            s = seat_of(str(c["to"]))
            if c["up"]:
                st.tiles.setdefault(s, []).append(str(c["card"]))
            else:
                st.hidden[s] = str(c["card"])
                st.tiles.setdefault(s, []).append("??")
            st.positions.append(int(c["pos"]))
        st.phase = "raise"

    def apply_action(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        seat_no, name, args = parse_action(p, {"amount"})
        st.raises[seat_no] = int(args["amount"]) if name == RAISE else 0
        if len(st.raises) == len(st.players):
            st.phase = "showdown"

    def apply_reveal(self, st: TuitongziState, p: Mapping[str, Any]) -> None:
        s = seat_of(str(p["to"]))
        st.tiles[s] = [st.tiles[s][0], str(p["cards"][0])]
        st.revealed.append(s)
        if len(st.revealed) == len(st.players):
            st.phase = "done"

    def first_seat(self, players: Sequence[int], wheel: int) -> int:
        """The seat the wheel names, or the next player from it in the deal direction."""
        for s in around(range(1, self.faces + 1), wheel, self.direction):
            if s in players:
                return s
        raise RuleViolation("no player to deal to", reason="no_seats")

    def deal_order(self, players: Sequence[int], wheel: int) -> list[int]:
        return around(players, self.first_seat(players, wheel), self.direction)

    def next_deal(self, st: TuitongziState) -> g.DealRequest | None:
        if st.phase == "wheel":
            return g.DealRequest(dice=1, faces=(self.faces,))
        if st.phase == "dealing":
            return g.DealRequest(
                cards=tuple(g.Deal(target(s), up) for s in st.deal_order for up in (True, False))
            )
        if st.phase == "showdown":
            first = [*st.raisers(), *(s for s in st.deal_order if s not in st.raisers())]
            return g.DealRequest(reveal=tuple(target(s) for s in first if s not in st.revealed))
        return None

    def is_over(self, st: TuitongziState) -> bool:
        return st.phase == "done"

    # -- whose turn ----------------------------------------------------------------------
    def waiting(self, st: TuitongziState) -> tuple[int, ...]:
        """Players who still have to raise or fold, in deal order."""
        if st.closed or st.phase != "raise":
            return ()
        return tuple(s for s in st.deal_order if s not in st.raises)

    def auto_action(self, st: TuitongziState) -> tuple[int, str, dict[str, Any]] | None:
        """加注 2: a player who has not raised when the countdown ends folds."""
        w = self.waiting(st)
        return (w[0], FOLD, {}) if w else None

    # -- results -------------------------------------------------------------------------
    def hand_of(self, st: TuitongziState, seat_no: int) -> PairHand:
        return self.tiles.evaluate(st.tiles[seat_no])

    def _best(self, st: TuitongziState, seats: Sequence[int]) -> list[int]:
        if not seats:
            return []
        keys = {s: self.hand_of(st, s).key for s in seats}
        top = max(keys.values())
        return [s for s in seats if keys[s] == top]

    def outcome(self, st: TuitongziState) -> dict[str, Any]:
        """Hands in deal order, the raise pot (its winners: the best hand(s) among the
        raisers, who take every raise level they reached; a level above their raise
        goes to the best of those who raised more, as the settlement record's pots
        show) and the base pot (its winners: the best hand(s) of all)."""
        dealt = bool(st.deal_order)
        raisers = st.raisers()
        return {
            "players": list(st.players),
            "ante": self.ante,
            "wheel": st.wheel,
            "deal_order": list(st.deal_order),
            "hands": [
                {
                    "seat": s,
                    "player": st.seats[s].player,
                    "raise": st.raises.get(s, 0),
                    "folded": st.raises.get(s, 0) == 0,
                    "shown": st.tiles[s][0],
                    **self.hand_of(st, s).to_json_dict(),
                }
                for s in st.deal_order
            ],
            "raise_pot": {
                "raisers": sorted(raisers),
                "amount": sum(st.raises.get(s, 0) for s in raisers),
                "winners": sorted(self._best(st, raisers)),
            },
            "base_pot": {
                "amount": sum(st.antes.values()),
                "winners": sorted(self._best(st, st.players)) if dealt else list(st.players),
            },
        }

    def settle(self, st: TuitongziState) -> SettlementResult:
        if not st.players:
            return settle(
                [],
                participants=[st.seats[s].player for s in sorted(st.seats)],
                rake=self.rake,
                hand_id=st.hand_id,
                source="000_d16ad353ba467b8a.txt, 推筒子游戏规则: nobody anted",
            )
        dealt = bool(st.deal_order)
        seats = [
            PotSeat(
                st.seats[s].player,
                st.antes[s] + st.raises.get(s, 0),
                self.hand_of(st, s).key if dealt else None,
            )
            for s in st.players
        ]
        return settle_pots(seats, rake=self.rake, hand_id=st.hand_id)

    # -- bare hands and odds ---------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval HAND...: each hand's class; compare HAND...: the best hand(s) (equal
        hands share)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        parsed = [parse_hand(list(h)) for h in hands]  # NotationError is an InvalidInput
        if not parsed:
            raise InvalidInput("give at least one hand of two tiles")
        count: dict[str, int] = {}
        for t in (t for h in parsed for t in h):
            count[t] = count.get(t, 0) + 1
            if count[t] > 4:
                raise InvalidInput(f"{t} appears more than 4 times")
        evaluated = [self.tiles.evaluate(h) for h in parsed]
        out: dict[str, Any] = {"hands": [h.to_json_dict() for h in evaluated]}
        if action == "compare":
            top = max(h.key for h in evaluated)
            out["winners"] = [i for i, h in enumerate(evaluated) if h.key == top]
        return out

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Per unit ante, nobody raising, after the rake: two players (``ante``), three
        and four."""
        rate = self.rake.rate
        return {
            ANTE: tuitongzi_heads_up(self.tiles, rate).rtp,
            "ante_3_players": tuitongzi_ante_rtp(self.tiles, rate, 3),
            "ante_4_players": tuitongzi_ante_rtp(self.tiles, rate, 4),
        }

    def rtp_table(self, places: int = 6) -> str:
        o = tuitongzi_heads_up(self.tiles, self.rake.rate)
        return "\n".join(
            [
                f"{self.variant}: two tiles from 40, exact over all C(40,2) = 780 hands",
                format_distribution(category_table(self.tiles), places),
                f"two players over all {o.total} ordered pairs of disjoint hands:",
                f"  {'one wins':<22}{float(o.win):.{places}f} (each)",
                f"  {'equal (split)':<22}{float(o.split):.{places}f}",
                f"  {'ante RTP after rake':<22}{float(o.rtp):.{places}f}"
                f" (rake {plain_fraction(self.rake.rate)} of a win)",
                "ante RTP after rake, nobody raising, exact over all ordered deals:",
                *(
                    f"  {f'{n} players':<22}"
                    f"{float(tuitongzi_ante_rtp(self.tiles, self.rake.rate, n)):.{places}f}"
                    for n in (2, 3, 4)
                ),
            ]
        )
