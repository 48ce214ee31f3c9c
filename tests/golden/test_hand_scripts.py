"""Golden hands: every unsigned hand script in seeds/scripts, replayed exactly as
``croupier hand replay --unsigned FILE`` replays it (the CLI's own ``main``), with the
figures each hand must settle to.

Each script plays one complete hand of one variant with chosen cards, tiles or dice: a
seed's worked example where the seed has one, otherwise a hand showing the variant's
characteristic rule. The figures below are worked out by hand from the seeds (see each
script's ``note`` and the table in seeds/scripts/README.md); the settlement must give
them to the minor unit. Every registered variant must have a script, so a new variant
without one fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.export import SCRIPT_FORMAT
from croupier.games.registry import variants
from croupier_services.cli import main

SCRIPTS = Path(__file__).resolve().parents[2] / "seeds" / "scripts"
SEED_FILES = ("000_d16ad353ba467b8a.txt", "001_5f10773fec037198.txt", "004_5b64d410fb5765b6.txt")
# the one script kept under another name (the README's walkthrough)
NAMED = {"baccarat_example.json": "baccarat"}

# file -> (per-participant deltas in minor units, total rake)
EXPECTED: dict[str, tuple[dict[str, int], int]] = {
    # 000 百家乐 三、赔付: banker wins with 6 pays 1:0.5, Super6 1:12, the tie loses
    "baccarat_example.json": ({"alice": 17_000, "bob": 500, "house": -17_500}, 0),
    # player 6 stands, banker 5 draws to 9: player pair 1:11, big 1:0.5, banker 1:1
    "baccarat.json": ({"alice": 9_000, "bob": 2_000, "carol": -500, "house": -10_500}, 0),
    # insurance lost, split 8s with a double: +20,000 +10,000 -5,000, 2% rake
    "blackjack.multi.json": ({"alice": 24_500, "bob": 4_900, "house": -30_000}, 600),
    # no peek: dealer blackjack takes the split and the double, insurance pays 2:1
    "blackjack.lucky.json": ({"alice": -10_000, "bob": -10_000, "house": 20_000}, 0),
    # 楚 flush: chu 1,000 at 1.93 and type.flush 200 at 18.1
    "chuhan.json": ({"alice": 4_350, "bob": -600, "house": -3_750}, 0),
    # round odds 1.93 / 1.27 / 4.18: +930 -500 for alice, bob -1,000 -200 -1,000
    "chuhan.insured.json": ({"alice": 430, "bob": -2_200, "house": 1_770}, 0),
    # red 6 (under 8: profit 0.5) with a straight (7), blue pair (1.3), tie lost
    "dice.yaoyao.json": ({"alice": 1_900, "bob": -210, "house": -1_690}, 0),
    # spring with one bomb: 100 x 2 x 4 from each farmer, 5% of the landlord's 1,600
    "doudizhu.classic.json": ({"p1": 1_520, "p2": -800, "p3": -800}, 80),
    # bid 2, one grab, p2 doubles, spring with one bomb: 3,200 + 1,600, 5%
    "doudizhu.doubling.json": ({"p1": 4_560, "p2": -3_200, "p3": -1_600}, 240),
    # 反春, both farmers double: 100 x 1 x 2 x 2 each, no fee
    "doudizhu.three.json": ({"p1": -800, "p2": 400, "p3": 400}, 0),
    # grab tie broken by the die; 对子 wins, 9点 on the lower tile and 鳖十 lose; 5%
    "erbagang.json": ({"p1": 190, "p2": -500, "p3": 370, "p4": -100}, 40),
    # 二八杠 beats 9 points, an identical hand goes to the banker; 5%
    "erbagang.dice2.json": ({"p1": -110, "p2": 285, "p3": -200}, 25),
    # 000 必下德州 结算例子: A 950, B -200, C -800, D 0
    "holdem.must_bet.json": ({"A": 950, "B": -200, "C": -800, "D": 0}, 50),
    # 豹子 KKK takes the main pot of 4,000, KKQ splits the side pot of 2,000
    "holdem.two_plus_three.json": ({"p1": -1_000, "p2": -1_000, "p3": -1_000, "p4": 3_000}, 0),
    # 暗杠 2 x 100 from each, 鸡胡 + 杠上开花 = 3 fan: 100 x 8 x 3; 5%
    "mahjong.guangdong.json": ({"p1": 2_850, "p2": -1_000, "p3": -1_000, "p4": -1_000}, 150),
    # 直杠 200, 3-fan 杠上开花 2,400 (000's 例), 1-fan 自摸 400, 0-fan discard win 100; 5%
    "mahjong.xuezhan.json": ({"p1": -1_100, "p2": 2_470, "p3": -400, "p4": -1_100}, 130),
    # 直杠 200, 清对 杠上花 capped at 3 fan: 800 from each, two 素番 discard wins of 100
    "mahjong.xuezhan_daodi.json": ({"p1": -1_100, "p2": 2_600, "p3": -800, "p4": -700}, 0),
    # banker's 牛牛 (x5) loses to 五花牛 (x7) at 3x, beats 无牛 at 2x; 5%
    "niuniu.banker.json": ({"alice": -110_000, "bob": 199_500, "carol": -100_000}, 10_500),
    # random banker's 牛牛 (x3) loses to 四花牛 (x4) at 3x, beats 无牛 at 1x; 5%
    "niuniu.classic.json": ({"alice": 114_000, "bob": -30_000, "carol": -91_500}, 7_500),
    # system bank 牛牛: 福 小牛牛 x10 and 禧 四炸 x8 win, 禄 and 寿 pay x5; 5%
    "niuniu.hundred.json": ({"alice": 7_125, "bob": 14_725, "house": -23_000}, 1_150),
    # 000 通比牛牛 例2: a 17,100 points, b and c -9,000 points each
    "niuniu.tongbi.json": ({"a": 1_710_000, "b": -900_000, "c": -900_000}, 90_000),
    # offered bank declined then accepted; 牛牛 (x3) loses to 五花牛 (x5) at 3x; no fee
    "niuniu.yuele.json": ({"alice": -90_000, "bob": 150_000, "carol": -60_000}, 0),
    # 001 三公 特殊情况: 25, 25, 12.5, 37.5 points less 2%
    "sangong.classic.json": (
        {"banker": -10_000, "A": 2_450, "B": 2_450, "C": 1_225, "D": 3_675},
        200,
    ),
    # short banker: 3,000 carried + 1,000 won split 5:2, paid out whole (the odd unit to
    # the larger fraction), less 5%
    "sangong.grab.json": ({"alice": -3_000, "bob": 2_715, "carol": 1_086, "dave": -1_000}, 199),
    # house 8 points x2: 三公 x3, 9 points x2, 爆玖 x5 win, 1 point pays x2; 5%
    "sangong.hundred.json": ({"alice": 1_900, "bob": 380, "house": -2_400}, 120),
    # 打枪 with 冲三 (5 x 2 = 10 waters), 3 waters from p3; 5% of p1's 1,300
    "shisanshui.json": ({"p1": 1_235, "p2": -1_100, "p3": -200}, 65),
    # 双扣 with an 8-star bomb: 3 x 16 x 100 from each loser, 800 from each other player
    "shuangkou.json": ({"p1": 7_200, "p2": -5_600, "p3": 4_000, "p4": -5_600}, 0),
    # 30 line bets of 100, doubled at 1x then at 2x with a 6,000 top-up, collected
    "slots.duocai.json": ({"alice": 17_500, "house": -17_500}, 0),
    # 豹子 takes the base pot and the matched raises, the unmatched 300 back; 5%
    "tuitongzi.json": ({"p2": -100, "p5": 380, "p8": -300}, 20),
    # the automatic hold (JJ) overridden: four hearts, draws a flush, 6 for 1
    "videopoker.lucky5.json": ({"alice": 5_000, "house": -5_000}, 0),
    # equal hands compared: the challenger loses; pot 1,600, 5% of the 1,100 won
    "zhajinhua.json": ({"alice": 1_045, "bob": -1_000, "carol": -100}, 55),
}


def script_paths() -> list[Path]:
    return sorted(SCRIPTS.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def replay(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """``croupier hand replay --unsigned PATH``: exit 0 and its JSON."""
    assert main(["hand", "replay", "--unsigned", str(path)]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("path", script_paths(), ids=lambda p: p.name)
def test_script_replays_to_its_figures(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert path.name in EXPECTED, f"{path.name} has no expected figures in this test"
    deltas, rake = EXPECTED[path.name]
    script = load(path)
    got = replay(path, capsys)
    assert got["format"] == SCRIPT_FORMAT and got["signed"] is False
    assert got["variant"] == script["variant"]
    settlement = got["settlement"]
    assert settlement["deltas"] == deltas
    assert settlement["total_rake"] == rake
    assert sum(settlement["deltas"].values()) + settlement["total_rake"] == 0
    assert sum(amount for _, amount in got["postings"]) == 0
    assert got["outcome"]


@pytest.mark.parametrize("path", script_paths(), ids=lambda p: p.name)
def test_script_is_named_for_its_variant_and_cites_its_source(path: Path) -> None:
    script = load(path)
    assert script["format"] == SCRIPT_FORMAT
    assert NAMED.get(path.name, path.stem) == script["variant"]
    if path.name not in NAMED:  # the kept example is cited in the README
        assert any(seed in script["note"] for seed in SEED_FILES), path.name
    # a whole hand, closed by the dealer's event
    assert script["events"][0]["type"] == "hand.opened"
    assert script["events"][-1]["type"] == "hand.closed"


def test_every_expected_figure_has_its_script() -> None:
    assert set(EXPECTED) == {p.name for p in script_paths()}


def test_every_registered_variant_has_a_script() -> None:
    scripted = {load(p)["variant"] for p in script_paths()}
    missing = sorted(set(variants()) - scripted)
    assert not missing, f"variants without a hand script in seeds/scripts: {missing}"
