"""The gateway path under concurrent tables: baccarat coups (OpenHand, PlaceBets,
CloseBetting, each with a request id; with ``--one-call``, one OpenHand carrying the
coup's bets and ``close_betting``) played at N tables at once over real gRPC.

    .venv/bin/python bench/bench_gateway.py [--tables 1,16,64] [--seconds 10]
        [--database-url URL] [--insecure] [--one-call] [--rate HANDS_PER_S]
        [--rss-every SECONDS] [--heap-diff SECONDS] [--census SECONDS] [--memlog FILE]

For each N, a dealer process is started (this script with ``--serve``): the dealer's
:class:`GatewayServicer` behind the authentication interceptor as production serves it
(TLS with client certificates, identity tokens, table grants, seat tokens;
``--insecure``: a bare server, no interceptor), over a fresh store (a temporary SQLite
file, or on the PostgreSQL server of ``--database-url`` a schema of the run's own,
dropped after it) and no bus (closed hands go to the outbox; nothing publishes them);
its group commits run where ``CROUPIER_DEALER_WRITER`` says, as in the service (default:
a writer process).
This process is the gateway: N tables, each playing coups for ``--seconds`` after one
warm-up coup per table: back to back, or with ``--rate`` as an open load (each table's
coups paced to give that many hands/s in all; a coup that starts late counts from when
it was due). Back to back, an RPC's latency is mostly its wait behind the other tables'
calls (N calls always in flight). Printed per N: hands/s, p50/p99 of a coup and of each
RPC as the gateway sees it, CPU µs per hand of the dealer process (all its threads and
its writer process, from /proc) and of this client process, the calls stored per
transaction, and the seals stored per hand (each is one signature check for every
consumer of the hand and for the audit).

The dealer's collector passes are timed by generation (each one stops its event loop).
``--rss-every S`` prints, every S seconds of the run, the hands played so far and the
resident memory of the dealer process and of each of its children (its writer process,
``multiprocessing``'s resource tracker): a long run's memory. ``--heap-diff S`` traces
the dealer's Python allocations and prints what its heap gained from S seconds into the
run to its end, by allocating traceback (the dealer runs slower under the tracing: its
CPU figures are then not comparable); ``--census S`` counts the dealer's objects by type
at S seconds and at the end and prints the types that grew most (untraced); ``--memlog
FILE`` keeps the dealer's ``bench/memwatch.py`` log (RSS, the C heap in use, malloc's
arenas and their free bytes, SQLite's heap), which costs it nothing measurable.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import _cmdline, cpu_seconds_tree, descendants, rss_kib
from memwatch import watch_in_thread
from scratch import own_schema

from croupier.auth import AuthDir, Role, SeatTokens, init_dev
from croupier.auth.material import DEV_SUBJECTS
from croupier.dealing import Dealer
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.signing import load_signer
from croupier.store import Store
from croupier.store.secrets import SeedBox
from croupier.upkeep import Trimmer, freeze_startup
from croupier_services.config import DEALER_COMMIT_LINGER_MS, DEALER_WRITER, AuthSettings
from croupier_services.dealer import DealerCore, GatewayServicer
from croupier_services.grpc_util import bind, make_server
from croupier_services.keys import TrustedKeys, init_keys, key_path
from croupier_services.runtime import run_service
from croupier_services.security import (
    DealerResources,
    client_channel,
    seat_metadata,
    server_security,
)

RPCS = ("OpenHand", "PlaceBets", "CloseBetting")
SEATS = 3
STACK = 10**14
BET = 1_000


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# ----------------------------------------------------------------------------- dealer


def build_core(store: Store, keys: Path, auth: AuthDir) -> DealerCore:
    trust = TrustedKeys.from_dir(keys)
    for entry in trust.keyring.entries:
        store.put_key(entry.cache_entry())
    signers = {p: load_signer(key_path(keys, p)) for p in ("dealer", "gateway")}
    dealer = Dealer(signers["dealer"], signers["gateway"], clock_ms=now_ms)
    return DealerCore(dealer, store, None, seed_box=SeedBox(auth.seed_key.read_bytes()))


def collector_pauses() -> dict[str, list[float]]:
    """From now on, each pass of the cyclic collector in this process, timed by
    generation (a pass stops the event loop, so its length is in every call's tail):
    ``[passes, total ms, longest ms]`` a generation. Totals only: a list of every pass's
    length grew the dealer by ~3.5 MiB over 975,000 hands (a float a pass)."""
    pauses: dict[str, list[float]] = {"0": [0, 0.0, 0.0], "1": [0, 0.0, 0.0], "2": [0, 0.0, 0.0]}
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            ms = (time.perf_counter() - began[0]) * 1e3
            p = pauses[str(info["generation"])]
            p[0] += 1
            p[1] += ms
            if ms > p[2]:
                p[2] = ms

    gc.callbacks.append(timed)
    return pauses


HEAP_DIFF_ENV = "BENCH_GATEWAY_HEAP_DIFF"
"""Set by ``--heap-diff S`` for the dealer process (see :func:`heap_diff`)."""
CENSUS_ENV = "BENCH_GATEWAY_CENSUS"
"""Set by ``--census S`` (see :func:`census_diff`)."""
MEMLOG_ENV = "BENCH_GATEWAY_MEMLOG"
"""Set by ``--memlog FILE``: the dealer logs its memory there (``bench/memwatch.py``)."""


def heap_diff(first: tracemalloc.Snapshot, top: int = 25) -> str:
    """What the Python heap gained since ``first``, by allocating traceback (the
    largest first): where a slow rise of a long run's memory comes from."""
    last = tracemalloc.take_snapshot()
    skip = [tracemalloc.Filter(False, tracemalloc.__file__)]
    stats = last.filter_traces(skip).compare_to(first.filter_traces(skip), "traceback")
    cur, _ = tracemalloc.get_traced_memory()
    out = [f"traced now {cur / 2**20:.1f} MiB; growth by traceback (largest first):"]
    for st in stats[:top]:
        out.append(f"{st.size_diff / 1024:+,.1f} KiB in {st.count_diff:+,} blocks")
        out.extend(f"    {line}" for line in st.traceback.format(most_recent_first=True))
    return "\n".join(out)


Census = tuple[collections.Counter[str], dict[int, tuple[int, str]]]


def census() -> Census:
    """The objects the collector tracks (containers, instances), counted by type, and
    the sizes of its containers of 1,000 items or more (by id, with a sample item)."""
    counts: collections.Counter[str] = collections.Counter()
    sizes: dict[int, tuple[int, str]] = {}
    for o in gc.get_objects():
        t = type(o)
        counts[f"{t.__module__}.{t.__qualname__}"] += 1
        if t in (dict, list, set, collections.deque, collections.OrderedDict):
            n = len(o)
            if n >= 1000:
                sample = next(iter(o), None)
                sizes[id(o)] = (n, f"{t.__name__} of e.g. {sample!r:.80}")
    return counts, sizes


def census_diff(first: Census, top: int = 30) -> str:
    """The types whose count grew most since ``first``, and the containers that grew."""
    (was, was_sizes), (now, sizes) = first, census()
    grew = sorted(((now[k] - was[k], k) for k in now.keys() | was.keys()), reverse=True)
    lines = [f"{d:+,} {k} (now {now[k]:,})" for d, k in grew[:top] if d]
    bigger = sorted(
        ((n - was_sizes.get(i, (0, ""))[0], n, what) for i, (n, what) in sizes.items()),
        reverse=True,
    )
    lines += [f"container {d:+,} to {n:,}: {what}" for d, n, what in bigger[:10] if d]
    return f"\n{sum(now.values()):,} objects tracked now; grown most:\n" + "\n".join(lines)


async def serve(work: Path, url: str, insecure: bool) -> None:
    """The dealer process: serve until SIGTERM, then write its commit counters."""
    diff_after = float(os.environ.get(HEAP_DIFF_ENV, "0") or 0)
    if diff_after:
        tracemalloc.start(8)
    memlog = os.environ.get(MEMLOG_ENV)
    if memlog:
        watch_in_thread(memlog, trace=bool(diff_after))
    store = Store.open(url, upgrade=True)
    auth = AuthDir(work / "auth")
    core = build_core(store, work / "keys", auth)
    core.relay.kick = lambda: None  # type: ignore[method-assign]  # no bus: nothing publishes
    if DEALER_WRITER.get() == "process":  # as `croupier serve dealer` does by default
        core.write_in_process()
    core.committer.linger_s = DEALER_COMMIT_LINGER_MS.get() / 1000  # as the service
    if insecure:
        server = grpc.aio.server()
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(core), server)
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        security = server_security(AuthSettings.from_env(str(auth.root)))
        seats = SeatTokens(auth.seat_key.read_bytes())
        server = make_server(security, resources=DealerResources(core), seat_tokens=seats)
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(core, seats), server)
        port = bind(server, "127.0.0.1", 0, security)
    await server.start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    freeze_startup()  # as `croupier serve` ends its start
    pauses = collector_pauses()
    trimmer = asyncio.create_task(Trimmer().run(stop))
    first: list[tracemalloc.Snapshot] = []
    if diff_after:
        asyncio.get_running_loop().call_later(
            diff_after, lambda: first.append(tracemalloc.take_snapshot())
        )
    counted: list[Census] = []
    census_after = float(os.environ.get(CENSUS_ENV, "0") or 0)
    if census_after:
        asyncio.get_running_loop().call_later(census_after, lambda: counted.append(census()))
    (work / "port.tmp").write_text(str(port))
    (work / "port.tmp").rename(work / "port")
    await stop.wait()
    if first:
        (work / "heap.txt").write_text(heap_diff(first[0]))
    if counted:
        (work / "census.txt").write_text(census_diff(counted[0]))
    await trimmer
    await server.stop(0)
    if core.committer.writer is not None:
        core.committer.writer.close()
    committer = getattr(core, "committer", None)  # absent before group commit
    stats = {
        "groups": getattr(committer, "groups", 0),
        "writes": getattr(committer, "writes", 0),
        "retried": getattr(committer, "retried", 0),
        "gc": pauses,
    }
    (work / "stats.json").write_text(json.dumps(stats))
    store.close()


# ----------------------------------------------------------------------------- gateway


@dataclass
class Run:
    tables: int
    seconds: float = 0.0
    hands: int = 0
    dealer_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    latency_ms: dict[str, list[float]] = field(
        default_factory=lambda: {r: [] for r in (*RPCS, "coup")}
    )
    rate: float = 0.0  # offered hands/s (0: every table plays back to back)
    stats: dict[str, Any] = field(default_factory=dict)
    seals_per_hand: float = 0.0  # seals stored per hand stored (each one signature check)
    heap: str = ""  # --heap-diff: what the dealer's Python heap gained


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1]


async def drive(
    work: Path,
    port: int,
    n: int,
    seconds: float,
    insecure: bool,
    pid: int,
    one_call: bool,
    rate: float = 0.0,
    rss_every: float = 0.0,
) -> Run:
    auth = AuthDir(work / "auth")
    target = f"127.0.0.1:{port}"
    channel = (
        grpc.aio.insecure_channel(target)
        if insecure
        else client_channel(target, auth.root, Role.GATEWAY)
    )
    gw = gateway_pb2_grpc.GatewayServiceStub(channel)
    tokens = SeatTokens(auth.seat_key.read_bytes())
    gateway = DEV_SUBJECTS[Role.GATEWAY]
    run = Run(n, rate=rate)
    measuring = False
    deadline = started = 0.0

    def rid() -> str:
        return uuid.uuid4().hex

    async def call(name: str, fn: Any, req: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        out = await fn(req, timeout=60, **kw)
        if measuring:
            run.latency_ms[name].append((time.perf_counter() - t0) * 1e3)
        return out

    async def table(i: int, warmed: asyncio.Event, go: asyncio.Event) -> None:
        nonlocal measuring
        t = f"bench_{i}_{uuid.uuid4().hex[:8]}"
        await gw.OpenTable(
            gateway_pb2.OpenTableRequest(table_id=t, variant="baccarat", request_id=rid()),
            timeout=60,
        )
        seats = [
            gateway_pb2.SeatEntry(seat=s, player_id=f"{t}_p{s}", stack_minor=STACK)
            for s in range(1, SEATS + 1)
        ]
        md = seat_metadata([tokens.issue(gateway, t, 1, f"{t}_p1")[0]])
        bets = [gateway_pb2.Bet(seat=1, spot="banker", amount_minor=BET)]
        first = True
        due = 0.0  # paced (--rate): when this table's next coup is due
        while first or time.perf_counter() < deadline:
            counted = measuring
            if due:
                if (wait := due - time.perf_counter()) > 0:
                    await asyncio.sleep(wait)
                t_coup = due  # a late start counts in the coup's time (no omission)
                due += n / rate
            else:
                t_coup = time.perf_counter()
            if one_call:
                await call(
                    "OpenHand",
                    gw.OpenHand,
                    gateway_pb2.OpenHandRequest(
                        table_id=t, seats=seats, bets=bets, close_betting=True, request_id=rid()
                    ),
                    metadata=md,
                )
            else:
                await three_calls(t, seats, bets, md)
            if counted and measuring:
                run.hands += 1
                run.latency_ms["coup"].append((time.perf_counter() - t_coup) * 1e3)
            if first:
                first = False
                warmed.set()
                await go.wait()
                if rate:  # the tables' coups spread evenly over each interval
                    due = started + i / rate

    async def three_calls(t: str, seats: Any, bets: Any, md: Any) -> None:
        h = await call(
            "OpenHand",
            gw.OpenHand,
            gateway_pb2.OpenHandRequest(table_id=t, seats=seats, request_id=rid()),
        )
        await call(
            "PlaceBets",
            gw.PlaceBets,
            gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=bets, request_id=rid()),
            metadata=md,
        )
        await call(
            "CloseBetting",
            gw.CloseBetting,
            gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=rid()),
        )

    async def watch_rss() -> None:
        while True:
            await asyncio.sleep(rss_every)
            line = f"rss MiB after {time.perf_counter() - started:,.0f} s, {run.hands:,} hands:"
            line += f" dealer {rss_kib(pid)[0] / 1024:.1f}"
            for child in descendants(pid):
                kind = "writer" if "spawn_main" in _cmdline(str(child)) else "tracker"
                line += f", {kind} {rss_kib(child)[0] / 1024:.1f}"
            print(line, file=sys.stderr, flush=True)

    try:
        warm = [asyncio.Event() for _ in range(n)]
        go = asyncio.Event()
        tasks = [asyncio.create_task(table(i, warm[i], go)) for i in range(n)]
        warmed = asyncio.ensure_future(asyncio.gather(*(e.wait() for e in warm)))
        await asyncio.wait([warmed, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            if t.done():
                t.result()  # a table failed: say why
        cpu0, own0 = cpu_seconds_tree(pid), time.process_time()
        t0 = started = time.perf_counter()
        deadline = t0 + seconds
        measuring = True
        go.set()
        watcher = asyncio.create_task(watch_rss()) if rss_every else None
        await asyncio.gather(*tasks)
        measuring = False
        if watcher is not None:
            watcher.cancel()
        run.seconds = time.perf_counter() - t0
        run.dealer_cpu_s = cpu_seconds_tree(pid) - cpu0
        run.client_cpu_s = time.process_time() - own0
    finally:
        await channel.close()
    return run


def one(
    n: int,
    seconds: float,
    url: str | None,
    insecure: bool,
    one_call: bool,
    rate: float,
    rss_every: float = 0.0,
    heap_diff_s: float = 0.0,
    memlog: str | None = None,
    census_s: float = 0.0,
) -> Run:
    with (
        tempfile.TemporaryDirectory(prefix="bench-gw-") as d,
        own_schema(url or f"sqlite:///{Path(d) / 'bench.sqlite'}") as db,
    ):
        work = Path(d)
        init_dev(work / "auth")
        init_keys(work / "keys")
        cmd = [sys.executable, __file__, "--serve", str(work), "--database-url", db]
        env = {
            **os.environ,
            HEAP_DIFF_ENV: str(heap_diff_s),
            CENSUS_ENV: str(census_s),
            MEMLOG_ENV: memlog or "",
        }
        proc = subprocess.Popen([*cmd, *(["--insecure"] if insecure else [])], env=env)
        try:
            while not (work / "port").exists():
                if proc.poll() is not None:
                    raise SystemExit(f"the dealer process exited with {proc.returncode}")
                time.sleep(0.05)
            port = int((work / "port").read_text())
            run = asyncio.run(
                drive(work, port, n, seconds, insecure, proc.pid, one_call, rate, rss_every)
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        if (work / "stats.json").exists():
            run.stats = json.loads((work / "stats.json").read_text())
        run.seals_per_hand = seals_per_hand(db)
        if (work / "heap.txt").exists():
            run.heap = (work / "heap.txt").read_text()
        if (work / "census.txt").exists():
            run.heap += (work / "census.txt").read_text()
        return run


def seals_per_hand(url: str) -> float:
    """Seals stored per hand stored: every consumer and the audit verify each seal
    covering a hand once (one Ed25519 check)."""
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            seals = conn.execute(sa.text("SELECT count(*) FROM seals")).scalar_one()
            hands = conn.execute(
                sa.text("SELECT count(*) FROM streams WHERE kind = 'hand'")
            ).scalar_one()
    finally:
        store.close()
    return float(seals) / max(int(hands), 1)


def report(runs: list[Run]) -> None:
    head = "| tables | offered hands/s | hands/s | coup p50 / p99 ms |"
    rule = "|---:|---:|---:|---:|"
    for r in RPCS:
        head += f" {r} p50 / p99 ms |"
        rule += "---:|"
    head += " dealer CPU µs/hand | gateway (client) CPU µs/hand | batches per commit |"
    head += " seals per hand |"
    rule += "---:|---:|---:|---:|"
    print(head)
    print(rule)
    for run in runs:
        coup = run.latency_ms["coup"]
        row = f"| {run.tables} | {f'{run.rate:,.0f}' if run.rate else 'all'} |"
        row += f" {run.hands / run.seconds:,.0f} | {pct(coup, 50):.1f} / {pct(coup, 99):.1f} |"
        for r in RPCS:
            xs = run.latency_ms[r]
            row += f" {pct(xs, 50):.1f} / {pct(xs, 99):.1f} |" if xs else " – |"
        per_hand = 1e6 / max(run.hands, 1)
        groups = run.stats.get("groups", 0)
        size = f"{run.stats['writes'] / groups:.1f}" if groups else "–"
        row += f" {run.dealer_cpu_s * per_hand:,.0f} | {run.client_cpu_s * per_hand:,.0f} |"
        row += f" {size} | {run.seals_per_hand:.2f} |"
        print(row)
    for run in runs:
        if run.stats.get("gc"):
            passes = ", ".join(
                f"generation {g}: {n:.0f} passes, {total:,.0f} ms, longest {longest:.1f} ms"
                for g, (n, total, longest) in run.stats["gc"].items()
            )
            print(f"{run.tables} tables, the dealer's collector over its run: {passes}")
        if run.heap:
            print(f"{run.tables} tables, the dealer's heap: {run.heap}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="1,16,64", help="comma-separated table counts")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--database-url")
    ap.add_argument("--insecure", action="store_true", help="no TLS, no interceptor")
    ap.add_argument(
        "--one-call",
        action="store_true",
        help="each coup is one OpenHand with its bets and close_betting",
    )
    ap.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="offered load: hands/s over all tables, each table's coups paced (a coup "
        "started late counts from when it was due); default: back to back",
    )
    ap.add_argument(
        "--rss-every",
        type=float,
        default=0.0,
        metavar="S",
        help="print the dealer's and its children's RSS every S seconds (a long run's memory)",
    )
    ap.add_argument(
        "--heap-diff",
        type=float,
        default=0.0,
        metavar="S",
        help="trace the dealer's Python allocations (tracemalloc, 8 frames: it runs "
        "slower) and print what its heap gained from S seconds into the run to its end, "
        "by allocating traceback",
    )
    ap.add_argument(
        "--census",
        type=float,
        default=0.0,
        metavar="S",
        help="count the dealer's objects by type (those the collector tracks) S seconds "
        "into the run and at its end, and print the types that grew most (untraced: "
        "the run's speed is unchanged but for the two counts)",
    )
    ap.add_argument(
        "--memlog",
        metavar="FILE",
        help="the dealer logs its memory to FILE every 5 s (bench/memwatch.py: RSS, the C "
        "heap in use, malloc's arenas and their free bytes, pymalloc blocks, SQLite's heap; "
        "with --heap-diff, the traced Python heap too); FILE.N for each but the last "
        "--tables count",
    )
    ap.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        prof = os.environ.get("BENCH_GATEWAY_PROFILE")  # a cProfile dump of the dealer
        if prof:
            import cProfile

            with cProfile.Profile() as pr:
                run_service(serve(Path(a.serve), a.database_url, a.insecure))
            pr.dump_stats(prof)
        else:  # on a service's event loop (CROUPIER_EVENT_LOOP)
            run_service(serve(Path(a.serve), a.database_url, a.insecure))
        return
    runs = []
    ns = [int(x) for x in a.tables.split(",")]
    for n in ns:
        memlog = a.memlog and (a.memlog if n == ns[-1] else f"{a.memlog}.{n}")
        run = one(
            n,
            a.seconds,
            a.database_url,
            a.insecure,
            a.one_call,
            a.rate,
            a.rss_every,
            a.heap_diff,
            memlog,
            a.census,
        )
        print(
            f"{n} tables: {run.hands} hands in {run.seconds:.1f} s, load average "
            f"{os.getloadavg()[0]:.1f}",
            file=sys.stderr,
        )
        runs.append(run)
    report(runs)


if __name__ == "__main__":
    main()
