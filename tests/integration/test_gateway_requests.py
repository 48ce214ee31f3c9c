"""Idempotent gateway calls over real gRPC: a request id's first success is stored with
its effect; a retry (sequential or concurrent) gets the same response and has no second
effect; another request under the same id is refused; ``expected_seq`` guards hand
calls; a committed call never reports INTERNAL, even when publishing fails; request
records are pruned after their retention."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from croupier.bus.embedded import EmbeddedNats
from croupier.bus.jetstream import Bus
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.testing import bets_of
from croupier_services.config import Settings
from croupier_services.dealer import GatewayServicer, prune_request_ids, prune_requests_once
from croupier_services.gateway_client import GatewayClient, RetryPolicy
from croupier_services.grpc_util import error_info

from .harness import Cluster, dealer_node, now_ms, seat_entries

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "player", 20_000), (3, "tie", 5_000)]


def rid() -> str:
    return str(uuid.uuid4())


def _bets(*bets: tuple[int, str, int]) -> list[gateway_pb2.Bet]:
    return [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets]


def _written(c: Cluster) -> tuple[int, int, int]:
    return c.store.count_events(), c.store.count_requests(), len(c.store.list_transactions())


async def call_twice(c: Cluster, call: Callable[[], Any]) -> Any:
    """Make ``call`` twice; the second is answered from the stored result (trailer
    ``croupier-replayed``), writes nothing and equals the first."""
    first = await call()
    written = _written(c)
    again = call()
    second = await again
    assert second == first
    assert ("croupier-replayed", "true") in tuple(await again.trailing_metadata())
    assert _written(c) == written
    return first


async def expect(call: Awaitable[Any], code: grpc.StatusCode, reason: str) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await call
    err = ei.value
    info = error_info(err)
    assert err.code() == code and info is not None and info.reason == reason, (
        err.code(),
        err.details(),
    )
    return err


async def test_every_mutating_call_replays_its_stored_result(idle_cluster: Cluster) -> None:
    c = idle_cluster
    gw = c.gw
    table = f"rq_{uuid.uuid4().hex[:10]}"
    ids = {m: rid() for m in ("table", "hand", "bets", "close", "shoe", "end")}
    opened = await call_twice(
        c,
        lambda: gw.OpenTable(
            gateway_pb2.OpenTableRequest(
                table_id=table, variant="baccarat", client_seed="x", request_id=ids["table"]
            )
        ),
    )
    assert opened.shoe_id == f"{table}_s1"
    h = await call_twice(
        c,
        lambda: gw.OpenHand(
            gateway_pb2.OpenHandRequest(
                table_id=table, seats=seat_entries(table, 3), request_id=ids["hand"]
            )
        ),
    )
    assert h.hand_id == f"{table}_h1"
    placed = await call_twice(
        c,
        lambda: gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=h.hand_id, bets=_bets(*BETS), request_id=ids["bets"]
            )
        ),
    )
    assert placed.accepted == 3
    closed = await call_twice(
        c,
        lambda: gw.CloseBetting(
            gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=ids["close"])
        ),
    )
    assert closed.view.phase == "closed"
    shoe = await call_twice(
        c,
        lambda: gw.OpenShoe(gateway_pb2.OpenShoeRequest(table_id=table, request_id=ids["shoe"])),
    )
    assert shoe.previous_shoe_id == opened.shoe_id
    await call_twice(
        c,
        lambda: gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table, request_id=ids["end"])),
    )
    # one of each effect: one hand, three bets, one close, two shoes
    events = c.store.read_stream(h.hand_id)
    assert [e.type for e in events].count(g.BETS_PLACED) == 1 and len(bets_of(events)) == 3
    assert [e.type for e in events].count(g.HAND_CLOSED) == 1
    assert c.store.count_requests() == 6
    # the same id for another request, or another method, is a conflict; nothing written
    written = _written(c)
    other = gateway_pb2.PlaceBetsRequest(
        hand_id=h.hand_id, bets=_bets((1, "banker", 20_000)), request_id=ids["bets"]
    )
    err = await expect(gw.PlaceBets(other), grpc.StatusCode.ALREADY_EXISTS, "idempotency_conflict")
    assert "different PlaceBets request" in (err.details() or "")
    await expect(
        gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table, request_id=ids["bets"])),
        grpc.StatusCode.ALREADY_EXISTS,
        "idempotency_conflict",
    )
    assert _written(c) == written

    c.run_consumers()
    await c.wait_settled(1)
    assert len(c.store.transactions_for(h.hand_id)) == 1
    assert c.auditor().audit(h.hand_id).verdict.value == "pass"


async def test_five_concurrent_identical_calls_make_one_bet(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("conc")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    req = gateway_pb2.PlaceBetsRequest(
        hand_id=h.hand_id, bets=_bets((1, "banker", 10_000)), request_id=rid()
    )
    # five channels, as five retrying gateway replicas would have
    channels = [c.new_gateway_channel() for _ in range(5)]
    try:
        stubs = [gateway_pb2_grpc.GatewayServiceStub(ch) for ch in channels]
        out = await asyncio.gather(*(s.PlaceBets(req) for s in stubs))
    finally:
        for ch in channels:
            await ch.close()
    assert len({o.SerializeToString() for o in out}) == 1
    bets = [e for e in c.store.read_stream(h.hand_id) if e.type == g.BETS_PLACED]
    assert len(bets) == 1
    # and without a request id, the same call is not deduplicated (documented)
    bare = gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets((2, "player", 1_000)))
    await c.gw.PlaceBets(bare)
    await c.gw.PlaceBets(bare)
    bets = [e for e in c.store.read_stream(h.hand_id) if e.type == g.BETS_PLACED]
    assert len(bets) == 3


async def test_the_bots_client_retries_with_the_same_request_id(idle_cluster: Cluster) -> None:
    """The demo bots' client gives up on an attempt that outlives its deadline (the
    dealer is busy) and retries it with the same request id: one effect, one record."""
    c = idle_cluster
    table = await c.open_table("retry")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    client = GatewayClient(c.gw, RetryPolicy(timeout_s=0.3, first_backoff_s=0.2))
    req = gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets((1, "banker", 1_000)))

    async def busy() -> None:  # the dealer is busy at this table for 0.6 s
        async with c.core.table_lock(table):
            started.set()
            await asyncio.sleep(0.6)

    started = asyncio.Event()
    holder = asyncio.create_task(busy())
    await started.wait()
    placed = await client.PlaceBets(req)
    await holder
    assert client.retries >= 1 and req.request_id
    assert c.store.get_request(req.request_id) is not None
    assert c.store.count_requests() == 1
    bets = [e for e in c.store.read_stream(h.hand_id) if e.type == g.BETS_PLACED]
    assert len(bets) == 1 and placed.last_seq == bets[0].seq
    # a refusal is the dealer's answer: not retried (a deadline the call cannot outlive
    # on a loaded machine, so that only a refusal could be retried here)
    patient = GatewayClient(c.gw, RetryPolicy(timeout_s=10.0, first_backoff_s=0.2))
    bad = gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets((1, "dragon", 1_000)))
    await expect(patient.PlaceBets(bad), grpc.StatusCode.INVALID_ARGUMENT, "unknown_spot")
    assert patient.retries == 0


async def test_required_request_ids_and_bad_ones(idle_cluster: Cluster) -> None:
    """A dealer set to require request ids (CROUPIER_REQUIRE_REQUEST_ID) refuses calls
    without one; a malformed id is refused either way; nothing is written."""
    c = idle_cluster
    server = grpc.aio.server()
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(
        GatewayServicer(c.core, require_request_id=True), server
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            strict = gateway_pb2_grpc.GatewayServiceStub(ch)
            written = _written(c)
            table = f"req_{uuid.uuid4().hex[:8]}"
            open_req = gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat")
            err = await expect(
                strict.OpenTable(open_req), grpc.StatusCode.INVALID_ARGUMENT, "request_id_required"
            )
            assert error_info(err).metadata["field"] == "request_id"  # type: ignore[union-attr]
            for bad in ("a b", "x" * 129, "id\x00"):
                open_req.request_id = bad
                await expect(
                    strict.OpenTable(open_req),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "bad_characters" if len(bad) < 129 else "too_long",
                )
            assert _written(c) == written
            open_req.request_id = rid()
            await strict.OpenTable(open_req)
    finally:
        await server.stop(0)


def test_settings_name_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings.from_env("dealer")
    assert (s.require_request_id, s.request_id_retention_s) == (False, 86_400)
    monkeypatch.setenv("CROUPIER_REQUIRE_REQUEST_ID", "1")
    monkeypatch.setenv("CROUPIER_REQUEST_ID_RETENTION_S", "3600")
    s = Settings.from_env("dealer")
    assert (s.require_request_id, s.request_id_retention_s) == (True, 3600)


async def test_a_dealer_process_applies_the_policy(
    embedded_nats: EmbeddedNats, tmp_path: Path
) -> None:
    """The dealer as ``croupier serve dealer`` wires it (runtime.Node): request ids
    required, and its pruning loop running with the retention it was given."""
    async with dealer_node(
        tmp_path, embedded_nats.url, request_id_retention_s=0, require_request_id=True
    ) as (node, gw):
        assert node.store is not None
        req = gateway_pb2.OpenTableRequest(table_id="node_t", variant="baccarat")
        await expect(gw.OpenTable(req), grpc.StatusCode.INVALID_ARGUMENT, "request_id_required")
        req.request_id = rid()
        await gw.OpenTable(req)
        assert node.store.count_requests() == 1


async def test_expected_seq_guards_hand_calls(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("seq")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    last = c.store.read_stream(h.hand_id)[-1].seq
    written = _written(c)
    stale = gateway_pb2.PlaceBetsRequest(
        hand_id=h.hand_id, bets=_bets((1, "banker", 1_000)), expected_seq=last + 1
    )
    err = await expect(c.gw.PlaceBets(stale), grpc.StatusCode.ABORTED, "seq_mismatch")
    meta = error_info(err).metadata  # type: ignore[union-attr]
    assert (meta["expected_seq"], meta["last_seq"]) == (str(last + 1), str(last))
    assert _written(c) == written
    ok = gateway_pb2.PlaceBetsRequest(
        hand_id=h.hand_id, bets=_bets((1, "banker", 1_000)), expected_seq=last, request_id=rid()
    )
    placed = await c.gw.PlaceBets(ok)
    # a retry of the accepted call is answered from its record, not refused as stale
    assert await c.gw.PlaceBets(ok) == placed
    await expect(
        c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, expected_seq=last)),
        grpc.StatusCode.ABORTED,
        "seq_mismatch",
    )
    closed = await c.gw.CloseBetting(
        gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, expected_seq=placed.last_seq)
    )
    assert closed.view.phase == "closed"


async def test_a_committed_close_never_reports_internal(idle_cluster: Cluster) -> None:
    """NATS is gone when betting closes: the hand is committed, so CloseBetting answers
    OK with the closed hand (not INTERNAL); the retry with the same id gets the same
    answer; once a bus is back the recovery republishes it and it settles once."""
    c = idle_cluster
    table = await c.open_table("nonats")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    await c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets(*BETS)))
    # the dealer publishes over a connection of its own, which then goes away
    url = c.bus.nc.connected_url
    assert url is not None
    dealer_bus = await Bus.connect(f"nats://{url.hostname}:{url.port}", name="croupier-it-dealer")
    c.core.bus = dealer_bus
    await dealer_bus.close()  # every publish from now on fails
    close = gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=rid())
    closed = await c.gw.CloseBetting(close)
    assert closed.view.phase == "closed"
    assert c.store.read_stream(h.hand_id)[-1].type == g.HAND_CLOSED
    assert await c.gw.CloseBetting(close) == closed
    c.core.bus = c.bus  # NATS is back
    _, republished = await c.core.recover()
    assert republished == 1
    c.run_consumers()
    await c.wait_settled(1)
    assert len(c.store.transactions_for(h.hand_id)) == 1


async def test_request_ids_are_pruned_after_retention(idle_cluster: Cluster) -> None:
    c = idle_cluster
    table = await c.open_table("prune")
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    ids = [rid() for _ in range(3)]
    for i, r in enumerate(ids):
        await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=h.hand_id, bets=_bets((i + 1, "banker", 1_000)), request_id=r
            )
        )
    assert c.store.count_requests() == 3
    created = [c.store.get_request(r).created_at_ms for r in ids]  # type: ignore[union-attr]
    # a cut-off before the records keeps them; after, removes them all (batch of 2)
    assert prune_requests_once(c.store, min(created)) == 0
    assert prune_requests_once(c.store, max(created) + 1, batch=2) == 3
    assert c.store.count_requests() == 0
    # a pruned id is new again: the same call now has a second effect
    again = gateway_pb2.PlaceBetsRequest(
        hand_id=h.hand_id, bets=_bets((1, "banker", 1_000)), request_id=ids[0]
    )
    await c.gw.PlaceBets(again)
    bets = [e for e in c.store.read_stream(h.hand_id) if e.type == g.BETS_PLACED]
    assert len(bets) == 4
    # the dealer's pruning loop: a zero retention removes the new record at once
    stop = asyncio.Event()
    task = asyncio.create_task(prune_request_ids(c.store, 0, stop, lambda: now_ms() + 1, 0.05))
    for _ in range(100):
        if c.store.count_requests() == 0:
            break
        await asyncio.sleep(0.02)
    stop.set()
    await asyncio.wait_for(task, 5)
    assert c.store.count_requests() == 0


async def test_drill_duplicate_and_concurrent_calls_settle_every_hand_once(
    cluster: Cluster,
) -> None:
    """Several tables at once, every mutating call sent three times concurrently and
    once more afterwards with the same request id (as a gateway retrying over a flaky
    network): every hand is dealt and settled exactly once, the ledger is zero-sum, and
    every hand audits PASS."""
    c = cluster
    tables, hands_per_table = 4, 5

    async def thrice(call: Callable[[], Awaitable[Any]]) -> Any:
        out = await asyncio.gather(call(), call(), call())
        assert len({o.SerializeToString() for o in out}) == 1
        assert await call() == out[0]
        return out[0]

    async def play(t: int) -> list[str]:
        table = f"drill_{t}_{uuid.uuid4().hex[:8]}"
        r = rid()
        await thrice(
            lambda: c.gw.OpenTable(
                gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat", request_id=r)
            )
        )
        hids = []
        for _ in range(hands_per_table):
            r_open, r_bets, r_close = rid(), rid(), rid()
            h = await thrice(
                lambda r_open=r_open: c.gw.OpenHand(
                    gateway_pb2.OpenHandRequest(
                        table_id=table, seats=seat_entries(table, 3), request_id=r_open
                    )
                )
            )
            await thrice(
                lambda h=h, r_bets=r_bets: c.gw.PlaceBets(
                    gateway_pb2.PlaceBetsRequest(
                        hand_id=h.hand_id, bets=_bets(*BETS), request_id=r_bets
                    )
                )
            )
            await thrice(
                lambda h=h, r_close=r_close: c.gw.CloseBetting(
                    gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=r_close)
                )
            )
            hids.append(h.hand_id)
        r_end = rid()
        await thrice(
            lambda: c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table, request_id=r_end))
        )
        return hids

    hands = [h for hs in await asyncio.gather(*(play(t) for t in range(tables))) for h in hs]
    n = tables * hands_per_table
    assert len(set(hands)) == n
    await c.wait_settled(n, timeout_s=60)
    assert c.store.count_settlements() == n
    for hid in hands:
        types = [e.type for e in c.store.read_stream(hid)]
        assert len(bets_of(c.store.read_stream(hid))) == len(BETS), hid
        assert types.count(g.HAND_CLOSED) == 1 and types.count(g.HAND_SETTLED) == 1, hid
        assert [t.kind for t in c.store.transactions_for(hid)] == ["settle"]
    assert sum(c.store.balances().values()) == 0
    auditor = c.auditor()
    verdicts = {auditor.audit(hid).verdict.value for hid in hands}
    assert verdicts == {"pass"}
