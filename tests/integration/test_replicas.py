"""Two dealer replicas (runtime nodes with CROUPIER_DEALER_ID set) on one store: the
replica that does not own a table answers UNAVAILABLE table_owned_elsewhere with the
owner's address, the gateway client follows it there with the same request id, and a
stopped replica releases its leases."""

from __future__ import annotations

import uuid
from pathlib import Path

import grpc
import pytest

from croupier.auth import Role, init_dev
from croupier.bus.embedded import EmbeddedNats
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import Store
from croupier_services.config import AuthSettings
from croupier_services.gateway_client import GatewayClient, RetryPolicy
from croupier_services.grpc_util import error_info
from croupier_services.keys import init_keys
from croupier_services.runtime import Node
from croupier_services.security import client_channel

from .harness import now_ms

pytestmark = pytest.mark.integration


async def test_a_call_at_the_wrong_replica_is_routed_to_the_owner(
    tmp_path: Path, embedded_nats: EmbeddedNats
) -> None:
    auth = init_dev(tmp_path / "auth")
    init_keys(tmp_path / "keys")
    db = f"sqlite:///{tmp_path / 'dealer.sqlite'}"

    def node(name: str) -> Node:
        return Node(
            roles=("dealer",),
            database_url=db,
            keys_dir=str(tmp_path / "keys"),
            nats_url=embedded_nats.url,
            auth=AuthSettings.from_env(str(auth.root)),
            turn_clock=False,
            dealer_id=name,
            lease_ttl_ms=5_000,
        )

    a = node("dealer-a")
    await a.start()
    a.dealer_address = f"127.0.0.1:{a.bound_port}"
    assert a.core is not None and a.core.ownership is not None
    a.core.ownership.address = a.dealer_address
    b = None
    try:
        async with client_channel(a.dealer_address, auth.root, Role.GATEWAY) as ch_a:
            gw_a = gateway_pb2_grpc.GatewayServiceStub(ch_a)
            await gw_a.OpenTable(
                gateway_pb2.OpenTableRequest(
                    table_id="rt", variant="baccarat", request_id=str(uuid.uuid4())
                )
            )
            b = node("dealer-b")
            await b.start()  # recovers the open table, but does not own it
            async with client_channel(
                f"127.0.0.1:{b.bound_port}", auth.root, Role.GATEWAY
            ) as ch_b:
                gw_b = gateway_pb2_grpc.GatewayServiceStub(ch_b)
                close = gateway_pb2.CloseTableRequest(table_id="rt", request_id=str(uuid.uuid4()))
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await gw_b.CloseTable(close)
                assert e.value.code() == grpc.StatusCode.UNAVAILABLE
                info = error_info(e.value)
                assert info is not None and info.reason == "table_owned_elsewhere"
                assert dict(info.metadata)["owner"] == "dealer-a"
                assert dict(info.metadata)["owner_address"] == a.dealer_address
                assert b.store is not None
                rec = b.store.get_table("rt")
                assert rec is not None and rec.open  # nothing written by dealer-b
                dialled: list[str] = []

                def connect(address: str) -> gateway_pb2_grpc.GatewayServiceStub:
                    dialled.append(address)
                    return gw_a

                client = GatewayClient(gw_b, RetryPolicy(first_backoff_s=0.0), connect=connect)
                await client.CloseTable(close)  # same request id, at the owner
                assert dialled == [a.dealer_address]
                rec = b.store.get_table("rt")
                assert rec is not None and not rec.open
    finally:
        if b is not None:
            await b.stop()
        await a.stop()
    # a stopped replica released its lease: another may take the table at once
    s = Store.open(db)
    try:
        assert s.current_lease("rt", now_ms()) is None
    finally:
        s.close()
