"""Dealer replica failover over real processes (:mod:`tests.chaos.replicas`): two
``croupier serve dealer`` replicas with a 1.5 s lease, rules and settlement, on the
embedded nats-server and SQLite (PostgreSQL when ``CROUPIER_TEST_DATABASE_URL`` is set).

* ``kill -9`` of the owner mid-hand (bets placed): the gateway's next call reaches the
  other replica, which takes the table once the lease has run out, rebuilds the open
  hand with its bets from the log and completes it — within the lease TTL + 2 s;
* ``SIGSTOP`` of the owner past its TTL: the other replica takes over on the next call;
  after ``SIGCONT`` the paused replica's late write is refused, its stale token is
  refused by the store, and it drops the table when its renewal fails;
* ``SIGTERM`` (a planned drain): the replica releases its leases, the other takes over
  without waiting for expiry, and no gateway call fails meanwhile.

Each ends with every closed hand settled exactly once, nothing doubled, the ledger
zero-sum and every hand passing its audit."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.pb.croupier.v1 import gateway_pb2

from .replicas import VARIANT, ReplicaCluster, database, open_with_bets, play_hand

pytestmark = [pytest.mark.integration, pytest.mark.chaos]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ReplicaCluster]:
    os.chmod(tmp_path, 0o755)
    c = ReplicaCluster(tmp_path, database(tmp_path))
    try:
        c.start()
        yield c
    except BaseException:
        print(c.logs())
        raise
    finally:
        c.close()


def lease_of(c: ReplicaCluster, table: str) -> tuple[str, int]:
    rows = c.query(f"SELECT owner, token FROM table_leases WHERE table_id = '{table}'")
    assert rows, f"no lease on {table}"
    return str(rows[0][0]), int(rows[0][1])


def check_books(c: ReplicaCluster, hands: int) -> dict[str, int]:
    counts = c.wait_settled()
    assert counts["closed"] == hands == counts["settled"] == counts["closed_events"], counts
    assert counts["double_outcomes"] == counts["double_settled"] == 0, counts
    assert counts["double_ledger"] == 0 and counts["ledger_sum"] == 0, counts
    assert c.audit() == {"pass": hands}
    return counts


async def test_kill_9_of_the_owner_mid_hand(cluster: ReplicaCluster) -> None:
    c = cluster
    rng = random.Random(7)
    gw = c.gateway()
    try:
        await gw.OpenTable(gateway_pb2.OpenTableRequest(table_id="fo", variant=VARIANT))
        for _ in range(2):
            await play_hand(gw, "fo", rng)
        assert lease_of(c, "fo")[0] == "dealer-a"
        hand = await open_with_bets(gw, "fo", rng)  # the hand A never closes
        bets = c.event_types(hand).count("bet.placed")
        assert bets > 0
        c.procs["dealer-a"].kill9()
        t0 = time.monotonic()
        r = await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hand))
        takeover_s = time.monotonic() - t0
        print(f"takeover after kill -9: {takeover_s:.2f} s (lease TTL {c.ttl_ms} ms)")
        assert r.view.phase != "open"
        assert takeover_s <= c.ttl_ms / 1000 + 2.0
        owner, token = lease_of(c, "fo")
        assert owner == "dealer-b" and token == 2
        types = c.event_types(hand)
        assert types.count("bet.placed") == bets and types.count("hand.closed") == 1
        await play_hand(gw, "fo", rng)  # B goes on dealing the table
        await gw.CloseTable(gateway_pb2.CloseTableRequest(table_id="fo"))
    finally:
        await c.close_channels()
    check_books(c, 4)
