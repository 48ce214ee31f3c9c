"""PHH export of 必下德州 hands, replayed in PokerKit: PokerKit must end every hand at
Croupier's stacks before rake (``finishing_stacks + _rake``), from the seed's worked
example and from random hands (random cards, stakes, short stacks going all in, any
button)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.errors import InvalidInput
from croupier.export import load_script, script_opened
from croupier.games import base as g
from croupier.games.poker.script import Feeder
from croupier.games.registry import engine
from croupier.history import HandLog, replay
from croupier.history.phh import to_phh
from croupier.settlement import settle_state

pokerkit = pytest.importorskip("pokerkit")

SCRIPTS = Path(__file__).resolve().parents[2] / "seeds" / "scripts"
DECK = [r + s for r in "23456789TJQKA" for s in "shdc"]


def replay_in_pokerkit(text: str) -> tuple[list[int], Any]:
    hh = pokerkit.HandHistory.loads(text)
    state = None
    for state in hh:  # noqa: B007 - the last state is the end of the hand
        pass
    assert state is not None and not state.status  # the hand ran to its end
    return list(state.stacks), hh


def check(text: str, odd_pots: int) -> None:
    """Exact stacks, except that where a split pot left odd units (``odd_pots`` such
    pots) PokerKit, which merges the pots of the same winners before splitting, may
    hand the odd units to another winner: then the totals match and no stack differs
    by more than one unit per such pot."""
    stacks, hh = replay_in_pokerkit(text)
    rake = hh.user_defined_fields["_rake"]
    pk = [a - r for a, r in zip(stacks, rake, strict=True)]
    if odd_pots == 0:
        assert pk == hh.finishing_stacks
    else:
        assert sum(pk) == sum(hh.finishing_stacks)
        assert all(abs(a - b) <= odd_pots for a, b in zip(pk, hh.finishing_stacks, strict=True))


def test_the_seeds_worked_example_round_trips() -> None:
    sc = load_script((SCRIPTS / "holdem.must_bet.json").read_text(encoding="utf-8"))
    text = to_phh(HandLog(sc.hand_id, sc.events))
    stacks, hh = replay_in_pokerkit(text)
    # 000 必下德州规则 结算例子: A +1,000 before the 5% (950 after), B -200, C -800, D 0
    assert stacks == [11000, 9800, 9200, 10000]
    assert hh.finishing_stacks == [10950, 9800, 9200, 10000]
    assert hh.user_defined_fields["_rake"] == [50, 0, 0, 0]


def test_two_plus_three_is_refused_with_the_reason() -> None:
    sc = load_script((SCRIPTS / "holdem.two_plus_three.json").read_text(encoding="utf-8"))
    with pytest.raises(InvalidInput, match="three-card board"):
        to_phh(HandLog(sc.hand_id, sc.events))


def random_hand(seed: int, n: int) -> HandLog:
    rng = random.Random(seed)
    eng = engine("holdem.must_bet")
    deck = DECK[:]
    rng.shuffle(deck)
    seats = sorted(rng.sample(range(1, 10), n))
    stacks = [rng.choice([150, 200, 300, 700, 1000, 5000]) for _ in seats]
    opened = script_opened(
        "holdem.must_bet",
        [(s, f"p{s}", st_) for s, st_ in zip(seats, stacks, strict=True)],
        {"button": rng.choice(seats)},
    )
    state = eng.open("h", opened)
    events: list[tuple[str, Any]] = [(g.HAND_OPENED, opened), (g.BETTING_CLOSED, {})]
    eng.step(state, g.BETTING_CLOSED, {})
    feeder = Feeder({}, dice=[1], deck=deck)
    events += feeder.advance(eng, state)
    order = seats[:]
    rng.shuffle(order)
    for seat in order:
        options: list[tuple[str, dict[str, Any]]] = [("check", {}), ("allin", {})]
        options += [("bet", {"amount": a}) for a in (200, 400, 800, 1600)]
        rng.shuffle(options)
        for action, args in options:
            p = {"seat": seat, "action": action, "args": args}
            if eng.can(state, g.ACTION_TAKEN, p):
                eng.step(state, g.ACTION_TAKEN, p)
                events.append((g.ACTION_TAKEN, p))
                break
        events += feeder.advance(eng, state)
    assert eng.is_over(state)
    settle_state(eng, state)
    return HandLog(f"random_{seed}", tuple(events))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 9))
def test_random_hands_round_trip(seed: int, n: int) -> None:
    log = random_hand(seed, n)
    outcome = replay(log).outcome
    assert outcome is not None
    check(to_phh(log), sum(1 for p in outcome["pots"] if p["odd_units"]))
