"""gRPC plumbing shared by every server: error mapping, health, reflection, metrics.

Every refusal carries, besides its status code and message (``reason: message``), a
``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer (the standard rich error
model, written with ``grpcio-status``) whose details hold one ``google.rpc.ErrorInfo``:
``reason`` (the library error's snake_case reason, e.g. ``idempotency_conflict``,
``too_long``), ``domain`` :data:`DOMAIN`, and ``metadata`` with the facts a client may act
on (``field``, ``limit``, ``last_seq``...). Clients read it with :func:`error_info`.
Messages are cut at :data:`MAX_MESSAGE` characters.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from croupier.errors import (
    AlreadyExists,
    CroupierError,
    IdempotencyConflict,
    IntegrityError,
    InvalidInput,
    NotFound,
    RuleViolation,
    StaleSequence,
)
from croupier_services import metrics

log = logging.getLogger("croupier.grpc")

T = TypeVar("T")

DOMAIN = "croupier.v1"
"""``ErrorInfo.domain`` of every Croupier error."""
MAX_MESSAGE = 512
"""Longest status message sent (a message never carries unbounded input)."""


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
    if isinstance(err, StaleSequence):
        return grpc.StatusCode.ABORTED
    if isinstance(err, IntegrityError):
        return grpc.StatusCode.DATA_LOSS
    return grpc.StatusCode.INTERNAL


def rich_status(
    code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None
) -> grpc.Status:
    """A status with ``message`` (cut to :data:`MAX_MESSAGE`) and one ``ErrorInfo``."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata or {})
    detail = any_pb2.Any()
    detail.Pack(info)
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    st = status_pb2.Status(code=code.value[0], message=message, details=[detail])
    return rpc_status.to_status(st)


async def abort(
    context: grpc.aio.ServicerContext,
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
) -> None:
    """End the call with ``code``, ``message`` and an ``ErrorInfo`` (always raises)."""
    st = rich_status(code, reason, message, metadata)
    await context.abort(st.code, st.details, trailing_metadata=st.trailing_metadata)


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` of a failed call (client side), if the server sent one."""
    trailing = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailing or ():
        if key == "grpc-status-details-bin":
            st = status_pb2.Status.FromString(value)
            for d in st.details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return info
    return None


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
                await abort(context, code, e.reason, f"{e.reason}: {e.message}", e.details())
                raise  # unreachable: abort raises
            except grpc.aio.AbortError:
                raise
            except Exception:
                log.exception("internal error in %s", name)
                metrics.GRPC_REQUESTS.labels(name, "INTERNAL").inc()
                await abort(context, grpc.StatusCode.INTERNAL, "internal", "internal error")
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
