"""Routing to a table's owner: a replica that does not own the table answers
UNAVAILABLE, reason table_owned_elsewhere, with the owner in the ErrorInfo metadata;
the gateway client follows it to the owner with the same request id."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from croupier.errors import StaleFencingToken, TableOwnedElsewhere
from croupier.pb.croupier.v1 import gateway_pb2
from croupier_services.gateway_client import GatewayClient, RetryPolicy
from croupier_services.grpc_util import error_info, rich_status, status_for

pytestmark = pytest.mark.integration


def _owned_elsewhere(address: str) -> grpc.aio.AioRpcError:
    err = TableOwnedElsewhere("elsewhere", table_id="bac", owner="dealer-b", address=address)
    st = rich_status(status_for(err), err.reason, err.message, err.details())
    return grpc.aio.AioRpcError(
        st.code, grpc.aio.Metadata(), grpc.aio.Metadata(*st.trailing_metadata), st.details
    )


class Replica:
    def __init__(self, name: str, owner_address: str | None) -> None:
        self.name = name
        self.owner_address = owner_address
        self.seen: list[str] = []

    async def PlaceBets(self, request: Any, **_: Any) -> gateway_pb2.PlaceBetsResponse:
        self.seen.append(request.request_id)
        if self.owner_address is not None:
            raise _owned_elsewhere(self.owner_address)
        return gateway_pb2.PlaceBetsResponse()


def test_ownership_errors_are_unavailable_with_the_owner_in_the_details() -> None:
    e = _owned_elsewhere("b:50051")
    assert e.code() == grpc.StatusCode.UNAVAILABLE
    info = error_info(e)
    assert info is not None and info.reason == "table_owned_elsewhere"
    assert dict(info.metadata) == {
        "table_id": "bac",
        "owner": "dealer-b",
        "owner_address": "b:50051",
    }
    stale = StaleFencingToken("stale", table_id="bac", token=1, current=2)
    assert status_for(stale) == grpc.StatusCode.UNAVAILABLE


async def test_the_client_follows_the_owner_with_the_same_request_id() -> None:
    a, b = Replica("a", "b:50051"), Replica("b", None)
    dialled: list[str] = []

    def connect(address: str) -> Any:
        dialled.append(address)
        return b

    client = GatewayClient(a, RetryPolicy(first_backoff_s=0.0), connect=connect)  # type: ignore[arg-type]
    await client.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id="h1"))
    assert dialled == ["b:50051"] and client.redirects == 1 and client.retries == 0
    assert len(a.seen) == 1 and b.seen == a.seen and a.seen[0]  # same request id
    await client.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id="h1"))
    assert len(a.seen) == 1 and len(b.seen) == 2  # it stays at the owner


async def test_without_connect_it_is_a_plain_retry_and_fails_after_the_attempts() -> None:
    a = Replica("a", "b:50051")
    client = GatewayClient(a, RetryPolicy(attempts=3, first_backoff_s=0.0))  # type: ignore[arg-type]
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await client.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id="h1"))
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert len(a.seen) == 3 and len(set(a.seen)) == 1
