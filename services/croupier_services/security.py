"""Loading a service's security material and the dealer's view of tables for the
authentication interceptor; client-side credentials for the demo and tools."""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from croupier.auth import SEAT_TOKEN_HEADER, AuthDir, HandRef, Role, SeatTokens, TokenVerifier
from croupier.auth.channel import BearerChannel, bearer
from croupier.errors import ConfigError, Unauthenticated
from croupier.games import base as g
from croupier.store import EventStore
from croupier.store.secrets import SeedBox
from croupier_services import metrics
from croupier_services.config import AuthSettings
from croupier_services.dealer import DealerCore
from croupier_services.grpc_util import ServerSecurity


def _read(path: str, what: str) -> bytes:
    p = Path(path)
    if not path or not p.exists():
        raise ConfigError(
            f"{what} not found at {path!r}: run `croupier auth init` (development) or "
            "mount it (see README, Security)"
        )
    return p.read_bytes()


def server_security(a: AuthSettings) -> ServerSecurity:
    cert = _read(a.tls_cert, "TLS certificate") if a.tls_cert else None
    key = _read(a.tls_key, "TLS key") if a.tls_key else None
    if (cert is None) != (key is None):
        raise ConfigError("CROUPIER_TLS_CERT and CROUPIER_TLS_KEY go together")
    ca = _read(a.tls_client_ca, "client CA") if a.tls_client_ca else None
    if ca is not None and cert is None:
        raise ConfigError("mutual TLS (CROUPIER_TLS_CLIENT_CA) needs a server certificate")
    return ServerSecurity(
        TokenVerifier.from_pem(_read(a.issuer_pub, "token issuer public key")),
        cert,
        key,
        ca,
        a.reflection,
    )


def nats_tls(a: AuthSettings, url: str) -> ssl.SSLContext | None:
    """The TLS context for a ``tls://`` NATS URL (``CROUPIER_NATS_CA``, else system CAs)."""
    if not url.startswith("tls://"):
        return None
    return ssl.create_default_context(cafile=a.nats_ca or None)


def seat_tokens(a: AuthSettings) -> SeatTokens:
    return SeatTokens(_read(a.seat_key, "seat-token key"))


def seed_box(a: AuthSettings) -> SeedBox:
    return SeedBox(_read(a.seed_key, "server-seed key"))


@dataclass
class DealerResources:
    """Tables and hands as the dealer knows them, and the store's table grants."""

    core: DealerCore

    @property
    def store(self) -> EventStore:
        return self.core.store

    def table_owners(self, table_id: str, *, cached: bool = False) -> frozenset[str] | None:
        """The table's holders: the dealer's :class:`~croupier_services.grants.GrantCache`
        (``cached``: from memory when remembered; otherwise read from the store)."""
        owners = self.core.grants.owners(table_id, cached=cached)
        if owners:
            return owners
        opener = self.core.opening.get(table_id)
        if opener is not None:  # its opening is being stored: its grant follows
            return frozenset({opener})
        if table_id in self.core.dealer.tables or self.store.list_streams(
            table_id=table_id, limit=1
        ):
            return frozenset()  # a table no gateway was granted: only an operator can
        return None

    def hand(self, hand_id: str) -> HandRef | None:
        h = self.core.dealer.hands.get(hand_id)
        if h is not None:
            return HandRef(h.table_id, {n: s.player for n, s in h.state.seats.items()})
        if not hand_id:
            return None
        events = self.store.read_stream(hand_id)
        if not events or events[0].type != g.HAND_OPENED:
            return None
        p = events[0].payload
        return HandRef(
            str(p["table"]), {int(s["seat"]): str(s["player"]) for s in p.get("seats", [])}
        )

    def grant(self, table_id: str, gateway: str) -> None:
        self.store.grant_table(table_id, gateway, time.time_ns() // 1_000_000, "open")
        self.core.grants.forget(table_id)  # the next call reads the new holders


def viewer_authorizer(verifier: TokenVerifier) -> Callable[[Mapping[str, str]], str | None]:
    """The audit viewer's ``authorize`` hook: an auditor's identity token in
    ``Authorization: Bearer …`` (None: 401; another role: PermissionError, 403); every
    refusal counted like the gRPC ones (service ``viewer``)."""

    def check(headers: Mapping[str, str]) -> str | None:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            metrics.AUTH_REFUSED.labels("viewer", "missing_credential").inc()
            return None
        try:
            ident = verifier.verify(token.strip())
        except Unauthenticated as e:
            metrics.AUTH_REFUSED.labels("viewer", e.reason).inc()
            return None
        if ident.role is not Role.AUDITOR:
            metrics.AUTH_REFUSED.labels("viewer", "wrong_role").inc()
            raise PermissionError(f"{ident.role.value} {ident.subject!r} is not an auditor")
        return ident.subject

    return check


# -- clients ---------------------------------------------------------------------------


def client_channel(
    target: str,
    auth_dir: Path,
    role: Role,
    interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
    *,
    with_token: bool = True,
) -> grpc.aio.Channel:
    """A channel to a dev-material server as ``role``: TLS against the dev CA with the
    role's client certificate, and (``with_token``) its identity token on every call."""
    d = AuthDir(auth_dir)
    token: tuple[tuple[str, str], ...] = ()
    if with_token:
        path = d.token(role)
        try:
            token = bearer(path.read_text().strip())
        except ValueError as e:
            raise ConfigError(f"the {role.value} token in {path} is not a token ({e})") from e
    tls = grpc.ssl_channel_credentials(
        root_certificates=d.ca_cert.read_bytes(),
        private_key=d.client_key(role).read_bytes(),
        certificate_chain=d.client_cert(role).read_bytes(),
    )
    ch = grpc.aio.secure_channel(
        target,
        tls,
        options=[("grpc.ssl_target_name_override", "localhost")],
        interceptors=list(interceptors) or None,
    )
    # the token as each call's metadata, not as call credentials (a Python plugin run
    # for every call, ~500 µs of CPU each); the channel is TLS, so it never goes in clear
    return BearerChannel(ch, token) if token else ch


def seat_metadata(tokens: Sequence[str]) -> tuple[tuple[str, str], ...]:
    return tuple((SEAT_TOKEN_HEADER, t) for t in tokens)
