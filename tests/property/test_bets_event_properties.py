"""``bets.placed`` is ``bet.placed`` done several times: for every variant and random
bets (legal, over a limit, on spots the game has not, from seats that are not at the
table, malformed), stepping one ``bets.placed`` leaves the same state as stepping its
bets one ``bet.placed`` at a time, or is refused with the same reason; ``verify`` of a
``bets.placed`` says what ``step`` would and changes nothing; a replay of a log written
either way gives the same state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine, variants

STACKS = (10**9, 10**6, 5000, 0)
AMOUNTS = (1, 100, 1000, 5000, 50_000, 700_000, 10**8, 0, -100, "100", 2.5)


@cache
def spots_of(variant: str) -> tuple[str, ...]:
    """Spots to bet on: the variant's own (its config's ``spots``) and a few the
    families use or none has."""
    raw = engine(variant).config.raw
    own = raw.get("spots")
    names = set(own) if isinstance(own, Mapping) else set()
    return tuple(sorted(names | {"main", "ante", "spin", "banker", "red", "nowhere"}))


@cache
def seat_range(variant: str) -> tuple[int, int]:
    """The fewest and most seats a hand of the variant opens with (up to 4)."""
    eng = engine(variant)
    fits = []
    for n in range(1, 5):
        try:
            eng.open("h", opened(variant, [10**6] * n))
        except RuleViolation:
            continue
        fits.append(n)
    assert fits, variant
    return fits[0], fits[-1]


def opened(variant: str, stacks: list[int]) -> dict[str, Any]:
    seats = [{"seat": i + 1, "player": f"p{i + 1}", "stack": s} for i, s in enumerate(stacks)]
    return {
        "variant": variant,
        "config_version": engine(variant).config.version,
        "table": "t1",
        "shoe": "",
        "commitment": "",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": seats,
        "carry": {},
    }


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    variant = draw(st.sampled_from(variants()))
    n = draw(st.integers(*seat_range(variant)))
    stacks = [draw(st.sampled_from(STACKS)) for _ in range(n)]
    bet = st.fixed_dictionaries(
        {
            "seat": st.integers(0, n + 1),
            "spot": st.sampled_from(spots_of(variant)),
            "amount": st.sampled_from(AMOUNTS),
        }
    )
    bets = draw(st.lists(bet, min_size=1, max_size=8))
    if draw(st.integers(0, 9)) == 0:  # a bet missing a field
        bets[draw(st.integers(0, len(bets) - 1))].pop("amount")
    open_ = opened(variant, stacks)
    try:  # some tables refuse a seat that cannot cover the smallest bet
        engine(variant).open("h", open_)
    except RuleViolation:
        open_ = opened(variant, [10**9] * n)
    return variant, open_, bets


def one_by_one(variant: str, open_: dict[str, Any], bets: list[dict[str, Any]]) -> Any:
    eng = engine(variant)
    state = eng.open("h", open_)
    for b in bets:
        eng.step(state, g.BET_PLACED, b)
    return state


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_one_bets_event_is_its_bets_one_by_one(
    case: tuple[str, dict[str, Any], list[dict[str, Any]]],
) -> None:
    variant, open_, bets = case
    eng = engine(variant)
    try:
        want: Any = one_by_one(variant, open_, bets)
    except RuleViolation as e:
        want = (type(e), e.reason)
    state = eng.open("h", open_)
    before = copy.deepcopy(state)
    payload = {"bets": bets}
    ok = eng.can(state, g.BETS_PLACED, payload)
    assert repr(state) == repr(before)  # verify changes nothing
    try:
        eng.step(state, g.BETS_PLACED, payload)
        got: Any = state
    except RuleViolation as e:
        got = (type(e), e.reason)
    if isinstance(want, tuple):
        assert got == want and not ok
    else:
        assert ok and repr(got) == repr(want)
        logged = [(g.HAND_OPENED, open_), (g.BETS_PLACED, payload)]
        single = [(g.HAND_OPENED, open_)] + [(g.BET_PLACED, b) for b in bets]
        assert repr(eng.replay("h", logged)) == repr(eng.replay("h", single)) == repr(want)


@pytest.mark.parametrize(
    "payload",
    [{}, {"bets": []}, {"bets": "x"}, {"bets": [["1", "main", 100]]}, {"bets": [{}], "n": 1}],
)
def test_a_malformed_bets_event_is_refused_in_every_variant(payload: dict[str, Any]) -> None:
    for variant in variants():
        eng = engine(variant)
        state = eng.open("h", opened(variant, [10**6] * seat_range(variant)[0]))
        with pytest.raises(RuleViolation) as e:
            eng.step(state, g.BETS_PLACED, payload)
        assert e.value.reason == "malformed", variant


def test_a_family_that_overrides_the_dispatch_gets_it_for_every_bet() -> None:
    """``step`` calls a bet's two hooks directly only for engines that keep ``Engine``'s
    ``verify``/``apply`` and their per-type dispatch; an engine overriding any of them
    (niuniu, blackjack, hold'em and 炸金花 override ``apply_event``) gets its override
    for each bet of a ``bets.placed``, as for a lone ``bet.placed``."""
    base_cls = type(engine("baccarat"))
    calls: list[str] = []

    class Counting(base_cls):  # type: ignore[valid-type, misc]
        def verify(self, state: Any, type_: str, payload: Mapping[str, Any]) -> None:
            calls.append(f"verify {type_}")
            super().verify(state, type_, payload)

        def apply_event(self, state: Any, type_: str, payload: Mapping[str, Any]) -> None:
            calls.append(f"apply {type_}")
            super().apply_event(state, type_, payload)

    eng = Counting(engine("baccarat").config)
    assert not g._plain_dispatch(Counting) and g._plain_dispatch(base_cls)
    assert not any(
        g._plain_dispatch(type(engine(v))) for v in ("niuniu.hundred", "holdem.must_bet")
    )
    state = eng.open("h1", opened("baccarat", [10**6, 10**6]))
    bets = [
        {"seat": 1, "spot": "banker", "amount": 1000},
        {"seat": 2, "spot": "player", "amount": 2000},
    ]
    eng.step(state, g.BETS_PLACED, {"bets": bets})
    assert calls == ["verify bet.placed", "apply bet.placed"] * 2
    assert state.total_staked == 3000
