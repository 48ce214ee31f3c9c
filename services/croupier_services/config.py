"""Service settings from environment variables (TLS files default to the auth folder's
when they exist there).

| variable | meaning | default |
|---|---|---|
| ``CROUPIER_NATS_URL`` | NATS servers, comma-separated | ``nats://127.0.0.1:4222`` |
| ``CROUPIER_DATABASE_URL`` | SQLAlchemy URL of the store | ``sqlite:///var/croupier.sqlite`` |
| ``CROUPIER_KEYS_DIR`` | directory of producer key files | ``var/keys`` |
| ``CROUPIER_GRPC_PORT`` | gRPC port of this service | per service |
| ``CROUPIER_METRICS_PORT`` | ``/metrics``, ``/readyz``, ``/livez`` (0: off) | per service |
| ``CROUPIER_LOG_LEVEL`` | logging level | ``INFO`` |
| ``CROUPIER_GRPC_HOST`` | gRPC bind address | ``127.0.0.1`` (containers: ``0.0.0.0``) |
| ``CROUPIER_METRICS_HOST`` | ``/metrics`` bind address | ``127.0.0.1`` |
| ``CROUPIER_REFLECTION`` | serve gRPC reflection (``1``/``0``) | ``1`` |
| ``CROUPIER_AUTH_DIR`` | security material (see :mod:`croupier.auth.material`) | ``var/auth`` |
| ``CROUPIER_TLS_CERT``, ``_KEY`` | server certificate, key (empty: no TLS) | ``<auth>/server.*`` |
| ``CROUPIER_TLS_CLIENT_CA`` | client CA: mutual TLS (empty: off) | ``<auth>/ca.pem`` |
| ``CROUPIER_AUTH_ISSUER_PUB`` | token issuer public key (required) | ``<auth>/issuer.pub`` |
| ``CROUPIER_SEAT_KEY_FILE`` | dealer: seat-token key | ``<auth>/seat.key`` |
| ``CROUPIER_NATS_CA`` | CA file for ``tls://`` NATS (empty: system CAs) | none |
| ``CROUPIER_SEED_KEY_FILE`` | dealer: SecretBox key sealing server seeds | ``<auth>/seed.key`` |
| ``CROUPIER_STREAM_REPLICAS`` | replicas of the ``CROUPIER`` stream | ``1`` |
| ``CROUPIER_STREAM_MAX_AGE_S`` | oldest message kept, seconds (0: unlimited) | ``0`` |
| ``CROUPIER_STREAM_MAX_BYTES`` | stream size limit (-1: unlimited) | ``-1`` |
| ``CROUPIER_STREAM_DISCARD`` | when full: ``new`` (refuse publishes) or ``old`` | ``new`` |
| ``CROUPIER_STREAM_DUPLICATE_WINDOW_S`` | ``Nats-Msg-Id`` deduplication window | ``120`` |
| ``CROUPIER_CONSUMER_ACK_WAIT_S`` | redelivery after this long unacknowledged | ``10`` |
| ``CROUPIER_CONSUMER_MAX_DELIVER`` | deliveries of a message (-1: unlimited) | ``-1`` |
| ``CROUPIER_CONSUMER_BACKOFF_S`` | redelivery delays, comma-separated seconds | (none) |
| ``CROUPIER_CONSUMER_MAX_ACK_PENDING`` | unacknowledged messages per consumer | ``20000`` |
| ``CROUPIER_STALL_AFTER_S`` | no progress this long with work pending: stalled | ``60`` |
| ``CROUPIER_UNVERIFIABLE_PAUSE_S`` | pause after a message it cannot verify | ``30`` |
| ``CROUPIER_REQUEST_ID_RETENTION_S`` | how long the dealer keeps gateway request ids | ``86400`` |
| ``CROUPIER_REQUIRE_REQUEST_ID`` | ``1``: refuse mutating gateway calls without one | ``0`` |
| ``CROUPIER_DEALER_ID`` | dealer replica id: own tables by lease (empty: single dealer) | (empty) |
| ``CROUPIER_DEALER_ADDRESS`` | host:port other replicas route this replica's tables to | (empty) |
| ``CROUPIER_LEASE_TTL_MS`` | a table lease's lifetime; renewed every third of it | ``10000`` |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from croupier.bus.jetstream import ConsumerSpec, StreamSpec
from croupier.errors import InvalidInput

DEFAULT_PORTS = {
    "dealer": (50051, 9101),
    "rules": (0, 9102),
    "settlement": (50053, 9103),
    "audit": (50054, 9104),
}


def _file(var: str, default: Path) -> str:
    """The path in ``var`` (set but empty: none), else ``default`` when it exists."""
    if var in os.environ:
        return os.environ[var]
    return str(default) if default.exists() else ""


@dataclass(frozen=True)
class AuthSettings:
    """Where a service listens and the material it authenticates callers with."""

    auth_dir: str = "var/auth"
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    issuer_pub: str = ""
    seat_key: str = ""
    seed_key: str = ""
    grpc_host: str = "127.0.0.1"
    metrics_host: str = "127.0.0.1"
    reflection: bool = True
    nats_ca: str = ""

    @classmethod
    def from_env(cls, auth_dir: str | None = None) -> AuthSettings:
        d = Path(auth_dir or os.environ.get("CROUPIER_AUTH_DIR", "var/auth"))
        return cls(
            auth_dir=str(d),
            tls_cert=_file("CROUPIER_TLS_CERT", d / "server.pem"),
            tls_key=_file("CROUPIER_TLS_KEY", d / "server.key"),
            tls_client_ca=_file("CROUPIER_TLS_CLIENT_CA", d / "ca.pem"),
            issuer_pub=os.environ.get("CROUPIER_AUTH_ISSUER_PUB", str(d / "issuer.pub")),
            seat_key=os.environ.get("CROUPIER_SEAT_KEY_FILE", str(d / "seat.key")),
            seed_key=os.environ.get("CROUPIER_SEED_KEY_FILE", str(d / "seed.key")),
            grpc_host=os.environ.get("CROUPIER_GRPC_HOST", "127.0.0.1"),
            metrics_host=os.environ.get("CROUPIER_METRICS_HOST", "127.0.0.1"),
            reflection=os.environ.get("CROUPIER_REFLECTION", "1") not in ("0", "false", "no"),
            nats_ca=os.environ.get("CROUPIER_NATS_CA", ""),
        )
def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw not in (None, "") else default
    except ValueError as e:
        raise InvalidInput(f"{name} must be a number, got {raw!r}") from e


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw not in (None, "") else default
    except ValueError as e:
        raise InvalidInput(f"{name} must be an integer, got {raw!r}") from e


def stream_spec_from_env() -> StreamSpec:
    return StreamSpec(
        replicas=_int("CROUPIER_STREAM_REPLICAS", 1),
        max_age_s=_float("CROUPIER_STREAM_MAX_AGE_S", 0.0),
        max_bytes=_int("CROUPIER_STREAM_MAX_BYTES", -1),
        discard=os.environ.get("CROUPIER_STREAM_DISCARD", "new") or "new",
        duplicate_window_s=_float("CROUPIER_STREAM_DUPLICATE_WINDOW_S", 120.0),
    )


def consumer_spec_from_env() -> ConsumerSpec:
    raw = os.environ.get("CROUPIER_CONSUMER_BACKOFF_S", "")
    try:
        backoff = tuple(float(x) for x in raw.split(",") if x.strip())
    except ValueError as e:
        raise InvalidInput(f"CROUPIER_CONSUMER_BACKOFF_S must be seconds, got {raw!r}") from e
    return ConsumerSpec(
        ack_wait_s=_float("CROUPIER_CONSUMER_ACK_WAIT_S", 10.0),
        max_deliver=_int("CROUPIER_CONSUMER_MAX_DELIVER", -1),
        backoff_s=backoff,
        max_ack_pending=_int("CROUPIER_CONSUMER_MAX_ACK_PENDING", 20_000),
    )


@dataclass(frozen=True)
class Settings:
    nats_url: str
    database_url: str
    keys_dir: str
    grpc_port: int
    metrics_port: int
    log_level: str
    auth: AuthSettings = field(default_factory=AuthSettings)
    stream: StreamSpec = field(default_factory=StreamSpec)
    consumers: ConsumerSpec = field(default_factory=ConsumerSpec)
    stall_after_s: float = 60.0
    unverifiable_pause_s: float = 30.0
    request_id_retention_s: int = 86_400
    require_request_id: bool = False
    dealer_id: str = ""
    dealer_address: str = ""
    lease_ttl_ms: int = 10_000

    @classmethod
    def from_env(cls, service: str) -> Settings:
        g, m = DEFAULT_PORTS.get(service, (0, 0))
        return cls(
            nats_url=os.environ.get("CROUPIER_NATS_URL", "nats://127.0.0.1:4222"),
            database_url=os.environ.get("CROUPIER_DATABASE_URL", "sqlite:///var/croupier.sqlite"),
            keys_dir=os.environ.get("CROUPIER_KEYS_DIR", "var/keys"),
            grpc_port=int(os.environ.get("CROUPIER_GRPC_PORT", g)),
            metrics_port=int(os.environ.get("CROUPIER_METRICS_PORT", m)),
            log_level=os.environ.get("CROUPIER_LOG_LEVEL", "INFO"),
            auth=AuthSettings.from_env(),
            stream=stream_spec_from_env(),
            consumers=consumer_spec_from_env(),
            stall_after_s=_float("CROUPIER_STALL_AFTER_S", 60.0),
            unverifiable_pause_s=_float("CROUPIER_UNVERIFIABLE_PAUSE_S", 30.0),
            request_id_retention_s=_int("CROUPIER_REQUEST_ID_RETENTION_S", 86_400),
            require_request_id=os.environ.get("CROUPIER_REQUIRE_REQUEST_ID", "0").lower()
            in ("1", "true", "yes"),
            dealer_id=os.environ.get("CROUPIER_DEALER_ID", ""),
            dealer_address=os.environ.get("CROUPIER_DEALER_ADDRESS", ""),
            lease_ttl_ms=_int("CROUPIER_LEASE_TTL_MS", 10_000),
        )
