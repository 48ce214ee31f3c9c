"""gRPC plumbing shared by every server: construction behind the authentication
interceptor (TLS, mutual TLS), error mapping, health, reflection, metrics.

Every refusal carries, besides its status code and message (``reason: message``), a
``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer (the standard rich error
model, written with ``grpcio-status``) whose details hold one ``google.rpc.ErrorInfo``:
``reason`` (the library error's snake_case reason, e.g. ``idempotency_conflict``,
``too_long``), ``domain`` :data:`DOMAIN`, and ``metadata`` with the facts a client may act
on (``field``, ``limit``, ``last_seq``...). Clients read it with :func:`error_info`.
Messages are cut at :data:`MAX_MESSAGE` characters.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from croupier import trace
from croupier.auth import AuthInterceptor, Resources, SeatTokens, TokenVerifier
from croupier.auth.interceptor import WrappedOnce
from croupier.errors import (
    AlreadyExists,
    CroupierError,
    IdempotencyConflict,
    IntegrityError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    RuleViolation,
    SigningKeyRevoked,
    StaleFencingToken,
    StaleSequence,
    StoreUnavailable,
    TableOwnedElsewhere,
    Unauthenticated,
)
from croupier.store.db import store_outage
from croupier_services import logs, metrics

log = logging.getLogger("croupier.grpc")

T = TypeVar("T")

DOMAIN = "croupier.v1"
"""``ErrorInfo.domain`` of every Croupier error."""
MAX_MESSAGE = 512
"""Longest status message sent (a message never carries unbounded input)."""
RETRY_AFTER_S = 1.0
"""``RetryInfo.retry_delay`` sent with ``UNAVAILABLE`` (database outage)."""
"""Longest status message sent (a message never carries unbounded input)."""


# Rule violations that are about the request's form rather than the game's state.
_MALFORMED = frozenset({"bad_amount", "malformed", "unknown_spot", "bad_card"})


def status_for(err: CroupierError) -> grpc.StatusCode:
    if isinstance(err, StoreUnavailable):
        return grpc.StatusCode.UNAVAILABLE
    if isinstance(err, Unauthenticated):
        return grpc.StatusCode.UNAUTHENTICATED
    if isinstance(err, PermissionDenied):
        return grpc.StatusCode.PERMISSION_DENIED
    if isinstance(err, SigningKeyRevoked):
        return grpc.StatusCode.FAILED_PRECONDITION
    if isinstance(err, AlreadyExists):
        return grpc.StatusCode.ALREADY_EXISTS
    if isinstance(err, RuleViolation) and err.reason in _MALFORMED:
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(err, NotFound):
        return grpc.StatusCode.NOT_FOUND
    if isinstance(err, (TableOwnedElsewhere, StaleFencingToken)):
        # another replica owns the table: retry there (ErrorInfo names the owner)
        return grpc.StatusCode.UNAVAILABLE
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
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    retry_after: float | None = None,
) -> grpc.Status:
    """A status with ``message`` (cut to :data:`MAX_MESSAGE`) and one ``ErrorInfo``
    (then a ``RetryInfo`` when ``retry_after`` seconds are given)."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata or {})
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(int(retry_after * 1e9))
        packed = any_pb2.Any()
        packed.Pack(retry)
        details.append(packed)
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    st = status_pb2.Status(code=code.value[0], message=message, details=details)
    return rpc_status.to_status(st)


async def abort(
    context: grpc.aio.ServicerContext,
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    retry_after: float | None = None,
) -> None:
    """End the call with ``code``, ``message`` and an ``ErrorInfo`` (always raises)."""
    st = rich_status(code, reason, message, metadata, retry_after)
    await context.abort(st.code, st.details, trailing_metadata=st.trailing_metadata)


async def abort_store_unavailable(context: grpc.aio.ServicerContext, err: StoreUnavailable) -> None:
    """End the call with ``UNAVAILABLE`` / ``store_unavailable`` and a ``RetryInfo`` of
    :data:`RETRY_AFTER_S` (always raises)."""
    await abort(
        context,
        grpc.StatusCode.UNAVAILABLE,
        err.reason,
        f"{err.reason}: {err.message}",
        err.details(),
        retry_after=RETRY_AFTER_S,
    )


_D = TypeVar("_D", error_details_pb2.RetryInfo, error_details_pb2.ErrorInfo)


def _detail(err: grpc.RpcError, kind: type[_D]) -> _D | None:
    """The first ``google.rpc`` detail of type ``kind`` a failed call carries."""
    trailing = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailing or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = kind()
                if d.Is(info.DESCRIPTOR) and d.Unpack(info):
                    return info
    return None


def retry_info(err: grpc.RpcError) -> error_details_pb2.RetryInfo | None:
    """The ``RetryInfo`` of a failed call (client side), if the server sent one."""
    return _detail(err, error_details_pb2.RetryInfo)


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` of a failed call (client side), if the server sent one."""
    return _detail(err, error_details_pb2.ErrorInfo)


def rpc(name: str) -> Callable[[Callable[..., Awaitable[T]]], Callable[..., Awaitable[T]]]:
    """Decorate an async servicer method: map library errors to gRPC statuses with the
    error's message (``reason: message``). Calls are counted by the server interceptor
    (``grpc_server_handled_total``)."""

    def deco(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        @functools.wraps(fn)
        async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> T:
            with logs.bind(**_ids_of(request, context)):
                return await _call(name, fn, self, request, context)

        return wrapper

    return deco


async def _call(
    name: str,
    fn: Callable[..., Awaitable[T]],
    self: Any,
    request: Any,
    context: grpc.aio.ServicerContext,
) -> T:
    """Run a servicer method, mapping library errors to gRPC statuses."""
    try:
        return await fn(self, request, context)
    except Exception as e:
        await _abort_for(name, context, e)


async def _abort_for(name: str, context: grpc.aio.ServicerContext, e: Exception) -> NoReturn:
    """End a call that raised ``e`` with its gRPC status: a library error's own, a
    database that cannot be reached UNAVAILABLE ``store_unavailable`` with a retry
    delay, anything else INTERNAL (logged with its traceback, never echoed)."""
    if isinstance(e, grpc.aio.AbortError):
        raise e
    if not isinstance(e, CroupierError):
        outage = store_outage(e)
        if outage is None:
            log.exception("internal error in %s", name)
            await abort(context, grpc.StatusCode.INTERNAL, "internal", "internal error")
            raise e
        e = outage
    if isinstance(e, StoreUnavailable):
        log.warning("store unavailable in %s: %s", name, e.message)
        await abort_store_unavailable(context, e)
    else:
        await abort(context, status_for(e), e.reason, f"{e.reason}: {e.message}", e.details())
    raise e  # unreachable: abort raises


def rpc_stream(
    name: str,
) -> Callable[[Callable[..., AsyncIterator[T]]], Callable[..., AsyncIterator[T]]]:
    """:func:`rpc` for a server-streaming method (an async generator): the same mapping
    of library errors and database outages (UNAVAILABLE ``store_unavailable`` with a
    retry delay), whether the error comes before the first message or between two."""

    def deco(fn: Callable[..., AsyncIterator[T]]) -> Callable[..., AsyncIterator[T]]:
        @functools.wraps(fn)
        async def wrapper(
            self: Any, request: Any, context: grpc.aio.ServicerContext
        ) -> AsyncIterator[T]:
            try:
                async for item in fn(self, request, context):
                    yield item
            except Exception as e:
                await _abort_for(name, context, e)

        return wrapper

    return deco


def _ids_of(request: Any, context: grpc.aio.ServicerContext) -> dict[str, str | None]:
    """The hand and table a request names (its ``hand_id`` / ``table_id`` fields) and the
    trace id to bind into the logs: a call naming a hand is in the hand's trace
    (:func:`croupier.trace.hand_trace_id`, the one every message of the hand carries);
    a W3C ``traceparent`` in the call's metadata with another trace id is kept as
    ``caller_trace_id`` (a link to the caller's trace), and is the trace id of a call
    that names no hand."""
    md = getattr(context, "invocation_metadata", None)
    tp = dict((md() if callable(md) else None) or ()).get("traceparent")
    caller = logs.trace_id_of(tp if isinstance(tp, str) else None)
    hand_id = str(getattr(request, "hand_id", "") or "") or None
    own = trace.hand_trace_id(hand_id) if hand_id else caller
    return {
        "hand_id": hand_id,
        "table_id": str(getattr(request, "table_id", "") or "") or None,
        "trace_id": own,
        "caller_trace_id": caller if caller != own else None,
    }


# -- server construction -------------------------------------------------------------


@dataclass(frozen=True)
class ServerSecurity:
    """How a server lets callers in: identity tokens checked against the issuer's
    public key; TLS when a certificate is given; mutual TLS (and client-certificate
    identities) when a client CA is given."""

    verifier: TokenVerifier
    cert_pem: bytes | None = None
    key_pem: bytes | None = None
    client_ca_pem: bytes | None = None
    reflection: bool = True

    @property
    def mutual(self) -> bool:
        return self.client_ca_pem is not None


def make_server(
    security: ServerSecurity,
    *,
    resources: Resources | None = None,
    seat_tokens: SeatTokens | None = None,
) -> grpc.aio.Server:
    """A gRPC server behind the one authentication interceptor (every refusal counted
    in ``croupier_auth_refused_total{service,reason}``)."""
    interceptor = AuthInterceptor(
        security.verifier,
        resources=resources,
        seat_tokens=seat_tokens,
        trust_certificates=security.mutual,
        on_refusal=lambda service, reason: metrics.AUTH_REFUSED.labels(service, reason).inc(),
        on_store_unavailable=abort_store_unavailable,
    )
    # metrics outermost: a refused call is timed and counted with its status too
    return grpc.aio.server(interceptors=[MetricsInterceptor(), interceptor])


def bind(server: grpc.aio.Server, host: str, port: int, security: ServerSecurity) -> int:
    """Listen on ``host:port`` (TLS when the security has a certificate); the port."""
    address = f"{host}:{port}"
    if security.cert_pem is None or security.key_pem is None:
        log.warning("gRPC on %s without TLS: tokens travel in clear text", address)
        return int(server.add_insecure_port(address))
    creds = grpc.ssl_server_credentials(
        [(security.key_pem, security.cert_pem)],
        root_certificates=security.client_ca_pem,
        require_client_auth=security.mutual,
    )
    return int(server.add_secure_port(address, creds))


async def add_health_and_reflection(
    server: grpc.aio.Server, service_names: Sequence[str], reflection_on: bool = True
) -> health.aio.HealthServicer:
    hs = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(hs, server)
    for n in [*service_names, ""]:
        await hs.set(n, health_pb2.HealthCheckResponse.SERVING)
    if reflection_on:
        reflection.enable_server_reflection(
            [*service_names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
        )
    return hs


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    """Every RPC of a server (health and reflection included), timed and counted with
    the standard gRPC server metric names (``grpc_server_handled_total`` and
    ``grpc_server_handling_seconds`` by service, method, type and code), so the usual
    gRPC dashboards and latency SLOs apply as they are."""

    def __init__(self) -> None:
        self._wrapped = WrappedOnce(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:
            return handler
        return self._wrapped(handler, str(details.method))  # type: ignore[no-any-return]

    @staticmethod
    def _wrap(handler: grpc.RpcMethodHandler, name: str) -> grpc.RpcMethodHandler:
        service, _, method = name.lstrip("/").rpartition("/")
        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                t0 = time.perf_counter()
                code = "OK"
                try:
                    return await inner_uu(request, context)
                except BaseException as e:
                    code = _code_of(context, e)
                    raise
                finally:
                    _observe(service, method, "unary", code, t0)

            return handler._replace(unary_unary=unary_unary)  # type: ignore[attr-defined,no-any-return]
        if handler.unary_stream is not None:
            inner_us = handler.unary_stream

            async def unary_stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
                t0 = time.perf_counter()
                code = "OK"
                try:
                    async for item in inner_us(request, context):
                        yield item
                except BaseException as e:
                    code = _code_of(context, e)
                    raise
                finally:
                    _observe(service, method, "server_stream", code, t0)

            return handler._replace(unary_stream=unary_stream)  # type: ignore[attr-defined,no-any-return]
        return handler


def _code_of(context: grpc.aio.ServicerContext, err: BaseException) -> str:
    if isinstance(err, asyncio.CancelledError):
        return "CANCELLED"
    code = context.code() if isinstance(err, grpc.aio.AbortError) else None
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


_SERIES: dict[tuple[str, str, str, str], tuple[Any, Any]] = {}  # per method and code


def _observe(service: str, method: str, kind: str, code: str, t0: float) -> None:
    key = (service, method, kind, code)
    series = _SERIES.get(key)
    if series is None:  # bound once: labels() validates and locks on every call
        series = _SERIES[key] = (
            metrics.GRPC_HANDLED.labels(service, method, kind, code),
            metrics.GRPC_HANDLING.labels(service, method, kind),
        )
    series[0].inc()
    series[1].observe(time.perf_counter() - t0)
