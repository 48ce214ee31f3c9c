"""A database outage seen through the gRPC API: every call that cannot reach the store
(dealer, settlement and audit handlers, and the authentication interceptor's checks)
answers ``UNAVAILABLE`` with reason ``store_unavailable`` and a ``RetryInfo`` of about a
second, writes nothing, and the same calls succeed once the store is back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from croupier.pb.croupier.v1 import audit_pb2, gateway_pb2, settlement_pb2
from croupier_services.grpc_util import error_info, retry_info

from .harness import VARIANT, Cluster, seat_entries, unique_table

pytestmark = pytest.mark.integration


@contextmanager
def store_down(engine: Engine) -> Iterator[None]:
    """Every new connection of ``engine`` refused by the driver (as when the server is
    down or the file gone), pooled connections dropped; restored on exit."""

    def refuse(*_: Any) -> None:
        raise engine.dialect.dbapi.OperationalError("connection refused (store down)")  # type: ignore[union-attr]

    engine.dispose()
    sa.event.listen(engine, "do_connect", refuse)
    try:
        yield
    finally:
        sa.event.remove(engine, "do_connect", refuse)
        engine.dispose()


def _written(c: Cluster) -> tuple[int, int, int]:
    return c.store.count_events(), len(c.store.list_transactions()), c.store.count_settlements()


async def _unavailable(call: Awaitable[Any]) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await call
    _is_store_unavailable(ei.value)


async def _stream_unavailable(call: AsyncIterable[Any]) -> None:
    """A server-streaming call ends with the same status as a unary one."""
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        async for _ in call:
            pass
    _is_store_unavailable(ei.value)


def _is_store_unavailable(err: grpc.aio.AioRpcError) -> None:
    assert err.code() == grpc.StatusCode.UNAVAILABLE, (err.code(), err.details())
    info = error_info(err)
    assert info is not None and info.reason == "store_unavailable", err.details()
    assert (err.details() or "").startswith("store_unavailable: ")
    retry = retry_info(err)
    assert retry is not None and 0.5 <= retry.retry_delay.ToNanoseconds() / 1e9 <= 2.0


async def test_store_outage_is_unavailable_then_recovers(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("outage")
    hand = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 2))
    )
    bets = gateway_pb2.PlaceBetsRequest(
        hand_id=hand.hand_id, bets=[gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1_000)]
    )
    new_table = unique_table("outage2")

    def open_table() -> Awaitable[Any]:
        return c.gw.OpenTable(
            gateway_pb2.OpenTableRequest(table_id=new_table, variant=VARIANT, client_seed=new_table)
        )

    before = _written(c)
    with store_down(c.store.engine):
        await _unavailable(open_table())
        await _unavailable(c.gw.PlaceBets(bets))
        await _unavailable(c.st.ListSettlements(settlement_pb2.ListSettlementsRequest()))
        await _unavailable(c.au.ListHands(audit_pb2.ListHandsRequest(table_id=table)))
    assert _written(c) == before  # nothing written during the outage

    # back: the very same calls go through
    await open_table()
    await c.gw.PlaceBets(bets)
    await c.st.ListSettlements(settlement_pb2.ListSettlementsRequest())
    listed = await c.au.ListHands(audit_pb2.ListHandsRequest(table_id=table))
    assert hand.hand_id in [h.hand_id for h in listed.hands]
    assert c.store.count_events() > before[0]


async def test_streaming_calls_answer_store_unavailable_then_recover(
    idle_cluster: Cluster,
) -> None:
    c = idle_cluster
    table = await c.open_table("outage_stream")
    with store_down(c.store.engine):
        await _stream_unavailable(
            c.gw.StreamTableEvents(gateway_pb2.StreamTableEventsRequest(table_id=table))
        )
        await _stream_unavailable(
            c.au.VerifyRange(audit_pb2.VerifyRangeRequest(table_id=table))
        )
    # back: the feed streams the table's events from the start
    feed = c.gw.StreamTableEvents(gateway_pb2.StreamTableEventsRequest(table_id=table))
    first = await asyncio.wait_for(feed.read(), 10)
    assert first is not grpc.aio.EOF and first.event.stream
    feed.cancel()
    reports = [r async for r in c.au.VerifyRange(audit_pb2.VerifyRangeRequest(table_id=table))]
    assert reports == []  # no hand dealt yet: an empty range, not an error
