"""百变双扣 (``shuangkou``, 004 百变双扣游戏规则): the move engine under its rules (财神 wild
card, bombs of four and more, 三王/天王, chains of bombs, the star table, bomb order),
hand-built games for 双扣/单扣/平扣, 接风, star doubling, contributions and limited
liability, and whole hands through the dealer with an audit PASS."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.cards import CARDS54
from croupier.dealing import Dealer, Hand
from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shedding.generator import legal_moves
from croupier.games.shedding.moves import (
    SHUANGKOU,
    Kind,
    Shape,
    beats,
    check_play,
    readings,
    sort_cards,
    stars,
    value_of,
)
from croupier.games.shedding.shuangkou import ShuangkouEngine, ShuangkouState
from croupier.testing import DEALER, GATEWAY, DealerRun, seat_rows
from croupier_services.bots import bot_for, next_move
from croupier_services.views import redact

BIG = 10**7


def eng() -> ShuangkouEngine:
    e = engine("shuangkou")
    assert isinstance(e, ShuangkouEngine)
    return e


def R(text: str) -> list[Shape]:
    return readings(text.split(), eng().rules.moves)


def V(rank: str) -> int:
    return value_of(rank if rank in ("BJ", "RJ") else rank + "s")


def test_the_config_moves_are_the_module_rules() -> None:
    assert eng().rules.moves == SHUANGKOU


@pytest.mark.parametrize(
    ("cards", "want"),
    [
        ("RJ", [Shape(Kind.SINGLE, V("RJ"))]),  # alone, the big joker is itself
        ("RJ RJ", [Shape(Kind.PAIR, V("RJ"))]),
        ("BJ BJ", [Shape(Kind.PAIR, V("BJ"))]),
        ("BJ RJ", []),  # no rocket in 双扣, and the wild is never a joker
        ("BJ BJ RJ", [Shape(Kind.JOKERS, V("RJ"), 1, 3)]),  # 三王
        ("BJ BJ RJ RJ", [Shape(Kind.JOKERS, V("RJ"), 1, 4)]),  # 天王
        ("5s RJ", [Shape(Kind.PAIR, V("5"))]),  # 财神 as a 5
        ("2s 2h RJ", [Shape(Kind.TRIO, V("2"))]),
        ("7s 7h 7d 7c", [Shape(Kind.BOMB, V("7"), 1, 4)]),
        ("7s 7h 7d 7c 7s RJ", [Shape(Kind.BOMB, V("7"), 1, 6)]),  # 6相, two decks
        (
            "5s 6s 7s 8s RJ",  # the wild at either end
            [Shape(Kind.STRAIGHT, V("4"), 5), Shape(Kind.STRAIGHT, V("5"), 5)],
        ),
        (
            "Ts Js Qs Ks RJ",  # 9-K or T-A, never past A
            [Shape(Kind.STRAIGHT, V("9"), 5), Shape(Kind.STRAIGHT, V("T"), 5)],
        ),
        ("5s 5h 6s 6h 7s RJ", [Shape(Kind.PAIR_STRAIGHT, V("5"), 3)]),
        ("5s 5h 5d 6s 6h 6d 7s 7h 7d", [Shape(Kind.TRIO_STRAIGHT, V("5"), 3)]),
        (
            # the seed's 3333 44444 555555 三连炸: 4相3连, 7 stars
            "3s 3h 3d 3c 4s 4h 4d 4c 4s 5s 5h 5d 5c 5s 5h",
            [Shape(Kind.BOMB_CHAIN, V("3"), 3, 4, 15)],
        ),
        (
            # the wild fills the thin link: 4相3连
            "3s 3h 3d 4s 4h 4d 4c 5s 5h 5d 5c RJ",
            [Shape(Kind.BOMB_CHAIN, V("3"), 3, 4, 12)],
        ),
        (
            # and raises the thinnest link where it can: 5相3连 (8 stars)
            "3s 3h 3d 3c 3s 4s 4h 4d 4c 4s 5s 5h 5d 5c RJ",
            [Shape(Kind.BOMB_CHAIN, V("3"), 3, 5, 15)],
        ),
    ],
)
def test_readings_with_the_wild_card(cards: str, want: list[Shape]) -> None:
    assert R(cards) == want


@pytest.mark.parametrize(
    "cards",
    [
        "Js Qs Ks As 2s",  # 2 cannot be in a straight
        "3s 4s 5s 6s BJ",  # nor the small joker
        "As 2s RJ 3s 4s",  # no wrapping
        "5s 5h 5d 6s 6h 6d",  # 连三张 needs three trios
        "5s 5h 6s 6h",  # 连对 needs three pairs
        "3s 3h 3d 3c 4s 4h 4d 4c",  # 连炸 needs three bombs
        "Ks Kh Kd Kc As Ah Ad Ac 2s 2h 2d 2c",  # 2 is no link of a 连炸
        "3s 3h 3d 4s",  # no 三带一 in 双扣
        "BJ 5s",  # the small joker is not wild
        "5s 5h RJ RJ 6s",  # not a move
    ],
)
def test_illegal_shapes(cards: str) -> None:
    assert R(cards) == []


def test_the_star_table() -> None:
    """004 3、牌型: X相 = X stars, X相Y连 = X + Y (the seed's table), 三王 6, 天王 7."""
    table = {
        (4, 3): 7,
        (4, 4): 8,
        (4, 5): 9,
        (4, 6): 10,
        (5, 3): 8,
        (5, 4): 9,
        (5, 5): 10,
        (6, 3): 9,
        (6, 4): 10,
        (7, 3): 10,
        (8, 3): 11,
    }
    for (x, y), want in table.items():
        assert stars(Shape(Kind.BOMB_CHAIN, 3, y, x, x * y)) == want
    for x in range(4, 11):
        assert stars(Shape(Kind.BOMB, 7, 1, x)) == x
    assert stars(Shape(Kind.JOKERS, 17, 1, 3)) == 6
    assert stars(Shape(Kind.JOKERS, 17, 1, 4)) == 7
    assert stars(Shape(Kind.STRAIGHT, 3, 5)) == 0


def test_bomb_order() -> None:
    r = SHUANGKOU

    def b(rank: str, n: int) -> Shape:
        return Shape(Kind.BOMB, V(rank), 1, n)

    three_kings = Shape(Kind.JOKERS, 17, 1, 3)
    four_kings = Shape(Kind.JOKERS, 17, 1, 4)
    chain7 = Shape(Kind.BOMB_CHAIN, V("3"), 3, 4, 12)  # 4相3连, 7 stars, 12 cards
    assert beats(b("3", 5), b("2", 4), r)  # stars first
    assert beats(b("4", 4), b("3", 4), r) and not beats(b("3", 4), b("4", 4), r)
    assert beats(b("3", 7), chain7, r)  # 7 stars each: fewer cards is bigger
    assert beats(four_kings, b("2", 7), r) and beats(four_kings, chain7, r)  # 天王: top 7
    assert beats(b("2", 8), three_kings, r)  # 8 stars beat any 6
    assert beats(b("3", 6), three_kings, r) and not beats(three_kings, b("3", 6), r)
    assert beats(three_kings, b("2", 5), r)
    assert beats(b("3", 4), Shape(Kind.STRAIGHT, V("T"), 5), r)  # a bomb beats the rest
    assert not beats(Shape(Kind.PAIR, V("RJ")), b("3", 4), r)
    # chains by their highest card, same kind and same size only

    def s(lo: str, n: int) -> Shape:
        return Shape(Kind.STRAIGHT, V(lo), n)

    assert beats(s("4", 5), s("3", 5), r) and not beats(s("4", 6), s("3", 5), r)


def test_generated_moves_validate_for_two_decks_with_wilds() -> None:
    rng = random.Random(3)
    deck = list(CARDS54) * 2
    n = 0
    for _ in range(40):
        hand = rng.sample(deck, 27)
        for table in (None, rng.choice(legal_moves(hand, None, SHUANGKOU)).shape):
            for p in legal_moves(hand, table, SHUANGKOU):
                got = check_play(list(p.cards), p.shape, table, SHUANGKOU)
                assert got == p.shape, (p, got)
                n += 1
    assert n > 2000


def test_the_generator_finds_wild_bombs_and_chains() -> None:
    hand = ["3s", "3h", "3d", "3c", "4s", "4h", "4d", "4c", "5s", "5h", "5d", "RJ", "RJ", "9s"]
    shapes = {p.shape.text() for p in legal_moves(hand, None, SHUANGKOU)}
    assert {"bomb:3", "bomb:3w5", "bomb:3w6", "bomb:5", "bomb_chain:3x3"} <= shapes
    assert "pair:RJ" in shapes and "single:RJ" in shapes and "bomb_chain:3x3w5" not in shapes


# -- hand-built games --------------------------------------------------------------------
SORTED = sorted(list(CARDS54) * 2, key=lambda c: (value_of(c), c))


def block_deal() -> list[list[str]]:
    """Seat 1 the 27 lowest cards (eight 3s, 4s and 5s, three 6s), and so on."""
    return [SORTED[27 * i : 27 * i + 27] for i in range(4)]


def spread_deal() -> list[list[str]]:
    """Round robin from the sorted decks: two of each rank and one joker each; no bombs."""
    return [SORTED[i::4] for i in range(4)]


class Game:
    def __init__(self, hands: list[list[str]], *, die: int = 1, stacks: Sequence[int] = ()) -> None:
        self.e = eng()
        stacks = stacks or (BIG,) * 4
        self.st: ShuangkouState = self.e.open(
            "h1",
            {
                "variant": "shuangkou",
                "config_version": self.e.config.version,
                "table": "t",
                "hand_no": 1,
                "shoe_hand_no": 1,
                "seats": [
                    {"seat": n, "player": f"p{n}", "stack": s}
                    for n, s in zip((1, 2, 3, 4), stacks, strict=True)
                ],
            },
        )
        self.step(g.BETTING_CLOSED, {})
        self.step(g.DICE_ROLLED, {"dice": [die], "faces": [4], "roll": 0})
        cards = [
            {"to": f"seat:{s + 1}", "card": hands[s][i], "pos": 4 * i + s, "up": False}
            for i in range(27)
            for s in range(4)
        ]
        self.step(g.CARD_DEALT, {"cards": cards})

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)

    def play(self, seat: int, cards: str, move: str, rank: str) -> None:
        args = {"cards": cards.split(), "move": move, "rank": rank}
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": "play", "args": args})

    def single(self, seat: int, card: str) -> None:
        self.play(seat, card, "single", card if card in ("BJ", "RJ") else card[0])

    def others_pass(self) -> None:
        while self.st.turn is not None and self.st.trick is not None:
            if self.st.turn == self.st.trick[0]:
                return
            before = self.st.trick
            self.step(g.ACTION_TAKEN, {"seat": self.st.turn, "action": "pass", "args": {}})
            if self.st.trick is None or self.st.trick is not before:
                return

    def run_out(self, seat: int) -> None:
        """``seat`` leads its cards one by one, lowest first; the others pass."""
        while self.st.hands[seat] and self.st.phase == "playing":
            assert self.st.turn == seat and self.st.trick is None
            self.single(seat, sort_cards(self.st.hands[seat])[0])
            self.others_pass()

    def deltas(self) -> dict[str, int]:
        return dict(self.e.settle(self.st).deltas)


def test_double_kou_with_an_eight_star_bomb_and_jiefeng() -> None:
    """Seat 1 plays eight 3s (8 stars: x16 for the winners, 8 基础分 from each other
    player), then its cards; 接风 gives the lead to seat 3, who goes out second: 双扣."""
    gm = Game(block_deal())
    assert gm.st.first == 1 and gm.st.turn == 1
    gm.play(1, " ".join(SORTED[:8]), "bomb", "3")
    gm.others_pass()
    gm.run_out(1)
    assert gm.st.out == [1] and gm.st.turn == 3 and gm.st.trick is None  # 接风
    gm.run_out(3)
    o = gm.e.outcome(gm.st)
    assert (o["out"], o["result"], o["points"], o["best_stars"], o["multiplier"]) == (
        [1, 3],
        "双扣",
        3,
        8,
        16,
    )
    assert o["contributions"] == [[1, 8, 8]]
    # 3 x 16 = 48 基础分 from each loser; 8 from each of the three others to seat 1
    assert gm.deltas() == {"p1": 4800 + 2400, "p2": -4800 - 800, "p3": 4800 - 800, "p4": -5600}


def test_single_kou() -> None:
    gm = Game(spread_deal())
    gm.run_out(1)
    assert gm.st.turn == 3  # 接风
    gm.single(3, "3s")
    assert gm.st.turn == 2  # counter-clockwise: 3, then 2 (1 is out), then 4
    gm.single(2, "BJ")
    gm.others_pass()
    assert gm.st.turn == 2
    gm.run_out(2)
    assert gm.st.turn == 4  # 接风 to seat 2's partner
    gm.single(4, "3s")
    gm.single(3, "RJ")
    gm.others_pass()
    gm.run_out(3)
    o = gm.e.outcome(gm.st)
    assert (o["out"], o["result"], o["multiplier"], o["bombs"]) == ([1, 2, 3], "单扣", 1, [])
    assert gm.deltas() == {"p1": 200, "p2": -200, "p3": 200, "p4": -200}


def test_flat_kou() -> None:
    gm = Game(spread_deal())
    gm.run_out(1)
    gm.single(3, "3s")
    gm.single(2, "BJ")
    gm.others_pass()
    gm.run_out(2)
    assert gm.st.turn == 4
    gm.run_out(4)
    o = gm.e.outcome(gm.st)
    assert (o["out"], o["result"], o["winners"]) == ([1, 2, 4], "平扣", [1, 3])
    assert gm.deltas() == {"p1": 100, "p2": -100, "p3": 100, "p4": -100}
    assert gm.e.is_over(gm.st) and gm.e.auto_action(gm.st) is None


def test_losers_short_pay_pro_rata() -> None:
    """The 双扣 above with seats 2 and 4 carrying 1000 and 3000: nobody loses more than
    carried; the winners' wins scale down to the losers' limited total (proportional to
    carried, the family default)."""
    gm = Game(block_deal(), stacks=(BIG, 1000, BIG, 3000))
    gm.play(1, " ".join(SORTED[:8]), "bomb", "3")
    gm.others_pass()
    gm.run_out(1)
    gm.run_out(3)
    # theoretical +7200 and +4000 scaled to the 4000 the losers can pay: 2571 3/7 and
    # 1428 4/7, truncated from the receivers; seat 4 keeps the unit the fractions make
    assert gm.deltas() == {"p1": 2571, "p2": -1000, "p3": 1428, "p4": -2999}


def test_refused_moves() -> None:
    gm = Game(block_deal(), die=2)
    assert gm.st.turn == 2

    def refused(seat: int, action: str, reason: str, **args: Any) -> None:
        with pytest.raises(RuleViolation) as err:
            gm.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        assert err.value.reason == reason, err.value.message

    refused(2, "pass", "must_lead")
    refused(1, "play", "out_of_turn", cards=["3s"], move="single", rank="3")
    refused(2, "play", "not_in_hand", cards=["3s"], move="single", rank="3")
    refused(2, "play", "illegal_move", cards=["6s", "7s"], move="pair", rank="7")
    refused(2, "bid", "unknown_action", points=1)
    gm.single(2, "9c")
    assert gm.st.turn == 1  # counter-clockwise from 2
    refused(3, "play", "out_of_turn", cards=["Ts"], move="single", rank="T")
    refused(1, "play", "does_not_beat", cards=["6c"], move="single", rank="6")
    refused(1, "play", "does_not_beat", cards=["3s", "3s"], move="pair", rank="3")


# -- through the dealer ----------------------------------------------------------------
SEATS = seat_rows((1, 2, 3, 4), 10**6)


def view(hand: Hand, seat: int | None) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, json.loads(e.payload_json)) for e in redact(hand.events, seat)]


def test_whole_hands_by_bots_and_timeouts_through_the_dealer_audit_pass() -> None:
    run = DealerRun("shuangkou", "sk", SEATS, seed_base=0)
    e, bot = bot_for("shuangkou")
    rng = random.Random(9)
    hands = []
    for i in range(4):
        hand = run.open()
        hid = hand.hand_id
        while not hand.state.closed:
            if i % 2:  # timeouts: 托管 to the end (004 5、玩家逃跑)
                run.keep(run.dealer.expire(hid))
                continue
            seat = bot.seat_to_act(e, view(hand, None))  # type: ignore[attr-defined]
            move = next_move("shuangkou", view(hand, seat), rng)
            assert move is not None and move.seat == seat
            run.keep(run.dealer.act(hid, move.seat, move.action, move.args))
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    for hand in hands:
        assert isinstance(e, ShuangkouEngine)
        state = e.replay(
            hand.hand_id, [(x.type, x.payload) for x in run.stream(hand.hand_id).events]
        )
        rep, hs = run.audit(hand.hand_id)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert state.side_out() and sum(n for _, n in hs.postings) == 0


def test_describe() -> None:
    e = eng()
    out = e.describe("eval", [["BJ", "BJ", "RJ"], ["5s", "6s", "7s", "8s", "RJ"]])
    assert out["hands"][0] == {"cards": ["BJ", "BJ", "RJ"], "moves": ["jokers:RJ"], "stars": [6]}
    assert out["hands"][1]["moves"] == ["straight:4x5", "straight:5x5"]
    cmp = e.describe(
        "compare", [["7s", "7h", "7d", "7c", "7s"], ["3s", "3h", "3d", "3c", "3s", "3h"]]
    )
    assert cmp["beats"] is True  # 6相 over 5相


def test_the_seed_examples_of_star_doubling_and_contributions() -> None:
    """004 积分计算: 双扣 with five stars 6分, six 12分, seven 24分, eight 48分, nine and ten
    as eight; contributions 2, 4, 8, 16, 32, 64 基础分 for 6..11 stars."""
    r = eng().rules
    assert [3 * r.multiplier(s) for s in range(0, 11)] == [3] * 5 + [6, 12, 24, 48, 48, 48]
    assert [r.contribution(s) for s in range(4, 12)] == [0, 0, 2, 4, 8, 16, 32, 64]
    assert [r.points[place] for place in (2, 3, 4)] == [3, 2, 1]  # 双扣, 单扣, 平扣


def test_a_refused_play_through_the_dealer_writes_nothing() -> None:
    clock = itertools.count(1)
    seeds = (hashlib.sha256(f"r{n}".encode()).digest() for n in itertools.count())
    d = Dealer(DEALER, GATEWAY, clock_ms=lambda: next(clock), seed_source=lambda: next(seeds))
    d.open_table("t1", "shuangkou")
    hid, _ = d.open_hand("t1", SEATS)
    d.close_betting(hid)
    hand = d.hand(hid)
    st = hand.state
    assert isinstance(st, ShuangkouState) and st.turn is not None
    n = len(hand.events)
    other = next(s for s in st.order if s != st.turn)
    card = st.hands[other][0]
    for seat, args, reason in (
        (st.turn, {}, "must_lead"),
        (other, {"cards": [card], "move": "single", "rank": "3"}, "out_of_turn"),
    ):
        with pytest.raises(RuleViolation) as err:
            d.act(hid, seat, "pass" if not args else "play", args)
        assert err.value.reason == reason
    mine = sort_cards(st.hands[st.turn])[0]
    with pytest.raises(RuleViolation) as err:
        d.act(hid, st.turn, "play", {"cards": [mine], "move": "pair", "rank": "3"})
    assert err.value.reason in ("wrong_reading", "illegal_move")
    assert len(hand.events) == n and not hand.writer.pending


def test_play_goes_counter_clockwise() -> None:
    """004 百变双扣游戏规则 2、出牌: 由庄家开始出牌，然后按逆时针顺序依次出牌. Seat numbers
    increase clockwise (the project's convention): after seat 1 comes seat 4, then 3, 2."""
    gm = Game(spread_deal())
    gm.single(1, sort_cards(gm.st.hands[1])[0])
    assert gm.st.turn == 4
    with pytest.raises(RuleViolation) as err:
        gm.step(g.ACTION_TAKEN, {"seat": 2, "action": "pass", "args": {}})
    assert err.value.reason == "out_of_turn"
    seen = []
    for _ in range(3):
        seen.append(gm.st.turn)
        gm.step(g.ACTION_TAKEN, {"seat": gm.st.turn, "action": "pass", "args": {}})
    assert seen == [4, 3, 2] and gm.st.turn == 1 and gm.st.trick is None
