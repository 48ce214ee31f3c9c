"""Service settings from environment variables.

| variable | meaning | default |
|---|---|---|
| ``CROUPIER_NATS_URL`` | NATS server with JetStream | ``nats://127.0.0.1:4222`` |
| ``CROUPIER_DATABASE_URL`` | SQLAlchemy URL of the store | ``sqlite:///var/croupier.sqlite`` |
| ``CROUPIER_KEYS_DIR`` | directory of producer key files | ``var/keys`` |
| ``CROUPIER_GRPC_PORT`` | gRPC port of this service | per service |
| ``CROUPIER_METRICS_PORT`` | Prometheus port (0: off) | per service |
| ``CROUPIER_LOG_LEVEL`` | logging level | ``INFO`` |
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
        )
