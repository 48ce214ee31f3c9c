"""Authenticated callers, attacked: no credential or a forged one (UNAUTHENTICATED), a
gateway at another gateway's table, a seat token used for another seat, the wrong role
(PERMISSION_DENIED), and the audit service asked for an open hand's hidden cards. Every
refusal is counted and writes nothing."""

from __future__ import annotations

import json

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from croupier.auth import Role, TokenIssuer
from croupier.auth.material import make_leaf
from croupier.games import base as g
from croupier.pb.croupier.v1 import (
    audit_pb2,
    audit_pb2_grpc,
    gateway_pb2,
    gateway_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
)
from croupier_services.dealer import GatewayServicer
from croupier_services.grpc_util import ServerSecurity, bind, make_server
from croupier_services.security import DealerResources, client_channel, seat_metadata

from .harness import Cluster, metric, seat_entries

pytestmark = pytest.mark.integration


def refused(service: str, reason: str) -> float:
    return metric("croupier_auth_refused_total", service=service, reason=reason)


def issuer(c: Cluster) -> TokenIssuer:
    return TokenIssuer.from_pem(c.auth.issuer_key.read_bytes())


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


def written(c: Cluster) -> tuple[int, int]:
    return c.store.count_events(), len(c.store.list_streams(limit=100_000))


async def test_missing_or_forged_credentials_are_unauthenticated(cluster: Cluster) -> None:
    c = cluster
    # a server with TLS but no client certificates: only tokens identify callers
    d = c.auth
    sec = ServerSecurity(
        issuer(c).verifier(), d.server_cert.read_bytes(), d.server_key.read_bytes()
    )
    server = make_server(sec, resources=DealerResources(c.core))
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(c.core), server)
    port = bind(server, "127.0.0.1", 0, sec)
    await server.start()
    tls = grpc.ssl_channel_credentials(root_certificates=d.ca_cert.read_bytes())
    opts = [("grpc.ssl_target_name_override", "localhost")]
    before = written(c)
    n_missing = refused("gateway", "missing_credential")
    n_bad = refused("gateway", "bad_token")
    n_expired = refused("gateway", "expired_token")
    try:
        async with grpc.aio.secure_channel(f"127.0.0.1:{port}", tls, options=opts) as ch:
            gw = gateway_pb2_grpc.GatewayServiceStub(ch)
            req = gateway_pb2.OpenTableRequest(table_id="stolen_t", variant="baccarat")
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await gw.OpenTable(req)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "missing_credential" in (e.value.details() or "")
            # a token from another issuer, and a genuine one that has expired
            forged = TokenIssuer.generate().issue("gateway-dev", Role.GATEWAY, 600)
            expired = issuer(c).issue("gateway-dev", Role.GATEWAY, 1, now_s=1_000_000)
            for token, reason in ((forged, "bad_token"), (expired, "expired_token")):
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await gw.OpenTable(req, metadata=bearer(token))
                assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED, reason
                assert reason in (e.value.details() or "")
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await gw.OpenTable(req, metadata=(("authorization", "Basic Zm9vOmJhcg=="),))
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            # the same token from the real issuer gets in
            good = issuer(c).issue("gateway-dev", Role.GATEWAY, 600)
            await gw.OpenTable(req, metadata=bearer(good))
    finally:
        await server.stop(0)
    assert refused("gateway", "missing_credential") == n_missing + 1
    assert refused("gateway", "bad_token") == n_bad + 2
    assert refused("gateway", "expired_token") == n_expired + 1
    assert before[0] < written(c)[0]  # only the admitted OpenTable wrote


async def test_mutual_tls_certificate_without_a_role_is_unauthenticated(
    cluster: Cluster,
) -> None:
    c = cluster
    ca = x509.load_pem_x509_certificate(c.auth.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key(c.auth.ca_key.read_bytes(), password=None)
    cert, key = make_leaf(ca, ca_key, "nobody")  # type: ignore[arg-type]
    tls = grpc.ssl_channel_credentials(
        root_certificates=c.auth.ca_cert.read_bytes(),
        private_key=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        certificate_chain=cert.public_bytes(serialization.Encoding.PEM),
    )
    before = written(c)
    async with grpc.aio.secure_channel(
        f"127.0.0.1:{c.port}", tls, options=[("grpc.ssl_target_name_override", "localhost")]
    ) as ch:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await audit_pb2_grpc.AuditServiceStub(ch).VerifyHand(
                audit_pb2.VerifyHandRequest(hand_id="x")
            )
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "bad_certificate" in (e.value.details() or "")
    assert written(c) == before
    # the dev gateway certificate alone (no token) identifies the gateway
    target = f"127.0.0.1:{c.port}"
    async with client_channel(target, c.auth.root, Role.GATEWAY, with_token=False) as ch:
        await gateway_pb2_grpc.GatewayServiceStub(ch).OpenTable(
            gateway_pb2.OpenTableRequest(table_id="by_cert_t", variant="baccarat")
        )
    assert c.store.table_owners("by_cert_t") == {"gateway-dev"}


async def test_a_gateway_cannot_act_at_another_gateways_table(idle_cluster: Cluster) -> None:
    c = idle_cluster  # consumers paused: whatever is written while refusing shows
    table = await c.open_table("mine")
    hid = await c.play_hand(table)
    h2 = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    other = bearer(issuer(c).issue("gateway-rival", Role.GATEWAY, 600))
    n = refused("gateway", "not_your_table")
    before = written(c)
    target = f"127.0.0.1:{c.port}"
    async with client_channel(target, c.auth.root, Role.GATEWAY, with_token=False) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        calls = [
            gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table), metadata=other),
            gw.OpenShoe(gateway_pb2.OpenShoeRequest(table_id=table), metadata=other),
            gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table), metadata=other),
            gw.OpenTable(
                gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat"), metadata=other
            ),
            gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(
                    hand_id=h2.hand_id,
                    bets=[gateway_pb2.Bet(seat=1, spot="banker", amount_minor=100)],
                ),
                metadata=other,
            ),
            gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h2.hand_id), metadata=other),
            gw.GetHandView(gateway_pb2.GetHandViewRequest(hand_id=hid), metadata=other),
            gw.IssueSeatToken(
                gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=1, player_id="x"),
                metadata=other,
            ),
        ]
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await call
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "not_your_table" in (e.value.details() or "")
        # an operator's grant lets the rival in
        c.store.grant_table(table, "gateway-rival", 1, "operator")
        view = await gw.GetHandView(gateway_pb2.GetHandViewRequest(hand_id=hid), metadata=other)
        assert view.view.hand_id == hid
    assert refused("gateway", "not_your_table") == n + len(calls)
    assert written(c) == before


async def test_a_seat_token_opens_its_own_seat_only(idle_cluster: Cluster) -> None:
    """Hold'em hole cards are face down: seat 1's token shows seat 1's cards and nothing
    of seat 2's, and cannot act for seat 2."""
    c = idle_cluster
    table = "holdem_auth_t"
    await c.gw.OpenTable(
        gateway_pb2.OpenTableRequest(table_id=table, variant="holdem.must_bet", client_seed="s")
    )
    seats = seat_entries(table, 3)
    h = await c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
    async with client_channel(f"127.0.0.1:{c.port}", c.auth.root, Role.GATEWAY) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        t1 = await gw.IssueSeatToken(
            gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=1, player_id=f"{table}_p1")
        )
        own = await gw.GetHandView(
            gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=1),
            metadata=seat_metadata([t1.token]),
        )
        mine = [
            x
            for e in own.view.events
            if e.type == g.CARD_DEALT
            for x in json.loads(e.payload_json)["cards"]
            if x["to"] == "seat:1"
        ]
        assert mine and all(x["card"] != "??" for x in mine)
        n_wrong = refused("gateway", "wrong_seat")
        n_none = refused("gateway", "no_seat_token")
        before = written(c)
        # seat 1's token for seat 2's view, seat 2's action and a bet on seat 2
        for call in (
            gw.GetHandView(
                gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=2),
                metadata=seat_metadata([t1.token]),
            ),
            gw.Act(
                gateway_pb2.ActRequest(hand_id=h.hand_id, seat=2, action="fold"),
                metadata=seat_metadata([t1.token]),
            ),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await call
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert "wrong_seat" in (e.value.details() or "")
        # no seat token at all
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await gw.GetHandView(gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=1))
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # a token for another player who once sat at seat 1 (same table, same seat)
        stale = await gw.IssueSeatToken(
            gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=1, player_id="someone_else")
        )
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await gw.GetHandView(
                gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=1),
                metadata=seat_metadata([stale.token]),
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # a forged seat token (another key) is no credential
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await gw.GetHandView(
                gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=1),
                metadata=seat_metadata([t1.token[:-4] + "AAAA"]),
            )
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert written(c) == before
        assert refused("gateway", "wrong_seat") == n_wrong + 3
        assert refused("gateway", "no_seat_token") == n_none + 1

        # the audit service does not export the open hand's face-down cards
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await c.au.ExportHand(audit_pb2.ExportHandRequest(hand_id=h.hand_id))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "hand_open" in (e.value.details() or "")
        for x in mine:
            assert x["card"] not in (e.value.details() or "")
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await c.au.GetHandHistory(audit_pb2.GetHandHistoryRequest(hand_id=h.hand_id))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "hand_open" in (e.value.details() or "")


async def test_each_role_reaches_its_own_services_only(cluster: Cluster) -> None:
    c = cluster
    table = await c.open_table("roles")
    hid = await c.play_hand(table)
    await c.wait_settled(1)
    target = f"127.0.0.1:{c.port}"
    n = refused("audit", "wrong_role")
    async with (
        client_channel(target, c.auth.root, Role.GATEWAY) as gch,
        client_channel(target, c.auth.root, Role.AUDITOR) as ach,
        client_channel(target, c.auth.root, Role.OPERATOR) as och,
    ):
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await audit_pb2_grpc.AuditServiceStub(gch).ExportHand(
                audit_pb2.ExportHandRequest(hand_id=hid)
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await audit_pb2_grpc.AuditServiceStub(och).VerifyHand(
                audit_pb2.VerifyHandRequest(hand_id=hid)
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await gateway_pb2_grpc.GatewayServiceStub(ach).OpenTable(
                gateway_pb2.OpenTableRequest(table_id="aud_t", variant="baccarat")
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await settlement_pb2_grpc.SettlementServiceStub(gch).GetBalance(
                settlement_pb2.GetBalanceRequest(account="house")
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # what each role is for works
        rep = await audit_pb2_grpc.AuditServiceStub(ach).ExportHand(
            audit_pb2.ExportHandRequest(hand_id=hid)
        )
        assert hid in rep.jsonl
        s = await settlement_pb2_grpc.SettlementServiceStub(och).GetSettlement(
            settlement_pb2.GetSettlementRequest(hand_id=hid)
        )
        assert s.settlement.hand_id == hid
    assert refused("audit", "wrong_role") == n + 2


async def test_a_revoked_table_grant_is_refused_at_the_next_call(idle_cluster: Cluster) -> None:
    c = idle_cluster  # consumers paused: whatever is written while refusing shows
    table = await c.open_table("revoked")
    await c.play_hand(table)  # the gateway acts at its table
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))
    )
    assert c.store.table_owners(table) == {"gateway-dev"}
    # an operator revokes the grant while the dealer runs: no restart, no cache to wait
    assert c.store.revoke_table(table, "gateway-dev", 1, "operator")
    n = refused("gateway", "not_your_table")
    before = written(c)
    calls = [
        c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3))),
        c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id)),
        c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat")),
        c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table)),
    ]
    for call in calls:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await call
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "not_your_table" in (e.value.details() or "")
    assert refused("gateway", "not_your_table") == n + len(calls)
    assert written(c) == before
    assert c.store.table_owners(table) == frozenset()  # re-opening did not re-grant it
    # an operator's new grant lets the gateway back in
    assert c.store.grant_table(table, "gateway-dev", 2, "operator")
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
    assert written(c)[0] > before[0]
