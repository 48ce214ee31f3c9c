"""A gateway's client of the dealer: every mutating call gets a fresh request id, and a
call that failed in transit (the dealer restarting, a dropped connection, a deadline) is
retried with the SAME id, so a retry never has a second effect — the dealer answers it
from the stored result when the first attempt had in fact committed.

Routing (dealer replicas that own tables): a replica that does not own the call's
table answers ``UNAVAILABLE`` with ``ErrorInfo.reason`` ``table_owned_elsewhere`` and
the owner in its metadata (``owner``, ``owner_address``). Given ``connect`` (address →
stub), the client follows it: the same request, same request id, at the owner, which it
then keeps using. Without ``connect`` it is an ordinary retry at the same address.
When a followed owner stops answering (it died, or it is draining), the client goes back
to the stub it was built with — the replicas' shared address (a Kubernetes Service, or a
channel over every replica) — where a surviving replica takes the table over, or names
its new owner.

The demo's bots use it, as would a real gateway; so do the drills that kill and restart
services under load.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier_services.grpc_util import error_info

log = logging.getLogger("croupier.gateway_client")
T = TypeVar("T")

RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        # a dealer shutting down cancels the calls still in flight when its grace ends
        # (the caller's own cancellation is asyncio.CancelledError, never retried)
        grpc.StatusCode.CANCELLED,
    }
)
"""Failures in transit: the call may or may not have taken effect, so it is retried
with its request id. Every other status is the dealer's answer and is final."""


OWNED_ELSEWHERE = "table_owned_elsewhere"


def new_request_id() -> str:
    return str(uuid.uuid4())


@dataclass
class RetryPolicy:
    attempts: int = 8
    first_backoff_s: float = 0.05
    max_backoff_s: float = 2.0
    timeout_s: float = 30.0


class GatewayClient:
    """The gateway API with request ids and retries (see the module docstring)."""

    def __init__(
        self,
        stub: gateway_pb2_grpc.GatewayServiceStub,
        policy: RetryPolicy | None = None,
        connect: Callable[[str], gateway_pb2_grpc.GatewayServiceStub] | None = None,
    ) -> None:
        self.stub = stub
        self.home = stub  # the replicas' shared address (see the module docstring)
        self.policy = policy or RetryPolicy()
        self.retries = 0
        self.connect = connect
        self.redirects = 0

    def _follow(self, e: grpc.aio.AioRpcError) -> bool:
        """Switch to the owner a ``table_owned_elsewhere`` answer names (if we can)."""
        info = error_info(e)
        if self.connect is None or info is None or info.reason != OWNED_ELSEWHERE:
            return False
        address = info.metadata.get("owner_address", "")
        if not address:
            return False
        log.info("table owned by %s at %s; following", info.metadata.get("owner"), address)
        self.stub = self.connect(address)
        self.redirects += 1
        return True

    async def _call(self, name: str, request: Any, metadata: Any = None) -> Any:
        """Call ``name`` on the current stub (the owner's, once followed)."""
        if hasattr(request, "request_id") and not request.request_id:
            request.request_id = new_request_id()
        backoff = self.policy.first_backoff_s
        for attempt in range(1, self.policy.attempts + 1):
            try:
                bound = getattr(self.stub, name)
                return await bound(request, timeout=self.policy.timeout_s, metadata=metadata)
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRYABLE or attempt == self.policy.attempts:
                    raise
                if self._follow(e):
                    continue  # at the owner, at once, with the same request id
                if self.stub is not self.home:
                    log.info("the followed owner failed (%s); back to the shared address", e.code())
                    self.stub = self.home
                self.retries += 1
                log.info("retrying %s (%s), attempt %d", type(request).__name__, e.code(), attempt)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self.policy.max_backoff_s)
        raise AssertionError("unreachable")

    async def OpenTable(
        self, r: gateway_pb2.OpenTableRequest, metadata: Any = None
    ) -> gateway_pb2.OpenTableResponse:
        return await self._call("OpenTable", r, metadata)

    async def OpenShoe(
        self, r: gateway_pb2.OpenShoeRequest, metadata: Any = None
    ) -> gateway_pb2.OpenShoeResponse:
        return await self._call("OpenShoe", r, metadata)

    async def OpenHand(
        self, r: gateway_pb2.OpenHandRequest, metadata: Any = None
    ) -> gateway_pb2.OpenHandResponse:
        return await self._call("OpenHand", r, metadata)

    async def PlaceBets(
        self, r: gateway_pb2.PlaceBetsRequest, metadata: Any = None
    ) -> gateway_pb2.PlaceBetsResponse:
        return await self._call("PlaceBets", r, metadata)

    async def Act(self, r: gateway_pb2.ActRequest, metadata: Any = None) -> gateway_pb2.ActResponse:
        return await self._call("Act", r, metadata)

    async def ExpireTurn(
        self, r: gateway_pb2.ExpireTurnRequest, metadata: Any = None
    ) -> gateway_pb2.ExpireTurnResponse:
        return await self._call("ExpireTurn", r, metadata)

    async def CloseBetting(
        self, r: gateway_pb2.CloseBettingRequest, metadata: Any = None
    ) -> gateway_pb2.CloseBettingResponse:
        return await self._call("CloseBetting", r, metadata)

    async def CloseTable(
        self, r: gateway_pb2.CloseTableRequest, metadata: Any = None
    ) -> gateway_pb2.CloseTableResponse:
        return await self._call("CloseTable", r, metadata)

    async def GetHandView(
        self, r: gateway_pb2.GetHandViewRequest, metadata: Any = None
    ) -> gateway_pb2.GetHandViewResponse:
        return await self._call("GetHandView", r, metadata)

    async def IssueSeatToken(
        self, r: gateway_pb2.IssueSeatTokenRequest, metadata: Any = None
    ) -> gateway_pb2.IssueSeatTokenResponse:
        return await self._call("IssueSeatToken", r, metadata)
