"""Every one of the 30 variants over the real transport and store (JetStream and
PostgreSQL when the environment names them): the demo's players play a few hands of
each through the gateway's gRPC API (bets, decisions, timeouts), the rule service of
each variant and settlement consume them, and the auditor passes every hand."""

from __future__ import annotations

from collections import defaultdict

import pytest

from croupier.games.registry import variants
from croupier.pb.croupier.v1 import audit_pb2

from .harness import ClusterFactory, play_variants

pytestmark = pytest.mark.integration

HANDS = 2


async def test_every_variant_through_the_cluster(cluster_factory: ClusterFactory) -> None:
    games = variants()
    assert len(games) == 30
    c = await cluster_factory(variants=games)
    await play_variants(c, games, HANDS, seed=30)
    # every mutating call the players made carried a request id, stored with its effect
    assert c.store.count_requests() >= len(games) * (2 + 2 * HANDS)
    await c.wait_settled(HANDS * len(games), timeout_s=120)
    verdicts: dict[str, set[str]] = defaultdict(set)
    for v in games:
        async for resp in c.au.VerifyRange(audit_pb2.VerifyRangeRequest(variant=v)):
            rep = resp.report
            assert rep.ok, (v, rep.hand_id, rep.reason, rep.message)
            verdicts[v].add(audit_pb2.AuditVerdict.Name(rep.verdict))
    assert set(verdicts) == set(games)
    # every table was closed, so every shoe is revealed and every hand fully audited
    assert all(vs == {"AUDIT_VERDICT_PASS"} for vs in verdicts.values()), verdicts
