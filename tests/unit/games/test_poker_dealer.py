"""Poker through the dealer core (croupier.dealing.Dealer): whole hands of 必下德州, 德州2+3
and 炸金花 dealt from committed shuffles, played by the demo bots on the hand as a player
sees it (other seats' cards redacted), closed, settled (croupier.settlement.settle_state)
and audited (croupier.audit.audit_hand) with verdict PASS; the button carried from hand to
hand; timeouts; refused actions write nothing."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import RuleViolation
from croupier.games import base as g
from croupier.games.poker.zhajinhua import ZhajinhuaEngine, visible_hands
from croupier.games.registry import engine
from croupier.testing import DealerRun, seat_rows
from croupier_services.bots import next_move
from croupier_services.views import HIDDEN, redact

VARIANTS = ["holdem.must_bet", "holdem.two_plus_three", "zhajinhua"]


@dataclass
class Run(DealerRun):
    """A poker table; the hands are played by the demo bots."""

    seed_label: str = "poker"

    def play_out(self, hand: Hand, rng: random.Random) -> None:
        """The bots decide on the view of the seat to act (others' cards are ??)."""
        while not hand.state.closed:
            seat = _seat_to_act(hand)
            view = [(e.type, json.loads(e.payload_json)) for e in redact(hand.events, seat)]
            move = next_move(self.variant, view, rng)
            assert move is not None, hand.state.phase
            self.keep(self.dealer.act(hand.hand_id, move.seat, move.action, move.args))


def _seat_to_act(hand: Hand) -> int | None:
    e = engine(hand.state.variant)
    turn = e.to_act(hand.state)  # type: ignore[attr-defined]
    return None if turn is None else int(turn.seat)


def seats_for(rng: random.Random, n: int) -> list[dict[str, Any]]:
    return [
        {"seat": s, "player": f"p{s}", "stack": rng.choice([300, 900, 2_500, 40_000])}
        for s in range(1, n + 1)
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_hands_through_the_dealer_settle_and_audit(variant: str) -> None:
    e = engine(variant)
    run = Run(variant)
    rng = random.Random(variant)
    hands = []
    seats = seats_for(rng, e.max_seats or 2)
    for i in range(8):
        hand = run.open(seats[: 2 + i % ((e.max_seats or 2) - 1)])
        run.play_out(hand, rng)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    buttons = []
    for hand in hands:
        log = run.stream(hand.hand_id)
        types = [x.type for x in log.events]
        assert types[:2] == [g.HAND_OPENED, g.BETTING_CLOSED] and types[-1] == g.HAND_CLOSED
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        buttons.append((g.DICE_ROLLED in types, log.events[-1].payload["carry"]))
    rolled = [r for r, _ in buttons]
    if variant == "holdem.two_plus_three":
        assert all(rolled)  # a random button every hand
    else:
        assert rolled[0] and not any(rolled[1:])  # random once, then clockwise


def test_the_button_moves_clockwise_through_the_carry() -> None:
    run = Run("holdem.must_bet")
    rng = random.Random(3)
    seats = seat_rows((2, 4, 7), 10_000)
    got = []
    for _ in range(4):
        hand = run.open(seats)
        got.append(hand.state.button)  # type: ignore[attr-defined]
        run.play_out(hand, rng)
    first = got[0]
    order = [2, 4, 7]
    assert got == [order[(order.index(first) + k) % 3] for k in range(4)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_refused_action_writes_nothing(variant: str) -> None:
    run = Run(variant)
    hand = run.open(seat_rows((1, 2, 3), 10_000))
    seat = _seat_to_act(hand)
    assert seat is not None
    other = next(s for s in (1, 2, 3) if s != seat)
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    bad: list[tuple[int, str, dict[str, Any], str]] = [
        (seat, "double", {}, "unknown_action"),
        (9, "call" if variant != "holdem.must_bet" else "check", {}, "unknown_seat"),
    ]
    if variant == "holdem.must_bet":
        bad.append((seat, "bet", {"amount": 300}, "bad_amount"))
    elif variant == "holdem.two_plus_three":
        bad += [(other, "call", {}, "out_of_turn"), (seat, "raise", {"to": 250}, "under_minimum")]
    else:
        bad += [
            (other, "call", {}, "out_of_turn"),
            (seat, "raise", {"amount": 5_000}, "over_cap"),
        ]
    for s, action, args, reason in bad:
        with pytest.raises(RuleViolation) as err:
            run.dealer.act(hand.hand_id, s, action, args)
        assert err.value.reason == reason, err.value.message
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state


@pytest.mark.parametrize("variant", VARIANTS)
def test_timeouts_through_the_dealer(variant: str) -> None:
    run = Run(variant)
    hand = run.open(seat_rows((1, 2, 3), 10_000))
    while not hand.state.closed:
        run.keep(run.dealer.expire(hand.hand_id))
    acts = [e.payload for e in hand.events if e.type == g.ACTION_TAKEN]
    assert all(a["args"]["auto"] == "timeout" for a in acts)
    names = {a["action"] for a in acts}
    assert names == ({"bet", "check"} if variant == "holdem.must_bet" else {"fold"})


def test_zhajinhua_hands_are_shown_to_no_one_by_the_log() -> None:
    """A compare's result is in the log (cards.revealed for compare_loser:<seat>, with no
    cards): the public view keeps every hand redacted; visible_hands tells the per-seat
    view whose cards each seat may see at the end."""
    variant = "zhajinhua"
    e = engine(variant)
    assert isinstance(e, ZhajinhuaEngine)
    for base in range(1, 30):
        run = Run(variant, seed_base=base)
        hand = run.open(seat_rows((1, 2, 3), 10_000))
        run.play_out(hand, random.Random(base))
        st = hand.state
        if any(c.loser is not None for c in st.compares):  # type: ignore[attr-defined]
            break
    else:
        raise AssertionError("no hand with a compare")
    public = redact(hand.events, None)
    dealt = [pb for pb in public if pb.type == g.CARD_DEALT]
    assert dealt and all(HIDDEN in pb.payload_json for pb in dealt)
    shown = [json.loads(pb.payload_json) for pb in public if pb.type == g.CARDS_REVEALED]
    assert shown and all(p["cards"] == [] for p in shown)
    assert all(p["to"].startswith("compare_loser:") for p in shown)
    for seat in (1, 2, 3):
        assert seat in visible_hands(st, seat)  # type: ignore[arg-type]


def test_zhajinhua_views_show_each_seat_the_hands_the_rules_allow() -> None:
    """The per-seat view (views.redact with Engine.visible_to) shows, once the hand is
    over, exactly the hands visible_hands allows each viewer; during the hand, its own."""
    e = engine("zhajinhua")
    assert isinstance(e, ZhajinhuaEngine)
    for base in range(1, 40):
        run = Run("zhajinhua", seed_base=base)
        hand = run.open(seat_rows((1, 2, 3), 10_000))
        run.play_out(hand, random.Random(base))
        if hand.state.decided_by_compare:  # type: ignore[attr-defined]
            break
    else:
        raise AssertionError("no hand decided by a compare")
    st = hand.state
    for viewer in (None, 1, 2, 3):
        allowed = visible_hands(st, viewer)  # type: ignore[arg-type]
        assert len(allowed) >= 2  # the last two's compare is shown to everyone
        cards = [
            c
            for pb in redact(hand.events, viewer, e.visible_to(st, viewer))  # type: ignore[arg-type]
            if pb.type == g.CARD_DEALT
            for c in json.loads(pb.payload_json)["cards"]
        ]
        for c in cards:
            seat = int(c["to"].split(":")[1])
            assert (c["card"] != HIDDEN) == (seat in allowed), (viewer, c)
