"""The table grants the dealer keeps in memory (croupier_services.grants): a grant or a
revocation written by another process (another Store on the same database, as the CLI
or another dealer replica writes it) holds from the next call on; a table dropped from
memory (taken by another replica) and taken back is checked against the grants of now;
a call at a table nobody granted is refused however often it is tried; and once a
table's grants are remembered, its calls read neither the grants nor the request
records before they run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
import sqlalchemy as sa

from croupier.auth import Role, TokenIssuer
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import Store
from croupier.testing import bets_of
from croupier_services.security import client_channel

from .harness import Cluster, metric, seat_entries

pytestmark = pytest.mark.integration

BETS = [gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1_000)]


def refused(reason: str) -> float:
    return metric("croupier_auth_refused_total", service="gateway", reason=reason)


def rival(c: Cluster) -> tuple[tuple[str, str]]:
    token = TokenIssuer.from_pem(c.auth.issuer_key.read_bytes()).issue(
        "gateway-rival", Role.GATEWAY, 600
    )
    return (("authorization", f"Bearer {token}"),)


def written(c: Cluster) -> tuple[int, int]:
    return c.store.count_events(), c.store.count_requests()


@contextmanager
def other_store(c: Cluster) -> Iterator[Store]:
    """The same database through a Store of its own (what `croupier auth grant|revoke`
    or another dealer replica writes through)."""
    s = c.database.open()
    try:
        yield s
    finally:
        s.close()


async def denied(call: Any) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await call
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "not_your_table" in (e.value.details() or "")


async def test_a_revocation_by_another_process_holds_for_a_call_admitted_from_memory(
    idle_cluster: Cluster,
) -> None:
    c = idle_cluster
    table = await c.open_table("rvk")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    assert c.core.grants.owners(table, cached=True) == {"gateway-dev"}  # remembered
    with other_store(c) as s:
        assert s.revoke_table(table, "gateway-dev", 1, "operator")
    # the dealer's memory still names the gateway: the interceptor admits the call...
    assert c.core.grants.owners(table, cached=True) == {"gateway-dev"}
    n, before = refused("not_your_table"), written(c)
    req = gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=BETS, request_id="rvk-1")
    await denied(c.gw.PlaceBets(req))  # ...and its commit refuses it
    assert refused("not_your_table") == n + 1
    assert written(c) == before
    assert c.store.get_request("rvk-1") is None
    stored = c.store.read_stream(h.hand_id)
    assert bets_of(stored) == []
    assert c.core.dealer.hands[h.hand_id].writer.next_seq - 1 == stored[-1].seq  # rebuilt
    # the refusal forgot the table's grants: the next call is refused before it runs
    await denied(c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id)))
    assert written(c) == before
    # an operator's new grant, again by another process, lets the gateway back in
    with other_store(c) as s:
        assert s.grant_table(table, "gateway-dev", 2, "operator")
    await c.gw.PlaceBets(req)
    assert c.store.get_request("rvk-1") is not None


async def test_a_grant_by_another_process_is_honoured_and_no_grant_is_never_cached_open(
    idle_cluster: Cluster,
) -> None:
    c = idle_cluster
    table = await c.open_table("grt")
    await c.play_hand(table)
    other = rival(c)
    n, before = refused("not_your_table"), written(c)
    async with client_channel(
        f"127.0.0.1:{c.port}", c.auth.root, Role.GATEWAY, with_token=False
    ) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        open_hand = gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
        for _ in range(3):  # the table's grants are in memory: never a pass for the rival
            await denied(gw.OpenHand(open_hand, metadata=other))
        assert refused("not_your_table") == n + 3
        assert written(c) == before
        with other_store(c) as s:  # as `croupier auth grant` does it
            assert s.grant_table(table, "gateway-rival", 1, "operator")
        h = await gw.OpenHand(open_hand, metadata=other)  # the miss reads the store again
        await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id), metadata=other)
        assert c.core.grants.owners(table, cached=True) == {"gateway-dev", "gateway-rival"}


async def test_a_table_dropped_and_taken_back_is_checked_against_the_grants_of_now(
    idle_cluster: Cluster,
) -> None:
    """What a replica does when another takes its table and it later takes it back:
    the table leaves its memory (``DealerCore.drop``) and is rebuilt from the log; the
    grants changed meanwhile are the ones checked."""
    c = idle_cluster
    table = await c.open_table("mov")
    await c.play_hand(table)
    assert len(c.core.grants) >= 1
    async with c.core.table_lock(table):
        c.core.drop(table)  # taken elsewhere
    with other_store(c) as s:  # meanwhile the grant moves to another gateway
        assert s.revoke_table(table, "gateway-dev", 1, "operator")
        assert s.grant_table(table, "gateway-rival", 1, "operator")
    async with c.core.table_lock(table):
        c.core.resync(table)  # taken back: rebuilt from the log
    before = written(c)
    await denied(
        c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3)))
    )
    assert written(c) == before
    async with client_channel(
        f"127.0.0.1:{c.port}", c.auth.root, Role.GATEWAY, with_token=False
    ) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        h = await gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3)),
            metadata=rival(c),
        )
        assert h.hand_id


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """Every SQL statement the store's engine runs meanwhile (any thread)."""
    seen: list[str] = []

    def record(conn: Any, cursor: Any, sql: str, *_: Any) -> None:
        seen.append(sql)

    sa.event.listen(store.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", record)


async def test_a_remembered_tables_calls_read_no_grants_and_no_request_records(
    idle_cluster: Cluster,
) -> None:
    """The gateway path's hot calls (OpenHand, PlaceBets, CloseBetting, each with a
    request id): no read of ``table_grants`` and no read of ``gateway_requests``; the
    grants' one check is a count of the table's changes, at most one per transaction."""
    c = idle_cluster
    table = await c.open_table("hot")
    await c.play_hand(table)  # the table's grants are remembered from here on
    loads, groups = c.core.grants.loads, c.core.committer.groups
    coups = 5
    with statements(c.store) as seen:
        for i in range(coups):
            h = await c.gw.OpenHand(
                gateway_pb2.OpenHandRequest(
                    table_id=table, seats=seat_entries(table, 3), request_id=f"hot-o{i}"
                )
            )
            await c.gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=BETS, request_id=f"hot-p{i}")
            )
            await c.gw.CloseBetting(
                gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=f"hot-c{i}")
            )
    transactions = c.core.committer.groups - groups
    assert transactions >= 1
    assert c.core.grants.loads == loads
    grants = [q for q in seen if re.search(r"\btable_grants\b", q)]
    assert grants == []
    requests = [q for q in seen if "gateway_requests" in q]
    assert len(requests) == 3 * coups  # one insert per call, nothing read
    assert all(q.lstrip().upper().startswith("INSERT") for q in requests)
    changes = [q for q in seen if "table_grant_changes" in q]
    assert 1 <= len(changes) <= transactions
    assert all(c.store.get_request(f"hot-{k}{i}") for k in "opc" for i in range(coups))
