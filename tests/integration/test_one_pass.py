"""Rules and settlement in one pass (``croupier serve rules-settlement``): one replay a
hand, the outcome and the settlement in one transaction, no ``outcome`` message.

What must hold: the same hands give byte for byte the same ``hand.outcome`` and
``hand.settled`` events, settlement records and postings as the two stages do, for
every variant; every hand is settled once, redelivered or not; the auditor passes them;
a node in one pass settles the outcome messages a two-stage rule service left; and the
stage stops taking work when either of its two keys is revoked."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.bus import wire
from croupier.errors import ConfigError
from croupier.games import base as g
from croupier.games.registry import variants
from croupier.pb.croupier.v1 import audit_pb2, gateway_pb2
from croupier_services import keys as k
from croupier_services.consumer import IntegrityChecker
from croupier_services.rules import RulesService
from croupier_services.settlement import SettlementWorker

from .harness import (
    VARIANT,
    ClusterFactory,
    FakeMsg,
    all_stream_messages,
    metric,
    play_variants,
    subject_counts,
    wait_subjects,
)
from .test_healing import deal, node, until

pytestmark = pytest.mark.integration

HANDS = 2


async def test_one_pass_gives_the_two_stages_results_byte_for_byte_in_every_variant(
    cluster_factory: ClusterFactory,
) -> None:
    games = variants()
    c = await cluster_factory(variants=games)  # two stages, as deployed by default
    await play_variants(c, games, HANDS, seed=31)
    await c.wait_settled(HANDS * len(games), timeout_s=120)

    # the same hand messages, through the one-pass handler (nothing committed)
    one = RulesService(
        c.store,
        c.bus,
        c.signers["rules"],
        games,
        trust=c.trust,
        settle=SettlementWorker(c.store, c.bus, c.signers["settlement"], trust=c.trust),
    )
    checker = IntegrityChecker(c.trust, "rules")
    hands = [m for m in await all_stream_messages(c.bus) if m.subject.split(".")[1] == "hand"]
    assert len(hands) == HANDS * len(games)
    seen: set[str] = set()
    for msg in hands:
        w = one.handle(checker.check(wire.decode(msg.data)))
        outcome, settled = w.events
        hid = outcome.stream
        stored = {e.type: e for e in c.store.read_stream(hid)}
        assert outcome.type == g.HAND_OUTCOME and settled.type == g.HAND_SETTLED
        assert outcome.hash == stored[g.HAND_OUTCOME].hash, hid
        assert settled.hash == stored[g.HAND_SETTLED].hash, hid
        assert settled.payload_bytes == stored[g.HAND_SETTLED].payload_bytes, hid
        row = c.store.get_settlement(hid)
        hs = w.extra["hs"]
        assert hs.record_bytes == row.record, hid
        posted = sorted((p.account, p.amount) for p in c.store.postings(row.tx_id))
        assert sorted(hs.postings) == posted, hid
        # the message it publishes is the two stages' settled message, less its seal
        assert w.publish is not None and w.publish[1] == "settled"
        assert [e.hash for e in w.publish[2]] == [outcome.hash, settled.hash]
        seen.add(str(hs.variant))
    assert seen == set(games)


async def test_a_one_pass_cluster_settles_each_hand_once_and_publishes_no_outcome(
    cluster_factory: ClusterFactory,
) -> None:
    c = await cluster_factory(one_pass=True)
    settled_before = metric("croupier_hands_settled_total", variant=VARIANT)
    table = await c.open_table("onepass")
    hands = [
        await c.play_hand(
            table, bets=((1, "banker", 10_000), (2, "player", 5_000), (3, "tie", 1_000))
        )
        for _ in range(6)
    ]
    await c.wait_settled(6)
    await c.flush()
    counts = await subject_counts(c.bus)
    assert counts.get("outcome", 0) == 0, counts
    assert counts["hand"] == 6 and counts["settled"] == 6, counts
    assert metric("croupier_hands_settled_total", variant=VARIANT) - settled_before == 6

    # each hand's events: the dealer's, then the rule service's outcome and settlement's
    # settled, each covered by a seal of its own producer
    for hid in hands:
        evs = c.store.read_stream(hid)
        assert [e.type for e in evs[-2:]] == [g.HAND_OUTCOME, g.HAND_SETTLED]
        producers = {s.producer for s in c.store.seals_for(hid)}
        assert {"dealer", "rules", "settlement"} <= producers, producers

    # redelivered (a crash between the commit and the acks): settled once, nothing new
    await c.stop_consumers()
    msgs = [m for m in await all_stream_messages(c.bus) if m.subject.split(".")[1] == "hand"]
    fakes = [FakeMsg(bytes(m.data), m.subject, num_delivered=2) for m in msgs]
    with c.store.engine.connect() as conn:
        txs = conn.execute(sa.text("SELECT count(*) FROM ledger_transactions")).scalar_one()
    await c.rules_loop.process(fakes)  # type: ignore[arg-type]
    assert [(f.acks, f.terms) for f in fakes] == [(1, 0)] * 6
    assert c.store.count_settlements() == 6
    with c.store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM ledger_transactions")).scalar_one() == txs
        assert conn.execute(sa.text("SELECT sum(amount) FROM ledger_postings")).scalar_one() == 0
    assert metric("croupier_hands_settled_total", variant=VARIANT) - settled_before == 6

    # the shoe revealed, the auditor passes every hand
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    verdicts = set()
    async for resp in c.au.VerifyRange(audit_pb2.VerifyRangeRequest(table_id=table)):
        assert resp.report.ok, (resp.report.hand_id, resp.report.reason, resp.report.message)
        verdicts.add(audit_pb2.AuditVerdict.Name(resp.report.verdict))
    assert verdicts == {"AUDIT_VERDICT_PASS"}


async def test_a_one_pass_node_settles_what_a_two_stage_rule_service_left(
    tmp_path: Path,
) -> None:
    from croupier.bus.embedded import EmbeddedNats

    nats = EmbeddedNats().start()
    try:
        # two stages, settlement not running: three hands wait as outcome messages
        first = await node(tmp_path, nats.url, "dealer", "rules").start()
        assert first.store is not None
        try:
            await until(lambda: len(first.loops) == 1, what="rules loop")
            await deal(first, "t1", 3)
            await until(
                lambda: (
                    sum(
                        1
                        for i in first.store.list_streams(kind="hand")  # type: ignore[union-attr]
                        if first.store.read_stream(i.stream_id)[-1].type  # type: ignore[union-attr]
                        == g.HAND_OUTCOME
                    )
                    == 3
                ),
                what="3 outcomes",
            )
        finally:
            await first.stop()
        dealer = await node(tmp_path, nats.url, "dealer").start()
        stage = node(tmp_path, nats.url, "rules", "settlement")
        stage.fuse = True
        await stage.start()
        assert stage.store is not None
        try:
            await until(lambda: len(stage.loops) == 2, what="the stage's loops")
            await deal(dealer, "t1", 3)  # three more, settled in one pass
            await until(lambda: stage.store.count_settlements() == 6, what="6 settled")  # type: ignore[union-attr]
            assert stage.buses
            # the three left as outcome messages settled by the stage's settlement loop
            await wait_subjects(
                next(iter(stage.buses.values())), {"hand": 6, "outcome": 3, "settled": 6}
            )
            # either key revoked: the one-pass loops take no work
            rules_loops = [lp for lp in stage.loops if lp.durable.startswith("rules_")]
            assert rules_loops and all(lp.signing_check is not None for lp in rules_loops)
            assert all(lp.signing_check() is None for lp in rules_loops)  # type: ignore[misc]
            settlement_key = k.load_service_signers(tmp_path / "keys", "settlement")
            k.revoke_key(tmp_path / "keys", settlement_key["settlement"].key_id)
            assert stage.trust is not None and stage.trust.refresh(force=True)
            assert all(lp.signing_check() for lp in rules_loops)  # type: ignore[misc]
        finally:
            await stage.stop()
            await dealer.stop()
    finally:
        nats.stop()


async def test_one_pass_needs_both_roles_in_the_node(tmp_path: Path) -> None:
    n = node(tmp_path, "nats://127.0.0.1:1", "rules")
    n.fuse = True
    with pytest.raises(ConfigError, match="both roles"):
        await n.start()
