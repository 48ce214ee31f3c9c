"""The 二八杠 engine: one engine for ``erbagang`` (000_d16ad353ba467b8a.txt, 二八杠) and
``erbagang.dice2`` (001_5f10773fec037198.txt, first section); every difference between
them is a value in ``seeds/variants/erbagang*.json``.

The hand, as events (the betting round is empty: the dealer closes it right away):

1. ``hand.opened`` with 2-4 seats; ``betting.closed``.
2. 抢庄: every seat sends ``action.taken`` ``grab`` ``{multiple}`` (0: no grab, else
   1 .. ``grab.max`` and at most what the stack covers at the room base), in any order.
   The highest grab takes the bank; a tie at the top (or nobody grabbing: everyone
   ties at 0) is broken by a dealer die with as many faces as tied seats
   (``dice.rolled``, ``faces: [k]``; the die's value ``d`` picks the ``d``-th of them in
   seat order). The banker's cover (what they can pay at most) is their grab x base;
   a banker nobody grabbed for covers the largest grab their stack allows.
3. 下注: every other seat sends ``bet`` ``{multiple}`` (the stake is multiple x base).
4. The deal order: ``deal.dice`` dealer dice; their sum ``s`` counts from the banker
   (1 = the banker, 2 = the next player in ``deal.direction``, and so on round the
   players), and two tiles go to each player in turn from there, face up
   (``card.dealt`` to ``seat:<n>``).
5. The banker compares with each player on their own (:mod:`.tiles`); an equal hand
   goes to the banker; 1:1; 通杀/通赔 recorded when a full table's banker beats or loses
   to all three.

Money: one :func:`~croupier.money.banker_game_claim` per player (base x bet multiple,
hand multiples 1), the banker's cover as the banker's carried amount in
:class:`~croupier.money.BankerCover` (pro rata when the cover is short), 5% rake on
each participant's net profit, through :func:`~croupier.money.settle`.
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
    erbagang_odds,
    format_distribution,
    full_table_sweeps,
)
from croupier.games.tongzi.tiles import PairHand, TileRules, parse_hand
from croupier.money import (
    BankerCover,
    RakePolicy,
    SettlementResult,
    banker_game_claim,
    settle,
)

GRAB = "grab"
BET = "bet"
SPOT = "player"
TONGSHA = "tongsha"  # 通杀: the banker beats all three
TONGPEI = "tongpei"  # 通赔: the banker loses to all three


@dataclass
class ErbagangState(g.HandState):
    order: list[int] = field(default_factory=list)  # seats, clockwise
    grabs: dict[int, int] = field(default_factory=dict)
    tied: list[int] = field(default_factory=list)
    grab_die: int | None = None
    banker: int | None = None
    cover: int = 0
    bets: dict[int, int] = field(default_factory=dict)  # seat -> bet multiple
    deal_dice: list[int] = field(default_factory=list)
    deal_order: list[int] = field(default_factory=list)
    tiles: dict[int, list[str]] = field(default_factory=dict)
    last_roll: int = -1

    def players(self) -> list[int]:
        """Seats other than the banker, clockwise."""
        return [s for s in self.order if s != self.banker]


@dataclass(frozen=True, slots=True)
class Waiting:
    """Who must decide now: ``action`` is ``grab`` or ``bet``."""

    action: str
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Result:
    seat: int
    multiple: int
    player_wins: bool
    equal: bool


@register_family
class ErbagangEngine(g.Engine[ErbagangState]):
    family = "erbagang"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "tongzi40", 1)
        self.tiles = TileRules.from_config(raw)
        self.base = config_int(raw, "base")
        self.min_seats = config_int(raw, "seats", "min")
        self.grab_max = config_int(raw, "grab", "max")
        self.bet_min = config_int(raw, "bets", "min_multiple")
        self.bet_max = config_int(raw, "bets", "max_multiple")
        self.dice = config_int(raw, "deal", "dice")
        self.full_table = config_int(raw, "sweep", "full_table")
        self.auto_grab = config_int(raw, "timeout", "grab")
        self.auto_bet = config_int(raw, "timeout", "bet")
        require(raw, "highest", "grab", "selection")
        require(raw, "die", "grab", "tie")
        require(raw, "banker", "ties", "equal_hand")
        require(raw, 2, "deal", "tiles_each")
        try:
            self.direction = Direction(str(raw["deal"]["direction"]))
            self.rake = RakePolicy.from_config(raw)
            self.payout = Fraction(str(raw["payout"]["value"]))
            self.source = str(raw["source"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"erbagang config: {e!r}") from e
        if self.max_seats is None or not 2 <= self.min_seats <= self.max_seats <= 4:
            raise ConfigError("erbagang: 2 <= seats.min <= seats.max <= 4")
        if not (self.base > 0 and 0 < self.bet_min <= self.bet_max and self.grab_max > 0):
            raise ConfigError("erbagang: base, bet multiples and grab.max must be positive")
        if self.dice < 1 or self.payout <= 0:
            raise ConfigError("erbagang: at least one die and a positive payout")
        if not (0 <= self.auto_grab <= self.grab_max and self.auto_bet == self.bet_min):
            raise ConfigError("erbagang: timeout grab within 0..grab.max, bet at the minimum")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> ErbagangState:
        o = g.parse_opened(payload, min_seats=self.min_seats, max_seats=self.max_seats)
        need = self.base * self.bet_min
        for s in o.seats.values():
            if s.stack < need:
                raise RuleViolation(
                    f"seat {s.seat} carries {s.stack}, less than the smallest bet {need}",
                    reason="bad_stack",
                )
        return ErbagangState.from_opened(
            self.variant,
            hand_id,
            o,
            order=sorted(o.seats),
        )

    def grab_cap(self, st: ErbagangState, seat_no: int) -> int:
        """The largest grab ``seat_no`` may make: ``grab.max``, and no more than its
        stack covers at the room base."""
        return min(self.grab_max, st.seat(seat_no).stack // self.base)

    def bet_cap(self, st: ErbagangState, seat_no: int) -> int:
        return min(self.bet_max, st.seat(seat_no).stack // self.base)

    # -- checks ----------------------------------------------------------------------
    def verify_action(self, st: ErbagangState, p: Mapping[str, Any]) -> tuple[int, str, int]:
        seat_no, name, args = parse_action(p, {"multiple"})
        st.seat(seat_no)
        if name not in (GRAB, BET):
            raise ActionRejected(
                f"unknown action {name!r}; erbagang takes 'grab' and 'bet'",
                reason="unknown_action",
            )
        m = int_arg(args, "multiple")
        if name == GRAB:
            if st.phase != "grab":
                raise ActionRejected("the bank is not being grabbed now", reason="not_grabbing")
            if seat_no in st.grabs:
                raise ActionRejected(f"seat {seat_no} already grabbed", reason="already_decided")
            cap = self.grab_cap(st, seat_no)
            if not 0 <= m <= cap:
                raise ActionRejected(
                    f"seat {seat_no} may grab 0 (no grab) to {cap}x the base {self.base} "
                    f"(at most {self.grab_max}x, and what its stack {st.seat(seat_no).stack} "
                    f"covers), not {m}",
                    reason="grab_over_cap",
                )
            return seat_no, name, m
        if st.phase != "bet":
            raise ActionRejected("bets are placed once the banker is chosen", reason="not_betting")
        if seat_no == st.banker:
            raise ActionRejected("the banker does not bet", reason="banker_does_not_bet")
        if seat_no in st.bets:
            raise ActionRejected(f"seat {seat_no} already bet", reason="already_decided")
        cap = self.bet_cap(st, seat_no)
        if not self.bet_min <= m <= cap:
            raise ActionRejected(
                f"seat {seat_no} bets {self.bet_min} to {cap} times the base {self.base} "
                f"(at most {self.bet_max}, and what its stack covers), not {m}",
                reason="bet_over_cap" if m > cap else "bad_amount",
            )
        return seat_no, name, m

    # -- events ------------------------------------------------------------------------
    def verify_bet(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        raise BetRejected(
            "erbagang takes no bet.placed: the players bet with action 'bet' once the "
            "banker is chosen",
            reason="unknown_spot",
        )

    def verify_dice(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        check_dice(self.next_deal(st), p, st.last_roll)

    def verify_cards(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        check_tiles(self.next_deal(st), p, [t for ts in st.tiles.values() for t in ts])

    def apply_betting_closed(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        st.phase = "grab"

    def apply_action(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        seat_no, name, args = parse_action(p, {"multiple"})
        if name == GRAB:
            st.grabs[seat_no] = int(args["multiple"])
            if len(st.grabs) == len(st.order):
                top = max(st.grabs.values())
                st.tied = [s for s in st.order if st.grabs[s] == top]
                if len(st.tied) == 1:
                    self._make_banker(st, st.tied[0])
                else:
                    st.phase = "grab_die"
        else:
            st.bets[seat_no] = int(args["multiple"])
            if len(st.bets) == len(st.order) - 1:
                st.phase = "deal_dice"

    def apply_dice(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        dice = [int(d) for d in p["dice"]]
        st.last_roll = int(p["roll"])
        if st.phase == "grab_die":
            st.grab_die = dice[0]
            self._make_banker(st, st.tied[dice[0] - 1])
        else:
            st.deal_dice = dice
            st.deal_order = self.deal_order(st.order, st.banker or 0, sum(dice))
            st.phase = "dealing"

    def apply_cards(self, st: ErbagangState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.tiles.setdefault(seat_of(str(c["to"])), []).append(str(c["card"]))
            st.positions.append(int(c["pos"]))
        st.phase = "done"

    def _make_banker(self, st: ErbagangState, seat_no: int) -> None:
        st.banker = seat_no
        grab = st.grabs[seat_no] or self.grab_cap(st, seat_no)
        st.cover = grab * self.base
        st.phase = "bet"

    def deal_order(self, seats: Sequence[int], banker: int, total: int) -> list[int]:
        """The order tiles are dealt in: the dice total counts round the players from
        the banker (1 = the banker) in the variant's direction; the deal goes on in that
        direction."""
        ring = around(seats, banker, self.direction)
        return around(seats, ring[(total - 1) % len(ring)], self.direction)

    def next_deal(self, st: ErbagangState) -> g.DealRequest | None:
        if st.phase == "grab_die":
            return g.DealRequest(dice=1, faces=(len(st.tied),))
        if st.phase == "deal_dice":
            return g.DealRequest(dice=self.dice, faces=(6,) * self.dice)
        if st.phase == "dealing":
            return g.DealRequest(
                cards=tuple(g.Deal(target(s), True) for s in st.deal_order for _ in range(2))
            )
        return None

    def is_over(self, st: ErbagangState) -> bool:
        return st.phase == "done"

    # -- whose turn ----------------------------------------------------------------------
    def waiting(self, st: ErbagangState) -> Waiting | None:
        """Seats that still have to grab or bet (any order), or None."""
        if st.closed:
            return None
        if st.phase == "grab":
            return Waiting(GRAB, tuple(s for s in st.order if s not in st.grabs))
        if st.phase == "bet":
            return Waiting(BET, tuple(s for s in st.players() if s not in st.bets))
        return None

    def auto_action(self, st: ErbagangState) -> tuple[int, str, dict[str, Any]] | None:
        """Timeout: no grab, then the smallest bet (defaults; the seed names none)."""
        w = self.waiting(st)
        if w is None or not w.seats:
            return None
        value = self.auto_grab if w.action == GRAB else self.auto_bet
        if w.action == GRAB:
            value = min(value, self.grab_cap(st, w.seats[0]))
        return w.seats[0], w.action, {"multiple": value}

    # -- results -------------------------------------------------------------------------
    def hand_of(self, st: ErbagangState, seat_no: int) -> PairHand:
        return self.tiles.evaluate(st.tiles[seat_no])

    def results(self, st: ErbagangState) -> list[Result]:
        assert st.banker is not None
        banker = self.hand_of(st, st.banker)
        out = []
        for s in st.players():
            c = self.tiles.compare(st.tiles[s], banker.tiles)
            out.append(Result(s, st.bets[s], c > 0, c == 0))
        return out

    def sweep(self, st: ErbagangState, results: Sequence[Result]) -> str | None:
        """通杀/通赔: only at a full table (000 二八杠 通杀通赔)."""
        if len(st.order) < self.full_table:
            return None
        if all(not r.player_wins for r in results):
            return TONGSHA
        if all(r.player_wins for r in results):
            return TONGPEI
        return None

    def outcome(self, st: ErbagangState) -> dict[str, Any]:
        assert st.banker is not None
        results = self.results(st)
        return {
            "grabs": [{"seat": s, "multiple": st.grabs[s]} for s in st.order],
            "grab_die": st.grab_die,
            "banker": st.banker,
            "cover": st.cover,
            "deal_dice": list(st.deal_dice),
            "deal_order": list(st.deal_order),
            "hands": [
                {"seat": s, "player": st.seats[s].player, **self.hand_of(st, s).to_json_dict()}
                for s in st.order
            ],
            "results": [
                {
                    "seat": r.seat,
                    "bet_multiple": r.multiple,
                    "stake": r.multiple * self.base,
                    "winner": "player" if r.player_wins else "banker",
                    "equal": r.equal,
                }
                for r in results
            ],
            "sweep": self.sweep(st, results),
        }

    def settle(self, st: ErbagangState) -> SettlementResult:
        assert st.banker is not None
        banker = st.seats[st.banker].player
        claims = [
            banker_game_claim(
                banker=banker,
                player=st.seats[r.seat].player,
                base=self.base,
                banker_wins=not r.player_wins,
                banker_multiple=self.payout,
                player_multiple=self.payout,
                bet_multiple=r.multiple,
                spot=SPOT,
            )
            for r in self.results(st)
        ]
        carried = {st.seats[s].player: st.seats[s].stack for s in st.players()}
        carried[banker] = st.cover
        return settle(
            claims,
            participants=[st.seats[s].player for s in st.order],
            liability=[
                BankerCover(
                    banker,
                    carried,
                    source=(
                        "000_d16ad353ba467b8a.txt, 二八杠 抢庄: the grab multiple is the most "
                        "the banker can pay this hand (cover = grab x base), winners paid pro "
                        "rata when it is short, and the banker wins at most the cover (see "
                        "the variant config, grab.cover_source)"
                    ),
                )
            ],
            rake=self.rake,
            hand_id=st.hand_id,
            source=self.source,
            # each player's stake is base x their bet multiple; the banker stakes none
            staked={st.seats[r.seat].player: self.base * r.multiple for r in self.results(st)},
        )

    # -- bare hands and odds ---------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval HAND...: each hand's class; compare BANKER PLAYER...: each player's hand
        against the banker's (an equal hand goes to the banker)."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        parsed = [parse_hand(list(h)) for h in hands]  # NotationError is an InvalidInput
        if not parsed:
            raise InvalidInput("give at least one hand of two tiles")
        _check_counts(parsed)
        evaluated = [self.tiles.evaluate(h) for h in parsed]
        if action == "eval":
            return {"hands": [h.to_json_dict() for h in evaluated]}
        if len(parsed) < 2:
            raise InvalidInput("compare takes the banker's hand and at least one player's")
        banker = evaluated[0]
        rows = []
        for h in evaluated[1:]:
            c = self.tiles.compare(h.tiles, banker.tiles)
            rows.append(
                {**h.to_json_dict(), "winner": "player" if c > 0 else "banker", "equal": c == 0}
            )
        return {"banker": banker.to_json_dict(), "players": rows}

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Per unit bet by a player against the banker (before any pro rata): after the
        rake on the player's win, and before it."""
        o = erbagang_odds(self.tiles, self.payout, self.rake.rate)
        return {SPOT: o.rtp, "player_before_rake": o.rtp_before_rake}

    def rtp_table(self, places: int = 6) -> str:
        o = erbagang_odds(self.tiles, self.payout, self.rake.rate)
        lines = [
            f"{self.variant}: two tiles from 40, exact over all C(40,2) = 780 hands",
            format_distribution(category_table(self.tiles), places),
            f"player vs banker over all {o.total} ordered pairs of disjoint hands:",
            f"  {'player wins':<22}{float(o.win):.{places}f}",
            f"  {'equal (banker wins)':<22}{float(o.equal):.{places}f}",
            f"  {'banker wins':<22}{float(o.lose):.{places}f}",
            f"  {'RTP before rake':<22}{float(o.rtp_before_rake):.{places}f}",
            f"  {'RTP after rake':<22}{float(o.rtp):.{places}f}"
            f" (rake {plain_fraction(self.rake.rate)} of a win)",
        ]
        if self.full_table == 4:
            sw = full_table_sweeps(self.tiles)
            lines += [
                f"a full table, over all {sw.total} ordered deals of four hands:",
                f"  {'通杀 (banker wins all)':<22}{float(sw.tongsha):.{places}f}",
                f"  {'通赔 (banker loses all)':<22}{float(sw.tongpei):.{places}f}",
            ]
        return "\n".join(lines)


def _check_counts(hands: Sequence[Sequence[str]]) -> None:
    count: dict[str, int] = {}
    for h in hands:
        for t in h:
            count[t] = count.get(t, 0) + 1
            if count[t] > 4:
                raise InvalidInput(f"{t} appears more than 4 times")
