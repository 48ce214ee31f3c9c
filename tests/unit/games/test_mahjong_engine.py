"""The mahjong engine on hand-built games: the seeds' worked examples as golden
vectors (000 血战麻将 2400; 004 血战到底 80/240, 40/120, 10/10), every special payment
(杠 刮风/下雨, 呼叫转移, 一炮多响, 抢杠胡, 查大叫 with a short balance, 查花猪 with a
remainder), the ghost rules, 过手, the last four tiles, dealer rotation, and bad input
(a precise error, the state untouched).

A :class:`Game` deals chosen hands and a chosen order of draws; the engine only sees
events, exactly as from the dealer."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from croupier.errors import ActionRejected, RuleViolation
from croupier.games import base as g
from croupier.games.mahjong.engine import MahjongEngine
from croupier.games.mahjong.state import CLAIM, OVER, PENG, ROB, TURN, Meld, Pay, Win, Window
from croupier.games.mahjong.tiles import names, parse_tiles, tile_index
from croupier.games.registry import variant_config

XZ = "mahjong.xuezhan"
DD = "mahjong.xuezhan_daodi"
GD = "mahjong.guangdong"
FILL = "2s"  # a tile nobody in these games can use


def make_engine(variant: str, **patch: Any) -> MahjongEngine:
    raw = copy.deepcopy(dict(variant_config(variant).raw))
    for k, v in patch.items():
        raw[k] = v
    return MahjongEngine(g.VariantConfig.from_json_dict(raw))


class Game:
    """A hand with chosen tiles. ``hands`` are the hands after 换三张 (the dealer's 14),
    ``swaps`` what each seat gives (direction: opposite, die 2), ``draws`` the wall's
    order after the deal; ``wall`` is how many tiles the wall holds after the deal."""

    def __init__(
        self,
        variant: str | MahjongEngine,
        hands: Mapping[int, str],
        draws: str = "",
        *,
        dealer: int = 1,
        swaps: Mapping[int, str] | None = None,
        que: Mapping[int, str] | None = None,
        stacks: Mapping[int, int] | None = None,
        indicator: str | None = None,
        wall: int | None = None,
    ) -> None:
        self.e = variant if isinstance(variant, MahjongEngine) else make_engine(variant)
        e = self.e
        seats = [
            {"seat": s, "player": f"p{s}", "stack": (stacks or {}).get(s, 10**6)}
            for s in (1, 2, 3, 4)
        ]
        carry = {"dealer": dealer, "players": {str(s): f"p{s}" for s in (1, 2, 3, 4)}}
        self.st = e.open(
            "h1",
            {"table": "t", "hand_no": 1, "shoe_hand_no": 1, "seats": seats, "carry": carry},
        )
        self.draws = parse_tiles(draws) if draws else []
        self.pos = 0
        self.step(g.BETTING_CLOSED, {})
        tiles = {s: parse_tiles(h) for s, h in hands.items()}
        if e.rules.swap_three:
            assert swaps is not None
            give = {s: parse_tiles(x) for s, x in swaps.items()}
            for s in (1, 2, 3, 4):
                got = give[(s + 1) % 4 + 1]  # opposite: 1<->3, 2<->4
                for t in got:
                    tiles[s].remove(t)
                tiles[s] += give[s]
        req = e.next_deal(self.st)
        assert req is not None
        cards = []
        left = {s: list(t) for s, t in tiles.items()}
        for d in req.cards:
            if d.to == "indicator":
                assert indicator is not None
                tile = indicator
            else:
                tile = names([left[int(d.to[5:])].pop(0)])[0]
            cards.append({"to": d.to, "card": tile, "pos": self.pos, "up": d.up})
            self.pos += 1
        assert not any(left.values()), left
        self.step(g.CARD_DEALT, {"cards": cards})
        if wall is not None:
            self.st.wall = wall
        if e.rules.swap_three:
            assert swaps is not None
            for s in (1, 2, 3, 4):
                self.act(s, "swap", tiles=names(parse_tiles(swaps[s])))
            self.step(g.DICE_ROLLED, {"dice": [2], "faces": [3], "roll": 0})
        if e.rules.ding_que:
            assert que is not None
            for s in (1, 2, 3, 4):
                self.act(s, "que", suit=que[s])

    def step(self, type_: str, payload: Mapping[str, Any]) -> None:
        self.e.step(self.st, type_, payload)

    def pump(self) -> None:
        while (req := self.e.next_deal(self.st)) is not None and req.cards:
            tile = names([self.draws.pop(0)])[0] if self.draws else FILL
            self.step(
                g.CARD_DEALT,
                {"cards": [{"to": req.cards[0].to, "card": tile, "pos": self.pos, "up": False}]},
            )
            self.pos += 1

    def act(self, seat: int, action: str, **args: Any) -> None:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        self.pump()

    def refused(self, seat: int, action: str, reason: str, **args: Any) -> None:
        before = copy.deepcopy(self.st)
        with pytest.raises(ActionRejected) as err:
            self.e.verify(self.st, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        assert err.value.reason == reason, err.value.message
        assert self.st == before

    def pays(self) -> list[tuple[int, int, int, int, str]]:
        return [(p.payer, p.payee, p.units, p.fan, p.spot) for p in self.st.pays]

    def deltas(self) -> dict[str, int]:
        return dict(self.e.settle(self.st).deltas)


# Hands that can claim nothing and listen to nothing (m and p only, no pairs); the
# dealer's 14th tile is 9s, discarded first; FILL (2s) is drawn and thrown by them.
J1, J2, J3 = "12358m12345689p", "345789m1256789p", "135689m1234789p"
QUE_S = {1: "s", 2: "s", 3: "s", 4: "s"}
NO_SWAP = {"enabled": False, "directions": []}


def xz(**patch: Any) -> MahjongEngine:
    return make_engine(XZ, swap_three=NO_SWAP, **patch)


def around(gm: Game, seats: list[int]) -> None:
    """Each of ``seats`` (whose turn it is in that order) throws the FILL it drew."""
    for s in seats:
        assert gm.st.step == TURN and gm.st.current == s, (gm.st.step, gm.st.current, s)
        gm.act(s, "discard", tile=FILL)


def test_junk_hands_listen_to_nothing() -> None:
    e = xz()
    gm = Game(e, {1: J1 + "9s", 2: J2, 3: J3, 4: J1}, que=QUE_S)
    for s in (2, 3, 4):
        assert e.ready_fan(gm.st, s) is None


def test_a_discard_nobody_wins_on_builds_no_win_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tiles are judged before the context of a win (self-draw, 杠上炮...): a
    discard is asked of every other player, and most such hands are no win."""
    e = xz()
    built: list[tuple[int, str]] = []
    ctx = MahjongEngine._ctx

    def counted(self: MahjongEngine, st: Any, seat: int, how: str, w: Any) -> Any:
        built.append((seat, how))
        return ctx(self, st, seat, how, w)

    monkeypatch.setattr(MahjongEngine, "_ctx", counted)
    gm = Game(e, {1: J1 + "9s", 2: J2, 3: J3, 4: J1}, que=QUE_S)
    gm.act(1, "discard", tile="9s")
    assert gm.st.step == TURN and gm.st.current == 2  # nobody could claim it
    assert built == []
    refusal = e.win_refusal(gm.st, 3, tile_index("9s"), "discard", Window(CLAIM, 1, 0, []))
    assert refusal == ("not_a_win", "seat 3's hand is not a winning hand") and built == []


def test_a_win_is_scored_once_for_its_window_its_check_and_its_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The best reading of a win (its fan) is asked when the discard's window opens
    (who may claim it), when the ``hu`` is checked and when it is made: worked out once,
    by the tiles and how the hand was won (``MahjongEngine.scores``). Another way of
    winning the same tiles (robbing a 杠) is read afresh."""
    from croupier.games.mahjong import engine as engine_module

    e = make_engine(DD, base={"value": 10})
    scored: list[object] = []
    score = vars(engine_module)["score"]

    def counted(shape: Any, ctx: Any, table: Any) -> Any:
        scored.append(ctx)
        return score(shape, ctx, table)

    monkeypatch.setattr(engine_module, "score", counted)
    gm = Game(e, {1: J1 + "9s", 2: "123m456m789p11p46p", 3: J3, 4: J2}, "2s2s2s5p2s", wall=5)
    gm.act(1, "discard", tile="9s")
    around(gm, [2, 3, 4])
    gm.act(1, "discard", tile="5p")
    assert gm.st.window is not None and gm.st.window.eligible == [2]
    assert len(scored) == 1  # the window: seat 2 may win
    before = copy.deepcopy(gm.st)
    gm.act(2, "hu")
    assert gm.st.wins[0].fan == 0 and len(scored) == 1  # checked and made: remembered
    assert list(e.scores) == [(e.shape(gm.st, gm.st.players[2]), scored[0])]
    r = e.win_refusal(before, 2, tile_index("5p"), "discard", before.window)
    assert not isinstance(r, tuple) and r.fan == 0 and len(scored) == 1
    r = e.win_refusal(before, 2, tile_index("5p"), "rob", before.window)
    assert not isinstance(r, tuple) and len(scored) == 2  # robbed: another context
    e.scores.clear()
    r = e.win_refusal(before, 2, tile_index("5p"), "discard", before.window)
    assert not isinstance(r, tuple) and r.fan == 0 and len(scored) == 3  # forgotten: anew


def test_xuezhan_golden_2400_self_drawn_three_fan() -> None:
    # 000 血战麻将 得分计算 例: 底分 100, 3 番, 一胡 (three players still in) self-drawn:
    # 100 x 2^3 x 3 = 2400. The real config: 换三张 (opposite seats give each other the
    # same tiles) and 定缺. 3 fan = 清一色 (2) + 自摸 (1).
    hands = {1: J1 + "9s", 2: "123456m777m88m99m", 3: J3, 4: "123589m1245789p"}
    swaps = {1: "123p", 2: "123m", 3: "123p", 4: "123m"}
    que = {1: "s", 2: "p", 3: "s", 4: "s"}
    gm = Game(XZ, hands, "2s2s2s2s9m2s", swaps=swaps, que=que, wall=6)
    assert gm.st.swap_direction == "opposite"
    gm.act(1, "discard", tile="9s")
    around(gm, [2, 3, 4, 1])
    assert gm.st.current == 2 and gm.e.can_win(gm.st, 2) is not None
    gm.act(2, "hu")
    assert gm.st.wins[0].fan == 3 and gm.st.wins[0].names == ["清一色", "自摸"]
    assert gm.pays() == [(3, 2, 1, 3, "hu"), (4, 2, 1, 3, "hu"), (1, 2, 1, 3, "hu")]
    around(gm, [3])  # the last tile; then the wall is empty: nobody listens, no 花猪
    assert gm.st.step == OVER and gm.st.exhausted
    res = gm.e.settle(gm.st)
    theo = res.steps[0]
    assert sum(c.amount for c in theo.claims) == 2400  # type: ignore[attr-defined]
    assert dict(res.deltas) == {"p1": -800, "p2": 2400 - 120, "p3": -800, "p4": -800}
    assert res.total_rake == 120  # 游戏抽佣 5%


@pytest.mark.parametrize(
    ("winner", "draw", "fan", "each"),
    [
        # 004 积分计算 例1: 房间分数 10, 自摸 3 番 (清对): 10 x 8 = 80 from each, 240
        ("111m222m333m444m5m", "5m", 3, 80),
        # 例2: 自摸 2 番 (清一色): 10 x 4 = 40 from each, 120
        ("111m234m567m999m8m", "8m", 2, 40),
    ],
)
def test_xuezhan_daodi_golden_self_draw(winner: str, draw: str, fan: int, each: int) -> None:
    e = make_engine(DD, base={"value": 10})
    gm = Game(e, {1: J1 + "9s", 2: winner, 3: J3, 4: J2}, "2s2s2s2s" + draw + "2s", wall=6)
    gm.act(1, "discard", tile="9s")
    around(gm, [2, 3, 4, 1])
    gm.act(2, "hu")
    assert gm.st.wins[0].fan == fan
    around(gm, [3])
    assert gm.st.step == OVER
    assert gm.deltas() == {"p1": -each, "p2": 3 * each, "p3": -each, "p4": -each}


def test_xuezhan_daodi_golden_discard_zero_fan() -> None:
    # 004 例3: 房间分数 10, B discards to A, 0 fan (素番): B pays 10, A gets 10
    e = make_engine(DD, base={"value": 10})
    gm = Game(e, {1: J1 + "9s", 2: "123m456m789p11p46p", 3: J3, 4: J2}, "2s2s2s5p2s", wall=5)
    gm.act(1, "discard", tile="9s")
    around(gm, [2, 3, 4])  # then 1 draws 5p
    gm.act(1, "discard", tile="5p")  # not the dealer's first discard: no 地胡
    assert gm.st.step == CLAIM and gm.st.window is not None
    assert gm.st.window.eligible == [2]
    gm.act(2, "hu")
    assert gm.st.wins[0].fan == 0 and gm.st.wins[0].names == ["素番"]
    around(gm, [3])
    assert gm.deltas() == {"p1": -10, "p2": 10, "p3": 0, "p4": 0}


def test_gang_payments_at_once_and_replacement_draws() -> None:
    # 000: 刮风 (直杠) 2x from the discarder; 下雨 (暗杠) 2x from each other player
    gm = Game(xz(), {1: J1 + "5p", 2: "555p7777m123p589m", 3: J3, 4: J2}, "1m9m", que=QUE_S)
    gm.act(1, "discard", tile="5p")
    assert gm.st.window is not None and gm.st.window.eligible == [2]
    gm.act(2, "gang")  # 直杠 on 1's 5p, replacement draw 1m
    assert gm.pays() == [(1, 2, 2, 0, "gang")]
    assert gm.st.current == 2 and gm.st.step == TURN
    gm.act(2, "gang", tile="7m")  # 暗杠, replacement draw 9m
    assert gm.pays()[1:] == [(3, 2, 2, 0, "gang"), (4, 2, 2, 0, "gang"), (1, 2, 2, 0, "gang")]
    assert [m.kind for m in gm.st.players[2].melds] == ["ming_gang", "an_gang"]
    gm.act(2, "discard", tile="1p")
    around(gm, [3, 4, 1])


def test_bu_gang_can_be_robbed_and_then_pays_nothing() -> None:
    # 2 碰s 1's 5p (3 passes the win on it: 000 has no 过手), later draws the fourth
    # 5p and adds it (补杠); 3 robs it (抢杠胡)
    hands = {1: J1 + "5p", 2: "55p123m456m789m19p", 3: "34p678m567m111m99m", 4: J2}
    gm = Game(xz(), hands, "2s2s2s5p", que=QUE_S)
    gm.act(1, "discard", tile="5p")
    assert gm.st.window is not None and gm.st.window.eligible == [2, 3]
    gm.act(3, "pass")
    gm.act(2, "peng")
    assert gm.st.current == 2 and gm.st.players[2].melds[0].kind == "peng"
    gm.act(2, "discard", tile="1p")
    around(gm, [3, 4, 1])
    assert gm.st.current == 2
    gm.act(2, "gang", tile="5p")
    assert gm.st.step == ROB and gm.st.window is not None and gm.st.window.eligible == [3]
    gm.act(3, "hu")
    win = gm.st.wins[0]
    assert (win.seat, win.by, win.source) == (3, "rob", 2)
    assert gm.pays() == [(2, 3, 1, win.fan, "hu")]
    assert gm.st.players[2].melds[0].kind == "peng"


def test_bu_gang_not_robbed_pays_one_from_each_player_in_play() -> None:
    hands = {1: J1 + "5p", 2: "55p123m456m789m19p", 3: J3, 4: J2}
    gm = Game(xz(), hands, "2s2s2s5p", que=QUE_S)
    gm.act(1, "discard", tile="5p")
    gm.act(2, "peng")
    gm.act(2, "discard", tile="1p")
    around(gm, [3, 4, 1])
    gm.act(2, "gang", tile="5p")
    assert gm.pays() == [(3, 2, 1, 0, "gang"), (4, 2, 1, 0, "gang"), (1, 2, 1, 0, "gang")]
    assert gm.st.players[2].melds[0].kind == "bu_gang" and gm.st.step == TURN


def test_call_transfer_after_gang_shot() -> None:
    # 呼叫转移: 2 makes a 暗杠 (6 units from three players), draws, discards 5p; 3 wins
    # on it (杠上炮, +1 fan) and gets the 杠's income from 2
    hands = {1: J1 + "9s", 2: "7777m123p3456p89m", 3: "34p678m567m111m99m", 4: J2}
    gm = Game(xz(), hands, "2s1p", que=QUE_S)
    gm.act(1, "discard", tile="9s")
    assert gm.st.current == 2
    gm.act(2, "gang", tile="7m")
    gm.act(2, "discard", tile="5p")
    gm.act(3, "hu")
    win = gm.st.wins[0]
    assert "杠上炮" in win.names
    assert gm.pays()[3:] == [(2, 3, 1, win.fan, "hu"), (2, 3, 6, 0, "call_transfer")]


def test_one_discard_many_winners_and_the_discarder_deals_next() -> None:
    # 一炮多响: 3 and 4 both win on 1's 5p; the next dealer is the discarder
    hands = {1: J1 + "5p", 2: J2, 3: "34p678m567m111m99m", 4: "123m456m789m46p11p"}
    gm = Game(xz(), hands, "2s2s2s2s", que=QUE_S)
    gm.act(1, "discard", tile="5p")
    assert gm.st.window is not None and gm.st.window.eligible == [3, 4]
    gm.act(4, "hu")
    assert gm.st.step == CLAIM  # the window waits for every eligible player
    gm.act(3, "hu")
    assert [(w.seat, w.source, w.group) for w in gm.st.wins] == [(3, 1, 1), (4, 1, 1)]
    assert [p[:2] for p in gm.pays()] == [(1, 3), (1, 4)]
    assert gm.e.next_dealer(gm.st) == 1
    assert gm.st.current == 1  # play goes on after the last winner (4): seat 1 draws


def test_cha_da_jiao_short_balance_by_fan_share() -> None:
    # 000 查大叫: 3 listens for 1 fan (对对胡), 4 for 2 fan (清一色); 1 (short: 300)
    # owes 200 + 400 and pays 300 / 3 fan x fan: 100 and 200; 2 pays in full
    e = xz()
    hands = {1: J1 + "9s", 2: J2, 3: "111m222p333p44m55m", 4: "234p567p888p11p99p"}
    gm = Game(e, hands, "", que=QUE_S, stacks={1: 300}, wall=0)
    assert e.ready_fan(gm.st, 3) == 1 and e.ready_fan(gm.st, 4) == 2
    gm.act(1, "discard", tile="9s")
    assert gm.st.step == OVER and gm.st.exhausted
    res = gm.e.settle(gm.st)
    assert dict(res.deltas) == {"p1": -300, "p2": -600, "p3": 300 - 15, "p4": 600 - 30}
    assert any(getattr(s, "rule", "") == "cha_da_jiao_by_fan" for s in res.steps)


def test_hua_zhu_equal_split_keeps_the_remainder() -> None:
    # 000 查花猪 example: a 花猪 with 100 points owes three players: 33 each, 1 kept.
    # base 10 points, so each is owed 16 x 10 = 160 points
    e = xz(base={"value": 1000})
    gm = Game(e, {1: J1 + "2s", 2: J2, 3: J3, 4: J1}, "", que=QUE_S, stacks={1: 10_000}, wall=0)
    gm.act(1, "discard", tile="1m")  # keeps its 2s: a 花猪
    assert gm.st.step == OVER and gm.e.is_hua_zhu(gm.st, 1)
    res = gm.e.settle(gm.st)
    d = dict(res.deltas)
    assert d["p1"] == -9900 and res.total_rake == 3 * 165
    assert d["p2"] == d["p3"] == d["p4"] == 3300 - 165


def set_hand(gm: Game, seat: int, tiles: str, pungs: str = "") -> None:
    """Give ``seat`` these concealed tiles and a 碰 of each tile in ``pungs``."""
    pl = gm.st.players[seat]
    pl.hand = [0] * 34
    for t in parse_tiles(tiles):
        pl.hand[t] += 1
    pl.melds = [Meld(PENG, t, 1) for t in parse_tiles(pungs)] if pungs else []


def test_ghost_rules() -> None:
    # 广东 鬼牌: indicator 4z -> ghost 7z (中), wild, never discarded
    gm = Game(GD, {1: J1 + "9s", 2: J2, 3: J3, 4: J2}, "7z1m", indicator="4z")
    assert gm.st.ghost == tile_index("7z")
    # 碰 restriction: 2 holds 3p 3p + two ghosts and three 碰: a 碰 of 3p would leave
    # only ghosts to discard; winning on it (333p + the ghosts as a pair) is fine
    set_hand(gm, 2, "33p7z7z", "1m9m1s")
    set_hand(gm, 1, J1 + "3p")
    gm.act(1, "discard", tile="3p")
    assert gm.st.window is not None and gm.st.window.eligible == [2]
    gm.refused(2, "peng", "no_pair")
    gm.act(2, "pass")
    assert gm.st.current == 2  # 2 drew the ghost; a ghost is never discarded
    gm.refused(2, "discard", "ghost_discard", tile="7z")


def test_only_ghosts_in_hand_a_drawn_ghost_must_win() -> None:
    gm = Game(GD, {1: J1 + "9s", 2: J2, 3: J3, 4: J2}, "7z", indicator="4z")
    set_hand(gm, 2, "7z", "1m9m1s9s")
    gm.act(1, "discard", tile="9p")  # 2 may win on anything: it passes
    gm.act(2, "pass")  # and draws the ghost: two ghosts in hand
    assert gm.st.current == 2 and gm.e.forced(gm.st, 2)
    gm.refused(2, "discard", "forced_win", tile="7z")
    assert gm.e.auto_action(gm.st) == (2, "hu", {})
    gm.act(2, "hu")
    assert gm.st.step == OVER  # 推倒胡: the first win ends the hand


def test_chicken_hand_wins_only_by_self_draw() -> None:
    hands = {1: J1 + "5p", 2: "123m456m789p11p46p", 3: J3, 4: J2}
    gm = Game(GD, hands, "2s2s2s2s5p", indicator="5z")  # ghost: 1z
    gm.act(1, "discard", tile="5p")  # 鸡胡 on a discard: not even offered
    assert gm.st.current == 2 and gm.st.step == TURN
    before = copy.deepcopy(gm.st)
    before.players[2].hand[tile_index("2s")] -= 1
    around(gm, [2, 3, 4, 1])
    on_5p = Window(CLAIM, 1, tile_index("5p"), [])
    refusal = gm.e.win_refusal(before, 2, tile_index("5p"), "discard", on_5p)
    assert refusal == ("chicken_by_discard", "鸡胡 wins only by self-draw or 抢杠")
    assert gm.e.can_win(gm.st, 2) is not None  # it drew 5p: self-drawn 鸡胡 is fine
    gm.act(2, "hu")
    assert gm.st.wins[0].names == ["鸡胡"]  # 0 fan: 自摸 is no pattern in 广东
    assert gm.deltas() == {"p1": -100, "p2": 300 - 15, "p3": -100, "p4": -100}


def test_passed_win_waits_for_own_draw_and_last_four_tiles_force_it() -> None:
    # 004 过手: 2 passes a win on 1's 5p and may not win on a discard before drawing
    e = make_engine(DD)
    hands = {1: J1 + "5p", 2: J3, 3: "123m456m789p11p46p", 4: J2}
    gm = Game(e, hands, "2s", wall=20)
    gm.act(1, "discard", tile="5p")
    gm.act(3, "pass")
    assert gm.st.players[3].passed_win and gm.st.current == 2
    on_5p = Window(CLAIM, 1, tile_index("5p"), [])
    refusal = gm.e.win_refusal(gm.st, 3, tile_index("5p"), "discard", on_5p)
    assert refusal[0] == "passed_win"  # type: ignore[index]
    # within the last four tiles the same win cannot be passed
    gm2 = Game(e, hands, "2s", wall=3)
    gm2.act(1, "discard", tile="5p")
    gm2.refused(3, "pass", "forced_win")
    assert gm2.e.auto_action(gm2.st) == (3, "hu", {})


def test_bad_input_is_refused_with_a_precise_reason() -> None:
    e = xz()
    hands = {1: J1 + "9s", 2: "123m456m789m123s5m", 3: J3, 4: J2}
    gm = Game(e, hands, "5m2s", que={1: "s", 2: "p", 3: "s", 4: "s"})
    gm.refused(2, "discard", "out_of_turn", tile="1m")
    gm.refused(1, "discard", "not_in_hand", tile="1s")
    gm.refused(1, "hu", "not_a_win")
    gm.refused(1, "discard", "malformed", tile="1x")
    gm.refused(1, "chi", "unknown_action")
    gm.act(1, "discard", tile="9s")
    assert gm.st.current == 2 and gm.e.can_win(gm.st, 2) is not None
    gm.act(2, "hu")
    gm.refused(2, "discard", "already_won", tile="1m")
    with pytest.raises(RuleViolation):
        gm.e.verify(gm.st, g.BET_PLACED, {"seat": 1, "spot": "x", "amount": 1})


def test_three_suits_and_the_que_suit_never_win() -> None:
    e = xz()
    hands = {1: J1 + "9s", 2: "123m456p789s11m56m", 3: J3, 4: J2}
    gm = Game(e, hands, "4m", que={1: "s", 2: "p", 3: "s", 4: "s"})
    gm.act(1, "discard", tile="9s")
    gm.refused(2, "hu", "too_many_suits")
    set_hand(gm, 2, "123m456p789p111m55m")  # two suits, but p is its 定缺 suit
    gm.refused(2, "hu", "que_suit_held")


def test_claiming_peng_without_a_pair_and_acting_out_of_turn() -> None:
    hands = {1: J1 + "5p", 2: "55p123m456m789m19p", 3: J3, 4: J2}
    gm = Game(xz(), hands, "2s", que=QUE_S)
    gm.act(1, "discard", tile="5p")
    gm.refused(3, "peng", "out_of_turn")
    gm.refused(2, "gang", "no_gang")
    gm.refused(2, "discard", "bad_action", tile="1p")


def test_xuezhan_daodi_fan_cap_and_per_payer_cap() -> None:
    # 004 积分计算: at most 3 fan (8x) on a win; at most 24 x base from one player
    e = make_engine(DD)
    hands = {1: J1 + "9s", 2: "111155m77m2244p6p", 3: J3, 4: J2}  # 龙七对 waiting on 6p
    gm = Game(e, hands, "2s2s2s6p2s", wall=5)
    gm.act(1, "discard", tile="9s")
    around(gm, [2, 3, 4])
    gm.act(1, "discard", tile="6p")
    gm.act(2, "hu")
    assert gm.st.wins[0].fan == 4 and gm.st.wins[0].names == ["龙七对", "根"]
    around(gm, [3])
    assert gm.deltas()["p2"] == 8 * 100  # 4 fan counts as 3
    # four more 3-fan payments from 1 to 2 would be 40 x base: the cap keeps 24
    gm.st.pays += [Pay(1, 2, 1, 3, "hu") for _ in range(4)]
    res = gm.e.settle(gm.st)
    assert dict(res.deltas)["p2"] == 24 * 100
    assert [getattr(s, "rule", "") for s in res.steps][1:3] == ["fan_cap", "per_payer_cap"]


def test_guangdong_cap_is_seven_fan() -> None:
    gm = Game(GD, {1: J1 + "9s", 2: J2, 3: J3, 4: J2}, wall=0, indicator="5z")
    gm.act(1, "discard", tile="9s")
    assert gm.st.step == OVER and gm.st.exhausted  # 流局: no 查叫 in 广东
    gm.st.pays.append(Pay(1, 2, 1, 13, "hu"))  # 字一色 + 大四喜 = 13 fan
    assert gm.deltas() == {"p1": -12800, "p2": 12800 - 640, "p3": 0, "p4": 0}


def test_dealer_rotation() -> None:
    # 004: the first winner deals next, the discarder if that was 一炮多响, and the
    # dealer stays when nobody won; 广东 (default): the dealer stays on a win or a draw
    dd = Game(make_engine(DD), {1: J1 + "9s", 2: J2, 3: J3, 4: J2})
    st = dd.st
    assert dd.e.next_dealer(st) == 1
    st.wins = [Win(3, "discard", 2, 0, 0, [], 1), Win(4, "discard", 1, 0, 0, [], 2)]
    assert dd.e.next_dealer(st) == 3
    st.wins = [Win(3, "discard", 2, 0, 0, [], 1), Win(4, "discard", 2, 0, 0, [], 1)]
    assert dd.e.next_dealer(st) == 2
    assert dd.e.carry(st) == {
        "dealer": 2,
        "players": {"1": "p1", "2": "p2", "3": "p3", "4": "p4"},
    }
    gd = Game(GD, {1: J1, 2: J2, 3: J3, 4: J2 + "9s"}, dealer=4, indicator="5z")
    assert gd.e.next_dealer(gd.st) == 4
    gd.st.wins = [Win(4, "self_draw", None, -1, 0, [], 1)]
    assert gd.e.next_dealer(gd.st) == 4
    gd.st.wins = [Win(2, "self_draw", None, -1, 0, [], 1)]
    assert gd.e.next_dealer(gd.st) == 1  # the next seat after 4


def test_first_hand_draws_the_dealer_by_die_and_a_changed_table_draws_again() -> None:
    e = make_engine(XZ)
    seats = [{"seat": n, "player": f"p{n}", "stack": 100} for n in (1, 2, 3, 4)]
    opened = {"table": "t", "hand_no": 1, "shoe_hand_no": 1, "seats": seats}
    st = e.open("h", opened)
    e.step(st, g.BETTING_CLOSED, {})
    assert e.next_deal(st) == g.DealRequest(dice=1, faces=(4,))
    with pytest.raises(RuleViolation) as err:
        e.verify(st, g.DICE_ROLLED, {"dice": [5], "faces": [4], "roll": 0})
    assert err.value.reason == "bad_dice"
    e.step(st, g.DICE_ROLLED, {"dice": [3], "faces": [4], "roll": 0})
    assert st.dealer == 3
    other = {"dealer": 2, "players": {"1": "p1", "2": "p2", "3": "p3", "4": "someone"}}
    assert e.open("h", {**opened, "carry": other}).dealer is None
    same = {**other, "players": {"1": "p1", "2": "p2", "3": "p3", "4": "p4"}}
    assert e.open("h", {**opened, "carry": same}).dealer == 2


def test_heavenly_hand_for_the_dealer() -> None:
    # 天胡: the dealer wins on the dealt 14 (000: 5 fan, + 自摸)
    gm = Game(xz(), {1: "123m456m789m234p55p", 2: J2, 3: J3, 4: J2}, que=QUE_S)
    gm.act(1, "hu")
    assert gm.st.wins[0].names == ["平胡", "自摸", "天胡"] and gm.st.wins[0].fan == 6


def test_peng_needs_a_pair() -> None:
    e = make_engine(DD)
    gm = Game(e, {1: J1 + "5p", 2: "123m456m789p11p46p", 3: J3, 4: J2}, "2s", wall=9)
    gm.act(1, "discard", tile="5p")
    gm.refused(2, "peng", "no_pair")
    gm.refused(2, "gang", "no_gang")


def test_describe_bare_hands() -> None:
    e = make_engine(XZ)
    nine_gates = [f"{n}m" for n in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
    out = e.describe("eval", [nine_gates])
    assert out["hands"][0]["waits"] == [f"{n}m" for n in range(1, 10)]
    out = e.describe(
        "eval",
        [["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m", "5m"]],
    )
    assert out["hands"][0] == {
        "tiles": [
            "1m",
            "1m",
            "1m",
            "2m",
            "3m",
            "4m",
            "5m",
            "6m",
            "7m",
            "8m",
            "9m",
            "9m",
            "9m",
            "5m",
        ],
        "suits": ["m"],
        "win": True,
        "fan": 2,
        "patterns": ["清一色"],
    }


@pytest.mark.parametrize("variant", [XZ, DD])
def test_describe_answers_as_play_does_for_que_yi_men(variant: str) -> None:
    """000 血战麻将 缺一门才能胡牌 / 004 必须缺一门才可以胡牌: a winning shape in three
    suits is no win in bare-hand eval, and its waits are none, as win_refusal has it."""
    e = make_engine(variant)
    three = e.describe("eval", [["123m456m789m11p234s"]])["hands"][0]
    assert three["win"] is False and three["reason"] == "too_many_suits"
    assert three["suits"] == ["m", "p", "s"] and three["fan"] is None
    two = e.describe("eval", [["123m456m789m11p234p"]])["hands"][0]
    assert two["win"] is True and "reason" not in two
    waits3 = e.describe("eval", [["123m456m789m11p23s"]])["hands"][0]
    assert waits3["waits"] == [] and waits3["reason"] == "too_many_suits"
    # two suits held: a wait of a third suit is no wait (1m2m3m 4m5m6m 7m8m9m 1p1p 5s -> 5s)
    single = e.describe("eval", [["123m456m789m1p1p1p5s"]])["hands"][0]
    assert "5s" not in single["waits"]
    assert e.describe("eval", [["123m456m789m11p23p"]])["hands"][0]["waits"] == ["1p", "4p"]


def test_describe_without_a_suit_limit_keeps_three_suit_wins() -> None:
    out = make_engine(GD).describe("eval", [["123m456m789m11p234s"]])["hands"][0]
    assert out["win"] is True and "reason" not in out


def test_bad_deals_are_refused() -> None:
    e = make_engine(DD)
    gm = Game(e, {1: J1 + "9s", 2: J2, 3: J3, 4: J2}, "2s", wall=9)
    gm.act(1, "discard", tile="9s")
    gm.step(g.ACTION_TAKEN, {"seat": 2, "action": "discard", "args": {"tile": "2s"}})
    assert gm.e.next_deal(gm.st) == g.DealRequest(cards=(g.Deal("seat:3", up=False),))
    for cards, reason in (
        ([{"to": "seat:4", "card": "5m", "pos": 60, "up": False}], "bad_deal"),
        ([{"to": "seat:3", "card": "5m", "pos": 60, "up": True}], "bad_deal"),
        ([{"to": "seat:3", "card": "??", "pos": 60, "up": False}], "bad_card"),
        ([{"to": "seat:3", "card": "1z", "pos": 60, "up": False}], "bad_card"),
    ):
        with pytest.raises(RuleViolation) as err:
            gm.e.verify(gm.st, g.CARD_DEALT, {"cards": cards})
        assert err.value.reason == reason
    with pytest.raises(RuleViolation) as err:
        gm.e.verify(gm.st, g.DICE_ROLLED, {"dice": [1], "faces": [4], "roll": 0})
    assert err.value.reason == "unexpected_dice"


def test_bad_configs_are_refused() -> None:
    from croupier.errors import ConfigError, InvalidInput

    with pytest.raises(ConfigError):
        make_engine(XZ, dealer={"first_by_die": True, "rotation": "clockwise"})
    with pytest.raises(ConfigError):
        make_engine(XZ, liability={"value": "banker_pro_rata"})
    with pytest.raises(InvalidInput):
        make_engine(XZ, ghost={"indicator": True, "only_ghosts_win": True})
