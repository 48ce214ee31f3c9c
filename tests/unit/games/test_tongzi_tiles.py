"""The 筒子 two-tile evaluator (croupier.games.tongzi.tiles): the seeds' rankings as
hand-built cases, the readings each variant config chose, and bad tiles.

Sources: 000_d16ad353ba467b8a.txt, 二八杠 牌型大小 (天王 > 对子 > 二八杠 > 九点 > ... >
一点 > 鳖十) and 推筒子游戏规则 一、牌型介绍 / 二、比牌说明; 001_5f10773fec037198.txt,
first section (先比对子，再比点数; 二筒配八筒 the best after the pairs)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from croupier.errors import ConfigError, NotationError
from croupier.games.registry import engine
from croupier.games.tongzi.erbagang import ErbagangEngine
from croupier.games.tongzi.tiles import (
    TILES,
    Category,
    SamePoints,
    TileRules,
    kind_pairs,
    parse_hand,
    parse_tile,
    tile_rank,
)
from croupier.games.tongzi.tuitongzi import TuitongziEngine

ERBA = TileRules.from_config(engine("erbagang").config.raw)
TUI = TileRules.from_config(engine("tuitongzi").config.raw)


def h(text: str) -> list[str]:
    return text.split()


def test_the_configs_read_white_as_zero_points_and_break_equal_points_by_the_high_tile() -> None:
    for v in ("erbagang", "erbagang.dice2", "tuitongzi"):
        e = engine(v)
        assert isinstance(e, ErbagangEngine | TuitongziEngine)
        assert e.tiles.white_points == 0
        assert e.tiles.same_points is SamePoints.HIGH_TILE


@pytest.mark.parametrize(
    ("tiles", "category", "points", "name"),
    [
        ("5z 5z", Category.WHITE_PAIR, 0, "天王"),
        ("9p 9p", Category.PAIR, 8, "对子"),
        ("1p 1p", Category.PAIR, 2, "对子"),
        ("2p 8p", Category.ERBA, 0, "二八杠"),
        ("8p 2p", Category.ERBA, 0, "二八杠"),
        ("4p 5p", Category.POINTS, 9, "9点"),
        ("5z 9p", Category.POINTS, 9, "9点"),
        ("6p 7p", Category.POINTS, 3, "3点"),
        ("5z 1p", Category.POINTS, 1, "1点"),
        ("1p 9p", Category.ZERO, 0, "鳖十"),
        ("3p 7p", Category.ZERO, 0, "鳖十"),
        ("4p 6p", Category.ZERO, 0, "鳖十"),
    ],
)
def test_erbagang_classes_and_names(tiles: str, category: Category, points: int, name: str) -> None:
    hand = ERBA.evaluate(h(tiles))
    assert (hand.category, hand.points, hand.name) == (category, Fraction(points), name)


def test_erbagang_order_tianwang_pairs_erba_nine_down_to_one_then_bie_shi() -> None:
    # 000 二八杠 牌型大小: 天王 > 对子 > 二八杠 > 九点 > 八点 ... 一点 > 鳖十
    ladder = [
        "5z 5z",
        "9p 9p",
        "5p 5p",
        "1p 1p",
        "2p 8p",
        "5z 9p",
        "1p 8p",
        "4p 5p",
        "5z 8p",
        "1p 7p",
        "2p 6p",
        "3p 5p",
        "2p 4p",
        "5z 1p",
        "4p 7p",
        "1p 9p",
        "3p 7p",
        "4p 6p",
    ]
    for hi, lo in itertools.pairwise(ladder):
        assert ERBA.compare(h(hi), h(lo)) == 1, (hi, lo)
        assert ERBA.compare(h(lo), h(hi)) == -1, (hi, lo)


def test_equal_points_compare_the_higher_tile_with_white_highest() -> None:
    # 推筒子 比牌说明 3: 白板 > 九筒 > ... > 一筒, read into both games (configs' notes)
    assert ERBA.compare(h("5z 8p"), h("1p 7p")) == 1
    assert ERBA.compare(h("1p 7p"), h("3p 5p")) == 1
    assert ERBA.compare(h("9p 1p"), h("3p 7p")) == 1  # 鳖十 too
    assert TUI.compare(h("5z 6p"), h("9p 7p")) == 1


def test_only_the_same_tiles_make_equal_hands() -> None:
    for (a, _), (b, _) in itertools.product(kind_pairs(), repeat=2):
        same = sorted(a) == sorted(b) or {*a} == {*b} == {"2p", "8p"}
        assert (ERBA.compare(a, b) == 0) == same, (a, b)
        assert (TUI.compare(a, b) == 0) == same, (a, b)


def test_tuitongzi_classes_baozi_erba_sanpai() -> None:
    # 推筒子 一、牌型介绍: 豹子 two identical tiles, 二八杠 2筒+8筒, 散牌 the rest
    assert TUI.evaluate(h("5z 5z")).name == "豹子"
    assert TUI.evaluate(h("3p 3p")).name == "豹子"
    assert TUI.evaluate(h("2p 8p")).name == "二八杠"
    assert TUI.evaluate(h("5z 4p")).name == "散牌"
    assert TUI.evaluate(h("5z 4p")).points == 4  # 白板以0点计算
    # 比牌说明 1: 豹子 > 二八杠 > 散牌; 2: same class, points decide (9 > ... > 0)
    assert TUI.compare(h("1p 1p"), h("2p 8p")) == 1
    assert TUI.compare(h("2p 8p"), h("5z 9p")) == 1
    assert TUI.compare(h("4p 5p"), h("3p 4p")) == 1
    assert TUI.compare(h("3p 4p"), h("9p 1p")) == 1


def test_pairs_compare_by_their_tile_not_by_their_points() -> None:
    # two 九筒 make 8 points and two 四筒 8 too, two 五筒 0: the pairs_source note
    assert TUI.compare(h("9p 9p"), h("4p 4p")) == 1
    assert TUI.compare(h("5p 5p"), h("4p 4p")) == 1
    assert TUI.compare(h("5z 5z"), h("9p 9p")) == 1


def test_the_equal_points_reading_ties_hands_of_equal_points() -> None:
    loose = TileRules(same_points=SamePoints.EQUAL)
    assert loose.compare(h("5z 8p"), h("1p 7p")) == 0
    assert loose.compare(h("1p 9p"), h("3p 7p")) == 0
    assert loose.compare(h("9p 9p"), h("8p 8p")) == 1  # pairs are not points


def test_white_as_half_a_point_ranks_every_hand_as_white_as_zero() -> None:
    half = TileRules(white_points=Fraction(1, 2))
    assert half.evaluate(h("5z 9p")).points == Fraction(19, 2)
    assert half.evaluate(h("5z 9p")).to_json_dict()["points"] == "19/2"
    pairs = [t for t, _ in kind_pairs()]
    for a, b in itertools.product(pairs, repeat=2):
        assert half.compare(a, b) == ERBA.compare(a, b), (a, b)


def test_kind_pairs_count_all_780_hands() -> None:
    pairs = kind_pairs()
    assert len(pairs) == 55
    assert sum(n for _, n in pairs) == 780


def test_tiles_and_their_single_order() -> None:
    assert TILES == ("1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "5z")
    assert [tile_rank(t) for t in TILES] == list(range(1, 11))
    assert parse_tile(" 5Z ") == "5z"
    assert parse_hand(["9P", "1p"]) == ("9p", "1p")


@pytest.mark.parametrize("bad", ["1m", "0p", "6z", "", "白", None, 5])
def test_bad_tiles_are_refused(bad: object) -> None:
    with pytest.raises(NotationError):
        parse_tile(bad)


def test_bad_hands_and_configs_are_refused() -> None:
    with pytest.raises(NotationError, match="two tiles"):
        parse_hand(["1p"])
    with pytest.raises(ConfigError):
        TileRules(white_points=Fraction(1))
    with pytest.raises(ConfigError):
        TileRules.from_config({"tiles": {"white_points": "0", "same_points": "coin"}})
    with pytest.raises(ConfigError):
        TileRules.from_config({})


@pytest.mark.parametrize("variant", ["erbagang", "erbagang.dice2", "tuitongzi"])
def test_every_config_section_carries_a_source_note_citing_a_seed_or_a_default(
    variant: str,
) -> None:
    raw = engine(variant).config.raw
    assert str(raw["source"]).startswith(("000_d16ad353ba467b8a.txt", "001_5f10773fec037198.txt"))
    for key, section in raw.items():
        if not isinstance(section, dict) or key == "names":
            continue
        notes = [str(v) for k, v in section.items() if k.endswith("source")]
        assert notes, f"{variant}.{key} has no source note"
        assert any(
            n.startswith(("000_d16ad353ba467b8a.txt", "001_5f10773fec037198.txt"))
            or n.startswith(("default:", "computed:"))
            for n in notes
        ), f"{variant}.{key}: {notes}"
