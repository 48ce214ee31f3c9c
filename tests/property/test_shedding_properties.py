"""Properties of 斗地主 and 百变双扣 games played by the legal-move generator: every game
ends with one side out of cards; every generated move validates; replaying the events
rebuilds the same state; the settlement is zero-sum, never takes more than a player carried, and
(when nobody is short) equals the seed's formula worked independently."""

from __future__ import annotations

import copy
import random
from collections import Counter
from fractions import Fraction
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from croupier.cards import CARDS54
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shedding.engine import DoudizhuEngine, DoudizhuState
from croupier.games.shedding.moves import check_play
from croupier.games.shedding.shuangkou import ShuangkouEngine, ShuangkouState

VARIANTS = ("doudizhu.classic", "doudizhu.doubling", "doudizhu.three")


def play_random_game(
    variant: str, seed: int, stacks: tuple[int, int, int]
) -> tuple[DoudizhuEngine, DoudizhuState, list[tuple[str, dict[str, Any]]]]:
    e = engine(variant)
    assert isinstance(e, DoudizhuEngine)
    rng = random.Random(seed)
    events: list[tuple[str, dict[str, Any]]] = [
        (
            g.HAND_OPENED,
            {
                "variant": variant,
                "config_version": e.config.version,
                "table": "t",
                "hand_no": 1,
                "shoe_hand_no": 1,
                "seats": [
                    {"seat": n, "player": f"p{n}", "stack": s}
                    for n, s in zip((1, 2, 3), stacks, strict=True)
                ],
                "carry": {},
            },
        )
    ]
    state = e.open("h", events[0][1])

    def step(type_: str, payload: dict[str, Any]) -> None:
        e.step(state, type_, payload)
        events.append((type_, payload))

    step(g.BETTING_CLOSED, {})
    step(g.DICE_ROLLED, {"dice": [rng.randint(1, 3)], "faces": [3], "roll": 0})
    deck = list(CARDS54)
    rng.shuffle(deck)
    req = e.next_deal(state)
    assert req is not None
    step(
        g.CARD_DEALT,
        {
            "cards": [
                {"to": d.to, "card": c, "pos": i, "up": d.up}
                for i, (d, c) in enumerate(zip(req.cards, deck, strict=True))
            ]
        },
    )
    while not e.is_over(state):
        if state.phase == "reveal":
            step(g.CARDS_REVEALED, {"to": "kitty", "cards": list(state.kitty)})
            continue
        turn = e.to_act(state)
        assert turn is not None
        seat, phase = turn
        if phase == "bidding":
            options = [0, *(b for b in e.rules.bids if b > state.top_bid)]
            # bid more often than not, so most games are played
            pts = rng.choice(options) if rng.random() < 0.5 else max(options)
            step(g.ACTION_TAKEN, {"seat": seat, "action": "bid", "args": {"points": pts}})
        elif phase in ("grabbing", "doubling"):
            action = "grab" if phase == "grabbing" else "double"
            yes = rng.random() < 0.5
            step(g.ACTION_TAKEN, {"seat": seat, "action": action, "args": {action: yes}})
        else:
            plays = e.legal_plays(state, seat)
            table = state.trick[1] if state.trick and state.trick[0] != seat else None
            for p in plays:  # every generated move validates
                check_play(p.cards, p.shape, table, e.rules.moves)
                assert not Counter(p.cards) - Counter(state.hands[seat])
            can_pass = table is not None
            if can_pass and (not plays or rng.random() < 0.3):
                step(g.ACTION_TAKEN, {"seat": seat, "action": "pass", "args": {}})
            else:
                assert plays, "a player who leads always has a move"
                p = rng.choice(plays)
                step(g.ACTION_TAKEN, {"seat": seat, "action": "play", "args": p.args()})
    step(g.HAND_CLOSED, {"positions_used": 54, "carry": e.carry(state)})
    return e, state, events


def formula(e: DoudizhuEngine, state: DoudizhuState) -> dict[str, Fraction]:
    """The seeds' score formulas worked directly from the outcome (no short stacks)."""
    r = e.rules
    o = e.outcome(state)
    landlord = o["landlord"]
    grab = Fraction(o["grab_factor"])
    out: dict[str, Fraction] = {f"p{s}": Fraction(0) for s in (1, 2, 3)}
    for f in (1, 2, 3):
        if f == landlord:
            continue
        d = 2 if o["doubles"].get(str(f)) and r.doubling.value != "none" else 1
        m = Fraction(o["bid"]) * grab * d * o["multiple"]
        if r.cap.value == "doudizhu_cap":
            m = min(m, Fraction(30))
        elif r.cap.value == "doudizhu_doubling_caps":
            m = min(m, Fraction(128))
        amount = r.base * m
        sign = 1 if o["winner"] == "landlord" else -1
        out[f"p{landlord}"] += sign * amount
        out[f"p{f}"] -= sign * amount
    return out


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32),
)
@example(variant="doudizhu.classic", seed=2905)  # nobody bids: a void hand
def test_generated_games_end_with_one_side_out_and_match_the_formula(
    variant: str, seed: int
) -> None:
    e, state, events = play_random_game(variant, seed, (10**8, 10**8, 10**8))
    assert state.closed
    if state.void:
        assert state.landlord is None
        assert not any(e.settle(state).deltas.values())  # nobody pays or receives
        return
    assert state.first_out is not None and state.hands[state.first_out] == []
    # replay identity
    again = e.replay("h", events)
    assert again == state
    s = e.settle(state)
    assert sum(s.deltas.values()) + s.total_rake == 0
    want = formula(e, state)
    for p, v in want.items():
        won = s.deltas[p] + s.rake[p]  # before the rake
        assert won == int(v), (p, won, v)
        if v > 0:
            assert s.rake[p] == int(v * e.rules.rake)


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32),
    stacks=st.tuples(*(st.integers(0, 20_000),) * 3),
)
def test_nobody_loses_more_than_carried(
    variant: str, seed: int, stacks: tuple[int, int, int]
) -> None:
    e, state, _ = play_random_game(variant, seed, stacks)
    s = e.settle(state)
    assert sum(s.deltas.values()) + s.total_rake == 0
    for n, stack in zip((1, 2, 3), stacks, strict=True):
        d = s.deltas[f"p{n}"]
        assert -stack <= d <= stack


def play_random_shuangkou(
    seed: int, stacks: tuple[int, int, int, int]
) -> tuple[ShuangkouEngine, ShuangkouState, list[tuple[str, dict[str, Any]]]]:
    e = engine("shuangkou")
    assert isinstance(e, ShuangkouEngine)
    rng = random.Random(seed)
    opened = {
        "variant": "shuangkou",
        "config_version": e.config.version,
        "table": "t",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [
            {"seat": n, "player": f"p{n}", "stack": s}
            for n, s in zip((1, 2, 3, 4), stacks, strict=True)
        ],
    }
    events: list[tuple[str, dict[str, Any]]] = [(g.HAND_OPENED, opened)]
    state = e.open("h", opened)

    def step(type_: str, payload: dict[str, Any]) -> None:
        e.step(state, type_, payload)
        events.append((type_, payload))

    step(g.BETTING_CLOSED, {})
    step(g.DICE_ROLLED, {"dice": [rng.randint(1, 4)], "faces": [4], "roll": 0})
    deck = list(CARDS54) * 2
    rng.shuffle(deck)
    req = e.next_deal(state)
    assert req is not None
    step(
        g.CARD_DEALT,
        {
            "cards": [
                {"to": d.to, "card": c, "pos": i, "up": d.up}
                for i, (d, c) in enumerate(zip(req.cards, deck, strict=True))
            ]
        },
    )
    while not e.is_over(state):
        seat = e.to_act(state)
        assert seat is not None and state.hands[seat]
        plays = e.legal_plays(state, seat)
        table = state.trick[1] if state.trick and state.trick[0] != seat else None
        for p in plays[:: max(1, len(plays) // 40)]:  # a sample: 27-card hands are long
            check_play(p.cards, p.shape, table, e.rules.moves)
        if table is not None and (not plays or rng.random() < 0.3):
            step(g.ACTION_TAKEN, {"seat": seat, "action": "pass", "args": {}})
        else:
            assert plays
            # prefer long moves so a game is short; bombs now and then
            p = max(rng.sample(plays, min(4, len(plays))), key=lambda q: len(q.cards))
            step(g.ACTION_TAKEN, {"seat": seat, "action": "play", "args": p.args()})
    step(g.HAND_CLOSED, {"positions_used": 108, "carry": e.carry(state)})
    return e, state, events


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    stacks=st.tuples(*(st.sampled_from((0, 500, 5000, 10**7)),) * 4),
)
def test_shuangkou_games_end_with_one_side_out_and_settle_within_stacks(
    seed: int, stacks: tuple[int, int, int, int]
) -> None:
    e, state, events = play_random_shuangkou(seed, stacks)
    assert state.side_out()
    first = state.out[0]
    assert not state.hands[first] and e.outcome(state)["winners"] == sorted(
        [first, state.partner(first)]
    )
    assert e.replay("h", events) == state
    s = e.settle(state)
    assert sum(s.deltas.values()) + s.total_rake == 0
    for n, stack in zip((1, 2, 3, 4), stacks, strict=True):
        assert -stack <= s.deltas[f"p{n}"] <= stack


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from((*VARIANTS, "shuangkou")))
def test_a_move_made_from_its_check_is_the_move_made_afresh(seed: int, variant: str) -> None:
    """A step makes an action from its check's reading (the engine keeps the last
    checked move by its payload object); a bot's view makes it alone, from a payload
    parsed and read afresh. Over whole games, copies of the payloads made alone build
    the state the checked steps built."""
    e: Any
    state: Any
    if variant == "shuangkou":
        e, state, events = play_random_shuangkou(seed, (10**7,) * 4)
    else:
        e, state, events = play_random_game(variant, seed, (10**7,) * 3)
    fresh = e.open("h", events[0][1])
    for type_, payload in events[1:]:
        e.apply(fresh, type_, copy.deepcopy(payload))
    assert fresh == state
