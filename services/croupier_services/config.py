"""Service settings from environment variables (TLS files default to the auth folder's
when they exist there).

| variable | meaning | default |
|---|---|---|
| ``CROUPIER_NATS_URL`` | NATS server with JetStream | ``nats://127.0.0.1:4222`` |
| ``CROUPIER_DATABASE_URL`` | SQLAlchemy URL of the store | ``sqlite:///var/croupier.sqlite`` |
| ``CROUPIER_KEYS_DIR`` | directory of producer key files | ``var/keys`` |
| ``CROUPIER_GRPC_PORT`` | gRPC port of this service | per service |
| ``CROUPIER_METRICS_PORT`` | Prometheus port (0: off) | per service |
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
| ``CROUPIER_NATS_PROVISION`` | create the stream/consumers (``0``: only look up) | ``1`` |
| ``CROUPIER_SEED_KEY_FILE`` | dealer: SecretBox key sealing server seeds | ``<auth>/seed.key`` |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

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
    nats_provision: bool = True

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
            nats_provision=os.environ.get("CROUPIER_NATS_PROVISION", "1") not in ("0", "false"),
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
        )
