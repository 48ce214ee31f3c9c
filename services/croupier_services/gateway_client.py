"""A gateway's client of the dealer: every mutating call gets a fresh request id, and a
call that failed in transit (the dealer restarting, a dropped connection, a deadline) is
retried with the SAME id, so a retry never has a second effect — the dealer answers it
from the stored result when the first attempt had in fact committed.

The demo's bots use it, as would a real gateway; so do the drills that kill and restart
services under load.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc

log = logging.getLogger("croupier.gateway_client")
T = TypeVar("T")

RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
"""Failures in transit: the call may or may not have taken effect, so it is retried
with its request id. Every other status is the dealer's answer and is final."""


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
        self, stub: gateway_pb2_grpc.GatewayServiceStub, policy: RetryPolicy | None = None
    ) -> None:
        self.stub = stub
        self.policy = policy or RetryPolicy()
        self.retries = 0

    async def _call(self, method: Callable[..., Awaitable[T]], request: Any) -> T:
        if hasattr(request, "request_id") and not request.request_id:
            request.request_id = new_request_id()
        backoff = self.policy.first_backoff_s
        for attempt in range(1, self.policy.attempts + 1):
            try:
                return await method(request, timeout=self.policy.timeout_s)
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRYABLE or attempt == self.policy.attempts:
                    raise
                self.retries += 1
                log.info("retrying %s (%s), attempt %d", type(request).__name__, e.code(), attempt)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self.policy.max_backoff_s)
        raise AssertionError("unreachable")

    async def OpenTable(self, r: gateway_pb2.OpenTableRequest) -> gateway_pb2.OpenTableResponse:
        return await self._call(self.stub.OpenTable, r)

    async def OpenShoe(self, r: gateway_pb2.OpenShoeRequest) -> gateway_pb2.OpenShoeResponse:
        return await self._call(self.stub.OpenShoe, r)

    async def OpenHand(self, r: gateway_pb2.OpenHandRequest) -> gateway_pb2.OpenHandResponse:
        return await self._call(self.stub.OpenHand, r)

    async def PlaceBets(self, r: gateway_pb2.PlaceBetsRequest) -> gateway_pb2.PlaceBetsResponse:
        return await self._call(self.stub.PlaceBets, r)

    async def Act(self, r: gateway_pb2.ActRequest) -> gateway_pb2.ActResponse:
        return await self._call(self.stub.Act, r)

    async def ExpireTurn(self, r: gateway_pb2.ExpireTurnRequest) -> gateway_pb2.ExpireTurnResponse:
        return await self._call(self.stub.ExpireTurn, r)

    async def CloseBetting(
        self, r: gateway_pb2.CloseBettingRequest
    ) -> gateway_pb2.CloseBettingResponse:
        return await self._call(self.stub.CloseBetting, r)

    async def CloseTable(self, r: gateway_pb2.CloseTableRequest) -> gateway_pb2.CloseTableResponse:
        return await self._call(self.stub.CloseTable, r)

    async def GetHandView(
        self, r: gateway_pb2.GetHandViewRequest
    ) -> gateway_pb2.GetHandViewResponse:
        return await self._call(self.stub.GetHandView, r)
