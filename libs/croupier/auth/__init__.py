"""Authenticated callers: identity and seat tokens, development certificates, the
per-method policy and the one server interceptor every service installs."""

from croupier.auth.interceptor import (
    SEAT_TOKEN_HEADER,
    AuthInterceptor,
    HandRef,
    Resources,
    current_identity,
    identity_from_certificate,
    not_your_table,
)
from croupier.auth.material import AuthDir, init_dev
from croupier.auth.policy import RULES, Rule
from croupier.auth.tokens import (
    Identity,
    Role,
    SeatClaim,
    SeatTokens,
    TokenIssuer,
    TokenVerifier,
)

__all__ = [
    "RULES",
    "SEAT_TOKEN_HEADER",
    "AuthDir",
    "AuthInterceptor",
    "HandRef",
    "Identity",
    "Resources",
    "Role",
    "Rule",
    "SeatClaim",
    "SeatTokens",
    "TokenIssuer",
    "TokenVerifier",
    "current_identity",
    "identity_from_certificate",
    "init_dev",
    "not_your_table",
]
