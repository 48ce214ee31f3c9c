"""Every service replicated, over a 3-node JetStream cluster, in one run with faults
(:mod:`tests.chaos.replicas`): two dealer replicas owning tables by lease (1.5 s),
two rules replicas and two settlement replicas sharing their durable consumers, the
stream at R3; SQLite, or PostgreSQL in a database of its own when
``CROUPIER_TEST_DATABASE_URL`` is set. Gateways (:class:`GatewayClient`, request ids)
play baccarat at tables owned by each dealer replica throughout, while:

* the dealer replica owning a table is killed with ``kill -9`` mid-hand (bets placed):
  the other replica owns the table within the lease TTL + 2 s and completes the hand
  with its bets;
* the nats-server leading the stream is killed with ``kill -9`` and left down: the
  other two keep the stream, dealing and settlement go on;
* one rules and one settlement replica are killed with ``kill -9``: the survivors take
  their share of the durable consumers, and what the dead ones held is redelivered;
* hands already settled come round again: copies of closed hands' and outcomes'
  messages are published under new message ids (what a replica that committed and died
  before its ack leaves behind, whenever the kill lands in that window).

Nothing is restarted. Afterwards every hand played is settled exactly once (one
settlement, one ledger transaction each), the ledger is zero-sum, ``croupier audit --all``
passes over the whole log, and no gateway call failed but those the client retried with
the same request id."""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from croupier.bus import subjects
from croupier.bus.embedded import EmbeddedCluster
from croupier.bus.jetstream import Bus
from croupier.pb.croupier.v1 import gateway_pb2
from croupier_services.gateway_client import GatewayClient

from .drill import kill_stream_leader
from .replicas import (
    VARIANT,
    ReplicaCluster,
    database,
    kill_owner_mid_hand,
    play_hand,
    running,
)

pytestmark = [pytest.mark.integration, pytest.mark.chaos]

TABLES_A = ("ca0", "ca1")  # opened through the shared address: dealer-a owns them
TABLES_B = ("cb0",)  # opened through dealer-b's own address: dealer-b owns it
KILL_TABLE = "ck"  # the table whose owner dies mid-hand (dealer-a)
SETTINGS = {
    # what a killed rules or settlement replica held comes back to the survivor after
    # this long (the default, 10 s, would only make the run longer)
    "CROUPIER_CONSUMER_ACK_WAIT_S": "3",
    "CROUPIER_STALL_AFTER_S": "20",
    "CROUPIER_UNVERIFIABLE_PAUSE_S": "3",
}


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ReplicaCluster]:
    os.chmod(tmp_path, 0o755)
    c = ReplicaCluster(
        tmp_path,
        database(tmp_path),
        nats_nodes=3,
        rules_replicas=2,
        settlement_replicas=2,
        extra_env=SETTINGS,
    )
    with running(c):
        yield c


class Gateways:
    """One gateway client per table, each playing hands in a loop until stopped; a call
    the client gave up on (after its retries with the same request id) is recorded and
    ends that table's loop."""

    def __init__(self, c: ReplicaCluster) -> None:
        self.c = c
        self.clients: dict[str, GatewayClient] = {}
        self.played: dict[str, list[str]] = {}
        self.errors: list[str] = []
        self.stop = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self, table: str, client: GatewayClient) -> None:
        self.clients[table] = client
        self.played[table] = []
        await client.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant=VARIANT))

    def start(self, tables: tuple[str, ...]) -> None:
        for t in tables:
            self.tasks.append(asyncio.ensure_future(self._loop(t)))

    async def _loop(self, table: str) -> None:
        rng = random.Random(table)
        while not self.stop.is_set():
            try:
                self.played[table].append(await play_hand(self.clients[table], table, rng))
            except Exception as e:  # a call the client gave up on
                self.errors.append(f"{table}: {e!r}")
                return

    def hands(self) -> int:
        return sum(len(h) for h in self.played.values())

    async def progress(self, more: int, timeout_s: float = 30) -> None:
        """Until ``more`` hands more have been played (or a loop failed)."""
        goal = self.hands() + more
        deadline = time.monotonic() + timeout_s
        while self.hands() < goal and not self.errors:
            assert time.monotonic() < deadline, f"no progress: {self.hands()} < {goal}"
            await asyncio.sleep(0.1)

    async def finish(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks)
        for t, client in self.clients.items():
            await client.CloseTable(gateway_pb2.CloseTableRequest(table_id=t))


def lease_owner(c: ReplicaCluster, table: str) -> str:
    rows = c.query(f"SELECT owner FROM table_leases WHERE table_id = '{table}'")
    assert rows, f"no lease on {table}"
    return str(rows[0][0])


def consumed(c: ReplicaCluster, name: str) -> float:
    return c.procs[name].metric("croupier_events_consumed_total")


async def wait_until(what: str, ok: Callable[[], bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not await asyncio.to_thread(ok):
        assert time.monotonic() < deadline, f"not after {timeout_s}s: {what}"
        await asyncio.sleep(0.2)


async def republish(c: ReplicaCluster, kinds: tuple[str, ...], each: int) -> int:
    """Copies of the stream's first ``each`` messages of every kind in ``kinds`` (hands
    closed, outcomes), under new message ids so the stream keeps them: deliveries of
    work already done, as a redelivery brings it. Returns how many."""
    assert c.nats is not None
    bus = await Bus.connect(c.nats.url, name="chaos-copies")
    try:
        sent = 0
        for kind in kinds:
            seq = 0
            for _ in range(each):
                m = await bus.js.get_msg(
                    subjects.STREAM, seq=seq + 1, subject=subjects.filter_for(kind), next=True
                )
                assert m.subject is not None and m.data is not None and m.seq is not None
                await bus.publish(m.subject, m.data, f"copy:{uuid.uuid4().hex}")
                seq, sent = m.seq, sent + 1
        return sent
    finally:
        await bus.close()


async def wait_consumed(c: ReplicaCluster, timeout_s: float) -> None:
    """Until the rules and settlement durable consumers have nothing pending and nothing
    awaiting an ack: every message taken and done with."""
    assert c.nats is not None
    bus = await Bus.connect(c.nats.url, name="chaos-probe")
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            left = {}
            for d in (f"rules_{VARIANT}", "settlement"):
                ci = await bus.js.consumer_info(subjects.STREAM, d)
                if ci.num_pending or ci.num_ack_pending:
                    left[d] = (ci.num_pending, ci.num_ack_pending)
            if not left:
                return
            assert time.monotonic() < deadline, f"consumers not drained: {left}"
            await asyncio.sleep(0.2)
    finally:
        await bus.close()


def settled(c: ReplicaCluster) -> int:
    return c.counts()["settled"]


async def settled_once(
    c: ReplicaCluster, hands: list[str], again: tuple[str, ...], t_start: float
) -> dict[str, int]:
    """Once ``hands`` are settled, ten messages of each kind of ``again`` are published
    again (work already done); when the consumers have taken everything, each hand must
    be settled exactly once (no second outcome, settlement or ledger transaction), the
    ledger zero-sum and every outbox drained. Returns the store's counts."""
    await asyncio.to_thread(c.wait_settled, 60)
    copies = await republish(c, again, 10)
    assert copies == 10 * len(again)
    await wait_consumed(c, 60)
    counts = await asyncio.to_thread(c.counts)
    print(f"{len(hands)} hands in {time.monotonic() - t_start:.1f} s; {counts}")
    # nothing stuck: every message committed to an outbox reaches the stream
    await wait_until(
        "outbox drained",
        lambda: not c.query("SELECT producer, count(*) FROM outbox GROUP BY producer"),
    )
    assert counts["closed"] == len(hands) == counts["settled"] == counts["closed_events"]
    assert counts["double_outcomes"] == counts["double_settled"] == 0, counts
    assert counts["double_ledger"] == 0 and counts["single_ledger"] == len(hands), counts
    assert counts["ledger_sum"] == 0 and counts["unbalanced_tx"] == 0, counts
    per_hand = dict(c.query("SELECT hand_id, count(*) FROM settlements GROUP BY hand_id"))
    assert per_hand == dict.fromkeys(hands, 1)
    return counts


async def test_replicas_of_every_service_survive_their_faults(cluster: ReplicaCluster) -> None:
    c = cluster
    assert isinstance(c.nats, EmbeddedCluster)
    t_start = time.monotonic()
    pids = {n: list(p.pids) for n, p in c.procs.items()}
    g = Gateways(c)
    rng = random.Random(12)
    kill_hands: list[str] = []
    try:
        for t in (*TABLES_A, KILL_TABLE):
            await g.open(t, c.gateway())
        for t in TABLES_B:
            await g.open(t, c.gateway(home=c.address("dealer-b")))
        assert {t: lease_owner(c, t) for t in g.clients} == {
            **dict.fromkeys((*TABLES_A, KILL_TABLE), "dealer-a"),
            **dict.fromkeys(TABLES_B, "dealer-b"),
        }
        g.start((*TABLES_A, *TABLES_B))
        # both replicas of rules and of settlement take work from the shared consumers
        await wait_until(
            "every rules and settlement replica consumed",
            lambda: all(
                consumed(c, n) > 0 for n in ("rules-a", "rules-b", "settlement-a", "settlement-b")
            ),
        )
        await g.progress(4)

        # 1. kill -9 of the dealer replica owning KILL_TABLE, mid-hand
        kill_gw = g.clients[KILL_TABLE]
        kill_hands.append(await play_hand(kill_gw, KILL_TABLE, rng))
        kill_hands.append(await kill_owner_mid_hand(c, kill_gw, KILL_TABLE, rng))
        assert lease_owner(c, KILL_TABLE) == "dealer-b"
        kill_hands.append(await play_hand(kill_gw, KILL_TABLE, rng))
        await g.progress(3)
        assert {lease_owner(c, t) for t in g.clients} == {"dealer-b"}

        # 2. kill -9 of the nats-server leading the stream, left down
        before = await asyncio.to_thread(settled, c)
        leader = await kill_stream_leader(c.nats)
        print(f"killed the stream leader {leader}")
        await g.progress(4)
        await wait_until("settlement after the leader died", lambda: settled(c) > before + 2)

        # 3. kill -9 of one rules and one settlement replica, mid-run
        c.procs["rules-a"].kill9()
        await g.progress(2)
        c.procs["settlement-a"].kill9()
        before = await asyncio.to_thread(settled, c)
        await g.progress(4)
        await wait_until("settlement by the survivors", lambda: settled(c) > before + 2)

        await g.finish()
        assert g.errors == []
        retries = sum(gw.retries for gw in g.clients.values())
        redirects = sum(gw.redirects for gw in g.clients.values())
        print(f"gateway: {retries} retries with the same request id, {redirects} redirects")
        assert retries + redirects > 0  # the dealer's death was seen, and absorbed
    finally:
        g.stop.set()
        await c.close_channels()

    hands = [h for hs in g.played.values() for h in hs] + kill_hands
    # 4. work already done, delivered again; then nothing left for either consumer
    counts = await settled_once(c, hands, ("hand", "outcome"), t_start)
    per_hand_tx = dict(
        c.query(
            "SELECT hand_id, count(*) FROM ledger_transactions WHERE kind = 'settle' "
            "GROUP BY hand_id"
        )
    )
    assert per_hand_tx == dict.fromkeys(hands, 1)
    assert counts["dead_letters"] == 0, counts
    out = await asyncio.to_thread(c.cli, "audit", "--all")
    print(out[-2000:])
    assert f"audit: {len(hands)} hands ({len(hands)} pass)" in out
    # nothing was restarted: the survivors are the processes started at the beginning
    assert {n: p.pids for n, p in c.procs.items()} == pids
    for n in ("dealer-b", "rules-b", "settlement-b"):
        assert c.procs[n].alive, n
    assert not any(c.procs[n].alive for n in ("dealer-a", "rules-a", "settlement-a"))
