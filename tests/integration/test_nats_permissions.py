"""NATS accounts and permissions, enforced by a real nats-server started here with the
generated configuration (per-service users, subject permissions, TLS): each service
can do its own job, and a rules credential can neither publish a hand nor delete a
consumer — nats-server refuses both."""

from __future__ import annotations

import asyncio
import secrets
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout

from croupier.bus import subjects
from croupier.bus.embedded import EmbeddedNats, free_port
from croupier.bus.jetstream import Bus
from croupier.bus.permissions import SERVICES, authorization_block, rules_durable, tls_block

from .harness import dev_auth

pytestmark = pytest.mark.integration

VARIANTS = ["baccarat", "niuniu.hundred"]


@pytest.fixture
async def secured(tmp_path: Path) -> AsyncIterator[tuple[EmbeddedNats, dict[str, str]]]:
    auth = dev_auth()
    passwords = {u: secrets.token_hex(16) for u in SERVICES}
    conf = tmp_path / "nats.conf"
    conf.write_text(
        authorization_block(VARIANTS, passwords)
        + tls_block(str(auth.server_cert), str(auth.server_key), str(auth.ca_cert))
    )
    server = EmbeddedNats(port=free_port(), config=str(conf), scheme="tls").start()
    try:
        yield server, passwords
    finally:
        server.stop()


def tls() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(dev_auth().ca_cert))


def url(server: EmbeddedNats, passwords: dict[str, str], user: str) -> str:
    return f"tls://{user}:{passwords[user]}@127.0.0.1:{server.port}"


async def provisioned(server: EmbeddedNats, pw: dict[str, str]) -> Bus:
    """The provision user's connection, the stream and every durable consumer made."""
    prov = await Bus.connect(url(server, pw, "provision"), tls=tls())
    await prov.provision(
        [
            *((rules_durable(v), subjects.filter_for("hand", v)) for v in VARIANTS),
            ("settlement", subjects.filter_for("outcome")),
        ]
    )
    return prov


async def test_each_service_does_its_job_and_rules_cannot_forge_or_delete(
    secured: tuple[EmbeddedNats, dict[str, str]],
) -> None:
    server, pw = secured
    prov = await provisioned(server, pw)
    dealer = await Bus.connect(url(server, pw, "dealer"), tls=tls())
    rules = await Bus.connect(url(server, pw, "rules"), tls=tls())
    settlement = await Bus.connect(url(server, pw, "settlement"), tls=tls())
    errors: list[str] = []

    async def on_error(e: Exception) -> None:
        errors.append(str(e))

    attacker = await nats.connect(
        url(server, pw, "rules"), tls=tls(), error_cb=on_error, max_reconnect_attempts=0
    )
    try:
        # the services see the provisioned stream without managing it
        for b in (dealer, rules, settlement):
            assert await b.ensure_stream() == []
        # the dealer publishes a hand; rules binds its durable, fetches it, publishes
        # the outcome and acks; settlement fetches the outcome
        hand = subjects.subject("hand", "baccarat", "t1")
        assert await dealer.publish(hand, b"hand-1", "hand:h1")
        rc = await rules.consumer(
            rules_durable("baccarat"), subjects.filter_for("hand", "baccarat")
        )
        (msg,) = await rc.fetch(1, timeout_s=5)
        assert msg.data == b"hand-1"
        assert await rules.publish(subjects.subject("outcome", "baccarat", "t1"), b"o", "o:h1")
        await msg.ack()
        sc = await settlement.consumer("settlement", subjects.filter_for("outcome"))
        (out,) = await sc.fetch(1, timeout_s=5)
        assert out.data == b"o"
        await out.ack()

        # a rules credential publishing a hand: refused by nats-server, never stored
        before = (await prov.js.stream_info(subjects.STREAM)).state.messages
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await attacker.jetstream(timeout=1).publish(
                subjects.subject("hand", "baccarat", "t1"),
                b"forged",
                headers={"Nats-Msg-Id": "hand:forged"},
            )
        # ... and deleting the settlement consumer, or the stream
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await attacker.jetstream(timeout=1).delete_consumer(subjects.STREAM, "settlement")
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await attacker.jetstream(timeout=1).delete_stream(subjects.STREAM)
        # ... or fetching settlement's consumer / publishing a settlement
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await attacker.request(
                f"$JS.API.CONSUMER.MSG.NEXT.{subjects.STREAM}.settlement", b"1", timeout=1
            )
        await asyncio.sleep(0.2)
        violations = [e.lower() for e in errors if "permissions violation" in e.lower()]
        for refused in (
            "croupier.hand.baccarat.t1",
            "$js.api.consumer.delete.croupier.settlement",
            "$js.api.stream.delete.croupier",
            "$js.api.consumer.msg.next.croupier.settlement",
        ):
            assert any(refused in e for e in violations), (refused, errors)
        assert (await prov.js.stream_info(subjects.STREAM)).state.messages == before
        assert (await prov.js.consumer_info(subjects.STREAM, "settlement")).name == "settlement"
        # the dealer cannot publish an outcome either; settlement cannot publish a hand
        for bus, subj in ((dealer, "outcome"), (settlement, "hand")):
            with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
                await bus.nc.jetstream(timeout=1).publish(
                    subjects.subject(subj, "baccarat", "t1"), b"x"
                )
        assert (await prov.js.stream_info(subjects.STREAM)).state.messages == before
    finally:
        await attacker.close()
        for b in (dealer, rules, settlement, prov):
            await b.close()


async def test_the_one_pass_user_has_exactly_the_rules_and_settlement_users_rights(
    secured: tuple[EmbeddedNats, dict[str, str]],
) -> None:
    """``rules_settlement`` (``croupier serve rules-settlement``): it pulls the rules'
    and settlement's durable consumers and publishes outcomes and settlements; it cannot
    publish a hand or manage the stream."""
    server, pw = secured
    prov = await provisioned(server, pw)
    dealer = await Bus.connect(url(server, pw, "dealer"), tls=tls())
    stage = await Bus.connect(url(server, pw, "rules_settlement"), tls=tls())
    errors: list[str] = []

    async def on_error(e: Exception) -> None:
        errors.append(str(e))

    raw = await nats.connect(
        url(server, pw, "rules_settlement"),
        tls=tls(),
        error_cb=on_error,
        max_reconnect_attempts=0,
    )
    try:
        assert await stage.ensure_stream() == []
        assert await dealer.publish(subjects.subject("hand", "baccarat", "t1"), b"h", "hand:h1")
        rc = await stage.consumer(
            rules_durable("baccarat"), subjects.filter_for("hand", "baccarat")
        )
        (msg,) = await rc.fetch(1, timeout_s=5)
        assert msg.data == b"h"
        await msg.ack()
        assert await stage.publish(subjects.subject("outcome", "baccarat", "t1"), b"o", "o:h1")
        sc = await stage.consumer("settlement", subjects.filter_for("outcome"))
        (out,) = await sc.fetch(1, timeout_s=5)
        assert out.data == b"o"
        await out.ack()
        assert await stage.publish(subjects.subject("settled", "baccarat", "t1"), b"s", "s:h1")
        before = (await prov.js.stream_info(subjects.STREAM)).state.messages
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await raw.jetstream(timeout=1).publish(
                subjects.subject("hand", "baccarat", "t1"), b"forged"
            )
        with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
            await raw.jetstream(timeout=1).delete_stream(subjects.STREAM)
        await asyncio.sleep(0.2)
        violations = [e.lower() for e in errors if "permissions violation" in e.lower()]
        for refused in ("croupier.hand.baccarat.t1", "$js.api.stream.delete.croupier"):
            assert any(refused in e for e in violations), (refused, errors)
        assert (await prov.js.stream_info(subjects.STREAM)).state.messages == before
    finally:
        await raw.close()
        for b in (dealer, stage, prov):
            await b.close()


async def test_wrong_password_and_plain_text_are_refused(
    secured: tuple[EmbeddedNats, dict[str, str]],
) -> None:
    server, pw = secured
    bad = {**pw, "rules": "not-the-password"}
    with pytest.raises(Exception) as e:
        await nats.connect(
            url(server, bad, "rules"),
            tls=tls(),
            max_reconnect_attempts=0,
            allow_reconnect=False,
            connect_timeout=2,
        )
    assert "authorization" in str(e.value).lower()
    with pytest.raises(Exception):  # noqa: B017 - any refusal: TLS is required
        await nats.connect(
            f"nats://rules:{pw['rules']}@127.0.0.1:{server.port}",
            max_reconnect_attempts=0,
            allow_reconnect=False,
            connect_timeout=2,
        )


async def test_the_embedded_server_of_a_node_has_per_service_users(tmp_path: Path) -> None:
    """``croupier demo`` / ``serve --embedded-nats``: the node's own nats-server runs with
    the per-service users and permissions (fresh dev passwords), each service connects as
    its own user, and a rules credential cannot publish a hand subject there."""
    import time

    from croupier.auth import init_dev
    from croupier_services.config import AuthSettings
    from croupier_services.keys import init_keys
    from croupier_services.runtime import Node

    auth = init_dev(tmp_path / "auth")
    init_keys(tmp_path / "keys")
    node = Node(
        roles=("dealer", "rules", "settlement"),
        database_url=f"sqlite:///{tmp_path / 'node.sqlite'}",
        keys_dir=str(tmp_path / "keys"),
        nats_url=None,  # the embedded server, as the demo runs it
        rule_variants=["baccarat"],
        auth=AuthSettings.from_env(str(auth.root)),
    )
    await node.start()
    errors: list[str] = []

    async def on_error(e: Exception) -> None:
        errors.append(str(e))

    try:
        server = node.nats
        assert server is not None and set(server.passwords) == set(SERVICES)
        deadline = time.monotonic() + 15
        while set(node.buses) != {"dealer", "rules", "settlement"}:
            assert time.monotonic() < deadline, "the services did not join the bus"
            await asyncio.sleep(0.05)
        # one connection per service, each as its own user
        assert len({id(b) for b in node.buses.values()}) == 3
        # no credential: refused
        with pytest.raises(Exception) as e:
            await nats.connect(
                server.url, max_reconnect_attempts=0, allow_reconnect=False, connect_timeout=2
            )
        assert "authorization" in str(e.value).lower()
        prov = await Bus.connect(server.user_url("provision"))
        attacker = await nats.connect(
            server.user_url("rules"), error_cb=on_error, max_reconnect_attempts=0
        )
        try:
            before = (await prov.js.stream_info(subjects.STREAM)).state.messages
            with pytest.raises((NatsTimeout, NoRespondersError, TimeoutError)):
                await attacker.jetstream(timeout=1).publish(
                    subjects.subject("hand", "baccarat", "t1"),
                    b"forged",
                    headers={"Nats-Msg-Id": "hand:forged"},
                )
            await asyncio.sleep(0.2)
            assert any(
                "permissions violation" in x.lower() and "croupier.hand.baccarat.t1" in x.lower()
                for x in errors
            ), errors
            assert (await prov.js.stream_info(subjects.STREAM)).state.messages == before
            # the dealer's own user may publish it (the permissions are per service)
            assert await node.buses["dealer"].publish(
                subjects.subject("hand", "baccarat", "t1"), b"genuine", "hand:genuine"
            )
            assert (await prov.js.stream_info(subjects.STREAM)).state.messages == before + 1
        finally:
            await attacker.close()
            await prov.close()
    finally:
        await node.stop()
