"""二八杠 and 推筒子 through the dealer core (croupier.dealing.Dealer): whole hands with
the dealer's dice (the grab tie die, the deal-order dice, the 1-9 wheel) and tiles from
committed shuffles, decided by seeded random players and by timeouts, closed, settled
(croupier.settlement.settle_state) and audited (croupier.audit.audit_hand) with verdict
PASS; a refused action writes nothing; the public never sees a face-down tile before
the showdown."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence

import pytest

from croupier.audit import Verdict
from croupier.dealing import Dealer, Hand, restore_table
from croupier.errors import ActionRejected, RuleViolation
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.tongzi.erbagang import ErbagangEngine, ErbagangState
from croupier.games.tongzi.tuitongzi import TuitongziEngine, TuitongziState
from croupier.testing import DEALER, GATEWAY, T0, DealerRun, rechain, seat_rows
from croupier_services.bots import bot_for
from croupier_services.dealer import redact_public
from croupier_services.views import redact


class Run(DealerRun):
    """A table whose players sit at ``seat_nos``, each with ``stack``; every 推筒子
    hand opens with a 100 ante from each seat."""

    def __init__(
        self, variant: str, seat_nos: Sequence[int], stack: int = 200_000, seed_base: int = 1
    ) -> None:
        self.seat_nos = tuple(seat_nos)
        self.stack = stack
        antes = [(s, "ante", 100) for s in seat_nos] if variant == "tuitongzi" else []
        super().__init__(variant, "tongzi", seat_rows(seat_nos, stack), antes, seed_base=seed_base)


def decide(run: Run, hand: Hand, rng: random.Random, timeouts: float = 0.2) -> None:
    """Random legal decisions (and timeouts) until the hand closes."""
    e = engine(run.variant)
    while not hand.state.closed:
        if rng.random() < timeouts:
            run.keep(run.dealer.expire(hand.hand_id))
            continue
        st = hand.state
        if isinstance(e, ErbagangEngine):
            assert isinstance(st, ErbagangState)
            w = e.waiting(st)
            assert w is not None and w.seats, st.phase
            seat = rng.choice(w.seats)
            if w.action == "grab":
                m = rng.choice([0, 0, 1, 5, e.grab_cap(st, seat)])
            else:
                m = rng.randint(e.bet_min, min(20, e.bet_cap(st, seat)))
            run.keep(run.dealer.act(hand.hand_id, seat, w.action, {"multiple": m}))
        else:
            assert isinstance(e, TuitongziEngine) and isinstance(st, TuitongziState)
            seats = e.waiting(st)
            assert seats, st.phase
            seat = rng.choice(seats)
            cap = e.raise_cap(st, seat)
            if cap and rng.random() < 0.6:
                amount = rng.randrange(e.raise_min, cap + 1, e.raise_step)
                run.keep(run.dealer.act(hand.hand_id, seat, "raise", {"amount": amount}))
            else:
                run.keep(run.dealer.act(hand.hand_id, seat, "fold", {}))


CASES = [
    ("erbagang", (1, 2, 3, 4)),
    ("erbagang", (2, 4, 5)),
    ("erbagang.dice2", (1, 2, 3, 4)),
    ("erbagang.dice2", (3, 9)),
    ("tuitongzi", (1, 4, 7)),
    ("tuitongzi", (2, 3, 5, 6, 8, 9)),
]


@pytest.mark.parametrize(("variant", "seats"), CASES)
def test_whole_hands_through_the_dealer_settle_and_audit_pass(
    variant: str, seats: Sequence[int]
) -> None:
    run = Run(variant, seats)
    rng = random.Random(f"{variant}{seats}")
    hands = []
    for _ in range(8):
        hand = run.open()
        decide(run, hand, rng)
        hands.append(hand)
    run.keep(run.dealer.close_table("t1"))
    kinds: set[str] = set()
    for hand in hands:
        log = run.stream(hand.hand_id)
        types = [x.type for x in log.events]
        kinds |= set(types)
        assert types[-1] == g.HAND_CLOSED and hand.state.closed
        assert g.DICE_ROLLED in types and g.CARD_DEALT in types
        rep, hs = run.audit(hand.hand_id)
        assert sum(n for _, n in hs.postings) == 0
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        for seat_no, seat in hand.state.seats.items():
            delta = dict(hs.postings).get(f"player:{seat.player}", 0)
            assert delta >= -seat.stack, seat_no
    if variant == "tuitongzi":
        assert g.CARDS_REVEALED in kinds


def test_a_grab_tie_is_broken_by_a_dealer_die_the_audit_rederives() -> None:
    run = Run("erbagang", (1, 2, 3, 4))
    hand = run.open()
    for s in (1, 2, 3, 4):
        run.keep(run.dealer.act(hand.hand_id, s, "grab", {"multiple": 7}))
    rolled = [x for x in hand.events if x.type == g.DICE_ROLLED]
    assert len(rolled) == 1 and rolled[0].payload["faces"] == [4]
    st = hand.state
    assert isinstance(st, ErbagangState)
    assert st.banker == (1, 2, 3, 4)[rolled[0].payload["dice"][0] - 1]
    decide(run, hand, random.Random(3), timeouts=0)
    run.keep(run.dealer.close_table("t1"))
    rep, _ = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_the_audit_catches_a_forged_die() -> None:
    run = Run("erbagang", (1, 2, 3))
    hand = run.open()
    decide(run, hand, random.Random(5), timeouts=0)
    run.keep(run.dealer.close_table("t1"))
    log = run.stream(hand.hand_id)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.DICE_ROLLED and s[2]["faces"] == [6])
    die = specs[k][2]["dice"][0]
    specs[k] = (g.DICE_ROLLED, "dealer", {**specs[k][2], "dice": [die % 6 + 1]})
    # the order of the deal changes with the die, so the tiles move to other seats too
    e, st = engine("erbagang"), hand.state
    assert isinstance(e, ErbagangEngine) and isinstance(st, ErbagangState)
    req_order = e.deal_order(sorted(st.seats), st.banker or 0, die % 6 + 1)
    j = next(i for i, s in enumerate(specs) if s[0] == g.CARD_DEALT)
    tiles = [c["card"] for c in specs[j][2]["cards"]]
    specs[j] = (
        g.CARD_DEALT,
        "dealer",
        {
            "cards": [
                {"to": f"seat:{s}", "card": tiles[i * 2 + n], "pos": i * 2 + n, "up": True}
                for i, s in enumerate(req_order)
                for n in range(2)
            ]
        },
    )
    forged = rechain(hand.hand_id, specs)
    rep, _ = run.audit(hand.hand_id, forged)
    assert rep.verdict is Verdict.FAIL and rep.seq == k, rep.to_json_dict()


@pytest.mark.parametrize("variant", ["erbagang", "tuitongzi"])
def test_a_refused_action_writes_nothing(variant: str) -> None:
    run = Run(variant, (1, 2, 3), stack=1_000)
    hand = run.open()
    if variant == "tuitongzi":
        bad = [(1, "raise", {"amount": 1_000}, "raise_over_cap"), (1, "call", {}, "unknown_action")]
    else:
        bad = [
            (1, "grab", {"multiple": 11}, "grab_over_cap"),
            (1, "bet", {"multiple": 1}, "not_betting"),
        ]
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for seat, action, args, reason in bad:
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hand.hand_id, seat, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    with pytest.raises(RuleViolation):
        run.dealer.place_bets(hand.hand_id, [{"seat": 1, "spot": "ante", "amount": 100}])
    assert len(hand.events) == before_events


def test_the_public_never_sees_a_face_down_tile_before_the_showdown() -> None:
    run = Run("tuitongzi", (1, 2, 3))
    hand = run.open()
    decide(run, hand, random.Random(11), timeouts=0)
    events = list(run.stream(hand.hand_id).events)
    public = redact_public(events)
    k = next(i for i, x in enumerate(events) if x.type == g.CARD_DEALT)
    assert events[k] not in public  # it holds face-down tiles
    shown = [x for x in public if x.type == g.CARDS_REVEALED]
    assert len(shown) == 3
    st = engine("tuitongzi").replay(hand.hand_id, [(x.type, x.payload) for x in events])
    assert {x.payload["to"]: x.payload["cards"] for x in shown} == {
        f"seat:{s}": [st.hidden[s]] for s in (1, 2, 3)
    }


@pytest.mark.parametrize("variant", ["erbagang", "erbagang.dice2", "tuitongzi"])
def test_the_demo_bots_play_whole_hands_from_the_public_view(variant: str) -> None:
    e, bot = bot_for(variant)
    assert bot.family == e.family
    run = Run(variant, (1, 2, 3, 4))
    rng = random.Random(variant)
    for _ in range(5):
        hand = run.open(bets=bot.bets(e, rng, list(run.seat_nos), 1, run.stack))
        hid = hand.hand_id
        while not hand.state.closed:
            view = [(x.type, json.loads(x.payload_json)) for x in redact(hand.events, None)]
            move = bot.move(e, view, rng)
            assert move is not None, hand.state.phase
            run.keep(run.dealer.act(hid, move.seat, move.action, move.args))
        rep, _ = run.audit(hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()


@pytest.mark.parametrize("variant", ["erbagang", "tuitongzi"])
def test_a_restarted_dealer_resumes_a_hand_after_its_dice_and_tiles(variant: str) -> None:
    run = Run(variant, (1, 2, 3))
    hand = run.open()
    if variant == "erbagang":
        for s in (1, 2, 3):
            run.keep(run.dealer.act(hand.hand_id, s, "grab", {"multiple": 4}))  # a tie: a die
    rolls = [x.payload["roll"] for x in hand.events if x.type == g.DICE_ROLLED]
    assert rolls
    shoe_log = run.stream(hand.shoe.shoe_id)
    hand_log = run.stream(hand.hand_id)
    fresh = Dealer(DEALER, GATEWAY, clock_ms=lambda: T0 + 10**7, seed_source=lambda: bytes(32))
    t = restore_table(
        fresh,
        run.dealer.table("t1").row(),  # the registry row the dealer persisted
        shoe_log.events,
        hand.shoe.server_seed,
        [(hand_log.events, hand_log.seals)],
    )
    assert t.hand is not None and t.hand.state == hand.state
    assert t.hand.shoe.rolls == max(rolls) + 1
    run.dealer = fresh
    decide(run, t.hand, random.Random(7), timeouts=0.3)
    run.keep(run.dealer.close_table("t1"))
    dice = [x.payload["roll"] for x in run.stream(hand.hand_id).events if x.type == g.DICE_ROLLED]
    assert dice == list(range(len(dice)))
    rep, _ = run.audit(hand.hand_id)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()
