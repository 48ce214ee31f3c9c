"""The 二八杠 engine (croupier.games.tongzi.erbagang) driven event by event: the grab and
its tie die, the bets, the deal order from one die counter-clockwise (000) or two dice
clockwise (001), banker against each player, 通杀/通赔, the money (1:1, 5% rake, the
grab as the banker's cover, pro rata) and every refusal with its reason.

Sources: 000_d16ad353ba467b8a.txt, 二八杠; 001_5f10773fec037198.txt, first section."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from croupier import canonical
from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.tongzi.erbagang import ErbagangEngine, ErbagangState
from croupier.settlement import settle_state

STACK = 1_000_000


def eng(variant: str = "erbagang") -> ErbagangEngine:
    e = engine(variant)
    assert isinstance(e, ErbagangEngine)
    return e


def opened(
    seats: Sequence[int] = (1, 2, 3, 4), stacks: Mapping[int, int] | None = None
) -> dict[str, Any]:
    return {
        "variant": "erbagang",
        "table": "t1",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [
            {"seat": s, "player": f"p{s}", "stack": (stacks or {}).get(s, STACK)} for s in seats
        ],
    }


def act(seat: int, action: str, **args: Any) -> dict[str, Any]:
    return {"seat": seat, "action": action, "args": args}


class Hand:
    """One hand driven through ``step`` with chosen dice and tiles."""

    def __init__(self, variant: str = "erbagang", **kw: Any) -> None:
        self.e = eng(variant)
        self.st: ErbagangState = self.e.open("h1", opened(**kw))
        self.roll = 0
        self.events: list[tuple[str, Mapping[str, Any]]] = [(g.HAND_OPENED, opened(**kw))]
        self.step(g.BETTING_CLOSED, {})

    def step(self, type_: str, p: Mapping[str, Any]) -> None:
        self.e.step(self.st, type_, p)
        self.events.append((type_, p))

    def dice(self, *values: int) -> None:
        req = self.e.next_deal(self.st)
        assert req is not None and req.dice == len(values)
        self.step(
            g.DICE_ROLLED, {"dice": list(values), "faces": list(req.die_faces()), "roll": self.roll}
        )
        self.roll += 1

    def grab(self, grabs: Mapping[int, int], die: int | None = None) -> None:
        for s, m in grabs.items():
            self.step(g.ACTION_TAKEN, act(s, "grab", multiple=m))
        if die is not None:
            self.dice(die)

    def bet(self, bets: Mapping[int, int]) -> None:
        for s, m in bets.items():
            self.step(g.ACTION_TAKEN, act(s, "bet", multiple=m))

    def deal(self, tiles: Mapping[int, str]) -> None:
        cards: list[dict[str, Any]] = []
        pos = 0
        for s in self.st.deal_order:
            for t in tiles[s].split():
                cards.append({"to": f"seat:{s}", "card": t, "pos": pos, "up": True})
                pos += 1
        self.step(g.CARD_DEALT, {"cards": cards})


def full(
    variant: str = "erbagang",
    grabs: Mapping[int, int] | None = None,
    bets: Mapping[int, int] | None = None,
    dice: Sequence[int] = (1,),
    tiles: Mapping[int, str] | None = None,
    **kw: Any,
) -> Hand:
    h = Hand(variant, **kw)
    h.grab(grabs or {1: 5, 2: 1, 3: 0, 4: 0})
    h.bet(bets or {s: 1 for s in h.st.players()})
    h.dice(*dice)
    h.deal(tiles or {1: "5z 5z", 2: "9p 9p", 3: "2p 8p", 4: "4p 5p"})
    return h


# -- the grab ----------------------------------------------------------------------------
def test_the_highest_grab_takes_the_bank_and_covers_grab_times_base() -> None:
    h = Hand()
    h.grab({1: 3, 2: 10, 3: 0, 4: 9})
    assert (h.st.banker, h.st.cover, h.st.phase) == (2, 10 * h.e.base, "bet")
    assert h.e.next_deal(h.st) is None


def test_a_tie_at_the_top_is_broken_by_a_die_with_one_face_per_tied_seat() -> None:
    h = Hand()
    h.grab({1: 7, 2: 2, 3: 7, 4: 7})
    assert h.st.phase == "grab_die" and h.st.tied == [1, 3, 4]
    assert h.e.next_deal(h.st) == g.DealRequest(dice=1, faces=(3,))
    h.dice(2)
    assert (h.st.banker, h.st.grab_die, h.st.cover) == (3, 2, 700)


def test_nobody_grabbing_leaves_the_bank_to_the_die_covering_what_the_stack_allows() -> None:
    h = Hand(seats=(1, 2, 3), stacks={1: 5_000, 2: 50_000, 3: 10_000})
    h.grab({1: 0, 2: 0, 3: 0})
    assert h.e.next_deal(h.st) == g.DealRequest(dice=1, faces=(3,))
    h.dice(1)
    assert (h.st.banker, h.st.cover) == (1, 5_000)  # 50x the base, all it has
    h2 = Hand(seats=(1, 2, 3))
    h2.grab({1: 0, 2: 0, 3: 0}, die=3)
    assert (h2.st.banker, h2.st.cover) == (3, 200 * 100)  # the 200x ceiling


def test_grab_refusals() -> None:
    h = Hand(stacks={1: 1_000})
    before = copy.deepcopy(h.st)
    for p, reason in (
        (act(1, "grab", multiple=11), "grab_over_cap"),  # stack 1,000 covers 10x
        (act(2, "grab", multiple=201), "grab_over_cap"),  # 000 抢庄: 最高200倍
        (act(2, "grab", multiple=-1), "grab_over_cap"),
        (act(2, "grab", multiple="5"), "malformed"),
        (act(2, "grab", multiple=True), "malformed"),
        (act(2, "grab"), "malformed"),
        (act(2, "grab", multiple=5, extra=1), "malformed"),
        # the 托管 marker is the dealer's and only ever "timeout" (croupier.games.common)
        (act(2, "grab", multiple=5, auto="manual"), "malformed"),
        (act(2, "grab", multiple=5, auto=True), "malformed"),
        (act(2, "bet", multiple=1), "not_betting"),
        (act(2, "fold"), "unknown_action"),
        (act(9, "grab", multiple=1), "unknown_seat"),
    ):
        with pytest.raises(RuleViolation) as err:
            h.e.verify(h.st, g.ACTION_TAKEN, p)
        assert err.value.reason == reason, p
    assert h.st == before
    h.grab({1: 10})
    with pytest.raises(ActionRejected) as err:
        h.e.verify(h.st, g.ACTION_TAKEN, act(1, "grab", multiple=1))
    assert err.value.reason == "already_decided"
    assert h.e.grab_cap(h.st, 1) == 10


def test_bet_placed_and_a_second_close_are_refused() -> None:
    e = eng()
    st = e.open("h1", opened())
    with pytest.raises(BetRejected) as err:
        e.verify(st, g.BET_PLACED, {"seat": 1, "spot": "player", "amount": 100})
    assert err.value.reason == "unknown_spot"
    e.step(st, g.BETTING_CLOSED, {})
    with pytest.raises(ActionRejected) as err2:
        e.verify(st, g.BETTING_CLOSED, {})
    assert err2.value.reason == "betting_closed"


def test_open_refusals() -> None:
    e = eng()
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(seats=(1,)))
    assert err.value.reason == "no_seats"
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(seats=(1, 2, 3, 4, 5)))
    assert err.value.reason == "too_many_seats"
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(stacks={3: 99}))
    assert err.value.reason == "bad_stack"


# -- bets ----------------------------------------------------------------------------------
def test_bet_refusals() -> None:
    h = Hand(stacks={3: 500})
    h.grab({1: 5, 2: 1, 3: 0, 4: 0})
    for p, reason in (
        (act(1, "bet", multiple=1), "banker_does_not_bet"),
        (act(2, "bet", multiple=0), "bad_amount"),
        (act(2, "bet", multiple=201), "bet_over_cap"),
        (act(3, "bet", multiple=6), "bet_over_cap"),  # stack 500 covers 5x
        (act(2, "grab", multiple=1), "not_grabbing"),
    ):
        with pytest.raises(ActionRejected) as err:
            h.e.verify(h.st, g.ACTION_TAKEN, p)
        assert err.value.reason == reason, p
    h.bet({3: 5})
    with pytest.raises(ActionRejected) as err:
        h.e.verify(h.st, g.ACTION_TAKEN, act(3, "bet", multiple=1))
    assert err.value.reason == "already_decided"


def test_timeouts_do_not_grab_then_bet_the_minimum() -> None:
    h = Hand()
    h.grab({2: 4})
    assert h.e.auto_action(h.st) == (1, "grab", {"multiple": 0})
    while h.st.phase == "grab":
        auto = h.e.auto_action(h.st)
        assert auto is not None
        h.step(g.ACTION_TAKEN, act(auto[0], auto[1], **auto[2], auto="timeout"))
    assert h.st.banker == 2
    w = h.e.waiting(h.st)
    assert w is not None and (w.action, w.seats) == ("bet", (1, 3, 4))
    h.bet({3: 7})
    assert h.e.auto_action(h.st) == (1, "bet", {"multiple": 1})
    h.bet({1: 1, 4: 1})
    assert h.e.auto_action(h.st) is None and h.e.waiting(h.st) is None


# -- the deal order ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("die", "order"),
    [
        (1, [2, 1, 4, 3]),  # 1 is the banker
        (2, [1, 4, 3, 2]),  # 2 the banker's 下家, counter-clockwise
        (3, [4, 3, 2, 1]),
        (4, [3, 2, 1, 4]),
        (5, [2, 1, 4, 3]),  # round again
        (6, [1, 4, 3, 2]),
    ],
)
def test_one_die_counts_counter_clockwise_from_the_banker(die: int, order: list[int]) -> None:
    h = Hand()
    h.grab({2: 9, 1: 0, 3: 0, 4: 0})
    h.bet({1: 1, 3: 1, 4: 1})
    assert h.e.next_deal(h.st) == g.DealRequest(dice=1, faces=(6,))
    h.dice(die)
    assert h.st.deal_order == order
    req = h.e.next_deal(h.st)
    assert req is not None
    assert [d.to for d in req.cards] == [f"seat:{s}" for s in order for _ in range(2)]
    assert all(d.up for d in req.cards)


@pytest.mark.parametrize(
    ("dice", "order"),
    [
        ((1, 1), [3, 5, 7, 2]),  # 2: the banker's 下家, clockwise
        ((3, 2), [2, 3, 5, 7]),  # 5: round to the banker again
        ((6, 6), [7, 2, 3, 5]),  # 12: 11 places on
        ((4, 4), [7, 2, 3, 5]),
    ],
)
def test_two_dice_count_their_sum_clockwise_from_the_banker(
    dice: tuple[int, int], order: list[int]
) -> None:
    h = Hand("erbagang.dice2", seats=(2, 3, 5, 7))
    h.grab({2: 9, 3: 0, 5: 0, 7: 0})
    h.bet({3: 1, 5: 1, 7: 1})
    assert h.e.next_deal(h.st) == g.DealRequest(dice=2, faces=(6, 6))
    h.dice(*dice)
    assert h.st.deal_order == order


def test_with_three_players_the_count_runs_round_the_three() -> None:
    h = Hand(seats=(1, 3, 4))
    h.grab({1: 0, 3: 2, 4: 0})
    h.bet({1: 1, 4: 1})
    h.dice(3)  # banker 3, then 1, then 4 counter-clockwise
    assert h.st.deal_order == [4, 3, 1]


def test_dice_and_tile_refusals() -> None:
    h = Hand()
    h.grab({1: 5, 2: 0, 3: 0, 4: 0})
    h.bet({2: 1, 3: 1, 4: 1})
    for p, reason in (
        ({"dice": [1, 2], "faces": [6, 6], "roll": 0}, "illegal_roll"),
        ({"dice": [7], "faces": [6], "roll": 0}, "bad_die"),
        ({"dice": [0], "faces": [6], "roll": 0}, "bad_die"),
        ({"dice": [3], "faces": [9], "roll": 0}, "illegal_roll"),
        ({"dice": [3], "faces": [6], "roll": -1}, "malformed"),
        ({"dice": [3], "faces": [6]}, "malformed"),
    ):
        with pytest.raises(RuleViolation) as err:
            h.e.verify(h.st, g.DICE_ROLLED, p)
        assert err.value.reason == reason, p
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.CARD_DEALT, {"cards": []})
    assert err.value.reason == "illegal_deal"
    h.dice(1)
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.DICE_ROLLED, {"dice": [3], "faces": [6], "roll": 1})
    assert err.value.reason == "illegal_roll"
    good = [
        {"to": f"seat:{s}", "card": "1p", "pos": i * 2 + k, "up": True}
        for i, s in enumerate(h.st.deal_order)
        for k in range(2)
    ]
    for i in range(4, 8):
        good[i]["card"] = "3p"
    for change, reason in (
        ({0: {"to": "seat:2"}}, "illegal_deal"),
        ({0: {"up": False}}, "illegal_deal"),
        ({0: {"card": "1m"}}, "bad_card"),
        ({0: {"card": "1P"}}, "bad_card"),
        ({0: {"pos": -1}}, "malformed"),
        ({4: {"card": "1p"}}, "bad_card"),  # a fifth 一筒
    ):
        cards = [{**c, **change.get(i, {})} for i, c in enumerate(good)]
        with pytest.raises(RuleViolation) as err:
            h.e.verify(h.st, g.CARD_DEALT, {"cards": cards})
        assert err.value.reason == reason, change
    with pytest.raises(RuleViolation) as err:
        h.e.verify(h.st, g.CARD_DEALT, {"cards": good[:-1]})
    assert err.value.reason == "illegal_deal"
    with pytest.raises(ActionRejected) as err:
        h.e.verify(h.st, g.CARDS_REVEALED, {"to": "seat:1", "cards": []})
    assert err.value.reason == "unknown_event"
    h.step(g.CARD_DEALT, {"cards": good})
    assert h.e.is_over(h.st) and h.e.next_deal(h.st) is None


# -- results ----------------------------------------------------------------------------------
def test_banker_against_each_player_and_an_equal_hand_goes_to_the_banker() -> None:
    h = full(tiles={1: "3p 5p", 2: "5p 3p", 3: "1p 7p", 4: "1p 6p"})
    out = h.e.outcome(h.st)
    assert out["banker"] == 1
    assert [(r["seat"], r["winner"], r["equal"]) for r in out["results"]] == [
        (2, "banker", True),  # 组合完全相同: the banker
        (3, "player", False),  # 8 points, higher tile 七筒 against 五筒
        (4, "banker", False),
    ]
    assert out["sweep"] is None
    assert canonical.dumps(out)


def test_tongsha_and_tongpei_only_at_a_full_table() -> None:
    win = full(tiles={1: "5z 5z", 2: "9p 9p", 3: "2p 8p", 4: "4p 5p"})
    assert win.e.outcome(win.st)["sweep"] == "tongsha"
    lose = full(tiles={1: "1p 9p", 2: "9p 9p", 3: "2p 8p", 4: "4p 5p"})
    assert lose.e.outcome(lose.st)["sweep"] == "tongpei"
    three = full(
        seats=(1, 2, 3),
        grabs={1: 5, 2: 0, 3: 0},
        bets={2: 1, 3: 1},
        tiles={1: "5z 5z", 2: "9p 9p", 3: "1p 1p"},
    )
    assert three.e.outcome(three.st)["sweep"] is None


def test_money_one_to_one_with_five_percent_on_each_won_comparison() -> None:
    h = full(
        grabs={1: 0, 2: 20, 3: 0, 4: 0},
        bets={1: 3, 3: 5, 4: 2},
        tiles={2: "6p 2p", 1: "9p 9p", 3: "1p 1p", 4: "3p 4p"},
    )
    r = h.e.settle(h.st)
    # players 1 and 3 win 300 and 500, player 4 loses 200; banker -600, and 5% of the 200
    # it won from player 4 (独立赔付: each comparison raked on its own): -610
    assert r.deltas == {"p1": 285, "p2": -610, "p3": 475, "p4": -200}
    assert r.total_rake == 15 + 25 + 10
    assert sum(r.deltas.values()) + r.total_rake == 0
    # record version 2: each player's stake is base x bet (000_d16ad353ba467b8a.txt, 二八杠,
    # 下注: 本局底注的倍数; the banker stakes none) and returned is stake plus net before
    # rake (赔付规则: 赔率 1:1): 300 + 300, 500 + 500, 200 - 200
    assert r.staked == {"p1": 300, "p3": 500, "p4": 200}
    assert r.returned == {"p1": 600, "p3": 1000, "p4": 0}
    # the players' gain is the bank's loss before its rake: -(-610 + 10)
    bank_net = r.deltas["p2"] + r.rake["p2"]
    assert sum(r.returned.values()) - sum(r.staked.values()) == -bank_net == 600
    # 通杀: 5% of each comparison, 15 + 25 + 10, as much as 5% of the net 1000
    h2 = full(
        grabs={1: 0, 2: 20, 3: 0, 4: 0},
        bets={1: 3, 3: 5, 4: 2},
        tiles={2: "5z 5z", 1: "9p 9p", 3: "1p 1p", 4: "3p 4p"},
    )
    r2 = h2.e.settle(h2.st)
    assert r2.deltas == {"p1": -300, "p2": 950, "p3": -500, "p4": -200}
    assert h2.e.outcome(h2.st)["sweep"] == "tongsha"


def test_the_grab_bounds_what_the_banker_pays_pro_rata() -> None:
    # banker grabbed 2x: covers 200; the three players bet 1, 2 and 5 and all win 800
    h = full(
        grabs={1: 2, 2: 0, 3: 0, 4: 0},
        bets={2: 1, 3: 2, 4: 5},
        tiles={1: "1p 9p", 2: "9p 9p", 3: "2p 8p", 4: "4p 5p"},
    )
    r = h.e.settle(h.st)
    assert r.deltas["p1"] == -200
    # 200 x 100/800, 200 x 200/800, 200 x 500/800 = 25, 50, 125, less 5%
    assert (r.deltas["p2"], r.deltas["p3"], r.deltas["p4"]) == (24, 48, 119)
    assert sum(r.deltas.values()) + r.total_rake == 0
    # and what it wins: at most the cover (the kernel's BankerCover), losers pro rata
    h2 = full(
        grabs={1: 2, 2: 0, 3: 0, 4: 0},
        bets={2: 1, 3: 1, 4: 2},
        tiles={1: "5z 5z", 2: "9p 9p", 3: "2p 8p", 4: "4p 5p"},
    )
    r2 = h2.e.settle(h2.st)
    assert (r2.deltas["p2"], r2.deltas["p3"], r2.deltas["p4"]) == (-50, -50, -100)
    assert r2.deltas["p1"] == 200 - 2 - 2 - 5  # 5% of each comparison, truncated


def test_settlement_of_a_replayed_hand_is_identical_and_canonical() -> None:
    h = full("erbagang.dice2", dice=(2, 5))
    st = h.e.replay("h1", h.events)
    assert st == h.st
    a, b = settle_state(h.e, h.st), settle_state(h.e, st)
    assert a.record_bytes == b.record_bytes and sum(n for _, n in a.postings) == 0


def test_describe_eval_and_compare() -> None:
    e = eng()
    out = e.describe("eval", [["5z", "5z"], ["2p", "8p"]])
    assert [x["name"] for x in out["hands"]] == ["天王", "二八杠"]
    cmp = e.describe("compare", [["3p", "5p"], ["5p", "3p"], ["5z", "8p"]])
    assert [(x["winner"], x["equal"]) for x in cmp["players"]] == [
        ("banker", True),
        ("player", False),
    ]
    for action, hands in (
        ("eval", [["1m", "2p"]]),
        ("eval", [["1p"]]),
        ("eval", []),
        ("compare", [["1p", "2p"]]),
        ("eval", [["1p", "1p"], ["1p", "1p"], ["1p", "2p"]]),
        ("pay", [["1p", "2p"]]),
    ):
        with pytest.raises(InvalidInput):
            e.describe(action, hands)


def variant_with(change: Any, variant: str = "erbagang") -> g.VariantConfig:
    raw = copy.deepcopy(dict(engine(variant).config.raw))
    change(raw)
    return g.VariantConfig.from_json_dict(raw)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["deck"].update(base="mahjong136"),
        lambda r: r["seats"].update(max=5),
        lambda r: r["seats"].update(min=1),
        lambda r: r["base"].update(value=0),
        lambda r: r["bets"].update(min_multiple=3, max_multiple=2),
        lambda r: r["deal"].update(dice=0),
        lambda r: r["deal"].update(direction="upwards"),
        lambda r: r["payout"].update(value="0"),
        lambda r: r["timeout"].update(bet=2),
        lambda r: r["timeout"].update(grab=201),
        lambda r: r["tiles"].update(same_points="coin"),
        lambda r: r["rake"].update(rate="1"),
        lambda r: r.pop("sweep"),
        lambda r: r["grab"].update(selection="weighted"),
        lambda r: r["ties"].update(equal_hand="split"),
        lambda r: r["deal"].pop("tiles_each"),
    ],
)
def test_bad_configs_are_refused(change: Any) -> None:
    with pytest.raises(InvalidInput):
        ErbagangEngine(variant_with(change))
