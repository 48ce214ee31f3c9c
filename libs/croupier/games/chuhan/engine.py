"""The 楚汉德州 engine: one engine for ``chuhan`` (楚汉德州, one betting round) and
``chuhan.insured`` (保险楚汉德州, three rounds with odds recomputed each round), both in
``000_d16ad353ba467b8a.txt``. Every difference is a config value (``rounds``, odds,
limits, the tie refund's rounds).

The hand, as events (targets the dealer deals to: ``han``, ``chu``, ``board`` for
楚汉德州; ``han``, ``chu``, ``flop``, ``turn``, ``river`` for the insured variant):

楚汉德州 (``rounds`` = 1)
    1. ``bet.placed`` ``{seat, spot, amount}`` on ``chu``, ``han``, ``tie`` or a hand
       type ``type.<category>``, at the config's fixed odds.
    2. ``betting.closed``; the dealer deals Han's 2 and Chu's 2 cards face down, then the
       5 board cards face up (开局按汉到楚，每个发2张底牌，然后再从左到右依次发5张公共牌).
    3. The seat with the largest stake on Chu or on Han (ties: the first to reach it)
       holds the right to reveal (开牌权) and sends ``action.taken`` ``reveal``; with no
       Chu/Han stake at all the cards are turned at once (如楚汉双方下注金额都为0...).
       The dealer turns Han's and Chu's cards up (``cards.revealed``); the hand is over.

保险楚汉德州 (``rounds`` = 3)
    1. Round 1: ``bet.placed`` on any spot, at the config's round-1 odds (nothing is
       shown yet: the prior of :mod:`.probability`).
    2. ``betting.closed``; the dealer deals Han 2, Chu 2 and the flop (3) face down and
       turns them all up (下注倒计时结束后。系统自动翻开桌上所有牌).
    3. Rounds 2 and 3: the dealer deals the next board card face down (``turn``, then
       ``river``); the Chu/Han/tie odds are computed from the exact probabilities given
       the cards shown (every runout enumerated). If either side's odds are at most
       ``skip_at_or_below`` (1.01) the betting is skipped and the card is turned at once.
       Otherwise every seat sends one ``action.taken``: ``bet`` ``{stakes: {spot:
       amount}}`` (Chu, Han, tie only) or ``pass``; then the seat with the largest
       cumulative stake on the side with the higher odds (ties: the first to reach it)
       squeezes (咪牌) the card with ``reveal``, and the dealer turns it up.
    4. After the river is up the hand is over.

A timed-out seat (``auto_action``) passes, and a timed-out reveal right is exercised
for its holder. When both sides have the same odds the right goes to the largest
stake on either side.

Stakes: per seat, spot and round within the spot's limits (渠道设置的下注金额的上、
下限), no bet returning more than ``max_return`` at the odds it is taken at, and all of
a seat's stakes within its stack. Each bet keeps the odds of its round. Money: every
bet against the house (``settle_against_house``): a win pays odds - 1, a tie gives half
of a round-1 Chu/Han stake back (开平局时...), anything else loses the stake; no rake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.cards import CARDS52
from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.chuhan.probability import runout_odds
from croupier.games.chuhan.rules import (
    HAND_TYPES,
    Limits,
    OddsRule,
    Side,
    Spot,
    decimal_odds,
    fraction_of,
    odds_table,
    side_odds,
    spot_of_type,
    text,
)
from croupier.games.common import (
    NOT_FRESH_52,
    DealtWording,
    check_dealt,
    stake_amount,
    unseen_card,
)
from croupier.games.poker.hands import Category, best_five, best_of, category, describe
from croupier.games.registry import register_family
from croupier.money import SettlementResult, Wager, settle_against_house

HAN, CHU, BOARD, FLOP, TURN, RIVER = "han", "chu", "board", "flop", "turn", "river"
SPOTS = {s.value: s for s in Spot}
_VALID = frozenset(CARDS52)
_DEALT = DealtWording(
    none_due="no cards are to be dealt now",
    count="expected {n} cards in this deal",
    target="next card goes to {to} ({face}), not {got_to!r}",
)


@dataclass(frozen=True, slots=True)
class Bet:
    seat: int
    spot: Spot
    amount: int
    round: int
    odds: Fraction
    order: int  # arrival order within the hand


@dataclass
class ChuhanState(g.HandState):
    bets: list[Bet] = field(default_factory=list)
    staked: dict[int, int] = field(default_factory=dict)  # seat -> all stakes
    cards: dict[str, list[str]] = field(default_factory=dict)  # target -> cards as dealt
    shown: set[str] = field(default_factory=set)  # targets whose cards are face up
    round: int = 1
    odds: dict[Spot, Fraction] = field(default_factory=dict)  # open spots of this round
    round_odds: dict[int, dict[str, str | None]] = field(default_factory=dict)  # record
    skipped: list[int] = field(default_factory=list)
    acted: set[int] = field(default_factory=set)  # seats done in this action round
    revealer: int | None = None  # seat holding the reveal right now
    reveal_done: bool = False  # the reveal action (or its absence) is settled


@dataclass(frozen=True, slots=True)
class Turn:
    """Who must act now: ``seats`` that still owe an action and the actions open."""

    seats: tuple[int, ...]
    actions: tuple[str, ...]


def _card_list(v: object) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
        raise RuleViolation("cards must be a list of card strings", reason="malformed")
    return list(v)


@register_family
class ChuhanEngine(g.Engine[ChuhanState]):
    family = "chuhan"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "cards52", 1)
        try:
            self.rounds = int(config.value("rounds"))
            self.rule = OddsRule(
                margin=fraction_of(config.value("margin"), "margin"),
                places=int(config.value("odds_places")),
                max_odds=fraction_of(config.value("max_odds"), "max_odds"),
                skip_at_or_below=fraction_of(config.value("skip_at_or_below"), "skip"),
            )
            self.tie_refund = fraction_of(config.value("tie_refund", "fraction"), "tie_refund")
            self.refund_rounds = frozenset(int(r) for r in config.value("tie_refund", "rounds"))
            self.first_odds = odds_table(raw["odds"], "odds")
            self.limits = {
                Spot(k): Limits(int(v["min"]), int(v["max"]))
                for k, v in raw["limits"].items()
                if k != "source"
            }
            self.stake_step = int(config.value("stake_step"))
            self.max_return = int(config.value("max_return"))
            prior = raw["prior"]
            self.prior = {
                "chu": fraction_of(prior["chu"], "prior.chu"),
                "han": fraction_of(prior["han"], "prior.han"),
                "tie": fraction_of(prior["tie"], "prior.tie"),
            }
            self.prior_types = {
                Category[k.upper()]: fraction_of(v, f"prior.winner_category.{k}")
                for k, v in prior["winner_category"].items()
            }
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"chuhan config: {e!r}") from e
        if self.rounds not in (1, 3):
            raise ConfigError("chuhan: rounds is 1 (楚汉德州) or 3 (保险楚汉德州)")
        if set(self.first_odds) != set(Spot) or set(self.limits) != set(Spot):
            raise ConfigError("chuhan: odds and limits are needed for every spot")
        if set(self.prior_types) != set(Category):
            raise ConfigError("chuhan: prior.winner_category needs every category")
        for spot, lim in self.limits.items():
            if not 0 < self.stake_step <= lim.min <= lim.max or lim.min % self.stake_step:
                raise ConfigError(f"chuhan: bad limits for {spot.value}")
            if lim.max * self.first_odds[spot] > self.max_return:
                raise ConfigError(f"chuhan: {spot.value} at its maximum returns over max_return")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> ChuhanState:
        o = g.parse_opened(payload, max_seats=self.max_seats)
        st = ChuhanState.from_opened(
            self.variant,
            hand_id,
            o,
        )
        st.odds = dict(self.first_odds)
        st.round_odds[1] = {s.value: text(o_) for s, o_ in self.first_odds.items()}
        return st

    # -- targets ---------------------------------------------------------------------
    @property
    def board_targets(self) -> tuple[str, ...]:
        return (BOARD,) if self.rounds == 1 else (FLOP, TURN, RIVER)

    def board(self, st: ChuhanState) -> list[str]:
        return [c for t in self.board_targets for c in st.cards.get(t, [])]

    def shown_board(self, st: ChuhanState) -> list[str]:
        return [c for t in self.board_targets if t in st.shown for c in st.cards.get(t, [])]

    # -- bets ------------------------------------------------------------------------
    def _check_stake(
        self, st: ChuhanState, seat_no: int, spot_name: object, amount: object, extra: int
    ) -> tuple[Spot, int]:
        """Check one stake of this round; ``extra`` is what the seat already adds in the
        same request (several spots of one ``bet`` action)."""
        spot = SPOTS.get(spot_name) if isinstance(spot_name, str) else None
        if spot is None:
            raise BetRejected(
                f"unknown spot {spot_name!r}; one of {sorted(SPOTS)}", reason="unknown_spot"
            )
        amount = stake_amount(amount, self.stake_step)
        if spot.is_type and st.round != 1:
            raise BetRejected("hand-type bets are taken in round 1 only", reason="spot_closed")
        if spot not in st.odds:
            raise BetRejected(
                f"{spot.value} cannot win any more; the spot is closed", reason="spot_closed"
            )
        lim = self.limits[spot]
        on_spot = amount + sum(
            b.amount
            for b in st.bets
            if b.seat == seat_no and b.spot is spot and b.round == st.round
        )
        if on_spot < lim.min:
            raise BetRejected(f"{spot.value} minimum is {lim.min}", reason="under_minimum")
        if on_spot > lim.max:
            raise BetRejected(
                f"{spot.value} maximum is {lim.max} per seat and round", reason="over_limit"
            )
        if on_spot * st.odds[spot] > self.max_return:
            raise BetRejected(
                f"at odds {text(st.odds[spot])} a {spot.value} stake of {on_spot} would return "
                f"more than {self.max_return}",
                reason="over_limit",
            )
        seat = st.seat(seat_no)
        if st.staked.get(seat_no, 0) + extra + amount > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack} and cannot stake more",
                reason="insufficient_stack",
            )
        return spot, amount

    def verify_bet(self, st: ChuhanState, p: Mapping[str, Any]) -> tuple[int, Spot, int]:
        if st.phase != "betting":
            raise BetRejected(
                "bet.placed is for round 1; later rounds bet with the 'bet' action",
                reason="betting_closed",
            )
        try:
            seat_no, spot_name, amount = int(p["seat"]), p["spot"], p["amount"]
        except (KeyError, TypeError, ValueError) as e:
            raise BetRejected(f"malformed bet: {e}", reason="malformed") from e
        st.seat(seat_no)
        spot, amount = self._check_stake(st, seat_no, spot_name, amount, 0)
        return seat_no, spot, amount

    def _add_bet(self, st: ChuhanState, seat_no: int, spot: Spot, amount: int) -> None:
        st.bets.append(Bet(seat_no, spot, amount, st.round, st.odds[spot], len(st.bets)))
        st.staked[seat_no] = st.staked.get(seat_no, 0) + amount

    # -- actions ---------------------------------------------------------------------
    def to_act(self, st: ChuhanState) -> Turn | None:
        """Who owes an action now (None: the dealer deals, or the hand is over)."""
        if st.closed:
            return None
        if st.phase == "bet":
            waiting = tuple(s for s in sorted(st.seats) if s not in st.acted)
            return Turn(waiting, ("bet", "pass")) if waiting else None
        if st.phase == "reveal" and st.revealer is not None and not st.reveal_done:
            return Turn((st.revealer,), ("reveal",))
        return None

    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
        try:
            seat_no, name, args = int(p["seat"]), str(p["action"]), p.get("args", {})
        except (KeyError, TypeError, ValueError) as e:
            raise ActionRejected(f"malformed action: {e}", reason="malformed") from e
        if not isinstance(args, Mapping):
            raise ActionRejected("args must be an object", reason="malformed")
        return seat_no, name, args

    def verify_action(self, st: ChuhanState, p: Mapping[str, Any]) -> list[tuple[Spot, int]]:
        seat_no, name, args = self._parse_action(p)
        st.seat(seat_no)
        if name not in ("bet", "pass", "reveal"):
            raise ActionRejected(
                f"unknown action {name!r}; one of bet, pass, reveal", reason="unknown_action"
            )
        extra = set(args) - {"stakes", "auto"}
        if extra:
            raise ActionRejected(f"unexpected args {sorted(extra)}", reason="malformed")
        turn = self.to_act(st)
        if name == "reveal":
            if "stakes" in args:
                raise ActionRejected("reveal takes no stakes", reason="malformed")
            if st.phase != "reveal" or turn is None:
                raise ActionRejected("nothing is waiting to be revealed", reason="not_now")
            if seat_no not in turn.seats:
                raise ActionRejected(
                    f"seat {turn.seats[0]} holds the right to reveal, not seat {seat_no}",
                    reason="no_reveal_right",
                )
            return []
        if st.phase != "bet":
            raise ActionRejected(
                "no betting round is open for actions"
                + (" (round 1 bets are bet.placed)" if st.phase == "betting" else ""),
                reason="not_now",
            )
        if seat_no in st.acted:
            raise ActionRejected(
                f"seat {seat_no} has already acted in round {st.round}", reason="already_acted"
            )
        if name == "pass":
            if "stakes" in args:
                raise ActionRejected("pass takes no stakes", reason="malformed")
            return []
        stakes = args.get("stakes")
        if not isinstance(stakes, Mapping) or not stakes:
            raise ActionRejected("bet needs stakes: {spot: amount, ...}", reason="malformed")
        out: list[tuple[Spot, int]] = []
        added = 0
        for spot_name, amount in stakes.items():
            try:
                spot, amount_ = self._check_stake(st, seat_no, spot_name, amount, added)
            except BetRejected as e:
                raise ActionRejected(e.message, reason=e.reason) from e
            added += amount_
            out.append((spot, amount_))
        return out

    def auto_action(self, st: ChuhanState) -> tuple[int, str, dict[str, Any]] | None:
        turn = self.to_act(st)
        if turn is None:
            return None
        if turn.actions == ("reveal",):
            return turn.seats[0], "reveal", {}
        return turn.seats[0], "pass", {}

    # -- deals -------------------------------------------------------------------------
    def verify_cards(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        fresh = unseen_card(_VALID, {c for cs in st.cards.values() for c in cs}, NOT_FRESH_52)
        check_dealt(self.next_deal(st), p, fresh, wording=_DEALT)

    def verify_reveal(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        to = p.get("to")
        if to not in self._pending_reveal(st):
            raise RuleViolation(f"{to!r} is not to be turned up now", reason="illegal_reveal")
        assert isinstance(to, str)
        if _card_list(p.get("cards")) != st.cards.get(to, []):
            raise RuleViolation(
                f"cards.revealed must show {to}'s cards as dealt", reason="bad_reveal"
            )

    def _pending_reveal(self, st: ChuhanState) -> tuple[str, ...]:
        if st.phase != "show":
            return ()
        if self.rounds == 1:
            want: tuple[str, ...] = (HAN, CHU)
        else:
            want = {1: (HAN, CHU, FLOP), 2: (TURN,), 3: (RIVER,)}[st.round]
        return tuple(t for t in want if t not in st.shown)

    def next_deal(self, st: ChuhanState) -> g.DealRequest | None:
        if st.phase == "dealing":
            holes = [g.Deal(HAN, False)] * 2 + [g.Deal(CHU, False)] * 2
            n, target, up = (5, BOARD, True) if self.rounds == 1 else (3, FLOP, False)
            board = [g.Deal(target, up)] * n
            return g.DealRequest(cards=(*holes, *board))
        if st.phase == "next_card":
            target = TURN if st.round == 2 else RIVER
            return g.DealRequest(cards=(g.Deal(target, False),))
        if st.phase == "show":
            pending = self._pending_reveal(st)
            return g.DealRequest(reveal=pending) if pending else None
        return None

    def is_over(self, st: ChuhanState) -> bool:
        return st.phase == "done"

    # -- events ------------------------------------------------------------------------
    def apply_bet(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        self._add_bet(st, int(p["seat"]), SPOTS[str(p["spot"])], int(p["amount"]))

    def apply_betting_closed(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing"

    def apply_cards(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.cards.setdefault(str(c["to"]), []).append(str(c["card"]))
            st.positions.append(int(c["pos"]))
            if c["up"]:
                st.shown.add(str(c["to"]))
        if st.phase == "dealing":
            st.phase = "reveal" if self.rounds == 1 else "show"
            if self.rounds == 1:
                self._grant_reveal(st, None)
        else:
            self._open_round(st)

    def apply_reveal(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        to = str(p["to"])
        st.cards[to] = [str(c) for c in p["cards"]]
        st.shown.add(to)
        if not self._pending_reveal(st):
            self._after_show(st)

    def apply_action(self, st: ChuhanState, p: Mapping[str, Any]) -> None:
        stakes = self.verify_action(st, p)
        seat_no, name, _ = self._parse_action(p)
        if name == "reveal":
            st.reveal_done = True
            st.phase = "show"
            return
        for spot, amount in stakes:
            self._add_bet(st, seat_no, spot, amount)
        st.acted.add(seat_no)
        if all(s in st.acted for s in st.seats):
            side = self._underdog(st)
            self._grant_reveal(st, side)

    def _grant_reveal(self, st: ChuhanState, side: Side | None) -> None:
        """Give the reveal right (开牌权 / 咪牌) and move to ``reveal`` - or straight to
        ``show`` when nobody staked on the side(s) concerned."""
        sides = (Spot.CHU, Spot.HAN) if side is None else (Spot(side.value),)
        st.revealer = reveal_right(st.bets, sides)
        st.reveal_done = st.revealer is None
        st.phase = "show" if st.revealer is None else "reveal"

    def _underdog(self, st: ChuhanState) -> Side | None:
        """The side with the higher odds this round (赔率高的一方); None when equal."""
        chu, han = st.odds.get(Spot.CHU), st.odds.get(Spot.HAN)
        if chu is None and han is None:
            return None
        if han is None or (chu is not None and chu > han):
            return Side.CHU
        if chu is None or han > chu:
            return Side.HAN
        return None

    def _after_show(self, st: ChuhanState) -> None:
        if self.rounds == 1 or st.round == 3:
            st.phase = "done"
            return
        st.round += 1
        st.phase = "next_card"

    def _open_round(self, st: ChuhanState) -> None:
        """The round's card is down: compute the odds and open betting, or skip it."""
        odds = self.round_odds(
            st.cards[CHU],
            st.cards[HAN],
            self.shown_board(st),
            refund=st.round in self.refund_rounds,
        )
        st.odds = {s: o for s, o in odds.items() if o is not None}
        st.round_odds[st.round] = {
            s.value: (None if o is None else text(o)) for s, o in odds.items()
        }
        st.acted = set()
        st.revealer = None
        st.reveal_done = False
        if self.skip(odds):
            st.skipped.append(st.round)
            st.phase = "show"
        else:
            st.phase = "bet"

    def round_odds(
        self, chu: Sequence[str], han: Sequence[str], board: Sequence[str], *, refund: bool
    ) -> dict[Spot, Fraction | None]:
        """Chu/Han/tie decimal odds given the cards shown (rounds 2 and 3). A tie that
        would be quoted at most ``skip_at_or_below`` (1.01) is not offered (None): the
        seed bets on no odds that low (保险楚汉德州规则 注意 i), and below 1 a winning
        tie bet would return less than its stake. A side that low skips the round
        instead (:meth:`skip`)."""
        r = runout_odds(chu, han, board)
        back = self.tie_refund if refund else Fraction(0)
        tie = decimal_odds(r.tie, self.rule)
        return {
            Spot.CHU: side_odds(r.chu, r.tie, self.rule, back),
            Spot.HAN: side_odds(r.han, r.tie, self.rule, back),
            Spot.TIE: None if tie is None or tie <= self.rule.skip_at_or_below else tie,
        }

    def skip(self, odds: Mapping[Spot, Fraction | None]) -> bool:
        """保险楚汉德州 注意 i: betting is skipped when either side's odds are at most
        ``skip_at_or_below`` (1.01); also when neither side can win any more (a tie is
        certain: there is nothing to bet on)."""
        limit = self.rule.skip_at_or_below
        chu, han = odds.get(Spot.CHU), odds.get(Spot.HAN)
        return any(o is not None and o <= limit for o in (chu, han)) or (
            chu is None and han is None
        )

    # -- results -----------------------------------------------------------------------
    def strengths(self, st: ChuhanState) -> tuple[int, int]:
        board = self.board(st)
        return best_of([*st.cards[CHU], *board]), best_of([*st.cards[HAN], *board])

    def result(self, bet: Bet, chu: int, han: int) -> Fraction:
        """Profit multiple of one bet: odds - 1 on a win; on a tie a Chu/Han bet gets
        ``tie_refund`` back in the refund rounds (a result of -1/2), else it loses."""
        tie = chu == han
        if bet.spot in (Spot.CHU, Spot.HAN):
            if tie:
                return self.tie_refund - 1 if bet.round in self.refund_rounds else Fraction(-1)
            won = (chu > han) == (bet.spot is Spot.CHU)
            return bet.odds - 1 if won else Fraction(-1)
        if bet.spot is Spot.TIE:
            return bet.odds - 1 if tie else Fraction(-1)
        return bet.odds - 1 if spot_of_type(category(max(chu, han))) is bet.spot else Fraction(-1)

    def outcome(self, st: ChuhanState) -> dict[str, Any]:
        chu, han = self.strengths(st)
        board = self.board(st)
        winner = "chu" if chu > han else "han" if han > chu else "tie"
        bets = [
            {
                "seat": b.seat,
                "spot": b.spot.value,
                "round": b.round,
                "amount": b.amount,
                "odds": text(b.odds),
                "result": text(self.result(b, chu, han)),
            }
            for b in st.bets
        ]
        return {
            "chu": {
                "cards": st.cards[CHU],
                "hand": describe(chu),
                "best": list(best_five([*st.cards[CHU], *board])[1]),
            },
            "han": {
                "cards": st.cards[HAN],
                "hand": describe(han),
                "best": list(best_five([*st.cards[HAN], *board])[1]),
            },
            "board": board,
            "winner": winner,
            "winning_type": spot_of_type(category(max(chu, han))).value,
            "odds_by_round": {str(k): v for k, v in sorted(st.round_odds.items())},
            "skipped_rounds": list(st.skipped),
            "bets": bets,
        }

    def wagers(self, st: ChuhanState) -> list[Wager]:
        chu, han = self.strengths(st)
        return [
            Wager(
                st.seats[b.seat].player,
                b.spot.value if b.round == 1 else f"{b.spot.value}.r{b.round}",
                b.amount,
                self.result(b, chu, han),
            )
            for b in st.bets
        ]

    def settle(self, st: ChuhanState) -> SettlementResult:
        return settle_against_house(
            self.wagers(st),
            rake_rate=fraction_of(self.config.value("rake", "rate"), "rake.rate"),
            rake_source=str(self.config.value("rake", "source")),
            hand_id=st.hand_id,
        )

    # -- bare hands and odds -----------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval CHU HAN [BOARD]``: each side's best hand when the board is complete,
        the exact Chu/Han/tie probabilities over every runout, and the odds this
        variant would offer on them (round-1 refund rule when no board card is shown).
        ``compare A B``: two hands of 5-7 cards by the hold'em ranking."""
        if action == "compare":
            if len(hands) != 2:
                raise InvalidInput("compare takes two hands of 5 to 7 cards")
            a, b = (best_of(list(h)) for h in hands)
            return {
                "a": {"cards": list(hands[0]), "hand": describe(a)},
                "b": {"cards": list(hands[1]), "hand": describe(b)},
                "winner": "a" if a > b else "b" if b > a else "tie",
            }
        if action != "eval":
            raise InvalidInput(f"unknown rules action {action!r}")
        if len(hands) not in (2, 3):
            raise InvalidInput("eval takes CHU HAN [BOARD]: 2 + 2 cards and 0-5 board cards")
        chu, han = list(hands[0]), list(hands[1])
        board = list(hands[2]) if len(hands) == 3 else []
        r = runout_odds(chu, han, board)
        odds = self.round_odds(chu, han, board, refund=not board)
        out: dict[str, Any] = {
            "chu": {"cards": chu},
            "han": {"cards": han},
            "board": board,
            "runouts": r.runouts,
            "probability": {"chu": str(r.chu), "han": str(r.han), "tie": str(r.tie)},
            "odds": {s.value: (None if o is None else text(o)) for s, o in odds.items()},
            "betting_skipped": self.skip(odds),
        }
        if len(board) == 5:
            a, b = best_of([*chu, *board]), best_of([*han, *board])
            out["chu"]["hand"] = describe(a)
            out["han"]["hand"] = describe(b)
            out["winner"] = "chu" if a > b else "han" if b > a else "tie"
            out["winning_type"] = spot_of_type(category(max(a, b))).value
        return out

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Round-1 (楚汉德州: the only round) RTP per unit staked on each spot, from the
        exact prior: Chu/Han count the tie refund. Later rounds of the insured variant
        price each position exactly at the margin, so each returns at most 1 - margin."""
        p = self.prior
        refund = self.tie_refund if 1 in self.refund_rounds else Fraction(0)
        out = {
            "chu": p["chu"] * self.first_odds[Spot.CHU] + p["tie"] * refund,
            "han": p["han"] * self.first_odds[Spot.HAN] + p["tie"] * refund,
            "tie": p["tie"] * self.first_odds[Spot.TIE],
        }
        for spot in HAND_TYPES:
            out[spot.value] = self.prior_types[spot.category] * self.first_odds[spot]
        return out

    def rtp_table(self, places: int = 6) -> str:
        lines = [f"{self.variant}: round-1 odds from the exact prior, margin {self.rule.margin}"]
        for k, v in self.theoretical_rtp().items():
            lines.append(
                f"  {k:<22}odds {text(self.first_odds[Spot(k)]):>8}  rtp {float(v):.{places}f}"
            )
        return "\n".join(lines)


def reveal_right(bets: Sequence[Bet], sides: Sequence[Spot]) -> int | None:
    """The seat with the largest cumulative stake on any of ``sides`` (Chu, Han); among
    equal stakes the one that reached it first (如金额相同，按优先获得开牌权的进行开牌).
    None when nobody staked there."""
    totals: dict[tuple[int, Spot], int] = {}
    reached: dict[tuple[int, Spot], int] = {}
    for b in bets:
        if b.spot in sides:
            key = (b.seat, b.spot)
            totals[key] = totals.get(key, 0) + b.amount
            reached[key] = b.order
    if not totals:
        return None
    best = max(totals, key=lambda k: (totals[k], -reached[k]))
    return best[0]
