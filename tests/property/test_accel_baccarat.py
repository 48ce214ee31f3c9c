"""A baccarat hand's events stepped natively (``croupier._accel.baccarat_steps``, through
:meth:`BaccaratEngine.fast_steps`) against the pure engine stepping them one by one.

The native answer is "proven" (the state's fields) or "not proven" (``None``: the pure
engine steps the events and decides). What is pinned: a proven hand is one the pure
engine accepts event by event, with the very same state; a hand the pure engine refuses
is never proven; and the hands the dealer writes are proven (else the native path would
be dead weight). Over a large random corpus of hands — bets one by one and a call's bets
as one event, legal and with one thing spoilt (a seat, a spot, an amount, a limit, a
deal out of order, a card face down, misspelt or to the wrong side, a bad position, a
close too early or with a carry, an event out of place or of another family) — under
the seed's config and under configs with a stake step, a spot closing early and tight
limits. Skipped, saying so, where the extension is not built (CI requires it)."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest
from test_baccarat_replay_unchanged import _hand

from croupier import accel
from croupier.errors import CroupierError
from croupier.games import base as g
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variant_config

pytestmark = pytest.mark.skipif(
    accel.native is None, reason=f"the native accelerator is {accel.status}"
)

SEED: BaccaratEngine = engine_for("baccarat")  # type: ignore[assignment]


def _engine(**change: Any) -> BaccaratEngine:
    cfg = variant_config("baccarat")
    raw = copy.deepcopy(dict(cfg.raw))
    for key, value in change.items():
        if key == "spot_max":
            for spot, top in value.items():
                raw["spots"][spot]["max"] = top
        elif key == "table_max":
            raw["table_limit"]["max_total_stake"] = value
        else:
            raw[key] = value
    return BaccaratEngine(dataclasses.replace(cfg, raw=raw))


ENGINES = [
    SEED,
    _engine(stake_step=5000),
    _engine(no_big_small_after_hand=1),
    _engine(spot_max={"tie": 3000, "banker": 30000}, table_max=90000),
]


def _grouped(rng: random.Random, events: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``events`` with runs of ``bet.placed`` merged, at random, into ``bets.placed``
    events (a call's bets as one event, as the dealer writes them now)."""
    out: list[tuple[str, Any]] = []
    run: list[Any] = []
    for t, p in [*events, ("end", None)]:
        if t == g.BET_PLACED and rng.random() < 0.8:
            run.append(p)
            if rng.random() < 0.3:
                out.append((g.BETS_PLACED, {"bets": run}))
                run = []
            continue
        if run:
            out.append((g.BETS_PLACED, {"bets": run}))
            run = []
        if t != "end":
            out.append((t, p))
    if out and rng.random() < 0.03:  # a bets.placed of another shape (a payload is an object)
        bad = rng.choice(
            [{"bets": []}, {"bets": [[1]]}, {"bets": None}, {"bets": [{}], "x": 1}, {}]
        )
        out.insert(rng.randrange(1, len(out) + 1), (g.BETS_PLACED, bad))
    return out


def _pure(eng: BaccaratEngine, st: BaccaratState, steps: list[tuple[str, Any]]) -> Any:
    try:
        for t, p in steps:
            eng.step(st, t, p)
    except CroupierError as e:
        return ("refused", e.reason)
    except (KeyError, TypeError, ValueError) as e:  # what the pure engine lets through
        return ("error", type(e).__name__)
    return ("ok", st)


def _compare(eng: BaccaratEngine, hand_id: str, events: list[tuple[str, Any]]) -> str:
    """Step ``events`` both ways; returns ``proven``, ``declined`` or ``refused``."""
    if not events or events[0][0] != g.HAND_OPENED:
        return "refused"
    try:
        eng.check_version(events[0][1])
        a, b = eng.open(hand_id, events[0][1]), eng.open(hand_id, events[0][1])
    except CroupierError:
        return "refused"
    steps = [(t, p) for t, p in events[1:] if t not in (g.HAND_OUTCOME, g.HAND_SETTLED)]
    before = copy.deepcopy(a)
    proven = eng.fast_steps(a, steps)
    pure = _pure(eng, b, steps)
    if not proven:
        assert a == before, "a declined hand's state must be untouched"
        return "declined" if pure[0] == "ok" else "refused"
    assert pure[0] == "ok", (pure, steps)
    assert a == b, (steps, a, b)
    # the same types inside (a bet's spot the same Spot member, lists not tuples)
    assert [tuple(map(type, x)) for x in a.bets] == [tuple(map(type, x)) for x in b.bets]
    assert [type(x) for x in (a.player, a.banker, a.positions)] == [list, list, list]
    assert type(a.phase) is str and type(a.closed) is bool
    return "proven"


def test_a_large_random_corpus_of_hands_steps_natively_as_the_pure_engine() -> None:
    rng = random.Random(20261207)
    seen: list[dict[str, int]] = [{} for _ in ENGINES]
    for i in range(8000):
        k = i % len(ENGINES)
        got = _compare(ENGINES[k], f"h{i}", _grouped(rng, _hand(rng)))
        seen[k][got] = seen[k].get(got, 0) + 1
    for s in seen:  # under each config: hands proven, hands refused, few declined
        assert s.get("proven", 0) > 150 and s.get("refused", 0) > 500, seen
        assert s.get("declined", 0) < s["proven"] / 10, seen


def _int63(x: object) -> bool:
    return type(x) is int and abs(x) < 2**63


def test_every_legal_hand_of_the_corpus_is_proven() -> None:
    """A hand the pure engine accepts, of the shapes the dealer writes, is proven (a
    seat that leaves, ``away``, is left to the pure engine)."""
    rng = random.Random(3)
    for i in range(2000):
        events = _grouped(rng, _hand(rng))
        if _compare(SEED, f"h{i}", events) != "declined":
            continue
        stepped = (g.BET_PLACED, g.BETS_PLACED, g.BETTING_CLOSED, g.CARD_DEALT, g.HAND_CLOSED)
        plain = all(
            t in (g.HAND_OPENED, g.HAND_OUTCOME, g.HAND_SETTLED, *stepped)  # not an `away`
            and type(p) is dict
            and all(
                _int63(b.get("seat")) and _int63(b.get("amount"))
                for b in (p.get("bets") or [p] if t in (g.BET_PLACED, g.BETS_PLACED) else [])
                if type(b) is dict
            )
            and all(
                _int63(c.get("pos"))
                for c in (p.get("cards") or [] if t == g.CARD_DEALT else [])
                if type(c) is dict
            )
            for t, p in events
        )
        assert not plain, events  # declined only for a shape the dealer does not write


def test_what_the_native_path_leaves_to_the_pure_engine() -> None:
    opened = {
        "variant": "baccarat",
        "config_version": 1,
        "table": "t",
        "shoe": "t_s1",
        "hand_no": 1,
        "shoe_hand_no": 1,
        "seats": [{"seat": 1, "player": "p1", "stack": 10**7}],
        "carry": {},
    }
    bet = {"seat": 1, "spot": "banker", "amount": 1000}
    cards = [
        {"to": "player", "card": "9s", "pos": 0, "up": True},
        {"to": "banker", "card": "Ks", "pos": 1, "up": True},
        {"to": "player", "card": "Qs", "pos": 2, "up": True},
        {"to": "banker", "card": "Js", "pos": 3, "up": True},
    ]
    good = [
        (g.HAND_OPENED, opened),
        (g.BETS_PLACED, {"bets": [bet]}),
        (g.BETTING_CLOSED, {}),
        (g.CARD_DEALT, {"cards": cards}),
        (g.HAND_CLOSED, {"carry": {}}),
    ]
    assert _compare(SEED, "h", good) == "proven"

    def with_(i: int, payload: Any) -> list[tuple[str, Any]]:
        return [*good[:i], (good[i][0], payload), *good[i + 1 :]]

    declined = [
        with_(1, {"bets": [{**bet, "seat": True}]}),  # the pure engine reads it as seat 1
        with_(1, {"bets": [bet] * 257}),  # more bets than the native path keeps
        with_(3, {"cards": [{**cards[0], "pos": True}, *cards[1:]]}),  # a bool position
    ]
    for events in declined:
        assert _compare(SEED, "h", events) in ("declined", "refused")
    refused = [
        with_(1, {"bets": [{**bet, "amount": 1003}]}),  # not a whole number of steps of 7
        with_(1, {"bets": [{**bet, "amount": 10**19}]}),  # past 63 bits, over the limits
        with_(4, {"carry": {"x": 1}}),
        [*good[:3], (g.HAND_CLOSED, {}), *good[3:]],  # closed before the deal
        [*good[:3], (g.HAND_CLOSED, {})],  # closed with no card dealt
        [*good[:2], (g.HAND_CLOSED, {})],  # closed while betting
        [*good[:3], (g.CARD_DEALT, {"cards": cards[:3]}), (g.HAND_CLOSED, {})],  # cut short
        [*good[:2], *good[3:]],  # no close of betting
    ]
    assert _compare(_engine(stake_step=7), "h", refused[0]) == "refused"
    for events in refused[1:]:
        assert _compare(SEED, "h", events) == "refused", events
