"""Redelivered and duplicated messages never have a second effect: JetStream drops a
republished hand with the same ``Nats-Msg-Id``; a hand or an outcome that does reach a
consumer twice (another msg id, or a redelivery) leaves exactly one outcome event, one
``hand.settled`` event, one settlement record, one ledger transaction and the same
balances — and the counters on the dashboards count the hand once."""

from __future__ import annotations

import asyncio

import pytest

from croupier.errors import NotFound
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.store import LedgerTx, Outbox, Posting

from .harness import VARIANT, Cluster, FakeMsg, all_stream_messages, metric, subject_counts

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "player", 20_000), (3, "tie", 5_000)]


def _types(c: Cluster, hid: str) -> list[str]:
    return [e.type for e in c.store.read_stream(hid)]


async def _consumer_state(c: Cluster, durable: str) -> tuple[int, int]:
    info = await c.bus.js.consumer_info("CROUPIER", durable)
    return info.num_pending, info.num_ack_pending


async def test_duplicate_hands_and_outcomes_have_one_effect(idle_cluster: Cluster) -> None:
    c = idle_cluster
    c.fix_seeds("idempotency")
    table = await c.open_table("idem")
    hid = await c.play_hand(table, bets=BETS)
    counted = {
        "settled": metric("croupier_hands_settled_total", variant=VARIANT),
        "bets": metric("croupier_bets_minor_total", variant=VARIANT),
        "payout": metric("croupier_payout_minor_total", variant=VARIANT),
        "latency": metric("croupier_settlement_latency_seconds_count", variant=VARIANT),
        "redelivered": metric("croupier_redeliveries_total", service="settlement"),
    }

    await c.flush()  # the dealer's relay publishes the closed hand
    (hand_msg,) = await all_stream_messages(c.bus)
    assert hand_msg.headers and hand_msg.headers["Nats-Msg-Id"] == f"hand:{hid}"

    # the dealer publishing the closed hand again is dropped by JetStream's dedup
    assert await c.bus.publish(hand_msg.subject, hand_msg.data, f"hand:{hid}") is False
    assert await subject_counts(c.bus) == {"hand": 1}
    # ... but with another msg id the rule service really receives it twice
    assert await c.bus.publish(hand_msg.subject, hand_msg.data, f"hand:{hid}:again") is True
    assert await subject_counts(c.bus) == {"hand": 2}

    events_before = c.store.count_events()
    msgs = await c.rules_loop.consumer.fetch(10, timeout_s=2)
    assert len(msgs) == 2
    await c.rules_loop.process(msgs)  # both in one batch
    await c.flush()
    assert _types(c, hid).count(g.HAND_OUTCOME) == 1
    assert c.store.count_events() == events_before + 1
    assert await subject_counts(c.bus) == {"hand": 2, "outcome": 1}  # second one deduped
    assert await _consumer_state(c, "rules_baccarat") == (0, 0)  # both acked

    # a redelivery of the same message objects (process() called again) changes nothing
    again = [FakeMsg(m.data, m.subject, num_delivered=2) for m in msgs]
    await c.rules_loop.process(again)
    await c.rules_loop.process(again)
    await c.flush()
    assert [(m.acks, m.terms) for m in again] == [(2, 0), (2, 0)]
    assert c.store.count_events() == events_before + 1
    assert await subject_counts(c.bus) == {"hand": 2, "outcome": 1}

    # settlement: the outcome once from the stream, then the same bytes under another
    # msg id, then redelivered twice more
    (outcome_msg,) = await c.settlement_loop.consumer.fetch(10, timeout_s=2)
    assert outcome_msg.headers and outcome_msg.headers["Nats-Msg-Id"] == f"outcome:{hid}"
    await c.settlement_loop.process([outcome_msg])
    assert _types(c, hid)[-2:] == [g.HAND_OUTCOME, g.HAND_SETTLED]
    events_settled = c.store.count_events()
    balances = c.store.balances()
    txs = c.store.list_transactions()
    settlement = c.store.get_settlement(hid)
    assert len(txs) == 1 and txs[0].hand_id == hid
    assert sum(balances.values()) == 0 and any(balances.values())

    assert await c.bus.publish(outcome_msg.subject, outcome_msg.data, f"outcome:{hid}") is False
    assert await c.bus.publish(outcome_msg.subject, outcome_msg.data, f"outcome:{hid}:x") is True
    dup = await c.settlement_loop.consumer.fetch(10, timeout_s=2)
    assert len(dup) == 1
    await c.settlement_loop.process(dup)
    redelivered = FakeMsg(outcome_msg.data, outcome_msg.subject, num_delivered=2)
    await c.settlement_loop.process([redelivered])
    await c.settlement_loop.process([redelivered])
    assert (redelivered.acks, redelivered.terms) == (2, 0)

    assert c.store.count_events() == events_settled
    assert _types(c, hid).count(g.HAND_SETTLED) == 1
    assert c.store.count_settlements() == 1
    assert c.store.list_transactions() == txs
    assert [t.kind for t in c.store.transactions_for(hid)] == ["settle"]
    assert c.store.balances() == balances
    assert c.store.get_settlement(hid) == settlement  # the first settled_at_ms stays
    await c.flush()
    assert await subject_counts(c.bus) == {"hand": 2, "outcome": 2, "settled": 1}
    assert await _consumer_state(c, "settlement") == (0, 0)
    assert metric("croupier_redeliveries_total", service="settlement") - counted["redelivered"] == 2

    # the hand still audits clean (extra rules seals over the same head are harmless)
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    rep = c.auditor().audit(hid)
    assert rep.verdict.value == "pass", (rep.reason, rep.message)

    # the hand was settled once, so it is counted once (rake, bets and payout totals on
    # the dashboards must not grow with every redelivery)
    record = settlement.record_json
    staked = sum(a for _, _, a in BETS)
    assert metric("croupier_hands_settled_total", variant=VARIANT) - counted["settled"] == 1
    assert metric("croupier_bets_minor_total", variant=VARIANT) - counted["bets"] == staked
    assert (
        metric("croupier_settlement_latency_seconds_count", variant=VARIANT) - counted["latency"]
        == 1
    )
    assert record["total_rake"] == 0


async def test_running_consumers_settle_a_republished_hand_once(cluster: Cluster) -> None:
    """The same, with the loops running as in production: the hand is published three
    times under three msg ids while the services are live."""
    c = cluster
    table = await c.open_table("idem_live")
    hid = await c.play_hand(table, bets=BETS)
    await c.wait_settled(1, timeout_s=10)
    await c.flush()
    msgs = await all_stream_messages(c.bus)
    (hand_msg,) = [m for m in msgs if m.subject.startswith("croupier.hand.")]
    events, balances = c.store.count_events(), c.store.balances()
    for k in range(3):
        await c.bus.publish(hand_msg.subject, hand_msg.data, f"hand:{hid}:{k}")
    # wait until the rule service and settlement have drained everything
    for _ in range(250):
        pending = [await _consumer_state(c, d) for d in ("rules_baccarat", "settlement")]
        if pending == [(0, 0), (0, 0)]:
            break
        await asyncio.sleep(0.02)
    assert pending == [(0, 0), (0, 0)]
    assert c.store.count_events() == events
    assert c.store.balances() == balances
    assert c.store.count_settlements() == 1
    assert len(c.store.list_transactions()) == 1
    await c.flush()
    assert await subject_counts(c.bus) == {"hand": 4, "outcome": 1, "settled": 1}


async def test_settlement_batches_settle_each_hand_once(idle_cluster: Cluster) -> None:
    """The settlement service writes a whole batch with one ledger insert and one
    settlements insert: the same hand twice in one batch, or again in a later batch,
    settles once; a hand the store refuses is dead-lettered without losing the others."""
    c = idle_cluster
    c.fix_seeds("settle-batches")
    table = await c.open_table("batch")
    hids = [await c.play_hand(table, bets=BETS) for _ in range(4)]
    await c.flush()
    await c.rules_loop.process(await c.rules_loop.consumer.fetch(10, timeout_s=2))
    await c.flush()
    outcomes = await c.settlement_loop.consumer.fetch(10, timeout_s=2)
    assert len(outcomes) == 4
    by_hand = {m.headers["Nats-Msg-Id"].removeprefix("outcome:"): m for m in outcomes}  # type: ignore[index]
    o = [by_hand[h] for h in hids]
    # hand 3 already has another settle transaction: the store refuses its settlement
    c.store.post(
        LedgerTx(
            idempotency_key=f"settle:{hids[2]}",
            hand_id=hids[2],
            postings=(Posting("player:x", 1), Posting("house:baccarat", -1)),
        ),
        1,
    )
    settled0 = metric("croupier_hands_settled_total", variant=VARIANT)
    twice = FakeMsg(o[0].data, o[0].subject)
    await c.settlement_loop.process([o[0], twice, o[1], o[2]])  # one batch
    assert (twice.acks, twice.terms) == (1, 0)
    assert c.store.count_settlements() == 2
    for h in hids[:2]:
        assert _types(c, h).count(g.HAND_SETTLED) == 1
        assert [t.kind for t in c.store.transactions_for(h)] == ["settle"]
    (dead,) = Outbox(c.store.engine).dead_letters("settlement")
    assert dead.payload == o[2].data and dead.reason
    with pytest.raises(NotFound):
        c.store.get_settlement(hids[2])
    assert g.HAND_SETTLED not in _types(c, hids[2])
    balances = c.store.balances()
    first = c.store.get_settlement(hids[0])

    # across batches: hand 1 again next to hand 4
    again = FakeMsg(o[0].data, o[0].subject, num_delivered=2)
    await c.settlement_loop.process([again, o[3]])
    assert (again.acks, again.terms) == (1, 0)
    assert c.store.count_settlements() == 3
    assert _types(c, hids[0]).count(g.HAND_SETTLED) == 1
    assert [t.kind for t in c.store.transactions_for(hids[0])] == ["settle"]
    assert c.store.get_settlement(hids[0]) == first
    moved = {a: n - balances.get(a, 0) for a, n in c.store.balances().items()}
    fourth = {p.account: p.amount for p in c.store.transaction_for(hids[3]).postings}
    assert {a: n for a, n in moved.items() if n} == {a: n for a, n in fourth.items() if n}
    assert len(Outbox(c.store.engine).dead_letters("settlement")) == 1
    assert metric("croupier_hands_settled_total", variant=VARIANT) - settled0 == 3
