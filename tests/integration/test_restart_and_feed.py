"""Restarts that recover everything from the store, and the durable table feed, over
real gRPC, the real nats-server and the real store (PostgreSQL too when the environment
names it).

A *restart* here replaces the dealer: the gateway server stops, a new
:class:`DealerCore` with an empty memory is built on the same store, recovers, and
serves on a new port; the rule and settlement consumers keep running as separate
processes would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from croupier.games import base as g
from croupier.games.registry import variants
from croupier.pb.croupier.v1 import (
    audit_pb2,
    gateway_pb2,
    gateway_pb2_grpc,
)
from croupier_services.demo import GrpcTables, Progress, Refusals, play_table
from croupier_services.views import redact_public

from .harness import Cluster, ClusterFactory, now_ms, restart_dealer, seat_entries, unique_table

pytestmark = pytest.mark.integration


class KeepTablesOpen:
    """The gateway as :func:`play_table` sees it, except that the table is neither
    opened (``reuse``: it is open already) nor closed at the end."""

    def __init__(self, gw: gateway_pb2_grpc.GatewayServiceStub, reuse: bool = False) -> None:
        self.gw, self.reuse = gw, reuse

    def __getattr__(self, name: str) -> Any:
        return getattr(self.gw, name)

    async def OpenTable(self, req: gateway_pb2.OpenTableRequest, **kw: Any) -> Any:
        if self.reuse:
            return gateway_pb2.OpenTableResponse(table_id=req.table_id)
        return await self.gw.OpenTable(req, **kw)

    async def CloseTable(self, req: gateway_pb2.CloseTableRequest, **kw: Any) -> Any:
        return gateway_pb2.CloseTableResponse()


async def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await call
    return ei.value.code()


async def test_tables_of_every_variant_survive_a_restart_and_closed_ones_reopen(
    cluster_factory: ClusterFactory,
) -> None:
    games = variants()
    assert len(games) == 30
    c = await cluster_factory(variants=games)
    rng = random.Random(13)
    staked: dict[str, int] = defaultdict(int)
    progress = Progress(4 * len(games), "")
    idle = {v: unique_table("i" + v.replace(".", "_")[:16]) for v in games}
    closed = {v: unique_table("c" + v.replace(".", "_")[:16]) for v in games}
    for v in games:
        # a table that played a hand and waits, idle, for the next; and a closed one
        await play_table(
            GrpcTables(KeepTablesOpen(c.gw)), v, idle[v], 4, 1, rng, progress, staked, Refusals()
        )
        await play_table(GrpcTables(c.gw), v, closed[v], 4, 1, rng, progress, staked, Refusals())
    before = {v: c.core.dealer.table(idle[v]).row() for v in games}

    tables, _ = await restart_dealer(c)
    assert tables == len(games)
    for v in games:
        assert c.core.dealer.table(idle[v]).row() == before[v], v
        assert closed[v] not in c.core.dealer.tables
        open_again = c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=idle[v], variant=v))
        assert await code_of(open_again) == grpc.StatusCode.ALREADY_EXISTS
    for v in games:
        # the idle table goes on; the closed one reopens with its numbering continued
        await play_table(
            GrpcTables(KeepTablesOpen(c.gw, reuse=True)),
            v,
            idle[v],
            4,
            1,
            rng,
            progress,
            staked,
            Refusals(),
        )
        await play_table(GrpcTables(c.gw), v, closed[v], 4, 1, rng, progress, staked, Refusals())
    await c.wait_settled(4 * len(games), timeout_s=240)
    for v in games:  # closing reveals the shoes still in play: every hand audits in full
        await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=idle[v]))
    for v in games:
        for table in (idle[v], closed[v]):
            hands = c.store.list_streams(kind="hand", table_id=table)
            assert sorted(h.stream_id for h in hands) == [f"{table}_h1", f"{table}_h2"]
        async for resp in c.au.VerifyRange(audit_pb2.VerifyRangeRequest(variant=v)):
            rep = resp.report
            assert rep.ok and rep.verdict == audit_pb2.AUDIT_VERDICT_PASS, (
                v,
                rep.hand_id,
                rep.reason,
                rep.message,
            )


async def test_a_closed_table_reopens_before_and_after_a_restart(cluster: Cluster) -> None:
    c = cluster
    table = await c.open_table("re")
    first = await c.play_hand(table)
    closed = await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    assert closed.shoe_id == f"{table}_s1" and closed.server_seed
    # reopened in the same process: a new shoe and the next hand number
    t = await c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat"))
    assert t.shoe_id == f"{table}_s2"
    second = await c.play_hand(table)
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    await restart_dealer(c)
    assert table not in c.core.dealer.tables
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 2))
        )
    assert ei.value.code() == grpc.StatusCode.NOT_FOUND
    t = await c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat"))
    assert t.shoe_id == f"{table}_s3"
    third = await c.play_hand(table)
    assert [first, second, third] == [f"{table}_h{n}" for n in (1, 2, 3)]
    await c.wait_settled(3)


async def test_the_turn_clock_of_a_restored_hand_fires(cluster_factory: ClusterFactory) -> None:
    c = await cluster_factory(variants=["blackjack.multi"])
    c.fix_seeds("turn-clock")
    table = unique_table("bj")
    await c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="blackjack.multi"))
    for _ in range(10):  # a hand where a player must decide (no dealer blackjack)
        h = await c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 2))
        )
        await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=h.hand_id,
                bets=[gateway_pb2.Bet(seat=s, spot="main", amount_minor=1000) for s in (1, 2)],
            )
        )
        view = (await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))).view
        if view.phase != "closed":
            break
    else:
        raise AssertionError("no hand waited on a player")
    hand_id = h.hand_id
    # a restarted dealer whose clock reads now: the turn is not overdue yet
    await restart_dealer(c)
    assert hand_id in c.core.dealer.hands
    assert await c.core.expire_overdue(now_ms()) == 0
    # 20 s later (blackjack.multi times a turn out after 15 s) its own turn clock plays
    skew = 20_000
    await restart_dealer(c, clock_ms=lambda: now_ms() + skew)
    stop = asyncio.Event()
    clock = asyncio.create_task(c.core.run_turn_clock(stop, tick_s=0.05))
    try:
        deadline = time.monotonic() + 10
        while not [
            e
            for e in c.store.read_stream(hand_id)
            if e.type == g.ACTION_TAKEN and e.payload["args"].get("auto") == "timeout"
        ]:
            assert time.monotonic() < deadline, "the restored hand's turn never timed out"
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(clock, 5)


async def follow(
    gw: gateway_pb2_grpc.GatewayServiceStub,
    req: gateway_pb2.StreamTableEventsRequest,
    got: list[gateway_pb2.StreamTableEventsResponse],
) -> None:
    async for item in gw.StreamTableEvents(req):
        got.append(item)


async def wait_for(pred: Callable[[], bool], what: str, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while not pred():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


def settled_hands(got: list[gateway_pb2.StreamTableEventsResponse]) -> set[str]:
    return {x.event.stream for x in got if x.event.type == g.HAND_SETTLED}


async def test_a_feed_client_resumes_across_a_restart_and_misses_nothing(
    cluster: Cluster,
) -> None:
    c = cluster
    table = await c.open_table("feed")
    first: list[gateway_pb2.StreamTableEventsResponse] = []
    req = gateway_pb2.StreamTableEventsRequest(table_id=table)
    task = asyncio.create_task(follow(c.gw, req, first))
    hands = [await c.play_hand(table) for _ in range(2)]
    await wait_for(lambda: settled_hands(first) == set(hands), "settled events on the feed")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
        await task
    cursor = first[-1].cursor
    # while the client is away: a hand on the old dealer, a restart, a hand on the new one
    hands.append(await c.play_hand(table))
    await restart_dealer(c)
    hands.append(await c.play_hand(table))
    await c.wait_settled(4)
    second: list[gateway_pb2.StreamTableEventsResponse] = []
    req = gateway_pb2.StreamTableEventsRequest(table_id=table, after_seq=cursor)
    task = asyncio.create_task(follow(c.gw, req, second))
    try:
        await wait_for(lambda: settled_hands(second) == set(hands[2:]), "resumed feed")
        # and the live tail goes on after the backlog
        hands.append(await c.play_hand(table))
        await wait_for(lambda: hands[-1] in settled_hands(second), "live events after resuming")
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await task
    got = first + second
    expected = [
        (x.pos, x.event.stream, x.event.seq)
        for x in c.store.table_events(table, 0, None, 10_000)
        if redact_public([x.event])
    ]
    assert [(x.cursor, x.event.stream, x.event.seq) for x in got] == expected
    types = [x.event.type for x in got]
    assert types.count(g.HAND_OUTCOME) == types.count(g.HAND_SETTLED) == len(hands) == 5
    for x in got:
        if x.event.type == g.HAND_SETTLED:
            assert json.loads(x.event.payload_json)  # the settlement itself, not a marker
    # nothing is held for the table once its followers are gone
    await wait_for(lambda: not c.core.feed.waiters, "feed subscribers released")
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    assert table not in c.core.dealer.tables


async def test_a_feed_from_now_and_of_unknown_tables(cluster: Cluster) -> None:
    c = cluster
    table = await c.open_table("now")
    old = await c.play_hand(table)
    await c.wait_settled(1)
    got: list[gateway_pb2.StreamTableEventsResponse] = []
    req = gateway_pb2.StreamTableEventsRequest(table_id=table, from_now=True)
    task = asyncio.create_task(follow(c.gw, req, got))
    try:
        await asyncio.sleep(0.3)
        new = await c.play_hand(table)
        await wait_for(lambda: new in settled_hands(got), "events after from_now")
        assert old not in {x.event.stream for x in got}
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await task
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        async for _ in c.gw.StreamTableEvents(
            gateway_pb2.StreamTableEventsRequest(table_id="never_opened")
        ):
            pass
    assert ei.value.code() == grpc.StatusCode.NOT_FOUND
