"""Service settings from environment variables.

| variable | meaning | default |
|---|---|---|
| ``CROUPIER_NATS_URL`` | NATS servers, comma-separated | ``nats://127.0.0.1:4222`` |
| ``CROUPIER_DATABASE_URL`` | SQLAlchemy URL of the store | ``sqlite:///var/croupier.sqlite`` |
| ``CROUPIER_KEYS_DIR`` | directory of producer key files | ``var/keys`` |
| ``CROUPIER_GRPC_PORT`` | gRPC port of this service | per service |
| ``CROUPIER_METRICS_PORT`` | ``/metrics``, ``/readyz``, ``/livez`` (0: off) | per service |
| ``CROUPIER_LOG_LEVEL`` | logging level | ``INFO`` |
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
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from croupier.bus.jetstream import ConsumerSpec, StreamSpec
from croupier.errors import InvalidInput

DEFAULT_PORTS = {
    "dealer": (50051, 9101),
    "rules": (0, 9102),
    "settlement": (50053, 9103),
    "audit": (50054, 9104),
}


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
    stream: StreamSpec = field(default_factory=StreamSpec)
    consumers: ConsumerSpec = field(default_factory=ConsumerSpec)
    stall_after_s: float = 60.0
    unverifiable_pause_s: float = 30.0

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
            stream=stream_spec_from_env(),
            consumers=consumer_spec_from_env(),
            stall_after_s=_float("CROUPIER_STALL_AFTER_S", 60.0),
            unverifiable_pause_s=_float("CROUPIER_UNVERIFIABLE_PAUSE_S", 30.0),
        )
