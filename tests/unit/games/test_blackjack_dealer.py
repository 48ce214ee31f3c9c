"""Blackjack through the dealer core (croupier.dealing.Dealer): whole hands dealt from
committed shuffles, played by the basic-strategy advisor, closed, settled
(croupier.settlement.settle_state) and audited (croupier.audit.audit_hand) as the
cluster does it; refused actions write nothing; 幸运21点's shoe and its cut card; what
the public sees of the dealer's face-down card."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict, audit_hand
from croupier.dealing import Batch, Hand
from croupier.errors import ActionRejected, NotFound, RuleViolation
from croupier.events import Event, verify_chain
from croupier.games import base as g
from croupier.games.blackjack.engine import BlackjackEngine
from croupier.games.registry import engine
from croupier.testing import REGISTRY, DealerRun, rechain, seat_rows
from croupier_services.dealer import redact_public
from croupier_services.views import HIDDEN, redact

SEATS = seat_rows((1, 2, 3), 10**7)


def eng(variant: str) -> BlackjackEngine:
    e = engine(variant)
    assert isinstance(e, BlackjackEngine)
    return e


@dataclass
class Run(DealerRun):
    """A blackjack table; each hand bets 1000, 2000 and 500 on the main spots."""

    seed_label: str = "bj"
    seats: Sequence[Mapping[str, Any]] = tuple(SEATS)
    bets: Sequence[tuple[int, str, int]] = ((1, "main", 1000), (2, "main", 2000), (3, "main", 500))

    def play_out(self, hand: Hand) -> None:
        e = eng(self.variant)
        while not hand.state.closed:
            turn = e.to_act(hand.state)
            assert turn is not None, hand.state.phase
            action = e.advise(hand.state, turn)
            self.keep(self.dealer.act(hand.hand_id, turn.seat, action.value, {}))


@pytest.mark.parametrize("variant", ["blackjack.multi", "blackjack.lucky"])
def test_hands_through_the_dealer_validate_close_settle_and_audit(variant: str) -> None:
    e = eng(variant)
    run = Run(variant)
    hands = []
    for _ in range(6):
        hand = run.open()
        run.play_out(hand)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    for hand in hands:
        log = run.stream(hand.hand_id)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types[:3] == [g.HAND_OPENED, g.BETS_PLACED, g.BETTING_CLOSED]
        assert log.events[1].payload == {
            "bets": [{"seat": s, "spot": sp, "amount": a} for s, sp, a in Run.bets]
        }
        assert types[-1] == g.HAND_CLOSED and hand.state.closed
        if e.rules.dealer_hole_card:
            down = [
                (x.seq, c["card"])
                for x in log.events
                if x.type == g.CARD_DEALT
                for c in x.payload["cards"]
                if not c["up"]
            ]
            shown = [(x.seq, x.payload) for x in log.events if x.type == g.CARDS_REVEALED]
            assert len(down) == len(shown) == 1 and down[0][0] < shown[0][0]
            assert shown[0][1] == {"to": "dealer", "cards": [down[0][1]]}
        else:
            assert g.CARDS_REVEALED not in types
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
    # a 幸运21点 shoe outlives its hands; 多人21点 shuffles per hand
    assert len({h.shoe.shoe_id for h in hands}) == (6 if variant == "blackjack.multi" else 1)


def test_the_audit_catches_a_hole_card_that_was_not_the_one_turned_up() -> None:
    e = eng("blackjack.multi")
    run = Run("blackjack.multi")
    hand = run.open()
    run.play_out(hand)
    log = run.stream(hand.hand_id)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.CARD_DEALT and not s[2]["cards"][0]["up"])
    hole = specs[k][2]["cards"][0]
    other = {**hole, "card": hole["card"][0] + ("s" if hole["card"][1] != "s" else "h")}
    specs[k] = (g.CARD_DEALT, "dealer", {"cards": [other]})
    forged = rechain(hand.hand_id, specs)
    shoe = run.stream(hand.shoe.shoe_id)
    rep = audit_hand(hand.hand_id, forged, shoe, REGISTRY, None)
    reveal = next(x.seq for x in forged.events if x.type == g.CARDS_REVEALED)
    assert (rep.verdict, rep.reason, rep.seq) == (Verdict.FAIL, "bad_reveal", reveal)
    assert e.family == "blackjack"


def first_decision(variant: str) -> tuple[Run, Hand]:
    """A hand waiting for a player's hit/stand decision, from the first seed giving one."""
    e = eng(variant)
    for base in range(1, 50):
        run = Run(variant, seed_base=base)
        hand = run.open()
        turn = e.to_act(hand.state)
        if turn is not None and hand.state.phase == "playing":
            return run, hand
    raise AssertionError("no seed gave a decision")


@pytest.mark.parametrize("variant", ["blackjack.multi", "blackjack.lucky"])
def test_a_refused_action_writes_nothing(variant: str) -> None:
    e = eng(variant)
    run, hand = first_decision(variant)
    turn = e.to_act(hand.state)
    assert turn is not None
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    other = next(s for s in (1, 2, 3) if s != turn.seat)
    ace = hand.state.dealer[0][0] == "A"
    for seat, action, reason in (
        (other, "stand", "out_of_turn"),
        (turn.seat, "insurance", "insurance_closed" if ace else "insurance_not_offered"),
        (turn.seat, "fold", "unknown_action"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, {})
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    run.play_out(hand)
    with pytest.raises(NotFound):  # the hand is finished: the dealer holds it no more
        run.dealer.act(hand.hand_id, turn.seat, "hit", {})


def test_lucky_opens_a_new_shoe_when_fewer_than_26_cards_remain() -> None:
    run = Run("blackjack.lucky")
    table = run.dealer.table("t1")
    seen_new = 0
    for _ in range(60):
        shoe_before = table.shoe
        assert shoe_before is not None
        left = len(shoe_before.order) - shoe_before.pos
        hand = run.open()
        if left < 26:  # 幸运21点 游戏规则: reshuffle with fewer than half a deck (半副牌) left
            assert hand.shoe is not shoe_before and shoe_before.revealed
            seen_new += 1
        else:
            assert hand.shoe is shoe_before
        run.play_out(hand)
        assert hand.shoe.pos <= len(hand.shoe.order)
    assert seen_new >= 3


def test_the_public_never_sees_the_hole_card_before_it_is_turned_up() -> None:
    run = Run("blackjack.multi")
    hand = run.open()
    run.play_out(hand)
    events = list(run.stream(hand.hand_id).events)
    k = next(i for i, x in enumerate(events) if x.type == g.CARDS_REVEALED)
    hole_event = next(
        x for x in events if x.type == g.CARD_DEALT and not x.payload["cards"][0]["up"]
    )
    hole = hole_event.payload["cards"][0]["card"]
    before = redact(events[:k], None)
    shown = [pb for pb in before if pb.hash == hole_event.hash]
    assert len(shown) == 1 and HIDDEN in shown[0].payload_json and hole not in shown[0].payload_json
    for seat in (1, 2, 3):  # no seat owns the dealer's card
        mine = redact(events[:k], seat)
        assert HIDDEN in next(pb for pb in mine if pb.hash == hole_event.hash).payload_json
    after = redact(events, None)
    assert hole in next(pb for pb in after if pb.hash == hole_event.hash).payload_json
    # the live feed leaves out just the face-down card's event; the players' cards show
    live = redact_public(events)
    assert hole_event not in live and len(live) == len(events) - 1


# --- 续押 and 超时保护 (001, 多人21点) ---------------------------------------------------

MANY = [  # p1 sits at seat 1 and also bets on the empty seat 4
    {"seat": 1, "player": "p1", "stack": 10**7},
    {"seat": 2, "player": "p2", "stack": 10**7},
    {"seat": 3, "player": "p3", "stack": 4000},
    {"seat": 4, "player": "p1", "stack": 10**7},
]


def opened(b: Batch) -> Event:
    return next(e for e in b.events if e.type == g.HAND_OPENED)


def bet(run: Run, hid: str, bets: dict[int, int]) -> None:
    run.keep(
        run.dealer.place_bets(
            hid, [{"seat": s, "spot": "main", "amount": a} for s, a in bets.items()]
        )
    )


def expire_all(run: Run, hid: str) -> list[tuple[int, str]]:
    """ExpireTurn until nobody is waiting (the betting countdown, or the whole hand)."""
    done = []
    while hid in run.dealer.hands:
        try:
            b = run.keep(run.dealer.expire(hid))
        except ActionRejected as e:
            assert e.reason == "no_turn"
            break
        act = next(e for e in b.events if e.type == g.ACTION_TAKEN)
        assert act.payload["args"]["auto"] == "timeout" and act.producer == "gateway"
        done.append((act.payload["seat"], act.payload["action"]))
    return done


def test_repeat_bets_the_own_seat_again_and_never_the_other_seats() -> None:
    run = Run("blackjack.multi")
    hid, b = run.dealer.open_hand("t1", MANY)
    assert opened(b).payload["carry"] == {}
    bet(run, hid, {1: 1500, 4: 9000, 2: 700, 3: 3000})
    run.keep(run.dealer.close_betting(hid))
    hand = run.dealer.hands[hid]
    run.play_out(hand)
    closed = run.stream(hid).events[-1]
    # the own seat's bet only: p1's 9000 on seat 4 is not a 续押 amount
    assert closed.payload["carry"] == {"last_bets": {"p1": 1500, "p2": 700, "p3": 3000}}
    hid2, b2 = run.dealer.open_hand("t1", MANY)
    assert opened(b2).payload["carry"] == closed.payload["carry"]
    st = run.dealer.hands[hid2].state
    e = eng("blackjack.multi")
    for seat, reason in ((4, "not_own_seat"),):
        with pytest.raises(ActionRejected) as err:
            e.verify(st, g.ACTION_TAKEN, {"seat": seat, "action": "repeat", "args": {}})
        assert err.value.reason == reason
    run.keep(run.dealer.act(hid2, 1, "repeat", {}))
    assert run.dealer.hands[hid2].state.play[1].bet == 1500
    n = len(run.dealer.hands[hid2].events)
    with pytest.raises(ActionRejected) as err:
        run.dealer.act(hid2, 1, "repeat", {})
    assert err.value.reason == "already_bet" and len(run.dealer.hands[hid2].events) == n


def test_repeat_is_refused_when_the_stack_cannot_cover_it() -> None:
    e = eng("blackjack.multi")
    payload = {
        "variant": "blackjack.multi",
        "table": "t",
        "hand_no": 2,
        "shoe_hand_no": 1,
        "seats": [
            {"seat": 1, "player": "p1", "stack": 2000},
            {"seat": 2, "player": "p2", "stack": 5000},
        ],
        "carry": {"last_bets": {"p1": 3000}},
    }
    st = e.open("h", payload)
    for seat, action, reason in (
        (1, "repeat", "insufficient_stack"),
        (2, "repeat", "nothing_to_repeat"),
    ):
        with pytest.raises(ActionRejected) as err:
            e.verify(st, g.ACTION_TAKEN, {"seat": seat, "action": action, "args": {}})
        assert err.value.reason == reason
    # a timed-out seat that cannot repeat bets the minimum instead
    assert e.auto_action(st) == (1, "min_bet", {})
    e.step(st, g.ACTION_TAKEN, {"seat": 1, "action": "min_bet", "args": {"auto": "timeout"}})
    assert st.play[1].bet == e.table.min_bet
    assert e.auto_action(st) == (2, "min_bet", {})
    with pytest.raises(RuleViolation) as bad:
        e.open("h", {**payload, "carry": {"last_bets": {"p1": -5}}})
    assert bad.value.reason == "malformed"


def test_timeouts_bet_by_repeat_then_play_by_the_strategy_guide_and_audit_pass() -> None:
    e = eng("blackjack.multi")
    run = Run("blackjack.multi")
    hid, b = run.dealer.open_hand("t1", MANY)
    run.keep(b)
    bet(run, hid, {1: 2500, 2: 800, 3: 3000})
    run.keep(run.dealer.close_betting(hid))
    run.play_out(run.dealer.hands[hid])
    # next hand: p3 lost and has 2000 left; nobody bets before the countdown ends
    short = [dict(r, stack=2000) if r["player"] == "p3" else r for r in MANY]
    hid2, b2 = run.dealer.open_hand("t1", short)
    run.keep(b2)
    assert expire_all(run, hid2) == [(1, "repeat"), (2, "repeat"), (3, "min_bet")]
    st = run.dealer.hands[hid2].state
    assert {s: p.bet for s, p in st.play.items()} == {1: 2500, 2: 800, 3: e.table.min_bet}
    hand = run.dealer.hands[hid2]
    run.keep(run.dealer.close_betting(hid2))
    moves = expire_all(run, hid2)
    assert hand.state.closed and moves  # played to the end by the advisor
    rep, _ = run.audit(hid2)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_lucky_has_no_repeat_and_a_client_cannot_claim_a_timeout() -> None:
    run = Run("blackjack.lucky")
    hid, _ = run.dealer.open_hand("t1", SEATS)
    with pytest.raises(ActionRejected) as err:
        run.dealer.act(hid, 1, "repeat", {})
    assert err.value.reason == "unknown_action"
    with pytest.raises(ActionRejected) as err:
        run.dealer.expire(hid)
    assert err.value.reason == "no_turn"
    with pytest.raises(ActionRejected) as err:
        run.dealer.act(hid, 1, "hit", {"auto": "yes"})
    assert err.value.reason == "malformed"
