"""The blackjack engine driven through its events: golden hands for every payout case,
the deal order, insurance and the peek, splits and doubles in both variants, and every
bad input with its precise reason (refused without touching the state).

Rules: 001_5f10773fec037198.txt, 多人21点 (blackjack.multi) and 幸运21点
(blackjack.lucky); numbers from seeds/variants/blackjack.*.json. Bets are 1000 minor
units unless said otherwise, so a blackjack wins 1500 and the 多人21点 rake is 2% of
a player's net profit.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.games import base as g
from croupier.games.blackjack.engine import BlackjackEngine, BlackjackState
from croupier.games.registry import engine, variants
from croupier.settlement import settle_state

MULTI, LUCKY = "blackjack.multi", "blackjack.lucky"
RICH = 10**9
ONE = ((1, "p1", RICH),)
TWO = ((1, "p1", RICH), (2, "p2", RICH))


def eng(variant: str) -> BlackjackEngine:
    e = engine(variant)
    assert isinstance(e, BlackjackEngine)
    return e


def opened(variant: str, seats: Sequence[tuple[int, str, int]]) -> dict[str, Any]:
    return {
        "variant": variant,
        "config_version": eng(variant).config.version,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": p, "stack": k} for s, p, k in seats],
    }


class Hand:
    """A hand played through the engine alone, dealing from a scripted shoe as the
    engine asks (as croupier.dealing.Dealer does)."""

    def __init__(self, variant: str, seats: Sequence[tuple[int, str, int]] = ONE) -> None:
        self.eng = eng(variant)
        op = opened(variant, seats)
        self.st: BlackjackState = self.eng.open("t1_h1", op)
        self.events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, op)]
        self.shoe: list[str] = []
        self.pos = 0
        self.down: dict[str, list[str]] = {}

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.eng.step(self.st, type_, payload)
        self.events.append((type_, payload))

    def bet(self, seat: int, amount: int = 1000) -> Hand:
        self.step(g.BET_PLACED, {"seat": seat, "spot": "main", "amount": amount})
        return self

    def deal(self, *cards: str) -> Hand:
        self.shoe = list(cards)
        self.step(g.BETTING_CLOSED, {})
        self.advance()
        return self

    def advance(self) -> None:
        while (req := self.eng.next_deal(self.st)) is not None:
            for t in req.reveal:
                self.step(g.CARDS_REVEALED, {"to": t, "cards": self.down.pop(t)})
            if not req.cards:
                continue
            dealt = []
            for d in req.cards:
                assert self.pos < len(self.shoe), f"the script ran out of cards ({req})"
                card = self.shoe[self.pos]
                dealt.append({"to": d.to, "card": card, "pos": self.pos, "up": d.up})
                if not d.up:
                    self.down.setdefault(d.to, []).append(card)
                self.pos += 1
            self.step(g.CARD_DEALT, {"cards": dealt})
        if self.eng.is_over(self.st):
            self.step(g.HAND_CLOSED, {"positions_used": self.pos})

    def act(self, seat: int, action: str, **args: Any) -> Hand:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args})
        self.advance()
        return self

    def refused(self, seat: int, action: str, **args: Any) -> str:
        """The action is refused by verify, can and step, and the state is untouched."""
        return self.refused_event(
            g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args}, ActionRejected
        )

    def refused_event(
        self, type_: str, payload: dict[str, Any], kind: type[RuleViolation] = RuleViolation
    ) -> str:
        before = copy.deepcopy(self.st)
        assert not self.eng.can(self.st, type_, payload)
        with pytest.raises(RuleViolation) as err:
            self.eng.step(self.st, type_, payload)
        assert isinstance(err.value, kind), err.value
        assert self.st == before
        return err.value.reason

    def done(self) -> dict[str, int]:
        """The hand is closed, used every scripted card; the players' final deltas."""
        assert self.st.closed, self.st.phase
        assert self.pos == len(self.shoe), "the hand used fewer cards than scripted"
        hs = settle_state(self.eng, self.st)
        assert sum(n for _, n in hs.postings) == 0
        return {a.split(":", 1)[1]: n for a, n in hs.postings if a.startswith("player:")}

    def results(self) -> list[list[str]]:
        return [[h["result"] for h in s["hands"]] for s in self.eng.outcome(self.st)["seats"]]

    def rake(self) -> int:
        return self.eng.settle(self.st).total_rake


# --- registry and config ---------------------------------------------------------------


def test_both_variants_run_on_one_engine_class() -> None:
    assert {MULTI, LUCKY} <= set(variants())
    assert type(eng(MULTI)) is type(eng(LUCKY)) is BlackjackEngine
    assert eng(MULTI).family == eng(LUCKY).family == "blackjack"
    assert eng(MULTI).table.max_seats == 5 and eng(LUCKY).table.max_seats == 3
    assert eng(MULTI).table.many_seats and not eng(LUCKY).table.many_seats


# --- the deal ----------------------------------------------------------------------------


def test_multi_deals_players_then_dealer_up_then_the_hole_card_face_down() -> None:
    h = Hand(MULTI, TWO).bet(1).bet(2).deal("2c", "3c", "4c", "5c", "9h", "7s")
    deals = [p["cards"] for t, p in h.events if t == g.CARD_DEALT]
    assert [(c["to"], c["card"], c["up"]) for c in deals[0]] == [
        ("seat:1", "2c", True),
        ("seat:2", "3c", True),
        ("seat:1", "4c", True),
        ("seat:2", "5c", True),
        ("dealer", "9h", True),
    ]
    assert deals[1] == [{"to": "dealer", "card": "7s", "pos": 5, "up": False}]
    assert h.st.dealer == ["9h"] and h.st.hole == "7s" and not h.st.hole_revealed
    turn = h.eng.to_act(h.st)
    assert turn is not None and (turn.seat, turn.hand) == (1, 0)


def test_lucky_deals_the_dealer_one_card_and_draws_after_the_players() -> None:
    h = Hand(LUCKY).bet(1).deal("Tc", "8d", "9h")
    assert [t for t, _ in h.events].count(g.CARD_DEALT) == 1
    assert h.st.dealer == ["9h"] and h.st.hole is None
    h.shoe += ["Ks"]
    h.act(1, "stand")
    assert h.st.dealer == ["9h", "Ks"]
    assert h.done() == {"p1": -1000}  # 18 against 19


def test_no_bets_closes_the_hand_without_dealing() -> None:
    h = Hand(MULTI).deal()
    assert h.done() == {}
    assert [t for t, _ in h.events] == [g.HAND_OPENED, g.BETTING_CLOSED, g.HAND_CLOSED]


# --- golden hands: every payout case -------------------------------------------------------


def test_blackjack_pays_3_to_2_less_the_multi_rake() -> None:
    h = Hand(MULTI).bet(1).deal("As", "Kd", "Th", "Qs")  # BJ against 20
    assert h.done() == {"p1": 1470} and h.rake() == 30
    assert h.results() == [["3/2"]]
    h = Hand(LUCKY).bet(1).deal("As", "Kd", "Th", "9s")  # BJ; the dealer draws to 19
    assert h.done() == {"p1": 1500} and h.rake() == 0


@pytest.mark.parametrize("variant", [MULTI, LUCKY])
def test_blackjack_pushes_against_a_dealer_blackjack(variant: str) -> None:
    h = Hand(variant).bet(1).deal("As", "Kd", "Ah", *(["Qs"] if variant == MULTI else []))
    assert h.st.phase == "insurance"
    h.shoe += [] if variant == MULTI else ["Qs"]
    h.act(1, "no_insurance")
    assert h.done() == {"p1": 0}
    assert h.eng.outcome(h.st)["dealer"]["hand"] == "blackjack"
    assert not h.eng.outcome(h.st)["peeked"]  # nobody insured: no peek


def test_multi_five_card_charlie_pays_3_to_2() -> None:
    h = Hand(MULTI).bet(1).deal("2c", "3d", "9h", "8s", "Ah", "2s", "4d")
    h.act(1, "hit").act(1, "hit").act(1, "hit")  # 2 3 A 2 4: five cards, 12
    assert h.st.closed  # a fifth card ends the hand by itself
    assert h.eng.outcome(h.st)["seats"][0]["hands"][0]["hand"] == "charlie"
    assert h.done() == {"p1": 1470}


def test_multi_charlie_pushes_a_dealer_charlie_which_beats_twenty() -> None:
    h = Hand(MULTI, TWO).bet(1).bet(2)
    h.deal("2c", "Kc", "3d", "Qd", "2h", "3s", "Ah", "2s", "4d", "2d", "3c", "4s")
    h.act(1, "hit").act(1, "hit").act(1, "hit")  # seat 1: 2 3 A 2 4, a charlie
    h.act(2, "stand")  # seat 2: 20; the dealer 2 3 2 3 4 = 14 in five cards stops
    assert h.st.dealer == ["2h", "3s", "2d", "3c", "4s"]
    assert h.eng.outcome(h.st)["dealer"]["hand"] == "charlie"
    assert h.done() == {"p1": 0, "p2": -1000}


def test_lucky_has_no_charlie() -> None:
    h = Hand(LUCKY).bet(1).deal("2c", "3d", "9h", "Ah", "2s", "4d")
    h.act(1, "hit").act(1, "hit").act(1, "hit")  # five cards, 12, may still hit
    turn = h.eng.to_act(h.st)
    assert turn is not None and "hit" in turn.actions
    h.shoe += ["8s"]
    h.act(1, "stand")
    assert h.done() == {"p1": -1000}  # 12 against 17


def test_multi_insurance_wins_when_the_peek_finds_a_blackjack() -> None:
    h = Hand(MULTI, TWO).bet(1).bet(2).deal("Tc", "Kc", "9d", "Qd", "Ah", "Ks")
    assert h.st.phase == "insurance"
    h.act(1, "insurance").act(2, "no_insurance")
    # the dealer peeked, turned the blackjack up and the round is settled at once
    assert h.events[-2][0] == g.CARDS_REVEALED and h.st.closed
    out = h.eng.outcome(h.st)
    assert out["peeked"] and out["seats"][0]["insurance"] == 500
    assert out["seats"][0]["insurance_result"] == "2"
    # 001 多人21点 结算: 闲家保险胜利所赢游戏币 = 2*保险金额 - 抽水 = 2 x 500 - 2% x 1000 =
    # 980, raked on its own; 闲家失败所输游戏币 = 当前下注数 + 0 - 980 = 1000 - 980 = 20
    assert h.done() == {"p1": -20, "p2": -1000}
    assert h.rake() == 20
    steps = h.eng.settle(h.st).to_json_dict()["steps"]
    assert [(s["winner"], s["spot"], s["won"], s["rake"]) for s in steps if "winner" in s] == [
        ("p1", "insurance", 1000, 20)
    ]


def test_multi_insurance_won_with_a_pushed_blackjack_is_raked() -> None:
    h = Hand(MULTI).bet(1).deal("As", "Kc", "Ah", "Qs")
    h.act(1, "insurance")
    # the blackjacks push; insurance wins 2 x 500 = 1000, less 2% = 980
    assert h.done() == {"p1": 980} and h.rake() == 20


def test_multi_insurance_is_lost_when_the_peek_finds_none_and_the_hole_stays_down() -> None:
    h = Hand(MULTI).bet(1).deal("Tc", "9d", "Ah", "7s")
    h.act(1, "insurance")
    assert h.st.peeked and h.st.phase == "playing"
    assert g.CARDS_REVEALED not in [t for t, _ in h.events] and not h.st.hole_revealed
    h.act(1, "stand")  # 19 against the dealer's soft 18, which stands
    assert h.st.dealer == ["Ah", "7s"]
    assert h.done() == {"p1": 490} and h.rake() == 10  # +1000 - 500, rake 2% of 500


def test_lucky_insurance_is_decided_by_the_dealers_second_card() -> None:
    h = Hand(LUCKY).bet(1).deal("Tc", "9d", "Ah", "Kd")
    h.act(1, "insurance").act(1, "stand")
    assert h.done() == {"p1": 0}  # main lost to the blackjack, insurance paid 2:1
    h = Hand(LUCKY).bet(1).deal("Tc", "9d", "Ah", "7d")
    h.act(1, "insurance").act(1, "stand")
    assert h.done() == {"p1": 500}  # main won, insurance lost; no rake in 幸运21点
    assert not h.eng.outcome(h.st)["peeked"]


def test_multi_split_then_double_both_halves() -> None:
    h = Hand(MULTI).bet(1).deal("8c", "8d", "6h", "Ts", "3c", "2d", "Td", "9c", "7s")
    h.act(1, "split")
    split_deal = [p for t, p in h.events if t == g.CARD_DEALT][-1]["cards"]
    assert [(c["to"], c["card"]) for c in split_deal] == [("seat:1", "3c"), ("seat:1:2", "2d")]
    h.act(1, "double").act(1, "double")  # 8 3 T = 21 and 8 2 9 = 19; dealer 6 T 7 busts
    out = h.eng.outcome(h.st)["seats"][0]
    assert out["split"] and [x["doubled"] for x in out["hands"]] == [True, True]
    spots = {(w.spot, w.amount, w.result) for w in h.eng.wagers(h.st)}
    assert spots == {
        ("main", 1000, 1),
        ("double", 1000, 1),
        ("main.split", 1000, 1),
        ("double.split", 1000, 1),
    }
    assert h.done() == {"p1": 3920} and h.rake() == 80


def test_lucky_split_plays_left_then_right_without_doubling() -> None:
    h = Hand(LUCKY).bet(1).deal("8c", "8d", "6h", "3c")
    h.act(1, "split")
    assert [b.cards for b in h.st.play[1].boxes] == [["8c", "3c"], ["8d"]]  # left first
    assert h.refused(1, "double") == "no_double_after_split"
    h.shoe += ["Td", "2d"]
    h.act(1, "hit")  # 8 3 T = 21 stands by itself; the right half gets its card
    assert [b.cards for b in h.st.play[1].boxes] == [["8c", "3c", "Td"], ["8d", "2d"]]
    h.shoe += ["Ts", "7s"]
    h.act(1, "stand")  # 10; the dealer 6 T 7 busts
    assert h.done() == {"p1": 2000}


def test_lucky_21_after_a_split_is_not_a_blackjack() -> None:
    h = Hand(LUCKY).bet(1).deal("Ac", "Ad", "9h", "Kc", "5d", "Ts")
    h.act(1, "split")  # left A K = 21 stands (not blackjack); right A 5
    h.act(1, "stand")
    assert h.results() == [["1", "-1"]]  # 21 beats 19 at 1:1; soft 16 loses
    assert h.done() == {"p1": 0}


@pytest.mark.parametrize("variant", [MULTI, LUCKY])
def test_a_dealer_blackjack_takes_the_doubled_stake(variant: str) -> None:
    cards = ["6c", "5d", "Th", "As", "9d"] if variant == MULTI else ["6c", "5d", "Th", "9d", "As"]
    h = Hand(variant).bet(1).deal(*cards)
    h.act(1, "double")  # 20, but the dealer's ten and ace make a blackjack
    assert h.done() == {"p1": -2000}


def test_bust_loses_and_the_multi_dealer_still_plays_out() -> None:
    h = Hand(MULTI).bet(1).deal("Tc", "6d", "5h", "Ts", "9c", "4s")
    h.act(1, "hit")
    assert h.st.dealer == ["5h", "Ts", "4s"]  # 庄家要牌 has no all-bust exception
    assert h.done() == {"p1": -1000}


def test_lucky_dealer_stops_after_its_second_card_when_every_hand_busted() -> None:
    h = Hand(LUCKY).bet(1).deal("Tc", "6d", "5h", "9c", "Ts")
    h.act(1, "hit")
    assert h.st.dealer == ["5h", "Ts"]  # 15, but nobody is left to beat
    assert h.done() == {"p1": -1000}


@pytest.mark.parametrize("variant", [MULTI, LUCKY])
def test_push(variant: str) -> None:
    cards = ["Tc", "8d", "9h", "9s"]
    h = Hand(variant).bet(1).deal(*cards[: 4 if variant == MULTI else 3])
    h.shoe += [] if variant == MULTI else ["9s"]
    h.act(1, "stand")
    assert h.done() == {"p1": 0} and h.results() == [["0"]]


def test_a_hand_reaching_21_stands_by_itself_in_both_variants() -> None:
    """多人21点 would allow hitting a four-card soft 21 read literally; that reading gives
    the player an edge (RTP above 1), so 21 stands there too (config hit.stand_on_21)."""
    h = Hand(MULTI).bet(1).deal("Ac", "2d", "9h", "8s", "3c", "5h")
    h.act(1, "hit").act(1, "hit")  # A 2 3 5: soft 21 with four cards stands
    assert h.eng.to_act(h.st) is None
    assert h.done() == {"p1": 980}  # 21 beats the dealer's 17: 1000 less the 2% rake
    h = Hand(LUCKY).bet(1).deal("Ac", "2d", "9h", "3c", "5h", "8s")
    h.act(1, "hit").act(1, "hit")  # soft 21 stands by itself: the dealer plays at once
    assert h.st.dealer == ["9h", "8s"]
    assert h.done() == {"p1": 1000}


def test_one_player_on_several_multi_seats() -> None:
    seats = ((1, "alice", 3500), (2, "bob", RICH), (3, "alice", 3500))
    h = Hand(MULTI, seats)
    assert (
        h.refused_event(g.BET_PLACED, {"seat": 3, "spot": "main", "amount": 1000}, BetRejected)
        == "own_seat_first"
    )
    h.bet(1).bet(2).bet(3, 2000)
    assert h.st.staked == {"alice": 3000, "bob": 1000}
    h.deal("Tc", "9c", "8c", "Th", "8d", "8h", "7h", "Ks")
    # seat 1: 20, seat 2: 17, seat 3: 8 8 against 7 with 500 left: no split
    h.act(1, "stand").act(2, "stand")
    assert h.refused(3, "split") == "insufficient_stack"
    h.shoe += ["2c"]
    h.act(3, "hit").act(3, "stand")  # 18; dealer 17
    assert h.done() == {"alice": 2940, "bob": 0}  # +1000 +2000, rake 2% of 3000


# --- the dealer's drawing rule through the engine ------------------------------------------


@pytest.mark.parametrize("variant", [MULTI, LUCKY])
def test_dealer_stands_on_soft_17_and_draws_below_17(variant: str) -> None:
    cards = ["Tc", "9d", "Ah", "6s"]  # the dealer's A 6 is a soft 17: it stands
    h = Hand(variant).bet(1).deal(*cards[: 4 if variant == MULTI else 3])
    h.act(1, "no_insurance")
    h.shoe += [] if variant == MULTI else ["6s"]
    h.act(1, "stand")
    assert h.st.dealer == ["Ah", "6s"] and h.done() == {"p1": 1000 if variant == LUCKY else 980}
    cards = ["Tc", "9d", "Th", "6s", "Ac"]  # T 6 = 16 draws an ace: 17, stands
    h = Hand(variant).bet(1).deal(*(cards if variant == MULTI else cards[:3]))
    h.shoe += [] if variant == MULTI else ["6s", "Ac"]
    h.act(1, "stand")
    assert h.st.dealer == ["Th", "6s", "Ac"] and h.results() == [["1"]]


# --- bad input ---------------------------------------------------------------------------


def test_doubling_on_three_cards() -> None:
    h = Hand(MULTI).bet(1).deal("2c", "3d", "9h", "8s", "4c")
    h.act(1, "hit")
    assert h.refused(1, "double") == "double_needs_two_cards"


def test_splitting_unequal_cards() -> None:
    h = Hand(MULTI).bet(1).deal("Kc", "5d", "9h", "8s")
    assert h.refused(1, "split") == "not_a_pair"
    h = Hand(LUCKY).bet(1).deal("Kc", "Qd", "9h")  # same points, different ranks
    assert h.refused(1, "split") == "not_a_pair"
    h = Hand(MULTI).bet(1).deal("Kc", "Qd", "9h", "8s", "2c", "3c")
    h.act(1, "split")  # 多人21点 pairs by points
    assert h.st.play[1].splits == 1


@pytest.mark.parametrize("variant", [MULTI, LUCKY])
def test_a_second_split(variant: str) -> None:
    cards = ["8c", "8d", "6h", "Ts", "8h", "8s"] if variant == MULTI else ["8c", "8d", "6h", "8h"]
    h = Hand(variant).bet(1).deal(*cards)
    h.act(1, "split")  # the left half draws another 8
    assert h.st.play[1].boxes[0].cards == ["8c", "8h"]
    assert h.refused(1, "split") == "split_limit"


def test_insurance_when_the_dealer_shows_no_ace() -> None:
    h = Hand(MULTI).bet(1).deal("Tc", "9d", "Kh", "8s")
    assert h.refused(1, "insurance") == "insurance_not_offered"
    assert h.refused(1, "no_insurance") == "insurance_not_offered"


def test_insurance_decisions() -> None:
    h = Hand(MULTI, TWO).bet(1).bet(2).deal("Tc", "9c", "9d", "8d", "Ah", "7s")
    assert h.refused(1, "hit") == "insurance_pending"
    h.act(2, "no_insurance")  # any order
    assert h.refused(2, "insurance") == "already_decided"
    h.act(1, "no_insurance")
    assert not h.st.peeked  # nobody insured: no peek
    assert h.refused(1, "insurance") == "insurance_closed"


def test_acting_out_of_turn() -> None:
    h = Hand(MULTI, TWO).bet(1).bet(2).deal("Tc", "9c", "9d", "8d", "7h", "7s")
    assert h.refused(2, "stand") == "out_of_turn"  # the lowest seat acts first
    h.act(1, "stand")
    assert h.refused(1, "hit") == "out_of_turn"  # seat 1 is finished


def test_acting_on_a_finished_hand() -> None:
    h = Hand(MULTI).bet(1).deal("8c", "8d", "6h", "Ts", "3c", "2d")
    h.act(1, "split").act(1, "stand")
    assert h.refused(1, "hit", hand=0) == "hand_finished"
    assert h.refused(1, "hit", hand=5) == "unknown_hand"
    h.shoe += ["7s"]
    h.act(1, "stand", hand=1)
    assert h.done() == {"p1": 1960}  # 11 and 10 against 6 T 7 = 23, rake 40
    assert h.refused(1, "hit") == "hand_closed"


def test_acting_before_the_deal_and_after_the_players() -> None:
    h = Hand(MULTI).bet(1)
    assert h.refused(1, "hit") == "not_in_play"
    h = Hand(MULTI).bet(1).deal("Tc", "9d", "Ah", "Ks")
    h.act(1, "insurance")
    assert h.st.closed
    st = Hand(MULTI).bet(1).deal("Tc", "9d", "Ah", "Ks").st
    eng(MULTI).apply(st, g.ACTION_TAKEN, {"seat": 1, "action": "insurance", "args": {}})
    assert st.phase == "peek"  # the reveal is due, nobody may act
    with pytest.raises(ActionRejected) as err:
        eng(MULTI).verify(st, g.ACTION_TAKEN, {"seat": 1, "action": "stand", "args": {}})
    assert err.value.reason == "hand_over"


def test_lucky_doubles_only_on_9_10_11_without_an_ace() -> None:
    for cards, ok in (
        (("5c", "4d"), True),
        (("6c", "4d"), True),
        (("9c", "2d"), True),
        (("6c", "6d"), False),
        (("4c", "4d"), False),
        (("Ac", "8d"), False),  # soft 19, hard 9 with an ace
    ):
        h = Hand(LUCKY).bet(1).deal(*cards, "7h")
        turn = h.eng.to_act(h.st)
        assert turn is not None and ("double" in turn.actions) is ok, cards
        if not ok:
            assert h.refused(1, "double") == "double_total"
    h = Hand(MULTI).bet(1).deal("Ac", "8d", "7h", "9s")
    turn = h.eng.to_act(h.st)
    assert turn is not None and "double" in turn.actions  # 多人21点: any two cards


def test_other_bad_actions() -> None:
    h = Hand(MULTI, ((1, "p1", 1500), (2, "p2", RICH))).bet(1).bet(2)
    h.deal("6c", "9c", "5d", "8d", "7h", "7s")
    assert h.refused(1, "double") == "insufficient_stack"  # 1000 + 1000 > 1500
    assert h.refused(1, "surrender") == "unknown_action"
    assert h.refused(1, "hit", amount=5) == "malformed"
    assert h.refused_event(g.ACTION_TAKEN, {"seat": 9, "action": "hit"}) == "unknown_seat"
    h2 = Hand(MULTI, ((1, "p1", RICH), (2, "p2", RICH), (3, "p3", RICH))).bet(1)
    h2.deal("Tc", "9d", "7h", "7s")
    assert h2.refused(3, "stand") == "no_bet"


def test_bad_bets() -> None:
    h = Hand(MULTI, ((1, "p1", 5000),))

    def reason(seat: Any, spot: Any, amount: Any) -> str:
        p = {"seat": seat, "spot": spot, "amount": amount}
        return h.refused_event(g.BET_PLACED, p, RuleViolation)

    assert reason(1, "insurance", 1000) == "unknown_spot"
    assert reason(1, "main", 150) == "bad_amount"
    assert reason(1, "main", -100) == "bad_amount"
    assert reason(1, "main", True) == "bad_amount"
    assert reason(1, "main", 2_000_000) == "over_limit"
    assert reason(1, "main", 6000) == "insufficient_stack"
    assert reason(7, "main", 1000) == "unknown_seat"
    h.bet(1, 1000).deal("Tc", "9d", "7h", "7s")
    assert reason(1, "main", 1000) == "betting_closed"


def test_bad_hands_opened() -> None:
    e = eng(LUCKY)
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(LUCKY, ((1, "a", 1), (2, "b", 1), (3, "c", 1), (4, "d", 1))))
    assert err.value.reason == "too_many_seats"
    with pytest.raises(RuleViolation) as err:
        e.open("h", opened(LUCKY, ((1, "a", 1), (2, "a", 1))))
    assert err.value.reason == "duplicate_player"
    with pytest.raises(RuleViolation) as err:
        eng(MULTI).open("h", opened(MULTI, ((1, "a", 1), (2, "a", 2))))
    assert err.value.reason == "bad_stack"


def test_bad_cards_and_reveals() -> None:
    h = Hand(MULTI).bet(1)
    h.step(g.BETTING_CLOSED, {})

    def card(to: str, c: str, up: bool = True) -> dict[str, Any]:
        return {"to": to, "card": c, "pos": 0, "up": up}

    first = [card("seat:1", "Tc"), card("seat:1", "9d"), card("dealer", "7h")]  # 19
    assert h.refused_event(g.CARD_DEALT, {"cards": first[:2]}) == "illegal_deal"
    assert h.refused_event(g.CARD_DEALT, {"cards": [*first[:2], card("seat:1", "7h")]}) == (
        "illegal_deal"
    )
    assert h.refused_event(g.CARD_DEALT, {"cards": [*first[:2], card("dealer", "RJ")]}) == (
        "bad_card"
    )
    h.step(g.CARD_DEALT, {"cards": first})
    assert h.refused_event(g.CARD_DEALT, {"cards": [card("dealer", "Ks")]}) == "illegal_deal"
    h.step(g.CARD_DEALT, {"cards": [card("dealer", "Ks", up=False)]})
    reveal = {"to": "dealer", "cards": ["Ks"]}
    assert h.refused_event(g.CARDS_REVEALED, reveal) == "illegal_reveal"  # not due yet
    assert h.refused_event(g.CARD_DEALT, {"cards": [card("seat:1", "2c")]}) == "illegal_deal"
    h.step(g.ACTION_TAKEN, {"seat": 1, "action": "stand", "args": {}})
    assert h.refused_event(g.CARDS_REVEALED, {"to": "dealer", "cards": ["8s"]}) == "bad_reveal"
    h.step(g.CARDS_REVEALED, reveal)
    assert h.st.phase == "done"  # the dealer's 17 stands


# --- secrecy ----------------------------------------------------------------------------


def test_nothing_but_the_peek_reads_the_hole_card_before_it_is_turned_up() -> None:
    """Replaying a hand with its hole card redacted gives the same turns, legal actions
    and deal requests at every step until the reveal."""
    h = Hand(MULTI, TWO).bet(1).bet(2).deal("Tc", "5c", "6d", "7d", "Ah", "9s", "2c")
    h.act(1, "insurance").act(2, "no_insurance")  # the peek finds no blackjack
    h.act(1, "stand").act(2, "hit").act(2, "stand")
    e = h.eng
    real = e.open("t1_h1", h.events[0][1])
    seen = e.open("t1_h1", h.events[0][1])
    for type_, p in h.events[1:]:
        if type_ == g.CARDS_REVEALED:
            break
        if type_ == g.CARD_DEALT:
            shown = [c if c["up"] else {**c, "card": "??"} for c in p["cards"]]
            e.apply(seen, type_, {"cards": shown})
        else:
            e.apply(seen, type_, p)
        e.apply(real, type_, p)
        assert e.to_act(seen) == e.to_act(real)
        assert e.next_deal(seen) == e.next_deal(real)
        turn = e.to_act(real)
        if turn is not None:
            assert e.advise(seen, turn) == e.advise(real, turn)
    assert h.done() == {"p1": -1500, "p2": -1000}  # 16 and 14 against a soft 20


def test_replay_gives_the_same_state_outcome_and_settlement() -> None:
    h = Hand(MULTI).bet(1).deal("8c", "8d", "6h", "Ts", "3c", "2d", "Td", "9c", "7s")
    h.act(1, "split").act(1, "double").act(1, "double")
    again = h.eng.replay("t1_h1", h.events)
    assert again == h.st
    assert h.eng.outcome(again) == h.eng.outcome(h.st)
    assert settle_state(h.eng, again).record_bytes == settle_state(h.eng, h.st).record_bytes


def test_describe_evaluates_bare_hands() -> None:
    e = eng(MULTI)
    d = e.describe("eval", [["As", "Kd"], ["Th", "9c"]])
    assert d["player"]["hand"] == "blackjack" and d["result"] == "3/2"
    d = e.describe("compare", [["2s", "3d", "Ah", "2c", "4c"], ["Th", "Ac"]])
    assert d["player"]["hand"] == "charlie" and d["result"] == "-1"
    assert (
        eng(LUCKY).describe("eval", [["2s", "3d", "Ah", "2c", "4c"], ["Th", "7c"]])["result"]
        == "-1"
    )
