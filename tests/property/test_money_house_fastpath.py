"""``settle_against_house`` works the theoretical step out directly, in integers; the
record must be the very one the general pipeline gives (``_settle_against_house_generic``:
one claim per wager through :func:`croupier.money.settle`), byte for byte, because
auditors compare stored records with recomputed ones. Random players, spots, stakes,
paytable results, rake rates and caps; and the same errors for bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.money import FIVE_PERCENT, HOUSE, TWO_PERCENT, SettlementResult, Wager
from croupier.money import settle_against_house as direct
from croupier.money.settle import _settle_against_house_generic as generic

PROFILE = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PLAYERS = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "玩家", "bank"]
SPOTS = ["banker", "player", "tie", "banker_pair", "player_pair", "big", "small", "super6", ""]
PAYTABLE: list[Fraction | int] = [
    1,
    Fraction(1, 2),
    Fraction(3, 2),
    8,
    11,
    12,
    0,
    -1,
    Fraction(-1, 2),
]
# as a Wager takes them: Fraction, int or exact string; plus a few uncommon multiples
RESULTS: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([Fraction(r) for r in PAYTABLE]),
    st.sampled_from([*PAYTABLE, "1/2", "-1/2", "0.95", "3/2"]),
    st.sampled_from([Fraction(19, 20), Fraction(1, 3), Fraction(-2, 7), Fraction(7, 5)]),
)
AMOUNTS = st.one_of(
    st.integers(0, 10),
    st.sampled_from([100, 500, 1_000, 2_500, 10_000]).flatmap(
        lambda chip: st.integers(1, 20).map(lambda k: k * chip)
    ),
    st.integers(0, 10**12),
)
RATES: st.SearchStrategy[Any] = st.sampled_from(
    [0, Fraction(0), TWO_PERCENT, FIVE_PERCENT, "2%", "5%", Fraction(3, 100)]
)
CAPS = st.one_of(st.none(), st.integers(0, 50), st.integers(0, 10**9))

wagers = st.lists(
    st.builds(Wager, st.sampled_from(PLAYERS), st.sampled_from(SPOTS), AMOUNTS, RESULTS),
    max_size=30,
)


def same_record(fast: SettlementResult, slow: SettlementResult) -> None:
    record = fast.to_json_dict()
    assert record == slow.to_json_dict()
    # key order and value types too, not only what == sees
    assert json.dumps(record, ensure_ascii=False) == json.dumps(
        slow.to_json_dict(), ensure_ascii=False
    )
    assert canonical.dumps(record) == canonical.dumps(slow.to_json_dict())
    assert fast == slow


@PROFILE
@given(
    wagers,
    RATES,
    CAPS,
    st.sampled_from(["", "001 三公 抽水"]),
    st.sampled_from([HOUSE, "casino"]),
    st.text(max_size=8),
)
def test_direct_record_is_the_pipeline_record(
    ws: list[Wager], rate: Any, cap: int | None, source: str, house: str, hand_id: str
) -> None:
    kwargs: dict[str, Any] = {
        "house": house,
        "rake_rate": rate,
        "rake_cap": cap,
        "rake_source": source,
        "hand_id": hand_id,
    }
    same_record(direct(ws, **kwargs), generic(ws, **kwargs))


@PROFILE
@given(st.data())
def test_baccarat_like_hands(data: st.DataObject) -> None:
    """Eight players, one coup: every stake on a spot gets that spot's result."""
    results = data.draw(st.fixed_dictionaries({s: st.sampled_from(PAYTABLE) for s in SPOTS[:8]}))
    ws = [
        Wager(f"seat{seat}", spot, data.draw(AMOUNTS), results[spot])
        for seat in range(1, 9)
        for spot in data.draw(st.lists(st.sampled_from(SPOTS[:8]), min_size=1, max_size=4))
    ]
    rate = data.draw(st.sampled_from([Fraction(0), TWO_PERCENT, FIVE_PERCENT]))
    cap = data.draw(CAPS)
    same_record(
        direct(ws, rake_rate=rate, rake_cap=cap, hand_id="coup"),
        generic(ws, rake_rate=rate, rake_cap=cap, hand_id="coup"),
    )


def outcome(settle: Callable[..., SettlementResult], *args: Any, **kwargs: Any) -> object:
    try:
        return settle(*args, **kwargs).to_json_dict()
    except Exception as e:  # the error itself is what is compared
        return (type(e), str(e))


GOOD = Wager("p1", "banker", 100, Fraction(1, 2))


@pytest.mark.parametrize(
    ("ws", "kwargs"),
    [
        ([GOOD], {"house": ""}),
        ([GOOD], {"house": 7}),
        ([GOOD, "wager"], {}),
        ([GOOD, Wager(HOUSE, "tie", 1, 8)], {}),
        ([Wager("casino", "tie", 1, 8)], {"house": "casino"}),
        ([GOOD], {"rake_rate": 1}),
        ([GOOD], {"rake_rate": -1}),
        ([GOOD], {"rake_rate": 0.05}),
        ([GOOD], {"rake_rate": True}),
        ([GOOD], {"rake_rate": "abc"}),
        ([GOOD], {"rake_cap": -1}),
        ([GOOD], {"rake_cap": True}),
        ([GOOD], {"rake_cap": 5, "rake_rate": FIVE_PERCENT}),
        ([GOOD, Wager(HOUSE, "tie", 1, 8)], {"rake_rate": 0.05}),
        ([], {}),
        ([], {"rake_rate": FIVE_PERCENT, "rake_cap": 0, "house": "bank"}),
    ],
)
def test_same_errors_and_edge_cases(ws: list[Any], kwargs: dict[str, Any]) -> None:
    assert outcome(direct, ws, **kwargs) == outcome(generic, ws, **kwargs)
