#!/usr/bin/env python3
"""Container health probe for Croupier processes.

    croupier-healthcheck grpc PORT [SERVICE]   grpc.health.v1 Check on 127.0.0.1:PORT
    croupier-healthcheck http PORT [PATH]      HTTP GET on 127.0.0.1:PORT (default /metrics)

Exits 0 when healthy (SERVING / HTTP 2xx), 1 otherwise. Used by the
docker-compose healthchecks and the Kubernetes exec probes. When the service runs
TLS (``CROUPIER_TLS_CERT``/``_KEY``, or ``server.pem``/``server.key`` in
``CROUPIER_AUTH_DIR``) the probe speaks TLS against ``CROUPIER_TLS_CLIENT_CA`` (or
``ca.pem``) and presents the server's own certificate: health checks need no
identity, the TLS handshake does.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path

TIMEOUT_S = 3.0


def _file(var: str, name: str) -> Path | None:
    value = os.environ.get(var)
    if value is not None:
        return Path(value) if value else None
    p = Path(os.environ.get("CROUPIER_AUTH_DIR", "var/auth")) / name
    return p if p.exists() else None


def _channel(grpc: object, target: str) -> object:
    cert, key = _file("CROUPIER_TLS_CERT", "server.pem"), _file("CROUPIER_TLS_KEY", "server.key")
    if cert is None or key is None:
        return grpc.insecure_channel(target)  # type: ignore[attr-defined]
    ca = _file("CROUPIER_TLS_CLIENT_CA", "ca.pem")
    creds = grpc.ssl_channel_credentials(  # type: ignore[attr-defined]
        root_certificates=ca.read_bytes() if ca else None,
        private_key=key.read_bytes(),
        certificate_chain=cert.read_bytes(),
    )
    return grpc.secure_channel(  # type: ignore[attr-defined]
        target, creds, options=[("grpc.ssl_target_name_override", "localhost")]
    )


def check_grpc(port: str, service: str) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with _channel(grpc, f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT_S
            )
        except grpc.RpcError as exc:
            print(f"grpc health: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return 1
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        print(f"grpc health: {name}", file=sys.stderr)
        return 1
    return 0


def check_http(port: str, path: str) -> int:
    url = f"http://127.0.0.1:{port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:
            status = resp.status
    except OSError as exc:
        print(f"http health: {url}: {exc}", file=sys.stderr)
        return 1
    if not 200 <= status < 300:
        print(f"http health: {url}: HTTP {status}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in ("grpc", "http"):
        print(__doc__, file=sys.stderr)
        return 2
    kind, port = argv[1], argv[2]
    if kind == "grpc":
        return check_grpc(port, argv[3] if len(argv) > 3 else "")
    return check_http(port, argv[3] if len(argv) > 3 else "/metrics")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
