"""Unsigned 二八杠 / 推筒子 hand scripts (croupier.games.tongzi.script): hands written out
with chosen tiles, dice and decisions, replayed by ``croupier hand replay --unsigned``
through the same engine and settlement code, with every figure worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.errors import InvalidInput
from croupier.export import SCRIPT_FORMAT, load_script
from croupier.games.registry import engine
from croupier.games.tongzi.script import opened, script_hand
from croupier_services.cli import main


def replay(tmp_path: Path, variant: str, events: list[tuple[str, dict[str, Any]]]) -> Any:
    doc = {
        "format": SCRIPT_FORMAT,
        "variant": variant,
        "hand_id": "golden",
        "events": [{"type": t, "payload": p} for t, p in events],
    }
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    assert load_script(path.read_text(encoding="utf-8")).variant == variant
    return path


def test_erbagang_script_grab_tie_die_deal_dice_and_money(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    e = engine("erbagang")
    seats = [(s, f"p{s}", 100_000) for s in (1, 2, 3, 4)]
    events, st = script_hand(
        e,
        opened("erbagang", seats),
        # grabs 0/10/10/3: seats 2 and 3 tie, the die's 2 picks seat 3 (cover 10 x 100)
        actions=[
            (1, "grab", {"multiple": 0}),
            (2, "grab", {"multiple": 10}),
            (3, "grab", {"multiple": 10}),
            (4, "grab", {"multiple": 3}),
            (1, "bet", {"multiple": 2}),
            (2, "bet", {"multiple": 5}),
            (4, "bet", {"multiple": 1}),
        ],
        # a 4 counts 3 (the banker), 2, 1, 4 counter-clockwise: seat 4 first
        dice=[[2], [4]],
        tiles={3: ["5z", "9p"], 1: ["9p", "9p"], 2: ["3p", "6p"], 4: ["1p", "9p"]},
    )
    assert (st.banker, st.cover, st.deal_order) == (3, 1_000, [4, 3, 2, 1])
    out = e.outcome(st)
    # 对子 beats 9 points; 3+6 is 9 points too but 白板 is the higher tile; 鳖十 loses
    assert [(r["seat"], r["winner"]) for r in out["results"]] == [
        (1, "player"),
        (2, "banker"),
        (4, "banker"),
    ]
    path = replay(tmp_path, "erbagang", events)
    assert main(["hand", "replay", "--unsigned", str(path)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["signed"] is False and got["outcome"] == out
    # p1 wins 200 (rake 10); the banker wins 500 (rake 25) and 100 (rake 5), each comparison
    # raked on its own (独立赔付), and loses 200: 400 - 30
    assert dict(got["postings"]) == {
        "player:p1": 190,
        "player:p2": -500,
        "player:p3": 370,
        "player:p4": -100,
        "rake:erbagang": 40,
    }


def test_tuitongzi_script_wheel_raise_side_pot_and_timeout_fold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    e = engine("tuitongzi")
    seats = [(s, f"p{s}", 10_000) for s in (2, 5, 8)]
    events, st = script_hand(
        e,
        opened("tuitongzi", seats),
        antes=[2, 5, 8],
        dice=[[3]],  # the wheel's 3 is an empty seat: the deal starts at 2
        tiles={2: ["7p", "5z"], 8: ["2p", "8p"], 5: ["4p", "4p"]},
        actions=[(8, "raise", {"amount": 500}), (5, "raise", {"amount": 200})],
    )  # seat 2 never decides: its timeout folds
    assert st.deal_order == [2, 8, 5] and st.raises == {8: 500, 5: 200, 2: 0}
    out = e.outcome(st)
    assert out["raise_pot"]["winners"] == [5] and out["base_pot"]["winners"] == [5]
    path = replay(tmp_path, "tuitongzi", events)
    assert main(["hand", "replay", "--unsigned", str(path)]) == 0
    got = json.loads(capsys.readouterr().out)
    # base pot 300 and the matched raises 200 + 200 to p5's 豹子; p8's unmatched 300 back
    assert dict(got["postings"]) == {
        "player:p2": -100,
        "player:p5": 380,
        "player:p8": -300,
        "rake:tuitongzi": 20,
    }


def test_script_refusals() -> None:
    e = engine("erbagang")
    seats = [(s, f"p{s}", 100_000) for s in (1, 2)]
    with pytest.raises(InvalidInput, match="another roll"):
        script_hand(e, opened("erbagang", seats), tiles={})
    with pytest.raises(InvalidInput, match="no more tiles"):
        script_hand(e, opened("erbagang", seats), dice=[[1], [1]], tiles={1: ["1p"]})
    with pytest.raises(InvalidInput, match="not a 筒子"):
        script_hand(engine("baccarat"), {}, tiles={})
