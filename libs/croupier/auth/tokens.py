"""Signed bearer tokens: who a caller is (identity tokens) and which seat a player's
session may act for (seat tokens).

Both are JSON Web Tokens (RFC 7519) through PyJWT, a maintained implementation that
any language can check, with the algorithm pinned on both sides (no ``alg`` taken from
the token):

* **identity tokens** ``{sub, role, iat, exp, aud="croupier"}`` are signed with the
  operator's Ed25519 *issuer* key (``EdDSA``, RFC 8037). Services hold only the public
  key, so a compromised service cannot mint a gateway or auditor identity. Operators
  issue them with ``croupier auth issue-token``.
* **seat tokens** ``{gw, tbl, seat, player, iat, exp, aud="croupier-seat"}`` are minted by
  the dealer (``GatewayService.IssueSeatToken``) for a gateway, per player, bound to one
  seat at one table, and are checked only by the dealer: an HMAC-SHA256 (``HS256``) key
  that never leaves the dealer is enough.

A verifier remembers the tokens it has verified, keyed by the whole token string and
until they expire, so a caller's repeated calls cost a dictionary lookup rather than a
signature check each (``bench/bench_auth.py``).
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from croupier.errors import InvalidInput, Unauthenticated

IDENTITY_AUDIENCE = "croupier"
SEAT_AUDIENCE = "croupier-seat"
MAX_TTL_S = 366 * 86_400


class Role(enum.StrEnum):
    GATEWAY = "gateway"
    AUDITOR = "auditor"
    OPERATOR = "operator"


@dataclass(frozen=True)
class Identity:
    """An authenticated caller: ``source`` is ``token`` or ``certificate``."""

    subject: str
    role: Role
    source: str = "token"


@dataclass(frozen=True)
class SeatClaim:
    """What a seat token lets its bearer do: act for ``seat`` at ``table`` through the
    gateway ``gateway``, as ``player``."""

    gateway: str
    table: str
    seat: int
    player: str
    expires_s: int


def _ttl(ttl_s: int) -> int:
    if not isinstance(ttl_s, int) or not 0 < ttl_s <= MAX_TTL_S:
        raise InvalidInput(f"a token's lifetime is 1..{MAX_TTL_S} seconds")
    return ttl_s


def _subject(subject: str) -> str:
    if not isinstance(subject, str) or not 0 < len(subject) <= 128 or not subject.isprintable():
        raise InvalidInput("a subject is 1..128 printable characters")
    return subject


class TokenIssuer:
    """Signs identity tokens with the Ed25519 issuer key (operators only)."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self.key = key

    @classmethod
    def generate(cls) -> TokenIssuer:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, pem: bytes) -> TokenIssuer:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise InvalidInput("the issuer key is not an Ed25519 private key")
        return cls(key)

    def private_pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def public_pem(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def verifier(self) -> TokenVerifier:
        return TokenVerifier(self.key.public_key())

    def issue(
        self, subject: str, role: Role | str, ttl_s: int = 86_400, now_s: int | None = None
    ) -> str:
        now = int(time.time()) if now_s is None else now_s
        claims = {
            "sub": _subject(subject),
            "role": Role(role).value,
            "iat": now,
            "exp": now + _ttl(ttl_s),
            "aud": IDENTITY_AUDIENCE,
        }
        return jwt.encode(claims, self.key, algorithm="EdDSA")


class _Verified:
    """Tokens already verified, keyed by the WHOLE token (header, claims and signature:
    a token differing in any byte is verified afresh), kept until they expire."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self.items: dict[str, tuple[Any, int]] = {}

    def get(self, token: str) -> Any | None:
        hit = self.items.get(token)
        if hit is None:
            return None
        if hit[1] <= time.time():
            del self.items[token]
            return None
        return hit[0]

    def put(self, token: str, value: Any, exp: int) -> None:
        if len(self.items) >= self.limit:
            self.items.clear()
        self.items[token] = (value, exp)


class TokenVerifier:
    """Checks identity tokens against the issuer's public key (every service)."""

    def __init__(self, public_key: Ed25519PublicKey) -> None:
        self.public_key = public_key
        self._verified = _Verified()

    @classmethod
    def from_pem(cls, pem: bytes) -> TokenVerifier:
        key = serialization.load_pem_public_key(pem)
        if not isinstance(key, Ed25519PublicKey):
            raise InvalidInput("the issuer public key is not an Ed25519 key")
        return cls(key)

    def verify(self, token: str) -> Identity:
        cached: Identity | None = self._verified.get(token)
        if cached is not None:
            return cached
        claims = _decode(
            token, self.public_key, "EdDSA", IDENTITY_AUDIENCE, ["sub", "role", "exp", "iat"]
        )
        try:
            role = Role(claims["role"])
        except ValueError:
            raise Unauthenticated("token names an unknown role", reason="bad_token") from None
        ident = Identity(str(claims["sub"]), role, "token")
        self._verified.put(token, ident, int(claims["exp"]))
        return ident


class SeatTokens:
    """Mints and checks seat tokens with a key only the dealer holds."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 32:
            raise InvalidInput("a seat-token key is at least 32 bytes")
        self.secret = secret
        self._verified = _Verified()

    def issue(
        self,
        gateway: str,
        table: str,
        seat: int,
        player: str,
        ttl_s: int = 86_400,
        now_s: int | None = None,
    ) -> tuple[str, int]:
        """The token and its expiry (Unix seconds)."""
        if not isinstance(seat, int) or seat < 0:
            raise InvalidInput("a seat is a non-negative integer")
        if not table or not player:
            raise InvalidInput("a seat token names a table and a player")
        now = int(time.time()) if now_s is None else now_s
        exp = now + _ttl(ttl_s)
        claims = {
            "gw": _subject(gateway),
            "tbl": table,
            "seat": seat,
            "player": _subject(player),
            "iat": now,
            "exp": exp,
            "aud": SEAT_AUDIENCE,
        }
        return jwt.encode(claims, self.secret, algorithm="HS256"), exp

    def verify(self, token: str) -> SeatClaim:
        cached: SeatClaim | None = self._verified.get(token)
        if cached is not None:
            return cached
        c = _decode(
            token,
            self.secret,
            "HS256",
            SEAT_AUDIENCE,
            ["gw", "tbl", "seat", "player", "exp", "iat"],
        )
        if not isinstance(c["seat"], int):
            raise Unauthenticated("seat token without a seat number", reason="bad_seat_token")
        claim = SeatClaim(str(c["gw"]), str(c["tbl"]), c["seat"], str(c["player"]), int(c["exp"]))
        self._verified.put(token, claim, claim.expires_s)
        return claim


def _decode(token: str, key: Any, alg: str, audience: str, required: list[str]) -> dict[str, Any]:
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[alg],
            audience=audience,
            options={"require": required},
            leeway=5,
        )
    except jwt.ExpiredSignatureError:
        raise Unauthenticated("token expired", reason="expired_token") from None
    except jwt.InvalidTokenError as e:
        raise Unauthenticated(f"token does not verify: {e}", reason="bad_token") from None
    return claims
