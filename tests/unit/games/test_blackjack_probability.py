"""Blackjack oracles: dealer outcome probabilities against published tables, the exact
house edge of each variant under basic strategy (pinned), the engine's expected result
from whole game trees against the exact analysis, a sampled check, and basic strategy
itself.

External reference for the dealer tables: Wizard of Odds, Blackjack appendix 2B
("Dealer Probabilities in Blackjack", before the dealer peeks, dealer stands on soft 17)
and appendix 2 (after the peek), for 1 and 2 decks; computed by combinatorial analysis
from full decks less the up card, given to 6 significant digits.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from croupier.games import base as g
from croupier.games.blackjack.engine import BlackjackEngine, BlackjackState
from croupier.games.blackjack.probability import (
    P_VALUE,
    Analysis,
    dealer_distribution,
    dealer_distribution_shoe,
    shoe_counts,
)
from croupier.games.blackjack.rules import VALUES, Action, Final, Kind, Rules, Tally, card_value
from croupier.games.blackjack.strategy import advise, analysis, chart
from croupier.games.registry import engine

MULTI: BlackjackEngine = engine("blackjack.multi")  # type: ignore[assignment]
LUCKY: BlackjackEngine = engine("blackjack.lucky")  # type: ignore[assignment]
STANDARD = LUCKY.rules  # S17, no dealer five-card rule: the published tables' dealer

ORDER = [Final(Kind.POINTS, n) for n in range(17, 22)] + [
    Final(Kind.BLACKJACK, 21),
    Final(Kind.BUST),
]
# up card -> P(17), P(18), P(19), P(20), P(21), P(blackjack), P(bust)
WOO_1D_S17 = {
    1: (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    2: (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0, 0.352973),
    3: (0.130313, 0.130946, 0.123761, 0.123345, 0.116047, 0, 0.375588),
    4: (0.130973, 0.114163, 0.120679, 0.116286, 0.115096, 0, 0.402803),
    5: (0.119687, 0.123483, 0.116909, 0.104694, 0.106321, 0, 0.428905),
    6: (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0, 0.420823),
    7: (0.372345, 0.138583, 0.0773344, 0.0788967, 0.072987, 0, 0.259854),
    8: (0.130857, 0.362989, 0.129445, 0.0682898, 0.0697914, 0, 0.238627),
    9: (0.121886, 0.103921, 0.357391, 0.12225, 0.0611088, 0, 0.233442),
    10: (0.114418, 0.112879, 0.114662, 0.328879, 0.0364661, 0.0784314, 0.214264),
}
WOO_2D_S17 = {
    1: (0.128467, 0.13089, 0.130179, 0.131159, 0.0527542, 0.31068, 0.115872),
    2: (0.139367, 0.133348, 0.130744, 0.123997, 0.119254, 0, 0.353291),
    3: (0.132764, 0.130676, 0.124575, 0.121811, 0.11538, 0, 0.374794),
    4: (0.130704, 0.120208, 0.121038, 0.116366, 0.113145, 0, 0.39854),
    5: (0.121005, 0.122831, 0.117318, 0.109022, 0.10732, 0, 0.422505),
    6: (0.166224, 0.10617, 0.106749, 0.101217, 0.097508, 0, 0.422132),
    7: (0.370478, 0.138195, 0.078013, 0.078781, 0.07339, 0, 0.261143),
    8: (0.129697, 0.361182, 0.129025, 0.068857, 0.06961, 0, 0.24163),
    9: (0.12094, 0.112016, 0.354051, 0.121118, 0.060977, 0, 0.230898),
}
# after the peek (no blackjack), 2 decks, appendix 2
WOO_2D_S17_PEEKED = {
    1: (0.186367, 0.189883, 0.188851, 0.190272, 0.076531, 0, 0.168096),
    10: (0.122412, 0.1216, 0.122524, 0.36387, 0.038449, 0, 0.231144),
}


def shoe_less(decks: int, up: int) -> tuple[int, ...]:
    c = list(shoe_counts(decks))
    c[up - 1] -= 1
    return tuple(c)


@pytest.mark.parametrize(("decks", "table"), [(1, WOO_1D_S17), (2, WOO_2D_S17)])
def test_dealer_outcomes_match_the_published_tables(
    decks: int, table: dict[int, tuple[float, ...]]
) -> None:
    for up, row in table.items():
        d = dealer_distribution_shoe(STANDARD, up, shoe_less(decks, up))
        assert sum(d.values()) == 1
        got = [float(d.get(f, 0)) for f in ORDER]
        assert got == pytest.approx(row, abs=1e-6), (decks, up)


def test_dealer_outcomes_after_a_peek_match_the_published_table() -> None:
    for up, row in WOO_2D_S17_PEEKED.items():
        d = dealer_distribution_shoe(STANDARD, up, shoe_less(2, up))
        rest = 1 - d.pop(Final(Kind.BLACKJACK, 21))
        got = [float(d.get(f, 0) / rest) for f in ORDER]
        assert got == pytest.approx(row, abs=1e-6), up


def test_the_infinite_deck_is_the_limit_of_the_shoe() -> None:
    for up in (1, 6, 10):
        inf = dealer_distribution(STANDARD, up)
        big = dealer_distribution_shoe(STANDARD, up, shoe_less(200, up))
        assert sum(inf.values()) == 1
        for f in ORDER:
            assert float(big.get(f, 0)) == pytest.approx(float(inf.get(f, 0)), abs=2e-4)
    # the ace: P(blackjack) = P(ten) = 4/13 exactly; after the peek it is gone
    assert dealer_distribution(STANDARD, 1)[Final(Kind.BLACKJACK, 21)] == Fraction(4, 13)
    assert Final(Kind.BLACKJACK, 21) not in dealer_distribution(STANDARD, 1, no_blackjack=True)


def test_the_multi_dealer_can_make_a_five_card_charlie() -> None:
    d = dealer_distribution(MULTI.rules, 2)
    assert float(d[Final(Kind.CHARLIE)]) == pytest.approx(0.0721263, abs=1e-7)  # 2060/28561
    assert Final(Kind.CHARLIE) not in dealer_distribution(LUCKY.rules, 2)


# --- the house edge ------------------------------------------------------------------------


def test_the_dealers_five_card_charlie_is_the_only_reading_below_rtp_one() -> None:
    """001 多人21点 五小龙 is written for the player, and 庄家点数小于17点必须要牌 reads as
    a dealer drawing below 17 whatever its card count. Read so, basic strategy returns
    1.014067 per unit (a player edge): not a reading. With the dealer's 五小龙 (config
    charlie.dealer, its dealer_source states both figures) it returns 0.999139."""
    literal = analysis(dataclasses.replace(MULTI.rules, dealer_charlie=False)).summary()
    kept = MULTI.summary()
    assert f"{float(literal.rtp):.6f}" == "1.014067" and literal.rtp > 1
    assert f"{float(kept.rtp):.6f}" == "0.999139"
    note = MULTI.config.raw["charlie"]["dealer_source"]
    assert "RTP 0.999139" in note and "RTP 1.014067" in note


def test_pinned_house_edges() -> None:
    """Exact over an infinite deck (rational arithmetic), so the tolerance only covers
    the decimal writing of the pinned figures. 多人21点: the five-card charlie paid 3:2
    gives the player +0.9505% before the 2% rake, which takes 1.0366% per round: the
    house edge is 0.0861% (with hitting a four-card soft 21 allowed it would be -0.0507%,
    a player edge, which is why a hand reaching 21 stands). 幸运21点: 0.7017%."""
    m, lk = MULTI.summary(), LUCKY.summary()
    assert float(m.ev) == pytest.approx(0.009504816002896, abs=1e-14)
    assert float(m.rake) == pytest.approx(0.010365677221990, abs=1e-14)
    assert float(m.house_edge) == pytest.approx(0.000860861219094, abs=1e-14)
    assert float(lk.ev) == pytest.approx(-0.007017416373571, abs=1e-14)
    assert lk.rake == 0 and lk.house_edge == -lk.ev
    assert float(m.spot_rtp["insurance"]) == float(lk.spot_rtp["insurance"]) == 12 / 13
    cfg = {e: e.config.raw["house_edge"]["basic_strategy"] for e in (MULTI, LUCKY)}
    assert cfg[MULTI] == f"{float(m.house_edge) * 100:.4f}%" == "0.0861%"
    assert cfg[LUCKY] == f"{float(lk.house_edge) * 100:.4f}%" == "0.7017%"


@pytest.mark.parametrize("eng", [MULTI, LUCKY], ids=["multi", "lucky"])
def test_the_distributions_agree_with_the_strategy_recursion(eng: BlackjackEngine) -> None:
    """Without rake the round's expected result computed from finished-hand
    distributions (summary) equals the value basic strategy optimised, exactly."""
    rules = dataclasses.replace(eng.rules, rake=Fraction(0))
    a = Analysis(rules)
    linear = sum(
        (
            P_VALUE[up] * p * a.choose(up, t, False, True, pair)[1]
            for up in VALUES
            for t, pair, p in a.initial_hands()
        ),
        Fraction(0),
    )
    assert a.summary().ev == linear
    assert a.summary().rake == 0


def test_theoretical_rtp_feeds_the_demo_and_the_cli() -> None:
    rtp = MULTI.theoretical_rtp()
    assert set(rtp) == {
        "main", "double", "main.split", "double.split", "insurance", "round", "round_after_rake",
    }  # fmt: skip
    assert rtp["round"] == 1 + MULTI.summary().ev
    assert "double.split" not in LUCKY.theoretical_rtp()  # no doubling after a split
    assert "house edge" in LUCKY.rtp_table()


# --- the engine against the analysis, exactly ------------------------------------------------

RANK = {1: "A", **{v: str(v) for v in range(2, 10)}, 10: "T"}


def _key(st: BlackjackState) -> Any:
    def box(b: Any) -> Any:
        values = tuple(sorted(card_value(c) for c in b.cards))
        return (values, b.from_split, b.doubled, b.stood, b.owed)

    boxes = tuple(
        (s, tuple(box(b) for b in p.boxes), p.splits, p.insurance)
        for s, p in sorted(st.play.items())
    )
    dealer = (card_value(st.dealer[0]), tuple(sorted(card_value(c) for c in st.dealer[1:])))
    hole = card_value(st.hole) if st.hole else 0
    return (st.phase, boxes, dealer, hole, st.hole_revealed, st.peeked)


def engine_tree_value(eng: BlackjackEngine, start: Sequence[str]) -> Fraction:
    """The expected result of a one-seat round from (card, card, dealer up), per unit
    bet and after rake, by walking every card the engine asks for (drawn from an
    infinite deck) with basic strategy deciding, and settling each leaf through the
    engine. States with the same cards by value share their value."""
    op = {
        "variant": eng.variant, "config_version": eng.config.version, "table": "t", "shoe": "s",
        "commitment": "", "hand_no": 1, "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p", "stack": 10**9}],
    }  # fmt: skip
    st = eng.open("h", op)
    eng.step(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 1000})
    eng.step(st, g.BETTING_CLOSED, {})
    to = ("seat:1", "seat:1", "dealer")
    first = [
        {"to": t, "card": c, "pos": i, "up": True}
        for i, (t, c) in enumerate(zip(to, start, strict=True))
    ]
    eng.step(st, g.CARD_DEALT, {"cards": first})
    memo: dict[Any, Fraction] = {}

    def value(st: BlackjackState) -> Fraction:
        k = _key(st)
        if k in memo:
            return memo[k]
        req = eng.next_deal(st)
        res = Fraction(0)
        if req is not None and req.reveal:
            s2 = copy.deepcopy(st)
            eng.step(s2, g.CARDS_REVEALED, {"to": "dealer", "cards": [s2.hole]})
            res = value(s2)
        elif req is not None:
            for vs in itertools.product(VALUES, repeat=len(req.cards)):
                s2 = copy.deepcopy(st)
                cards = [
                    {"to": d.to, "card": RANK[v] + "shdc"[i], "pos": 3 + i, "up": d.up}
                    for i, (d, v) in enumerate(zip(req.cards, vs, strict=True))
                ]
                eng.step(s2, g.CARD_DEALT, {"cards": cards})
                res += math.prod((P_VALUE[v] for v in vs), start=Fraction(1)) * value(s2)
        elif eng.is_over(st):
            res = Fraction(eng.settle(st).deltas["p"], 1000)
        else:
            turn = eng.to_act(st)
            assert turn is not None
            s2 = copy.deepcopy(st)
            act = eng.advise(st, turn).value
            eng.step(s2, g.ACTION_TAKEN, {"seat": 1, "action": act, "args": {}})
            res = value(s2)
        memo[k] = res
        return res

    return value(st)


@pytest.mark.parametrize("eng", [MULTI, LUCKY], ids=["multi", "lucky"])
@pytest.mark.parametrize(
    "start",
    [
        ("Tc", "Td", "6h"),  # stands on 20
        ("As", "Kd", "Ah"),  # blackjack against an ace: insurance declined, maybe a push
        ("Tc", "6d", "Th"),  # 16 against a ten: hits
        ("6c", "5d", "6h"),  # 11 against a six: doubles
        ("Tc", "2d", "4h"),  # 12 against a four: stands
    ],
)
def test_the_engine_settles_what_the_analysis_expects(
    eng: BlackjackEngine, start: tuple[str, str, str]
) -> None:
    """Every card sequence the engine can ask for from this start, weighted by its
    infinite-deck probability, with the engine's own moves, payouts and rake: the
    expected result equals the analysis' exact figure to the last bit. (Splits are
    checked the same way by ``bench/bench_blackjack_edge.py --trees``: their game trees
    take minutes.)"""
    rules = eng.rules
    t = Tally.of_cards(start[:2])
    ev, rake = analysis(rules).start_value(card_value(start[2]), t, rules.is_pair(start[:2]))
    assert engine_tree_value(eng, start) == ev - rake


@pytest.mark.parametrize("eng", [MULTI, LUCKY], ids=["multi", "lucky"])
def test_sampled_rounds_agree_with_the_exact_edge(eng: BlackjackEngine) -> None:
    """Rounds dealt from an infinite deck (cards drawn with replacement) through the
    engine with basic strategy: the mean result per unit bet lies within 4.5 standard
    errors of the exact figure (a false alarm about once in 150,000 runs). 4,000 rounds
    give a standard error near 1.7%: this catches gross errors only; the exact trees
    above are the sharp check."""
    rng = random.Random(20240801)
    deck = [r + s for s in "shdc" for r in "A23456789TJQK"]
    xs = []
    for _ in range(4000):
        op = {
            "variant": eng.variant, "config_version": eng.config.version, "table": "t", "shoe": "s",
            "commitment": "", "hand_no": 1, "shoe_hand_no": 1,
            "seats": [{"seat": 1, "player": "p", "stack": 10**9}],
        }  # fmt: skip
        st = eng.open("h", op)
        eng.apply(st, g.BET_PLACED, {"seat": 1, "spot": "main", "amount": 1000})
        eng.apply(st, g.BETTING_CLOSED, {})
        while not eng.is_over(st):
            req = eng.next_deal(st)
            if req is not None and req.reveal:
                eng.apply(st, g.CARDS_REVEALED, {"to": "dealer", "cards": [st.hole]})
            elif req is not None:
                cards = [
                    {"to": d.to, "card": rng.choice(deck), "pos": 0, "up": d.up} for d in req.cards
                ]
                eng.apply(st, g.CARD_DEALT, {"cards": cards})
            else:
                turn = eng.to_act(st)
                assert turn is not None
                act = eng.advise(st, turn).value
                eng.apply(st, g.ACTION_TAKEN, {"seat": 1, "action": act, "args": {}})
        xs.append(eng.settle(st).deltas["p"] / 1000)
    n = len(xs)
    mean = sum(xs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)
    exact = float(-eng.summary().house_edge)
    assert abs(mean - exact) < 4.5 * se, (mean, exact, se)


# --- basic strategy ----------------------------------------------------------------------


def act(rules: Rules, cards: Sequence[str], up: str, **kw: Any) -> Action:
    return advise(rules, cards, up, **kw)


def test_lucky_basic_strategy_is_the_european_no_hole_card_chart() -> None:
    r = LUCKY.rules
    assert act(r, ["Tc", "6d"], "Th") is Action.HIT
    assert act(r, ["Tc", "6d"], "6h") is Action.STAND
    assert act(r, ["Tc", "2d"], "4h") is Action.STAND
    assert act(r, ["Tc", "2d"], "3h") is Action.HIT
    assert act(r, ["6c", "5d"], "9h") is Action.DOUBLE
    assert act(r, ["6c", "5d"], "Th") is Action.HIT  # no hole card: no double against a ten
    assert act(r, ["8c", "8d"], "9h") is Action.SPLIT
    assert act(r, ["8c", "8d"], "Th") is Action.HIT  # and no split against a ten
    assert act(r, ["Ac", "Ad"], "Ah") is Action.SPLIT
    assert act(r, ["Tc", "Td"], "6h") is Action.STAND
    assert act(r, ["Ac", "7d"], "9h") is Action.HIT
    assert act(r, ["Ac", "6d"], "5h") is Action.HIT  # soft doubles are not allowed
    assert act(r, ["6c", "3d"], "4h") is Action.DOUBLE


def test_multi_basic_strategy_chases_the_five_card_charlie() -> None:
    r = MULTI.rules
    assert act(r, ["Tc", "6d"], "6h") is Action.STAND
    assert act(r, ["2c", "3d", "5h", "6s"], "6h") is Action.HIT  # four cards, 16
    assert act(LUCKY.rules, ["2c", "3d", "5h", "6s"], "6h") is Action.STAND
    assert act(r, ["Ac", "2d", "3h", "5s"], "Th") is Action.STAND  # 21 stands by itself
    assert act(r, ["Ac", "7d"], "5h") is Action.DOUBLE  # soft doubles are allowed
    assert act(r, ["Kc", "Qd"], "6h") is Action.STAND  # a ten pair splits by points only


def test_the_advisor_keeps_to_the_legal_actions() -> None:
    r = MULTI.rules
    assert act(r, ["6c", "5d"], "6h", legal=(Action.HIT, Action.STAND)) is Action.HIT
    assert act(r, ["8c", "8d"], "6h", legal=(Action.HIT, Action.STAND)) is Action.STAND
    after_peek = act(r, ["Tc", "6d"], "Ah", dealer_checked=True)
    assert after_peek is Action.HIT


def test_the_chart_covers_every_two_card_start() -> None:
    for rules in (MULTI.rules, LUCKY.rules):
        c = chart(rules)
        assert len(c) == 16 + 8 + 10
        assert all(set(row) == set(VALUES) for row in c.values())
        assert c["hard 20"][10] is Action.STAND and c["pair A"][6] is Action.SPLIT
