"""Dealer replicas as real processes, for the failover drills.

:class:`ReplicaCluster` runs, each as its own ``croupier serve ...`` process: dealer
replicas ``dealer-a`` and ``dealer-b`` (``CROUPIER_DEALER_ID``, ``CROUPIER_DEALER_ADDRESS``
and a short ``CROUPIER_LEASE_TTL_MS``), one rules replica and settlement — or, with
``rules_replicas`` / ``settlement_replicas`` above one, ``rules-a``, ``rules-b``, ... and
``settlement-a``, ... sharing their durable consumers; with ``one_pass_replicas``, that
many ``croupier serve rules-settlement`` processes instead — over an embedded nats-server
(with ``nats_nodes`` 3, the drills' 3-node JetStream cluster and the stream at R3) and
one store (SQLite in the drill's directory; the machine's PostgreSQL in a database of
its own when ``CROUPIER_TEST_DATABASE_URL`` is set).

The gateway is :class:`~croupier_services.gateway_client.GatewayClient` with request ids:
its shared address is one channel over both replicas (``pick_first``: replica A while it
answers, as a Kubernetes Service would send it somewhere), and it follows
``table_owned_elsewhere`` answers to the owner's own address.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from croupier.auth import Role
from croupier.bus.embedded import EmbeddedCluster, EmbeddedNats, free_port
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import Store
from croupier.testing import store_counts
from croupier_services.audit import Auditor
from croupier_services.bots import bets_for
from croupier_services.gateway_client import GatewayClient, RetryPolicy
from croupier_services.keys import TrustedKeys
from croupier_services.security import client_channel, seat_metadata

from .drill import (
    Database,
    Proc,
    SharedPostgres,
    SqliteDatabase,
    run_cli,
    service_env,
)

VARIANT = "baccarat"
STACK = 10_000_000
TTL_MS = 1500


def database(root: Path) -> Database:
    url = os.environ.get("CROUPIER_TEST_DATABASE_URL")
    return SharedPostgres(url) if url else SqliteDatabase(root / "croupier.sqlite")


def replica_names(kind: str, n: int) -> list[str]:
    """``kind`` alone for one replica, else ``kind-a``, ``kind-b``, ..."""
    return [kind] if n == 1 else [f"{kind}-{chr(ord('a') + i)}" for i in range(n)]


@dataclass
class ReplicaCluster:
    workdir: Path
    db: Database
    ttl_ms: int = TTL_MS
    nats_nodes: int = 1
    rules_replicas: int = 1
    settlement_replicas: int = 1
    one_pass_replicas: int = 0
    """Above 0: that many ``rules-settlement`` processes (``stage``, or ``stage-a``, ...)
    in place of the rules and settlement replicas."""
    extra_env: dict[str, str] = field(default_factory=dict)
    """Settings of every service process (``CROUPIER_CONSUMER_ACK_WAIT_S``, say)."""
    nats: EmbeddedNats | EmbeddedCluster | None = None
    procs: dict[str, Proc] = field(default_factory=dict)
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    ports: set[int] = field(default_factory=set)

    def port(self) -> int:
        """A free port not yet handed to another process of this cluster (the kernel
        may hand out the same free port twice before anyone binds it)."""
        while (p := free_port()) in self.ports:
            pass
        self.ports.add(p)
        return p

    def env(self, **extra: str) -> dict[str, str]:
        assert self.nats is not None
        if self.nats_nodes > 1:
            extra = {"CROUPIER_STREAM_REPLICAS": str(min(3, self.nats_nodes)), **extra}
        return service_env(self.workdir, self.nats.url, self.db.url, **{**self.extra_env, **extra})

    def cli(self, *args: str) -> str:
        return run_cli(self.env(), *args)

    def start(self) -> None:
        self.nats = (
            EmbeddedCluster(self.nats_nodes).start()
            if self.nats_nodes > 1
            else EmbeddedNats().start()
        )
        self.cli("keys", "init", "--dir", str(self.workdir / "keys"))
        self.cli("db", "upgrade")
        for name in ("dealer-a", "dealer-b"):
            gport, mport = self.port(), self.port()
            extra = dict(
                CROUPIER_DEALER_ID=name,
                CROUPIER_DEALER_ADDRESS=f"127.0.0.1:{gport}",
                CROUPIER_LEASE_TTL_MS=str(self.ttl_ms),
            )
            self.add(name, "dealer", gport, mport, extra)
        if self.one_pass_replicas:
            for name in replica_names("stage", self.one_pass_replicas):
                self.add(
                    name, "rules-settlement", self.port(), self.port(), {}, ("--variant", VARIANT)
                )
        else:
            for name in replica_names("rules", self.rules_replicas):
                self.add(name, "rules", 0, self.port(), {}, ("--variant", VARIANT))
            for name in replica_names("settlement", self.settlement_replicas):
                self.add(name, "settlement", self.port(), self.port(), {})
        self.wait_ready(list(self.procs))

    def add(
        self,
        name: str,
        serve: str,
        gport: int,
        mport: int,
        extra: dict[str, str],
        args: tuple[str, ...] = (),
    ) -> None:
        env = self.env(CROUPIER_GRPC_PORT=str(gport), CROUPIER_METRICS_PORT=str(mport), **extra)
        p = Proc(name, serve, env, self.workdir / f"{name}.log", gport, mport, args=args)
        p.start()
        self.procs[name] = p

    def wait_ready(self, names: list[str], timeout_s: float = 90) -> None:
        deadline = time.monotonic() + timeout_s
        left = list(names)
        while left:
            left = [n for n in left if self.procs[n].http("/readyz")[0] != 200]
            if not left:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"not ready after {timeout_s}s: {left}")
            time.sleep(0.2)

    def address(self, name: str) -> str:
        return f"127.0.0.1:{self.procs[name].grpc_port}"

    def stub(self, target: str) -> gateway_pb2_grpc.GatewayServiceStub:
        ch = client_channel(target, self.workdir / "auth", Role.GATEWAY)
        self.channels.append(ch)
        return gateway_pb2_grpc.GatewayServiceStub(ch)

    def gateway(self, home: str | None = None, timeout_s: float = 30.0) -> GatewayClient:
        """A gateway client: its shared address is ``home`` or both replicas, A first."""
        target = home or "ipv4:" + ",".join(self.address(n) for n in ("dealer-a", "dealer-b"))
        cache: dict[str, gateway_pb2_grpc.GatewayServiceStub] = {}

        def connect(address: str) -> gateway_pb2_grpc.GatewayServiceStub:
            if address not in cache:
                cache[address] = self.stub(address)
            return cache[address]

        policy = RetryPolicy(
            attempts=60, first_backoff_s=0.05, max_backoff_s=0.2, timeout_s=timeout_s
        )
        return GatewayClient(self.stub(target), policy, connect=connect)

    async def close_channels(self) -> None:
        for ch in self.channels:
            with contextlib.suppress(Exception):
                await ch.close()

    def close(self) -> None:
        for p in self.procs.values():
            if p.popen is not None and p.alive:
                with contextlib.suppress(Exception):
                    os.kill(p.popen.pid, 18)  # SIGCONT: a stopped process cannot terminate
            p.stop()
        if self.nats is not None:
            self.nats.stop()
        self.db.close()

    def logs(self) -> str:
        out = []
        for p in self.procs.values():
            tail = p.log.read_text(errors="replace")[-4000:] if p.log.exists() else ""
            out.append(f"---- {p.role} ----\n{tail}")
        return "\n".join(out)

    # -- facts from the store -------------------------------------------------------
    def query(self, sql: str) -> list[Any]:
        store = Store.from_url(self.db.url)
        try:
            with store.engine.connect() as c:
                return list(c.exec_driver_sql(sql))
        finally:
            store.close()

    def counts(self) -> dict[str, int]:
        return store_counts(self.db.url)

    def event_types(self, hand_id: str) -> list[str]:
        return [
            r[0]
            for r in self.query(
                f"SELECT type FROM events WHERE stream_id = '{hand_id}' ORDER BY seq"
            )
        ]

    def wait_settled(self, timeout_s: float = 60) -> dict[str, int]:
        deadline = time.monotonic() + timeout_s
        c: dict[str, int] = {}
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                c = self.counts()
                if c["closed"] and c["closed"] == c["settled"]:
                    return c
            time.sleep(0.25)
        raise AssertionError(f"not settled after {timeout_s}s: {c}")

    def audit(self) -> dict[str, int]:
        store = Store.from_url(self.db.url)
        try:
            a = Auditor(store, TrustedKeys.from_dir(self.workdir / "keys"))
            verdicts: dict[str, int] = {}
            for rep in a.audit_range(list(a.hand_ids())):
                k = "pass" if rep.ok else f"{rep.reason}"
                verdicts[k] = verdicts.get(k, 0) + 1
            return verdicts
        finally:
            store.close()


SEATS = [gateway_pb2.SeatEntry(seat=i, player_id=f"p{i}", stack_minor=STACK) for i in (1, 2, 3)]


async def open_with_bets(gw: GatewayClient, table: str, rng: random.Random) -> str:
    """Open a hand at ``table`` and place its players' bets; returns the hand id."""
    h = await gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=SEATS))
    bets: list[tuple[int, str, int]] = []
    while not bets:
        bets = bets_for(VARIANT, rng, [1, 2, 3], h.hand_no, STACK)
    tokens = []
    for n in sorted({b[0] for b in bets}):
        r = await gw.IssueSeatToken(
            gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=n, player_id=f"p{n}")
        )
        tokens.append(r.token)
    await gw.PlaceBets(
        gateway_pb2.PlaceBetsRequest(
            hand_id=h.hand_id,
            bets=[gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets],
        ),
        seat_metadata(tokens),
    )
    return h.hand_id


async def play_hand(gw: GatewayClient, table: str, rng: random.Random) -> str:
    hand = await open_with_bets(gw, table, rng)
    await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hand))
    return hand


async def kill_owner_mid_hand(
    c: ReplicaCluster, gw: GatewayClient, table: str, rng: random.Random, owner: str = "dealer-a"
) -> str:
    """Open a hand at ``table`` with bets, ``kill -9`` its owner, then close betting
    through ``gw``: another replica must take the table within the lease TTL + 2 s and
    complete the hand with its bets (one ``hand.closed``). Returns the hand id."""
    hand = await open_with_bets(gw, table, rng)
    bets = c.event_types(hand).count("bets.placed")
    assert bets > 0
    c.procs[owner].kill9()
    t0 = time.monotonic()
    r = await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hand))
    takeover_s = time.monotonic() - t0
    print(f"takeover after kill -9: {takeover_s:.2f} s (lease TTL {c.ttl_ms} ms)")
    assert r.view.phase != "open"
    assert takeover_s <= c.ttl_ms / 1000 + 2.0
    types = c.event_types(hand)
    assert types.count("bets.placed") == bets and types.count("hand.closed") == 1
    return hand


@contextlib.contextmanager
def running(c: ReplicaCluster) -> Iterator[ReplicaCluster]:
    """Start ``c``, and close it afterwards; its processes' logs are printed when
    anything fails (at start or in the test)."""
    try:
        c.start()
        yield c
    except BaseException:
        print(c.logs())
        raise
    finally:
        c.close()
