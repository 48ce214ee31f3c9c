"""Fan patterns and each variant's table (croupier.games.mahjong.fan): one hand-built
hand per pattern, the exclusions (不计), the combinations and the readings."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import pytest

from croupier.errors import ConfigError
from croupier.games.mahjong.fan import FanTable, WinContext, score
from croupier.games.mahjong.rules import rules_from_config
from croupier.games.mahjong.tiles import parse_tiles
from croupier.games.mahjong.win import Forms, Shape
from croupier.games.registry import variant_config


def table(variant: str) -> FanTable:
    return rules_from_config(variant_config(variant).raw).fan


def fan_of(
    variant: str,
    tiles: str,
    melds: str = "",
    *,
    wilds: int = 0,
    gangs: str = "",
    **ctx: bool,
) -> tuple[int, list[str]]:
    # melds and gangs are written as three tiles each ("555p" is a 碰 or 杠 of 5p)
    m = [(t, 3) for t in parse_tiles(melds)[::3]] if melds else []
    m += [(t, 4) for t in parse_tiles(gangs)[::3]] if gangs else []
    shape = Shape.of(parse_tiles(tiles), wilds=wilds, melds=m)
    n_gangs = len(parse_tiles(gangs)) // 3 if gangs else 0
    sc = score(shape, WinContext(gangs=n_gangs, **ctx), table(variant))
    assert sc is not None, tiles
    return sc.fan, list(sc.names)


XZ = "mahjong.xuezhan"
DD = "mahjong.xuezhan_daodi"
GD = "mahjong.guangdong"


@pytest.mark.parametrize(
    ("tiles", "melds", "gangs", "ctx", "fan", "names"),
    [
        # 000 血战麻将 番型 (0-8) and 翻倍
        ("123m456m789p234p55p", "", "", {}, 0, ["平胡"]),
        ("111m222m333p44p", "555p", "", {}, 1, ["对对胡"]),
        ("123m456m789m234m55m", "", "", {}, 2, ["清一色"]),
        ("1133m5577p2244s99p", "", "", {}, 2, ["七对"]),
        ("123m789m123p999p11p", "", "", {}, 2, ["全带幺"]),
        ("5p5p", "111m999m222p", "333p", {}, 3, ["金钩钓", "根"]),
        ("111m222m333m444m55m", "", "", {}, 3, ["对对胡", "清一色"]),
        ("1111m5577p2244s99p", "", "", {}, 3, ["龙七对"]),  # 不再计七对, 减1根
        ("11335577m224499m", "", "", {}, 4, ["清一色", "七对"]),
        ("5m5m", "111m999m", "222m333m", {}, 6, ["清一色", "金钩钓", "根x2"]),
        ("11115577m224499m", "", "", {}, 5, ["清一色", "龙七对"]),
        ("5p5p", "", "111m999m222p333p", {}, 6, ["十八罗汉"]),  # 不计4根/金钩钓/对对胡
        ("5m5m", "", "111m999m222m333m", {}, 8, ["清一色", "十八罗汉"]),
        ("123m456m789p234p55p", "", "", {"tian_hu": True}, 5, ["平胡", "天胡"]),
        ("123m456m789p234p55p", "", "", {"di_hu": True}, 5, ["平胡", "地胡"]),
        (
            "123m456m789p234p55p",
            "",
            "",
            {"self_draw": True, "gang_flower": True, "last_tile": True},
            3,
            ["平胡", "自摸", "杠上开花", "海底捞月"],
        ),
        ("123m456m789p234p55p", "", "", {"gang_shot": True}, 1, ["平胡", "杠上炮"]),
        ("1111m456m789p234p55p"[1:], "", "", {}, 0, ["平胡"]),
        ("111123m789p234p55p", "", "", {}, 1, ["平胡", "根"]),
    ],
)
def test_xuezhan_table(
    tiles: str, melds: str, gangs: str, ctx: dict[str, bool], fan: int, names: list[str]
) -> None:
    assert fan_of(XZ, tiles, melds, gangs=gangs, **ctx) == (fan, names)


def test_xuezhan_seed_example_three_fan_self_draw() -> None:
    # 000 血战麻将 得分计算: 3 番 self-drawn = 清一色 (2) + 自摸 (1)
    assert fan_of(XZ, "123m456m789m234m55m", self_draw=True) == (3, ["清一色", "自摸"])


@pytest.mark.parametrize(
    ("tiles", "melds", "gangs", "ctx", "fan", "names"),
    [
        # 004 血战到底 3、牌型 and 加番 (the cap of 3 is the kernel's)
        ("123m456m789p234p55p", "", "", {}, 0, ["素番"]),
        ("111m222m333p44p", "555p", "", {}, 1, ["大对子"]),
        ("123m456m789m234m55m", "", "", {}, 2, ["清一色"]),
        ("1133m5577p2244s99p", "", "", {}, 2, ["暗七对"]),
        ("123m789m123p999p11p", "", "", {}, 2, ["全带幺"]),
        ("111m222m333m444m55m", "", "", {}, 3, ["清对"]),  # not also 清一色/大对子
        ("11335577m224499m", "", "", {}, 3, ["清七对"]),  # 3, not 2 + 2
        ("1111m5577p2244s99p", "", "", {}, 4, ["龙七对", "根"]),
        ("123m456m789p234p55p", "", "", {"self_draw": True}, 0, ["素番", "自摸"]),
        ("123m456m789p234p55p", "", "", {"rob_gang": True}, 1, ["素番", "抢杠"]),
        ("123m456m789p234p55p", "", "", {"tian_hu": True}, 4, ["素番", "天胡"]),
        ("123m456m789p234p55p", "", "", {"di_hu": True}, 4, ["素番", "地胡"]),
        ("123m456m789p55p", "", "234p", {"gang_flower": True}, 2, ["素番", "根", "杠上花"]),
    ],
)
def test_xuezhan_daodi_table(
    tiles: str, melds: str, gangs: str, ctx: dict[str, bool], fan: int, names: list[str]
) -> None:
    assert fan_of(DD, tiles, melds, gangs=gangs, **ctx) == (fan, names)


@pytest.mark.parametrize(
    ("tiles", "melds", "wilds", "ctx", "fan", "names"),
    [
        # 000 广东麻将推倒胡 基本番型
        ("123m456m789p234p55p", "", 0, {}, 0, ["鸡胡"]),
        ("123m456m789p234p55p", "", 0, {"gang_flower": True}, 3, ["鸡胡", "杠上开花"]),
        ("123m456m789p234p55p", "", 0, {"rob_gang": True}, 3, ["鸡胡", "抢杠胡"]),
        ("123m456m789p234p55p", "", 0, {"last_tile": True}, 3, ["鸡胡", "海底捞月"]),
        ("111m222m333p44p", "555p", 0, {}, 3, ["碰碰胡"]),
        ("123m456m789m11z", "222z", 0, {}, 3, ["混一色"]),
        ("123m456m789m234m55m", "", 0, {}, 4, ["清一色"]),
        ("1133m5577p2244s11z", "", 0, {}, 4, ["七对"]),
        ("1111m5577p2244s11z", "", 0, {}, 5, ["豪华七对"]),
        ("111m999p111z22z", "333z", 0, {}, 5, ["混幺九"]),  # 不计碰碰胡
        ("555z666z77z123m456m", "", 0, {}, 9, ["混一色", "小三元"]),
        ("111z222z333z44z789m", "", 0, {}, 9, ["混一色", "小四喜"]),
        ("111z222z333z66z", "777z", 0, {}, 6, ["字一色"]),
        ("111z222z555z66z", "777z", 0, {}, 12, ["字一色", "小三元"]),
        ("111m999m111p99p", "999s", 0, {}, 6, ["清幺九"]),
        ("19m19p19s12345677z", "", 0, {}, 7, ["十三幺"]),
        ("555z666z777z123m33p", "", 0, {}, 7, ["大三元"]),
        ("111z222z333z55z", "444z", 0, {}, 13, ["字一色", "大四喜"]),
        ("123m456m789p234p55p", "", 0, {"tian_hu": True}, 6, ["鸡胡", "天胡"]),
        ("123m456m789p234p55p", "", 0, {"di_hu": True}, 6, ["鸡胡", "地胡"]),
        # patterns add (the cap of 7 is the kernel's): 清一色 + 碰碰胡 = 7
        ("111m222m333m444m55m", "", 0, {}, 7, ["碰碰胡", "清一色"]),
        # wilds: two ghosts complete 碰碰胡 and 混一色
        ("1m222m333m11z", "444m", 2, {}, 6, ["碰碰胡", "混一色"]),
    ],
)
def test_guangdong_table(
    tiles: str, melds: str, wilds: int, ctx: dict[str, bool], fan: int, names: list[str]
) -> None:
    assert fan_of(GD, tiles, melds, wilds=wilds, gangs="", **ctx) == (fan, names)


def test_a_losing_hand_has_no_score() -> None:
    shape = Shape.of(parse_tiles("123m456m789p234p56p"))
    assert score(shape, WinContext(), table(XZ)) is None


def test_bad_fan_tables_are_refused() -> None:
    with pytest.raises(ConfigError):
        FanTable.from_config({"no_such": {"name": "x", "fan": 1}}, Forms())
    with pytest.raises(ConfigError):
        FanTable.from_config({"ping_hu": {"name": "x", "fan": 1, "excludes": ["zzz"]}}, Forms())
    with pytest.raises(ConfigError):
        FanTable.from_config({"ping_hu": {"fan": 1}}, Forms())


def test_ghost_patterns_are_read_on_one_assignment_of_the_ghosts() -> None:
    # 000 广东麻将推倒胡, 鬼牌 and 基本番型: three ghosts with 56m, 777z and 碰s of 5z and
    # 5s. As 66z (pair) + 4m/7m they make 小三元 (6); as 555m + 66m they make 碰碰胡 (3);
    # no one assignment gives both, so the hand is 6 fan, not 9 (7 after the cap)
    fan, names = fan_of(GD, "56m777z", "555z555s", wilds=3)
    assert (fan, names) == (6, ["小三元"])
    # where one reading holds both they add up
    assert fan_of(GD, "666m777z66z", "555z555s") == (9, ["碰碰胡", "小三元"])


def _best_by_substitution(shape: Shape, t: FanTable) -> int | None:
    """The oracle: the best fan over every tile the wilds could stand for (never a
    fifth copy), each substitution scored as a hand without wilds."""
    totals = shape.real_totals()
    best: int | None = None
    for sub in combinations_with_replacement(range(34), shape.wilds):
        if any(totals[x] + sub.count(x) > 4 for x in sub):
            continue
        c = list(shape.concealed)
        for x in sub:
            c[x] += 1
        sc = score(Shape(tuple(c), 0, shape.melds, shape.meld_sizes), WinContext(), t)
        if sc is not None and (best is None or sc.fan > best):
            best = sc.fan
    return best


def test_ghost_hands_score_as_their_best_substitution() -> None:
    # honour-heavy winning hands with two ghosts: the fan is that of the best tiles the
    # ghosts can stand for - never a sum of patterns from different stand-ins, nor less
    # (e.g. 111z 2z 333z 444z 66p + two ghosts: 小四喜 + 碰碰胡 + 混一色 = 12, not
    # 大四喜 + 混一色 = 10; the cap of 7 is the kernel's)
    rng = random.Random(10)
    t = table(GD)
    checked = 0
    while checked < 40:
        pool = [4] * 34
        tiles: list[int] = []
        for k in range(5):
            x = rng.choice([*range(27, 34), *range(27, 34), rng.randrange(27)])
            n = 2 if k == 4 else 3
            run = x < 27 and x % 9 <= 6 and rng.random() < 0.4 and k < 4
            group = [x, x + 1, x + 2] if run else [x] * n
            if any(pool[y] < group.count(y) for y in group):
                break
            for y in group:
                pool[y] -= 1
            tiles += group
        else:
            rng.shuffle(tiles)
            shape = Shape.of(tiles[2:], wilds=2)
            sc = score(shape, WinContext(), t)
            assert sc is not None
            assert sc.fan == _best_by_substitution(shape, t), shape
            checked += 1
