"""The 十三水 engine driven through its events from a scripted deck: the deal, manual
arrangements (as cards and as positions), a declared special hand, 自动比牌, the
outcome and the money of a worked hand, the same hand as an unsigned hand script
replayed by ``croupier hand replay --unsigned``, and bad input with precise reasons.

Rules: 000_d16ad353ba467b8a.txt, 十三水规则; seeds/variants/shisanshui.json."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from croupier.errors import ActionRejected, InvalidInput, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shisanshui.engine import ShisanshuiEngine, ShisanshuiState
from croupier.games.shisanshui.hands import Special
from croupier.settlement import settle_state
from croupier_services.cli import main as cli

# Three hands of 13 (dealt one card at a time in seat order):
P1 = "As Ah Ad Kc Kd 7s 7h 7c 2c 3d 4h 5s 9c"  # trips, full house material
P2 = "Ts Js Qs Ks 9s 2h 3h 4d 5d 6c 8h 8d 6d"  # a spade straight flush 9-K
P3 = "2s 2d 3s 3c 4s 4c 5h 5c 6s 6h 8s 8c Qd"  # six pairs and a half: 六对半
ROWS1 = {"front": ["2c", "3d", "4h"], "middle": ["7s", "7h", "7c", "5s", "9c"]}
ROWS1 |= {"back": ["As", "Ah", "Ad", "Kc", "Kd"]}
ROWS2 = {"front": ["2h", "3h", "4d"], "middle": ["5d", "6c", "8h", "8d", "6d"]}
ROWS2 |= {"back": ["Ts", "Js", "Qs", "Ks", "9s"]}


def eng() -> ShisanshuiEngine:
    e = engine("shisanshui")
    assert isinstance(e, ShisanshuiEngine)
    return e


def deck(*hands: str) -> list[str]:
    cards = [h.split() for h in hands]
    return [cards[s][i] for i in range(13) for s in range(len(cards))]


def opened(stacks: Sequence[int]) -> dict[str, Any]:
    return {
        "variant": "shisanshui",
        "config_version": 1,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": i + 1, "player": f"p{i + 1}", "stack": k} for i, k in enumerate(stacks)],
    }


class Scripted:
    def __init__(self, hands: Sequence[str], stacks: Sequence[int] = ()) -> None:
        self.e = eng()
        op = opened(list(stacks) or [10**6] * len(hands))
        self.st: ShisanshuiState = self.e.open("t1_h1", op)
        self.events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, op)]
        self.deck = deck(*hands)
        self.step(g.BETTING_CLOSED, {})
        self.advance()

    def step(self, type_: str, payload: dict[str, Any]) -> None:
        self.e.step(self.st, type_, payload)
        self.events.append((type_, payload))

    def advance(self) -> None:
        pos = len(self.st.positions)
        while (req := self.e.next_deal(self.st)) is not None:
            for t in req.reveal:
                self.step(g.CARDS_REVEALED, {"to": t, "cards": self.st.hands[int(t[5:])]})
            if req.cards:
                cards = []
                for d in req.cards:
                    cards.append({"to": d.to, "card": self.deck[pos], "pos": pos, "up": d.up})
                    pos += 1
                self.step(g.CARD_DEALT, {"cards": cards})

    def act(self, seat: int, action: str, args: dict[str, Any] | None = None) -> None:
        self.step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": args or {}})
        self.advance()


def expect(
    h: Scripted, reason: str, p: dict[str, Any], exc: type[RuleViolation] = ActionRejected
) -> None:
    before = copy.deepcopy(h.st)
    with pytest.raises(exc) as err:
        h.e.verify(h.st, g.ACTION_TAKEN, p)
    assert err.value.reason == reason, err.value.message
    assert h.st == before


def test_a_worked_hand() -> None:
    """p1: 4-high | three 7s | aces full of kings. p2: 4-high | two pair 8s 6s | a
    straight flush. p3 declares 六对半 (6 water from each). p1 vs p2: front 4-3-2 vs
    4-3-2 even; middle trips beat two pair +1; back: the straight flush wins 5 (尾墩同花
    顺): p1 -4 against p2. Each pays p3 6."""
    h = Scripted([P1, P2, P3])
    assert [h.st.hands[s] for s in (1, 2, 3)] == [P1.split(), P2.split(), P3.split()]
    h.act(1, "arrange", ROWS1)
    h.act(2, "arrange", {k: [P2.split().index(c) for c in v] for k, v in ROWS2.items()})
    h.act(
        3,
        "arrange",
        {
            "front": [0, 1, 12],
            "middle": [2, 3, 4, 5, 6],
            "back": [7, 8, 9, 10, 11],
            "special": True,
        },
    )
    assert h.e.is_over(h.st)
    assert h.st.arranged[3] is not None and h.st.arranged[3].special is Special.LIU_DUI_BAN
    out = h.e.outcome(h.st)
    pair12 = next(p for p in out["pairs"] if (p["a"], p["b"]) == (1, 2))
    assert pair12["rows"] == [0, 1, -5] and pair12["water"] == -4 and pair12["gun"] is None
    assert [s["water"] for s in out["seats"]] == [-4 - 6, 4 - 6, 12]
    hs = settle_state(h.e, h.st)
    # base 100: p1 -1000, p2 -200, p3 +1200 less 5% (60)
    assert hs.record["deltas"] == {"p1": -1000, "p2": -200, "p3": 1140}
    assert hs.rake == 60


def test_the_worked_hand_as_an_unsigned_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    h = Scripted([P1, P2, P3])
    h.act(1, "arrange", ROWS1)
    h.act(2, "arrange", ROWS2)
    h.act(3, "auto_arrange")
    script = {
        "format": "croupier-script/v1",
        "variant": "shisanshui",
        "hand_id": "sss_example",
        "events": [{"type": t, "payload": p} for t, p in h.events],
    }
    path = tmp_path / "sss.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settlement"]["deltas"] == {"p1": -1000, "p2": -200, "p3": 1140}
    assert sum(n for _, n in out["postings"]) == 0
    # what if p1 had fouled? the replay refuses the arrangement with its reason
    script["events"][3]["payload"]["args"] = {
        **ROWS1,
        "front": ROWS1["back"][:3],
        "back": [*ROWS1["back"][3:], *ROWS1["front"]],
    }
    path.write_text(json.dumps(script), encoding="utf-8")
    assert cli(["hand", "replay", "--unsigned", str(path)]) == 2
    assert "fouled" in capsys.readouterr().err


def test_auto_arrange_declares_the_largest_special_and_timeouts_use_it() -> None:
    h = Scripted([P1, P2, P3])
    assert h.e.auto_action(h.st) == (1, "auto_arrange", {})
    h.act(3, "auto_arrange", {"auto": "timeout"})
    a = h.st.arranged[3]
    assert a is not None and a.special is Special.LIU_DUI_BAN
    assert h.e.to_act(h.st) == (1, 2)


def test_bad_arrangements_are_refused_with_a_reason() -> None:
    h = Scripted([P1, P2, P3])
    fouled = {
        "front": ["Kc", "Kd", "4h"],  # a pair of kings in front of a high-card middle
        "middle": ["2c", "3d", "5s", "9c", "7s"],
        "back": ["As", "Ah", "Ad", "7h", "7c"],
    }
    for p, reason in (
        ({"seat": 1, "action": "arrange", "args": fouled}, "fouled"),
        (
            {"seat": 1, "action": "arrange", "args": {**ROWS1, "front": ["Qd", "3d", "4h"]}},
            "not_in_hand",
        ),
        ({"seat": 1, "action": "arrange", "args": {**ROWS1, "front": [0, 1, 13]}}, "not_in_hand"),
        ({"seat": 1, "action": "arrange", "args": {**ROWS1, "front": [True, 1, 2]}}, "bad_rows"),
        ({"seat": 1, "action": "arrange", "args": {**ROWS1, "special": True}}, "no_special"),
        (
            {
                "seat": 1,
                "action": "arrange",
                "args": {**ROWS1, "front": [0, 0, 1], "special": True},
            },
            "not_in_hand",
        ),
        ({"seat": 1, "action": "arrange", "args": {"front": ROWS1["front"]}}, "bad_rows"),
        ({"seat": 1, "action": "arrange", "args": {**ROWS1, "joker": 1}}, "malformed"),
        ({"seat": 1, "action": "surrender", "args": {}}, "unknown_action"),
        ({"seat": 1, "action": "arrange", "args": "rows"}, "malformed"),
    ):
        expect(h, reason, p)
    expect(h, "unknown_seat", {"seat": 5, "action": "auto_arrange", "args": {}}, RuleViolation)
    h.act(1, "arrange", ROWS1)
    expect(h, "already_arranged", {"seat": 1, "action": "auto_arrange", "args": {}})
    h.act(2, "auto_arrange")
    h.act(3, "auto_arrange")
    assert h.st.closed is False and h.e.is_over(h.st)
    expect(h, "not_now", {"seat": 1, "action": "auto_arrange", "args": {}})


def test_describe_eval_and_compare() -> None:
    e = eng()
    out = e.describe("eval", [P3.split()])
    assert out["special"] == "liu_dui_ban" and out["auto"]["special"] == "liu_dui_ban"
    out = e.describe("eval", [ROWS1["front"], ROWS1["middle"], ROWS1["back"]])
    assert not out["fouled"] and out["back_hand"].startswith("full house")
    out = e.describe(
        "eval", [ROWS1["back"][:3], ROWS1["middle"], [*ROWS1["back"][3:], *ROWS1["front"]]]
    )
    assert out["fouled"]
    cmp = e.describe("compare", [P1.split(), P2.split()])
    assert sum(x["water"] for x in cmp["hands"]) == 0
    with pytest.raises(InvalidInput):
        e.describe("compare", [P1.split(), P1.split()])
    with pytest.raises(InvalidInput):
        e.describe("eval", [P1.split()[:5], P1.split()[5:]])
