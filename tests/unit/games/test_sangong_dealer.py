"""Sangong through the dealer core (croupier.dealing.Dealer): whole hands of every
variant dealt from committed shuffles, the banker's draw rolled by the dealer's fair RNG,
grabs and bets taken (some by timeout), closed, settled (croupier.settlement.settle_state)
and audited (croupier.audit.audit_hand) with the verdict PASS; refused bets and actions
write nothing; hidden cards stay hidden until they are turned up."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import Verdict
from croupier.dealing import Hand
from croupier.errors import ActionRejected, BetRejected, RuleViolation
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.sangong.engine import SPOTS, Act, SangongEngine, SangongState
from croupier.settlement import HandSettlement
from croupier.testing import DealerRun, rechain
from croupier_services.views import HIDDEN, redact

VARIANTS = ["sangong.hundred", "sangong.grab", "sangong.classic"]


def eng(variant: str) -> SangongEngine:
    e = engine(variant)
    assert isinstance(e, SangongEngine)
    return e


def sg(hand: Hand) -> SangongState:
    """The Sangong state of a hand the dealer holds."""
    assert isinstance(hand.state, SangongState)
    return hand.state


def seats(n: int, stacks: Sequence[int] = ()) -> list[dict[str, Any]]:
    st = list(stacks) or [10**7] * n
    return [{"seat": i + 1, "player": f"p{i + 1}", "stack": st[i]} for i in range(n)]


@dataclass
class Run(DealerRun):
    """A sangong table; ``play_out`` decides at random, some turns by timeout."""

    seed_label: str = "sangong"

    def play_out(self, hand: Hand, rng: random.Random, timeout_rate: float = 0.2) -> None:
        e = eng(self.variant)
        while not sg(hand).closed:
            turns = e.to_act(sg(hand))
            assert turns, sg(hand).phase
            if rng.random() < timeout_rate:
                self.keep(self.dealer.expire(hand.hand_id))
                continue
            t = rng.choice(turns)
            if Act.BET in t.actions:
                action, args = Act.BET, {"multiple": rng.choice(t.multiples)}
            elif Act.GRAB in t.actions and rng.random() < 0.6:
                action, args = (
                    Act.GRAB,
                    ({"multiple": rng.choice(t.multiples)} if t.multiples else {}),
                )
            else:
                action, args = Act.PASS, {}
            self.keep(self.dealer.act(hand.hand_id, t.seat, action.value, args))


def audit_all(run: Run, hands: Sequence[Hand]) -> list[HandSettlement]:
    out = []
    for hand in hands:
        log = run.stream(hand.hand_id)
        verify_chain(log.events)
        assert log.events[-1].type == g.HAND_CLOSED and sg(hand).closed
        assert log.events[-1].payload["carry"] == {}
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        out.append(hs)
    return out


def test_hundred_hands_through_the_dealer_settle_and_audit() -> None:
    run = Run("sangong.hundred")
    rng = random.Random(5)
    hands = []
    stakes = []
    for _ in range(6):
        bets = [
            (s, rng.choice(SPOTS), rng.randint(1, 50) * 100) for s in (1, 2, 3) for _ in range(2)
        ]
        hand = run.open(seats(3, [10**7, 10**7, 20_000]), bets)
        assert sg(hand).closed  # no decisions: dealt, opened and closed with the betting
        hands.append(hand)
        stakes.append(sum(a for _, _, a in bets))
    settled = audit_all(run, hands)
    for hand, hs, staked in zip(hands, settled, stakes, strict=True):
        types = [x.type for x in run.stream(hand.hand_id).events]
        assert types.count(g.CARD_DEALT) == 1 and types.count(g.CARDS_REVEALED) == 5
        assert g.DICE_ROLLED not in types
        # record version 2: stakes and stake-plus-net per player (below zero where a
        # multiplied loss exceeds the stake); the players' gain is the house's loss
        rec = hs.record
        assert rec["record_version"] == 2 and hs.staked == staked
        assert sum(rec["staked"].values()) == staked
        assert sum(rec["returned"].values()) - staked == -rec["deltas"]["house"]


@pytest.mark.parametrize("variant", ["sangong.grab", "sangong.classic"])
def test_grab_hands_through_the_dealer_settle_and_audit(variant: str) -> None:
    run = Run(variant)
    rng = random.Random(variant)
    hands = []
    rolled = 0
    for i in range(12):
        n = 2 + i % 5
        stacks = [rng.choice([10**6, 3 * 10**6, 50_000, 3000]) for _ in range(n)]
        hand = run.open(seats(n, stacks))
        run.play_out(hand, rng)
        hands.append(hand)
        st = sg(hand)
        assert st.banker is not None and st.draw is not None
        assert st.banker in st.draw.candidates
        rolled += st.draw.roll is not None
    assert rolled >= 2  # the banker's draw came from the dealer's dice
    settled = audit_all(run, hands)
    for hand, hs in zip(hands, settled, strict=True):
        # nobody loses more than they carried (防以小博大)
        for seat in sg(hand).seats.values():
            assert hs.record["deltas"][seat.player] >= -seat.stack
        types = [x.type for x in run.stream(hand.hand_id).events]
        assert types[:2] == [g.HAND_OPENED, g.BETTING_CLOSED]
        assert types.count(g.CARDS_REVEALED) == len(sg(hand).seats)
        draw = sg(hand).draw
        assert draw is not None
        assert types.count(g.DICE_ROLLED) == (draw.roll is not None)


def test_the_audit_catches_a_forged_roll() -> None:
    """Stacks 1, 2, 1 million: weights 1, 2, 1, one die of 4 faces; 2 and 3 both pick
    seat 2. A log whose roll says 3 where the seed rolled 2 (or back) plays the same
    hand by the rules, and the audit's fairness check refuses it."""
    run = Run("sangong.grab")
    for _ in range(30):
        hand = run.open(seats(3, [10**6, 2 * 10**6, 10**6]))
        for s in (1, 2, 3):
            run.keep(run.dealer.act(hand.hand_id, s, "grab", {}))
        for s in (1, 3):
            if not sg(hand).closed and s != sg(hand).banker:
                run.keep(run.dealer.act(hand.hand_id, s, "bet", {"multiple": 1}))
        while not sg(hand).closed:
            run.keep(run.dealer.expire(hand.hand_id))
        if sg(hand).banker == 2:
            break
    draw = sg(hand).draw
    assert draw is not None and draw.weights == (1, 2, 1) and draw.roll in (2, 3)
    log = run.stream(hand.hand_id)
    k = next(i for i, x in enumerate(log.events) if x.type == g.DICE_ROLLED)
    forged_payload = {**log.events[k].payload, "dice": [5 - draw.roll]}
    forged = rechain(
        hand.hand_id,
        [
            (x.type, x.producer, forged_payload if i == k else x.payload)
            for i, x in enumerate(log.events)
        ],
    )
    events = forged.events
    e = eng("sangong.grab")
    assert e.replay(hand.hand_id, [(x.type, x.payload) for x in events]).banker == 2
    rep, _ = run.audit(hand.hand_id, forged)
    assert rep.verdict is Verdict.FAIL, rep.to_json_dict()
    assert (rep.reason, rep.seq) == ("unfair_deal", events[k].seq), rep.to_json_dict()
    assert "roll 0" in rep.message


def test_refused_bets_and_actions_write_nothing() -> None:
    run = Run("sangong.hundred")
    hid, b = run.dealer.open_hand("t1", seats(2, [10_000, 10_000]))
    run.keep(b)
    hand = run.dealer.hand(hid)
    n = len(hand.events)
    for bets, reason in [
        (
            [{"seat": 1, "spot": "east", "amount": 100}, {"seat": 1, "spot": "up", "amount": 1}],
            "unknown_spot",
        ),
        ([{"seat": 1, "spot": "east", "amount": 10_100}], "insufficient_stack"),
    ]:
        with pytest.raises(BetRejected) as err:
            run.dealer.place_bets(hid, bets)
        assert err.value.reason == reason
        assert len(hand.events) == n and not hand.writer.pending

    grab = Run("sangong.classic")
    hand = grab.open(seats(3))
    n, before = len(hand.events), copy.deepcopy(sg(hand))
    for seat, action, args, reason in [
        (1, "grab", {"multiple": 9}, "over_cap"),
        (1, "bet", {"multiple": 1}, "wrong_phase"),
        (4, "pass", {}, "unknown_seat"),
    ]:
        with pytest.raises(RuleViolation) as rerr:
            grab.dealer.act(hand.hand_id, seat, action, args)
        assert rerr.value.reason == reason
        assert len(hand.events) == n and not hand.writer.pending
        assert sg(hand) == before
    grab.keep(grab.dealer.act(hand.hand_id, 1, "grab", {"multiple": 4}))
    grab.keep(grab.dealer.expire(hand.hand_id))  # seat 2 times out: passes
    assert hand.events[-1].payload == {"seat": 2, "action": "pass", "args": {"auto": "timeout"}}
    grab.keep(grab.dealer.act(hand.hand_id, 3, "pass", {}))
    assert sg(hand).banker == 1
    with pytest.raises(ActionRejected) as aerr:
        grab.dealer.act(hand.hand_id, 2, "bet", {"multiple": 20})
    assert aerr.value.reason == "over_limit"


def test_hidden_cards_stay_hidden_until_turned_up() -> None:
    # 001 抢庄: dealt before the grab with values hidden - from their owner too
    run = Run("sangong.grab")
    hand = run.open(seats(2))
    dealt = next(x for x in hand.events if x.type == g.CARD_DEALT)
    cards = [c["card"] for c in dealt.payload["cards"]]
    for who in (None, 1, 2):
        shown = next(pb for pb in redact(list(hand.events), who) if pb.hash == dealt.hash)
        assert HIDDEN in shown.payload_json and not any(c in shown.payload_json for c in cards)
    # 001 三公: dealt after the bets to seat:<n>; each owner sees their own
    run2 = Run("sangong.classic")
    hand2 = run2.open(seats(2))
    run2.keep(run2.dealer.act(hand2.hand_id, 1, "grab", {"multiple": 1}))
    run2.keep(run2.dealer.act(hand2.hand_id, 2, "pass", {}))
    events = list(run2.stream(hand2.hand_id).events)
    run2.keep(run2.dealer.act(hand2.hand_id, 2, "bet", {"multiple": 1}))
    events = list(run2.stream(hand2.hand_id).events)
    k = next(i for i, x in enumerate(events) if x.type == g.CARD_DEALT)
    before_reveal = events[: k + 1]
    mine = [c for c in events[k].payload["cards"] if c["to"] == "seat:2"]
    view = next(pb for pb in redact(before_reveal, 2) if pb.hash == events[k].hash)
    assert all(c["card"] in view.payload_json for c in mine)
    public = next(pb for pb in redact(before_reveal, None) if pb.hash == events[k].hash)
    assert not any(c["card"] in public.payload_json for c in mine)


def test_a_hundred_hand_recorded_under_record_version_1_still_audits() -> None:
    """Version 1 recorded 百人三公 with empty ``staked``/``returned``; the auditor rebuilds
    a hand's record with the version it was recorded with, so such hands still pass."""
    run = Run("sangong.hundred")
    hand = run.open(seats(2, [10**7, 10**7]), [(1, "east", 1000), (2, "west", 500)])
    rep, hs = run.audit(hand.hand_id, record_version=1)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert hs.record["record_version"] == 1
    assert hs.record["staked"] == {} and hs.record["returned"] == {}
    rep2, hs2 = run.audit(hand.hand_id)
    assert rep2.verdict is Verdict.PASS, rep2.to_json_dict()
    assert hs2.record["staked"] == {"p1": 1000, "p2": 500}
    assert hs2.record_bytes != hs.record_bytes
