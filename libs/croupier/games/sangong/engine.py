"""The Sangong engine: one engine for ``sangong.hundred`` (000 百人三公游戏规则),
``sangong.grab`` (001 抢庄玩法介绍) and ``sangong.classic`` (001 三公). Every difference
between them is a config value in ``seeds/variants/sangong.*.json``; the hands are
:mod:`.hands`, the odds :mod:`.probability`.

Two table kinds (config ``table``):

``hundred`` - the house banks; players bet on the four spots 东南西北:

1. ``bet.placed`` ``{seat, spot, amount}`` on ``east``/``south``/``west``/``north``,
   as often as the player likes before betting closes (在下注倒计时内，玩家可多次下注);
2. ``betting.closed``; the dealer deals three face-down cards each to ``banker``,
   ``east``, ``south``, ``west``, ``north`` (one card each in that order, three rounds,
   one ``card.dealt``). The seed deals before the betting with the values hidden
   (牌值不可见); the shoe's order is committed before the hand opens, so dealing the
   same positions after the betting gives the very same cards and tells nobody anything;
3. 开牌: the dealer turns them up in the order 庄、东、南、西、北 (``cards.revealed``);
4. each bet is settled against the house through the money kernel: a spot that beats
   the banker wins its own multiplier, otherwise it loses the banker's; a player's
   multiplier is limited when their balance is short
   (:func:`~croupier.money.hundred_spot_multiplier_limit`); 5% rake on each winner's
   profit for the hand.

``grab`` - a player banks (抢庄); the others play against the banker:

1. an empty betting round (``betting.closed`` right after the opening: stakes are bet
   multiples, chosen by action);
2. where the variant deals first (001 抢庄: 开始发牌 then 定庄), three face-down cards to
   each ``hand:<seat>`` - a target no seat owns, so nobody sees them (牌值不可见);
3. every seat grabs or passes: ``action.taken`` ``grab`` (with ``{"multiple": k}`` where
   the variant grabs with multiples) or ``pass``; a timeout passes (超时不抢庄);
4. the banker: 001 抢庄 - one of those who grabbed, with a chance proportional to the
   balance they carried (携带游戏币越多...机会越大); 001 三公 - the highest grab multiple;
   with several candidates (or nobody grabbing: any seat, 随机选择一名玩家坐庄) the dealer
   rolls one die with as many faces as the candidates' weights add up to
   (``dice.rolled``) and the roll picks the candidate whose weight range holds it;
5. every other seat picks a bet multiple: ``action.taken`` ``bet`` ``{"multiple": Y}``,
   from the variant's list and within the balance limit
   (:func:`~croupier.money.classic_niuniu_bet_limits`); a timeout bets the smallest;
6. where the variant deals after the bets (001 三公: 发牌 after 下注), three face-down
   cards to each ``seat:<n>`` (its owner sees them);
7. 开牌/摊牌: the dealer turns every hand up, seats in order (``cards.revealed``);
8. settlement: each player against the banker by 001 结算公式 (A*M*Y, A*N*Y,
   :func:`~croupier.money.banker_game_claim`), then 防以小博大 and the banker's pro rata
   (:class:`~croupier.money.BankerCover`), then the variant's rake on every winner's
   profit.

No banker passes from hand to hand (each hand grabs anew), so :meth:`carry` is empty.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
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
    action_fields,
    bet_fields,
    check_auto,
    check_dealt,
    stake_amount,
)
from croupier.games.registry import register_family
from croupier.games.sangong.hands import Hand, HandRules, banker_wins, check_cards, evaluate
from croupier.games.sangong.probability import Matchup, label_counts, matchup
from croupier.money import (
    HOUSE,
    BankerCover,
    Claim,
    RakePolicy,
    SettlementResult,
    banker_game_claim,
    classic_niuniu_bet_limits,
    exact,
    hundred_spot_multiplier_limit,
    limit_multiplier,
    settle,
)
from croupier.money.formulas import SOURCE_BANKER_GAME

BANKER = "banker"
SPOTS = ("east", "south", "west", "north")
"""The hundred-player table's spots 东、南、西、北, in the order the seed opens them."""
CARDS_EACH = 3
MAX_FACES = 2**32 - 64
"""A die has at most 2^32 faces (:func:`croupier.fair.roll`); weights are scaled below."""
SOURCE_HUNDRED = (
    "000_d16ad353ba467b8a.txt, 百人三公游戏规则, 游戏流程 4) 结算: a spot that wins is paid "
    "its own multiplier, a spot that loses pays the banker's"
)


class TableKind(StrEnum):
    HUNDRED = "hundred"
    GRAB = "grab"


class Choose(StrEnum):
    """How the banker is chosen among those who grab."""

    BY_BALANCE = "weighted_by_balance"
    """001 抢庄玩法介绍 定庄: any grabber, more likely the more they carried."""
    HIGHEST_MULTIPLE = "highest_multiple"
    """001 三公 定庄: the highest grab multiple; ties drawn at random."""


class BetLimit(StrEnum):
    """What bounds a player's bet multiple, besides the variant's list (from
    :func:`~croupier.money.classic_niuniu_bet_limits`' figures)."""

    PLAYER = "player"
    """What the player's own balance can pay at the top hand multiplier."""
    BANKER_AND_PLAYER = "banker_and_player"
    """That, and what the banker's balance can pay one player at the top multiplier."""


class Act(StrEnum):
    GRAB = "grab"
    PASS = "pass"
    BET = "bet"


class Phase(StrEnum):
    BETTING = "betting"
    DEAL_FIRST = "deal_first"
    GRAB = "grab"
    CHOOSE = "choose"
    BET = "bet"
    DEAL = "deal"
    REVEAL = "reveal"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class SpotLimits:
    min: int
    max: int
    step: int


@dataclass(frozen=True, slots=True)
class GrabRules:
    """A grab table's numbers (config ``base``, ``grab``, ``bet``, ``deal``)."""

    base: int
    choose: Choose
    grab_multiples: tuple[int, ...]
    """Grab multiples offered (001 三公); empty where a grab is just a grab (001 抢庄)."""
    bet_multiples: tuple[int, ...]
    bet_limit: BetLimit
    deal_first: bool
    """Cards are dealt before the grab (001 抢庄) rather than after the bets (001 三公)."""
    owner_sees: bool
    """The owner sees their face-down cards before they are turned up."""


@dataclass(frozen=True, slots=True)
class Draw:
    """The random choice of the banker: candidates in seat order, their weights, and
    the die that picked one (``roll`` None when there was one candidate)."""

    candidates: tuple[int, ...]
    weights: tuple[int, ...]
    roll: int | None = None

    @property
    def faces(self) -> int:
        return sum(self.weights)

    def pick(self, roll: int) -> int:
        """The candidate whose weight range ``(w_0 + ... + w_(i-1), ... + w_i]`` holds
        ``roll`` (1-based)."""
        acc = 0
        for seat, w in zip(self.candidates, self.weights, strict=True):
            acc += w
            if roll <= acc:
                return seat
        raise RuleViolation(f"roll {roll} is above {acc}", reason="bad_roll")

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates),
            "weights": list(self.weights),
            "roll": self.roll,
        }


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat that must decide now and what it may choose (grabs are simultaneous:
    :meth:`SangongEngine.to_act` lists every seat still to decide)."""

    seat: int
    actions: tuple[Act, ...]
    multiples: tuple[int, ...]
    """Grab multiples (with ``grab``) or bet multiples (with ``bet``) it may choose."""


@dataclass
class SangongState(g.HandState):
    # hundred: bets by seat and spot
    bets: dict[tuple[int, str], int] = field(default_factory=dict)
    staked: dict[int, int] = field(default_factory=dict)
    # cards: as dealt (face-down cards may read "??" in a player's view) and as turned up
    dealt: dict[str, list[str]] = field(default_factory=dict)
    shown: dict[str, list[str]] = field(default_factory=dict)
    # grab tables
    grabs: dict[int, int] = field(default_factory=dict)  # seat -> multiple (0: passed)
    draw: Draw | None = None
    banker: int | None = None
    multiples: dict[int, int] = field(default_factory=dict)  # seat -> bet multiple


def _weights(stacks: Sequence[int]) -> tuple[int, ...]:
    """Balance weights, reduced by their gcd and scaled to fit one die."""
    d = math.gcd(*stacks) or 1
    ws = [s // d for s in stacks]
    total = sum(ws)
    if total > MAX_FACES:
        k = -(-total // MAX_FACES)
        ws = [max(1, w // k) for w in ws]
    return tuple(ws)


@register_family
class SangongEngine(g.Engine[SangongState]):
    family = "sangong"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        raw = config.raw
        g.require_deck(config, "cards52", 1)
        self.hands = HandRules.from_config(raw)
        try:
            self.kind = TableKind(config.value("table"))
            self.min_seats = int(raw["seats"]["min"])
            self.rake_rate = exact(config.value("rake", "rate"), "rake rate")
            self.rake_source = str(raw["rake"]["source"])
            self.spot_limits: SpotLimits | None = None
            self.grab: GrabRules | None = None
            if self.kind is TableKind.HUNDRED:
                s = raw["spots"]
                if tuple(s["names"]) != SPOTS:
                    raise ConfigError(f"sangong: the hundred-player spots are {list(SPOTS)}")
                self.spot_limits = SpotLimits(int(s["min"]), int(s["max"]), int(s["step"]))
                if config.value("spot_limit") != "hundred_spot_multiplier_limit":
                    raise ConfigError("sangong: spot_limit is hundred_spot_multiplier_limit")
            else:
                self.grab = GrabRules(
                    base=int(config.value("base")),
                    choose=Choose(raw["grab"]["choose"]),
                    grab_multiples=tuple(int(m) for m in raw["grab"]["multiples"]),
                    bet_multiples=tuple(int(m) for m in raw["bet"]["multiples"]),
                    bet_limit=BetLimit(raw["bet"]["limit"]),
                    deal_first=str(raw["deal"]["when"]) == "before_grab",
                    owner_sees=bool(raw["deal"]["owner_sees"]),
                )
                if config.value("liability") != "banker_cover":
                    raise ConfigError("sangong: liability is banker_cover (防以小博大 + pro rata)")
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"sangong config: {e!r}") from e
        if not 0 <= self.rake_rate < 1:
            raise ConfigError("sangong: rake rate in [0, 1)")
        lim = self.spot_limits
        if lim is not None and not 0 < lim.step <= lim.min <= lim.max:
            raise ConfigError("sangong: spots need 0 < step <= min <= max")
        gr = self.grab
        if gr is not None:
            if gr.base <= 0 or not gr.bet_multiples or min(gr.bet_multiples) < 1:
                raise ConfigError("sangong: a positive base and bet multiples >= 1")
            if (gr.choose is Choose.HIGHEST_MULTIPLE) != bool(gr.grab_multiples):
                raise ConfigError("sangong: grab multiples exactly when the highest grab wins")
            if self.min_seats < 2:
                raise ConfigError("sangong: a grab table needs two seats at least")

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> SangongState:
        o = g.parse_opened(payload, min_seats=self.min_seats, max_seats=self.max_seats)
        return SangongState.from_opened(
            self.variant,
            hand_id,
            o,
        )

    def targets(self, st: SangongState) -> tuple[str, ...]:
        """Who gets cards, in dealing and opening order."""
        if self.kind is TableKind.HUNDRED:
            return (BANKER, *SPOTS)
        assert self.grab is not None
        prefix = "seat" if self.grab.owner_sees else "hand"
        return tuple(f"{prefix}:{s}" for s in sorted(st.seats))

    def target_of(self, seat: int) -> str:
        assert self.grab is not None
        return f"{'seat' if self.grab.owner_sees else 'hand'}:{seat}"

    # -- bets (hundred) ----------------------------------------------------------------
    def verify_bet(self, st: SangongState, p: Mapping[str, Any]) -> tuple[int, str, int]:
        lim = self.spot_limits
        if lim is None:
            raise BetRejected(
                f"{self.variant} has no betting spots: players choose bet multiples by action",
                reason="no_spots",
            )
        if st.phase != Phase.BETTING:
            raise BetRejected("betting is closed", reason="betting_closed")
        seat_no, spot, amount = bet_fields(p)
        seat = st.seat(seat_no)
        if spot not in SPOTS:
            raise BetRejected(f"unknown spot {spot!r}; one of {list(SPOTS)}", reason="unknown_spot")
        amount = stake_amount(amount, lim.step)
        on_spot = st.bets.get((seat_no, spot), 0) + amount
        if on_spot < lim.min:
            raise BetRejected(f"{spot} minimum is {lim.min}", reason="under_minimum")
        if on_spot > lim.max:
            raise BetRejected(f"{spot} maximum is {lim.max} per seat", reason="over_limit")
        total = st.staked.get(seat_no, 0) + amount
        if total > seat.stack:
            raise BetRejected(
                f"seat {seat_no} has {seat.stack}: stakes of {total} would leave no balance "
                "to lose even 1x on every spot",
                reason="insufficient_stack",
            )
        return seat_no, spot, amount

    # -- actions (grab tables) ---------------------------------------------------------
    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, Act, int | None]:
        seat_no, name, args = action_fields(p)
        try:
            act = Act(name)
        except ValueError:
            raise ActionRejected(
                f"unknown action {name!r}; one of {[a.value for a in Act]}",
                reason="unknown_action",
            ) from None
        if not isinstance(args, Mapping) or set(args) - {"multiple", "auto"}:
            raise ActionRejected("args may only hold the 'multiple'", reason="malformed")
        check_auto(args)
        m = args.get("multiple")
        if m is not None and (isinstance(m, bool) or not isinstance(m, int)):
            raise ActionRejected(f"multiple must be an integer, got {m!r}", reason="malformed")
        return seat_no, act, m

    def grab_options(self) -> tuple[int, ...]:
        assert self.grab is not None
        return self.grab.grab_multiples

    def bet_options(self, st: SangongState, seat_no: int) -> tuple[int, ...]:
        """The bet multiples ``seat_no`` may choose: the variant's list, up to what the
        player's balance can pay at the top hand multiplier (闲家最大可赔倍数 of
        :func:`~croupier.money.classic_niuniu_bet_limits`) and, where the variant says
        so, what the banker's can (庄家最大可赔倍数) - per player, not shared among
        them: shared, the banker could always pay everyone and the seeds' 特殊情况 (the
        banker cannot pay) could never arise. When the balances allow none, the smallest
        multiple: a seat dealt into the hand plays at least that, and 防以小博大 bounds
        the money."""
        gr = self.grab
        assert gr is not None and st.banker is not None
        lim = classic_niuniu_bet_limits(
            banker_balance=st.seats[st.banker].stack,
            player_balance=st.seats[seat_no].stack,
            base=gr.base,
            max_hand_multiple=self.hands.max_multiplier,
            players=len(st.seats),
            options=gr.bet_multiples,
        )
        top = lim.player_cover_max
        if gr.bet_limit is BetLimit.BANKER_AND_PLAYER:
            top = min(top, lim.banker_max)
        return tuple(m for m in gr.bet_multiples if m <= top) or (min(gr.bet_multiples),)

    def verify_action(self, st: SangongState, p: Mapping[str, Any]) -> tuple[int, Act, int]:
        """Check an ``action.taken``; returns (seat, action, multiple; 0 for a pass)."""
        seat_no, act, m = self._parse_action(p)
        seat = st.seat(seat_no)
        gr = self.grab
        if gr is None:
            raise ActionRejected(
                f"{self.variant} takes no actions: bets only", reason="unknown_action"
            )
        if act in (Act.GRAB, Act.PASS):
            if st.phase != Phase.GRAB:
                raise ActionRejected("this is not the time to grab the bank", reason="wrong_phase")
            if seat_no in st.grabs:
                raise ActionRejected(
                    f"seat {seat_no} already grabbed or passed", reason="already_decided"
                )
            if act is Act.PASS:
                if m is not None:
                    raise ActionRejected("a pass takes no multiple", reason="malformed")
                return seat_no, act, 0
            if seat.stack <= 0:
                raise ActionRejected(
                    f"seat {seat_no} carries nothing and cannot bank", reason="insufficient_stack"
                )
            if not gr.grab_multiples:
                if m not in (None, 1):
                    raise ActionRejected(
                        f"{self.variant} grabs without multiples", reason="bad_multiple"
                    )
                return seat_no, act, 1
            if m is None:
                raise ActionRejected(
                    f"a grab names its multiple, one of {list(gr.grab_multiples)}",
                    reason="malformed",
                )
            if m > max(gr.grab_multiples):
                raise ActionRejected(
                    f"grab multiple {m} is above the cap {max(gr.grab_multiples)}",
                    reason="over_cap",
                )
            if m not in gr.grab_multiples:
                raise ActionRejected(
                    f"grab multiple {m} is not one of {list(gr.grab_multiples)}",
                    reason="bad_multiple",
                )
            return seat_no, act, m
        if st.phase != Phase.BET:
            raise ActionRejected("this is not the time to bet", reason="wrong_phase")
        if seat_no == st.banker:
            raise ActionRejected(
                f"seat {seat_no} is the banker and does not bet", reason="banker_does_not_bet"
            )
        if seat_no in st.multiples:
            raise ActionRejected(
                f"seat {seat_no} already chose its multiple", reason="already_decided"
            )
        options = self.bet_options(st, seat_no)
        if m is None:
            raise ActionRejected(
                f"a bet names its multiple, one of {list(options)}", reason="malformed"
            )
        if m > max(options):
            raise ActionRejected(
                f"bet multiple {m} is above {max(options)}, the most seat {seat_no} may "
                "choose with these balances",
                reason="over_limit",
            )
        if m not in options:
            raise ActionRejected(
                f"bet multiple {m} is not one of {list(options)}", reason="bad_multiple"
            )
        return seat_no, act, m

    # -- dealing -----------------------------------------------------------------------
    def next_deal(self, st: SangongState) -> g.DealRequest | None:
        if st.phase in (Phase.DEAL_FIRST, Phase.DEAL):
            ts = self.targets(st)
            return g.DealRequest(
                cards=tuple(g.Deal(t, up=False) for _ in range(CARDS_EACH) for t in ts)
            )
        if st.phase == Phase.CHOOSE:
            assert st.draw is not None
            return g.DealRequest(dice=1, faces=(st.draw.faces,))
        if st.phase == Phase.REVEAL:
            return g.DealRequest(reveal=tuple(t for t in self.targets(st) if t not in st.shown))
        return None

    def verify_cards(self, st: SangongState, p: Mapping[str, Any]) -> None:
        seen = {c for cs in st.dealt.values() for c in cs}

        def undealt(raw: object) -> str:
            try:
                card = parse_card(str(raw))
            except NotationError as e:
                raise RuleViolation(e.message, reason="bad_card") from e
            if card != raw or card in ("BJ", "RJ") or card in seen:
                raise RuleViolation(f"{raw!r} cannot be dealt here", reason="bad_card")
            seen.add(card)
            return card

        check_dealt(self.next_deal(st), p, undealt)

    def verify_reveal(self, st: SangongState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        if req is None or not req.reveal:
            raise RuleViolation("nothing is to be turned up now", reason="illegal_reveal")
        want = req.reveal[0]
        if p.get("to") != want:
            raise RuleViolation(
                f"{want} is turned up next, not {p.get('to')!r}", reason="illegal_reveal"
            )
        if p.get("cards") != st.dealt[want]:
            raise RuleViolation(
                f"cards.revealed must show {want}'s cards as dealt", reason="bad_reveal"
            )

    def verify_dice(self, st: SangongState, p: Mapping[str, Any]) -> None:
        if st.phase != Phase.CHOOSE or st.draw is None:
            raise RuleViolation("no die is to be rolled now", reason="illegal_roll")
        dice, faces, roll = p.get("dice"), p.get("faces"), p.get("roll")
        if faces != [st.draw.faces]:
            raise RuleViolation(
                f"the banker's draw rolls one die of {st.draw.faces} faces, not {faces!r}",
                reason="bad_roll",
            )
        if (
            not isinstance(dice, list)
            or len(dice) != 1
            or not isinstance(dice[0], int)
            or isinstance(dice[0], bool)
            or not 1 <= dice[0] <= st.draw.faces
        ):
            raise RuleViolation(f"bad die {dice!r}", reason="bad_roll")
        if not isinstance(roll, int) or isinstance(roll, bool) or roll < 0:
            raise RuleViolation("roll number must be an integer >= 0", reason="malformed")

    # -- events ------------------------------------------------------------------------
    def apply_bet(self, st: SangongState, p: Mapping[str, Any]) -> None:
        seat_no, spot, amount = int(p["seat"]), str(p["spot"]), int(p["amount"])
        st.bets[(seat_no, spot)] = st.bets.get((seat_no, spot), 0) + amount
        st.staked[seat_no] = st.staked.get(seat_no, 0) + amount

    def apply_betting_closed(self, st: SangongState, p: Mapping[str, Any]) -> None:
        if self.kind is TableKind.HUNDRED:
            st.phase = Phase.DEAL
        else:
            assert self.grab is not None
            st.phase = Phase.DEAL_FIRST if self.grab.deal_first else Phase.GRAB

    def apply_cards(self, st: SangongState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.dealt.setdefault(str(c["to"]), []).append(str(c["card"]))
            st.positions.append(int(c["pos"]))
        if st.phase == Phase.DEAL_FIRST:
            st.phase = Phase.GRAB
        else:
            st.phase = Phase.REVEAL

    def apply_reveal(self, st: SangongState, p: Mapping[str, Any]) -> None:
        st.shown[str(p["to"])] = [str(c) for c in p["cards"]]
        if all(t in st.shown for t in self.targets(st)):
            st.phase = Phase.DONE

    def apply_dice(self, st: SangongState, p: Mapping[str, Any]) -> None:
        assert st.draw is not None
        roll = int(p["dice"][0])
        st.draw = dataclasses.replace(st.draw, roll=roll)
        st.banker = st.draw.pick(roll)
        st.phase = Phase.BET

    def apply_action(self, st: SangongState, p: Mapping[str, Any]) -> None:
        seat_no, act, m = self._parse_action(p)
        if act in (Act.GRAB, Act.PASS):
            st.grabs[seat_no] = 0 if act is Act.PASS else (m or 1)
            if len(st.grabs) == len(st.seats):
                self._choose(st)
            return
        assert m is not None
        st.multiples[seat_no] = m
        if len(st.multiples) == len(st.seats) - 1:
            assert self.grab is not None
            st.phase = Phase.REVEAL if self.grab.deal_first else Phase.DEAL

    def _choose(self, st: SangongState) -> None:
        """Everyone has grabbed or passed: the candidates and their weights."""
        assert self.grab is not None
        order = sorted(st.seats)
        grabbers = [s for s in order if st.grabs[s] > 0]
        if not grabbers:  # 所有人都不抢庄，随机选择一名玩家坐庄
            draw = Draw(tuple(order), (1,) * len(order))
        elif self.grab.choose is Choose.BY_BALANCE:
            draw = Draw(tuple(grabbers), _weights([st.seats[s].stack for s in grabbers]))
        else:
            top = max(st.grabs[s] for s in grabbers)
            best = tuple(s for s in grabbers if st.grabs[s] == top)
            draw = Draw(best, (1,) * len(best))
        st.draw = draw
        if len(draw.candidates) == 1:
            st.banker = draw.candidates[0]
            st.phase = Phase.BET
        else:
            st.phase = Phase.CHOOSE

    def is_over(self, st: SangongState) -> bool:
        return st.phase == Phase.DONE

    # -- decisions ---------------------------------------------------------------------
    def to_act(self, st: SangongState) -> list[Turn]:
        """Every seat that must still decide, in seat order, with what it may choose
        (empty: nobody; the dealer deals, or the hand is over)."""
        if st.closed or self.grab is None:
            return []
        if st.phase == Phase.GRAB:
            opts = self.grab_options()
            return [
                Turn(
                    s,
                    (Act.GRAB, Act.PASS) if st.seats[s].stack > 0 else (Act.PASS,),
                    opts,
                )
                for s in sorted(st.seats)
                if s not in st.grabs
            ]
        if st.phase == Phase.BET:
            return [
                Turn(s, (Act.BET,), self.bet_options(st, s))
                for s in sorted(st.seats)
                if s != st.banker and s not in st.multiples
            ]
        return []

    def auto_action(self, st: SangongState) -> tuple[int, str, dict[str, Any]] | None:
        """Timeouts: a seat that has not grabbed passes (001 三公 定庄: 超时不抢庄，系统自动
        执行不抢庄操作; 001 抢庄 says nothing else); a seat that has not bet bets the
        smallest multiple it may (default: the seeds name no timeout bet)."""
        turns = self.to_act(st)
        if not turns:
            return None
        t = turns[0]
        if Act.BET in t.actions:
            return t.seat, Act.BET.value, {"multiple": min(t.multiples)}
        return t.seat, Act.PASS.value, {}

    # -- results -------------------------------------------------------------------------
    def hand_of(self, st: SangongState, target: str) -> Hand:
        cards = st.shown.get(target)
        if cards is None:
            raise RuleViolation(f"{target}'s cards are not turned up", reason="not_over")
        return evaluate(cards, self.hands)

    def outcome(self, st: SangongState) -> dict[str, Any]:
        self.close_check(st)
        if self.kind is TableKind.HUNDRED:
            banker = self.hand_of(st, BANKER)
            spots = []
            for spot in SPOTS:
                h = self.hand_of(st, spot)
                won = not banker_wins(banker, h, self.hands)
                spots.append(
                    {
                        "spot": spot,
                        **h.to_json_dict(),
                        "winner": spot if won else BANKER,
                        "result": h.multiplier if won else -banker.multiplier,
                    }
                )
            limits = [{"seat": s, "limit": self.spot_limit(st, s)} for s in sorted(st.staked)]
            return {"banker": banker.to_json_dict(), "spots": spots, "limits": limits}
        assert st.banker is not None and st.draw is not None
        bh = self.hand_of(st, self.target_of(st.banker))
        players = []
        for s in sorted(st.seats):
            if s == st.banker:
                continue
            h = self.hand_of(st, self.target_of(s))
            won = not banker_wins(bh, h, self.hands)
            players.append(
                {
                    "seat": s,
                    "player": st.seats[s].player,
                    **h.to_json_dict(),
                    "bet_multiple": st.multiples[s],
                    "winner": "player" if won else BANKER,
                    "result": st.multiples[s] * (h.multiplier if won else -bh.multiplier),
                }
            )
        return {
            "grabs": [{"seat": s, "multiple": st.grabs[s]} for s in sorted(st.grabs)],
            "draw": st.draw.to_json_dict(),
            "banker": {
                "seat": st.banker,
                "player": st.seats[st.banker].player,
                **bh.to_json_dict(),
            },
            "base": self.grab.base if self.grab else 0,
            "players": players,
        }

    def settle(self, st: SangongState) -> SettlementResult:
        self.close_check(st)
        rake = self.rake_policy()
        if self.kind is TableKind.HUNDRED:
            return self._settle_hundred(st, rake)
        gr = self.grab
        assert gr is not None and st.banker is not None
        bp = st.seats[st.banker].player
        bh = self.hand_of(st, self.target_of(st.banker))
        claims: list[Claim] = []
        for s in sorted(st.seats):
            if s == st.banker:
                continue
            h = self.hand_of(st, self.target_of(s))
            claims.append(
                banker_game_claim(
                    banker=bp,
                    player=st.seats[s].player,
                    base=gr.base,
                    banker_wins=banker_wins(bh, h, self.hands),
                    banker_multiple=bh.multiplier,
                    player_multiple=h.multiplier,
                    bet_multiple=st.multiples[s],
                )
            )
        order = [st.seats[s].player for s in sorted(st.seats)]
        carried = {st.seats[s].player: st.seats[s].stack for s in st.seats}
        return settle(
            claims,
            participants=order,
            liability=[BankerCover(bp, carried)],
            rake=rake,
            hand_id=st.hand_id,
            source=SOURCE_BANKER_GAME,
        )

    def spot_limit(self, st: SangongState, seat_no: int) -> int:
        """The multiplier seat ``seat_no`` 's spots can win or lose at most (百人三公 结算:
        a short balance limits it)."""
        stakes = {sp: a for (s, sp), a in st.bets.items() if s == seat_no}
        return hundred_spot_multiplier_limit(
            balance=st.seats[seat_no].stack,
            stakes=stakes,
            max_multiplier=self.hands.max_multiplier,
        )

    def _settle_hundred(self, st: SangongState, rake: RakePolicy) -> SettlementResult:
        """Bets against the house: a win pays the spot's multiplier, a loss costs the
        banker's, each limited by the seat's balance.

        A loss can be several times the stake, which :func:`~croupier.money.
        settle_against_house` cannot carry (a ``Wager`` loses at most its stake), so the
        claims go through :func:`~croupier.money.settle`, the house as the counterparty
        and exempt from rake, as ``settle_against_house`` has it. ``staked`` lists each
        player's stakes and ``returned`` stake plus net, which is below zero where a
        loss of several stakes (-5x) exceeds the stake (record version 2 on)."""
        banker = self.hand_of(st, BANKER)
        hands = {spot: self.hand_of(st, spot) for spot in SPOTS}
        claims: list[Claim] = []
        players: list[str] = []
        for (seat_no, spot), amount in sorted(st.bets.items(), key=lambda kv: kv[0]):
            player = st.seats[seat_no].player
            if player not in players:
                players.append(player)
            limit = self.spot_limit(st, seat_no)
            h = hands[spot]
            if banker_wins(banker, h, self.hands):
                m = limit_multiplier(banker.multiplier, limit)
                claims.append(Claim(player, HOUSE, amount, (m,), spot))
            else:
                m = limit_multiplier(h.multiplier, limit)
                claims.append(Claim(HOUSE, player, amount, (m,), spot))
        policy = rake.with_exempt(HOUSE)
        staked: dict[str, int] = {}
        for (seat_no, _spot), amount in st.bets.items():
            player = st.seats[seat_no].player
            staked[player] = staked.get(player, 0) + amount
        return settle(
            claims,
            participants=[*players, HOUSE],
            rake=policy,
            hand_id=st.hand_id,
            source=SOURCE_HUNDRED,
            staked={p: staked[p] for p in players},
        )

    # -- bare hands and odds ---------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval HAND...``: each hand's category, points and multiplier; ``compare BANKER
        PLAYER``: who wins and the player's result per unit staked."""
        if action not in ("eval", "compare"):
            raise InvalidInput(f"unknown rules action {action!r}")
        evaluated = [evaluate(check_cards(list(h)), self.hands) for h in hands]
        if action == "eval":
            if not evaluated:
                raise InvalidInput("eval takes one hand or more")
            return {"hands": [{**h.to_json_dict(), "label": h.label} for h in evaluated]}
        if len(evaluated) != 2:
            raise InvalidInput("compare takes two hands: the banker's and the player's")
        b, pl = evaluated
        if set(b.cards) & set(pl.cards):
            raise InvalidInput("the two hands share a card")
        won = not banker_wins(b, pl, self.hands)
        return {
            "banker": {**b.to_json_dict(), "label": b.label},
            "player": {**pl.to_json_dict(), "label": pl.label},
            "winner": "player" if won else BANKER,
            "result": pl.multiplier if won else -b.multiplier,
        }

    def matchup(self) -> Matchup:
        return matchup(self.hands)

    def theoretical_rtp(self) -> dict[str, Fraction]:
        """Return per unit staked on a hand against the banker, before rake, and (keys
        ending ``.after_rake``) when the variant's rake is taken from the win of a bet
        that is its owner's only one. ``sangong.hundred``: per spot; the grab tables:
        ``player``, per unit of ``A * Y``, with no cap or liability binding."""
        m = self.matchup()
        names = SPOTS if self.kind is TableKind.HUNDRED else ("player",)
        out = {n: m.rtp for n in names}
        out.update({f"{n}.after_rake": m.rtp_after_rake(self.rake_rate) for n in names})
        return out

    def rtp_table(self, places: int = 6) -> str:
        counts = label_counts(self.hands)
        total = sum(counts.values())
        m = self.matchup()
        lines = [f"{self.variant}: {total} three-card hands", f"{'hand':<12}{'count':>8}  prob"]
        lines += [f"{k:<12}{v:>8}  {v / total:.{places}f}" for k, v in counts.items()]
        lines.append(f"banker vs one player over {m.pairs} ordered pairs of disjoint hands")
        lines.append(f"{'P(player)':<22}{float(m.p_player):.{places}f}")
        for k, v in self.theoretical_rtp().items():
            lines.append(f"{'RTP ' + k:<22}{float(v):.{places}f}  ({v})")
        return "\n".join(lines)
