"""The 斗地主 engine: one engine for 斗地主 (``doudizhu.classic``, 000), 加倍斗地主
(``doudizhu.doubling``, 000) and 三人斗地主 (``doudizhu.three``, 004); every difference
is a field of :class:`~.rules.Rules` read from ``seeds/variants/doudizhu.*.json``. The
moves are :mod:`croupier.games.shedding.moves`, the automatic play (托管)
:mod:`croupier.games.shedding.generator`.

The hand, as events (no bets: the stake is the room base, ``base`` in the config, so
the dealer closes an empty betting round):

1. ``betting.closed``. Who bids first: the player named by the table's carry
   (``{"first_bidder": player}``, the last hand's first player out, 000 斗地主 1.2 02))
   if seated; otherwise the dealer rolls one three-faced die (``dice.rolled``, faces
   ``[3]``; 1 = the lowest seat) from the hand's fair seed.
2. ``card.dealt``: 17 cards to each seat (``seat:<n>``, round by round in seat order) and
   3 to ``kitty``, all face down.
3. Bidding, from the first bidder round the table in ``play.direction`` (the next seat
   that way is 下家; seat numbers increase clockwise: 斗地主 and 加倍斗地主 name no
   direction and go to the next higher seat, 三人斗地主 plays 逆时针, to the next lower
   seat, 004 3、叫牌 and 5、出牌; grabs, 加倍 and play go the same way):
   ``action.taken`` ``bid`` ``{"points": 0|1|2|3}`` (0 = 不叫), each player once, a bid
   above every earlier one; 3 ends it at once. Nobody bids: the hand is void (留局) and
   closes with no score; the next hand is a fresh deal from a fresh seed, the same
   player bidding first (carry unchanged).
4. 加倍斗地主 only: ``grab`` ``{"grab": bool}`` (抢地主), one chance for each player who
   bid, from the seat after the top bidder; the top bidder's own chance comes last and
   only if someone grabbed (to grab it back). Each grab doubles; the last grabber is the
   landlord, else the top bidder.
5. ``cards.revealed`` ``{to: "kitty"}``: the kitty is turned up for all and joins the
   landlord's hand.
6. ``double`` ``{"double": bool}`` (加倍): 加倍斗地主 the farmers in turn from the
   landlord's 下家, after the kitty is shown (1.1 04)); 三人斗地主 every player from the
   landlord, before it (4、加倍 comes before 5、出牌, which shows the kitty). 斗地主 has
   none.
7. Play, the landlord first: ``play`` ``{"cards": [...], "move": kind, "rank": r}`` or
   ``pass`` ``{}`` (not when leading). After two passes the last player leads again. The
   first player out ends the hand; their side wins.

Every action may carry ``"auto": "timeout"`` (the dealer's 托管 move,
:meth:`DoudizhuEngine.auto_action`).

Seeds: 000 = ``000_d16ad353ba467b8a.txt``, 004 = ``004_5b64d410fb5765b6.txt`` (sections
斗地主, 加倍斗地主, 三人斗地主规则), cited by section and item number.

Secrecy: seats see their own cards; a view where other seats' cards are ``"??"``
(:func:`croupier_services.bots.replay_view`) applies as well, a play then taking ``??``
out of the hand where the real card is not known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.common import Checked, is_int
from croupier.games.registry import register_family
from croupier.games.shedding import shuangkou  # noqa: F401  (registers the shuangkou family)
from croupier.games.shedding.common import (
    HIDDEN,
    Move,
    check_deal,
    check_die,
    parse_action,
)
from croupier.games.shedding.generator import choose, legal_moves
from croupier.games.shedding.moves import (
    BIG_JOKER,
    SMALL_JOKER,
    TWO,
    Kind,
    Play,
    Shape,
    check_play,
    counts,
    describe_moves,
    holds,
    parse_play_cards,
    parse_shape,
    sort_cards,
)
from croupier.games.shedding.rules import AutoBid, Cap, Doubling, FirstBidder, Rules
from croupier.money import (
    NO_RAKE,
    CapRule,
    DouDizhuThreeStep,
    RakePolicy,
    SettlementResult,
    doudizhu_cap,
    doudizhu_claims,
    doudizhu_doubling_caps,
    settle,
)
from croupier.money.formulas import SOURCE_DOUDIZHU, SOURCE_DOUDIZHU_DOUBLING

KITTY = "kitty"
DIE_FACES = 3
ACTION_ARGS = {
    "bid": {"points"},
    "grab": {"grab"},
    "double": {"double"},
    "play": {"cards", "move", "rank"},
    "pass": set(),
}


@dataclass
class DoudizhuState(g.HandState):
    order: list[int] = field(default_factory=list)  # seats, lowest first
    step: int = 1  # +1: the turn passes to the next higher seat (clockwise), -1: lower
    first_bidder: int | None = None
    die: int | None = None
    hands: dict[int, list[str]] = field(default_factory=dict)
    kitty: list[str] = field(default_factory=list)
    kitty_shown: bool = False
    turn: int | None = None
    bids: list[tuple[int, int]] = field(default_factory=list)
    grab_queue: list[int] = field(default_factory=list)
    grabs: list[tuple[int, bool]] = field(default_factory=list)
    landlord: int | None = None
    double_queue: list[int] = field(default_factory=list)
    doubles: dict[int, bool] = field(default_factory=dict)
    trick: tuple[int, Shape] | None = None  # the trick's highest play: (seat, shape)
    passes: int = 0
    played: dict[int, int] = field(default_factory=dict)  # seat -> plays made
    bombs: int = 0
    rockets: int = 0
    history: list[tuple[int, str]] = field(default_factory=list)  # (seat, move text)
    first_out: int | None = None
    void: bool = False

    def next_seat(self, seat: int) -> int:
        """下家: the next seat in the variant's direction of play."""
        return self.order[(self.order.index(seat) + self.step) % len(self.order)]

    @property
    def top_bid(self) -> int:
        return max((p for _, p in self.bids), default=0)

    def top_bidder(self) -> int | None:
        top = self.top_bid
        return next((s for s, p in self.bids if p == top), None) if top else None


@dataclass(frozen=True, slots=True)
class Result:
    """The scoring facts of a finished hand."""

    landlord_wins: bool
    spring: bool
    anti_spring: bool
    multiple: int  # 倍数: bombs, rockets, spring (and the landlord's 加倍 in 三人斗地主)
    bid: int
    grab_factor: int
    doubling: dict[int, int]  # seat -> 加倍翻倍数 (1 or 2)


@register_family
class DoudizhuEngine(g.Engine[DoudizhuState]):
    family = "doudizhu"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        self.rules = Rules.from_config(config.raw)
        self.checked: Checked[Move] = Checked()
        r = self.rules
        g.require_deck(config, "cards54", 1)
        if 3 * r.hand_cards + r.kitty_cards != 54:
            raise ConfigError("doudizhu deals the whole deck: 3 hands and the kitty")

    # -- lifecycle ---------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> DoudizhuState:
        o = g.parse_opened(payload, min_seats=3, max_seats=3)
        order = sorted(o.seats)
        st = DoudizhuState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            step=self.rules.direction.step,
            hands={s: [] for s in order},
            played=dict.fromkeys(order, 0),
        )
        carry = payload.get("carry") or {}
        if not isinstance(carry, Mapping):
            raise RuleViolation("hand.opened carry must be an object", reason="malformed")
        if self.rules.first_bidder is FirstBidder.RANDOM_THEN_WINNER:
            who = carry.get("first_bidder")
            st.first_bidder = next((s for s in order if o.seats[s].player == who), None)
        return st

    def carry(self, state: DoudizhuState) -> dict[str, Any]:
        """The player who bids first next hand: this hand's first player out (000 斗地主
        1.2 02)), or this hand's first bidder again after a void hand. Nothing for
        variants that draw the first bidder every hand."""
        if self.rules.first_bidder is not FirstBidder.RANDOM_THEN_WINNER:
            return {}
        seat = state.first_out if state.first_out is not None else state.first_bidder
        if seat is None:
            return {}
        return {"first_bidder": state.seats[seat].player}

    # -- whose turn --------------------------------------------------------------------
    def to_act(self, st: DoudizhuState) -> tuple[int, str] | None:
        """The seat to act and the phase it acts in, or None."""
        if st.closed or st.turn is None:
            return None
        if st.phase in ("bidding", "grabbing", "doubling", "playing"):
            return st.turn, st.phase
        return None

    def _farmers(self, st: DoudizhuState) -> list[int]:
        return [s for s in st.order if s != st.landlord]

    # -- checks ------------------------------------------------------------------------
    def _parse_action(self, p: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
        return parse_action(p, ACTION_ARGS)

    def verify_action(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        seat, action, args = self._parse_action(p)
        st.seat(seat)
        phase_of = {
            "bid": "bidding",
            "grab": "grabbing",
            "double": "doubling",
            "play": "playing",
            "pass": "playing",
        }
        want = phase_of[action]
        if st.phase != want:
            raise ActionRejected(f"no {action} now: the hand is {st.phase}", reason="wrong_phase")
        if action == "grab" and all(s != seat or pts == 0 for s, pts in st.bids):
            raise ActionRejected(
                f"seat {seat} did not bid and cannot grab the landlord (抢地主)",
                reason="not_a_bidder",
            )
        if action == "double" and self.rules.doubling is Doubling.FARMERS and seat == st.landlord:
            raise ActionRejected(
                "the landlord cannot double (加倍)", reason="landlord_cannot_double"
            )
        if seat != st.turn:
            raise ActionRejected(
                f"it is not seat {seat}'s turn (seat {st.turn} is to act)", reason="out_of_turn"
            )
        if action == "bid":
            pts = args.get("points")
            if not is_int(pts) or (pts != 0 and pts not in self.rules.bids):
                raise ActionRejected(
                    f"a bid is 0 (不叫) or one of {list(self.rules.bids)}, got {pts!r}",
                    reason="bad_bid",
                )
            if pts and pts <= st.top_bid:
                raise ActionRejected(
                    f"a bid must be higher than {st.top_bid}, got {pts}", reason="bid_too_low"
                )
        elif action in ("grab", "double"):
            if not isinstance(args.get(action), bool):
                raise ActionRejected(
                    f"{action} takes {{{action!r}: true|false}}", reason="malformed"
                )
        elif action == "pass":
            if st.trick is None or st.trick[0] == seat:
                raise ActionRejected("the player leading must play", reason="must_lead")
        else:
            play = self._check_play(st, seat, args)
            self.checked.keep(p, Move(seat, action, args, play.cards, play.shape))
            return
        self.checked.keep(p, Move(seat, action, args))

    def _check_play(self, st: DoudizhuState, seat: int, args: Mapping[str, Any]) -> Play:
        cards = parse_play_cards(args.get("cards"))
        if not holds(st.hands[seat], cards):
            hand = Counter(st.hands[seat])
            want = Counter(cards)
            short = [c for c in want if want[c] > hand[c]]
            raise ActionRejected(
                f"seat {seat} does not hold {' '.join(sort_cards(short))}", reason="not_in_hand"
            )
        table = st.trick[1] if st.trick is not None and st.trick[0] != seat else None
        shape = check_play(cards, parse_shape(args, len(cards)), table, self.rules.moves)
        return Play(shape, tuple(cards))

    def verify_cards(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        check_deal(self.next_deal(st), p, self.config.deck.copies)

    def verify_dice(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        if st.phase != "dice":
            raise RuleViolation("no die is due now", reason="illegal_roll")
        check_die(p, DIE_FACES, "the first bidder")

    def verify_reveal(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        if st.phase != "reveal":
            raise RuleViolation("nothing is to be turned up now", reason="illegal_reveal")
        shown = p.get("cards")
        if p.get("to") != KITTY or not isinstance(shown, list):
            raise RuleViolation("cards.revealed must show the kitty", reason="bad_reveal")
        if HIDDEN not in st.kitty and shown != st.kitty:
            raise RuleViolation("cards.revealed must show the kitty as dealt", reason="bad_reveal")
        if len(shown) != self.rules.kitty_cards:
            raise RuleViolation("the whole kitty is turned up", reason="bad_reveal")

    # -- events ------------------------------------------------------------------------
    def verify_bet(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        raise BetRejected(
            f"{self.variant} takes no bets: the stake is the room base (底分)",
            reason="no_bets",
        )

    def apply_betting_closed(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        st.phase = "dealing" if st.first_bidder is not None else "dice"

    def apply_dice(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        st.die = int(p["dice"][0])
        st.first_bidder = st.order[st.die - 1]
        st.phase = "dealing"

    def apply_cards(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.positions.append(int(c["pos"]))
            to = str(c["to"])
            if to == KITTY:
                st.kitty.append(str(c["card"]))
            else:
                st.hands[int(to.split(":")[1])].append(str(c["card"]))
        st.phase = "bidding"
        st.turn = st.first_bidder

    def apply_reveal(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        st.kitty = [str(c) for c in p["cards"]]
        st.kitty_shown = True
        assert st.landlord is not None
        st.hands[st.landlord] += st.kitty
        self._after_reveal(st)

    def apply_action(self, st: DoudizhuState, p: Mapping[str, Any]) -> None:
        move = self.checked.of(p)
        if move is None:
            seat, action, args = self._parse_action(p)
        else:
            seat, action, args = move.seat, move.action, move.args
        if action == "bid":
            self._bid(st, seat, int(args["points"]))
        elif action == "grab":
            st.grabs.append((seat, bool(args["grab"])))
            self._next_grab(st)
        elif action == "double":
            st.doubles[seat] = bool(args["double"])
            self._next_double(st)
        elif action == "pass":
            st.history.append((seat, "pass"))
            st.passes += 1
            st.turn = st.next_seat(seat)
            if st.passes == len(st.order) - 1:
                st.trick, st.passes = None, 0
        elif move is not None and move.shape is not None:
            self._play(st, seat, move.cards, move.shape)
        else:
            cards = [str(c) for c in args["cards"]]
            shape = check_play(cards, parse_shape(args, len(cards)), None, self.rules.moves)
            self._play(st, seat, cards, shape)

    def _bid(self, st: DoudizhuState, seat: int, points: int) -> None:
        st.bids.append((seat, points))
        if points != max(self.rules.bids) and len(st.bids) < len(st.order):
            st.turn = st.next_seat(seat)
            return
        top = st.top_bidder()
        if top is None:  # nobody bid: 留局, a fresh deal next hand
            st.void, st.turn, st.phase = True, None, "done"
            return
        if self.rules.grab:
            bidders = {s for s, pts in st.bids if pts}
            queue, s = [], st.next_seat(top)
            while s != top:
                if s in bidders:
                    queue.append(s)
                s = st.next_seat(s)
            st.grab_queue = queue
            st.phase = "grabbing"
            self._next_grab(st)
            return
        self._set_landlord(st, top)

    def _next_grab(self, st: DoudizhuState) -> None:
        top = st.top_bidder()
        assert top is not None
        asked = {s for s, _ in st.grabs}
        grabbed = any(gr for _, gr in st.grabs)
        nxt = next((s for s in st.grab_queue if s not in asked), None)
        if nxt is None and grabbed and top not in asked:
            nxt = top  # the top bidder may grab it back, last
        if nxt is not None:
            st.turn = nxt
            return
        last = next((s for s, gr in reversed(st.grabs) if gr), top)
        self._set_landlord(st, last)

    def _set_landlord(self, st: DoudizhuState, seat: int) -> None:
        st.landlord = seat
        st.turn = None
        if self.rules.doubling is not Doubling.NONE and self.rules.double_before_reveal:
            self._start_doubling(st)
        else:
            st.phase = "reveal"

    def _after_reveal(self, st: DoudizhuState) -> None:
        if self.rules.doubling is Doubling.NONE or self.rules.double_before_reveal:
            self._start_play(st)
        else:
            self._start_doubling(st)

    def _start_doubling(self, st: DoudizhuState) -> None:
        assert st.landlord is not None
        d = self.rules.doubling
        queue, s = [], st.landlord
        for _ in st.order:
            if d is Doubling.ALL or s != st.landlord:
                queue.append(s)
            s = st.next_seat(s)
        st.double_queue = queue
        st.phase = "doubling"
        self._next_double(st)

    def _next_double(self, st: DoudizhuState) -> None:
        nxt = next((s for s in st.double_queue if s not in st.doubles), None)
        if nxt is not None:
            st.turn = nxt
            return
        if st.kitty_shown:
            self._start_play(st)
        else:
            st.turn, st.phase = None, "reveal"

    def _start_play(self, st: DoudizhuState) -> None:
        st.phase = "playing"
        st.turn = st.landlord

    def _play(self, st: DoudizhuState, seat: int, cards: Sequence[str], shape: Shape) -> None:
        hand = st.hands[seat]
        for c in cards:
            hand.remove(c if c in hand else HIDDEN)
        st.played[seat] += 1
        st.bombs += shape.kind is Kind.BOMB
        st.rockets += shape.kind is Kind.ROCKET
        st.history.append((seat, shape.text() + " " + " ".join(cards)))
        st.trick, st.passes = (seat, shape), 0
        if not hand:
            st.first_out, st.turn, st.phase = seat, None, "done"
            return
        st.turn = st.next_seat(seat)

    def next_deal(self, st: DoudizhuState) -> g.DealRequest | None:
        if st.phase == "dice":
            return g.DealRequest(dice=1, faces=(DIE_FACES,))
        if st.phase == "dealing":
            r = self.rules
            deals = [g.Deal(f"seat:{s}", False) for _ in range(r.hand_cards) for s in st.order]
            deals += [g.Deal(KITTY, False)] * r.kitty_cards
            return g.DealRequest(cards=tuple(deals))
        if st.phase == "reveal":
            return g.DealRequest(reveal=(KITTY,))
        return None

    def is_over(self, st: DoudizhuState) -> bool:
        return st.phase == "done"

    # -- 托管 ----------------------------------------------------------------------------
    def auto_bid(self, st: DoudizhuState, seat: int) -> int:
        """The bid made for a player in 托管: none in 加倍斗地主 (1.1.7: 系统托管不会对用户进行
        自动叫分); otherwise by strength - 2 per bomb and for the rocket, 1 per 2 and per
        joker: 3 from 7, 2 from 5, 1 from 3, if above the bids so far."""
        if self.rules.auto_bid is AutoBid.NEVER:
            return 0
        c = counts(st.hands[seat])
        strength = sum(2 for v, n in c.items() if n == 4)
        strength += 2 if c[SMALL_JOKER] and c[BIG_JOKER] else 0
        strength += c[TWO] + c[SMALL_JOKER] + c[BIG_JOKER]
        points = 3 if strength >= 7 else 2 if strength >= 5 else 1 if strength >= 3 else 0
        return points if points > st.top_bid else 0

    def auto_play(self, st: DoudizhuState, seat: int) -> Play | None:
        """The 托管 play (:func:`~croupier.games.shedding.generator.choose`); None: pass."""
        table = st.trick if st.trick is not None and st.trick[0] != seat else None
        if table is None:
            return choose(st.hands[seat], None, rules=self.rules.moves)
        on_table, shape = table
        partner = st.landlord is not None and seat != st.landlord and on_table != st.landlord
        return choose(
            st.hands[seat],
            shape,
            partner_on_table=partner,
            opponent_cards_left=len(st.hands[on_table]),
            rules=self.rules.moves,
        )

    def auto_action(self, state: DoudizhuState) -> tuple[int, str, dict[str, Any]] | None:
        turn = self.to_act(state)
        if turn is None:
            return None
        seat, phase = turn
        if phase == "bidding":
            return seat, "bid", {"points": self.auto_bid(state, seat)}
        if phase == "grabbing":
            return seat, "grab", {"grab": False}
        if phase == "doubling":
            return seat, "double", {"double": False}
        play = self.auto_play(state, seat)
        if play is None:
            return seat, "pass", {}
        return seat, "play", play.args()

    def legal_plays(self, st: DoudizhuState, seat: int) -> list[Play]:
        """Every play open to ``seat`` now (passing aside)."""
        table = st.trick[1] if st.trick is not None and st.trick[0] != seat else None
        return legal_moves(st.hands[seat], table, self.rules.moves)

    # -- results -------------------------------------------------------------------------
    def result(self, st: DoudizhuState) -> Result:
        if st.landlord is None or st.first_out is None:
            raise InvalidInput(f"hand {st.hand_id} has no result (void or unfinished)")
        r = self.rules
        landlord_wins = st.first_out == st.landlord
        farmers = self._farmers(st)
        spring = landlord_wins and all(st.played[f] == 0 for f in farmers)
        anti = not landlord_wins and st.played[st.landlord] == 1
        multiple = r.bomb_factor**st.bombs * r.rocket_factor**st.rockets
        multiple *= r.spring_factor if spring else 1
        multiple *= r.anti_spring_factor if anti else 1
        doubling = {s: r.double_factor if st.doubles.get(s) else 1 for s in st.order}
        if r.doubling is Doubling.ALL:
            multiple *= doubling[st.landlord]  # the landlord's 加倍 doubles both claims
        return Result(
            landlord_wins=landlord_wins,
            spring=spring,
            anti_spring=anti,
            multiple=multiple,
            bid=st.top_bid,
            grab_factor=r.grab_factor ** sum(1 for _, gr in st.grabs if gr) if r.grab else 1,
            doubling={f: doubling[f] for f in farmers},
        )

    def outcome(self, st: DoudizhuState) -> dict[str, Any]:
        out: dict[str, Any] = {
            "first_bidder": st.first_bidder,
            "die": st.die,
            "bids": [[s, p] for s, p in st.bids],
        }
        if st.void:
            out["void"] = True
            return out
        res = self.result(st)
        assert st.landlord is not None and st.first_out is not None
        out.update(
            {
                "void": False,
                "landlord": st.landlord,
                "bid": res.bid,
                "grabs": [[s, gr] for s, gr in st.grabs],
                "grab_factor": res.grab_factor,
                "doubles": {str(s): d for s, d in sorted(st.doubles.items())},
                "kitty": list(st.kitty),
                "bombs": st.bombs,
                "rockets": st.rockets,
                "spring": res.spring,
                "anti_spring": res.anti_spring,
                "multiple": res.multiple,
                "winner": "landlord" if res.landlord_wins else "farmers",
                "first_out": st.first_out,
                "plays": dict(sorted((str(s), n) for s, n in st.played.items())),
                "left": {str(s): sort_cards(st.hands[s]) for s in st.order},
            }
        )
        return out

    def claims_and_rules(self, st: DoudizhuState) -> tuple[list[Any], list[CapRule], str]:
        r = self.rules
        res = self.result(st)
        assert st.landlord is not None
        name = {s: st.seats[s].player for s in st.order}
        landlord = name[st.landlord]
        farmers = [name[f] for f in self._farmers(st)]
        with_doubling = r.doubling is not Doubling.NONE
        claims = doudizhu_claims(
            landlord=landlord,
            farmers=farmers,
            base=r.base,
            bid=res.bid,
            multiple=res.multiple,
            landlord_wins=res.landlord_wins,
            grab=res.grab_factor,
            doubling={name[f]: d for f, d in res.doubling.items()} if with_doubling else None,
        )
        caps: list[CapRule] = []
        if r.cap is Cap.DOUDIZHU:
            caps = [doudizhu_cap()]
        elif r.cap is Cap.DOUBLING:
            caps = list(doudizhu_doubling_caps(landlord))
        source = SOURCE_DOUDIZHU_DOUBLING if r.grab else SOURCE_DOUDIZHU
        return claims, caps, source

    def settle(self, st: DoudizhuState) -> SettlementResult:
        r = self.rules
        participants = [st.seats[s].player for s in st.order]
        if st.void:
            return settle([], participants=participants, hand_id=st.hand_id, source="void hand")
        claims, caps, source = self.claims_and_rules(st)
        assert st.landlord is not None
        carried = {st.seats[s].player: st.seats[s].stack for s in st.order}
        rake = RakePolicy(r.rake, source=r.rake_source) if r.rake else NO_RAKE
        return settle(
            claims,
            participants=participants,
            caps=caps,
            liability=[
                DouDizhuThreeStep(st.seats[st.landlord].player, carried, source=r.liability_source)
            ],
            rake=rake,
            hand_id=st.hand_id,
            source=source,
        )

    # -- bare hands ---------------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval CARDS..``: every reading of each set of cards; ``compare TABLE PLAY``:
        whether a reading of the second beats a reading of the first."""
        too_many = "a card appears twice in one 54-card deck"
        return describe_moves(action, hands, self.rules.moves, 1, too_many)
