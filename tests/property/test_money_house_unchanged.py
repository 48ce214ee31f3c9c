"""The house-banked kernel after its integer rework gives the very result the code before
it gave (``house_settle_reference``, kept verbatim): the same ``SettlementResult`` (its
``repr`` too, which tells ``Fraction(3, 1)`` from ``3``), the same record bytes, the
same errors. Over random wagers and through ``settle_spots_against_house`` (one result
per spot), and through the baccarat engine's own settlement of random coups."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import house_settle_reference as ref
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_money_house_fastpath import AMOUNTS, CAPS, PLAYERS, RATES, RESULTS, SPOTS

from croupier import canonical
from croupier.errors import CroupierError
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.baccarat.rules import Spot
from croupier.games.registry import engine as engine_for
from croupier.money import HOUSE, SettlementResult, Wager, settle_against_house
from croupier.money import settle_spots_against_house as by_spot
from croupier.settlement import settle_state

PROFILE = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same(new: SettlementResult, old: SettlementResult) -> None:
    assert new == old
    assert repr(new) == repr(old)
    assert canonical.dumps(new.to_json_dict()) == canonical.dumps(old.to_json_dict())
    assert canonical.dumps(new.to_json_dict(1)) == canonical.dumps(old.to_json_dict(1))


def outcome(fn: Any, *args: Any, **kwargs: Any) -> object:
    try:
        return fn(*args, **kwargs)
    except CroupierError as e:
        return (type(e), str(e))


RAW_RESULTS: st.SearchStrategy[Any] = st.one_of(
    RESULTS, st.sampled_from([Fraction(-3, 2), -2, "abc", 0.5, True])
)
RAW_AMOUNTS: st.SearchStrategy[Any] = st.one_of(
    AMOUNTS, st.sampled_from([-1, True, Fraction(5), Fraction(1, 2), 1.0])
)


@PROFILE
@given(
    st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(SPOTS), AMOUNTS, RESULTS)),
    RATES,
    CAPS,
    st.sampled_from(["", "001 三公 抽水"]),
    st.sampled_from([HOUSE, "casino"]),
    st.text(max_size=8),
)
def test_wagers_settle_as_before(
    rows: list[tuple[str, str, int, Any]],
    rate: Any,
    cap: int | None,
    source: str,
    house: str,
    hand_id: str,
) -> None:
    ws = [Wager(*row) for row in rows]
    kwargs: dict[str, Any] = {
        "house": house,
        "rake_rate": rate,
        "rake_cap": cap,
        "rake_source": source,
        "hand_id": hand_id,
    }
    old = outcome(ref.settle_against_house, ws, **kwargs)
    new = outcome(settle_against_house, ws, **kwargs)
    if isinstance(old, SettlementResult):
        assert isinstance(new, SettlementResult)
        same(new, old)
    else:
        assert new == old


@PROFILE
@given(st.sampled_from([*PLAYERS, "", 7]), st.sampled_from(SPOTS), RAW_AMOUNTS, RAW_RESULTS)
def test_a_wager_holds_and_refuses_what_it_did(player: Any, spot: str, amount: Any, r: Any) -> None:
    old = outcome(ref.wager_fields, player, spot, amount, r)
    new = outcome(lambda: Wager(player, spot, amount, r))
    if isinstance(new, Wager):
        fields = (new.participant, new.spot, new.amount, new.result)
        assert fields == old
        assert repr(fields) == repr(old)
    else:
        assert new == old


@PROFILE
@given(st.data(), RATES, CAPS, st.sampled_from([HOUSE, "casino"]))
def test_one_result_per_spot_is_the_wagers_settlement(
    data: st.DataObject, rate: Any, cap: int | None, house: str
) -> None:
    results = data.draw(st.fixed_dictionaries({s: RESULTS for s in SPOTS}))
    stakes = data.draw(
        st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(SPOTS), AMOUNTS))
    )
    kwargs: dict[str, Any] = {"house": house, "rake_rate": rate, "rake_cap": cap, "hand_id": "h"}
    old = outcome(
        lambda: ref.settle_against_house(
            [Wager(p, s, a, results[s]) for p, s, a in stakes], **kwargs
        )
    )
    new = outcome(by_spot, stakes, results, **kwargs)
    if isinstance(old, SettlementResult):
        assert isinstance(new, SettlementResult)
        same(new, old)
    else:
        assert new == old


@PROFILE
@given(
    st.lists(
        st.tuples(st.sampled_from([*PLAYERS, "", 7]), st.sampled_from(SPOTS), RAW_AMOUNTS),
        max_size=6,
    ),
    st.fixed_dictionaries({s: RAW_RESULTS for s in SPOTS[:4]}),
    st.sampled_from([HOUSE, "p1", ""]),
)
def test_one_result_per_spot_refuses_what_wagers_refuse(
    stakes: list[tuple[Any, str, Any]], results: dict[str, Any], house: str
) -> None:
    """Bad stakes, bad results, a missing result, the house betting: an error exactly
    when building the wagers and settling them gives one (a spot with no result is a
    wager that cannot be built)."""
    new = outcome(by_spot, stakes, results, house=house)

    def old_way() -> SettlementResult:
        ws = []
        for p, s, a in stakes:
            if s not in results:
                raise CroupierError(f"no result for spot {s!r}")
            ws.append(Wager(p, s, a, results[s]))
        return ref.settle_against_house(ws, house=house)

    old = outcome(old_way)
    assert isinstance(new, SettlementResult) == isinstance(old, SettlementResult)
    if isinstance(old, SettlementResult):
        assert isinstance(new, SettlementResult)
        same(new, old)


RANKS = "A23456789TJQK"
SUITS = "shdc"


def random_coup(eng: BaccaratEngine, rng: random.Random, hand_id: str) -> BaccaratState:
    """A closed hand: up to eight seats, 1-4 random stakes each, random cards in the
    order the drawing rules ask for them."""
    seats = [
        {"seat": n, "player": f"p{n}", "stack": 10**9} for n in range(1, rng.randint(1, 8) + 1)
    ]
    opened = {"table": "t", "shoe_hand_no": 1, "seats": seats, "hand_no": 1}
    st = eng.open(hand_id, opened)
    spots = [s.value for s in Spot]
    for seat in seats:
        for spot in rng.sample(spots, rng.randint(0, 4)):
            amount = rng.choice((1, 5, 100, 550, 1_000, 25_000)) * rng.randint(1, 9)
            eng.apply_bet(st, {"seat": seat["seat"], "spot": spot, "amount": amount})
    eng.apply_betting_closed(st, {})
    pos = 0
    while (req := eng.next_deal(st)) is not None:
        cards = [
            {"to": d.to, "card": rng.choice(RANKS) + rng.choice(SUITS), "pos": pos + i, "up": True}
            for i, d in enumerate(req.cards)
        ]
        pos += len(cards)
        eng.apply_cards(st, {"cards": cards})
    return st


@pytest.mark.parametrize("seed", range(4))
def test_baccarat_settles_every_coup_as_before(seed: int) -> None:
    """The engine's settlement (per-spot results, no wagers) against the engine's code
    before: the result, and what the settlement service stores (record bytes, postings)."""
    eng = engine_for("baccarat")
    assert isinstance(eng, BaccaratEngine)
    rng = random.Random(seed)
    for n in range(300):
        st = random_coup(eng, rng, f"h{seed}-{n}")
        same(eng.settle(st), ref.baccarat_settle(eng, st))
        hs = settle_state(eng, st)
        old = ref.baccarat_settle(eng, st)
        assert hs.record_bytes == canonical.dumps(old.to_json_dict())
        assert dict(hs.postings) == {
            **{f"player:{p}": d for p, d in old.deltas.items() if p != HOUSE},
            "house:baccarat": old.deltas[HOUSE],
        }
