"""The server interceptors wrap a method's handler once and reuse the wrapping for every
call (what a call does through them is tested over real gRPC in
tests/integration/test_auth.py and the metrics tests); a method nobody serves is never
remembered, so unknown method names cannot grow a server's memory."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from croupier.auth import TokenVerifier
from croupier.auth.interceptor import AuthInterceptor
from croupier_services.grpc_util import MetricsInterceptor
from croupier_services.metrics import GRPC_HANDLED

AUDIT = "/croupier.v1.AuditService/VerifyHand"


class Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def echo(request: Any, context: Any) -> Any:
    return request


def handler() -> grpc.RpcMethodHandler:
    return grpc.unary_unary_rpc_method_handler(echo)


def intercept(icp: Any, method: str, h: Any) -> Any:
    async def continuation(details: Any) -> Any:
        return h

    return asyncio.run(icp.intercept_service(continuation, Details(method)))


def test_the_metrics_interceptor_wraps_a_method_once_and_counts_every_call() -> None:
    icp, h = MetricsInterceptor(), handler()
    first, again = intercept(icp, AUDIT, h), intercept(icp, AUDIT, h)
    assert first is again and first.unary_unary is not echo
    series = GRPC_HANDLED.labels("croupier.v1.AuditService", "VerifyHand", "unary", "OK")
    before = series._value.get()
    assert asyncio.run(first.unary_unary("x", None)) == "x"
    assert asyncio.run(again.unary_unary("y", None)) == "y"
    assert series._value.get() == before + 2
    # another handler for the method (a server rebuilt): wrapped anew
    assert intercept(icp, AUDIT, handler()) is not first


def test_the_auth_interceptor_wraps_a_method_once_and_forgets_nothing_it_should_not() -> None:
    verifier = TokenVerifier(Ed25519PrivateKey.generate().public_key())
    icp, h = AuthInterceptor(verifier), handler()
    first = intercept(icp, AUDIT, h)
    assert intercept(icp, AUDIT, h) is first and first.unary_unary is not echo
    assert intercept(icp, AUDIT, handler()) is not first
    # a method no server serves, and the open health check: nothing remembered
    for name in (f"/x.Y/M{i}" for i in range(100)):
        assert intercept(icp, name, None) is None
    health = handler()
    assert intercept(icp, "/grpc.health.v1.Health/Check", health) is health
    assert list(icp._wrapped.kept) == [AUDIT]
