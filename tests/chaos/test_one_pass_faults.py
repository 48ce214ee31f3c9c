"""Rules and settlement in one pass, through a ``kill -9``, over real processes: two
dealer replicas and two ``croupier serve rules-settlement`` replicas (``stage-a``,
``stage-b``) sharing the rule service's durable consumer, on the embedded nats-server
and SQLite (PostgreSQL when ``CROUPIER_TEST_DATABASE_URL`` is set).

Gateways play hands at two tables throughout. ``stage-a`` is killed with ``kill -9``
mid-run: what it held comes back to ``stage-b`` after the ack wait and is settled
there; ``stage-a`` started again takes work again; then copies of hands already settled
arrive under new message ids (as a redelivery brings them). At the end every closed
hand is settled exactly once with one ledger transaction, the ledger is zero-sum, no
``outcome`` message was ever published, nothing was dead-lettered, the outboxes are
drained and the auditor passes every hand."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.bus import subjects
from croupier.bus.jetstream import Bus

from .replicas import ReplicaCluster, database, running
from .test_cluster import Gateways, consumed, settled, settled_once, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.chaos]

TABLES = ("oa", "ob")
SETTINGS = {
    # what the killed stage held comes back to the survivor after this long
    "CROUPIER_CONSUMER_ACK_WAIT_S": "3",
    "CROUPIER_STALL_AFTER_S": "20",
}


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ReplicaCluster]:
    os.chmod(tmp_path, 0o755)
    c = ReplicaCluster(tmp_path, database(tmp_path), one_pass_replicas=2, extra_env=SETTINGS)
    with running(c):
        yield c


async def kinds_on_stream(c: ReplicaCluster) -> dict[str, int]:
    assert c.nats is not None
    bus = await Bus.connect(c.nats.url, name="chaos-kinds")
    try:
        info = await bus.js.stream_info(subjects.STREAM, subjects_filter=f"{subjects.PREFIX}.>")
        out: dict[str, int] = {}
        for subj, n in (info.state.subjects or {}).items():
            out[subj.split(".")[1]] = out.get(subj.split(".")[1], 0) + n
        return out
    finally:
        await bus.close()


async def test_one_pass_replicas_settle_each_hand_once_through_a_kill_9(
    cluster: ReplicaCluster,
) -> None:
    c = cluster
    t_start = time.monotonic()
    g = Gateways(c)
    try:
        for t in TABLES:
            await g.open(t, c.gateway())
        g.start(TABLES)
        await g.progress(6)
        await wait_until(
            "both stages took work", lambda: all(consumed(c, n) > 0 for n in ("stage-a", "stage-b"))
        )

        # kill -9 of one stage, mid-run: the survivor settles on, what it held included
        c.procs["stage-a"].kill9()
        before = await asyncio.to_thread(settled, c)
        await g.progress(6)
        await wait_until("settlement by the survivor", lambda: settled(c) > before + 3)

        # started again, it takes its share of the work again
        c.procs["stage-a"].start()
        await asyncio.to_thread(c.wait_ready, ["stage-a"])
        await g.progress(6)
        await wait_until("the restarted stage takes work", lambda: consumed(c, "stage-a") > 0)

        await g.finish()
        assert g.errors == []
    finally:
        g.stop.set()
        await c.close_channels()

    hands = [h for hs in g.played.values() for h in hs]
    counts = await settled_once(c, hands, ("hand",), t_start)  # settled hands again
    assert counts["dead_letters"] == 0, counts
    kinds = await kinds_on_stream(c)
    assert kinds.get("outcome", 0) == 0, kinds  # one pass: no outcome message, ever
    assert kinds["settled"] >= len(hands), kinds
    out = await asyncio.to_thread(c.cli, "audit", "--all")
    assert f"audit: {len(hands)} hands ({len(hands)} pass)" in out, out[-2000:]
    assert c.procs["stage-b"].alive and c.procs["stage-a"].alive
