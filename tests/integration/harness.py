"""The in-process cluster the integration tests drive, and helpers to read the bus and
forge or tamper with logs.

The cluster is the same set of pieces :class:`croupier_services.runtime.Node` wires up
(dealer core, gateway, rules, settlement and audit servicers, consumer loops), built
here so that the store can live in a PostgreSQL schema of its own and the consumers can
be paused while a test drives them by hand.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import json
import os
import random
import shutil
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError
from prometheus_client import REGISTRY

from croupier.auth import RULES, AuthDir, Role, SeatTokens, init_dev
from croupier.auth.material import DEV_SUBJECTS
from croupier.bus import subjects
from croupier.bus.jetstream import Bus
from croupier.dealing import Dealer
from croupier.events import Event, Seal, make_event, seal
from croupier.pb.croupier.v1 import (
    audit_pb2_grpc,
    gateway_pb2,
    gateway_pb2_grpc,
    settlement_pb2_grpc,
)
from croupier.signing import PRODUCERS, Signer, load_signer
from croupier.store import Store
from croupier.store.secrets import SeedBox
from croupier_services import metrics
from croupier_services.audit import Auditor, AuditServicer
from croupier_services.config import AuthSettings
from croupier_services.consumer import ConsumerLoop
from croupier_services.dealer import DealerCore, GatewayServicer
from croupier_services.demo import GrpcTables, Progress, Refusals, play_table
from croupier_services.gateway_client import GatewayClient
from croupier_services.grpc_util import add_health_and_reflection, bind, make_server
from croupier_services.keys import TRUST_ROOT_FILE, TrustedKeys, init_keys, key_path
from croupier_services.rules import RulesService
from croupier_services.runtime import SERVICE_NAMES, Node
from croupier_services.security import (
    DealerResources,
    client_channel,
    seat_metadata,
    server_security,
)
from croupier_services.settlement import SettlementServicer, SettlementWorker

PG_ENV = "CROUPIER_TEST_DATABASE_URL"
NATS_ENV = "CROUPIER_TEST_NATS_URL"
VARIANT = "baccarat"
STACK = 10_000_000


def modes() -> list[Any]:
    modes = [pytest.param(("sqlite", "embedded"), id="sqlite-embedded")]
    pg, nats_url = os.environ.get(PG_ENV), os.environ.get(NATS_ENV)
    if pg or nats_url:
        db = "postgresql" if pg else "sqlite"
        bus = "real" if nats_url else "embedded"
        modes.append(pytest.param((db, bus), id=f"{db}-{bus}"))
    return modes


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def unique_table(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def reject_counts() -> dict[tuple[str, str], float]:
    """Messages each consumer has refused so far in this process, by (service, reason)."""
    return {
        (s.labels["service"], s.labels["reason"]): s.value
        for m in metrics.CONSUMER_REJECTS.collect()
        for s in m.samples
        if s.name.endswith("_total")
    }


def seed_sequence(tag: str) -> Callable[[], bytes]:
    """Server seeds ``SHA-256(tag/1)``, ``SHA-256(tag/2)``, ..."""
    n = 0

    def nxt() -> bytes:
        nonlocal n
        n += 1
        return hashlib.sha256(f"{tag}/{n}".encode()).digest()

    return nxt


def metric(name: str, **labels: str) -> float:
    """A Prometheus sample of the process registry (0 when never observed)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


# --------------------------------------------------------------------------- store


@dataclass(frozen=True)
class Database:
    backend: str
    url: str
    schema: str | None

    def open(self) -> Store:
        return Store.open(self.url, upgrade=True, schema=self.schema)

    @property
    def cli_url(self) -> str:
        """The store as a plain ``CROUPIER_DATABASE_URL`` (the schema, if any, goes on
        the connection's ``search_path`` through libpq ``options``)."""
        if self.schema is None:
            return self.url
        sep = "&" if "?" in self.url else "?"
        return f"{self.url}{sep}options=-csearch_path%3D{self.schema}"


# --------------------------------------------------------------------------- cluster


@dataclass
class Cluster:
    mode: tuple[str, str]
    database: Database
    keys_dir: Path
    trust: TrustedKeys
    nats_url: str
    store: Store
    bus: Bus
    signers: dict[str, Signer]
    core: DealerCore
    rules: RulesService
    settlement: SettlementWorker
    rules_loops: list[ConsumerLoop]
    settlement_loop: ConsumerLoop
    server: grpc.aio.Server
    port: int
    channel: grpc.aio.Channel  # as the gateway (seat tokens added by SeatTokenAttacher)
    auditor_channel: grpc.aio.Channel
    auth: AuthDir
    seed_box: SeedBox
    gw: gateway_pb2_grpc.GatewayServiceStub
    st: settlement_pb2_grpc.SettlementServiceStub
    au: audit_pb2_grpc.AuditServiceStub
    # another channel as the gateway (the caller closes it): a second gateway replica
    new_gateway_channel: Callable[[], grpc.aio.Channel]
    stop_event: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    rejects_at_start: dict[tuple[str, str], float] = field(default_factory=reject_counts)

    @property
    def rules_loop(self) -> ConsumerLoop:
        """The first variant's rule service loop (the only one unless asked for more)."""
        return self.rules_loops[0]

    def auditor(self) -> Auditor:
        """An auditor of the cluster's store under its pinned root."""
        return Auditor(self.store, self.trust)

    def cli_env(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Point the command line at this cluster's store and keys (and pin its root)."""
        monkeypatch.setenv("CROUPIER_DATABASE_URL", self.database.cli_url)
        monkeypatch.setenv("CROUPIER_KEYS_DIR", str(self.keys_dir))
        monkeypatch.setenv("CROUPIER_TRUST_ROOT", str(self.keys_dir / TRUST_ROOT_FILE))

    @property
    def loops(self) -> list[ConsumerLoop]:
        return [*self.rules_loops, self.settlement_loop]

    def run_consumers(self) -> None:
        assert not self.tasks, "consumers already running"
        self.stop_event = asyncio.Event()
        self.tasks = [asyncio.create_task(lp.run(self.stop_event)) for lp in self.loops]

    async def stop_consumers(self) -> None:
        """Stop the loops; a loop that died is reported by :meth:`wait_settled`."""
        self.stop_event.set()
        for t in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(t, 10)
        self.tasks = []

    async def flush(self) -> None:
        """Publish everything the dealer, rules and settlement committed to their
        outboxes (the relays do this in the background; a test reading the stream right
        after a commit waits for it here), and delete the rows published (which the
        producers' next commits, or the relays within ``delete_after_s``, would)."""
        for relay in (self.core.relay, self.rules.relay, self.settlement.relay):
            while await relay.drain_once():
                pass
            relay.delete_due(now=True)

    def fix_seeds(self, tag: str) -> None:
        """Make the dealer's server seeds a deterministic sequence (the seed source is
        injectable for exactly this): a run is then repeatable coup for coup."""
        self.core.dealer.seed_source = seed_sequence(tag)

    async def wait_settled(self, n: int, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.store.count_settlements() < n:
            for t in self.tasks:
                if t.done():
                    t.result()  # a consumer loop died: show why
            new = {
                k: v - self.rejects_at_start.get(k, 0)
                for k, v in reject_counts().items()
                if v > self.rejects_at_start.get(k, 0)
            }
            if new:
                raise AssertionError(
                    f"consumers rejected messages {new} (see the log); "
                    f"{self.store.count_settlements()} of {n} hands settled"
                )
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"only {self.store.count_settlements()} of {n} hands settled in {timeout_s}s"
                )
            await asyncio.sleep(0.02)

    async def wait_for(
        self, cond: Callable[[], bool], timeout_s: float = 30.0, what: str = ""
    ) -> None:
        """Until ``cond()`` (no check of rejects: for tests that expect some)."""
        deadline = time.monotonic() + timeout_s
        while not cond():
            for t in self.tasks:
                if t.done():
                    t.result()
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.05)

    async def open_table(self, prefix: str = "t", client_seed: str = "") -> str:
        table = unique_table(prefix)
        await self.gw.OpenTable(
            gateway_pb2.OpenTableRequest(
                table_id=table, variant=VARIANT, client_seed=client_seed or table
            )
        )
        return table

    async def play_hand(
        self,
        table: str,
        bets: Sequence[tuple[int, str, int]] = ((1, "banker", 10_000),),
        seats: int = 3,
    ) -> str:
        """One complete coup through the gateway API; returns the hand id."""
        h = await self.gw.OpenHand(
            gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, seats))
        )
        if bets:
            await self.gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(
                    hand_id=h.hand_id,
                    bets=[gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets],
                )
            )
        await self.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
        return h.hand_id


async def play_variants(c: Cluster, games: Sequence[str], hands: int, seed: int) -> None:
    """The demo's players play ``hands`` hands of each of ``games`` at a table of its own
    through the gateway's gRPC API (bets, decisions, timeouts); none refused."""
    rng = random.Random(seed)
    staked: dict[str, int] = defaultdict(int)
    progress = Progress(hands * len(games), "")
    tables, refused = GrpcTables(GatewayClient(c.gw)), Refusals()
    for v in games:
        table = unique_table(v.replace(".", "_")[:20])
        played = await play_table(
            tables, v, table, 4, hands, random.Random(rng.random()), progress, staked, refused
        )
        assert len(played) == hands, (v, refused.first)
    assert refused.tables_stopped == 0, refused.first


def seat_entries(table: str, n: int) -> list[gateway_pb2.SeatEntry]:
    return [
        gateway_pb2.SeatEntry(seat=i, player_id=f"{table}_p{i}", stack_minor=STACK)
        for i in range(1, n + 1)
    ]


async def reset_stream(bus: Bus) -> None:
    """Start from an empty ``CROUPIER`` stream (and so no durable consumers)."""
    with contextlib.suppress(NotFoundError):
        await bus.js.delete_stream(subjects.STREAM)
    await bus.ensure_stream()


_DEV_AUTH: list[AuthDir] = []


def dev_auth() -> AuthDir:
    """One set of development certificates, keys and tokens for the test process (the
    clusters run with security on, like the embedded default)."""
    if not _DEV_AUTH:
        root = tempfile.mkdtemp(prefix="croupier-auth-")
        atexit.register(shutil.rmtree, root, True)
        _DEV_AUTH.append(init_dev(Path(root)))
    return _DEV_AUTH[0]


class SeatTokenAttacher(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """The test gateway's player sessions: a call that acts for seats (``PlaceBets``,
    ``Act``, ``GetHandView(seat)``) carries those seats' tokens, minted for the players
    seated there as ``IssueSeatToken`` would."""

    def __init__(self, resources: DealerResources, tokens: SeatTokens, gateway: str) -> None:
        self.resources, self.tokens, self.gateway = resources, tokens, gateway

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        method = details.method.decode() if isinstance(details.method, bytes) else details.method
        rule = RULES.get(method)
        seated: tuple[str, Mapping[int, str]] | None = None
        if rule is not None and rule.seats is not None:
            if rule.players is not None and rule.table is not None:  # seated by the call
                seated = rule.table(request), rule.players(request)
            elif _valid_hand_id(request.hand_id):
                ref = self.resources.hand(request.hand_id)
                seated = (ref.table, ref.players) if ref is not None else None
        if rule is not None and rule.seats is not None and seated is not None:
            table, players = seated
            tokens = [
                self.tokens.issue(self.gateway, table, seat, players[seat])[0]
                for seat in sorted(rule.seats(request))
                if seat in players  # nobody to speak for at an empty or malformed seat
            ]
            md = [*(details.metadata or ()), *seat_metadata(tokens)]
            details = grpc.aio.ClientCallDetails(
                details.method, details.timeout, md, details.credentials, details.wait_for_ready
            )
        return await continuation(details, request)


def auth_settings(d: AuthDir) -> AuthSettings:
    return AuthSettings.from_env(str(d.root))


@contextlib.asynccontextmanager
async def dealer_node(
    tmp_path: Path, nats_url: str, **settings: Any
) -> AsyncIterator[tuple[Node, gateway_pb2_grpc.GatewayServiceStub]]:
    """A dealer as ``croupier serve dealer`` wires it (:class:`Node`), with its own dev
    material, keys and SQLite store under ``tmp_path`` and ``settings`` given to the
    node, and a gateway's stub of it; stopped on exit."""
    auth = init_dev(tmp_path / "auth")
    init_keys(tmp_path / "keys")  # the operator's keys: the dealer loads its own
    node = Node(
        roles=("dealer",),
        database_url=f"sqlite:///{tmp_path / 'dealer.sqlite'}",
        keys_dir=str(tmp_path / "keys"),
        nats_url=nats_url,
        auth=AuthSettings.from_env(str(auth.root)),
        **settings,
    )
    await node.start()
    try:
        assert node.store is not None
        async with client_channel(f"127.0.0.1:{node.bound_port}", auth.root, Role.GATEWAY) as ch:
            yield node, gateway_pb2_grpc.GatewayServiceStub(ch)
    finally:
        await node.stop()


async def serve_gateway(
    store: Store, core: DealerCore, auth: AuthDir, trust: TrustedKeys
) -> tuple[
    grpc.aio.Server, int, grpc.aio.Channel, grpc.aio.Channel, Callable[[], grpc.aio.Channel]
]:
    """The cluster's gRPC server (gateway, settlement, audit) behind the authentication
    interceptor, on a free port, with a gateway channel (seat tokens attached), an
    auditor channel and a factory of further gateway channels."""
    security = server_security(auth_settings(auth))
    seats = SeatTokens(auth.seat_key.read_bytes())
    resources = DealerResources(core)
    server = make_server(security, resources=resources, seat_tokens=seats)
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(core, seats), server)
    settlement_pb2_grpc.add_SettlementServiceServicer_to_server(SettlementServicer(store), server)
    audit_pb2_grpc.add_AuditServiceServicer_to_server(AuditServicer(store, trust), server)
    await add_health_and_reflection(server, list(SERVICE_NAMES.values()))
    port = bind(server, "127.0.0.1", 0, security)
    await server.start()
    target = f"127.0.0.1:{port}"

    def gateway_channel() -> grpc.aio.Channel:
        return client_channel(
            target,
            auth.root,
            Role.GATEWAY,
            interceptors=[SeatTokenAttacher(resources, seats, DEV_SUBJECTS[Role.GATEWAY])],
        )

    return server, port, gateway_channel(), client_channel(target, auth.root, Role.AUDITOR), (
        gateway_channel
    )


async def restart_dealer(c: Cluster, clock_ms: Callable[[], int] = now_ms) -> tuple[int, int]:
    """Stop the cluster's gRPC server and start a new dealer (no memory) on the same
    store behind a new server, as a restarted dealer process would; returns what it
    recovered (tables, hands republished)."""
    await c.channel.close()
    await c.auditor_channel.close()
    await c.server.stop(0)
    core = DealerCore(
        Dealer(c.signers["dealer"], c.signers["gateway"], clock_ms=clock_ms),
        c.store,
        c.bus,
        seed_box=c.seed_box,
    )
    recovered = await core.recover()
    server, port, channel, auditor_channel, factory = await serve_gateway(
        c.store, core, c.auth, c.trust
    )
    c.server, c.core, c.port = server, core, port
    c.channel, c.auditor_channel, c.new_gateway_channel = channel, auditor_channel, factory
    c.gw = gateway_pb2_grpc.GatewayServiceStub(channel)
    c.st = settlement_pb2_grpc.SettlementServiceStub(auditor_channel)
    c.au = audit_pb2_grpc.AuditServiceStub(auditor_channel)
    return recovered


async def build_cluster(
    mode: tuple[str, str],
    database: Database,
    nats_url: str,
    *,
    consumers: bool,
    keys_dir: Path,
    variants: Sequence[str] = (VARIANT,),
    one_pass: bool = False,
) -> Cluster:
    """``one_pass``: the rule service's loops also settle (``croupier serve
    rules-settlement``); the settlement loop is there for outcome messages as a node's."""
    store = database.open()
    init_keys(keys_dir)  # each service loads only its own key; here all run in one process
    trust = TrustedKeys.from_dir(keys_dir)
    signers: dict[str, Signer] = {p: load_signer(key_path(keys_dir, p)) for p in PRODUCERS}
    for entry in trust.keyring.entries:
        store.put_key(entry.cache_entry())
    bus = await Bus.connect(nats_url, name="croupier-it")
    await reset_stream(bus)
    auth = dev_auth()
    box = SeedBox(auth.seed_key.read_bytes())
    core = DealerCore(
        Dealer(signers["dealer"], signers["gateway"], clock_ms=now_ms), store, bus, seed_box=box
    )
    worker = SettlementWorker(store, bus, signers["settlement"], trust=trust)
    rules = RulesService(
        store,
        bus,
        signers["rules"],
        list(variants),
        trust=trust,
        settle=worker if one_pass else None,
    )
    rules_loops = await rules.loops()
    settlement_loop = await worker.loop()
    server, port, channel, auditor_channel, gateway_channel = await serve_gateway(
        store, core, auth, trust
    )
    c = Cluster(
        mode=mode,
        database=database,
        keys_dir=keys_dir,
        trust=trust,
        nats_url=nats_url,
        store=store,
        bus=bus,
        signers=signers,
        core=core,
        rules=rules,
        settlement=worker,
        rules_loops=rules_loops,
        settlement_loop=settlement_loop,
        server=server,
        port=port,
        channel=channel,
        auditor_channel=auditor_channel,
        auth=auth,
        seed_box=box,
        gw=gateway_pb2_grpc.GatewayServiceStub(channel),
        st=settlement_pb2_grpc.SettlementServiceStub(auditor_channel),
        au=audit_pb2_grpc.AuditServiceStub(auditor_channel),
        new_gateway_channel=gateway_channel,
    )
    if consumers:
        c.run_consumers()
    return c


ClusterFactory = Callable[..., Awaitable[Cluster]]


async def close_cluster(c: Cluster) -> None:
    await c.stop_consumers()
    await c.channel.close()
    await c.auditor_channel.close()
    await c.server.stop(0)
    with contextlib.suppress(Exception):  # leave a shared server as we found it
        await c.bus.js.delete_stream(subjects.STREAM)
    await c.bus.close()
    c.store.close()


# --------------------------------------------------------------------------- helpers


async def all_stream_messages(bus: Bus) -> list[Msg]:
    """Every message now on the ``CROUPIER`` stream, read by an ephemeral consumer that
    acknowledges nothing (so no durable consumer is disturbed)."""
    info = await bus.js.stream_info(subjects.STREAM)
    total = info.state.messages
    cfg = ConsumerConfig(
        ack_policy=AckPolicy.NONE,
        deliver_policy=DeliverPolicy.ALL,
        inactive_threshold=5.0,
    )
    sub = await bus.js.pull_subscribe(f"{subjects.PREFIX}.>", stream=subjects.STREAM, config=cfg)
    out: list[Msg] = []
    try:
        while len(out) < total:
            try:
                got = await sub.fetch(min(256, total - len(out)), timeout=2)
            except TimeoutError:
                break
            if not got:
                break
            out += got
    finally:
        await sub.unsubscribe()
    return out


async def subject_counts(bus: Bus) -> dict[str, int]:
    """Messages per kind (``hand``, ``outcome``, ``settled``...) on the stream."""
    info = await bus.js.stream_info(subjects.STREAM, subjects_filter=f"{subjects.PREFIX}.>")
    counts: dict[str, int] = {}
    for subj, n in (info.state.subjects or {}).items():
        kind = subj.split(".")[1]
        counts[kind] = counts.get(kind, 0) + n
    return counts


async def wait_subjects(bus: Bus, expected: dict[str, int], timeout_s: float = 10.0) -> None:
    """Wait until the stream holds exactly ``expected`` messages per kind (a consumer
    publishes its result just after its database commit)."""
    deadline = time.monotonic() + timeout_s
    while (got := await subject_counts(bus)) != expected:
        if time.monotonic() > deadline:
            raise AssertionError(f"stream holds {got}, expected {expected}")
        await asyncio.sleep(0.02)


@dataclass
class FakeMsg:
    """Stands in for a JetStream message in :meth:`ConsumerLoop.process`."""

    data: bytes
    subject: str = "croupier.hand.baccarat.fake"
    num_delivered: int = 1
    acks: int = 0
    terms: int = 0

    @property
    def metadata(self) -> Any:
        return type("Meta", (), {"num_delivered": self.num_delivered})()

    async def ack(self) -> None:
        self.acks += 1

    async def term(self) -> None:
        self.terms += 1


def reforge(
    events: Sequence[Event],
    seals: Sequence[Seal],
    signers: Mapping[str, Signer],
    payloads: Mapping[int, Mapping[str, Any]],
    producers: Mapping[int, str] | None = None,
) -> tuple[list[Event], list[Seal]]:
    """Rewrite one stream with new payloads (or new producers) at some seqs, re-chaining
    every later event properly and re-signing every seal with the producers' real keys
    — a log that only checks beyond the chain and the signatures (who may write what,
    the rules, fairness) can fault. Each event is re-sealed by its own producer."""
    out: list[Event] = []
    prev = events[0].prev_hash
    for e in events:
        payload = payloads.get(e.seq, e.payload)
        producer = (producers or {}).get(e.seq, e.producer)
        key_id = e.key_id if producer == e.producer else signers[producer].key_id
        ne = make_event(e.stream, e.seq, e.type, producer, key_id, prev, payload)
        out.append(ne)
        prev = ne.hash
    by_seq = {e.seq: e for e in out}
    new_seals = []
    for s in seals:
        signer = signers[s.producer]
        assert signer.key_id == s.key_id
        heads = [by_seq[en.seq] for en in s.entries if en.stream == events[0].stream]
        new_seals.append(seal(signer, heads, s.sealed_at_ms))
    for p in sorted({e.producer for e in out} - {s.producer for s in seals}):
        new_seals.append(seal(signers[p], [e for e in out if e.producer == p][-1:], 1))
    return out, new_seals


def event_of(events: Sequence[Event], type_: str) -> Event:
    return next(e for e in events if e.type == type_)


def flip_digit(payload: bytes, key: str) -> bytes:
    """``payload`` with one digit of the number after ``"key":`` changed (1 byte)."""
    marker = f'"{key}":'.encode()
    i = payload.index(marker) + len(marker)
    while not chr(payload[i]).isdigit():
        i += 1
    d = payload[i]
    new = ord("1") if d != ord("1") else ord("2")
    out = payload[:i] + bytes([new]) + payload[i + 1 :]
    assert len(out) == len(payload) and json.loads(out) != json.loads(payload)
    return out


def _valid_hand_id(value: str) -> bool:
    """A hand id the edge limits accept (a malformed one is the server's to refuse)."""
    from croupier import limits
    from croupier.errors import InvalidInput

    try:
        limits.hand_id(value)
    except InvalidInput:
        return False
    return True
