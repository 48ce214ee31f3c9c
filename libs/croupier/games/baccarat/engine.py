"""The baccarat engine: bets, the deal, the outcome and the settlement of one coup.

Source: ``000_d16ad353ba467b8a.txt``, 百家乐玩法规则介绍 (all five parts). Numbers the
seed leaves out (spot limits, table limit, cut card) come from ``seeds/variants/
baccarat.json`` with their ``source`` notes. Drawing and paying live in :mod:`.rules`.

Targets the dealer deals to: ``player`` and ``banker``, one card at a time, face up, in
the order :func:`.rules.next_recipient` gives. Spots: :class:`.rules.Spot` values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.accel import native as _native
from croupier.cards import parse_card
from croupier.errors import (
    BetRejected,
    ConfigError,
    InvalidInput,
    NotationError,
    RuleViolation,
)
from croupier.games import base as g
from croupier.games.baccarat.probability import BaccaratOdds, baccarat_odds, format_odds_table
from croupier.games.baccarat.rules import (
    CARD_POINTS,
    Coup,
    Side,
    Spot,
    banker_draws,
    card_points,
    evaluate,
    is_natural,
    next_by_points,
    next_recipient,
    paytable_from_config,
    player_draws,
    spot_result,
    total,
)
from croupier.games.common import bet_fields, plain_fraction, stake_amount
from croupier.games.registry import register_family
from croupier.money import SettlementResult, settle_spots_against_house

SPOTS = {s.value: s for s in Spot}
NAMES = {s: s.value for s in Spot}  # an enum's .value is a property call
SPOT_NAMES = tuple(NAMES.items())  # every spot and its name, in the order of Spot
BIG_SMALL = (Spot.BIG, Spot.SMALL)
_PLAYER, _BANKER = Side.PLAYER.value, Side.BANKER.value
_JOKERS = ("BJ", "RJ")
_NO_RAKE = Fraction(0)  # the seed takes no service fee on baccarat


@dataclass
class BaccaratState(g.HandState):
    bets: list[tuple[int, Spot, int]] = field(default_factory=list)
    staked_by_seat: dict[int, int] = field(default_factory=dict)
    staked_by_seat_spot: dict[tuple[int, Spot], int] = field(default_factory=dict)
    total_staked: int = 0
    player: list[str] = field(default_factory=list)
    banker: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SpotLimit:
    min: int
    max: int


def _baccarat_card(given: object) -> str:
    """A dealt card as given: one of the 52 in the project notation (no joker, no other
    spelling), else :class:`RuleViolation` (reason ``bad_card``)."""
    if type(given) is str and given in CARD_POINTS:
        return given
    try:
        card = parse_card(str(given))
    except NotationError as e:
        raise RuleViolation(e.message, reason="bad_card") from e
    if card != given or card in _JOKERS:
        raise RuleViolation(f"{given!r} is not a baccarat card", reason="bad_card")
    return card


@register_family
class BaccaratEngine(g.Engine[BaccaratState]):
    family = "baccarat"
    # a deal's whole check runs before its state change (_dealt)
    checked_by_apply = frozenset({g.CARD_DEALT})

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        self.paytable = paytable_from_config(raw)
        try:
            self.limits = {
                Spot(k): SpotLimit(int(v["min"]), int(v["max"])) for k, v in raw["spots"].items()
            }
            self.table_limit = int(raw["table_limit"]["max_total_stake"])
            self.big_small_last_hand = int(raw["no_big_small_after_hand"])
            self.stake_step = int(raw.get("stake_step", 1))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"baccarat config: {e}") from e
        self._native_rules = self._rules_for_native()
        # the last coup evaluated (its cards and the coup): a hand's outcome and its
        # settlement ask for the same coup one after the other
        self._last_coup: tuple[tuple[str, ...], tuple[str, ...], Coup] | None = None
        # every spot's result for each combination of the facts a result depends on
        # (:func:`spot_result`; at most 48 of them): the profit multiples, and as the
        # outcome writes them
        self._spot_results: dict[tuple[Any, ...], tuple[dict[Spot, Fraction], dict[str, str]]] = {}

    def _rules_for_native(self) -> tuple[Any, ...] | None:
        """What the native stepping reads of these rules (``_accel_baccarat.c``): the
        card points, which side draws as tables built from the drawing rules' own
        functions, the limits and the spots; ``None`` where it cannot take them (no
        accelerator, a stake step it cannot divide by, a number past 63 bits)."""
        numbers = (self.table_limit, self.big_small_last_hand, self.stake_step)
        bounds = [n for lim in self.limits.values() for n in (lim.min, lim.max)]
        if (
            _native is None
            or self.stake_step <= 0
            or any(abs(n) >= 2**63 for n in (*numbers, *bounds))
        ):
            return None
        return (
            dict(CARD_POINTS),
            bytes(player_draws(t) for t in range(10)),
            # banker's two-card total * 11 + the player's third card's points + 1 (0: stood)
            bytes(banker_draws(b, None if k == 0 else k - 1) for b in range(10) for k in range(11)),
            bytes(is_natural(t) for t in range(10)),
            {s.value: (lim.min, lim.max) for s, lim in self.limits.items()},
            dict(SPOTS),
            tuple(s.value for s in BIG_SMALL),
            self.big_small_last_hand,
            self.stake_step,
            self.table_limit,
            _PLAYER,
            _BANKER,
        )

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> BaccaratState:
        o = g.parse_opened(payload, max_seats=self.max_seats)
        return BaccaratState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    def fast_steps(self, st: BaccaratState, steps: list[tuple[str, Mapping[str, Any]]]) -> bool:
        """The events after ``hand.opened`` stepped natively (:mod:`croupier.accel`),
        where the native path proves them: the bets, the close of betting, the cards in
        the drawing order and the close, each as :meth:`step` checks it; anything else
        (a refusal, a shape the dealer does not write) is left to :meth:`step`."""
        rules = self._native_rules
        if rules is None or _native is None or st.bets or st.phase != "betting" or st.closed:
            return False
        if st.away or st.player or st.banker or st.positions:
            return False
        stacks = {n: s.stack for n, s in st.seats.items()}
        out = _native.baccarat_steps(steps, stacks, st.shoe_hand_no, rules)
        if out is None:
            return False
        (
            st.bets,
            st.staked_by_seat,
            st.staked_by_seat_spot,
            st.total_staked,
            st.player,
            st.banker,
            st.positions,
            st.phase,
            st.closed,
        ) = out
        return True

    # -- bets --------------------------------------------------------------------------
    def verify_bet(self, st: BaccaratState, p: Mapping[str, Any]) -> tuple[int, Spot, int]:
        if st.phase != "betting":
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot_name, amount = bet_fields(p)
        seat = st.seat(seat_no)
        spot = SPOTS.get(spot_name)
        if spot is None:
            raise BetRejected(
                f"unknown spot {spot_name!r}; one of {sorted(SPOTS)}", reason="unknown_spot"
            )
        amount = stake_amount(amount, self.stake_step)
        if spot in BIG_SMALL and st.shoe_hand_no > self.big_small_last_hand:
            raise BetRejected(
                f"{spot.value} is closed after hand {self.big_small_last_hand} of a shoe "
                f"(this is hand {st.shoe_hand_no})",
                reason="spot_closed",
            )
        lim = self.limits[spot]
        on_spot = st.staked_by_seat_spot.get((seat_no, spot), 0) + amount
        if on_spot < lim.min:
            raise BetRejected(f"{spot.value} minimum is {lim.min}", reason="under_minimum")
        if on_spot > lim.max:
            raise BetRejected(f"{spot.value} maximum is {lim.max} per seat", reason="over_limit")
        if st.staked_by_seat.get(seat_no, 0) + amount > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack} and cannot stake more",
                reason="insufficient_stack",
            )
        if st.total_staked + amount > self.table_limit:
            raise BetRejected(f"table limit {self.table_limit} reached", reason="table_limit")
        return seat_no, spot, amount

    # -- events ------------------------------------------------------------------------
    def apply_bet(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        seat_no, spot, amount = int(p["seat"]), SPOTS[str(p["spot"])], int(p["amount"])
        st.bets.append((seat_no, spot, amount))
        st.staked_by_seat[seat_no] = st.staked_by_seat.get(seat_no, 0) + amount
        key = (seat_no, spot)
        st.staked_by_seat_spot[key] = st.staked_by_seat_spot.get(key, 0) + amount
        st.total_staked += amount

    def apply_betting_closed(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing"

    def verify_cards(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        self._dealt(st, p, apply=False)

    def apply_cards(self, st: BaccaratState, p: Mapping[str, Any]) -> None:
        self._dealt(st, p, apply=True)

    def _dealt(self, st: BaccaratState, p: Mapping[str, Any], *, apply: bool) -> None:
        if st.phase != "dealing":
            raise RuleViolation("cards are dealt only after betting closes", reason="not_dealing")
        player, banker = list(st.player), list(st.banker)
        cards = p.get("cards")
        if not isinstance(cards, list) or not cards:
            raise RuleViolation("card.dealt needs a non-empty cards list", reason="malformed")
        # the points of the cards so far, read once and then kept card by card
        points: tuple[list[int], list[int]] | None = None
        for c in cards:
            if not isinstance(c, Mapping):
                raise RuleViolation("each dealt card must be an object", reason="malformed")
            if points is None:
                points = card_points(player), card_points(banker)
            want = next_by_points(*points)
            if want is None:
                raise RuleViolation("the coup is complete; no more cards", reason="illegal_deal")
            to = _PLAYER if want is Side.PLAYER else _BANKER
            if c.get("to") != to:
                raise RuleViolation(
                    f"next card goes to {to}, not {c.get('to')!r}", reason="illegal_deal"
                )
            if c.get("up") is not True:
                raise RuleViolation("baccarat cards are dealt face up", reason="illegal_deal")
            card = _baccarat_card(c.get("card"))
            if not isinstance(c.get("pos"), int) or c["pos"] < 0:
                raise RuleViolation("card position must be an integer >= 0", reason="malformed")
            side, side_points = (player, points[0]) if to is _PLAYER else (banker, points[1])
            side.append(card)
            side_points.append(CARD_POINTS[card])
        if apply:
            st.player, st.banker = player, banker
            st.positions += [int(c["pos"]) for c in cards]

    def next_deal(self, st: BaccaratState) -> g.DealRequest | None:
        if st.phase != "dealing":
            return None
        if not st.player and not st.banker:  # the first four: P, B, P, B in one event
            p, b = Side.PLAYER.value, Side.BANKER.value
            return g.DealRequest(cards=tuple(g.Deal(t, True) for t in (p, b, p, b)))
        side = next_recipient(st.player, st.banker)
        if side is None:
            return None
        return g.DealRequest(cards=(g.Deal(side.value, True),))

    def is_over(self, st: BaccaratState) -> bool:
        return st.phase == "dealing" and next_recipient(st.player, st.banker) is None

    # -- results -----------------------------------------------------------------------
    def coup(self, st: BaccaratState) -> Coup:
        player, banker = tuple(st.player), tuple(st.banker)
        last = self._last_coup
        if last is not None and last[0] == player and last[1] == banker:
            return last[2]
        c = evaluate(player, banker)
        self._last_coup = (player, banker, c)
        return c

    def spot_results(self, c: Coup) -> tuple[dict[Spot, Fraction], dict[str, str]]:
        """Every spot's :func:`spot_result` for ``c`` under this table's paytable, and
        the same as the outcome writes them (``plain_fraction``), by spot name; computed
        once for each combination of the facts a result depends on. Not to be changed
        by the caller."""
        key = (c.winner, c.banker_total == 6, c.player_pair, c.banker_pair, c.card_count)
        known = self._spot_results.get(key)
        if known is None:
            by_spot = {s: spot_result(s, c, self.paytable) for s, _ in SPOT_NAMES}
            written = {name: plain_fraction(by_spot[s]) for s, name in SPOT_NAMES}
            known = self._spot_results[key] = (by_spot, written)
        return known

    def outcome(self, st: BaccaratState) -> dict[str, Any]:
        c = self.coup(st)
        return {
            "player": list(c.player_cards),
            "banker": list(c.banker_cards),
            "player_total": c.player_total,
            "banker_total": c.banker_total,
            "winner": c.winner.value,
            "natural": c.natural,
            "player_pair": c.player_pair,
            "banker_pair": c.banker_pair,
            "cards": c.card_count,
            "spots": dict(self.spot_results(c)[1]),
        }

    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """eval PLAYER BANKER: the complete coup's outcome (cards must follow the drawing
        rules); compare A B: two hands' baccarat totals and which is closer to 9."""
        if len(hands) != 2:
            raise InvalidInput("baccarat takes two hands: player cards and banker cards")
        a, b = list(hands[0]), list(hands[1])
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        if action == "eval":
            st = BaccaratState(self.variant, "", "eval", 0, 0, {}, phase="dealing")
            st.player, st.banker = a, b
            return self.outcome(st)
        ta, tb = total(a), total(b)
        return {
            "a": {"cards": a, "total": ta, "natural": len(a) == 2 and ta >= 8},
            "b": {"cards": b, "total": tb, "natural": len(b) == 2 and tb >= 8},
            "winner": "a" if ta > tb else "b" if tb > ta else "tie",
        }

    def odds(self) -> BaccaratOdds:
        return baccarat_odds(self.config.deck.copies, self.paytable)

    def theoretical_rtp(self) -> dict[str, Fraction]:
        return {spot.value: rtp for spot, rtp in self.odds().rtp.items()}

    def rtp_table(self, places: int = 6) -> str:
        return format_odds_table(self.odds(), places=places)

    def settle(self, st: BaccaratState) -> SettlementResult:
        by_spot = self.spot_results(self.coup(st))[0]
        results = {NAMES[spot]: by_spot[spot] for spot in {s for _, s, _ in st.bets}}
        seats = st.seats
        stakes = [(seats[seat].player, NAMES[spot], amount) for seat, spot, amount in st.bets]
        return settle_spots_against_house(stakes, results, rake_rate=_NO_RAKE, hand_id=st.hand_id)
