"""Identity and seat tokens: what verifies, and the forgeries that must not."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from croupier.auth import Role, SeatTokens, TokenIssuer
from croupier.errors import InvalidInput, Unauthenticated


def _b64(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def test_identity_token_round_trip_and_expiry() -> None:
    iss = TokenIssuer.generate()
    ident = iss.verifier().verify(iss.issue("gw-1", Role.GATEWAY, 60))
    assert (ident.subject, ident.role, ident.source) == ("gw-1", Role.GATEWAY, "token")
    with pytest.raises(Unauthenticated) as e:
        iss.verifier().verify(iss.issue("gw-1", Role.GATEWAY, 60, now_s=1_000))
    assert e.value.reason == "expired_token"
    with pytest.raises(InvalidInput):
        iss.issue("gw-1", Role.GATEWAY, 0)


def test_forged_identity_tokens_are_refused() -> None:
    iss = TokenIssuer.generate()
    v = iss.verifier()
    good = iss.issue("aud-1", Role.AUDITOR, 60)
    header, payload, sig = good.split(".")
    # another issuer's key
    with pytest.raises(Unauthenticated):
        v.verify(TokenIssuer.generate().issue("aud-1", Role.AUDITOR, 60))
    # the role raised in the payload, signature kept
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["role"] = "operator"
    with pytest.raises(Unauthenticated):
        v.verify(f"{header}.{_b64(claims)}.{sig}")
    # alg "none", and HS256 keyed with the public key (algorithm confusion)
    with pytest.raises(Unauthenticated):
        v.verify(f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{payload}.")
    signing_input = f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64(claims)}"
    mac = hmac.new(iss.public_pem(), signing_input.encode(), hashlib.sha256).digest()
    confused = f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    with pytest.raises(Unauthenticated):
        v.verify(confused)
    # a seat token is no identity token
    seat, _ = SeatTokens(b"k" * 32).issue("gw", "t", 1, "p")
    with pytest.raises(Unauthenticated):
        v.verify(seat)


def test_seat_tokens_bind_gateway_table_seat_and_player() -> None:
    st = SeatTokens(b"s" * 32)
    token, exp = st.issue("gw-1", "t1", 3, "alice", 60, now_s=10**9)
    with pytest.raises(Unauthenticated):  # issued long ago: expired
        st.verify(token)
    token, exp = st.issue("gw-1", "t1", 3, "alice", 60)
    c = st.verify(token)
    assert (c.gateway, c.table, c.seat, c.player, c.expires_s) == ("gw-1", "t1", 3, "alice", exp)
    with pytest.raises(Unauthenticated):
        SeatTokens(b"x" * 32).verify(token)
    with pytest.raises(InvalidInput):
        SeatTokens(b"short")


def test_the_verified_cache_is_keyed_by_the_whole_token() -> None:
    """A token verified once is remembered; a token that differs from it in any part
    (claims changed, signature kept) is verified afresh and refused."""
    iss = TokenIssuer.generate()
    v = iss.verifier()
    good = iss.issue("gw-1", Role.GATEWAY, 60)
    assert v.verify(good) == v.verify(good)
    header, payload, sig = good.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["sub"] = "gw-2"
    with pytest.raises(Unauthenticated):
        v.verify(f"{header}.{_b64(claims)}.{sig}")
    st = SeatTokens(b"s" * 32)
    token, _ = st.issue("gw-1", "t1", 1, "alice", 60)
    assert st.verify(token).seat == 1
    h, p, s = token.split(".")
    c = json.loads(base64.urlsafe_b64decode(p + "=="))
    c["seat"] = 2
    with pytest.raises(Unauthenticated):
        st.verify(f"{h}.{_b64(c)}.{s}")


def test_every_rpc_has_a_policy() -> None:
    """A method without a rule is refused to everyone; every RPC the protos declare
    must have one (a new RPC gets its rule when it is added)."""
    from croupier.auth import RULES
    from croupier.pb.croupier.v1 import audit_pb2, gateway_pb2, settlement_pb2

    for mod in (gateway_pb2, settlement_pb2, audit_pb2):
        for svc in mod.DESCRIPTOR.services_by_name.values():
            for m in svc.methods:
                assert f"/{svc.full_name}/{m.name}" in RULES, m.full_name
