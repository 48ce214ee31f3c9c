"""The 斗地主 engine on hand-built games: bidding, 抢地主 and 加倍 flows, the kitty, play
and passing, spring and anti-spring, bombs, the caps, limited liability with the
farmers short and with the landlord short, the rake, void hands and the carry, and
refused input. Figures are the seeds' formulas worked by hand:

* 000 斗地主 1.4.4: farmer win - each farmer base x bid x multiple x 95%, the landlord
  pays 2 x base x bid x multiple; landlord win mirrored; 1.4.1 叫分 x 倍数 at most 30;
* 000 加倍斗地主 1.3.4 with 抢地主翻倍数 and 加倍翻倍数, caps 128 / 256 (1.3.1);
* 004 三人斗地主 积分计算: base x bid x multiple x (landlord 2, farmer 1), no fee.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from croupier.cards import CARDS54
from croupier.errors import BetRejected, ConfigError, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shedding.engine import DoudizhuEngine, DoudizhuState

BASE = 100
BIG = 10**6


def eng(variant: str) -> DoudizhuEngine:
    e = engine(variant)
    assert isinstance(e, DoudizhuEngine)
    return e


# Seat 1 holds four bombs (3-6) and the kitty makes 7777 a fifth; seat 2 four more
# (8-J) and a queen; seat 3 the rest, the rocket included.
SEAT1 = "3s 3h 3d 3c 4s 4h 4d 4c 5s 5h 5d 5c 6s 6h 6d 6c 7s"
SEAT2 = "8s 8h 8d 8c 9s 9h 9d 9c Ts Th Td Tc Js Jh Jd Jc Qs"
KITTY = "7h 7d 7c"


class Game:
    """A hand fed event by event through :meth:`Engine.step`."""

    def __init__(
        self,
        variant: str,
        *,
        die: int | None = 1,
        stacks: Sequence[int] = (BIG, BIG, BIG),
        carry: dict[str, Any] | None = None,
        hands: tuple[str, str, str] = (SEAT1, SEAT2, KITTY),
    ) -> None:
        self.e = eng(variant)
        payload = {
            "variant": variant,
            "config_version": self.e.config.version,
            "table": "t",
            "hand_no": 1,
            "shoe_hand_no": 1,
            "seats": [
                {"seat": n, "player": f"p{n}", "stack": s}
                for n, s in zip((1, 2, 3), stacks, strict=True)
            ],
            "shoe": "",
            "commitment": "",
            "carry": carry or {},
        }
        self.st: DoudizhuState = self.e.open("h1", payload)
        self.step(g.BETTING_CLOSED, {})
        if self.st.phase == "dice":
            assert die is not None
            self.step(g.DICE_ROLLED, {"dice": [die], "faces": [3], "roll": 0})
        one, two, kitty = (h.split() for h in hands)
        three = [c for c in CARDS54 if c not in {*one, *two, *kitty}]
        self.kitty = kitty
        by_seat = {1: one, 2: two, 3: three}
        cards = [
            {"to": f"seat:{s}", "card": by_seat[s][i], "pos": 3 * i + s - 1, "up": False}
            for i in range(17)
            for s in (1, 2, 3)
        ]
        cards += [
            {"to": "kitty", "card": c, "pos": 51 + i, "up": False} for i, c in enumerate(kitty)
        ]
        self.step(g.CARD_DEALT, {"cards": cards})

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)

    def act(self, seat: int, action: str, **args: Any) -> None:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})

    def bid(self, points: int) -> None:
        """Seat 1 (first to bid) bids ``points``; the others do not bid."""
        self.act(1, "bid", points=points)
        if points < 3:
            self.act(2, "bid", points=0)
            self.act(3, "bid", points=0)

    def play(self, seat: int, cards: str, move: str, rank: str) -> None:
        self.act(seat, "play", cards=cards.split(), move=move, rank=rank)

    def passes(self, *seats: int) -> None:
        for s in seats:
            self.act(s, "pass")

    def reveal(self) -> None:
        assert self.e.next_deal(self.st) == g.DealRequest(reveal=("kitty",))
        self.step(g.CARDS_REVEALED, {"to": "kitty", "cards": self.kitty})

    def refused(self, seat: int, action: str, reason: str, **args: Any) -> None:
        with pytest.raises(RuleViolation) as err:
            self.act(seat, action, **args)
        assert err.value.reason == reason, err.value.message

    def close(self) -> None:
        self.step(g.HAND_CLOSED, {"positions_used": 54, "carry": self.e.carry(self.st)})

    def deltas(self) -> dict[str, int]:
        return dict(self.e.settle(self.st).deltas)

    def rake(self) -> int:
        return self.e.settle(self.st).total_rake


def landlord_bombs_out(game: Game, landlord: int = 1) -> None:
    """Seat 1, landlord, plays its five bombs; the farmers pass each time (in the
    variant's direction of play): a spring."""
    for r in "34567":
        game.play(landlord, " ".join(f"{r}{s}" for s in "shdc"), "bomb", r)
        while game.st.phase != "done" and game.st.turn != landlord:
            assert game.st.turn is not None
            game.passes(game.st.turn)


def test_deal_dice_and_bidding_order() -> None:
    gm = Game("doudizhu.classic", die=2)
    st = gm.st
    assert st.first_bidder == 2 and st.turn == 2 and st.phase == "bidding"
    assert [len(st.hands[s]) for s in (1, 2, 3)] == [17, 17, 17] and st.kitty == KITTY.split()
    gm.refused(1, "bid", "out_of_turn", points=1)
    gm.act(2, "bid", points=1)
    gm.refused(3, "bid", "bid_too_low", points=1)
    gm.refused(3, "bid", "bad_bid", points=4)
    gm.act(3, "bid", points=2)
    gm.act(1, "bid", points=0)
    assert st.landlord == 3 and st.phase == "reveal" and st.turn is None
    gm.refused(3, "play", "wrong_phase", cards=["3s"], move="single", rank="3")
    with pytest.raises(RuleViolation) as err:
        gm.step(g.CARDS_REVEALED, {"to": "kitty", "cards": ["7h", "7d", "7s"]})
    assert err.value.reason == "bad_reveal"
    gm.reveal()
    assert len(st.hands[3]) == 20 and st.phase == "playing" and st.turn == 3


def test_a_bid_of_three_ends_the_bidding_at_once() -> None:
    gm = Game("doudizhu.classic", die=3)
    gm.act(3, "bid", points=3)
    assert gm.st.landlord == 3 and gm.st.bids == [(3, 3)]


def test_classic_spring_with_five_bombs_hits_the_cap_of_30() -> None:
    gm = Game("doudizhu.classic")
    gm.act(1, "bid", points=3)
    gm.reveal()
    landlord_bombs_out(gm)
    o = gm.e.outcome(gm.st)
    assert (o["winner"], o["bombs"], o["spring"], o["multiple"]) == ("landlord", 5, True, 64)
    # 叫分 x 倍数 = 3 x 64 = 192, capped at 30: each farmer pays 100 x 30
    assert gm.deltas() == {"p1": 6000 - 300, "p2": -3000, "p3": -3000}
    assert gm.rake() == 300
    steps = gm.e.settle(gm.st).steps
    assert any(s.rule == "doudizhu_cap" and getattr(s, "adjustments", ()) for s in steps)
    gm.close()
    assert gm.e.carry(gm.st) == {"first_bidder": "p1"}


def test_classic_spring_under_the_cap() -> None:
    gm = Game("doudizhu.classic")
    gm.bid(1)
    gm.reveal()
    # one bomb, then two 四带二 with two pairs (no bombs): 倍数 2 (bomb) x 2 (spring)
    gm.play(1, "3s 3h 3d 3c", "bomb", "3")
    gm.passes(2, 3)
    gm.play(1, "4s 4h 4d 4c 5s 5h 5d 5c", "four_two_pairs", "4")
    gm.passes(2, 3)
    gm.play(1, "6s 6h 6d 6c 7s 7h 7d 7c", "four_two_pairs", "7")
    o = gm.e.outcome(gm.st)
    assert (o["spring"], o["bombs"], o["multiple"]) == (True, 1, 4)
    # landlord win: 2 x 100 x 1 x 4 = 800 less 5%; each farmer 400
    assert gm.deltas() == {"p1": 760, "p2": -400, "p3": -400}


def test_a_play_checked_then_made_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A step checks an action, then makes it, with the same payload: its parse and its
    cards' reading (check_play) are the check's, kept by the engine for that payload
    object. A payload made without its check (a bot's view) or another object with the
    same content is read afresh; either way the state is the same."""
    from croupier.games.shedding import engine as module

    parsed: list[object] = []
    read: list[object] = []
    parse_action, check_play = vars(module)["parse_action"], vars(module)["check_play"]

    def counted_parse(p: Any, allowed: Any) -> Any:
        parsed.append(p)
        return parse_action(p, allowed)

    def counted_check(*args: Any) -> Any:
        read.append(args[0])
        return check_play(*args)

    monkeypatch.setattr(module, "parse_action", counted_parse)
    monkeypatch.setattr(module, "check_play", counted_check)
    gm = Game("doudizhu.classic")
    gm.bid(1)
    gm.reveal()
    parsed.clear()
    before = copy.deepcopy(gm.st)
    args = {"cards": ["3s", "3h", "3d", "3c"], "move": "bomb", "rank": "3"}
    bomb = {"seat": 1, "action": "play", "args": args}
    gm.step(g.ACTION_TAKEN, bomb)
    assert len(parsed) == 1 and len(read) == 1  # checked, then made: read once
    again = copy.deepcopy(before)
    gm.e.apply(again, g.ACTION_TAKEN, copy.deepcopy(bomb))  # made alone: read afresh
    assert len(parsed) == 2 and len(read) == 2 and again == gm.st
    gm.e.apply(before, g.ACTION_TAKEN, bomb)  # the checked payload, on another state
    assert len(parsed) == 2 and before == gm.st
    gm.passes(2)
    assert len(parsed) == 3 and len(read) == 2  # a pass: parsed once, no cards read
    assert gm.st.turn == 3 and gm.st.passes == 1


def anti_spring(gm: Game, *, bid: int) -> None:
    """Seat 1 leads one single, seat 2 takes the trick and goes out without a bomb."""
    gm.bid(bid)
    gm.reveal()
    gm.play(1, "3s", "single", "3")
    gm.play(2, "Qs", "single", "Q")
    gm.passes(3, 1)
    gm.play(2, "8s 8h 8d 8c 9s 9h 9d 9c", "four_two_pairs", "8")
    gm.passes(3)
    gm.refused(1, "play", "not_in_hand", cards=["Ts"], move="single", rank="T")
    gm.refused(
        1,
        "play",
        "does_not_beat",
        cards=["4s", "4h", "4d", "4c", "5s", "5h", "5d", "5c"],
        move="four_two_pairs",
        rank="4",
    )
    gm.passes(1)
    gm.play(2, "Ts Th Td Tc Js Jh Jd Jc", "four_two_pairs", "J")


def test_classic_anti_spring_farmers_win_the_seed_formula() -> None:
    gm = Game("doudizhu.classic")
    anti_spring(gm, bid=1)
    o = gm.e.outcome(gm.st)
    assert (o["winner"], o["anti_spring"], o["spring"], o["multiple"]) == (
        "farmers",
        True,
        False,
        2,
    )
    # farmer win: each farmer 100 x 1 x 2 x 95% = 190, the landlord pays 2 x 100 x 1 x 2
    assert gm.deltas() == {"p1": -400, "p2": 190, "p3": 190}
    assert gm.rake() == 20
    assert gm.e.carry(gm.st) == {"first_bidder": "p2"}  # the first player out bids first


def test_liability_with_the_farmers_short() -> None:
    """000 1.4.2: the farmers' 可得分 (limited to 1000 and 500 carried) add up to less than
    the landlord's; they pay what they carry and the landlord gets their sum."""
    gm = Game("doudizhu.classic", stacks=(BIG, 1000, 500))
    gm.act(1, "bid", points=3)
    gm.reveal()
    landlord_bombs_out(gm)
    assert gm.deltas() == {"p1": 1500 - 75, "p2": -1000, "p3": -500}


def test_liability_with_the_landlord_short() -> None:
    """000 1.4.2 step 03): bid 3, anti-spring: the farmers' 600 each exceed the landlord's
    500 carried; each gets 600 / 1200 x 500 = 250, less 5% (truncated: 12)."""
    gm = Game("doudizhu.classic", stacks=(500, BIG, BIG))
    anti_spring(gm, bid=3)
    assert gm.deltas() == {"p1": -500, "p2": 238, "p3": 238}
    assert gm.rake() == 24


def test_void_hand_when_nobody_bids() -> None:
    gm = Game("doudizhu.classic", carry={"first_bidder": "p3"}, die=None)
    assert gm.st.die is None and gm.st.first_bidder == 3
    for s in (3, 1, 2):
        gm.act(s, "bid", points=0)
    assert gm.e.is_over(gm.st) and gm.st.void
    assert gm.e.outcome(gm.st) == {
        "first_bidder": 3,
        "die": None,
        "bids": [[3, 0], [1, 0], [2, 0]],
        "void": True,
    }
    assert gm.deltas() == {"p1": 0, "p2": 0, "p3": 0}
    assert gm.e.carry(gm.st) == {"first_bidder": "p3"}  # the same player bids first again
    gm.close()


def test_a_carried_first_bidder_who_left_is_drawn_again() -> None:
    gm = Game("doudizhu.classic", carry={"first_bidder": "someone_else"}, die=2)
    assert gm.st.die == 2 and gm.st.first_bidder == 2


def test_refused_plays() -> None:
    gm = Game("doudizhu.classic")
    gm.bid(1)
    gm.reveal()
    gm.refused(1, "pass", "must_lead")
    gm.refused(1, "play", "illegal_move", cards=["3s", "4s"], move="pair", rank="3")
    gm.refused(1, "play", "wrong_reading", cards=["3s", "3h"], move="pair", rank="4")
    gm.refused(1, "play", "not_in_hand", cards=["Qs"], move="single", rank="Q")
    gm.refused(1, "play", "bad_card", cards=["Xx"], move="single", rank="Q")
    gm.refused(1, "play", "malformed", cards=["3s"], move="single", rank="3", extra=1)
    gm.refused(1, "fold", "unknown_action")
    gm.refused(1, "double", "wrong_phase", double=True)
    gm.play(1, "7s 7h", "pair", "7")
    gm.refused(2, "play", "does_not_beat", cards=["8s"], move="single", rank="8")
    gm.refused(2, "play", "does_not_beat", cards=["8s", "8h", "8d"], move="trio", rank="8")
    gm.refused(3, "pass", "out_of_turn")
    gm.act(2, "pass")
    gm.act(3, "play", cards=["BJ", "RJ"], move="rocket", rank="RJ")
    gm.refused(1, "play", "does_not_beat", cards=["3s", "3h", "3d", "3c"], move="bomb", rank="3")
    with pytest.raises(BetRejected) as err:
        gm.step(g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 100})
    assert err.value.reason == "no_bets"


def test_doubling_grab_and_double_flow() -> None:
    """加倍斗地主: seat 3 bids 1, seat 1 bids 2, seat 2 passes; grabbing starts after the top
    bidder (seat 2, who did not bid and cannot grab), seat 3 grabs, seat 1 grabs back."""
    gm = Game("doudizhu.doubling", die=3)
    gm.act(3, "bid", points=1)
    gm.act(1, "bid", points=2)
    gm.act(2, "bid", points=0)
    assert gm.st.phase == "grabbing" and gm.st.turn == 3
    gm.refused(2, "grab", "not_a_bidder", grab=True)
    gm.refused(1, "grab", "out_of_turn", grab=True)
    gm.act(3, "grab", grab=True)
    assert gm.st.turn == 1  # the top bidder may grab it back, last
    gm.act(1, "grab", grab=True)
    assert gm.st.landlord == 1 and gm.st.phase == "reveal"
    gm.reveal()
    assert gm.st.phase == "doubling" and gm.st.turn == 2
    gm.refused(1, "double", "landlord_cannot_double", double=True)
    gm.act(2, "double", double=True)
    gm.act(3, "double", double=False)
    assert gm.st.phase == "playing" and gm.st.turn == 1
    landlord_bombs_out(gm)
    o = gm.e.outcome(gm.st)
    assert (o["grab_factor"], o["multiple"], o["doubles"]) == (4, 64, {"2": True, "3": False})
    # seat 2: 2 x 4 x 2 x 64 = 1024, seat 3: 512; both capped at 128 (1.3.1), so the
    # landlord's sum is 256, its own cap
    assert gm.deltas() == {"p1": 25600 - 1280, "p2": -12800, "p3": -12800}


def test_doubling_under_the_caps_follows_the_formula() -> None:
    """1.3.4 farmer win: 底分 x 叫分 x 抢地主翻倍数 x 加倍翻倍数 x 倍数 x 95% for each farmer,
    the landlord pays their sum. Nobody grabs; seat 2 doubles."""
    gm = Game("doudizhu.doubling", die=1)
    gm.act(1, "bid", points=2)
    gm.act(2, "bid", points=0)
    gm.act(3, "bid", points=0)
    assert gm.st.landlord == 1 and gm.st.grabs == []  # no other bidder: no grab round
    gm.reveal()
    gm.act(2, "double", double=True)
    gm.act(3, "double", double=False)
    gm.play(1, "3s", "single", "3")
    gm.play(2, "Qs", "single", "Q")
    gm.passes(3, 1)
    gm.play(2, "8s 8h 8d 8c 9s 9h 9d 9c", "four_two_pairs", "8")
    gm.passes(3, 1)
    gm.play(2, "Ts Th Td Tc Js Jh Jd Jc", "four_two_pairs", "J")
    # seat 2: 100 x 2 x 1 x 2 x 2 (反春) = 800 -> 760; seat 3: 400 -> 380
    assert gm.deltas() == {"p1": -1200, "p2": 760, "p3": 380}


def test_doubling_nobody_grabs_the_top_bidder_keeps_it() -> None:
    gm = Game("doudizhu.doubling", die=1)
    gm.act(1, "bid", points=1)
    gm.act(2, "bid", points=2)
    gm.act(3, "bid", points=0)
    assert gm.st.turn == 1  # seat 3 did not bid: seat 1 is asked
    gm.act(1, "grab", grab=False)
    assert gm.st.landlord == 2 and gm.st.grabs == [(1, False)]


def test_doubling_timeouts_never_bid() -> None:
    gm = Game("doudizhu.doubling", die=1)
    assert gm.e.auto_action(gm.st) == (1, "bid", {"points": 0})


def test_three_players_double_before_the_kitty_and_the_landlord_doubles_both() -> None:
    """004: 加倍 after the bidding (all three, from the landlord), then the kitty; score
    底分 x 叫分 x 倍数 x 身份系数 with each 加倍 doubling the player's result; no fee."""
    gm = Game("doudizhu.three", die=1)
    gm.act(1, "bid", points=3)
    assert gm.st.phase == "doubling" and gm.st.turn == 1 and not gm.st.kitty_shown
    gm.act(1, "double", double=True)
    gm.act(3, "double", double=False)  # counter-clockwise (004 5、出牌)
    gm.act(2, "double", double=True)
    gm.reveal()
    assert gm.st.phase == "playing"
    landlord_bombs_out(gm)
    # seat 2: 100 x 3 x 64 x 2 (own) x 2 (landlord's) = 76800; seat 3: 38400
    assert gm.deltas() == {"p1": 115200, "p2": -76800, "p3": -38400}
    assert gm.rake() == 0
    assert gm.e.carry(gm.st) == {}


def test_three_players_plain_score_is_landlord_two_farmers_one() -> None:
    gm = Game("doudizhu.three", die=1)
    gm.act(1, "bid", points=1)  # counter-clockwise (004 3、叫牌, 5、出牌): 1, 3, 2
    gm.act(3, "bid", points=0)
    gm.act(2, "bid", points=2)
    for s in (2, 1, 3):
        gm.act(s, "double", double=False)
    gm.reveal()
    gm.play(2, "Qs", "single", "Q")
    gm.passes(1, 3)
    gm.play(2, "8s 8h 8d 8c 9s 9h 9d 9c", "four_two_pairs", "8")
    gm.passes(1, 3)
    gm.play(2, "Ts Th Td Tc Js Jh Jd Jc", "four_two_pairs", "J")
    gm.passes(1, 3)
    # the kitty went to seat 2; 7h 7d 7c left to play
    gm.play(2, "7h 7d 7c", "trio", "7")
    o = gm.e.outcome(gm.st)
    assert (o["winner"], o["spring"], o["multiple"]) == ("landlord", True, 2)
    assert gm.deltas() == {"p1": -400, "p2": 800, "p3": -400}


def test_auto_play_finishes_every_variant() -> None:
    for variant in ("doudizhu.classic", "doudizhu.doubling", "doudizhu.three"):
        for die in (1, 2, 3):
            gm = Game(variant, die=die)
            while not gm.e.is_over(gm.st):
                if gm.st.phase == "reveal":
                    gm.reveal()
                    continue
                auto = gm.e.auto_action(gm.st)
                assert auto is not None
                seat, action, args = auto
                gm.act(seat, action, **args, auto="timeout")
            assert gm.e.auto_action(gm.st) is None
            s = gm.e.settle(gm.st)
            assert sum(s.deltas.values()) + s.total_rake == 0


def test_describe() -> None:
    e = eng("doudizhu.classic")
    out = e.describe("eval", [["3s", "3h", "3d", "4s", "4h", "4d", "5s", "6s"]])
    assert out["hands"][0]["moves"] == ["airplane_singles:3x2"]
    cmp = e.describe("compare", [["7s", "7h"], ["8s", "8h"]])
    assert cmp["beats"] is True and cmp["readings_that_beat"] == [["pair:7", "pair:8"]]
    assert e.describe("compare", [["BJ", "RJ"], ["2s", "2h", "2d", "2c"]])["beats"] is False


def test_three_players_bid_double_and_play_counter_clockwise() -> None:
    """004 三人斗地主规则 3、叫牌 (in playing order) and 5、出牌 (按逆时针顺序): seat numbers
    increase clockwise (the project's convention), so the turn passes to the next lower
    seat, 1 -> 3 -> 2. 000 斗地主 names no direction (下家): doudizhu.classic keeps
    increasing seat order (test_deal_dice_and_bidding_order)."""
    gm = Game("doudizhu.three", die=1)
    gm.act(1, "bid", points=1)
    assert gm.st.turn == 3
    gm.refused(2, "bid", "out_of_turn", points=2)
    gm.act(3, "bid", points=0)
    gm.act(2, "bid", points=2)
    assert gm.st.landlord == 2 and gm.st.double_queue == [2, 1, 3]
    for s in (2, 1, 3):
        gm.act(s, "double", double=False)
    gm.reveal()
    gm.play(2, "Qs", "single", "Q")
    assert gm.st.turn == 1
    gm.refused(3, "pass", "out_of_turn")


@pytest.mark.parametrize("variant", ["doudizhu.classic", "doudizhu.three", "shuangkou"])
@pytest.mark.parametrize(
    "change", [lambda r: r.pop("play"), lambda r: r["play"].update(direction="upwards")]
)
def test_the_direction_of_play_is_a_config_value(variant: str, change: Any) -> None:
    raw = copy.deepcopy(dict(engine(variant).config.raw))
    change(raw)
    with pytest.raises(ConfigError):
        type(engine(variant))(g.VariantConfig.from_json_dict(raw))
