"""The identity token travels as each call's metadata (``BearerChannel``), ahead of what
the caller passes, on unary and streaming calls, with no call-credentials plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.auth import Role, init_dev
from croupier.auth.channel import BearerChannel, bearer
from croupier.errors import ConfigError
from croupier_services.config import AuthSettings
from croupier_services.grpc_util import add_health_and_reflection, bind, make_server
from croupier_services.security import client_channel, server_security

TOKEN = "header.claims.signature"


def _seen(context: grpc.aio.ServicerContext) -> bytes:
    return repr(
        [(k, v) for k, v in context.invocation_metadata() if not k.startswith(":")]
    ).encode()


async def _unary(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    return _seen(context)


async def _stream(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
    for _ in range(2):
        yield _seen(context)


async def _collect(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> bytes:
    async for _ in requests:
        pass
    return _seen(context)


async def _serve() -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "t.Echo",
                {
                    "Unary": grpc.unary_unary_rpc_method_handler(_unary),
                    "Stream": grpc.unary_stream_rpc_method_handler(_stream),
                    "Collect": grpc.stream_unary_rpc_method_handler(_collect),
                },
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def _pairs(raw: bytes) -> list[tuple[str, str]]:
    import ast

    return [p for p in ast.literal_eval(raw.decode()) if p[0] != "user-agent"]


async def test_token_first_then_the_callers_metadata() -> None:
    server, port = await _serve()
    try:
        async with BearerChannel(grpc.aio.insecure_channel(f"127.0.0.1:{port}"), TOKEN) as ch:
            unary = ch.unary_unary("/t.Echo/Unary")
            assert _pairs(await unary(b"")) == [("authorization", f"Bearer {TOKEN}")]
            seat = (("x-croupier-seat-token", "s1"), ("x-croupier-seat-token", "s2"))
            assert _pairs(await unary(b"", metadata=seat)) == [
                ("authorization", f"Bearer {TOKEN}"),
                *seat,
            ]
            md = grpc.aio.Metadata(("x-croupier-seat-token", "s3"))
            assert _pairs(await unary(b"", metadata=md, timeout=5)) == [
                ("authorization", f"Bearer {TOKEN}"),
                ("x-croupier-seat-token", "s3"),
            ]
            stream = ch.unary_stream("/t.Echo/Stream")
            got = [_pairs(r) async for r in stream(b"", metadata=seat)]
            assert got == [[("authorization", f"Bearer {TOKEN}"), *seat]] * 2
            collect = ch.stream_unary("/t.Echo/Collect")
            assert _pairs(await collect(iter([b"", b""]), 5, seat)) == [
                ("authorization", f"Bearer {TOKEN}"),
                *seat,
            ]
            assert _pairs(await collect(iter([b""]))) == [("authorization", f"Bearer {TOKEN}")]
            await ch.channel_ready()
            assert ch.get_state() == grpc.ChannelConnectivity.READY
    finally:
        await server.stop(0)


async def test_client_channel_sends_its_token_as_metadata(tmp_path: Path) -> None:
    """A role's channel over the dev material's mutual TLS carries its token as metadata
    (no call-credentials plugin, which gRPC runs off the call for every call)."""
    auth = init_dev(tmp_path / "auth")
    sec = server_security(AuthSettings.from_env(str(auth.root)))
    server = make_server(sec)
    await add_health_and_reflection(server, [])
    port = bind(server, "127.0.0.1", 0, sec)
    await server.start()
    try:
        async with client_channel(f"127.0.0.1:{port}", auth.root, Role.AUDITOR) as ch:
            assert isinstance(ch, BearerChannel)
            assert ch._md == bearer(auth.token(Role.AUDITOR).read_text().strip())
            reply = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest())
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        async with client_channel(
            f"127.0.0.1:{port}", auth.root, Role.AUDITOR, with_token=False
        ) as ch:
            assert not isinstance(ch, BearerChannel)
    finally:
        await server.stop(0)


@pytest.mark.parametrize("token", ["", "two words", "line\nbreak", "cr\r"])
def test_a_token_is_one_word(token: str) -> None:
    with pytest.raises(ValueError, match="one non-empty word"):
        bearer(token)


def test_a_blank_token_file_is_a_configuration_error(tmp_path: Path) -> None:
    auth = init_dev(tmp_path / "auth")
    auth.token(Role.GATEWAY).write_text("\n")
    with pytest.raises(ConfigError, match=r"gateway token in .* is not a token"):
        client_channel("127.0.0.1:1", auth.root, Role.GATEWAY)
