"""The mahjong engine: one engine for 血战麻将 (``mahjong.xuezhan``, 000), 血战到底麻将
(``mahjong.xuezhan_daodi``, 004) and 广东麻将推倒胡 (``mahjong.guangdong``, 000). Every
difference between them is a field of :class:`~.rules.Rules`, read from the variant's
config.

The hand, as events (no betting: the dealer closes the empty betting round at once):

1. First hand at a table (no ``carry``, or the players changed): ``dice.rolled`` with
   one die of as many faces as seats picks the dealer (庄家) among the seats in order.
2. One ``card.dealt``: 14 face-down tiles to the dealer and 13 to each other seat
   (targets ``seat:<n>``); 广东 adds one face-up tile to ``indicator``, whose successor is
   the ghost (鬼牌).
3. 换三张 (000): every seat ``swap`` ``{tiles: [three of one suit]}``; then ``dice.rolled``
   (one three-faced die) picks the direction: 1 = to the next seat (下家), 2 = opposite
   (对家), 3 = to the previous seat (上家). 定缺 (000): every seat ``que`` ``{suit}``.
4. Play, from the dealer (who holds 14): on their turn a player ``discard`` s
   ``{tile}``, declares a 杠 (``gang`` ``{tile}``: 暗杠 of four held tiles or 补杠 onto
   their 碰) or a self-drawn win (``hu``). After a discard every player who can claim it
   (胡, 碰 or 直杠) answers ``hu``, ``peng``, ``gang`` or ``pass``; the window closes
   when all have answered: every ``hu`` wins (一炮多响), else the 杠 or the 碰 is made,
   else the next player draws. A 补杠's tile is offered the same way to those who can
   win on it (抢杠胡): ``hu`` or ``pass``. Each draw is one face-down ``card.dealt``;
   a 杠 is followed by a replacement draw from the same wall.
5. 血战 (000, 004): a winner leaves play and the others play on until one player is
   left or the wall is empty; 广东 ends at the first win. At an empty wall the bloody
   variants check 花猪 and 叫 (查花猪, 查大叫) when settling.

``auto`` (``{}``) hands one decision to the 托管 policy (:meth:`MahjongEngine.advise`),
which the engine then plays as if the player had sent it: the decision of the sending
seat if the hand waits for it, else of the first seat the hand waits for (a table's
turn timer: who must answer a claim window depends on hidden tiles, so a client that
cannot see them - the demo's players - can still keep the hand moving).

Every payment (wins, 杠, 呼叫转移, the exhaustion checks) is a :class:`~.state.Pay`
derived from the events, so the rule service, settlement and the auditor get the same
ones by replaying the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from croupier.errors import ActionRejected, InvalidInput, NotationError, RuleViolation
from croupier.games import base as g
from croupier.games.common import Checked, action_fields, args_object, check_auto
from croupier.games.mahjong import payments, policy
from croupier.games.mahjong.fan import Score, WinContext, score
from croupier.games.mahjong.policy import Action
from croupier.games.mahjong.rules import GangPay, Rules, rules_from_config
from croupier.games.mahjong.state import (
    AN_GANG,
    BU_GANG,
    CLAIM,
    DEAL,
    DEALER_ROLL,
    DRAW,
    GANGS,
    MING_GANG,
    OVER,
    PENG,
    QUE,
    ROB,
    SPOT_GANG,
    SPOT_HU,
    SPOT_TRANSFER,
    SWAP,
    SWAP_ROLL,
    TURN,
    GangRecord,
    MahjongState,
    Meld,
    Pay,
    Player,
    Win,
    Window,
)
from croupier.games.mahjong.tiles import (
    N_TILES,
    SUITS,
    ghost_of,
    names,
    parse_tiles,
    suit_of,
    tile_index,
    tile_name,
)
from croupier.games.mahjong.win import Shape, could_win_with_one_more, isolated, plain_win
from croupier.games.memo import recall
from croupier.games.registry import register_family
from croupier.money import (
    Claim,
    SettlementResult,
)

SEAT = "seat:"
INDICATOR = "indicator"
HIDDEN = "??"
ACTIONS = ("swap", "que", "discard", "gang", "hu", "peng", "pass")
CLAIM_ACTIONS = ("hu", "peng", "gang", "pass")
OFFSETS = {"next": 1, "opposite": 2, "previous": 3}


def _target(seat: int) -> str:
    return f"{SEAT}{seat}"


def _tile_arg(args: Mapping[str, Any], key: str = "tile") -> int:
    try:
        return tile_index(str(args[key]))
    except (KeyError, NotationError) as e:
        raise ActionRejected(
            f"args.{key} must be a tile, got {args.get(key)!r}", reason="malformed"
        ) from e


@lru_cache(maxsize=256)
def _draw_request(seat: int) -> g.DealRequest:
    """A draw's request: one tile face down to ``seat`` (the same object each time:
    a hand asks it at every draw, and again when the tile is checked)."""
    return g.DealRequest(cards=(g.Deal(_target(seat), up=False),))


@lru_cache(maxsize=256)
def _deal_request(seats: tuple[int, ...], each: int, indicator: bool) -> g.DealRequest:
    """The deal's request: ``each`` tiles face down to each seat from the dealer on,
    one more to the dealer, and the 鬼牌 indicator face up where it is turned."""
    cards = [g.Deal(_target(s), up=False) for s in seats for _ in range(each)]
    cards.insert(each, g.Deal(_target(seats[0]), up=False))
    if indicator:
        cards.append(g.Deal(INDICATOR, up=True))
    return g.DealRequest(cards=tuple(cards))


def _ghosts_as_wilds(hand: Sequence[int], ghost: int | None) -> tuple[tuple[int, ...], int]:
    """A hand's counts with the ghost's (广东's 鬼牌) taken out as wilds: the concealed
    real tiles and the number of wilds."""
    if ghost is None or not hand[ghost]:
        return tuple(hand), 0
    return (*hand[:ghost], 0, *hand[ghost + 1 :]), hand[ghost]


@register_family
class MahjongEngine(g.Engine[MahjongState]):
    family = "mahjong"

    def __init__(self, config: g.VariantConfig) -> None:
        super().__init__(config)
        self.rules: Rules = rules_from_config(config.raw)
        base = config.deck.base
        if base not in ("mahjong108", "mahjong136") or config.deck.copies != 1:
            raise InvalidInput(f"{config.variant}: deck must be mahjong108 or mahjong136")
        self.deck_size = 108 if base == "mahjong108" else 136
        self.universe = tuple(range(27 if base == "mahjong108" else N_TILES))
        if self.rules.indicator and base != "mahjong136":
            raise InvalidInput("a ghost tile needs the 136-tile set")
        self.ready_fans: dict[tuple[Shape, frozenset[str], str | None, int | None], int | None]
        self.ready_fans = {}
        """查大叫's readings (:func:`.payments.ready_fan`) remembered by what they read: a
        closed hand's are asked by its outcome, its settlement and its claims."""
        self.checked: Checked[Action] = Checked()
        """The action last checked, by its payload, for the move that follows."""
        self.scores: dict[tuple[Shape, WinContext], Score | None] = {}
        """A win's best reading (:func:`.fan.score`) remembered by the tiles and how it
        was won: a win on a discard is scored when the claim window opens, again when
        the ``hu`` is checked and again when it is made; a self-drawn one when checked
        and when made."""
        self.one_short: dict[tuple[tuple[int, ...], int | None, bool], bool] = {}
        """Whether a hand holding wilds could win with one more tile
        (:func:`.win.could_win_with_one_more`), by its counts, the ghost and whether it
        holds melds: a hand is asked at each of the other players' discards until it
        changes."""

    # -- lifecycle -------------------------------------------------------------------
    def open(self, hand_id: str, payload: Mapping[str, Any]) -> MahjongState:
        o = g.parse_opened(payload, min_seats=self.rules.seats, max_seats=self.rules.seats)
        order = sorted(o.seats)
        st = MahjongState.from_opened(
            self.variant,
            hand_id,
            o,
            order=order,
            players={s: Player(s) for s in order},
            wall=self.deck_size,
        )
        carry = payload.get("carry") or {}
        if not isinstance(carry, Mapping):
            raise RuleViolation("carry must be an object", reason="malformed")
        players = {str(s): o.seats[s].player for s in order}
        dealer = carry.get("dealer")
        if isinstance(dealer, int) and dealer in o.seats and carry.get("players") == players:
            st.dealer = dealer
        elif not self.rules.first_dealer_die:
            st.dealer = order[0]
        return st

    # -- events (Engine's dispatch calls these hooks) ----------------------------------
    def verify_bet(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        raise ActionRejected(f"{self.variant} takes no bets", reason="no_bets")

    def apply_betting_closed(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        st.phase = "playing"
        st.step = DEAL if st.dealer is not None else DEALER_ROLL

    def apply_dice(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        roll = int(p["dice"][0])
        if st.step == DEALER_ROLL:
            st.dealer = st.order[roll - 1]
            st.step = DEAL
        else:
            self._do_swap(st, self.rules.swap_directions[roll - 1])

    def apply_cards(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        self._take_tiles(st, p["cards"])

    def apply_action(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        seat, action, args = self.checked.of(p) or self._resolve(st, p)
        self._act(st, seat, action, args)
        st.actions += 1

    def next_deal(self, st: MahjongState) -> g.DealRequest | None:
        if st.phase != "playing":
            return None
        if st.step == DEALER_ROLL:
            return g.DealRequest(dice=1, faces=(len(st.order),))
        if st.step == SWAP_ROLL:
            return g.DealRequest(dice=1, faces=(len(self.rules.swap_directions),))
        if st.step == DEAL:
            assert st.dealer is not None
            k = st.order.index(st.dealer)
            return _deal_request(
                tuple(st.order[k:] + st.order[:k]), self.rules.deal, self.rules.indicator
            )
        if st.step == DRAW:
            assert st.current is not None
            return _draw_request(st.current)
        return None

    def is_over(self, st: MahjongState) -> bool:
        return st.step == OVER

    def carry(self, st: MahjongState) -> dict[str, Any]:
        if st.dealer is None:
            return {}
        return {
            "dealer": self.next_dealer(st),
            "players": {str(s): st.seats[s].player for s in st.order},
        }

    def next_dealer(self, st: MahjongState) -> int:
        assert st.dealer is not None
        if not st.wins:
            return st.dealer  # 荒庄不下庄 / a drawn hand keeps the dealer
        if self.rules.rotation == "dealer_or_next":
            if any(w.seat == st.dealer for w in st.wins):
                return st.dealer
            return self._next_seat(st, st.dealer, everyone=True)
        first = [w for w in st.wins if w.group == st.wins[0].group]
        if len(first) > 1 and first[0].source is not None:
            return first[0].source
        return first[0].seat

    # -- dealing ---------------------------------------------------------------------
    def verify_dice(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        if req is None or not req.dice:
            raise RuleViolation("no dice are due now", reason="unexpected_dice")
        try:
            dice, faces = [int(x) for x in p["dice"]], [int(x) for x in p["faces"]]
        except (KeyError, TypeError, ValueError) as e:
            raise RuleViolation(f"malformed dice.rolled: {e}", reason="malformed") from e
        if faces != list(req.die_faces()) or len(dice) != 1 or not 1 <= dice[0] <= faces[0]:
            raise RuleViolation(
                f"dice.rolled {dice} on {faces}, the rules asked for {list(req.die_faces())}",
                reason="bad_dice",
            )

    def verify_cards(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        req = self.next_deal(st)
        if req is None or not req.cards:
            raise RuleViolation("no tiles are due now", reason="unexpected_cards")
        try:
            cards = list(p["cards"])
            got = [(str(c["to"]), bool(c["up"])) for c in cards]
            tiles = [str(c["card"]) for c in cards]
        except (KeyError, TypeError, ValueError) as e:
            raise RuleViolation(f"malformed card.dealt: {e}", reason="malformed") from e
        if got != [(d.to, d.up) for d in req.cards]:
            raise RuleViolation("card.dealt does not match what the rules asked", reason="bad_deal")
        for t in tiles:  # a viewer's redacted copy (``??``) is applied, never verified
            try:
                idx = tile_index(t)
            except NotationError as e:
                raise RuleViolation(f"{t!r} is not a tile", reason="bad_card") from e
            if idx >= len(self.universe):  # the universe is the first tiles, 0 up
                raise RuleViolation(f"{t} is not in {self.variant}'s set", reason="bad_card")

    def _take_tiles(self, st: MahjongState, cards: Sequence[Mapping[str, Any]]) -> None:
        initial = st.step == DEAL
        for c in cards:
            st.dealt += 1
            st.wall -= 1
            to, tile = str(c["to"]), str(c["card"])
            if to == INDICATOR:
                st.indicator = tile_index(tile)
                st.ghost = ghost_of(st.indicator)
                continue
            pl = st.players[int(to[len(SEAT) :])]
            if tile == HIDDEN:
                pl.hidden += 1
            else:
                pl.hand[tile_index(tile)] += 1
        if initial:
            if self.rules.swap_three:
                st.step = SWAP
            elif self.rules.ding_que:
                st.step = QUE
            else:
                self._start_play(st)
            return
        assert st.current is not None
        pl = st.players[st.current]
        pl.draws += 1
        pl.passed_win = False
        st.step = TURN
        st.self_win_ok = True

    def _start_play(self, st: MahjongState) -> None:
        st.current = st.dealer
        st.step = TURN
        st.self_win_ok = True

    def _do_swap(self, st: MahjongState, direction: str) -> None:
        st.swap_direction = direction
        n = len(st.order)
        off = OFFSETS[direction]
        for i, s in enumerate(st.order):
            to = st.players[st.order[(i + off) % n]]
            for t in st.players[s].swap or []:
                to.hand[t] += 1
        st.step = QUE if self.rules.ding_que else TURN
        if st.step == TURN:
            self._start_play(st)

    # -- who acts --------------------------------------------------------------------
    def to_act(self, st: MahjongState) -> list[int]:
        """The seats whose decision the hand is waiting for."""
        if st.phase != "playing":
            return []
        if st.step == SWAP:
            return [s for s in st.order if st.players[s].swap is None]
        if st.step == QUE:
            return [s for s in st.order if st.players[s].que is None]
        if st.step == TURN and st.current is not None:
            return [st.current]
        if st.step in (CLAIM, ROB) and st.window is not None:
            return [s for s in st.window.eligible if s not in st.window.answers]
        return []

    def _next_seat(self, st: MahjongState, seat: int, *, everyone: bool = False) -> int:
        k = st.order.index(seat)
        for i in range(1, len(st.order) + 1):
            s = st.order[(k + i) % len(st.order)]
            if everyone or not st.players[s].won:
                return s
        return seat

    def _from(self, st: MahjongState, seat: int) -> list[int]:
        """The other seats in turn order after ``seat``."""
        k = st.order.index(seat)
        return [st.order[(k + i) % len(st.order)] for i in range(1, len(st.order))]

    def in_play(self, st: MahjongState) -> list[int]:
        return [s for s in st.order if not st.players[s].won]

    # -- hands -----------------------------------------------------------------------
    def shape(self, st: MahjongState, pl: Player, extra: int | None = None) -> Shape:
        hand = list(pl.hand)
        if extra is not None:
            hand[extra] += 1
        concealed, wilds = _ghosts_as_wilds(hand, st.ghost)
        return Shape(
            concealed,
            wilds,
            tuple(m.tile for m in pl.melds),
            tuple(m.size for m in pl.melds),
        )

    def suits_held(self, pl: Player, extra: int | None = None) -> set[str]:
        tiles = {t for t in range(N_TILES) if pl.hand[t]} | {m.tile for m in pl.melds}
        if extra is not None:
            tiles.add(extra)
        return {suit_of(t) for t in tiles} - {"z"}

    def only_ghosts(self, st: MahjongState, pl: Player) -> bool:
        g_ = st.ghost
        return g_ is not None and sum(pl.hand) > 0 and sum(pl.hand) == pl.hand[g_]

    def win_refusal(
        self, st: MahjongState, seat: int, tile: int | None, how: str, window: Window | None
    ) -> tuple[str, str] | Score:
        """The score of ``seat`` winning now (``tile`` the discard or robbed tile, None
        for a self-draw; ``window`` the claim or rob window, None for a self-draw), or
        ``(reason, message)`` why not. The tiles are judged first: most hands asked
        about (every other player's, at each discard) are no win, and need no
        :class:`WinContext`."""
        pl = st.players[seat]
        forms = self.rules.fan.forms
        wilds = st.ghost is not None and (pl.hand[st.ghost] > 0 or tile == st.ghost)
        if not wilds:  # the counts judged before a shape is built (most are no win)
            counts = list(pl.hand)
            if tile is not None:
                counts[tile] += 1
            if not plain_win(tuple(counts), len(pl.melds), forms):
                return "not_a_win", f"seat {seat}'s hand is not a winning hand"
        shape = self.shape(st, pl, tile)
        if wilds and not shape.is_win(forms):
            return "not_a_win", f"seat {seat}'s hand is not a winning hand"
        ghost_hand = self.rules.ghost_only_wins and self.only_ghosts(st, pl)
        sc = recall(self.scores, (shape, self._ctx(st, seat, how, window)), self._score)
        if sc is None:
            return "not_a_win", f"seat {seat}'s hand is not a winning hand"
        if len(self.suits_held(pl, tile)) > self.rules.max_suits:
            return "too_many_suits", f"a win holds at most {self.rules.max_suits} suits"
        if self.holds_que(pl, tile):
            return "que_suit_held", f"seat {seat} still holds its 定缺 suit {pl.que}"
        if how != "self_draw" and pl.passed_win:
            return "passed_win", f"seat {seat} passed a win and waits for its own draw (过手)"
        if (
            how == "discard"
            and self.rules.discard_win_needs_fan
            and sc.shape_fan == 0
            and not ghost_hand
        ):
            return "chicken_by_discard", "鸡胡 wins only by self-draw or 抢杠"
        return sc

    def _score(self, key: tuple[Shape, WinContext]) -> Score | None:
        return score(*key, self.rules.fan)

    def _ctx(self, st: MahjongState, seat: int, how: str, window: Window | None) -> WinContext:
        pl = st.players[seat]
        gangs = sum(1 for m in pl.melds if m.kind in GANGS)
        if how == "self_draw":
            first = st.quiet and not pl.discards
            return WinContext(
                self_draw=True,
                gang_flower=st.after_gang is not None,
                last_tile=st.wall == 0,
                tian_hu=first and seat == st.dealer and pl.draws == 0,
                di_hu=first and seat != st.dealer and pl.draws == 1,
                gangs=gangs,
            )
        assert window is not None
        return WinContext(
            gang_shot=how == "discard" and window.gang_shot is not None,
            rob_gang=how == "rob",
            di_hu=(
                self.rules.di_hu_on_dealer_discard
                and window.dealer_first
                and seat != st.dealer
                and pl.draws == 0
            ),
            gangs=gangs,
        )

    def forced(self, st: MahjongState, seat: int) -> bool:
        """Must ``seat`` take the win open to it now (004's last four tiles; 广东's
        drawn ghost with only ghosts in hand)?"""
        n = self.rules.forced_win_tiles
        if n and st.wall < n:
            return True
        pl = st.players[seat]
        return (
            self.rules.ghost_only_wins
            and st.step == TURN
            and st.self_win_ok
            and self.only_ghosts(st, pl)
        )

    def can_win(self, st: MahjongState, seat: int) -> Score | None:
        """The score if the seat to act can win now (its turn or its claim)."""
        if st.step == TURN and seat == st.current and st.self_win_ok:
            r = self.win_refusal(st, seat, None, "self_draw", None)
        elif st.step in (CLAIM, ROB) and st.window is not None and seat in st.window.eligible:
            return self._win_on(st, seat, st.window)
        else:
            return None
        return r if isinstance(r, Score) else None

    def _win_on(self, st: MahjongState, seat: int, w: Window) -> Score | None:
        if self._no_win_on(st, st.players[seat], w.tile):
            return None
        how = "discard" if w.kind == CLAIM else "rob"
        r = self.win_refusal(st, seat, w.tile, how, w)
        return r if isinstance(r, Score) else None

    @staticmethod
    def holds_que(pl: Player, tile: int | None = None) -> bool:
        """Whether ``pl``'s hand, melds or ``tile`` hold its 定缺 suit (no win while
        they do): ``pl.que in suits_held(pl, tile)``, read from the suit's nine counts."""
        que = pl.que
        if que is None:
            return False
        base = SUITS.index(que) * 9
        return (
            (tile is not None and suit_of(tile) == que)
            or any(pl.hand[base : base + 9])
            or any(base <= m.tile < base + 9 for m in pl.melds)
        )

    def _no_win_on(self, st: MahjongState, pl: Player, tile: int) -> bool:
        """A cheap proof that :meth:`win_refusal` refuses ``pl`` a win on ``tile``
        whatever its reason (a discard is asked of every other player): the hand, its
        melds or the tile hold the 定缺 suit (its refusal, hoisted before the tiles are
        judged); or, with no wilds in hand, the tile is isolated — no copy held and no
        tile of its suit next to it (every 顺子 holding it holds a neighbour) — so it
        stands in no set and no pair, and the tiles win in no form (thirteen orphans,
        where it is played, only when the tile is a 幺九 and so is every tile held); or,
        with wilds in hand or the tile a wild (the hands whose every judgement is the
        wild search), no tile at all could make the hand a win (it is not one tile
        short: :func:`.win.could_win_with_one_more`, remembered by the hand)."""
        if self.holds_que(pl, tile):
            return True
        h = pl.hand
        ghost = st.ghost
        if ghost is None or not (h[ghost] or tile == ghost):
            return isolated(h, tile, self.rules.fan.forms)
        if h[tile] >= 4:  # no fifth copy comes: not a question for the proof below
            return False
        key = (tuple(h), ghost, bool(pl.melds))
        return not recall(self.one_short, key, self._one_short)

    def _one_short(self, key: tuple[tuple[int, ...], int | None, bool]) -> bool:
        hand, ghost, melded = key
        concealed, wilds = _ghosts_as_wilds(hand, ghost)
        return could_win_with_one_more(concealed, wilds, melded, self.rules.fan.forms)

    def can_peng(self, st: MahjongState, seat: int, tile: int) -> bool:
        pl = st.players[seat]
        if pl.hand[tile] < 2 or tile == st.ghost:
            return False
        if st.ghost is not None:
            left = sum(pl.hand) - 2
            if left == pl.hand[st.ghost]:  # only ghosts would be left to discard
                return False
        return True

    def can_ming_gang(self, st: MahjongState, seat: int, tile: int) -> bool:
        return st.players[seat].hand[tile] >= 3 and tile != st.ghost and st.wall > 0

    def gang_options(self, st: MahjongState, seat: int) -> list[tuple[int, str]]:
        """The 暗杠 and 补杠 the player on turn may declare."""
        pl = st.players[seat]
        if st.wall == 0:
            return []
        out = [(t, AN_GANG) for t in range(N_TILES) if pl.hand[t] == 4 and t != st.ghost]
        out += [(m.tile, BU_GANG) for m in pl.melds if m.kind == PENG and pl.hand[m.tile]]
        return sorted(out)

    # -- actions ---------------------------------------------------------------------
    def _parse(self, p: Mapping[str, Any]) -> tuple[int, str, Mapping[str, Any]]:
        seat, action, raw = action_fields(p)
        if action not in ACTIONS:
            raise ActionRejected(
                f"unknown action {action!r}; one of {', '.join(ACTIONS)}", reason="unknown_action"
            )
        args = args_object(raw)
        check_auto(args)
        return seat, action, args

    def _resolve(self, st: MahjongState, p: Mapping[str, Any]) -> Action:
        seat, action, args = self._parse(p)
        return seat, action, {k: v for k, v in args.items() if k != "auto"}

    def verify_action(self, st: MahjongState, p: Mapping[str, Any]) -> None:
        if st.phase != "playing":
            raise ActionRejected("the hand has not started", reason="not_in_play")
        seat, action, args = self.checked.keep(p, self._resolve(st, p))
        st.seat(seat)
        pl = st.players[seat]
        if pl.won:
            raise ActionRejected(f"seat {seat} has won and left play", reason="already_won")
        if pl.hidden:
            raise ActionRejected("the rules cannot check a hidden hand", reason="hidden")
        if seat not in self.to_act(st):
            raise ActionRejected(f"it is not seat {seat}'s decision now", reason="out_of_turn")
        if st.step == SWAP:
            self._verify_swap(pl, action, args)
        elif st.step == QUE:
            if action != "que" or args.get("suit") not in SUITS:
                raise ActionRejected("定缺: que with a suit m, p or s", reason="bad_que")
        elif st.step == TURN:
            self._verify_turn(st, seat, action, args)
        else:
            self._verify_claim(st, seat, action)

    def _verify_swap(self, pl: Player, action: str, args: Mapping[str, Any]) -> None:
        if action != "swap":
            raise ActionRejected("换三张: choose three tiles of one suit", reason="bad_swap")
        raw = args.get("tiles")
        if not isinstance(raw, list) or len(raw) != 3:
            raise ActionRejected("换三张 takes exactly three tiles", reason="bad_swap")
        try:
            tiles = parse_tiles([str(x) for x in raw])
        except NotationError as e:
            raise ActionRejected(str(e), reason="malformed") from e
        if len({suit_of(t) for t in tiles}) != 1:
            raise ActionRejected("换三张: the three tiles must be of one suit", reason="bad_swap")
        for t in set(tiles):
            if pl.hand[t] < tiles.count(t):
                raise ActionRejected(f"{tile_name(t)} is not in hand", reason="not_in_hand")

    def _verify_turn(
        self, st: MahjongState, seat: int, action: str, args: Mapping[str, Any]
    ) -> None:
        pl = st.players[seat]
        if action == "hu":
            if not st.self_win_ok:
                raise ActionRejected("no self-drawn win without a draw", reason="not_a_win")
            r = self.win_refusal(st, seat, None, "self_draw", None)
            if not isinstance(r, Score):
                raise ActionRejected(r[1], reason=r[0])
            return
        if action not in ("discard", "gang"):
            raise ActionRejected(
                f"on your turn: discard, gang or hu, not {action}", reason="bad_action"
            )
        if self.forced(st, seat) and self.can_win(st, seat) is not None:
            raise ActionRejected("this win must be taken", reason="forced_win")
        t = _tile_arg(args)
        if action == "discard":
            if pl.hand[t] < 1:
                raise ActionRejected(f"{tile_name(t)} is not in hand", reason="not_in_hand")
            if t == st.ghost:
                raise ActionRejected(
                    "a ghost tile (鬼牌) is never discarded", reason="ghost_discard"
                )
            return
        if (t, AN_GANG) not in self.gang_options(st, seat) and (
            t,
            BU_GANG,
        ) not in self.gang_options(st, seat):
            raise ActionRejected(f"no 杠 of {tile_name(t)} now", reason="no_gang")

    def _verify_claim(self, st: MahjongState, seat: int, action: str) -> None:
        w = st.window
        assert w is not None
        allowed = ("hu", "pass") if w.kind == ROB else CLAIM_ACTIONS
        if action not in allowed:
            raise ActionRejected(f"now: {', '.join(allowed)}", reason="bad_action")
        win = self.can_win(st, seat)
        if action == "hu":
            how = "discard" if w.kind == CLAIM else "rob"
            r = self.win_refusal(st, seat, w.tile, how, w)
            if not isinstance(r, Score):
                raise ActionRejected(r[1], reason=r[0])
            return
        if win is not None and self.forced(st, seat):
            raise ActionRejected("this win must be taken", reason="forced_win")
        if action == "peng" and not self.can_peng(st, seat, w.tile):
            raise ActionRejected(f"no pair of {tile_name(w.tile)} to 碰", reason="no_pair")
        if action == "gang" and not self.can_ming_gang(st, seat, w.tile):
            raise ActionRejected(f"no three {tile_name(w.tile)} to 杠", reason="no_gang")

    def _act(self, st: MahjongState, seat: int, action: str, args: Mapping[str, Any]) -> None:
        pl = st.players[seat]
        if st.step == SWAP:
            pl.swap = parse_tiles([str(x) for x in args["tiles"]])
            for t in pl.swap:
                if pl.hand[t]:
                    pl.hand[t] -= 1
                else:
                    pl.hidden -= 1
            if all(p.swap is not None for p in st.players.values()):
                st.step = SWAP_ROLL
        elif st.step == QUE:
            pl.que = str(args["suit"])
            if all(p.que is not None for p in st.players.values()):
                self._start_play(st)
        elif st.step == TURN:
            if action == "hu":
                self._self_win(st, seat)
            elif action == "discard":
                self._discard(st, seat, tile_index(str(args["tile"])))
            else:
                self._declare_gang(st, seat, tile_index(str(args["tile"])))
        else:
            w = st.window
            assert w is not None
            if (
                action != "hu"
                and self.rules.pass_waits_own_draw
                and self.can_win(st, seat) is not None
            ):
                pl.passed_win = True
            w.answers[seat] = action
            if all(s in w.answers for s in w.eligible):
                self._close_window(st)

    def _remove(self, pl: Player, t: int, n: int = 1) -> None:
        for _ in range(n):
            if pl.hand[t]:
                pl.hand[t] -= 1
            else:
                pl.hidden -= 1

    # -- play ------------------------------------------------------------------------
    def _next_turn(self, st: MahjongState, after: int) -> None:
        st.window = None
        st.after_gang = None
        st.self_win_ok = False
        if self._finished(st):
            st.step = OVER
            return
        if st.wall == 0:
            st.exhausted = True
            st.step = OVER
            return
        st.current = self._next_seat(st, after)
        st.step = DRAW

    def _finished(self, st: MahjongState) -> bool:
        if self.rules.bloody:
            return len(self.in_play(st)) <= 1
        return bool(st.wins)

    def _discard(self, st: MahjongState, seat: int, t: int) -> None:
        pl = st.players[seat]
        self._remove(pl, t)
        pl.discards.append(t)
        dealer_first = st.quiet and seat == st.dealer and len(pl.discards) == 1
        w = Window(CLAIM, seat, t, [], gang_shot=st.after_gang, dealer_first=dealer_first)
        st.window = w
        st.step = CLAIM
        st.after_gang = None
        st.self_win_ok = False
        for s in self._from(st, seat):
            if st.players[s].won:
                continue
            if (
                self._win_on(st, s, w) is not None
                or self.can_peng(st, s, t)
                or self.can_ming_gang(st, s, t)
            ):
                w.eligible.append(s)
        if not w.eligible:
            self._next_turn(st, seat)

    def _pay_gang(
        self, st: MahjongState, seat: int, kind: str, tile: int, source: int | None
    ) -> None:
        rule: GangPay = {
            MING_GANG: self.rules.gang_ming,
            BU_GANG: self.rules.gang_bu,
            AN_GANG: self.rules.gang_an,
        }[kind]
        rec = GangRecord(seat, kind, tile)
        payers = (
            [source]
            if rule.payers == "discarder" and source is not None
            else [s for s in self._from(st, seat) if not st.players[s].won]
        )
        for p in payers:
            rec.pays.append(len(st.pays))
            st.pays.append(Pay(p, seat, rule.units, 0, SPOT_GANG, f"{kind} {tile_name(tile)}"))
        st.gangs.append(rec)
        st.after_gang = len(st.gangs) - 1
        st.quiet = False
        st.current = seat
        st.step = DRAW
        st.window = None
        st.self_win_ok = False

    def _declare_gang(self, st: MahjongState, seat: int, t: int) -> None:
        pl = st.players[seat]
        if pl.hand[t] == 4 and t != st.ghost:
            self._remove(pl, t, 4)
            pl.melds.append(Meld(AN_GANG, t))
            self._pay_gang(st, seat, AN_GANG, t, None)
            return
        self._remove(pl, t)
        st.quiet = False
        w = Window(ROB, seat, t, [])
        st.window = w
        st.step = ROB
        st.self_win_ok = False
        for s in self._from(st, seat):
            if not st.players[s].won and self._win_on(st, s, w) is not None:
                w.eligible.append(s)
        if not w.eligible:
            self._finish_bu_gang(st, seat, t)

    def _finish_bu_gang(self, st: MahjongState, seat: int, t: int) -> None:
        pl = st.players[seat]
        for m in pl.melds:
            if m.kind == PENG and m.tile == t:
                m.kind = BU_GANG
                break
        self._pay_gang(st, seat, BU_GANG, t, None)

    def _scored(self, st: MahjongState, seat: int, r: tuple[str, str] | Score) -> Score:
        """A verified win's score; a viewer who cannot see the winner's tiles (``??``)
        records it without fan (the real log's replay has it)."""
        if isinstance(r, Score):
            return r
        if st.players[seat].hidden:
            return Score(0, 0)
        raise RuleViolation(r[1], reason=r[0])

    def _self_win(self, st: MahjongState, seat: int) -> None:
        r = self._scored(
            st,
            seat,
            self.win_refusal(st, seat, None, "self_draw", None),
        )
        st.groups += 1
        st.wins.append(Win(seat, "self_draw", None, -1, r.fan, list(r.names), st.groups))
        for p in self._from(st, seat):
            if self.rules.self_draw_payers == "all_others" or not st.players[p].won:
                st.pays.append(Pay(p, seat, 1, r.fan, SPOT_HU, "self_draw"))
        st.players[seat].won = True
        self._next_turn(st, seat)

    def _close_window(self, st: MahjongState) -> None:
        w = st.window
        assert w is not None
        winners = [s for s in w.eligible if w.answers[s] == "hu"]
        if winners:
            how = "discard" if w.kind == CLAIM else "rob"
            st.groups += 1
            scores = {}
            for s in winners:
                r = self._scored(st, s, self.win_refusal(st, s, w.tile, how, w))
                scores[s] = r
            for s in winners:
                r = scores[s]
                st.wins.append(Win(s, how, w.seat, w.tile, r.fan, list(r.names), st.groups))
                st.pays.append(Pay(w.seat, s, 1, r.fan, SPOT_HU, how))
                st.players[s].hand[w.tile] += 1
                st.players[s].won = True
            if w.kind == CLAIM and w.gang_shot is not None and self.rules.call_transfer != "none":
                rec = st.gangs[w.gang_shot]
                income = sum(st.pays[i].units for i in rec.pays if st.pays[i].payee == rec.seat)
                rec.transferred = True
                for s in winners:
                    st.pays.append(Pay(w.seat, s, income, 0, SPOT_TRANSFER, "呼叫转移"))
            if w.kind == CLAIM:
                st.players[w.seat].discards.pop()
            self._next_turn(st, winners[-1])
            return
        if w.kind == ROB:
            self._finish_bu_gang(st, w.seat, w.tile)
            return
        gang = [s for s in w.eligible if w.answers[s] == "gang"]
        peng = [s for s in w.eligible if w.answers[s] == "peng"]
        if gang or peng:
            s = (gang or peng)[0]
            pl = st.players[s]
            st.players[w.seat].discards.pop()
            if gang:
                self._remove(pl, w.tile, 3)
                pl.melds.append(Meld(MING_GANG, w.tile, w.seat))
                self._pay_gang(st, s, MING_GANG, w.tile, w.seat)
            else:
                self._remove(pl, w.tile, 2)
                pl.melds.append(Meld(PENG, w.tile, w.seat))
                st.quiet = False
                st.window = None
                st.current = s
                st.step = TURN
                st.self_win_ok = False
                st.after_gang = None
            return
        self._next_turn(st, w.seat)

    # -- 托管 --------------------------------------------------------------------------
    def discard_choice(self, st: MahjongState, seat: int) -> int:
        """The 托管 discard (:func:`.policy.discard_choice`)."""
        return policy.discard_choice(self, st, seat)

    def advise(self, st: MahjongState, seat: int) -> Action:
        """The 托管 decision for ``seat`` (:func:`.policy.advise`)."""
        return policy.advise(self, st, seat)

    def private_args(self, action: str) -> frozenset[str]:
        """换三张: the three tiles passed are hidden from the others until the hand ends."""
        return frozenset({"tiles"}) if action == "swap" else frozenset()

    def auto_action(self, st: MahjongState) -> Action | None:
        """托管 on a timeout: the first seat the hand waits for. On its turn it takes a
        win, else discards by :meth:`discard_choice`; in a claim window it passes unless
        the win is forced (004's last four tiles)."""
        waiting = self.to_act(st)
        if not waiting:
            return None
        seat = waiting[0]
        if st.step in (SWAP, QUE):
            return self.advise(st, seat)
        if self.can_win(st, seat) is not None and (st.step == TURN or self.forced(st, seat)):
            return seat, "hu", {}
        if st.step == TURN:
            return seat, "discard", {"tile": tile_name(self.discard_choice(st, seat))}
        return seat, "pass", {}

    # -- the end of the wall ---------------------------------------------------------
    def ready_fan(self, st: MahjongState, seat: int) -> int | None:
        """有叫: the best fan ``seat`` can win with, None if not listening."""
        return payments.ready_fan(self, st, seat)

    def is_hua_zhu(self, st: MahjongState, seat: int) -> bool:
        return payments.is_hua_zhu(self, st, seat)

    def exhaustion(self, st: MahjongState) -> tuple[list[Pay], dict[int, int | None], list[int]]:
        """查花猪 and 查大叫 (:func:`.payments.exhaustion`)."""
        return payments.exhaustion(self, st)

    # -- results ---------------------------------------------------------------------
    def outcome(self, st: MahjongState) -> dict[str, Any]:
        ex_pays, ready, hua = self.exhaustion(st)
        return {
            "variant": self.variant,
            "dealer": st.dealer,
            "next_dealer": self.next_dealer(st) if st.dealer is not None else None,
            "ghost": tile_name(st.ghost) if st.ghost is not None else None,
            "swap_direction": st.swap_direction,
            "que": {str(s): st.players[s].que for s in st.order if st.players[s].que},
            "wins": [
                {
                    "seat": w.seat,
                    "by": w.by,
                    "from": w.source,
                    "tile": tile_name(w.tile) if w.tile >= 0 else None,
                    "fan": w.fan,
                    "patterns": w.names,
                    "group": w.group,
                }
                for w in st.wins
            ],
            "gangs": [
                {"seat": g_.seat, "kind": g_.kind, "tile": tile_name(g_.tile)} for g_ in st.gangs
            ],
            "exhausted": st.exhausted,
            "forfeited": sorted(st.forfeited),
            "ready": {str(s): f for s, f in ready.items()},
            "hua_zhu": hua,
            "payments": [
                {
                    "payer": p.payer,
                    "payee": p.payee,
                    "units": p.units,
                    "fan": p.fan,
                    "spot": p.spot,
                    "note": p.note,
                }
                for p in (*st.pays, *ex_pays)
            ],
        }

    def on_away(self, st: MahjongState, seat: int) -> None:
        """004 血战到底: 如果胡了的玩家提前离开，则不给予所赢番数，但是杠分还是他本人所有."""
        if self.rules.leave_forfeits_win and st.players[seat].won and not st.closed:
            st.forfeited.add(seat)

    def claims(self, st: MahjongState) -> list[Claim]:
        return payments.claims(self, st)

    def settle(self, st: MahjongState) -> SettlementResult:
        if not st.closed and not self.is_over(st):
            raise ActionRejected("the hand is not over", reason="not_over")
        return payments.settlement(self, st)

    # -- bare hands ------------------------------------------------------------------
    def describe(self, action: str, hands: Sequence[Sequence[str]]) -> dict[str, Any]:
        """``eval``: each hand of 14 tiles (a win: its fan as a discard win) or 13 tiles
        (its waits: 听牌); tiles one by one (``1m 2m``) or grouped (``123m``). Answers as
        play does for the variant's suit limit (缺一门, ``max_suits``): a winning shape in
        more suits is no win (``reason`` ``too_many_suits``), and a wait that would make
        one is no wait."""
        if action != "eval":
            raise InvalidInput(f"mahjong has no '{action}' for bare hands")
        out = []
        limit = self.rules.max_suits
        for h in hands:
            tiles = [t for token in h for t in parse_tiles(str(token))]
            shape = Shape.of(tiles)
            suits = sorted({suit_of(t) for t in tiles} - {"z"})
            if len(tiles) == 14:
                sc = score(shape, WinContext(), self.rules.fan)
                row: dict[str, Any] = {"tiles": names(tiles), "suits": suits}
                if sc is not None and len(suits) > limit:
                    row.update(
                        win=False,
                        fan=None,
                        patterns=[],
                        reason="too_many_suits",
                        message=(
                            f"a winning shape, but in {len(suits)} suits: a win holds at "
                            f"most {limit} (缺一门)"
                        ),
                    )
                else:
                    row.update(
                        win=sc is not None,
                        fan=sc.fan if sc else None,
                        patterns=list(sc.names) if sc else [],
                    )
                out.append(row)
            elif len(tiles) == 13:
                waits = [
                    w
                    for w in shape.waits(self.universe, self.rules.forms)
                    if len(set(suits) | ({suit_of(w)} - {"z"})) <= limit
                ]
                row = {"tiles": names(tiles), "suits": suits, "waits": names(waits)}
                if len(suits) > limit:
                    row.update(
                        reason="too_many_suits",
                        message=f"{len(suits)} suits held: a win holds at most {limit} (缺一门)",
                    )
                out.append(row)
            else:
                raise InvalidInput("a hand is 13 (waits) or 14 (win) tiles")
        return {"variant": self.variant, "hands": out}
