"""The one server interceptor every Croupier gRPC server installs.

For each call it finds the caller (an identity token in ``authorization: Bearer …``,
or else, on a mutual-TLS server, the client certificate: CN is the subject, OU the
role), applies the method's :data:`~croupier.auth.policy.RULES` entry (role, the
gateway's tables, the seats' tokens) and only then runs the handler, with the caller
available through :func:`current_identity`. A refusal never reaches the handler, so
nothing is written: ``UNAUTHENTICATED`` for a missing or invalid credential,
``PERMISSION_DENIED`` for the wrong role, table or seat; each is logged with its
reason and passed to ``on_refusal(service, reason)`` (the services count it in
``croupier_auth_refused_total``).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
from cryptography import x509
from cryptography.x509.oid import NameOID

from croupier import limits
from croupier.auth.policy import OPEN, RULES, Rule, service_label
from croupier.auth.tokens import Identity, Role, SeatClaim, SeatTokens, TokenVerifier
from croupier.errors import (
    AuthError,
    InvalidInput,
    PermissionDenied,
    StoreUnavailable,
    Unauthenticated,
)
from croupier.store.db import store_outage

log = logging.getLogger("croupier.auth")

SEAT_TOKEN_HEADER = "x-croupier-seat-token"
_current: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "croupier_identity", default=None
)


def current_identity() -> Identity | None:
    """The caller of the RPC being handled (``None`` outside one)."""
    return _current.get()


@dataclass(frozen=True)
class HandRef:
    """Where a hand is played and who sits at each seat."""

    table: str
    players: Mapping[int, str]


class Resources(Protocol):
    """What the gateway rules need to know about tables and hands (the dealer's)."""

    def table_owners(self, table_id: str, *, cached: bool = False) -> frozenset[str] | None:
        """Gateways allowed at the table; ``None`` if no such table exists. ``cached``:
        the answer may come from what the server remembers of the table's grants (the
        call's rule is ``rechecked`` where its effect is stored); the interceptor asks
        again with ``cached=False`` before refusing, so a remembered answer can only
        let in a caller the store would let in, or one the commit then refuses."""

    def hand(self, hand_id: str) -> HandRef | None:
        """The hand's table and seats; ``None`` if no such hand exists."""

    def grant(self, table_id: str, gateway: str) -> None:
        """Record that ``gateway`` opened ``table_id``."""


def identity_from_certificate(pem: bytes) -> Identity | None:
    cert = x509.load_pem_x509_certificate(pem)
    cn = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    ou = cert.subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)
    if not cn or not ou:
        return None
    try:
        role = Role(str(ou[0].value))
    except ValueError:
        return None
    return Identity(str(cn[0].value), role, "certificate")


def not_your_table(table: str, gateway: str) -> PermissionDenied:
    """The refusal of a gateway at a table it does not hold (``not_your_table``): by the
    interceptor, and by the dealer's commit when a grant was revoked since the call was
    admitted."""
    return PermissionDenied(
        f"table {table!r} is not open to gateway {gateway!r}", reason="not_your_table"
    )


class WrappedOnce:
    """A server interceptor's wrappings, one per method: gRPC's asyncio server asks an
    interceptor for the handler of every call, and a wrapping depends on the method and
    the handler only. Keyed on the handler wrapped (a server rebuilt is wrapped anew);
    a method nobody serves has no handler and is never remembered, so unknown method
    names cannot grow a server's memory."""

    def __init__(self, wrap: Callable[[Any, str], Any]) -> None:
        self.wrap = wrap
        self.kept: dict[str, tuple[Any, Any]] = {}

    def __call__(self, handler: Any, method: str) -> Any:
        hit = self.kept.get(method)
        if hit is not None and hit[0] is handler:
            return hit[1]
        wrapped = self.wrap(handler, method)
        self.kept[method] = (handler, wrapped)
        return wrapped


class AuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    def __init__(
        self,
        verifier: TokenVerifier,
        *,
        resources: Resources | None = None,
        seat_tokens: SeatTokens | None = None,
        trust_certificates: bool = False,
        rules: Mapping[str, Rule] = RULES,
        on_refusal: Callable[[str, str], None] | None = None,
        on_store_unavailable: Callable[[Any, StoreUnavailable], Awaitable[None]] | None = None,
    ) -> None:
        self.verifier = verifier
        self.resources = resources
        self.seat_tokens = seat_tokens
        self.trust_certificates = trust_certificates
        self.rules = rules
        self.on_refusal = on_refusal
        self.on_store_unavailable = on_store_unavailable
        self._wrapped = WrappedOnce(self._wrap)

    async def intercept_service(
        self,
        continuation: Callable[[Any], Awaitable[Any]],
        details: grpc.HandlerCallDetails,
    ) -> Any:
        handler = await continuation(details)
        method: str = details.method
        if handler is None or method in OPEN:
            return handler
        return self._wrapped(handler, method)

    def _wrap(self, handler: Any, method: str) -> Any:
        """The handler with every call admitted first (:meth:`_admit`)."""
        rule = self.rules.get(method)
        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def uu(request: Any, context: grpc.aio.ServicerContext) -> Any:
                ident = await self._admit(method, rule, request, context)
                token = _current.set(ident)
                try:
                    out = await inner_uu(request, context)
                finally:
                    _current.reset(token)
                if rule is not None and rule.opens_table and rule.table is not None:
                    assert self.resources is not None
                    self.resources.grant(rule.table(request), ident.subject)
                return out

            return grpc.unary_unary_rpc_method_handler(
                uu, handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream is not None:
            inner_us = handler.unary_stream

            async def us(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                ident = await self._admit(method, rule, request, context)
                _current.set(ident)
                async for item in inner_us(request, context):
                    yield item

            return grpc.unary_stream_rpc_method_handler(
                us, handler.request_deserializer, handler.response_serializer
            )
        if handler.stream_stream is not None:
            inner_ss = handler.stream_stream

            async def ss(requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                ident = await self._admit(method, rule, None, context)
                _current.set(ident)
                async for item in inner_ss(requests, context):
                    yield item

            return grpc.stream_stream_rpc_method_handler(
                ss, handler.request_deserializer, handler.response_serializer
            )
        inner_su = handler.stream_unary

        async def su(requests: Any, context: grpc.aio.ServicerContext) -> Any:
            ident = await self._admit(method, rule, None, context)
            _current.set(ident)
            return await inner_su(requests, context)

        return grpc.stream_unary_rpc_method_handler(
            su, handler.request_deserializer, handler.response_serializer
        )

    async def _admit(
        self, method: str, rule: Rule | None, request: Any, context: grpc.aio.ServicerContext
    ) -> Identity:
        metadata: Sequence[tuple[str, Any]] = tuple(context.invocation_metadata() or ())
        ident: Identity | None = None
        try:
            ident = self.authenticate(metadata, context)
            self.authorize(method, rule, ident, request, metadata)
            return ident
        except AuthError as e:
            code = (
                grpc.StatusCode.UNAUTHENTICATED
                if isinstance(e, Unauthenticated)
                else grpc.StatusCode.PERMISSION_DENIED
            )
            service = service_label(method)
            log.warning(
                "refused %s: %s (%s)",
                method,
                e.reason,
                e.message,
                extra={
                    "service": service,
                    "method": method,
                    "reason": e.reason,
                    "subject": ident.subject if ident else "",
                    "peer": context.peer(),
                },
            )
            if self.on_refusal is not None:
                self.on_refusal(service, e.reason)
            await context.abort(code, f"{e.reason}: {e.message}")
            raise  # unreachable: abort raises
        except grpc.aio.AbortError:
            raise
        except Exception as e:
            # checking seat tokens or resources may touch the store: an outage there is
            # UNAVAILABLE (retry), not an internal error
            outage = store_outage(e)
            if outage is None:
                raise
            log.warning("store unavailable admitting %s: %s", method, outage.message)
            if self.on_store_unavailable is not None:
                await self.on_store_unavailable(context, outage)
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{outage.reason}: {outage.message}")
            raise  # unreachable: abort raises

    def authenticate(
        self, metadata: Sequence[tuple[str, Any]], context: grpc.aio.ServicerContext
    ) -> Identity:
        bearer = [str(v) for k, v in metadata if k == "authorization"]
        if len(bearer) > 1:
            raise Unauthenticated("more than one authorization header", reason="bad_token")
        if bearer:
            scheme, _, token = bearer[0].partition(" ")
            if scheme.lower() != "bearer" or not token:
                raise Unauthenticated("authorization is not a bearer token", reason="bad_token")
            return self.verifier.verify(token.strip())
        if self.trust_certificates:
            pems = (context.auth_context() or {}).get("x509_pem_cert") or []
            if pems:
                ident = identity_from_certificate(pems[0])
                if ident is not None:
                    return ident
                raise Unauthenticated(
                    "client certificate names no role (OU)", reason="bad_certificate"
                )
        raise Unauthenticated("no credential", reason="missing_credential")

    def authorize(
        self,
        method: str,
        rule: Rule | None,
        ident: Identity,
        request: Any,
        metadata: Sequence[tuple[str, Any]],
    ) -> None:
        if rule is None:
            raise PermissionDenied(f"{method} is not open to any caller", reason="no_policy")
        if ident.role not in rule.roles:
            raise PermissionDenied(
                f"{ident.role.value} {ident.subject!r} may not call {method}",
                reason="wrong_role",
            )
        if rule.table is None and rule.hand is None:
            return
        if self.resources is None:
            raise PermissionDenied("this server cannot check table grants", reason="no_policy")
        players: Mapping[int, str] = {}
        if rule.table is not None:
            table = rule.table(request)
            if not _well_formed(limits.table_id, table):
                return  # no such table can exist: the handler refuses the malformed id
            owners = self._owners(rule, table, ident)
            if owners is None:
                return  # no such table: the handler says so (or opens it)
            if rule.players is not None:
                players = rule.players(request)
        else:
            assert rule.hand is not None
            hand_id = rule.hand(request)
            if not _well_formed(limits.hand_id, hand_id):
                return  # no such hand can exist: the handler refuses the malformed id
            ref = self.resources.hand(hand_id)
            if ref is None:
                return  # no such hand: the handler says so
            table, players = ref.table, ref.players
            owners = self._owners(rule, table, ident) or frozenset()
        if ident.subject not in owners:
            raise not_your_table(table, ident.subject)
        if rule.seats is not None:
            self._check_seats(ident, table, players, rule.seats(request), metadata)

    def _owners(self, rule: Rule, table: str, ident: Identity) -> frozenset[str] | None:
        """The table's holders: from the server's memory for a ``rechecked`` rule, read
        again from the store when the caller is not among them (a grant made since by
        another replica or an operator is seen; a refusal is always the store's)."""
        assert self.resources is not None
        if rule.rechecked:
            owners = self.resources.table_owners(table, cached=True)
            if owners is not None and ident.subject in owners:
                return owners
        return self.resources.table_owners(table)

    def _check_seats(
        self,
        ident: Identity,
        table: str,
        players: Mapping[int, str],
        seats: Iterable[int],
        metadata: Sequence[tuple[str, Any]],
    ) -> None:
        wanted = sorted(set(seats))
        if players:
            # a seat nobody sits in has nobody to act for: the handler refuses the request
            # (a malformed or unknown seat), and nothing is written either way
            wanted = [s for s in wanted if s in players]
        if not wanted:
            return
        if self.seat_tokens is None:
            raise PermissionDenied("this server cannot check seat tokens", reason="no_policy")
        claims: list[SeatClaim] = [
            self.seat_tokens.verify(str(v)) for k, v in metadata if k == SEAT_TOKEN_HEADER
        ]
        for seat in wanted:
            ok = any(
                c.table == table
                and c.seat == seat
                and c.gateway == ident.subject
                and (seat not in players or c.player == players[seat])
                for c in claims
            )
            if not ok:
                raise PermissionDenied(
                    f"no seat token for seat {seat} at {table!r}"
                    + (f" ({players[seat]})" if seat in players else ""),
                    reason="wrong_seat" if claims else "no_seat_token",
                )


def _well_formed(check: Callable[[str], str], value: str) -> bool:
    """Whether ``value`` passes the edge limits (:mod:`croupier.limits`): ids that do not
    are never looked up (a NUL or an unbounded string never reaches the database)."""
    try:
        check(value)
    except InvalidInput:
        return False
    return True
