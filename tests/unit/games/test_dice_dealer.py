"""开心摇摇乐 through the dealer core (croupier.dealing.Dealer): rounds rolled from
committed per-hand seeds, closed, settled (croupier.settlement.settle_state) and audited
(croupier.audit.audit_hand) as the cluster does it, 重复投 carried from round to round,
撤销 through the dealer, refused bets and actions writing nothing, and the audit
catching dice the revealed seed does not roll."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from croupier import fair
from croupier.audit import AuditReport, StreamLog, Verdict
from croupier.errors import ActionRejected, BetRejected
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.games.dice.engine import DiceState
from croupier.testing import DealerRun, bet_rows, rechain, seat_rows

VARIANT = "dice.yaoyao"


@dataclass
class Run(DealerRun):
    """A 开心摇摇乐 table of four seats; ``open_round`` leaves the betting open."""

    variant: str = VARIANT
    seed_label: str = "dice"
    seats: Sequence[Mapping[str, Any]] = tuple(seat_rows((1, 2, 3, 4), 10**6))

    def open_round(self) -> str:
        return self.open(close=False).hand_id


def bets(*rows: tuple[int, str, int]) -> list[dict[str, Any]]:
    return bet_rows(rows)


def audit(run: Run, hid: str, log: StreamLog | None = None) -> AuditReport:
    rep, hs = run.audit(hid, log)
    assert sum(n for _, n in hs.postings) == 0
    return rep


def test_rounds_through_the_dealer_roll_close_settle_and_audit() -> None:
    run = Run()
    hids = []
    for i in range(6):
        hid = run.open_round()
        run.keep(
            run.dealer.place_bets(
                hid,
                bets(
                    (1, "red", 1000 + 100 * i),
                    (2, "blue", 2000),
                    (3, "tie", 300),
                    (3, "red_pair", 500),
                    (4, "blue_triple", 100),
                    (4, "blue_straight", 200),
                ),
            )
        )
        run.keep(run.dealer.close_betting(hid))
        assert hid not in run.dealer.hands  # rolled and closed in one go
        hids.append(hid)
    for hid in hids:
        log = run.stream(hid)
        verify_chain(log.events)
        types = [x.type for x in log.events]
        assert types == [
            g.HAND_OPENED,
            g.BETS_PLACED,
            g.BETTING_CLOSED,
            g.DICE_ROLLED,
            g.HAND_CLOSED,
        ]
        rolled = log.events[-2].payload
        assert rolled["faces"] == [6] * 6 and rolled["roll"] == 0
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
        assert rep.checks[-1] == "fairness"
        out = rep.outcome
        assert out is not None and out["red"] + out["blue"] == rolled["dice"]
    # six rounds, six different seeds: the dice differ
    assert len({tuple(run.stream(h).events[-2].payload["dice"]) for h in hids}) > 1


def test_repeat_and_cancel_through_the_dealer() -> None:
    run = Run()
    hid = run.open_round()
    run.keep(run.dealer.place_bets(hid, bets((1, "red", 1500), (1, "tie", 200), (2, "blue", 700))))
    run.keep(run.dealer.act(hid, 2, "cancel", {}))
    run.keep(run.dealer.place_bets(hid, bets((2, "red", 900))))
    run.keep(run.dealer.close_betting(hid))
    closed = run.stream(hid).events[-1]
    carry = {"last_bets": {"p1": [["red", 1500], ["tie", 200]], "p2": [["red", 900]]}}
    assert closed.type == g.HAND_CLOSED and closed.payload["carry"] == carry
    hid2 = run.open_round()
    assert run.stream(hid2).events[0].payload["carry"] == carry
    run.keep(run.dealer.act(hid2, 1, "repeat", {}))
    run.keep(run.dealer.act(hid2, 2, "repeat", {}))
    n = len(run.dealer.hands[hid2].events)
    with pytest.raises(ActionRejected) as err:
        run.dealer.act(hid2, 3, "repeat", {})
    assert err.value.reason == "nothing_to_repeat" and len(run.dealer.hands[hid2].events) == n
    st = run.dealer.hands[hid2].state
    assert isinstance(st, DiceState)
    assert [(s, sp.value, a) for s, sp, a in st.bets] == [
        (1, "red", 1500),
        (1, "tie", 200),
        (2, "red", 900),
    ]
    run.keep(run.dealer.close_betting(hid2))
    for h in (hid, hid2):
        rep = audit(run, h)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()


def test_refused_bets_and_actions_write_nothing() -> None:
    run = Run()
    hid = run.open_round()
    hand = run.dealer.hands[hid]
    run.keep(run.dealer.place_bets(hid, bets((1, "red", 1000))))
    before_events, before_state = len(hand.events), copy.deepcopy(hand.state)
    for rows, reason in (
        (bets((2, "blue", 1000), (2, "purple", 100)), "unknown_spot"),
        (bets((2, "blue", 1000), (3, "red", 5_000_100)), "over_limit"),
        (bets((4, "red", 900_000), (4, "blue", 100_100)), "insufficient_stack"),
    ):
        with pytest.raises(BetRejected) as err:
            run.dealer.place_bets(hid, rows)
        assert err.value.reason == reason
        assert len(hand.events) == before_events and not hand.writer.pending
        assert hand.state == before_state
    for seat, action, reason in ((2, "cancel", "no_bet"), (1, "double", "unknown_action")):
        with pytest.raises(ActionRejected) as aerr:
            run.dealer.act(hid, seat, action, {})
        assert aerr.value.reason == reason
        assert len(hand.events) == before_events and hand.state == before_state
    with pytest.raises(ActionRejected) as aerr:
        run.dealer.expire(hid)
    assert aerr.value.reason == "no_turn"


def test_the_audit_catches_dice_the_seed_did_not_roll() -> None:
    run = Run()
    hid = run.open_round()
    run.keep(run.dealer.place_bets(hid, bets((1, "red", 1000), (2, "blue", 1000))))
    run.keep(run.dealer.close_betting(hid))
    log = run.stream(hid)
    specs = [(x.type, x.producer, x.payload) for x in log.events]
    k = next(i for i, s in enumerate(specs) if s[0] == g.DICE_ROLLED)
    rolled = dict(specs[k][2])
    dice = list(rolled["dice"])
    dice[0] = dice[0] % 6 + 1  # still a legal die, not the seed's
    specs[k] = (g.DICE_ROLLED, "dealer", {**rolled, "dice": dice})
    forged = rechain(hid, specs)
    rep = audit(run, hid, forged)
    assert (rep.verdict, rep.reason, rep.seq) == (Verdict.FAIL, "unfair_deal", k)
    # and the honest log's dice are the revealed seed's roll 0
    seed = bytes.fromhex(run.stream("t1_s1").events[-1].payload["server_seed"])
    c = fair.Commitment.from_shoe_opened(run.stream("t1_s1").events[0].payload)
    assert fair.roll([6] * 6, seed, c.client_seed, c.nonce, 0) == rolled["dice"]


def test_demo_bots_bet_and_the_rounds_audit() -> None:
    import random

    from croupier_services.bots import bets_for, next_move

    run = Run(seed_base=50)
    rng = random.Random(3)
    spots = set()
    for _ in range(8):
        hid = run.open_round()
        rows = bets_for(VARIANT, rng, [1, 2, 3, 4], 1, 10**6)
        assert {s for s, _, _ in rows} == {1, 2, 3, 4}
        spots |= {sp for _, sp, _ in rows}
        run.keep(run.dealer.place_bets(hid, bets(*rows)))
        run.keep(run.dealer.close_betting(hid))
        assert (
            next_move(VARIANT, [(x.type, x.payload) for x in run.stream(hid).events], rng) is None
        )
        rep = audit(run, hid)
        assert rep.verdict is Verdict.PASS, rep.to_json_dict()
    assert {"red", "blue"} <= spots
