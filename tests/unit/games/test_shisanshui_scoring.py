"""十三水 water: rows and their bonuses, 打枪, 全垒打, special hands against normal and
special hands, and the money: water x base score, proportional limited liability
(十三水 6、实际输赢 1)) and 5% rake.

Rules: 000_d16ad353ba467b8a.txt, 十三水规则 (基本规则 6)-8), 4、特殊牌型, 5、计水规则,
6、实际输赢); numbers from seeds/variants/shisanshui.json."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from croupier.games import base as g
from croupier.games.registry import engine, variant_config
from croupier.games.shisanshui.engine import ShisanshuiEngine, ShisanshuiState
from croupier.games.shisanshui.hands import Arrangement, Special
from croupier.games.shisanshui.scoring import WaterRules, score
from croupier.settlement import settle_state

RULES = WaterRules.from_config(variant_config("shisanshui").raw)


def a(rows: str, special: Special | None = None) -> Arrangement:
    f, m, b = (tuple(r.split()) for r in rows.split("|"))
    return Arrangement(f, m, b, special)


# three everyday arrangements
WEAK = a("2c 3d 5h | 4c 4d 7s 8h 9c | 6c 6d Ts Jh Qc")  # 5-3-2 | 4s | 6s
MID = a("Ac 3s 5d | 9d 9h 2s 7h Tc | Kc Kd Qs Jd 8c")  # A53 | 9s | Ks
STRONG = a("Kh Ks 4h | Ah Ad 2h 3c 6h | 7c 7d 7h Js 2d")  # KK | AA | 777


def water(*hands: Arrangement) -> dict[int, int]:
    return score({i + 1: h for i, h in enumerate(hands)}, RULES).water


def test_rows_won_and_lost_add_up() -> None:
    # MID vs WEAK: front A-high beats 5-high, middle 9s beat 4s, back Ks beat 6s: 打枪
    assert water(MID, WEAK) == {1: 6, 2: -6}
    # STRONG vs MID: KK > A53, AA > 99, 777 > KK: 打枪 too
    sc = score({1: STRONG, 2: MID}, RULES)
    assert sc.water == {1: 6, 2: -6} and sc.pairs[0].gun == 1
    # a split result: front lost, middle won, back won -> +1, no 打枪
    mixed = a("2c 3d 4h | Qc Qd 7s 8h 9c | Ah As Ts Jh 5c")
    sc = score({1: mixed, 2: MID}, RULES)
    assert sc.pairs[0].rows == (-1, 1, 1) and sc.pairs[0].gun is None
    assert sc.water == {1: 1, 2: -1}


def test_equal_rows_are_even() -> None:
    twin = a("Ad 3c 5s | 9s 9c 2d 7d Th | Ks Kh Qd Jc 8d")  # MID's ranks, other suits
    sc = score({1: MID, 2: twin}, RULES)
    assert sc.pairs[0].rows == (0, 0, 0) and sc.water == {1: 0, 2: 0}


@pytest.mark.parametrize(
    ("winner", "rows", "want"),
    [
        (a("Qc Qd Qh | Kc Kd 7s 7h 9c | Ac Ad 3s 3h 4c"), (3, 1, 1), "冲三 3"),
        (a("2c 3d 5h | Kc Kd Kh 7h 7c | Ac Ad As 3h 3c"), (1, 2, 1), "中墩葫芦 2"),
        (a("2c 3d 5h | 9c 9d 9h 9s 7c | Ac Ad As Ah 3c"), (1, 8, 4), "铁支 8 and 4"),
        (a("2c 3d 5h | 5s 6s 7s 8s 9s | Th Jh Qh Kh Ah"), (1, 10, 5), "同花顺 10 and 5"),
    ],
)
def test_row_bonuses_follow_the_winners_row(
    winner: Arrangement, rows: tuple[int, ...], want: str
) -> None:
    loser = a("2d 3h 4c | 2c 3c 4d 7d Jc | 2d 3h 5d 8c Tc")  # high cards everywhere
    sc = score({1: winner, 2: loser}, RULES)
    assert sc.pairs[0].rows == rows, want
    assert sc.water == {1: 2 * sum(rows), 2: -2 * sum(rows)}  # all three won: 打枪 x2
    # the loser's side: the same figures, negative
    sc = score({1: loser, 2: winner}, RULES)
    assert sc.pairs[0].rows == tuple(-r for r in rows)


def test_home_run_needs_four_players_all_shot() -> None:
    # STRONG shoots MID and WEAK; with three players that is 打枪 only
    assert water(STRONG, MID, WEAK) == {1: 12, 2: -6 + 6, 3: -12}
    low = a("2d 3h 4s | 5c 5h 7c 8d Tc | 6h 6s 9h Jc Qd")  # loses every row to STRONG
    sc = score({1: STRONG, 2: MID, 3: WEAK, 4: low}, RULES)
    assert sc.home_run == 1
    # each pair of the shooter doubled twice: 3 x 2 x 2
    assert [p.total for p in sc.pairs if p.a == 1] == [12, 12, 12]
    assert sc.water[1] == 36
    assert sum(sc.water.values()) == 0


def test_special_hands_take_their_water_from_every_smaller_hand() -> None:
    six_pairs = a("2c 2d 9h | 3c 3d 4s 4h 9c | 5c 5d 6s 6h Kc", Special.LIU_DUI_BAN)
    dragon = a("Ac 2d 3h | 4c 5d 6s 7h 8c | 9d Ts Jh Qc Kd", Special.YI_TIAO_LONG)
    # one special, two normal hands: the normal hands compare, each pays the special 6
    sc = score({1: six_pairs, 2: MID, 3: WEAK}, RULES)
    assert sc.water == {1: 12, 2: -6 + 6, 3: -6 - 6}
    # two specials and a lone normal hand: it pays the sum (30 + 6); the larger special
    # takes its own water from the smaller
    sc = score({1: six_pairs, 2: dragon, 3: MID}, RULES)
    assert sc.water == {1: 6 - 30, 2: 30 + 30, 3: -6 - 30}
    # equal specials are even
    other = a("7c 7d 9d | 8c 8d Ts Th 9s | Jc Jd Qs Qh Ac", Special.LIU_DUI_BAN)
    assert water(six_pairs, other) == {1: 0, 2: 0}


def test_specials_rule_out_guns_against_them_and_the_home_run() -> None:
    six_pairs = a("2c 2d 9h | 3c 3d 4s 4h 9c | 5c 5d 6s 6h Kc", Special.LIU_DUI_BAN)
    low = a("2d 3h 4s | 5c 5h 7c 8d Tc | 6h 6s 9h Jc Qd")
    sc = score({1: STRONG, 2: MID, 3: low, 4: six_pairs}, RULES)
    assert sc.home_run is None  # STRONG shot both normal hands, but not the special
    assert [p.total for p in sc.pairs if p.a == 1] == [6, 6, -6]


def test_the_water_table_is_the_seeds() -> None:
    assert RULES.specials == {
        Special.QING_LONG: 60, Special.YI_TIAO_LONG: 30, Special.SHI_ER_HUANG_ZU: 24,
        Special.SAN_TONG_HUA_SHUN: 20, Special.SAN_FEN_TIAN_XIA: 20, Special.QUAN_DA: 10,
        Special.QUAN_XIAO: 10, Special.COU_YI_SE: 10, Special.WU_DUI_SAN_TIAO: 8,
        Special.SI_TAO_SAN_TIAO: 8, Special.LIU_DUI_BAN: 6, Special.SAN_SHUN_ZI: 3,
        Special.SAN_TONG_HUA: 3,
    }  # fmt: skip
    assert (RULES.gun, RULES.home_run, RULES.home_run_players) == (2, 2, 4)


def state(stacks: list[int], hands: list[Arrangement]) -> tuple[ShisanshuiEngine, ShisanshuiState]:
    e = engine("shisanshui")
    assert isinstance(e, ShisanshuiEngine)
    op: dict[str, Any] = {
        "variant": "shisanshui",
        "config_version": 1,
        "table": "t1",
        "shoe": "t1_s1",
        "commitment": "00" * 32,
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": i + 1, "player": f"p{i + 1}", "stack": k} for i, k in enumerate(stacks)],
    }
    st = e.open("t1_h1", op)
    st.arranged = {i + 1: h for i, h in enumerate(hands)}
    st.phase, st.closed = "done", True
    assert g.HAND_CLOSED
    return e, st


def test_money_is_water_times_base_score_with_five_percent_rake() -> None:
    e, st = state([10**6, 10**6, 10**6], [STRONG, MID, WEAK])
    hs = settle_state(e, st)
    # base 100: p1 wins 12 water = 1200, raked 60; p2 even; p3 pays 1200
    assert hs.record["deltas"] == {"p1": 1140, "p2": 0, "p3": -1200}
    assert hs.rake == 60
    kinds = {(c["payer"], c["payee"]) for c in hs.record["steps"][0]["claims"]}
    assert kinds == {("p2", "p1"), ("p3", "p1"), ("p3", "p2")}


def test_a_short_stack_limits_everyone_in_proportion() -> None:
    """十三水 6、实际输赢 1): p3 carried 600 but owes 1200: nobody loses more than they
    carried, and the winners share what the losers can pay in proportion."""
    e, st = state([10**6, 10**6, 600], [STRONG, MID, WEAK])
    hs = settle_state(e, st)
    d = hs.record["deltas"]
    assert d["p3"] == -600
    # theoretical nets: p1 +1200, p2 0, p3 -1200 -> p3 limited to 600, p1 gets 600
    assert d["p1"] + hs.rake == 600 and d["p2"] == 0 and hs.rake == 30
    assert sum(d.values()) + hs.rake == 0
    assert Fraction(hs.rake) <= Fraction(600, 20)


@pytest.mark.parametrize("variant", ["shisanshui"])
def test_every_config_block_cites_a_seed_section_or_a_default(variant: str) -> None:
    raw = variant_config(variant).raw
    assert str(raw["source"]).startswith("00")
    for key, block in raw.items():
        if not isinstance(block, dict):
            continue
        notes = [str(v) for k, v in block.items() if k.endswith("source")]
        assert any(
            n.startswith(("000_d16ad353ba467b8a.txt", "001_5f10773fec037198.txt"))
            or n.startswith(("default:", "computed:"))
            for n in notes
        ), f"{variant}.{key}: {notes}"
