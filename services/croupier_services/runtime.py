"""Process wiring: build the store, keys, bus and servers for one service or for the
whole embedded cluster, and run them until stopped."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc

from croupier.auth import SeatTokens
from croupier.bus import subjects
from croupier.bus.embedded import EmbeddedNats
from croupier.bus.jetstream import Bus, ConsumerSpec, StreamSpec
from croupier.bus.relay import OutboxRelay
from croupier.dealing import Dealer
from croupier.errors import ConfigError, CroupierError, IdempotencyConflict, UnknownKey
from croupier.games.registry import variants as known_variants
from croupier.ownership import Ownership
from croupier.pb.croupier.v1 import audit_pb2_grpc, gateway_pb2_grpc, settlement_pb2_grpc
from croupier.signing import Signer
from croupier.store import EventStore, migrate
from croupier.store.planner import TableKeeper
from croupier.store.writer import reopenable
from croupier.upkeep import Trimmer, freeze_startup
from croupier_services import config, metrics
from croupier_services.audit import AuditServicer
from croupier_services.config import AuthSettings
from croupier_services.consumer import ConsumerLoop
from croupier_services.dealer import DealerCore, GatewayServicer, prune_request_ids
from croupier_services.grpc_util import add_health_and_reflection, bind, make_server
from croupier_services.health import HealthMonitor
from croupier_services.keys import TrustedKeys, load_service_signers, signing_key_check
from croupier_services.rules import RulesService, durables_for
from croupier_services.security import (
    DealerResources,
    nats_tls,
    seat_tokens,
    seed_box,
    server_security,
    viewer_authorizer,
)
from croupier_services.settlement import DURABLE as SETTLEMENT_DURABLE
from croupier_services.settlement import SettlementServicer, SettlementWorker
from croupier_services.tlog import log_signer, pinned_log_key, run_publisher

log = logging.getLogger("croupier")
T = TypeVar("T")

SERVICE_NAMES = {
    "dealer": "croupier.v1.GatewayService",
    "settlement": "croupier.v1.SettlementService",
    "audit": "croupier.v1.AuditService",
}


def run_service(main: Coroutine[Any, Any, T]) -> T:
    """Run a process's main coroutine to its end on the event loop
    ``CROUPIER_EVENT_LOOP`` names: uvloop's (libuv: a fraction of asyncio's own cost per
    callback, socket read and timer; the dealer behind gRPC spent ~8 % less CPU per
    hand on it) where it is installed, else asyncio's."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if config.EVENT_LOOP.get() == "uvloop":
        try:
            import uvloop
        except ImportError:  # not installed (a platform without wheels): asyncio's loop
            log.info("uvloop is not installed: running on asyncio's event loop")
        else:
            factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def open_store(url: str) -> EventStore:
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    migrate(url)
    return EventStore.from_url(url)


def role_signers(keys_dir: str, roles: Sequence[str]) -> dict[str, Signer]:
    """The private keys of ``roles``' own producers and no other; a missing key file
    stops the start (:class:`ConfigError` naming it), nothing is created."""
    signers: dict[str, Signer] = {}
    for role in roles:
        signers.update(load_service_signers(Path(keys_dir), role))
    return signers


def trust_signers(store: EventStore, signers: dict[str, Signer], trust: TrustedKeys) -> None:
    """Each signer must be in the trusted keyring and valid now. The keyring's entries
    are cached in the store's ``keys`` table (a cache: nothing trusts it)."""
    t = now_ms()
    for p, s in signers.items():
        try:
            entry = trust.registry.get(s.key_id)
        except UnknownKey:
            raise ConfigError(
                f"key {s.key_id} of {p} is not in the signed keyring v{trust.version}"
            ) from None
        if entry.public_key != s.public_key or entry.producer != p:
            raise ConfigError(f"key {s.key_id} of {p} differs from the signed keyring")
        if not entry.valid_at(t):
            raise ConfigError(f"key {s.key_id} of {p} is not valid now (rotated or revoked)")
    for entry in trust.keyring.entries:
        cached = entry.cache_entry()
        try:
            store.put_key(cached)
        except IdempotencyConflict:  # revoked or rotated since it was cached
            with contextlib.suppress(CroupierError):
                store.revoke_key(cached.key_id, cached.valid_to_ms)


def load_signers(
    store: EventStore, keys_dir: str, roles: Sequence[str], trust: TrustedKeys
) -> dict[str, Signer]:
    """:func:`role_signers`, checked against the keyring by :func:`trust_signers`."""
    signers = role_signers(keys_dir, roles)
    trust_signers(store, signers, trust)
    return signers


@dataclass
class Node:
    """One process: any subset of dealer, rules, settlement, audit, log (the checkpoint
    publisher).

    Start-up never waits on NATS: the store, the gRPC server, health and metrics come
    up first; the bus is joined in the background (retried with backoff), then the
    stream and consumers are verified and the loops and outbox relays started. The
    audit service alone never connects to NATS."""

    roles: Sequence[str]
    database_url: str
    keys_dir: str
    nats_url: str | None = None  # None: start an embedded nats-server
    grpc_port: int = 0
    metrics_port: int = 0
    rule_variants: Sequence[str] = ()
    # rules and settlement in one pass (both roles here): one replay per hand, no
    # ``outcome`` message (croupier_services.rules)
    fuse: bool = False
    turn_clock: bool = True  # the dealer plays timed-out turns (variants' timeouts.turn_ms)
    trust_root: str | None = None  # pinned root file (default: CROUPIER_TRUST_ROOT, keys dir)
    log_key: str | None = None  # the log's verifier key the audit pins (default CROUPIER_LOG_KEY)
    trust: TrustedKeys | None = None
    stream: StreamSpec = field(default_factory=StreamSpec)
    consumers: ConsumerSpec = field(default_factory=ConsumerSpec)
    stall_after_s: float = 60.0
    unverifiable_pause_s: float = 30.0
    request_id_retention_s: int = 86_400  # gateway request ids kept this long, then pruned
    require_request_id: bool = False  # refuse mutating gateway calls without a request id
    single_bet_events: bool = False  # one bet.placed per bet (consumers older than bets.placed)
    dealer_id: str = ""  # a dealer replica's id: tables owned by lease ("": single dealer)
    dealer_address: str = ""  # where other replicas route this replica's tables
    lease_ttl_ms: int = 10_000
    # the dealer's group commits: "process" (a writer process, when the store can be
    # opened there: croupier.store.writer) or "thread"; tests in process keep "thread"
    dealer_writer: str = "thread"
    # the group commit's wait for more calls (CROUPIER_DEALER_COMMIT_LINGER_MS); tests in
    # process keep 0
    commit_linger_ms: float = 0.0
    auth: AuthSettings | None = None  # None: from the environment (CROUPIER_AUTH_DIR, ...)
    store: EventStore | None = None
    bus: Bus | None = None
    buses: dict[str, Bus] = field(default_factory=dict)  # per service role (own NATS user)
    nats: EmbeddedNats | None = None
    server: grpc.aio.Server | None = None
    core: DealerCore | None = None
    health: HealthMonitor | None = None
    relays: list[OutboxRelay] = field(default_factory=list)
    loops: list[ConsumerLoop] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    once: list[asyncio.Task[int]] = field(default_factory=list)  # start-up work that ends
    stop_event: asyncio.Event = field(default_factory=asyncio.Event)
    bound_port: int = 0
    viewer_port: int = 0  # audit role: the replay viewer's HTTP port (0: off)
    viewer_host: str = "127.0.0.1"
    viewer_authorize: Any = None  # croupier_services.viewer.Authorize: the auditor check
    viewer: Any = None
    # the node is its process (``croupier serve``): freeze start-up out of the garbage
    # collector and trim the C heap once a minute (croupier.upkeep); off in process
    process_upkeep: bool = False

    @property
    def needs_nats(self) -> bool:
        return any(r in self.roles for r in ("dealer", "rules", "settlement"))

    async def start(self) -> Node:
        if self.fuse and not {"rules", "settlement"} <= set(self.roles):
            raise ConfigError("rules and settlement in one pass need both roles in the node")
        signers = role_signers(self.keys_dir, self.roles)  # first: no key, no start
        log_key = log_signer(self.keys_dir) if "log" in self.roles else None
        # the audit service and viewer pin the log's key as the CLI audit does
        # (CROUPIER_LOG_KEY); an unreadable one stops the start before anything opens
        audit_log_key = pinned_log_key(self.log_key) if "audit" in self.roles else None
        self.trust = TrustedKeys.from_dir(Path(self.keys_dir), self.trust_root)
        # security material first: a service without it stops before touching anything
        auth = self.auth = self.auth or AuthSettings.from_env()
        serves = bool({"dealer", "settlement", "audit"} & set(self.roles))
        security = server_security(auth) if serves else None
        if self.nats_url is None and self.needs_nats:
            # as deploy/ runs it: one NATS user per service, each allowed its own subjects
            self.nats = EmbeddedNats().with_users(self._variants()).start()
            self.nats_url = self.nats.url
        self.store = open_store(self.database_url)
        trust_signers(self.store, signers, self.trust)
        served: list[str] = []
        resources: DealerResources | None = None
        seats: SeatTokens | None = None
        if "dealer" in self.roles:
            self.core = DealerCore(
                Dealer(
                    signers["dealer"],
                    signers["gateway"],
                    clock_ms=now_ms,
                    single_bet_events=self.single_bet_events,
                ),
                self.store,
                None,
                seed_box=seed_box(auth),
            )
            self.core.signing_check = signing_key_check(
                self.trust, [signers["dealer"].key_id, signers["gateway"].key_id]
            )
            seats = seat_tokens(auth)
            resources = DealerResources(self.core)
        if security is not None:
            self.server = make_server(security, resources=resources, seat_tokens=seats)
        if self.core is not None:
            assert self.server is not None
            if self.dealer_id:  # before recover(): a replica loads tables as it takes them
                self.core.ownership = Ownership(
                    self.store, self.dealer_id, self.dealer_address, self.lease_ttl_ms, now_ms
                )
            self.core.committer.linger_s = self.commit_linger_ms / 1000
            if self.dealer_writer == "process" and reopenable(self.store):
                writer = await asyncio.to_thread(self.core.write_in_process)
                log.info("the dealer's commits run in writer process %s", writer.pid)
            await self.core.recover(republish=False)
            # hands closed without an outcome are found in the background, a slice of
            # opening time at a time: the start does not wait on a day of hands
            self.once.append(asyncio.create_task(self.core.republish_pages(stop=self.stop_event)))
            self.relays.append(self.core.relay)
            if self.core.ownership is not None:
                self.tasks.append(asyncio.create_task(self.core.run_lease_renewal(self.stop_event)))
            if self.turn_clock:
                self.tasks.append(asyncio.create_task(self.core.run_turn_clock(self.stop_event)))
            self.tasks.append(
                asyncio.create_task(
                    prune_request_ids(
                        self.store, self.request_id_retention_s * 1000, self.stop_event
                    )
                )
            )
            gateway_pb2_grpc.add_GatewayServiceServicer_to_server(
                GatewayServicer(self.core, seats, require_request_id=self.require_request_id),
                self.server,
            )
            served.append(SERVICE_NAMES["dealer"])
        if "settlement" in self.roles:
            settlement_pb2_grpc.add_SettlementServiceServicer_to_server(
                SettlementServicer(self.store), self.server
            )
            served.append(SERVICE_NAMES["settlement"])
        if log_key is not None:  # the checkpoint publisher, with the log's own key
            self.tasks.append(
                asyncio.create_task(run_publisher(self.store, log_key, self.stop_event))
            )
        if "audit" in self.roles:
            audit_pb2_grpc.add_AuditServiceServicer_to_server(
                AuditServicer(self.store, self.trust, log_key=audit_log_key), self.server
            )
            served.append(SERVICE_NAMES["audit"])
            if self.viewer_port:
                from croupier_services.viewer import Viewer

                self.viewer = Viewer(
                    self.store,
                    trust=self.trust,
                    log_key=audit_log_key,
                    host=self.viewer_host,
                    port=self.viewer_port,
                    authorize=self.viewer_authorize
                    or (viewer_authorizer(security.verifier) if security else None),
                )
                self.viewer.start()
                log.info("replay viewer on http://%s:%d/", self.viewer_host, self.viewer.port)
        consuming = any(r in self.roles for r in ("rules", "settlement"))
        self.health = HealthMonitor(
            self.store,
            lambda: self.bus,
            lambda: self.loops,
            needs_nats=consuming,
            stall_after_s=self.stall_after_s,
            key_problem=signing_key_check(self.trust, [s.key_id for s in signers.values()]),
        )
        if served and self.server is not None and security is not None:
            hs = await add_health_and_reflection(self.server, served, security.reflection)
            self.health.attach(hs, served)
            self.bound_port = bind(self.server, auth.grpc_host, self.grpc_port, security)
            await self.server.start()
        metrics.prime(list(self.rule_variants) or known_variants())
        metrics.serve(
            self.metrics_port, self.health.ready_probe, self.health.live_probe, auth.metrics_host
        )
        await self.health.check()
        self.tasks.append(asyncio.create_task(self.health.run(self.stop_event)))
        if self.needs_nats:
            self.tasks.append(asyncio.create_task(self._join_bus(signers)))
        if self.process_upkeep and self.needs_nats:  # a writer of the store
            self.tasks.append(asyncio.create_task(self._keep_statistics()))
        if self.process_upkeep:
            # what start-up built lives as long as the process: out of the collector's walks
            frozen = freeze_startup()
            self.tasks.append(
                asyncio.create_task(
                    Trimmer(on_trim=metrics.MEMORY_TRIMMED.inc).run(self.stop_event)
                )
            )
            log.info("start-up heap frozen (%d objects)", frozen)
        log.info(
            "started %s (grpc %s, nats %s)", ",".join(self.roles), self.bound_port, self.nats_url
        )
        return self

    async def _keep_statistics(self) -> None:
        """On PostgreSQL with autovacuum off, the planner's statistics refreshed and the
        dead rows vacuumed here (:class:`croupier.store.planner.TableKeeper`)."""
        assert self.store is not None
        keeper = TableKeeper(self.store.engine)
        if self.store.engine.dialect.name != "postgresql":
            return
        try:
            off = await asyncio.to_thread(keeper.autovacuum_off)
        except Exception as e:  # the database is down: the keeper's passes try again
            log.warning("planner statistics: %s", e)
            off = True
        if off:
            log.warning(
                "PostgreSQL's autovacuum is off: this service refreshes the planner's "
                "statistics of the store's tables and vacuums them itself (every %.0f s)",
                keeper.every_s,
            )
        await keeper.run(self.stop_event)

    def _variants(self) -> list[str]:
        return list(self.rule_variants) or known_variants()

    def _durables(self) -> list[tuple[str, str]]:
        """The durable consumers this node's loops pull from."""
        out: list[tuple[str, str]] = []
        if "rules" in self.roles:
            out += durables_for(self._variants())
        if "settlement" in self.roles:
            out.append((SETTLEMENT_DURABLE, subjects.filter_for("outcome")))
        return out

    async def _connect(self, url: str, name: str) -> Bus | None:
        assert self.nats_url is not None
        return await Bus.connect_retrying(
            url,
            self.stop_event,
            name=name,
            stream=self.stream,
            consumers=self.consumers,
            tls=nats_tls(self.auth or AuthSettings.from_env(), self.nats_url),
        )

    async def _join_bus(self, signers: dict[str, Signer]) -> None:
        """Connect (retrying), verify the stream, start loops and relays. On the
        embedded server with per-service users, the ``provision`` user creates the stream
        and the consumers first, then each service connects as its own user."""
        assert self.store is not None and self.nats_url is not None
        assert self.trust is not None
        users = self.nats is not None and bool(self.nats.passwords)
        if users:
            assert self.nats is not None
            prov = await self._connect(self.nats.user_url("provision"), "croupier-provision")
            if prov is None:
                return
            try:
                await prov.provision(self._durables())
            finally:
                await prov.close()
        buses: dict[str, Bus] = {}
        for role in ("dealer", "rules", "settlement"):
            if role not in self.roles:
                continue
            if users:
                assert self.nats is not None
                b = await self._connect(self.nats.user_url(role), f"croupier-{role}")
            elif buses:
                b = next(iter(buses.values()))  # one connection for every role
            else:
                b = await self._connect(self.nats_url, f"croupier-{'-'.join(self.roles)}")
            if b is None:
                return
            buses[role] = b
        if not buses:
            return
        self.buses = buses
        bus = next(iter(buses.values()))
        self.bus = bus
        if self.core is not None:
            self.core.bus = buses["dealer"]
        delay = 0.2
        while not self.stop_event.is_set():
            try:
                await bus.ensure_stream()
                break
            except Exception as e:  # no stream leader yet, NATS restarting
                log.warning("stream set-up failed (%s); retrying in %.1fs", e, delay)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.stop_event.wait(), delay)
                delay = min(5.0, delay * 2)
        loops: list[ConsumerLoop] = []
        worker = None
        if "settlement" in self.roles:
            worker = SettlementWorker(
                self.store, buses["settlement"], signers["settlement"], trust=self.trust
            )
        if "rules" in self.roles:
            fused = worker if self.fuse else None
            rules = RulesService(
                self.store,
                buses["rules"],
                signers["rules"],
                self._variants(),
                trust=self.trust,
                settle=fused,
            )
            # in one pass the loops sign with both keys: either revoked stops them
            keys = [signers["rules"].key_id] + ([signers["settlement"].key_id] if fused else [])
            rl = await rules.loops(subscribe=False)
            for lp in rl:
                lp.signing_check = signing_key_check(self.trust, keys)
            loops += rl
            self.relays.append(rules.relay)
        if worker is not None:
            # in one pass too: it settles the outcome messages an earlier two-stage
            # deployment left in the stream
            sl = await worker.loop(subscribe=False)
            sl.signing_check = signing_key_check(self.trust, [signers["settlement"].key_id])
            loops.append(sl)
            self.relays.append(worker.relay)
        for lp in loops:
            lp.pause_s = self.unverifiable_pause_s
        self.loops += loops
        for relay in self.relays:
            self.tasks.append(asyncio.create_task(relay.run(self.stop_event)))
        for lp in loops:
            self.tasks.append(asyncio.create_task(lp.run(self.stop_event)))
        if self.process_upkeep:
            freeze_startup()  # the bus connections, loops and relays are long-lived too

    async def wait(self) -> None:
        await self.stop_event.wait()

    async def stop(self) -> None:
        self.stop_event.set()
        for t in [*self.tasks, *self.once]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(t, 5)
        if self.viewer is not None:
            self.viewer.stop()
        if self.server is not None:
            await self.server.stop(1)
        if self.core is not None and self.core.ownership is not None:
            try:  # drain: hand the tables over now rather than after the lease runs out
                n = self.core.ownership.release_all()
                log.info("released %d table leases", n)
            except Exception:
                log.exception("releasing table leases failed; they expire on their own")
        for b in {id(b): b for b in [*self.buses.values(), *filter(None, [self.bus])]}.values():
            await b.close()
        if self.core is not None and self.core.committer.writer is not None:
            await asyncio.to_thread(self.core.committer.writer.close)
        if self.store is not None:
            self.store.close()
        if self.nats is not None:
            self.nats.stop()
