"""多财多福 through the dealer core (croupier.dealing.Dealer): spins whose reel stops
and double-up dice come from committed per-hand seeds, double-ups played through
``act`` and ``expire`` (the 15 s timeout collects), every hand closed, settled
(croupier.settlement.settle_state) and audited (croupier.audit.audit_hand) with a
PASS; refused bets and actions write nothing; forged reel stops fail the audit."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.audit import AuditReport, StreamLog, Verdict
from croupier.errors import ActionRejected, BetRejected
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.games.slots.engine import SlotEngine
from croupier.testing import DealerRun, bet_rows, rechain, seat_rows

SEAT = seat_rows((1,), 10**6)
VARIANT = "slots.duocai"


def eng() -> SlotEngine:
    e = engine(VARIANT)
    assert isinstance(e, SlotEngine)
    return e


@dataclass
class Run(DealerRun):
    """A 多财多福 table with one player."""

    variant: str = VARIANT
    seed_label: str = "slot"
    seats: Sequence[Mapping[str, Any]] = tuple(SEAT)

    def spin(self, stake: int = 500) -> str:
        return self.open(bets=[(1, "spin", stake)]).hand_id


def audit(run: Run, hid: str, log: StreamLog | None = None) -> AuditReport:
    rep, hs = run.audit(hid, log)
    assert sum(n for _, n in hs.postings) == 0
    return rep


def winning_run() -> tuple[Run, str]:
    """A table whose first spin wins (the first seed base giving one)."""
    for base in range(1, 60):
        run = Run(seed_base=base)
        hid = run.spin()
        if hid in run.dealer.hands:
            return run, hid
    raise AssertionError("no seed gave a winning spin")


def test_spins_and_double_ups_through_the_dealer_settle_and_audit() -> None:
    run = Run()
    hids, ends = [], set()
    plans = itertools.cycle(
        [[], [("boy", 1)], [("girl", 2), ("boy", 1)], [("boy", 5)], [("girl", 3), ("girl", 1)]]
    )
    for i in range(16):
        hid = run.spin(stake=5 * (100, 200, 500)[i % 3])
        plan = list(next(plans))
        while hid in run.dealer.hands:
            if plan:
                pick, times = plan.pop(0)
                run.keep(run.dealer.act(hid, 1, "guess", {"pick": pick, "times": times}))
            elif i % 2:
                run.keep(run.dealer.act(hid, 1, "collect", {}))
            else:
                run.keep(run.dealer.expire(hid))
        hids.append(hid)
    for hid in hids:
        log = run.stream(hid)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types[:5] == [
            g.HAND_OPENED,
            g.BETS_PLACED,
            g.BETTING_CLOSED,
            g.DICE_ROLLED,
            types[4],
        ]
        assert types[-1] == g.HAND_CLOSED
        rolls = [x.payload for x in log.events if x.type == g.DICE_ROLLED]
        assert rolls[0]["faces"] == [30, 30, 30]
        assert all(r["faces"] == [2] for r in rolls[1:])
        assert [r["roll"] for r in rolls] == list(range(len(rolls)))
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        assert rep.outcome is not None
        ends.add(rep.outcome["end"])
        timeouts = [
            x for x in log.events if x.type == g.ACTION_TAKEN and x.payload["args"].get("auto")
        ]
        assert all(x.payload["action"] == "collect" for x in timeouts)
    assert {"no_win", "collected"} <= ends


def test_refused_bets_and_actions_write_nothing() -> None:
    run, hid = winning_run()
    hand = run.dealer.hands[hid]
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for action, args, reason in (
        ("guess", {"pick": "boy", "times": 7}, "bad_multiple"),
        ("guess", {"pick": "nobody", "times": 1}, "bad_pick"),
        ("spin", {}, "unknown_action"),
    ):
        with pytest.raises(ActionRejected) as err:
            run.dealer.act(hid, 1, action, args)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    with pytest.raises(BetRejected) as berr:
        run.dealer.place_bets(hid, [{"seat": 1, "spot": "spin", "amount": 500}])
    assert berr.value.reason == "betting_closed" and hand.state == before_state
    run.keep(run.dealer.act(hid, 1, "collect", {}))
    assert hid not in run.dealer.hands
    rep = audit(run, hid)
    assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_forged_reel_stops_fail_the_audit() -> None:
    run = Run()
    hid = run.spin()
    while hid in run.dealer.hands:
        run.keep(run.dealer.act(hid, 1, "collect", {}))
    log = run.stream(hid)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.DICE_ROLLED)
    rolled = dict(specs[k][2])
    dice = list(rolled["dice"])
    dice[1] = dice[1] % 30 + 1
    specs[k] = (g.DICE_ROLLED, "dealer", {**rolled, "dice": dice})
    # the forged stops may change whether the spin wins: keep the log consistent with the rules
    forged_state = eng().open(hid, specs[0][2])
    kept = []
    for type_, producer, payload in specs:
        if type_ == g.HAND_OPENED:
            kept.append((type_, producer, payload))
            continue
        if type_ == g.HAND_CLOSED and not eng().is_over(forged_state):
            kept.append((g.ACTION_TAKEN, "gateway", {"seat": 1, "action": "collect", "args": {}}))
            eng().step(forged_state, g.ACTION_TAKEN, kept[-1][2])
        if type_ == g.ACTION_TAKEN and eng().is_over(forged_state):
            continue
        eng().step(forged_state, type_, payload)
        kept.append((type_, producer, payload))
    rep = audit(run, hid, rechain(hid, kept))
    assert (rep.verdict, rep.reason, rep.seq) == (Verdict.FAIL, "unfair_deal", k)


def test_demo_bot_plays_whole_spins() -> None:
    import random

    from croupier_services.bots import bets_for, next_move

    run = Run(seed_base=100)
    rng = random.Random(5)
    for _ in range(12):
        hid, b = run.dealer.open_hand("t1", SEAT)
        run.keep(b)
        bets = bets_for(VARIANT, rng, [1], 1, 10**6)
        assert len(bets) == 1 and bets[0][1] == "spin"
        run.keep(run.dealer.place_bets(hid, bet_rows(bets)))
        run.keep(run.dealer.close_betting(hid))
        while hid in run.dealer.hands:
            events = [(x.type, x.payload) for x in run.dealer.hands[hid].events]
            move = next_move(VARIANT, events, rng)
            assert move is not None
            run.keep(run.dealer.act(hid, move.seat, move.action, move.args))
        assert (
            next_move(VARIANT, [(x.type, x.payload) for x in run.stream(hid).events], rng) is None
        )
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
