"""What authentication costs per gRPC call: identity-token and seat-token checks, the
table-grant lookup, and a whole unary call through the interceptor over mutual TLS
against the same call with the interceptor's checks skipped (plain-text, no auth); then
health checks over mutual TLS with the client's token sent as each call's metadata (as
``client_channel`` does), as gRPC call credentials (a Python plugin per call), and not
at all: wall time and the CPU of both sides (one process) per call.

    .venv/bin/python bench/bench_auth.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.auth import AuthDir, Role, SeatTokens, TokenIssuer, TokenVerifier, init_dev
from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc
from croupier.store import Store
from croupier_services.audit import AuditServicer
from croupier_services.config import AuthSettings
from croupier_services.grpc_util import add_health_and_reflection, bind, make_server
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.security import client_channel, server_security


def per_op(fn: object, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()  # type: ignore[operator]
    return (time.perf_counter() - t0) / n * 1e6


async def calls(stub_call: object, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        with contextlib.suppress(grpc.aio.AioRpcError):
            await stub_call()  # type: ignore[operator]
    return (time.perf_counter() - t0) / n * 1e6


async def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        auth = init_dev(Path(d) / "auth")
        issuer = TokenIssuer.from_pem(auth.issuer_key.read_bytes())
        verifier = issuer.verifier()
        token = issuer.issue("gw", Role.GATEWAY, 600)
        seats = SeatTokens(auth.seat_key.read_bytes())
        seat, _ = seats.issue("gw", "t1", 1, "p1", 600)
        store = Store.open(f"sqlite:///{d}/s.sqlite", upgrade=True)
        store.grant_table("t1", "gw", 1)
        init_keys(Path(d) / "keys")
        trust = TrustedKeys.from_dir(Path(d) / "keys")
        pub = verifier.public_key
        t_id = per_op(lambda: TokenVerifier(pub).verify(token), n)
        t_id_hit = per_op(lambda: verifier.verify(token), n)
        t_seat = per_op(lambda: SeatTokens(auth.seat_key.read_bytes()).verify(seat), n)
        t_grant = per_op(lambda: store.table_owners("t1"), n)
        print(f"identity token verify (EdDSA):     {t_id:8.1f} µs")
        print(f"identity token, verified before:   {t_id_hit:8.1f} µs")
        print(f"seat token verify (HS256):         {t_seat:8.1f} µs")
        print(f"table grant lookup (SQLite):       {t_grant:8.1f} µs")

        sec = server_security(AuthSettings.from_env(str(auth.root)))
        secured = make_server(sec)
        audit_pb2_grpc.add_AuditServiceServicer_to_server(AuditServicer(store, trust), secured)
        await add_health_and_reflection(secured, ["croupier.v1.AuditService"])
        port = bind(secured, "127.0.0.1", 0, sec)
        await secured.start()
        plain = grpc.aio.server()
        audit_pb2_grpc.add_AuditServiceServicer_to_server(AuditServicer(store, trust), plain)
        await add_health_and_reflection(plain, ["croupier.v1.AuditService"])
        pport = plain.add_insecure_port("127.0.0.1:0")
        await plain.start()
        req = audit_pb2.VerifyHandRequest(hand_id="missing")
        target = f"127.0.0.1:{port}"
        async with (
            client_channel(target, auth.root, Role.AUDITOR) as ch,
            grpc.aio.insecure_channel(f"127.0.0.1:{pport}") as pch,
        ):
            a, p = audit_pb2_grpc.AuditServiceStub(ch), audit_pb2_grpc.AuditServiceStub(pch)
            h = health_pb2_grpc.HealthStub(ch)
            await calls(lambda: a.VerifyHand(req), 50)
            await calls(lambda: p.VerifyHand(req), 50)
            t_auth = await calls(lambda: a.VerifyHand(req), n)
            t_plain = await calls(lambda: p.VerifyHand(req), n)
            t_health = await calls(lambda: h.Check(health_pb2.HealthCheckRequest()), n)
        print(f"unary call, mTLS + token + policy: {t_auth:8.1f} µs")
        print(f"unary call, mTLS, open (health):   {t_health:8.1f} µs")
        print(f"unary call, plain text, no auth:   {t_plain:8.1f} µs")
        # how the client sends its token: as each call's metadata (client_channel's
        # BearerChannel) or as gRPC call credentials (a Python plugin run per call)
        d_auth = AuthDir(auth.root)
        tls = grpc.ssl_channel_credentials(
            root_certificates=d_auth.ca_cert.read_bytes(),
            private_key=d_auth.client_key(Role.AUDITOR).read_bytes(),
            certificate_chain=d_auth.client_cert(Role.AUDITOR).read_bytes(),
        )
        creds = grpc.composite_channel_credentials(
            tls,
            grpc.access_token_call_credentials(d_auth.token(Role.AUDITOR).read_text().strip()),
        )
        opts = [("grpc.ssl_target_name_override", "localhost")]
        check = health_pb2.HealthCheckRequest()
        for name, make in (
            ("token as metadata", lambda: client_channel(target, auth.root, Role.AUDITOR)),
            ("token as call credentials", lambda: grpc.aio.secure_channel(target, creds, opts)),
            ("no token", lambda: client_channel(target, auth.root, Role.AUDITOR, with_token=False)),
        ):
            async with make() as ch:
                h = health_pb2_grpc.HealthStub(ch)
                await calls(lambda h=h: h.Check(check), 50)
                c0 = time.process_time()
                wall = await calls(lambda h=h: h.Check(check), n)
                cpu = (time.process_time() - c0) / n * 1e6
            print(
                f"health over mTLS, {name + ':':27} {wall:8.1f} µs, {cpu:8.1f} µs CPU (both sides)"
            )
        await secured.stop(0)
        await plain.stop(0)
        store.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    asyncio.run(main(ap.parse_args().calls))
