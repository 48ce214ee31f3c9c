"""gRPC plumbing shared by every server: construction behind the authentication
interceptor (TLS, mutual TLS), error mapping, health, reflection, metrics."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from croupier.auth import AuthInterceptor, Resources, SeatTokens, TokenVerifier
from croupier.errors import (
    AlreadyExists,
    CroupierError,
    IdempotencyConflict,
    IntegrityError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    RuleViolation,
    Unauthenticated,
)
from croupier_services import metrics

log = logging.getLogger("croupier.grpc")

T = TypeVar("T")


# Rule violations that are about the request's form rather than the game's state.
_MALFORMED = frozenset({"bad_amount", "malformed", "unknown_spot", "bad_card"})


def status_for(err: CroupierError) -> grpc.StatusCode:
    if isinstance(err, Unauthenticated):
        return grpc.StatusCode.UNAUTHENTICATED
    if isinstance(err, PermissionDenied):
        return grpc.StatusCode.PERMISSION_DENIED
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
    )
    return grpc.aio.server(interceptors=[interceptor])


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
