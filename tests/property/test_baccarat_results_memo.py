"""A baccarat engine remembers its last coup and each spot's result per combination of
the facts the result depends on (``BaccaratEngine.coup``, ``spot_results``). Over random
complete coups, played one after another on one engine so that the memory is exercised
(and across two paytables), the outcome and the settlement are the ones computed afresh
from :func:`evaluate` and :func:`spot_result`; what a caller does to an outcome does not
reach the next; a state whose cards change is evaluated again."""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import fair
from croupier.games.baccarat.engine import NAMES, SPOT_NAMES, BaccaratEngine, BaccaratState
from croupier.games.baccarat.rules import Coup, Spot, deal_coup, evaluate, spot_result
from croupier.games.base import Seat
from croupier.games.common import plain_fraction
from croupier.games.registry import variant_config
from croupier.money import settle_spots_against_house

CFG = variant_config("baccarat")
SEED_ENGINE = BaccaratEngine(CFG)


def _other_paytable() -> BaccaratEngine:
    raw: dict[str, Any] = copy.deepcopy(dict(CFG.raw))
    raw["spots"]["banker"]["win"] = "19/20"
    raw["spots"]["banker"]["win_with_6"] = "1/3"
    raw["spots"]["tie"]["win"] = "9"
    raw["spots"]["super6"]["win"] = "15"
    return BaccaratEngine(dataclasses.replace(CFG, raw=raw))


OTHER_ENGINE = _other_paytable()


SEATS = {n: Seat(n, f"p{n}", 10**9) for n in (1, 2, 3)}


def _state(player: list[str], banker: list[str]) -> BaccaratState:
    st_ = BaccaratState("baccarat", "t", "h", 1, 1, dict(SEATS), phase="dealing")
    st_.player, st_.banker = player, banker
    return st_


coups = st.builds(
    lambda seed, start: deal_coup(iter(fair.shuffle(CFG.deck, seed, "memo", 1)[start:]).__next__),
    st.binary(min_size=32, max_size=32),
    st.integers(0, 300),
)

bets = st.lists(
    st.tuples(st.sampled_from(sorted(SEATS)), st.sampled_from(list(Spot)), st.integers(0, 10**7)),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(coups, bets), min_size=1, max_size=8), st.booleans())
def test_outcome_and_settlement_equal_the_fresh_computation(
    hands: list[tuple[Coup, list[tuple[int, Spot, int]]]], other: bool
) -> None:
    eng = OTHER_ENGINE if other else SEED_ENGINE
    for coup, wagers in hands:
        st_ = _state(list(coup.player_cards), list(coup.banker_cards))
        fresh = evaluate(st_.player, st_.banker)
        assert eng.coup(st_) == fresh
        want = {name: plain_fraction(spot_result(s, fresh, eng.paytable)) for s, name in SPOT_NAMES}
        out = eng.outcome(st_)
        assert out["spots"] == want
        assert list(out["spots"]) == list(want)  # the same order: the record's bytes
        out["spots"]["banker"] = "tampered"  # a caller's change reaches no later outcome
        st_.bets = list(wagers)
        got = eng.settle(st_)
        stakes = [(st_.seats[seat].player, NAMES[spot], amount) for seat, spot, amount in st_.bets]
        results = {NAMES[s]: spot_result(s, fresh, eng.paytable) for _, s, _ in st_.bets}
        fresh_result = settle_spots_against_house(
            stakes, results, rake_rate=Fraction(0), hand_id="h"
        )
        assert got == fresh_result
        assert got.record_body() == fresh_result.record_body()
    assert len(eng._spot_results) <= 48  # the combinations of the facts, no more


def test_a_state_whose_cards_change_is_evaluated_again() -> None:
    eng = BaccaratEngine(CFG)
    st_ = _state(["9s", "2h"], ["Kd", "3c"])  # player 1, banker 3: both draw
    st_.player.append("5d")
    st_.banker.append("4c")
    first = eng.coup(st_)
    assert (first.player_total, first.banker_total) == (6, 7)
    st_.banker[2] = "2c"  # the same lengths, another card
    second = eng.coup(st_)
    assert second == evaluate(st_.player, st_.banker)
    assert (second.player_total, second.banker_total) == (6, 5)
    assert eng.outcome(st_)["winner"] == "player"


def test_the_two_paytables_keep_their_own_results() -> None:
    coup = evaluate(["9s", "Kh"], ["3d", "3c"])  # the player's natural 9 against 6
    coup6 = evaluate(["2s", "Kh", "3c"], ["4d", "2c"])  # banker wins with 6
    for eng in (SEED_ENGINE, OTHER_ENGINE):
        for c in (coup, coup6):
            by_spot = eng.spot_results(c)[0]
            assert by_spot == {s: spot_result(s, c, eng.paytable) for s in Spot}
    assert SEED_ENGINE.spot_results(coup6)[0][Spot.BANKER] == Fraction(1, 2)
    assert OTHER_ENGINE.spot_results(coup6)[0][Spot.BANKER] == Fraction(1, 3)
