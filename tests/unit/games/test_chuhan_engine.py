"""The 楚汉德州 engine driven through its events from scripted decks: the deal, the
reveal right (开牌权 / 咪牌), the three rounds of 保险楚汉德州 with their odds, the skip
rule, the tie rules, the settlement of every kind of bet, and every bad input with its
precise reason (the state untouched).

Rules: 000_d16ad353ba467b8a.txt, 楚汉德州 and 保险楚汉德州规则;
seeds/variants/chuhan.json and chuhan.insured.json."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.chuhan.engine import ChuhanEngine, ChuhanState
from croupier.games.chuhan.rules import Spot
from croupier.games.registry import engine
from croupier.settlement import settle_state
from croupier_services.cli import main as cli

RICH = 10**8
SEATS = ((1, "p1", RICH), (2, "p2", RICH), (3, "p3", RICH))


def eng(variant: str) -> ChuhanEngine:
    e = engine(variant)
    assert isinstance(e, ChuhanEngine)
    return e


def opened(variant: str, seats: Sequence[tuple[int, str, int]]) -> dict[str, Any]:
    return {
        "variant": variant,
        "config_version": 1,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": p, "stack": k} for s, p, k in seats],
    }


class Scripted:
    """One hand through the engine alone, dealt from ``deck`` (Han 2, Chu 2, board) as
    the engine asks, face-down cards turned up as croupier.dealing.Dealer does."""

    def __init__(
        self, variant: str, deck: str, seats: Sequence[tuple[int, str, int]] = SEATS
    ) -> None:
        self.e = eng(variant)
        op = opened(variant, seats)
        self.st: ChuhanState = self.e.open("t1_h1", op)
        self.events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, op)]
        self.deck = deck.split()
        self.pos = 0
        self.dealt: list[dict[str, Any]] = []
        self.types: list[str] = []

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)
        self.types.append(type_)
        self.events.append((type_, payload))

    def bet(self, seat: int, spot: str, amount: int) -> None:
        self.step(g.BET_PLACED, {"seat": seat, "spot": spot, "amount": amount})

    def close(self) -> None:
        self.step(g.BETTING_CLOSED, {})
        self.advance()

    def act(self, seat: int, action: str, args: dict[str, Any] | None = None) -> None:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args or {}})
        self.advance()

    def advance(self) -> None:
        while (req := self.e.next_deal(self.st)) is not None:
            for t in req.reveal:
                hidden = [c["card"] for c in self.dealt if c["to"] == t and not c["up"]]
                self.step(g.CARDS_REVEALED, {"to": t, "cards": hidden})
            if not req.cards:
                continue
            cards = []
            for d in req.cards:
                cards.append({"to": d.to, "card": self.deck[self.pos], "pos": self.pos, "up": d.up})
                self.pos += 1
            self.dealt += cards
            self.step(g.CARD_DEALT, {"cards": cards})

    def deltas(self) -> dict[str, int]:
        return dict(settle_state(self.e, self.st).record["deltas"])


def expect(
    h: Scripted, exc: type[RuleViolation], reason: str, type_: str, p: dict[str, Any]
) -> None:
    before = copy.deepcopy(h.st)
    with pytest.raises(exc) as err:
        h.e.verify(h.st, type_, p)
    assert err.value.reason == reason, err.value.message
    assert h.st == before


# Han Ah Kh, Chu Qs Qd, board 2c 7d 9s | 3c | Ad: Han wins with a pair of aces.
HAN_WINS = "Ah Kh Qs Qd 2c 7d 9s 3c Ad"
# Han Qh Qc, Chu Qs Qd, a board that pairs nothing either can use: a tie.
TIE = "Qh Qc Qs Qd 2c 7d 9s 3h 4d"


def test_chuhan_deals_face_down_holes_and_an_open_board_then_the_top_bettor_reveals() -> None:
    h = Scripted("chuhan", HAN_WINS)
    h.bet(1, "chu", 5000)
    h.bet(2, "han", 3000)
    h.bet(3, "han", 2000)
    h.bet(3, "han", 3000)  # seat 3 reaches 5000 after seat 1: seat 1 reached it first
    h.bet(2, "type.pair", 1000)
    h.close()
    deal = [(c["to"], c["up"]) for c in h.dealt]
    assert deal == [("han", False)] * 2 + [("chu", False)] * 2 + [("board", True)] * 5
    assert h.st.phase == "reveal" and h.e.to_act(h.st) is not None
    assert h.e.auto_action(h.st) == (1, "reveal", {})
    expect(
        h,
        ActionRejected,
        "no_reveal_right",
        g.ACTION_TAKEN,
        {"seat": 3, "action": "reveal", "args": {}},
    )
    expect(  # a reveal stakes nothing
        h,
        ActionRejected,
        "malformed",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "reveal", "args": {"stakes": {"chu": 100}}},
    )
    h.act(1, "reveal")
    assert h.types[-2:] == [g.CARDS_REVEALED, g.CARDS_REVEALED] and h.e.is_over(h.st)
    out = h.e.outcome(h.st)
    assert (out["winner"], out["winning_type"]) == ("han", "type.pair")
    # Han 1.93: seat 2 wins 3000 x 0.93 = 2790 and the pair bet 1000 x 1.55 = 1550
    assert h.deltas() == {"p1": -5000, "p2": 2790 + 1550, "p3": 4650, "house": -3990}


def test_chuhan_without_chu_or_han_stakes_turns_the_cards_at_once() -> None:
    h = Scripted("chuhan", HAN_WINS)
    h.bet(1, "tie", 1000)
    h.close()
    assert h.e.is_over(h.st) and h.e.to_act(h.st) is None
    assert h.deltas() == {"p1": -1000, "house": 1000}


def test_a_tie_returns_half_of_chu_and_han_and_pays_the_tie() -> None:
    h = Scripted("chuhan", TIE)
    h.bet(1, "chu", 1000)
    h.bet(2, "han", 1000)
    h.bet(3, "tie", 1000)
    h.bet(3, "type.pair", 1000)
    h.close()
    h.act(1, "reveal")
    out = h.e.outcome(h.st)
    assert out["winner"] == "tie" and out["winning_type"] == "type.pair"
    assert h.deltas() == {"p1": -500, "p2": -500, "p3": 22350 + 1550, "house": -22900}


def test_insured_three_rounds_with_odds_from_the_cards_shown() -> None:
    h = Scripted("chuhan.insured", HAN_WINS)
    h.bet(1, "chu", 10000)
    h.bet(2, "han", 2000)
    h.bet(3, "type.pair", 1000)
    h.close()
    # round 1 over: holes and flop dealt down and turned up, the turn dealt down
    deal = [(c["to"], c["up"]) for c in h.dealt]
    assert deal[:7] == [("han", False)] * 2 + [("chu", False)] * 2 + [("flop", False)] * 3
    assert deal[7:] == [("turn", False)]
    assert h.types.count(g.CARDS_REVEALED) == 3
    assert h.st.round == 2 and h.st.phase == "bet"
    # Chu Qs Qd vs Han Ah Kh on 2c 7d 9s: 251/330 vs 79/330 -> 1.24 and 3.96, no tie
    assert h.st.odds == {Spot.CHU: Fraction(124, 100), Spot.HAN: Fraction(396, 100)}
    expect(
        h,
        ActionRejected,
        "spot_closed",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "bet", "args": {"stakes": {"type.pair": 1000}}},
    )
    expect(
        h,
        ActionRejected,
        "spot_closed",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "bet", "args": {"stakes": {"tie": 1000}}},
    )
    expect(
        h, BetRejected, "betting_closed", g.BET_PLACED, {"seat": 1, "spot": "chu", "amount": 100}
    )
    # at 3.96 a Han stake above 10,000,000 / 3.96 would return more than max_return
    expect(
        h,
        ActionRejected,
        "over_limit",
        g.ACTION_TAKEN,
        {"seat": 2, "action": "bet", "args": {"stakes": {"han": 2_525_300}}},
    )
    h.act(2, "bet", {"stakes": {"han": 3000}})
    expect(
        h,
        ActionRejected,
        "already_acted",
        g.ACTION_TAKEN,
        {"seat": 2, "action": "pass", "args": {}},
    )
    h.act(3, "pass")
    assert h.e.auto_action(h.st) == (1, "pass", {})
    h.act(1, "bet", {"stakes": {"chu": 1000}})
    # Han has the higher odds: the top cumulative Han bettor (seat 2, 5000) squeezes
    assert h.st.phase == "reveal" and h.st.revealer == 2
    expect(
        h,
        ActionRejected,
        "no_reveal_right",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "reveal", "args": {}},
    )
    h.act(2, "reveal")
    assert h.st.round == 3 and h.st.phase == "bet"
    # turn 3c: 19/22 vs 3/22 -> Chu 1.1, Han 6.96
    assert h.st.odds == {Spot.CHU: Fraction(11, 10), Spot.HAN: Fraction(696, 100)}
    h.act(1, "pass")
    h.act(2, "pass")
    h.act(3, "bet", {"stakes": {"han": 1000, "chu": 2000}})
    assert h.st.revealer == 2  # Han: seat 2 with 5000 beats seat 3 with 1000
    h.act(2, "reveal")
    assert h.e.is_over(h.st)
    out = h.e.outcome(h.st)
    assert out["winner"] == "han" and out["skipped_rounds"] == []
    assert out["odds_by_round"]["2"] == {"chu": "1.24", "han": "3.96", "tie": None}
    # p1: -10000 - 1000; p2: 2000 x 0.93 + 3000 x 2.96 = 1860 + 8880;
    # p3: pair 1000 x 1.55 + Han 1000 x 5.96 - Chu 2000
    assert h.deltas() == {
        "p1": -11000,
        "p2": 10740,
        "p3": 1550 + 5960 - 2000,
        "house": 11000 - 10740 - 5510,
    }


def test_insured_skips_betting_when_a_side_is_at_most_1_01() -> None:
    # Han 9s 5d vs Chu 7s 3s on 9d 8d 8c: Han 941/990 -> odds 0.99: skipped; then certain
    h = Scripted("chuhan.insured", "9s 5d 7s 3s 9d 8d 8c 4d 7c")
    h.bet(1, "han", 1000)
    h.close()
    assert h.e.is_over(h.st) and h.st.skipped == [2, 3]
    assert h.types.count(g.ACTION_TAKEN) == 0 and h.types.count(g.CARDS_REVEALED) == 5


def test_insured_closes_a_tie_spot_at_odds_of_at_most_1_01() -> None:
    # Han Kc 8d vs Chu Kh 2s on 8h As Kd, turn Ad: in round 3 Han wins on 2 rivers of 44,
    # the rest tie; a tie at 0.99 would lose money when it wins (保险楚汉德州规则 注意 i)
    h = Scripted("chuhan.insured", "Kc 8d Kh 2s 8h As Kd Ad 3c")
    h.bet(1, "chu", 1000)
    h.close()
    while h.st.round < 3 or h.st.phase not in ("bet", "done"):
        auto = h.e.auto_action(h.st)
        assert auto is not None, h.st.phase
        h.act(*auto)
    assert h.st.round == 3 and h.st.phase == "bet"
    assert Spot.HAN in h.st.odds and Spot.TIE not in h.st.odds
    assert h.st.round_odds[3]["tie"] is None
    expect(
        h,
        ActionRejected,
        "spot_closed",
        g.ACTION_TAKEN,
        {"seat": 2, "action": "bet", "args": {"stakes": {"tie": 1000}}},
    )


def test_insured_tie_refunds_round_one_chu_han_only() -> None:
    # Han Qh Jh vs Chu Qs Jd on 2h 7h 9s: a tie unless a heart gives Han a flush
    h = Scripted("chuhan.insured", "Qh Jh Qs Jd 2h 7h 9s 3c 4d")
    h.bet(1, "chu", 1000)
    h.bet(2, "tie", 1000)
    h.close()
    assert h.st.phase == "bet" and Spot.CHU not in h.st.odds  # Chu cannot win: closed
    tie_odds = h.st.odds[Spot.TIE]
    h.act(1, "bet", {"stakes": {"han": 1000}})
    h.act(2, "pass")
    h.act(3, "pass")
    assert h.st.revealer == 1  # the only Han bettor squeezes the turn

    while not h.e.is_over(h.st):
        auto = h.e.auto_action(h.st)
        assert auto is not None
        h.act(auto[0], auto[1], auto[2])
    out = h.e.outcome(h.st)
    assert out["winner"] == "tie"
    # round-1 Chu: half back; round-2 Han: lost; round-1 tie at 23.35
    assert h.deltas()["p1"] == -500 - 1000
    assert h.deltas()["p2"] == 22350
    assert tie_odds is not None and tie_odds > 1


def test_bad_bets_are_refused_with_a_reason() -> None:
    h = Scripted("chuhan", HAN_WINS, ((1, "p1", 6000), (2, "p2", RICH)))
    for p, exc, reason in (
        ({"seat": 1, "spot": "chu", "amount": 50}, BetRejected, "bad_amount"),
        ({"seat": 1, "spot": "chu", "amount": 0}, BetRejected, "bad_amount"),
        ({"seat": 1, "spot": "dragon", "amount": 100}, BetRejected, "unknown_spot"),
        ({"seat": 1, "spot": "chu", "amount": 6100}, BetRejected, "insufficient_stack"),
        ({"seat": 2, "spot": "chu", "amount": 5_000_100}, BetRejected, "over_limit"),
        ({"seat": 2, "spot": "type.straight_flush", "amount": 3300}, BetRejected, "over_limit"),
        ({"seat": 7, "spot": "chu", "amount": 100}, RuleViolation, "unknown_seat"),
        ({"seat": 1, "amount": 100}, BetRejected, "malformed"),
    ):
        expect(h, exc, reason, g.BET_PLACED, p)
    expect(h, ActionRejected, "not_now", g.ACTION_TAKEN, {"seat": 1, "action": "pass", "args": {}})
    expect(
        h,
        ActionRejected,
        "unknown_action",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "fold", "args": {}},
    )
    h.close()
    expect(
        h, BetRejected, "betting_closed", g.BET_PLACED, {"seat": 1, "spot": "chu", "amount": 100}
    )
    expect(
        h, RuleViolation, "illegal_reveal", g.CARDS_REVEALED, {"to": "chu", "cards": ["Qs", "Qd"]}
    )


def test_bad_actions_in_a_later_round() -> None:
    h = Scripted("chuhan.insured", HAN_WINS, ((1, "p1", 3000), (2, "p2", RICH)))
    h.bet(1, "chu", 2000)
    h.close()
    assert h.st.phase == "bet"
    for args, reason in (
        ({"stakes": {"chu": 2000}}, "insufficient_stack"),
        ({"stakes": {"chu": 500, "han": 600}}, "insufficient_stack"),
        ({"stakes": {}}, "malformed"),
        ({"stakes": {"han": 150}}, "bad_amount"),
        ({"stakes": {"han": 100}, "odds": "3.96"}, "malformed"),
    ):
        expect(
            h, ActionRejected, reason, g.ACTION_TAKEN, {"seat": 1, "action": "bet", "args": args}
        )
    expect(
        h,
        ActionRejected,
        "malformed",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "pass", "args": {"stakes": {"han": 100}}},
    )
    expect(
        h, ActionRejected, "not_now", g.ACTION_TAKEN, {"seat": 1, "action": "reveal", "args": {}}
    )
    # nobody staked on the higher-odds side (Han): no squeeze, the turn is turned at once
    h.step(g.ACTION_TAKEN, {"seat": 1, "action": "pass", "args": {}})
    h.step(g.ACTION_TAKEN, {"seat": 2, "action": "pass", "args": {}})
    assert h.st.phase == "show" and h.st.revealer is None
    # a card that is not the one dealt cannot be turned up, nor another target
    expect(h, RuleViolation, "bad_reveal", g.CARDS_REVEALED, {"to": "turn", "cards": ["As"]})
    expect(h, RuleViolation, "illegal_reveal", g.CARDS_REVEALED, {"to": "river", "cards": []})
    h.advance()
    assert h.st.round == 3


def test_describe_eval_and_compare() -> None:
    e = eng("chuhan.insured")
    out = e.describe("eval", [["Qs", "Qd"], ["Ah", "Kh"], ["2c", "7d", "9s", "3c", "Ad"]])
    assert out["winner"] == "han" and out["runouts"] == 1 and out["betting_skipped"]
    out = e.describe("eval", [["Qs", "Qd"], ["Ah", "Kh"]])
    assert out["runouts"] == 1_712_304  # C(48,5): no board card shown
    assert sum(Fraction(x) for x in out["probability"].values()) == 1
    cmp = e.describe("compare", [["As", "Ah", "2c", "7d", "9s"], ["Kd", "Kh", "2c", "7d", "9s"]])
    assert cmp["winner"] == "a"
    with pytest.raises(InvalidInput):
        e.describe("eval", [["Qs"]])


def test_an_insured_hand_as_an_unsigned_script_and_a_what_if(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The three-round hand above as a croupier-script/v1 file replayed by ``croupier
    hand replay --unsigned``; then the river changed from Ad to Qc (Chu makes three
    queens): the same bets, now won by Chu."""
    h = Scripted("chuhan.insured", HAN_WINS)
    h.bet(1, "chu", 10000)
    h.bet(2, "han", 2000)
    h.close()
    h.act(1, "bet", {"stakes": {"chu": 1000}})
    h.act(2, "bet", {"stakes": {"han": 3000}})
    h.act(3, "pass")
    h.act(2, "reveal")
    for seat in (1, 2, 3):
        h.act(seat, "pass")
    h.act(2, "reveal")
    script = {
        "format": "croupier-script/v1",
        "variant": "chuhan.insured",
        "hand_id": "chuhan_example",
        "events": [{"type": t, "payload": p} for t, p in h.events],
    }
    path = tmp_path / "chuhan.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"]["winner"] == "han"
    assert out["settlement"]["deltas"] == {"p1": -11000, "p2": 1860 + 8880, "house": 260}
    text = json.dumps(script).replace('"Ad"', '"Qc"')
    path.write_text(text, encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"]["winner"] == "chu"
    # Chu: 10000 x 0.93 (round 1) + 1000 x 0.24 (round 2 at 1.24)
    assert out["settlement"]["deltas"] == {"p1": 9300 + 240, "p2": -5000, "house": -4540}
