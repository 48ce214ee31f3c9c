"""gRPC plumbing shared by every server: error mapping, health, reflection, metrics."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from croupier.errors import (
    AlreadyExists,
    CroupierError,
    IdempotencyConflict,
    IntegrityError,
    InvalidInput,
    NotFound,
    RuleViolation,
)
from croupier_services import metrics

log = logging.getLogger("croupier.grpc")

T = TypeVar("T")


# Rule violations that are about the request's form rather than the game's state.
_MALFORMED = frozenset({"bad_amount", "malformed", "unknown_spot", "bad_card"})


def status_for(err: CroupierError) -> grpc.StatusCode:
    if isinstance(err, AlreadyExists):
        return grpc.StatusCode.ALREADY_EXISTS
    if isinstance(err, RuleViolation) and err.reason in _MALFORMED:
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(err, NotFound):
        return grpc.StatusCode.NOT_FOUND
    if isinstance(err, RuleViolation):
        return grpc.StatusCode.FAILED_PRECONDITION
    if isinstance(err, InvalidInput):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(err, IdempotencyConflict):
        return grpc.StatusCode.ALREADY_EXISTS
    if isinstance(err, IntegrityError):
        return grpc.StatusCode.DATA_LOSS
    return grpc.StatusCode.INTERNAL


def rpc(name: str) -> Callable[[Callable[..., Awaitable[T]]], Callable[..., Awaitable[T]]]:
    """Decorate an async servicer method: map library errors to gRPC statuses with the
    error's message (``reason: message``) and count calls by method and code."""

    def deco(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(fn)
        async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> T:
            try:
                out = await fn(self, request, context)
            except CroupierError as e:
                code = status_for(e)
                metrics.GRPC_REQUESTS.labels(name, code.name).inc()
                await context.abort(code, f"{e.reason}: {e.message}")
                raise  # unreachable: abort raises
            except grpc.aio.AbortError:
                raise
            except Exception:
                log.exception("internal error in %s", name)
                metrics.GRPC_REQUESTS.labels(name, "INTERNAL").inc()
                await context.abort(grpc.StatusCode.INTERNAL, "internal error")
                raise
            metrics.GRPC_REQUESTS.labels(name, "OK").inc()
            return out

        return wrapper

    return deco


async def add_health_and_reflection(
    server: grpc.aio.Server, service_names: Sequence[str]
) -> health.aio.HealthServicer:
    hs = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(hs, server)
    for n in [*service_names, ""]:
        await hs.set(n, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        [*service_names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    return hs
