"""The baccarat replay after its rework for speed gives what the code before it gave
(``baccarat_replay_reference``, kept verbatim): over a large random corpus of hands,
legal ones and ones with one event spoilt (a malformed or illegal seat, bet, deal or
close, a card to the wrong side, face down, misspelt, a joker, a bad position, a card
too many, an event baccarat has not), the same state after every event, the same next
deal, the same outcome, the same refusal (type, reason and words). The rules the deal
uses (card points, totals, the next recipient, the coup) likewise, on good and
malformed cards."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import baccarat_replay_reference as ref
import pytest

from croupier.cards import CARDS52
from croupier.errors import CroupierError
from croupier.games import base as g
from croupier.games.baccarat import rules
from croupier.games.baccarat.engine import BaccaratEngine, BaccaratState
from croupier.games.registry import engine as engine_for
from croupier.games.registry import variant_config

NEW: BaccaratEngine = engine_for("baccarat")  # type: ignore[assignment]
OLD = ref.ReferenceEngine(variant_config("baccarat"))

BAD_CARDS: list[Any] = ["10h", "ah", "aH", " As", "As ", "BJ", "RJ", "bj", "", "A", "Asx", "1s"]
BAD_CARDS += [None, 5, True, ["As"], {"card": "As"}, 2.5]
SPOTS = ["banker", "player", "tie", "banker_pair", "player_pair", "big", "small", "super6"]
Events = list[tuple[str, Any]]


def result(fn: Callable[..., Any], *args: Any) -> Any:
    """What ``fn(*args)`` gives: its value, or the refusal it raises, spelled out."""
    try:
        return ("value", fn(*args))
    except CroupierError as e:
        return ("error", type(e).__name__, e.reason, e.message)


def replayed(eng: BaccaratEngine, hand_id: str, events: Events) -> Any:
    """The state, next deal, end and outcome of a replay, or its refusal."""

    def run() -> Any:
        st = eng.replay(hand_id, events)
        return (
            st,
            result(eng.next_deal, st),
            result(eng.is_over, st),
            result(eng.close_check, st),
            result(eng.outcome, st),
        )

    return result(run)


# -- hands ------------------------------------------------------------------------------


def _opened(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(1, 8)
    stacks = [10**7] * 30 + [0, 5000, 10**9]
    seats = [{"seat": i + 1, "player": f"p{i + 1}", "stack": rng.choice(stacks)} for i in range(n)]
    payload: dict[str, Any] = {
        "variant": "baccarat",
        "config_version": 1,
        "table": "t",
        "shoe": "t_s1",
        "hand_no": 1,
        "shoe_hand_no": rng.choice([1, 7, 30, 30, 30, 31]),
        "seats": seats,
        "carry": {},
    }
    if rng.random() < 0.1:
        spoil = rng.randrange(7)
        s = rng.choice(seats)
        if spoil == 0:
            s["seat"] = rng.choice(["1", True, None, seats[0]["seat"]])
        elif spoil == 1:
            s["stack"] = rng.choice([-1, True, "5", 1.5])
        elif spoil == 2:
            s["player"] = rng.choice(["", 7, seats[0]["player"]])
        elif spoil == 3:
            del s[rng.choice(["seat", "player", "stack"])]
        elif spoil == 4:
            payload["seats"] = [*seats, *seats] if rng.random() < 0.5 else []
        elif spoil == 5:
            payload["config_version"] = rng.choice([2, "1"])
        else:
            payload["hand_no"] = rng.choice(["x", None])
    return payload


def _bet(rng: random.Random, seats: int) -> dict[str, Any]:
    amount: Any = rng.choice([1000, 5000, 25000, 100000]) * rng.randint(1, 3)
    if rng.random() < 0.02:
        amount = rng.choice([700_000, 6_000_000, 60_000_000])
    p: dict[str, Any] = {
        "seat": rng.randint(1, seats + (rng.random() < 0.05)),
        "spot": rng.choice(SPOTS),
        "amount": amount,
    }
    if rng.random() < 0.03:
        spoil = rng.randrange(4)
        if spoil == 0:
            p["amount"] = rng.choice([0, -100, 150, True, "100", 1.0, None])
        elif spoil == 1:
            p["spot"] = rng.choice(["bogus", "", None])
        elif spoil == 2:
            p["seat"] = rng.choice(["1", "x", None])
        else:
            del p[rng.choice(["seat", "spot", "amount"])]
    return p


def _cards(rng: random.Random) -> list[dict[str, Any]]:
    """A coup dealt in the order of the rules, from a random shoe."""
    shoe = [rng.choice(CARDS52) for _ in range(6)]
    player: list[str] = []
    banker: list[str] = []
    out = []
    while (side := ref.next_recipient(player, banker)) is not None:
        card = shoe[len(out)]
        (player if side is rules.Side.PLAYER else banker).append(card)
        out.append({"to": side.value, "card": card, "pos": len(out), "up": True})
    return out


def _spoil_card(rng: random.Random, c: dict[str, Any]) -> None:
    spoil = rng.randrange(5)
    if spoil == 0:
        c["to"] = rng.choice(["player", "banker", "dealer", None])
    elif spoil == 1:
        c["up"] = rng.choice([False, 1, None, "true"])
    elif spoil == 2:
        c["card"] = rng.choice(BAD_CARDS)
    elif spoil == 3:
        c["pos"] = rng.choice([-1, "3", None, True, 2**70])
    else:
        del c[rng.choice(["to", "up", "card", "pos"])]


def _deals(rng: random.Random) -> list[dict[str, Any]]:
    cards = _cards(rng)
    if rng.random() < 0.15:
        _spoil_card(rng, rng.choice(cards))
    if rng.random() < 0.05:
        cards.append({"to": rng.choice(["player", "banker"]), "card": "As", "pos": 9, "up": True})
    cut = [4] if rng.random() < 0.7 else []
    cut += sorted(rng.sample(range(1, len(cards)), k=rng.randint(0, len(cards) - 1)))
    cut = sorted({c for c in cut if 0 < c < len(cards)})
    bounds = [0, *cut, len(cards)]
    events: list[dict[str, Any]] = [{"cards": cards[a:b]} for a, b in pairwise(bounds)]
    if rng.random() < 0.05:
        events.insert(rng.randrange(len(events) + 1), {"cards": rng.choice([[], None, "As", [1]])})
    return events


def _hand(rng: random.Random) -> Events:
    opened = _opened(rng)
    seats = len(opened["seats"]) or 1
    events: Events = [(g.HAND_OPENED, opened)]
    events += [(g.BET_PLACED, _bet(rng, seats)) for _ in range(rng.randint(0, 12))]
    events.append((g.BETTING_CLOSED, {}))
    events += [(g.CARD_DEALT, p) for p in _deals(rng)]
    events.append((g.HAND_CLOSED, {"positions_used": 6, "carry": {}}))
    r = rng.random()
    if r < 0.1:  # an event out of place, or one baccarat has not
        extra = rng.choice(
            [
                (g.BETTING_CLOSED, {}),
                (g.BET_PLACED, _bet(rng, seats)),
                (g.ACTION_TAKEN, {"seat": 1, "action": "hit", "args": {}}),
                (g.ACTION_TAKEN, {"seat": 1, "action": "away", "args": {}}),
                (g.DICE_ROLLED, {"dice": [1], "faces": [6], "roll": 0}),
                (g.CARDS_REVEALED, {"to": "player", "cards": []}),
                ("bogus.type", {}),
                (g.HAND_CLOSED, {"carry": {"x": 1}}),
                # a deal out of place: before betting closes, or after the hand closed
                (g.CARD_DEALT, {"cards": [{"to": "player", "card": "As", "up": True, "pos": 9}]}),
            ]
        )
        events.insert(rng.randrange(1, len(events) + 1), extra)
    elif r < 0.14:  # events a replay skips
        events.insert(rng.randrange(1, len(events) + 1), (g.HAND_OUTCOME, {"x": 1}))
        events.append((g.HAND_SETTLED, {}))
    elif r < 0.17:  # cut short
        events = events[: rng.randrange(0, len(events))]
    return events


# -- tests ------------------------------------------------------------------------------


def test_a_large_random_corpus_of_hands_replays_as_before() -> None:
    rng = random.Random(20261203)
    kinds: dict[str, int] = {}
    for i in range(6000):
        events = _hand(rng)
        new, old = replayed(NEW, f"h{i}", events), replayed(OLD, f"h{i}", events)
        assert new == old, events
        key = new[0] if new[0] == "value" else new[2]
        kinds[key] = kinds.get(key, 0) + 1
    # the corpus reaches the refusals it means to compare
    for reason in ("illegal_deal", "bad_card", "malformed", "bad_amount", "unknown_event"):
        assert kinds.get(reason, 0) > 20, kinds
    assert kinds["value"] > 2000, kinds


def test_every_prefix_of_a_hand_steps_as_before() -> None:
    """Event by event, the state and the next deal after each, or the same refusal."""
    rng = random.Random(7)
    for i in range(1500):
        events = _hand(rng)
        if not events or events[0][0] != g.HAND_OPENED:
            continue
        states = [result(e.open, f"h{i}", events[0][1]) for e in (NEW, OLD)]
        assert states[0] == states[1]
        if states[0][0] != "value":
            continue
        new_st, old_st = states[0][1], states[1][1]
        for type_, payload in events[1:]:
            new = result(NEW.step, new_st, type_, payload)
            old = result(OLD.step, old_st, type_, payload)
            assert new == old and new_st == old_st, (type_, payload)
            assert result(NEW.next_deal, new_st) == result(OLD.next_deal, old_st)
            if new[0] != "value":
                break


def test_dealing_without_the_check_first_changes_the_state_as_before() -> None:
    """``apply`` alone (as a view rebuilt from events does) on any deal event."""
    rng = random.Random(11)
    for _ in range(3000):
        player = _cards(rng)
        have = rng.randrange(len(player) + 1)
        dealt = [c["card"] for c in player[:have]]
        side = [c["to"] for c in player[:have]]
        base = {
            "player": [c for c, t in zip(dealt, side, strict=True) if t == "player"],
            "banker": [c for c, t in zip(dealt, side, strict=True) if t == "banker"],
        }
        if rng.random() < 0.1:  # a state a verified deal cannot reach
            base[rng.choice(["player", "banker"])].append(rng.choice(["As", "Td", *BAD_CARDS]))
        rest = player[have:] or [{"to": "player", "card": "As", "pos": 9, "up": True}]
        if rng.random() < 0.3:
            _spoil_card(rng, rng.choice(rest))
        payload = {"cards": rest}
        states = []
        for eng in (NEW, OLD):
            st = BaccaratState("baccarat", "t", "h", 1, 1, {}, phase="dealing")
            st.player, st.banker = list(base["player"]), list(base["banker"])
            states.append((st, result(eng.apply, st, g.CARD_DEALT, payload)))
            states.append((st, result(eng.verify, st, g.CARD_DEALT, payload)))
        assert states[0] == states[2] and states[1] == states[3], (base, payload)


CARD_LISTS: list[list[Any]] = [
    [],
    ["As"],
    ["As", "Kd"],
    ["9h", "8c", "2s"],
    ["As", "10h"],
    ["As", None],
    [["As"], "Kd"],
    ["Tc", "Tc", "Tc", "Tc"],
]


@pytest.mark.parametrize("player", CARD_LISTS)
@pytest.mark.parametrize("banker", CARD_LISTS)
def test_the_rules_read_cards_as_before(player: list[Any], banker: list[Any]) -> None:
    forms: list[Callable[[], Any]] = [
        lambda: list(player),
        lambda: tuple(player),
        lambda: iter(player),
        lambda: "".join(map(str, player)),
    ]
    for form in forms:
        assert result(rules.total, form()) == result(ref.total, form())
    assert result(rules.next_recipient, player, banker) == result(
        ref.next_recipient, player, banker
    )
    assert result(rules.evaluate, player, banker) == result(ref.evaluate, player, banker)


def test_random_coups_and_malformed_cards_read_as_before() -> None:
    rng = random.Random(3)
    for _ in range(20_000):
        player = [rng.choice(CARDS52) for _ in range(rng.randint(0, 4))]
        banker = [rng.choice(CARDS52) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.1:
            side = rng.choice([player, banker])
            side.insert(rng.randrange(len(side) + 1), rng.choice(BAD_CARDS))
        assert result(rules.total, player) == result(ref.total, player)
        assert result(rules.next_recipient, player, banker) == result(
            ref.next_recipient, player, banker
        )
        assert result(rules.evaluate, player, banker) == result(ref.evaluate, player, banker)


def test_a_deal_stepped_alone_is_refused_as_verify_and_apply_refuse_it() -> None:
    """Baccarat steps a deal by its apply hook alone (``checked_by_apply``): on a closed
    hand, before betting closes, to the wrong side or one card too many, the refusal and
    the state after it are the reference's (verify, then apply)."""
    assert g.CARD_DEALT in NEW.checked_by_apply
    rng = random.Random(5)
    seen: set[str] = set()
    for i in range(400):
        events = [e for e in _hand(rng) if e[0] != g.CARD_DEALT or rng.random() < 0.8]
        if not events or events[0][0] != g.HAND_OPENED:
            continue
        states = [result(e.open, f"h{i}", events[0][1]) for e in (NEW, OLD)]
        if states[0][0] != "value":
            continue
        new_st, old_st = states[0][1], states[1][1]
        deal = (g.CARD_DEALT, {"cards": [{"to": "banker", "card": "9d", "up": True, "pos": 3}]})
        for type_, payload in [*events[1:], deal]:
            new = result(NEW.step, new_st, type_, payload)
            old = result(OLD.step, old_st, type_, payload)
            assert new == old and new_st == old_st, (type_, payload)
            if type_ == g.CARD_DEALT and new[0] != "value":
                seen.add(new[2])
    assert {"hand_closed", "illegal_deal", "not_dealing"} <= seen, seen
