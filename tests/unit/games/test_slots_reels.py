"""多财多福 reels (000_d16ad353ba467b8a.txt, 多财多福规则; the paytable is the project's
design, seeds/variants/slots.duocai.json): the window a stop combination shows, what a
line pays (the longest run from the left only), whole spins, and the machine config."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from croupier.errors import ConfigError, InvalidInput
from croupier.games.registry import variant_config
from croupier.games.slots.reels import Machine, machine_from_config


def machine() -> Machine:
    return machine_from_config(variant_config("slots.duocai").raw)


def test_the_shipped_machine() -> None:
    m = machine()
    assert m.faces == (30, 30, 30) and m.rows == 3 and m.combinations == 27000
    assert m.lines == ((1, 1, 1), (0, 0, 0), (2, 2, 2), (0, 1, 2), (2, 1, 0))
    counts = [Counter(s) for s in m.strips]
    assert counts[0] == {"fu": 3, "cai": 4, "ingot": 4, "coin": 5, "lantern": 8, "knot": 6}
    assert counts[1] == {"fu": 3, "cai": 4, "ingot": 4, "coin": 6, "lantern": 8, "knot": 5}
    assert counts[2] == {"fu": 2, "cai": 3, "ingot": 4, "coin": 7, "lantern": 8, "knot": 6}
    assert m.paytable["fu"] == {3: 100, 2: 5, 1: 2} and m.paytable["knot"] == {3: 10}


def test_the_window_wraps_around_the_strip() -> None:
    m = machine()
    w = m.window([0, 0, 29])
    assert w[0] == (m.strips[0][0], m.strips[1][0], m.strips[2][29])
    assert w[1] == (m.strips[0][1], m.strips[1][1], m.strips[2][0])
    assert w[2] == (m.strips[0][2], m.strips[1][2], m.strips[2][1])
    for stops in ([0, 0], [0, 0, 30], [-1, 0, 0], [0, 0, 1.0]):
        with pytest.raises(InvalidInput):
            m.window(stops)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("symbols", "run", "pay"),
    [
        (("fu", "fu", "fu"), 3, 100),
        (("fu", "fu", "cai"), 2, 5),  # two 福 pay 5, not 5 + 2
        (("fu", "cai", "fu"), 1, 2),
        (("cai", "fu", "fu"), 1, 0),  # runs start on the leftmost reel
        (("cai", "cai", "cai"), 3, 50),
        (("cai", "cai", "coin"), 2, 0),
        (("knot", "knot", "knot"), 3, 10),
        (("lantern", "lantern", "lantern"), 3, 15),
    ],
)
def test_line_pays(symbols: tuple[str, ...], run: int, pay: int) -> None:
    assert machine().line_pay(symbols) == (run, pay)


def test_a_spin_pays_the_sum_of_its_lines() -> None:
    # dice 3 7 22 (stops 2 6 21): 福 福 福 on the top row, 福 starting the rising diagonal
    spin = machine().spin([2, 6, 21])
    assert spin.window[0] == ("fu", "fu", "fu")
    assert [(w.line, w.symbols, w.pay) for w in spin.wins] == [
        (1, ("fu", "fu", "fu"), 100),
        (3, ("fu", "lantern", "coin"), 2),
    ]
    assert spin.pays == 102


def _raw() -> dict[str, Any]:
    return copy.deepcopy(dict(variant_config("slots.duocai").raw))


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda r: r["reels"]["strips"][0].append("dragon"), "without pays"),
        (lambda r: r["lines"].update(rows=[[1, 1, 3]]), "line 0"),
        (lambda r: r["lines"].update(rows=[[1, 1]]), "line 0"),
        (lambda r: r["lines"].update(rows=[[1, 1, 1], [1, 1, 1]]), "twice"),
        (lambda r: r["lines"].update(rows=[]), "no pay lines"),
        (lambda r: r["paytable"]["fu"]["pays"].update({"4": 500}), "fu x4"),
        (lambda r: r["paytable"]["fu"]["pays"].update({"2": -5}), "fu x2"),
        (lambda r: r["reels"]["strips"].__setitem__(2, ["fu"]), "too few"),
        (lambda r: r["reels"].pop("rows"), "rows"),
    ],
)
def test_bad_machines_are_refused(edit: Any, needle: str) -> None:
    raw = _raw()
    edit(raw)
    with pytest.raises(ConfigError) as err:
        machine_from_config(raw)
    assert needle in err.value.message
