"""Properties of 幸运五张 hands over random play: random stakes, decks shuffled by
``croupier.fair`` from a drawn seed, holds drawn at random (the automatic ones, none,
all, any subset). Zero-sum; the result is the stake times the paytable value minus the
stake, exactly; the final hand is the held cards plus fresh ones; a replay is
identical."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import canonical, fair
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.videopoker.engine import VideoPokerEngine
from croupier.games.videopoker.rules import classify
from croupier.settlement import settle_state


@settings(max_examples=150, deadline=None)
@given(
    st.binary(min_size=32, max_size=32),
    st.sampled_from([100, 500, 2500, 100_000]),
    st.one_of(st.none(), st.sets(st.integers(0, 4))),
)
def test_hands(seed: bytes, bet: int, hold: set[int] | None) -> None:
    e = engine("videopoker.lucky5")
    assert isinstance(e, VideoPokerEngine)
    opened = {
        "variant": e.variant, "config_version": 1, "table": "t", "shoe": "s",
        "commitment": "", "hand_no": 1, "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p1", "stack": 10**6}],
    }  # fmt: skip
    st_ = e.open("prop_h1", opened)
    events: list[tuple[str, Mapping[str, Any]]] = [(g.HAND_OPENED, opened)]

    def step(type_: str, payload: Mapping[str, Any]) -> None:
        e.step(st_, type_, payload)
        events.append((type_, payload))

    step(g.BET_PLACED, {"seat": 1, "spot": "main", "amount": bet})
    step(g.BETTING_CLOSED, {})
    order = fair.shuffle(e.config.deck, seed, "prop", 1)
    pos = 0
    while not e.is_over(st_):
        req = e.next_deal(st_)
        if req is None:
            args = {} if hold is None else {"hold": [st_.dealt[i] for i in sorted(hold)]}
            step(g.ACTION_TAKEN, {"seat": 1, "action": "draw", "args": args})
            continue
        cards = [
            {"to": d.to, "card": order[pos + i], "pos": pos + i, "up": True}
            for i, d in enumerate(req.cards)
        ]
        pos += len(cards)
        step(g.CARD_DEALT, {"cards": cards})
    step(g.HAND_CLOSED, {"positions_used": pos})
    assert st_.final[: len(st_.hold or [])] == st_.hold
    assert set(st_.final) <= set(order[:pos]) and len(set(st_.final)) == 5
    if hold is None:
        assert tuple(st_.hold or ()) == e.auto_hold(st_)
    res = e.settle(st_)
    assert sum(res.deltas.values()) == 0
    assert res.deltas["p1"] == bet * (e.paytable[classify(st_.final)] - 1)
    again = e.replay("prop_h1", events)
    assert again == st_
    assert canonical.dumps(e.outcome(again)) == canonical.dumps(e.outcome(st_))
    assert settle_state(e, again).record_bytes == settle_state(e, st_).record_bytes
