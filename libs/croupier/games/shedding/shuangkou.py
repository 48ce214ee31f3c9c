"""The 百变双扣 engine (``shuangkou``; ``004_5b64d410fb5765b6.txt``, 百变双扣游戏规则), on
the shared move engine (:mod:`croupier.games.shedding.moves`, with the config's rules:
the big joker wild (财神), bombs of four cards and more, 三王/天王, chains of bombs, star
levels; the same as :data:`~croupier.games.shedding.moves.SHUANGKOU`).

The hand, as events (no bets: the stake is the 底注, ``base`` in the config):

1. ``betting.closed``; the dealer rolls one four-faced die (``dice.rolled``, faces
   ``[4]``; 1 = the lowest seat): that seat is 庄 and leads (庄: 由系统随机产生).
2. ``card.dealt``: 27 cards to each of the four seats, round by round in seat order, all
   face down, from two 54-card decks.
3. Play from 庄 round the table in ``play.direction`` (004 2、出牌: 逆时针,
   counter-clockwise; seat numbers increase clockwise, so the next lower seat still
   holding cards plays next): ``play``
   ``{"cards": [...], "move": kind, "rank": r}`` or ``pass``. A trick ends when every
   other player still holding cards has passed; its winner leads. If the winner has
   just gone out, the partner leads (接风). Partners sit opposite: the first and third
   seat against the second and fourth.
4. The hand ends when both players of one side are out. The side of the first player
   out wins: 双扣 (partner second) 3 基础分 to each winner from each loser's pair, 单扣
   (partner third) 2, 平扣 (partner last) 1; doubled for the winners' best bomb from 5
   stars up to 8 (x2, x4, x8, x16); every bomb of 6 stars or more played collects 2, 4,
   8, 16, 32 or 64 基础分 (6..11 stars) from each of the other three players.

Readings taken where the seed is loose (recorded in ``seeds/variants/shuangkou.json``
and pinned in the tests): stars count the bombs *played* in the hand (what the events
show); "胜方有五星" is the winning side's best single bomb; contributions are per bomb.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from croupier.errors import ActionRejected, BetRejected, ConfigError, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.common import Checked
from croupier.games.registry import register_family
from croupier.games.shedding.common import (
    HIDDEN,
    Direction,
    Move,
    check_deal,
    check_die,
    parse_action,
    play_direction,
)
from croupier.games.shedding.generator import choose, legal_moves
from croupier.games.shedding.moves import (
    BOMBS,
    MoveRules,
    Play,
    Shape,
    check_play,
    describe_moves,
    holds,
    parse_play_cards,
    parse_shape,
    sort_cards,
    stars,
)
from croupier.money import (
    NO_RAKE,
    Claim,
    ProportionalToCarried,
    RakePolicy,
    SettlementResult,
    settle,
)

SOURCE_SHUANGKOU = "004 百变双扣游戏规则 积分计算 (双扣 3 / 单扣 2 / 平扣 1 基础分, 星级翻倍, 贡献)"
ACTION_ARGS = {"play": {"cards", "move", "rank"}, "pass": set()}
RESULT_NAMES = {3: "双扣", 2: "单扣", 1: "平扣"}


@dataclass(frozen=True, slots=True)
class ShuangkouRules:
    hand_cards: int
    base: int
    points: dict[int, int]  # the partner's finishing place (2, 3, 4) -> 基础分
    double_from: int  # stars from which the result doubles (5)
    double_upto: int  # stars above which it doubles no more (8)
    contribution_from: int  # stars from which a bomb collects (6)
    contribution_upto: int  # the highest star level in the table (11)
    rake: Fraction
    rake_source: str
    liability_source: str
    moves: MoveRules
    direction: Direction = Direction.COUNTER_CLOCKWISE  # 004 2、出牌: 逆时针

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> ShuangkouRules:
        def v(node: Any) -> Any:
            return node["value"] if isinstance(node, Mapping) and "value" in node else node

        try:
            pts = raw["points"]
            rules = cls(
                hand_cards=int(raw["deal"]["hand"]),
                base=int(v(raw["base"])),
                points={2: int(pts["double"]), 3: int(pts["single"]), 4: int(pts["flat"])},
                double_from=int(raw["star_doubling"]["from"]),
                double_upto=int(raw["star_doubling"]["upto"]),
                contribution_from=int(raw["contribution"]["from"]),
                contribution_upto=int(raw["contribution"]["upto"]),
                rake=Fraction(str(v(raw["rake"]))),
                rake_source=str(raw["rake"]["source"]),
                liability_source=str(raw["liability"]["source"]),
                moves=MoveRules.from_config(raw["moves"]),
                direction=play_direction(raw),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"shuangkou config: {e!r}") from e
        if v(raw["liability"]) != "proportional_to_carried":
            raise ConfigError("shuangkou liability is proportional_to_carried")
        if rules.base <= 0 or not 0 <= rules.rake < 1:
            raise ConfigError("shuangkou: base > 0 and 0 <= rake < 1")
        return rules

    def multiplier(self, best_stars: int) -> int:
        """x2 at ``double_from`` stars, doubling again per star up to ``double_upto``."""
        if best_stars < self.double_from:
            return 1
        return int(2 ** (min(best_stars, self.double_upto) - self.double_from + 1))

    def contribution(self, bomb_stars: int) -> int:
        """基础分 a bomb of ``bomb_stars`` collects from each other player (6 stars: 2)."""
        if bomb_stars < self.contribution_from:
            return 0
        return int(2 ** (min(bomb_stars, self.contribution_upto) - self.contribution_from + 1))


@dataclass
class ShuangkouState(g.HandState):
    order: list[int] = field(default_factory=list)  # seats, lowest first
    step: int = -1  # the turn passes to the next lower seat (-1) or higher (+1)
    first: int | None = None  # 庄
    die: int | None = None
    hands: dict[int, list[str]] = field(default_factory=dict)
    turn: int | None = None
    trick: tuple[int, Shape] | None = None
    passes: int = 0
    out: list[int] = field(default_factory=list)  # finishing order
    bombs: list[tuple[int, Shape]] = field(default_factory=list)
    history: list[tuple[int, str]] = field(default_factory=list)

    def partner(self, seat: int) -> int:
        return self.order[(self.order.index(seat) + 2) % 4]

    def team(self, seat: int) -> int:
        return self.order.index(seat) % 2

    def active(self, seat: int) -> bool:
        return bool(self.hands[seat])

    def next_active(self, seat: int) -> int:
        i = self.order.index(seat)
        for k in range(1, 5):
            s = self.order[(i + k * self.step) % 4]
            if self.active(s):
                return s
        return seat

    def side_out(self) -> bool:
        return any(sum(1 for s in self.out if self.team(s) == t) == 2 for t in (0, 1))


@dataclass(frozen=True, slots=True)
class ShuangkouResult:
    winners: tuple[int, int]
    losers: tuple[int, int]
    partner_place: int  # 2, 3 or 4
    points: int
    best_stars: int
    multiplier: int


def _star_levels(shapes: list[Shape]) -> dict[str, Any]:
    return {"stars": [stars(x) for x in shapes]}


@register_family
class ShuangkouEngine(g.Engine[ShuangkouState]):
    family = "shuangkou"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        self.rules = ShuangkouRules.from_config(config.raw)
        self.checked: Checked[Move] = Checked()
        g.require_deck(config, "cards54", 2)
        if 4 * self.rules.hand_cards != 108:
            raise ConfigError("shuangkou deals the whole 108 cards to four players")

    # -- lifecycle ---------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> ShuangkouState:
        o = g.parse_opened(payload, min_seats=4, max_seats=4)
        order = sorted(o.seats)
        return ShuangkouState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            step=self.rules.direction.step,
            hands={s: [] for s in order},
        )

    def to_act(self, st: ShuangkouState) -> int | None:
        if st.closed or st.phase != "playing":
            return None
        return st.turn

    def _table(self, st: ShuangkouState, seat: int) -> Shape | None:
        return st.trick[1] if st.trick is not None and st.trick[0] != seat else None

    # -- checks ------------------------------------------------------------------------
    def verify_action(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        seat, action, args = parse_action(p, ACTION_ARGS)
        st.seat(seat)
        if st.phase != "playing":
            raise ActionRejected(f"no {action} now: the hand is {st.phase}", reason="wrong_phase")
        if seat != st.turn:
            raise ActionRejected(
                f"it is not seat {seat}'s turn (seat {st.turn} is to act)", reason="out_of_turn"
            )
        if action == "pass":
            if st.trick is None:
                raise ActionRejected("the player leading must play", reason="must_lead")
            self.checked.keep(p, Move(seat, action, args))
            return
        cards = parse_play_cards(args.get("cards"))
        if not holds(st.hands[seat], cards):
            short = Counter(cards) - Counter(st.hands[seat])
            raise ActionRejected(
                f"seat {seat} does not hold {' '.join(sort_cards(short.elements()))}",
                reason="not_in_hand",
            )
        declared = parse_shape(args, len(cards))
        shape = check_play(cards, declared, self._table(st, seat), self.rules.moves)
        self.checked.keep(p, Move(seat, action, args, tuple(cards), shape))

    def verify_bet(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        raise BetRejected(f"{self.variant} takes no bets: the stake is the 底注", reason="no_bets")

    def verify_dice(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        if st.phase != "dice":
            raise RuleViolation("no die is due now", reason="illegal_roll")
        check_die(p, 4, "庄 (the first player)")

    def verify_cards(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        check_deal(self.next_deal(st), p, self.config.deck.copies)

    # -- events ------------------------------------------------------------------------
    def apply_betting_closed(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        st.phase = "dice"

    def apply_dice(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        st.die = int(p["dice"][0])
        st.first = st.order[st.die - 1]
        st.phase = "dealing"

    def apply_cards(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        for c in p["cards"]:
            st.positions.append(int(c["pos"]))
            st.hands[int(str(c["to"]).split(":")[1])].append(str(c["card"]))
        st.phase, st.turn = "playing", st.first

    def apply_action(self, st: ShuangkouState, p: Mapping[str, Any]) -> None:
        move = self.checked.of(p)
        if move is None:
            seat, action, args = parse_action(p, ACTION_ARGS)
            if action == "pass":
                self._pass(st, seat)
                return
            cards = [str(c) for c in args["cards"]]
            shape = check_play(cards, parse_shape(args, len(cards)), None, self.rules.moves)
            self._play(st, seat, cards, shape)
        elif move.shape is None:
            self._pass(st, move.seat)
        else:
            self._play(st, move.seat, move.cards, move.shape)

    def _play(self, st: ShuangkouState, seat: int, cards: Sequence[str], shape: Shape) -> None:
        hand = st.hands[seat]
        for c in cards:
            hand.remove(c if c in hand else HIDDEN)
        if shape.kind in BOMBS:
            st.bombs.append((seat, shape))
        st.history.append((seat, shape.text() + " " + " ".join(cards)))
        st.trick, st.passes = (seat, shape), 0
        if not hand:
            st.out.append(seat)
            if st.side_out():
                st.phase, st.turn = "done", None
                return
        st.turn = st.next_active(seat)

    def _pass(self, st: ShuangkouState, seat: int) -> None:
        assert st.trick is not None
        st.history.append((seat, "pass"))
        st.passes += 1
        owner = st.trick[0]
        others = sum(1 for s in st.order if st.active(s) and s != owner)
        if st.passes < others:
            st.turn = st.next_active(seat)
            return
        st.trick, st.passes = None, 0
        st.turn = owner if st.active(owner) else st.partner(owner)  # 接风

    def next_deal(self, st: ShuangkouState) -> g.DealRequest | None:
        if st.phase == "dice":
            return g.DealRequest(dice=1, faces=(4,))
        if st.phase == "dealing":
            n = self.rules.hand_cards
            return g.DealRequest(
                cards=tuple(g.Deal(f"seat:{s}", False) for _ in range(n) for s in st.order)
            )
        return None

    def is_over(self, st: ShuangkouState) -> bool:
        return st.phase == "done"

    # -- 托管 ----------------------------------------------------------------------------
    def legal_plays(self, st: ShuangkouState, seat: int) -> list[Play]:
        return legal_moves(st.hands[seat], self._table(st, seat), self.rules.moves)

    def auto_play(self, st: ShuangkouState, seat: int) -> Play | None:
        """The 托管 play (004 5、玩家逃跑: auto-played to the end); None: pass."""
        table = self._table(st, seat)
        if table is None or st.trick is None:
            return choose(st.hands[seat], None, rules=self.rules.moves)
        owner = st.trick[0]
        return choose(
            st.hands[seat],
            table,
            partner_on_table=owner == st.partner(seat),
            opponent_cards_left=len(st.hands[owner]),
            rules=self.rules.moves,
        )

    def auto_action(self, state: ShuangkouState) -> tuple[int, str, dict[str, Any]] | None:
        seat = self.to_act(state)
        if seat is None:
            return None
        play = self.auto_play(state, seat)
        if play is None:
            return seat, "pass", {}
        return seat, "play", play.args()

    # -- results -------------------------------------------------------------------------
    def result(self, st: ShuangkouState) -> ShuangkouResult:
        if not st.side_out():
            raise InvalidInput(f"hand {st.hand_id} is not finished")
        first = st.out[0]
        partner = st.partner(first)
        place = st.out.index(partner) + 1 if partner in st.out else 4
        losers = tuple(s for s in st.order if st.team(s) != st.team(first))
        best = max((stars(sh) for s, sh in st.bombs if st.team(s) == st.team(first)), default=0)
        return ShuangkouResult(
            winners=(min(first, partner), max(first, partner)),
            losers=(losers[0], losers[1]),
            partner_place=place,
            points=self.rules.points[place],
            best_stars=best,
            multiplier=self.rules.multiplier(best),
        )

    def outcome(self, st: ShuangkouState) -> dict[str, Any]:
        res = self.result(st)
        return {
            "first": st.first,
            "die": st.die,
            "out": list(st.out),
            "winners": list(res.winners),
            "result": RESULT_NAMES[res.points],
            "points": res.points,
            "best_stars": res.best_stars,
            "multiplier": res.multiplier,
            "bombs": [[s, sh.text(), stars(sh)] for s, sh in st.bombs],
            "contributions": [
                [s, stars(sh), self.rules.contribution(stars(sh))]
                for s, sh in st.bombs
                if self.rules.contribution(stars(sh))
            ],
            "left": {str(s): sort_cards(st.hands[s]) for s in st.order},
        }

    def claims(self, st: ShuangkouState) -> list[Claim]:
        res = self.result(st)
        name = {s: st.seats[s].player for s in st.order}
        base = self.rules.base
        out = [
            Claim(name[loser], name[winner], base, (res.points, res.multiplier), "result")
            for loser, winner in zip(res.losers, res.winners, strict=True)
        ]
        for owner, sh in st.bombs:
            c = self.rules.contribution(stars(sh))
            if c:
                out += [
                    Claim(name[s], name[owner], base, (c,), "contribution")
                    for s in st.order
                    if s != owner
                ]
        return out

    def settle(self, st: ShuangkouState) -> SettlementResult:
        r = self.rules
        carried = {st.seats[s].player: st.seats[s].stack for s in st.order}
        return settle(
            self.claims(st),
            participants=[st.seats[s].player for s in st.order],
            liability=[ProportionalToCarried(carried, source=r.liability_source)],
            rake=RakePolicy(r.rake, source=r.rake_source) if r.rake else NO_RAKE,
            hand_id=st.hand_id,
            source=SOURCE_SHUANGKOU,
        )

    # -- bare hands ---------------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval CARDS..``: every reading (with its star level); ``compare TABLE PLAY``:
        whether a reading of the second beats a reading of the first."""
        too_many = "a card appears at most twice in two decks"
        return describe_moves(action, hands, self.rules.moves, 2, too_many, _star_levels)
