"""The 幸运五张 engine driven through its events from scripted decks: the automatic hold,
changed holds, the draw, the settlement ("for 1": a pair of Jacks or better returns
the stake), describe, and every bad input with its precise reason (the state untouched).

Rules: 001_5f10773fec037198.txt, 幸运五张; seeds/variants/videopoker.lucky5.json."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from croupier.errors import ActionRejected, BetRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.videopoker.engine import VideoPokerEngine, VideoPokerState
from croupier.settlement import settle_state
from croupier_services.cli import main as cli

VARIANT = "videopoker.lucky5"


def eng() -> VideoPokerEngine:
    e = engine(VARIANT)
    assert isinstance(e, VideoPokerEngine)
    return e


def opened(seats: Sequence[tuple[int, str, int]] = ((1, "p1", 10**6),)) -> dict[str, Any]:
    return {
        "variant": VARIANT,
        "config_version": 1,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": s, "player": p, "stack": k} for s, p, k in seats],
    }


class Scripted:
    """One hand through the engine alone, dealt from ``deck`` as the engine asks."""

    def __init__(self, deck: str, bet: int = 1000) -> None:
        self.e = eng()
        op = opened()
        self.st: VideoPokerState = self.e.open("t1_h1", op)
        self.events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, op)]
        self.deck = deck.split()
        self.pos = 0
        self.step(g.BET_PLACED, {"seat": 1, "spot": "main", "amount": bet})
        self.step(g.BETTING_CLOSED, {})
        self.advance()

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)
        self.events.append((type_, payload))

    def advance(self) -> None:
        while (req := self.e.next_deal(self.st)) is not None:
            cards = []
            for d in req.cards:
                cards.append({"to": d.to, "card": self.deck[self.pos], "pos": self.pos, "up": d.up})
                self.pos += 1
            self.step(g.CARD_DEALT, {"cards": cards})

    def draw(self, hold: list[str] | None = None) -> None:
        args: dict[str, Any] = {} if hold is None else {"hold": hold}
        self.step(g.ACTION_TAKEN, {"seat": 1, "action": "draw", "args": args})
        self.advance()


def test_a_pair_of_jacks_is_held_and_improves_to_three_jacks() -> None:
    h = Scripted("Jc 4d Jh 8s 2c  Jd 5s 9c")
    assert h.e.auto_hold(h.st) == ("Jc", "Jh")
    assert h.e.auto_action(h.st) == (1, "draw", {"hold": ["Jc", "Jh"]})
    h.draw()
    assert h.st.final == ["Jc", "Jh", "Jd", "5s", "9c"] and h.e.is_over(h.st)
    out = h.e.outcome(h.st)
    assert (out["line"], out["pays"], out["result"]) == ("three_of_a_kind", "3", "2")
    assert settle_state(h.e, h.st).record["deltas"]["p1"] == 2000


def test_jacks_or_better_returns_the_stake_and_nothing_loses_it() -> None:
    h = Scripted("Qc Qd 2h 7s 9c  3d 4s 8h")
    h.draw()
    assert h.e.outcome(h.st)["line"] == "jacks_or_better"
    assert settle_state(h.e, h.st).record["deltas"]["p1"] == 0
    h = Scripted("Tc Td 2h 7s 9c  3d 4s 8h 5c Kd")
    assert h.e.auto_hold(h.st) == ()  # tens do not win: all five are thrown
    h.draw()
    assert h.st.drawn == ["3d", "4s", "8h", "5c", "Kd"]
    assert settle_state(h.e, h.st).record["deltas"]["p1"] == -1000


def test_the_player_may_change_the_holds() -> None:
    h = Scripted("Tc Td 2h 7s 9c  Th 4s 8h")
    h.draw(["Td", "Tc"])  # keeps the tens anyway; held cards keep their dealt order
    assert h.st.hold == ["Tc", "Td"] and h.st.final == ["Tc", "Td", "Th", "4s", "8h"]
    assert settle_state(h.e, h.st).record["deltas"]["p1"] == 2000
    h = Scripted("As Ks Qs Js 2d  Ts")
    h.draw(["As", "Ks", "Qs", "Js"])
    assert h.e.outcome(h.st)["line"] == "royal_flush"
    assert settle_state(h.e, h.st).record["deltas"]["p1"] == 799_000


def test_a_made_hand_is_held_whole_and_nothing_more_is_dealt() -> None:
    h = Scripted("2h 7h 9h Jh Kh")
    assert h.e.auto_hold(h.st) == ("2h", "7h", "9h", "Jh", "Kh")
    h.draw()
    assert h.e.is_over(h.st) and h.st.drawn == [] and len(h.st.positions) == 5
    assert h.e.outcome(h.st)["result"] == "5"


def expect(
    h: Scripted, exc: type[RuleViolation], reason: str, type_: str, p: dict[str, Any]
) -> None:
    before = copy.deepcopy(h.st)
    with pytest.raises(exc) as err:
        h.e.verify(h.st, type_, p)
    assert err.value.reason == reason, err.value.message
    assert h.st == before


def test_bad_bets_are_refused_with_a_reason() -> None:
    e = eng()
    with pytest.raises(RuleViolation) as two:
        e.open("t1_h1", opened(((1, "p1", 5000), (2, "p2", 10**6))))
    assert two.value.reason == "too_many_seats"  # one player per hand
    st = e.open("t1_h1", opened(((1, "p1", 5000),)))
    h = Scripted.__new__(Scripted)
    h.e, h.st = e, st
    for p, reason in (
        ({"seat": 1, "spot": "main", "amount": 50}, "bad_amount"),
        ({"seat": 1, "spot": "main", "amount": 150}, "bad_amount"),
        ({"seat": 1, "spot": "side", "amount": 100}, "unknown_spot"),
        ({"seat": 1, "spot": "main", "amount": 100_100}, "over_limit"),
        ({"seat": 1, "spot": "main", "amount": 5100}, "insufficient_stack"),
        ({"seat": 1, "spot": "main", "amount": True}, "bad_amount"),
        ({"seat": 9, "spot": "main", "amount": 100}, "unknown_seat"),
    ):
        expect(
            h, BetRejected if reason != "unknown_seat" else RuleViolation, reason, g.BET_PLACED, p
        )
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 4900})
    expect(
        h,
        BetRejected,
        "insufficient_stack",
        g.BET_PLACED,
        {"seat": 1, "spot": "main", "amount": 200},
    )


def test_bad_draws_are_refused_with_a_reason() -> None:
    h = Scripted("Jc 4d Jh 8s 2c  Jd 5s 9c")
    for p, reason in (
        ({"seat": 1, "action": "draw", "args": {"hold": ["As"]}}, "not_in_hand"),
        ({"seat": 1, "action": "draw", "args": {"hold": ["Jc", "Jc"]}}, "malformed"),
        ({"seat": 1, "action": "draw", "args": {"keep": []}}, "malformed"),
        ({"seat": 1, "action": "stand", "args": {}}, "unknown_action"),
    ):
        expect(h, ActionRejected, reason, g.ACTION_TAKEN, p)
    h.draw()
    expect(
        h,
        ActionRejected,
        "hand_closed" if h.st.closed else "not_now",
        g.ACTION_TAKEN,
        {"seat": 1, "action": "draw", "args": {}},
    )
    deal = {"cards": [{"to": "draw", "card": "Ac", "pos": 9, "up": True}]}
    expect(h, RuleViolation, "illegal_deal", g.CARD_DEALT, deal)


def test_a_dealt_card_must_be_fresh_and_face_up_to_the_hand() -> None:
    e = eng()
    st = e.open("t1_h1", opened())
    e.step(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 100})
    e.step(st, g.BETTING_CLOSED, {})
    h = Scripted.__new__(Scripted)
    h.e, h.st = e, st
    five = [
        {"to": "hand", "card": c, "pos": i, "up": True}
        for i, c in enumerate(["As", "Kd", "2c", "7h", "9s"])
    ]
    expect(
        h,
        RuleViolation,
        "bad_card",
        g.CARD_DEALT,
        {"cards": [*five[:4], {**five[4], "card": "As"}]},
    )
    expect(
        h,
        RuleViolation,
        "illegal_deal",
        g.CARD_DEALT,
        {"cards": [*five[:4], {**five[4], "up": False}]},
    )
    expect(h, RuleViolation, "illegal_deal", g.CARD_DEALT, {"cards": five[:4]})


def test_describe_eval_and_compare() -> None:
    e = eng()
    out = e.describe("eval", [["Jc", "4d", "Jh", "8s", "2c"]])
    assert out["line"] == "jacks_or_better" and out["auto_hold"] == ["Jc", "Jh"]
    assert out["expected_return"] == "1661/1081"
    out = e.describe("eval", [["2c", "2d", "5h", "5s", "Kc"], ["2c", "2d", "5h", "5s"]])
    assert out["expected_return"] == "122/47"
    cmp = e.describe("compare", [["2c", "2d", "5h", "5s", "Kc"], ["Ac", "Kd", "Qh", "Js", "9c"]])
    assert cmp["winner"] == "a"
    with pytest.raises(InvalidInput):
        e.describe("eval", [["2c", "2d", "5h", "5s", "Kc"], ["As"]])


def test_a_hand_as_an_unsigned_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = Scripted("Jc 4d Jh 8s 2c  Jd 5s 9c")
    h.draw()
    script = {
        "format": "croupier-script/v1",
        "variant": "videopoker.lucky5",
        "events": [{"type": t, "payload": p} for t, p in h.events],
    }
    path = tmp_path / "vp.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"]["line"] == "three_of_a_kind"
    assert out["settlement"]["deltas"] == {"p1": 2000, "house": -2000}
    # holding a card that was not dealt is refused with its reason
    script["events"][4]["payload"]["args"] = {"hold": ["Jc", "As"]}
    path.write_text(json.dumps(script), encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 2
    assert "not_in_hand" in capsys.readouterr().err
