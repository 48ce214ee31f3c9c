"""Dealer replica failover over real processes (:mod:`tests.chaos.replicas`): two
``croupier serve dealer`` replicas with a 1.5 s lease, rules and settlement, on the
embedded nats-server and SQLite (PostgreSQL when ``CROUPIER_TEST_DATABASE_URL`` is set).

* ``kill -9`` of the owner mid-hand (bets placed): the gateway's next call reaches the
  other replica, which takes the table once the lease has run out, rebuilds the open
  hand with its bets from the log and completes it — within the lease TTL + 2 s;
* ``SIGSTOP`` of the owner past its TTL: the other replica takes over on the next call;
  after ``SIGCONT`` the paused replica's late write is refused, its stale token is
  refused by the store, and it drops the table when its renewal fails — and the same
  with the owner stopped inside its renewal's transaction, holding the lease row's lock
  (PostgreSQL ends that session after ``PAUSED_HOLDER_LIMIT_MS`` idle);
* ``SIGTERM`` (a planned drain): the replica releases its leases, the other takes over
  without waiting for expiry, and no gateway call fails meanwhile.

Each ends with every closed hand settled exactly once, nothing doubled, the ledger
zero-sum and every hand passing its audit."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa

from croupier.errors import StaleFencingToken
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.store import Store
from croupier.store.leases import PAUSED_HOLDER_LIMIT_MS
from croupier_services.gateway_client import GatewayClient
from croupier_services.grpc_util import error_info

from .replicas import (
    VARIANT,
    ReplicaCluster,
    database,
    kill_owner_mid_hand,
    open_with_bets,
    play_hand,
    running,
)

pytestmark = [pytest.mark.integration, pytest.mark.chaos]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ReplicaCluster]:
    os.chmod(tmp_path, 0o755)
    with running(ReplicaCluster(tmp_path, database(tmp_path))) as c:
        yield c


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
        await kill_owner_mid_hand(c, gw, "fo", rng)  # the hand A never closes, B does
        owner, token = lease_of(c, "fo")
        assert owner == "dealer-b" and token == 2
        await play_hand(gw, "fo", rng)  # B goes on dealing the table
        await gw.CloseTable(gateway_pb2.CloseTableRequest(table_id="fo"))
    finally:
        await c.close_channels()
    check_books(c, 4)


async def test_sigstop_past_the_ttl_then_sigcont(cluster: ReplicaCluster) -> None:
    c = cluster
    rng = random.Random(8)
    gw = c.gateway()
    a = c.procs["dealer-a"]
    assert a.popen is not None
    try:
        hand, old_token, lost_before = await a_hand_with_bets_at_a(c, gw, "st", rng)
        os.kill(a.popen.pid, signal.SIGSTOP)
        await take_over_and_go_on(c, "st", hand, old_token, lost_before, rng, slack_s=0.0)
    finally:
        await c.close_channels()
    check_books(c, 3)


async def test_sigstop_inside_a_transaction_holding_the_lease_row(
    cluster: ReplicaCluster,
) -> None:
    """The owner stopped while its renewal holds the lease row's lock: to PostgreSQL a
    session idle in its transaction, which the server ends after
    ``PAUSED_HOLDER_LIMIT_MS`` (without that limit B's takeover waits on the lock for as
    long as A stays stopped). Staged exactly: the test locks the row, waits until A's
    renewal waits on it, stops A and lets the lock go, so A's stopped session is handed
    the row."""
    c = cluster
    if not c.db.url.startswith("postgresql"):
        pytest.skip(
            "PostgreSQL's idle-in-transaction limit; SQLite has no such remedy "
            "(croupier.store.leases): run with CROUPIER_TEST_DATABASE_URL"
        )
    rng = random.Random(10)
    gw = c.gateway()
    a = c.procs["dealer-a"]
    assert a.popen is not None
    store = Store.from_url(c.db.url)
    try:
        hand, old_token, lost_before = await a_hand_with_bets_at_a(c, gw, "lk", rng)
        lease_lock = "SELECT 1 FROM table_leases WHERE table_id = 'lk' FOR UPDATE"
        with store.engine.connect() as blocker, store.engine.connect() as probe:
            blocker.begin()
            blocker.exec_driver_sql(lease_lock)
            deadline = time.monotonic() + 10
            waiting = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE '%%table_leases%%FOR UPDATE%%'"
            )
            while not probe.exec_driver_sql(waiting).scalar_one():  # A's next renewal
                probe.rollback()
                assert time.monotonic() < deadline, "A's renewal never came for the row"
                await asyncio.sleep(0.02)
            probe.rollback()
            os.kill(a.popen.pid, signal.SIGSTOP)
            blocker.commit()  # the row goes to A's session, whose process is stopped
            await asyncio.sleep(0.1)
            with pytest.raises(sa.exc.OperationalError, match="lock"):  # A holds it now
                probe.exec_driver_sql("SET LOCAL lock_timeout = 50")
                probe.exec_driver_sql(lease_lock)
            probe.rollback()
        await take_over_and_go_on(
            c, "lk", hand, old_token, lost_before, rng, slack_s=PAUSED_HOLDER_LIMIT_MS / 1000
        )
    finally:
        store.close()
        await c.close_channels()
    check_books(c, 3)


async def a_hand_with_bets_at_a(
    c: ReplicaCluster, gw: GatewayClient, table: str, rng: random.Random
) -> tuple[str, int, float]:
    """Open ``table`` (owned by replica A), play a hand and open another with bets;
    returns that hand, A's fencing token and A's count of lost leases, read before A is
    stopped (a stopped process answers no scrape)."""
    await gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant=VARIANT))
    await play_hand(gw, table, rng)
    hand = await open_with_bets(gw, table, rng)
    owner, token = lease_of(c, table)
    assert owner == "dealer-a"
    lost = c.procs["dealer-a"].metric("croupier_dealer_leases_lost_total")
    assert lost == lost  # a number, not NaN
    return hand, token, lost


async def take_over_and_go_on(
    c: ReplicaCluster,
    table: str,
    hand: str,
    old_token: int,
    lost_before: float,
    rng: random.Random,
    slack_s: float,
) -> None:
    """With the owner A stopped (``SIGSTOP``) and a hand open with bets on ``table``: a
    late call reaches A; the gateway's call at B completes once A's lease ran out (within
    the TTL + 2 s + one deadline spent at A + ``slack_s``); after ``SIGCONT`` A's late
    write and its old token are refused, A drops the table, and play goes on at B."""
    a = c.procs["dealer-a"]
    assert a.popen is not None
    bets = c.event_types(hand).count("bets.placed")
    # a late write: a call that reaches A while it is stopped, answered after SIGCONT
    late = asyncio.ensure_future(
        c.stub(c.address("dealer-a")).CloseBetting(
            gateway_pb2.CloseBettingRequest(hand_id=hand, request_id="late-close"),
            timeout=60,
        )
    )
    # a gateway whose shared address is B: B names A until the lease runs out, A
    # does not answer (the deadline), the client comes back to B, which takes over
    gw_b = c.gateway(home=c.address("dealer-b"), timeout_s=1.0)
    t0 = time.monotonic()
    r = await gw_b.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hand))
    takeover_s = time.monotonic() - t0
    print(f"takeover after SIGSTOP: {takeover_s:.2f} s (lease TTL {c.ttl_ms} ms)")
    assert r.view.phase != "open"
    assert takeover_s <= c.ttl_ms / 1000 + 2.0 + 1.0 + slack_s  # + a deadline spent at A
    assert lease_of(c, table) == ("dealer-b", old_token + 1)
    os.kill(a.popen.pid, signal.SIGCONT)
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await late
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    info = error_info(e.value)
    assert info is not None
    assert info.reason in ("table_owned_elsewhere", "stale_fencing_token")
    if info.reason == "table_owned_elsewhere":
        assert dict(info.metadata)["owner"] == "dealer-b"
    # A's old token is refused where the writes land
    store = Store.from_url(c.db.url)
    try:
        with pytest.raises(StaleFencingToken), store.transaction() as tx:
            tx.fence(table, old_token)
    finally:
        store.close()
    # A's renewal fails and it drops the table from memory
    deadline = time.monotonic() + 10
    while not a.metric("croupier_dealer_leases_lost_total") > lost_before:  # NaN: not yet
        assert time.monotonic() < deadline, "A never noticed its lease was lost"
        await asyncio.sleep(0.2)
    assert "table dropped from memory" in a.log.read_text(errors="replace")
    # the gateway goes on at B (A, asked, routes there)
    await play_hand(c.gateway(), table, rng)
    await gw_b.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    types = c.event_types(hand)
    assert types.count("bets.placed") == bets and types.count("hand.closed") == 1


async def test_sigterm_drain_hands_the_tables_over(cluster: ReplicaCluster) -> None:
    c = cluster
    rng = random.Random(9)
    gw = c.gateway()
    a = c.procs["dealer-a"]
    played: list[tuple[float, str]] = []
    errors: list[BaseException] = []
    stop = asyncio.Event()
    try:
        await gw.OpenTable(gateway_pb2.OpenTableRequest(table_id="dr", variant=VARIANT))
        assert lease_of(c, "dr")[0] == "dealer-a"

        async def loop() -> None:
            while not stop.is_set():
                try:
                    played.append((time.monotonic(), await play_hand(gw, "dr", rng)))
                except BaseException as e:  # any failure the gateway saw
                    errors.append(e)
                    return

        task = asyncio.ensure_future(loop())
        while len(played) < 3:
            await asyncio.sleep(0.05)
        t0 = time.monotonic()
        await asyncio.to_thread(a.stop)  # SIGTERM, waits for the exit
        assert a.popen is not None and a.popen.returncode == 0
        n0 = len(played)
        deadline = time.monotonic() + 30
        while len(played) < n0 + 3 and not errors:
            assert time.monotonic() < deadline, "no hands after the drain"
            await asyncio.sleep(0.05)
        stop.set()
        await task
        assert errors == []
        times = [t for t, _ in played]
        gap = max(b - a for a, b in itertools.pairwise(times) if b > t0)
        print(f"longest gap between hands across the drain: {gap:.2f} s (TTL {c.ttl_ms} ms)")
        # the gap is the old owner's grace for in-flight calls (1 s) and the gateway
        # channel's reconnection, not the lease running out
        assert gap < c.ttl_ms / 1000 + 2.0
        assert lease_of(c, "dr")[0] == "dealer-b"
        assert "released 1 table leases" in a.log.read_text(errors="replace")
        await gw.CloseTable(gateway_pb2.CloseTableRequest(table_id="dr"))
    finally:
        stop.set()
        await c.close_channels()
    check_books(c, len(played))
