"""The whole baccarat pipeline in one process over real JetStream and real SQL: a gateway
plays a shoe's worth of coups through gRPC, the rule service and settlement consume
them, and the auditor reproduces every hand — pending until the shoe is revealed, then
passing with the fairness check."""

from __future__ import annotations

import random

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier import fair
from croupier.bus.jetstream import Consumer
from croupier.games import base as g
from croupier.games.baccarat.rules import Winner, deal_coup
from croupier.games.registry import engine
from croupier.pb.croupier.v1 import audit_pb2, gateway_pb2, settlement_pb2
from croupier_services.bots import bets_for
from croupier_services.runtime import SERVICE_NAMES

from .harness import STACK, VARIANT, Cluster, metric, seed_sequence, wait_subjects

OPEN_HAND_OK = {
    "grpc_service": "croupier.v1.GatewayService",
    "grpc_method": "OpenHand",
    "grpc_type": "unary",
    "grpc_code": "OK",
}

pytestmark = pytest.mark.integration

HANDS = 30
PLAYERS = 3


async def test_baccarat_pipeline(cluster: Cluster) -> None:
    c = cluster
    before = {
        "dealt": metric("croupier_hands_dealt_total", variant=VARIANT),
        "settled": metric("croupier_hands_settled_total", variant=VARIANT),
        "bets": metric("croupier_bets_minor_total", variant=VARIANT),
        "payout": metric("croupier_payout_minor_total", variant=VARIANT),
        "published": metric("croupier_events_published_total", producer="dealer"),
        "consumed_rules": metric("croupier_events_consumed_total", service="rules"),
        "consumed_settlement": metric("croupier_events_consumed_total", service="settlement"),
        "latency": metric("croupier_settlement_latency_seconds_count", variant=VARIANT),
        "open_hand_ok": metric("grpc_server_handled_total", **OPEN_HAND_OK),
        "audit_pass": metric("croupier_audit_hands_total", verdict="pass"),
        "audit_pending": metric("croupier_audit_hands_total", verdict="pending_reveal"),
        "mismatches": metric("croupier_audit_mismatches_total"),
    }

    # every service answers its health check
    health = health_pb2_grpc.HealthStub(c.channel)
    for name in [*SERVICE_NAMES.values(), ""]:
        r = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert r.status == health_pb2.HealthCheckResponse.SERVING

    c.fix_seeds("pipeline")  # a repeatable shoe: the same coups on every run
    table = await c.open_table("pipe", client_seed="pipeline")
    rng = random.Random(20240611)
    hand_ids: list[str] = []
    staked = 0
    shoe_ids = set()
    for n in range(1, HANDS + 1):
        h = await c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(
                table_id=table,
                seats=[
                    gateway_pb2.SeatEntry(seat=i, player_id=f"{table}_p{i}", stack_minor=STACK)
                    for i in range(1, PLAYERS + 1)
                ],
            )
        )
        assert h.hand_no == n
        shoe_ids.add(h.shoe_id)
        bets = bets_for(VARIANT, rng, list(range(1, PLAYERS + 1)), h.hand_no, STACK)
        r = await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=h.hand_id,
                bets=[gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets],
            )
        )
        assert r.accepted == len(bets)
        staked += sum(a for _, _, a in bets)
        cb = await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
        assert any(e.type == g.CARD_DEALT for e in cb.view.events)
        hand_ids.append(h.hand_id)
    assert len(shoe_ids) == 1
    (shoe_id,) = shoe_ids

    await c.wait_settled(HANDS)

    # the settlement API agrees
    summary = await c.st.GetRakeSummary(settlement_pb2.GetRakeSummaryRequest(variant=VARIANT))
    assert [(line.variant, line.hands, line.rake_minor) for line in summary.lines] == [
        (VARIANT, HANDS, 0)  # baccarat charges no commission
    ]

    # every hand: outcome and settled events, one settle transaction, one record
    for hid in hand_ids:
        types = [e.type for e in c.store.read_stream(hid)]
        assert types.count(g.HAND_OUTCOME) == 1, hid
        assert types.count(g.HAND_SETTLED) == 1, hid
        assert types[-2:] == [g.HAND_OUTCOME, g.HAND_SETTLED]
        txs = c.store.transactions_for(hid)
        assert [t.kind for t in txs] == ["settle"], hid
        assert sum(p.amount for p in txs[0].postings) == 0
        s = await c.st.GetSettlement(settlement_pb2.GetSettlementRequest(hand_id=hid))
        assert sum(d.amount_minor for d in s.settlement.deltas) == 0
        assert s.settlement.tx_id == str(txs[0].tx_id)

    # the ledger is balanced over all accounts, and players did move money
    balances = c.store.balances()
    assert sum(balances.values()) == 0
    assert any(acc.startswith("player:") and v != 0 for acc, v in balances.items())
    assert any(acc == f"house:{VARIANT}" for acc in balances)

    # JetStream carried exactly one message of each kind per hand
    await wait_subjects(c.bus, {"hand": HANDS, "outcome": HANDS, "settled": HANDS})

    # audit before the shoe is revealed: everything checks out but fairness is pending
    auditor = c.auditor()
    for hid in hand_ids:
        rep = auditor.audit(hid)
        assert rep.verdict.value == "pending_reveal", (hid, rep.reason, rep.message)
        assert not rep.failed and not rep.ok  # pending: ok means PASS only
        assert {"chain", "seals", "rules", "outcome", "settlement"} <= set(rep.checks)
        assert "fairness" not in rep.checks

    closed = await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    assert closed.shoe_id == shoe_id
    assert closed.server_seed == c.store.get_secret(shoe_id, c.seed_box)

    # after the reveal every hand passes, fairness included (directly and over gRPC)
    auditor = c.auditor()
    for hid in hand_ids:
        rep = auditor.audit(hid)
        assert rep.verdict.value == "pass", (hid, rep.reason, rep.message)
        assert rep.checks[-1] == "fairness"
    verdicts = [
        r.report.verdict
        async for r in c.au.VerifyRange(audit_pb2.VerifyRangeRequest(table_id=table))
    ]
    assert verdicts == [audit_pb2.AUDIT_VERDICT_PASS] * HANDS

    # the counters moved by exactly what happened
    assert metric("croupier_hands_dealt_total", variant=VARIANT) - before["dealt"] == HANDS
    assert metric("croupier_hands_settled_total", variant=VARIANT) - before["settled"] == HANDS
    assert metric("croupier_bets_minor_total", variant=VARIANT) - before["bets"] == staked
    assert metric("croupier_payout_minor_total", variant=VARIANT) > before["payout"]
    assert (
        metric("croupier_settlement_latency_seconds_count", variant=VARIANT) - before["latency"]
        == HANDS
    )
    n_events = sum(
        len([e for e in c.store.read_stream(h) if e.producer in ("dealer", "gateway")])
        for h in hand_ids
    )
    assert (
        metric("croupier_events_published_total", producer="dealer") - before["published"]
        == n_events
    )
    assert (
        metric("croupier_events_consumed_total", service="rules") - before["consumed_rules"]
        == n_events
    )
    assert (
        metric("croupier_events_consumed_total", service="settlement")
        - before["consumed_settlement"]
        == n_events + HANDS
    )
    assert (
        metric("grpc_server_handled_total", **OPEN_HAND_OK)
        - before["open_hand_ok"]
        == HANDS
    )
    assert (
        metric("croupier_audit_hands_total", verdict="pending_reveal") - before["audit_pending"]
        == HANDS
    )
    assert metric("croupier_audit_hands_total", verdict="pass") - before["audit_pass"] == 2 * HANDS
    assert metric("croupier_audit_mismatches_total") == before["mismatches"]


def _first_coup_tag(client_seed: str, winner: Winner) -> str:
    """A seed-sequence tag whose first shoe opens with a coup won by ``winner``."""
    deck = engine(VARIANT).config.deck
    for k in range(10_000):
        tag = f"coup/{winner.value}/{k}"
        order = iter(fair.shuffle(deck, seed_sequence(tag)(), client_seed, 1))
        if deal_coup(order.__next__).winner is winner:
            return tag
    raise AssertionError("no such seed")


async def test_hands_that_move_no_money_still_settle(cluster: Cluster) -> None:
    """A coup nobody bet on, and a tie on which every stake is pushed (banker and player
    bets are returned), net to zero for everyone. They are still settled: one
    ``hand.settled`` event, one settlement record, one (empty-handed) settle transaction,
    and the audit passes."""
    c = cluster
    c.fix_seeds(_first_coup_tag("push", Winner.TIE))
    table = await c.open_table("push", client_seed="push")
    tie = await c.play_hand(table, bets=[(1, "banker", 10_000), (2, "player", 20_000)])
    none = await c.play_hand(table, bets=[])
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    outcome = next(e for e in c.store.read_stream(tie) if e.type == g.HAND_OUTCOME)
    assert outcome.payload["winner"] == "tie"

    await c.wait_settled(2, timeout_s=10)
    auditor = c.auditor()
    for hid in (tie, none):
        assert [e.type for e in c.store.read_stream(hid)][-1] == g.HAND_SETTLED
        assert [t.kind for t in c.store.transactions_for(hid)] == ["settle"]
        rep = auditor.audit(hid)
        assert rep.verdict.value == "pass", (hid, rep.reason, rep.message)
    assert sum(c.store.balances().values()) == 0


async def test_consumer_fetch_treats_a_client_side_timeout_as_no_messages() -> None:
    """nats-py's pull ``fetch`` ends an empty wait with ``nats.errors.TimeoutError`` or,
    when its deadline runs out between the no-wait probe and the long poll, with a bare
    ``asyncio.TimeoutError``. Both mean "nothing yet": a consumer loop must keep
    polling, not die (a dead loop silently stops a service from settling)."""

    class Sub:
        async def fetch(self, batch: int, timeout: float) -> list[object]:
            raise TimeoutError

    assert await Consumer(Sub()).fetch(10, timeout_s=0.01) == []
