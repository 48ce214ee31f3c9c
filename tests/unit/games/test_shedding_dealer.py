"""斗地主 through the dealer core (croupier.dealing.Dealer): whole hands dealt from
committed shuffles, the first bidder from a fair die then carried to the winner, played
by the bots from each seat's own view and by 托管 timeouts, closed, settled and audited
(verdict PASS) as the cluster does it; refused actions write nothing; seats never see
each other's cards."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, NotFound
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.shedding.common import HIDDEN
from croupier.games.shedding.engine import DoudizhuEngine, DoudizhuState
from croupier.settlement import HandSettlement
from croupier.testing import DealerRun, seat_rows
from croupier_services.bots import bot_for, next_move
from croupier_services.views import redact

SEATS = seat_rows((1, 2, 3), 10**6)
VARIANTS = ["doudizhu.classic", "doudizhu.doubling", "doudizhu.three"]


def eng(variant: str) -> DoudizhuEngine:
    e = engine(variant)
    assert isinstance(e, DoudizhuEngine)
    return e


@dataclass
class Run(DealerRun):
    """A 斗地主 table of three seats, played by the demo bots."""

    seed_label: str = "ddz"
    seats: Sequence[Mapping[str, Any]] = tuple(SEATS)

    def view(self, hand: Hand, seat: int | None) -> list[tuple[str, dict[str, Any]]]:
        return [(e.type, json.loads(e.payload_json)) for e in redact(hand.events, seat)]

    def play_bots(self, hand: Hand, rng: random.Random) -> None:
        """Each decision from the acting seat's own view, by the family's bot."""
        e, bot = bot_for(self.variant)
        while not hand.state.closed:
            seat = bot.seat_to_act(e, self.view(hand, None))  # type: ignore[attr-defined]
            assert seat is not None
            move = next_move(self.variant, self.view(hand, seat), rng)
            assert move is not None and move.seat == seat
            self.keep(self.dealer.act(hand.hand_id, move.seat, move.action, move.args))


def ddz(hand: Hand) -> DoudizhuState:
    assert isinstance(hand.state, DoudizhuState)
    return hand.state


def audit(run: Run, hand: Hand) -> HandSettlement:
    verify_chain(run.stream(hand.hand_id).events)
    rep, hs = run.audit(hand.hand_id)
    assert sum(n for _, n in hs.postings) == 0
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    return hs


@pytest.mark.parametrize("variant", VARIANTS)
def test_whole_hands_by_the_bots_through_the_dealer_audit_pass(variant: str) -> None:
    e = eng(variant)
    run = Run(variant)
    rng = random.Random(5)
    hands = []
    for _ in range(8):
        hand = run.open()
        run.play_bots(hand, rng)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    played = 0
    for i, hand in enumerate(hands):
        hs = audit(run, hand)
        types = [x.type for x in run.stream(hand.hand_id).events]
        opened = run.stream(hand.hand_id).events[0].payload
        st = ddz(hand)
        # the die when nobody is carried as first bidder, else none
        carried = opened.get("carry", {}).get("first_bidder")
        assert (g.DICE_ROLLED in types) == (carried is None)
        if e.rules.first_bidder.value == "random":
            assert carried is None
        elif i:
            prev = ddz(hands[i - 1])
            want = prev.first_out if prev.first_out is not None else prev.first_bidder
            assert carried == f"p{want}" and st.first_bidder == want
        if st.void:
            assert g.CARDS_REVEALED not in types and all(d == 0 for _, d in hs.postings)
        else:
            played += 1
            assert types.count(g.CARDS_REVEALED) == 1
            assert st.first_out is not None and not st.hands[st.first_out]
    assert played >= 4


@pytest.mark.parametrize("variant", VARIANTS)
def test_timeouts_play_a_whole_hand(variant: str) -> None:
    run = Run(variant, seed_base=40)
    for _ in range(3):
        hand = run.open()
        while not hand.state.closed:
            run.keep(run.dealer.expire(hand.hand_id))
        autos = [x.payload for x in run.stream(hand.hand_id).events if x.type == g.ACTION_TAKEN]
        assert autos and all(a["args"]["auto"] == "timeout" for a in autos)
        if variant == "doudizhu.doubling":  # 系统托管不会对用户进行自动叫分
            assert all(a["args"]["points"] == 0 for a in autos if a["action"] == "bid")
        audit(run, hand)


def test_a_refused_action_writes_nothing() -> None:
    run = Run("doudizhu.classic")
    hand = run.open()
    st = ddz(hand)
    assert st.phase == "bidding" and st.turn is not None
    turn = st.turn
    other = st.next_seat(turn)
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for seat, action, args, reason in (
        (other, "bid", {"points": 1}, "out_of_turn"),
        (turn, "bid", {"points": 5}, "bad_bid"),
        (turn, "play", {"cards": ["3s"], "move": "single", "rank": "3"}, "wrong_phase"),
        (turn, "grab", {"grab": True}, "wrong_phase"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    run.keep(run.dealer.act(hand.hand_id, turn, "bid", {"points": 3}))
    assert st.landlord == turn and st.kitty_shown and st.phase == "playing"
    n = len(hand.events)
    card = next(c for c in sorted(st.hands[other]))
    with pytest.raises(ActionRejected) as err:  # cards of another seat
        run.dealer.act(
            hand.hand_id, turn, "play", {"cards": [card], "move": "single", "rank": card[0]}
        )
    assert err.value.reason == "not_in_hand" and len(hand.events) == n
    while not hand.state.closed:
        run.keep(run.dealer.expire(hand.hand_id))
    with pytest.raises(NotFound):
        run.dealer.act(hand.hand_id, turn, "pass", {})


def test_seats_see_only_their_own_cards_until_the_kitty_is_shown() -> None:
    run = Run("doudizhu.classic")
    hand = run.open()
    st = ddz(hand)
    dealt = next(x for x in hand.events if x.type == g.CARD_DEALT)
    for seat in (None, 1, 2, 3):
        view = run.view(hand, seat)
        cards = next(p for t, p in view if t == g.CARD_DEALT)["cards"]
        for c in cards:
            mine = seat is not None and c["to"] == f"seat:{seat}"
            assert (c["card"] != HIDDEN) == mine
    assert all(not c["up"] for c in dealt.payload["cards"])
    run.keep(run.dealer.act(hand.hand_id, st.turn or 0, "bid", {"points": 3}))
    kitty = [c for t, p in run.view(hand, None) if t == g.CARDS_REVEALED for c in p["cards"]]
    assert kitty == st.kitty and len(kitty) == 3


@pytest.mark.parametrize("variant", [*VARIANTS, "shuangkou"])
def test_the_demo_loop_plays_every_hand_to_the_end(variant: str) -> None:
    """As croupier_services.demo drives a table: the public view after closing betting
    and after a timeout, the acting seat's view after an act; a bot that cannot see the
    cards of the seat to act lets its turn run out and the dealer plays 托管."""
    run = Run(variant, seed_base=70)
    seats = [{"seat": n, "player": f"p{n}", "stack": 10**6} for n in range(1, 5)]
    rng = random.Random(1)
    timeouts = acts = 0
    for _ in range(3):
        hand = run.open(seats if variant == "shuangkou" else SEATS)
        view = run.view(hand, None)
        while not hand.state.closed:
            move = next_move(variant, view, rng)
            assert move is not None
            if move.timeout:
                run.keep(run.dealer.expire(hand.hand_id))
                view = run.view(hand, None)
                timeouts += 1
            else:
                run.keep(run.dealer.act(hand.hand_id, move.seat, move.action, move.args))
                view = run.view(hand, move.seat)
                acts += 1
        assert next_move(variant, run.view(hand, None), rng) is None
        audit(run, hand)
    assert timeouts and (acts or variant == "shuangkou")  # 双扣 has no bids to make
