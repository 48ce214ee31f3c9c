"""Consumers that heal, honest health and streams that are verified, not overwritten:
whole processes' worth of pieces (:class:`croupier_services.runtime.Node`) over a
nats-server of the test's own, which the test stops and starts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats.js.api import StreamConfig

from croupier.auth import Role
from croupier.bus import subjects
from croupier.bus.embedded import EmbeddedNats, free_port
from croupier.bus.jetstream import Bus, ConsumerSpec, StreamSpec, server_list
from croupier.store import Outbox
from croupier_services import metrics
from croupier_services.config import AuthSettings
from croupier_services.keys import init_keys
from croupier_services.runtime import Node
from croupier_services.security import client_channel

from .harness import dev_auth

pytestmark = pytest.mark.integration
SEATS = [{"seat": 1, "player": "ann", "stack": 1_000_000}]


@pytest.fixture
async def nats() -> AsyncIterator[EmbeddedNats]:
    server = EmbeddedNats().start()
    try:
        yield server
    finally:
        server.stop()


async def until(cond: Callable[[], bool], timeout_s: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def deal(node: Node, table: str, n: int) -> None:
    core = node.core
    assert core is not None
    if table not in core.dealer.tables:
        await core.commit(table, core.dealer.open_table(table, "baccarat", table))
    for _ in range(n):
        async with core.lock:
            hid, b = core.dealer.open_hand(table, SEATS)
            await core.commit(table, b)
            bets = [{"seat": 1, "spot": "player", "amount": 1000}]
            await core.commit(table, core.dealer.place_bets(hid, bets))
            await core.commit(table, core.dealer.close_betting(hid))



def node(tmp: Path, nats_url: str, *roles: str, db: str = "c.sqlite", keys: str = "keys") -> Node:
    init_keys(tmp / keys)  # made once, explicitly (a service never makes keys)
    return Node(
        roles=roles,
        database_url=f"sqlite:///{tmp / db}",
        keys_dir=str(tmp / keys),
        nats_url=nats_url,
        rule_variants=["baccarat"],
        turn_clock=False,
        stall_after_s=60,
        unverifiable_pause_s=1.0,
        auth=AuthSettings.from_env(str(dev_auth().root)),
    )


async def health(port: int, service: str = "") -> str:
    target = f"127.0.0.1:{port}"
    async with client_channel(target, dev_auth().root, Role.OPERATOR, with_token=False) as ch:
        r = await health_pb2_grpc.HealthStub(ch).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=3
        )
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(r.status))


async def test_loops_come_back_after_nats_restarts_and_poison_is_dead_lettered(
    tmp_path: Path, nats: EmbeddedNats
) -> None:
    n = await node(tmp_path, nats.url, "dealer", "rules", "settlement").start()
    assert n.store is not None
    try:
        await until(lambda: len(n.loops) == 2, what="loops")
        tasks = [t for t in n.tasks if not t.done()]
        await deal(n, "h1", 3)
        await until(lambda: n.store.count_settlements() == 3, what="3 settled")  # type: ignore[union-attr]

        nats.kill()
        await deal(n, "h1", 5)  # dealing goes on: the hands wait in the outbox
        await asyncio.sleep(2)
        await n.health.check()  # type: ignore[union-attr]
        ready, why = n.health.ready  # type: ignore[union-attr]
        assert not ready and "nats not connected" in why
        assert n.health.live[0]  # type: ignore[union-attr]  # restarting would not help
        nats.start()
        await until(lambda: n.store.count_settlements() == 8, what="8 settled")  # type: ignore[union-attr]
        assert all(not t.done() for t in tasks)  # the same loops: nothing restarted

        # poison: terminated, kept in the dead letters with its reason, loop goes on
        assert n.bus is not None
        dead = metrics.DEAD_LETTERS.labels("rules_baccarat", "invalid_input")._value.get()
        await n.bus.publish(
            subjects.subject("hand", "baccarat", "h1"), b'{"kind": "hand", "ev\x00', "poison:1"
        )
        await deal(n, "h1", 1)
        await until(lambda: n.store.count_settlements() == 9, what="9 settled")  # type: ignore[union-attr]
        await until(
            lambda: len(Outbox(n.store.engine).dead_letters("rules_baccarat")) == 1,  # type: ignore[union-attr]
            what="dead letter",
        )
        (dl,) = Outbox(n.store.engine).dead_letters("rules_baccarat")
        assert dl.reason == "invalid_input" and dl.payload.endswith(b"\x00")
        assert metrics.DEAD_LETTERS.labels("rules_baccarat", "invalid_input")._value.get() == (
            dead + 1
        )
    finally:
        await n.stop()


async def test_a_replica_with_another_store_hands_messages_back(
    tmp_path: Path, nats: EmbeddedNats
) -> None:
    main = await node(tmp_path, nats.url, "dealer", "settlement").start()
    rogue = await node(tmp_path, nats.url, "rules", db="other.sqlite", keys="other").start()
    good: Node | None = None
    try:
        await until(lambda: len(rogue.loops) == 1, what="rogue loop")
        await deal(main, "r1", 4)
        await until(lambda: rogue.loops[0].state == "paused", what="rogue paused")
        await rogue.health.check()  # type: ignore[union-attr]
        assert not rogue.health.ready[0]  # type: ignore[union-attr]
        assert "cannot verify" in rogue.health.ready[1]  # type: ignore[union-attr]
        assert metrics.CONSUMER_UNVERIFIABLE.labels("rules_baccarat")._value.get() > 0
        assert Outbox(rogue.store.engine).dead_letters() == []  # type: ignore[union-attr]
        assert main.store.count_settlements() == 0  # type: ignore[union-attr]
        # a rule replica on the real store takes every hand the rogue handed back
        good = await node(tmp_path, nats.url, "rules").start()
        await until(lambda: main.store.count_settlements() == 4, what="4 settled")  # type: ignore[union-attr]
        assert Outbox(main.store.engine).dead_letters() == []  # type: ignore[union-attr]
    finally:
        for x in (good, rogue, main):
            if x is not None:
                await x.stop()


async def test_audit_starts_without_nats_and_settlement_becomes_ready_when_it_comes(
    tmp_path: Path,
) -> None:
    dead_url = f"nats://127.0.0.1:{free_port()}"
    audit = node(tmp_path, dead_url, "audit")
    audit.grpc_port = free_port()
    await audit.start()
    try:
        assert audit.bus is None and audit.nats is None
        assert await health(audit.grpc_port) == "SERVING"
        assert await health(audit.grpc_port, "croupier.v1.AuditService") == "SERVING"
    finally:
        await audit.stop()

    port = int(dead_url.rsplit(":", 1)[1])
    st = node(tmp_path, dead_url, "settlement")
    st.grpc_port = free_port()
    await st.start()
    server: EmbeddedNats | None = None
    try:
        assert await health(st.grpc_port) == "NOT_SERVING"  # no NATS: not ready ...
        assert await health(st.grpc_port, "liveness") == "SERVING"  # ... but alive
        server = EmbeddedNats(port=port).start()
        deadline = time.monotonic() + 30
        while await health(st.grpc_port) != "SERVING":
            assert time.monotonic() < deadline, "settlement never became ready"
            await asyncio.sleep(0.2)
        assert len(st.loops) == 1 and st.loops[0].state == "running"
    finally:
        await st.stop()
        if server is not None:
            server.stop()


async def test_start_up_verifies_the_stream_and_provision_applies_the_settings(
    nats: EmbeddedNats,
) -> None:
    assert server_list(" nats://a:1 ,nats://b:2,") == ["nats://a:1", "nats://b:2"]
    # the first server of the list is down: the client uses the next one
    bus = await Bus.connect(f"nats://127.0.0.1:{free_port()},{nats.url}")
    try:
        # an operator's stream: 1 h of history, 1 MiB, discard old
        await bus.js.add_stream(
            StreamConfig(
                name=subjects.STREAM,
                subjects=[f"{subjects.PREFIX}.>"],
                max_age=3600,
                max_bytes=1 << 20,
                duplicate_window=120,
            )
        )
        bus.stream = StreamSpec()
        diffs = await bus.ensure_stream()
        assert any(d.startswith("max_age") for d in diffs)
        assert any(d.startswith("max_bytes") for d in diffs)
        info = await bus.js.stream_info(subjects.STREAM)
        assert info.config.max_age == 3600 and info.config.max_bytes == 1 << 20  # untouched

        await bus.ensure_consumer("settlement", "croupier.outcome.>")
        bus.consumers = ConsumerSpec(ack_wait_s=20, max_deliver=50, backoff_s=(1, 5))
        cdiffs = await bus.ensure_consumer("settlement", "croupier.outcome.>")
        assert any(d.startswith("ack_wait") for d in cdiffs)

        bus.stream = StreamSpec(max_age_s=7200, max_bytes=-1, discard="new")
        changed = await bus.provision([("settlement", "croupier.outcome.>")])
        assert changed
        info = await bus.js.stream_info(subjects.STREAM)
        assert info.config.max_age == 7200 and info.config.max_bytes in (None, -1)
        assert await bus.ensure_stream() == []
        ci = await bus.js.consumer_info(subjects.STREAM, "settlement")
        assert ci.config.max_deliver == 50 and ci.config.backoff == [1, 5]
        assert await bus.provision([("settlement", "croupier.outcome.>")]) == []
    finally:
        await bus.close()


def test_croupier_nats_check_and_provision(
    nats: EmbeddedNats, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from croupier_services.cli import main

    monkeypatch.setenv("CROUPIER_NATS_URL", nats.url)
    monkeypatch.setenv("CROUPIER_STREAM_MAX_AGE_S", "3600")
    assert main(["nats", "provision", "--variant", "baccarat"]) == 0
    out = capsys.readouterr().out
    assert "stream CROUPIER created" in out and "consumer settlement created" in out
    assert main(["nats", "check", "--variant", "baccarat"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("CROUPIER_STREAM_MAX_AGE_S", "7200")  # settings changed ...
    assert main(["nats", "check", "--variant", "baccarat"]) == 1  # ... reported
    assert "max_age" in capsys.readouterr().out
    assert main(["nats", "provision", "--variant", "baccarat"]) == 0  # ... applied on purpose
    assert main(["nats", "check", "--variant", "baccarat"]) == 0
