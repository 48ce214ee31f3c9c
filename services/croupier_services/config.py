"""Service settings from environment variables.

| variable | meaning | default |
|---|---|---|
| ``CROUPIER_NATS_URL`` | NATS server with JetStream | ``nats://127.0.0.1:4222`` |
| ``CROUPIER_DATABASE_URL`` | SQLAlchemy URL of the store | ``sqlite:///var/croupier.sqlite`` |
| ``CROUPIER_KEYS_DIR`` | directory of producer key files | ``var/keys`` |
| ``CROUPIER_GRPC_PORT`` | gRPC port of this service | per service |
| ``CROUPIER_METRICS_PORT`` | Prometheus port (0: off) | per service |
| ``CROUPIER_LOG_LEVEL`` | logging level | ``INFO`` |
| ``CROUPIER_REQUEST_ID_RETENTION_S`` | how long the dealer keeps gateway request ids | ``86400`` |
| ``CROUPIER_REQUIRE_REQUEST_ID`` | ``1``: refuse mutating gateway calls without one | ``0`` |
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_PORTS = {
    "dealer": (50051, 9101),
    "rules": (0, 9102),
    "settlement": (50053, 9103),
    "audit": (50054, 9104),
}


@dataclass(frozen=True)
class Settings:
    nats_url: str
    database_url: str
    keys_dir: str
    grpc_port: int
    metrics_port: int
    log_level: str
    request_id_retention_s: int = 86_400
    require_request_id: bool = False

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
            request_id_retention_s=int(os.environ.get("CROUPIER_REQUEST_ID_RETENTION_S", "86400")),
            require_request_id=os.environ.get("CROUPIER_REQUIRE_REQUEST_ID", "0").lower()
            in ("1", "true", "yes"),
        )
