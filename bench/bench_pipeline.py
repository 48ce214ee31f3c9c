"""End-to-end baccarat throughput through real JetStream and SQLite, and audit replay.

    .venv/bin/python bench/bench_pipeline.py [--hands 5000] [--tables 50] [--players 8]
        [--group 50] [--nats-url nats://127.0.0.1:4222] [--database-url sqlite:///...]
        [--all-variants] [--no-floor] [--prefill N] [--profile DIR]
        [--rss-every N] [--max-ahead K] [--no-audit] [--memlog DIR] [--one-pass]

The dealer runs in this process and drives hands through :class:`DealerCore` (the same
code the gRPC servicer calls, without the RPC hop), committing ``--group`` hands per
SQL transaction (group commit) and publishing each closed hand to JetStream. The rule
service and the settlement service run as separate processes (``croupier serve rules``
and ``croupier serve settlement``) against the same NATS and database, as in
production. The clock runs from the first hand opened to the last ledger commit.
Then every hand is audited in this process (chain, seals, rules replay, outcome,
settlement and ledger, fairness after the shoes are revealed).

The same run then measures the machine's floor (:mod:`floor`: the same messages
published to and fetched from JetStream, the same rows inserted into identical scratch
tables, one Ed25519 signature per message, no logic) and prints Croupier's rate as a
percentage of it, with p50/p99 of each dealer call the gateway's RPCs make (in process:
the handler's work without the gRPC hop) and each process's RSS. For a long run,
``--rss-every N`` prints every process's RSS each N hands and ``--max-ahead K`` keeps the
dealer at most K hands ahead of settlement (so what the run shows is the services'
memory at a steady state, not a backlog).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.request
from pathlib import Path
from typing import Any

from cpu import cpu_seconds, postgres_background_seconds, postgres_cpu_seconds, rss_kib
from floor import measure
from prefill import PREFIX, prefill
from scratch import own_schema

from croupier.auth import init_dev
from croupier.bus.embedded import EmbeddedNats, free_port
from croupier.bus.jetstream import Bus, StreamSpec
from croupier.dealing import Batch, Dealer
from croupier.store.secrets import SeedBox
from croupier.upkeep import Trimmer, freeze_startup
from croupier_services.audit import Auditor
from croupier_services.bots import bets_for
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import load_signers, now_ms, open_store, run_service

CPU: dict[str, float] = {}
PG_BACKGROUND: list[float] = []  # of CPU["postgres"], the server's background processes
RSS: dict[str, tuple[int, int]] = {}  # role -> (RSS, peak RSS) in KiB at the end of the run
LAT: dict[str, list[float]] = {}  # dealer call -> seconds per call (a sample of them)
KEEP = 50_000
"""Calls kept per name: past it a uniform sample of that size (reservoir sampling), so a
long run's own bookkeeping does not grow the dealer process it measures."""
_SEEN: dict[str, int] = {}
_PICK = random.Random(7)


def record(name: str, seconds: float) -> None:
    xs = LAT.setdefault(name, [])
    n = _SEEN[name] = _SEEN.get(name, 0) + 1
    if len(xs) < KEEP:
        xs.append(seconds)
    elif (j := _PICK.randrange(n)) < KEEP:
        xs[j] = seconds


SHARE: dict[str, list[float]] = {}  # role -> events each of its replicas consumed


def timed(name: str, fn: Any, *a: Any) -> Any:
    t = time.perf_counter()
    r = fn(*a)
    record(name, time.perf_counter() - t)
    return r


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


async def drive(
    args: argparse.Namespace, db_url: str, nats_url: str, keys: str, nats_pid: int | None
) -> float:
    store = open_store(db_url)
    if args.prefill:
        secs = prefill(db_url, args.prefill)
        print(f"prefilled {args.prefill:,} settled hands in {secs:.1f}s")
    # the run's settled hands are counted by its tables (b0, b1, ...): a range of the
    # (table_id, hand_id) index each, not every baccarat hand of a prefilled store
    run_tables = [f"b{i}" for i in range(args.tables)]
    base = store.count_settlements(table_ids=run_tables)
    init_keys(Path(keys))  # made once, explicitly; the services only load their own
    signers = load_signers(store, keys, ("dealer",), TrustedKeys.from_dir(Path(keys)))
    # a long run bounds the stream by age, as production does (--stream-max-age)
    max_age = float(getattr(args, "stream_max_age", 0.0) or 0.0)
    bus = await Bus.connect(nats_url, stream=StreamSpec(max_age_s=max_age))
    await bus.ensure_stream()
    auth = init_dev(Path(keys).parent / "auth")
    env = {
        **os.environ,
        "CROUPIER_AUTH_DIR": str(auth.root),
        "CROUPIER_DATABASE_URL": db_url,
        "CROUPIER_NATS_URL": nats_url,
        "CROUPIER_KEYS_DIR": keys,
        "CROUPIER_METRICS_PORT": "0",
        "CROUPIER_GRPC_PORT": "0",
        "CROUPIER_LOG_LEVEL": "WARNING",
        "CROUPIER_STREAM_MAX_AGE_S": str(max_age),
    }
    exe = str(Path(sys.executable).parent / "croupier")
    # the rule service serves the benchmarked variant only (its consumers of the other
    # variants would poll for nothing), unless --all-variants
    only = [] if args.all_variants else ["--variant", "baccarat"]

    def service(role: str, i: int, *extra: str) -> list[str]:
        if getattr(args, "memlog", None):
            log = Path(args.memlog) / f"{role}{'' if i == 0 else f'-{i}'}.log"
            watch = str(Path(__file__).resolve().parent / "memwatch.py")
            trace = ["--trace"] if getattr(args, "memlog_trace", False) else []
            return [sys.executable, watch, *trace, str(log), "serve", role, *extra]
        if not getattr(args, "profile", None):
            return [exe, "serve", role, *extra]
        out = Path(args.profile) / f"{role}{'' if i == 0 else f'-{i}'}.prof"  # at stop
        return [sys.executable, "-m", "cProfile", "-o", str(out), exe, "serve", role, *extra]

    # ``replicas`` of each (bench_replicas.py), sharing their durable consumers
    n = getattr(args, "replicas", 1)
    if getattr(args, "one_pass", False):  # rules and settlement in one process, one pass
        served = {"rules-settlement": only}
    else:
        served = {"rules": only, "settlement": []}
    procs: list[subprocess.Popen[bytes]] = []
    ports: dict[int, int] = {}  # pid -> metrics port
    for role in served:
        for i in range(n):
            port = free_port()
            p = subprocess.Popen(
                service(role, i, *served[role]),
                env={**env, "CROUPIER_METRICS_PORT": str(port)},
            )
            procs.append(p)
            ports[p.pid] = port
    try:
        wait_ready(list(ports.values()))  # their start-up is not the run's work
        core = DealerCore(
            Dealer(signers["dealer"], signers["gateway"], clock_ms=now_ms),
            store,
            bus,
            seed_box=SeedBox(auth.seed_key.read_bytes()),
        )
        rng = random.Random(1)
        tables = run_tables
        boot = Batch()
        for t in tables:
            boot.extend(core.dealer.open_table(t, "baccarat", f"bench-{t}"))
        core.persist(boot)
        await asyncio.sleep(1.0)  # let the consumers bind
        # as a dealer service's start ends: start-up out of the collector, trims
        freeze_startup()
        trimming = asyncio.Event()
        trimmer = asyncio.create_task(Trimmer().run(trimming))
        seats = [
            {"seat": i + 1, "player": f"p{i + 1}", "stack": 10_000_000} for i in range(args.players)
        ]
        t0 = time.perf_counter()
        pids = {"dealer": [os.getpid()]}
        for i, role in enumerate(served):
            pids[role] = [p.pid for p in procs[i * n : (i + 1) * n]]
        if nats_pid:
            pids["nats-server"] = [nats_pid]
        cpu0 = {role: sum(map(cpu_seconds, ps)) for role, ps in pids.items()}
        pg0 = postgres_cpu_seconds() if db_url.startswith("postgres") else None
        bg0 = postgres_background_seconds() if pg0 is not None else None
        done = 0
        traced: tracemalloc.Snapshot | None = None
        if getattr(args, "trace_dealer", False):
            tracemalloc.start(3)
        # (other benches drive with their own arguments: these two may be absent)
        rss_every, max_ahead = getattr(args, "rss_every", 0), getattr(args, "max_ahead", 0)
        settling = [ports[p] for r, ps in pids.items() if "settlement" in r for p in ps]
        next_rss = rss_every
        while done < args.hands:
            if max_ahead:  # pace the dealer: at most this many hands unsettled
                # (read off the settling processes' counters: a count(*) of the
                # settlements, a hundred times a second, grows with the store)
                while done - _settled(settling) > max_ahead:
                    await asyncio.sleep(0.01)
            if next_rss and done >= next_rss:
                next_rss += rss_every
                if tracemalloc.is_tracing():
                    traced = grown(traced, done)
                print(
                    f"rss MiB after {done:,} hands: "
                    + "  ".join(
                        f"{role} {sum(rss_kib(p)[0] for p in ps) / 1024:.1f}"
                        for role, ps in pids.items()
                    ),
                    flush=True,
                )
            group = Batch()
            for _ in range(min(args.group, args.hands - done)):
                t = tables[done % len(tables)]
                hid, b = timed(
                    "OpenHand",
                    core.dealer.open_hand,
                    t,
                    [{**s, "player": f"{t}{s['player']}"} for s in seats],
                )
                group.extend(b)
                h = core.dealer.hand(hid)
                bets = bets_for(
                    "baccarat",
                    rng,
                    list(range(1, args.players + 1)),
                    h.state.shoe_hand_no,
                    10_000_000,
                )
                group.extend(
                    timed(
                        "PlaceBets",
                        core.dealer.place_bets,
                        hid,
                        [{"seat": s, "spot": sp, "amount": a} for s, sp, a in bets],
                    )
                )
                group.extend(timed("CloseBetting", core.dealer.close_betting, hid))
                done += 1
            # the hands and their outbox rows, in one transaction
            timed("persist (group)", core.persist, group)
            t1 = time.perf_counter()
            while await core.relay.drain_once():  # what the dealer's relay does
                pass
            record("relay drain (group)", time.perf_counter() - t1)
        t_dealt = time.perf_counter() - t0
        last, stalled = -1, time.monotonic()
        while (n := store.count_settlements(table_ids=run_tables) - base) < args.hands:
            if n != last:
                last, stalled = n, time.monotonic()
            elif time.monotonic() - stalled > 30:
                raise SystemExit(f"stalled at {n}/{args.hands} settled")
            await asyncio.sleep(0.02)
        elapsed = time.perf_counter() - t0
        for role, ps in pids.items():
            CPU[role] = sum(map(cpu_seconds, ps)) - cpu0[role]
            rss = [rss_kib(pid) for pid in ps]
            RSS[role] = (sum(r[0] for r in rss), sum(r[1] for r in rss))
        if pg0 is not None and (pg1 := postgres_cpu_seconds()) is not None:
            CPU["postgres"] = pg1 - pg0  # the server's processes (the machine's server)
            if bg0 is not None and (bg1 := postgres_background_seconds()) is not None:
                PG_BACKGROUND.append(bg1 - bg0)
        for role, ps in pids.items():
            if role in served:
                SHARE[role] = [_consumed(ports[pid]) for pid in ps]
        print(
            f"dealt {args.hands} hands in {t_dealt:.2f}s ({args.hands / t_dealt:.0f}/s in the "
            f"dealer); settled all in {elapsed:.2f}s"
        )
        end = Batch()
        for t in tables:
            end.extend(core.dealer.close_table(t))
        core.persist(end)
        trimming.set()
        await trimmer
        return args.hands / elapsed
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)
        await bus.close()
        store.close()


def grown(before: tracemalloc.Snapshot | None, done: int) -> tracemalloc.Snapshot:
    """Print where this process's traced Python heap grew since ``before`` (by the
    allocation's innermost frames), and return the new snapshot."""
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    now, _ = tracemalloc.get_traced_memory()
    print(f"dealer traced heap after {done:,} hands: {now / 2**20:.2f} MiB", flush=True)
    if before is not None:
        for d in snap.compare_to(before, "traceback")[:6]:
            if d.size_diff <= 0:
                break
            where = " <- ".join(
                f"{Path(f.filename).name}:{f.lineno}" for f in list(d.traceback)[::-1][:6]
            )
            print(f"  {d.size_diff / 1024:+9.1f} KiB {d.count_diff:+7d} blocks  {where}")
    return snap


def wait_ready(ports: list[int], timeout_s: float = 120) -> None:
    """Until every service's ``/readyz`` answers 200 (its consumers bound)."""
    deadline = time.monotonic() + timeout_s
    left = list(ports)
    while left:
        if time.monotonic() > deadline:
            raise SystemExit(f"services not ready after {timeout_s}s (metrics ports {left})")
        time.sleep(0.2)
        left = [p for p in left if not _ready(p)]


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
            return int(r.status) == 200
    except OSError:
        return False


def _metric(port: int, prefix: str) -> float:
    """The sum of the samples starting with ``prefix`` that the service whose metrics
    are at ``port`` exports now."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix)
    )


def _consumed(port: int) -> float:
    """``croupier_events_consumed_total`` of the service whose metrics are at ``port``."""
    return _metric(port, "croupier_events_consumed_total{")


def _settled(ports: list[int]) -> float:
    """The baccarat hands the processes with these metrics ports settled since they
    started (``croupier_hands_settled_total``, each hand counted once)."""
    return sum(_metric(p, 'croupier_hands_settled_total{variant="baccarat"}') for p in ports)


def audit(db_url: str, hands: int, keys: str, tables: int) -> float:
    auditor = Auditor(open_store(db_url), TrustedKeys.from_dir(Path(keys)))
    # the run's hands, listed by its tables (not by variant: in growth mode that lists
    # every prefilled hand too, a page of 1,000 at a time)
    ids = auditor.in_log_order(h for i in range(tables) for h in auditor.hand_ids(table_id=f"b{i}"))
    assert not any(h.startswith(PREFIX) for h in ids)
    t0 = time.perf_counter()
    c0 = time.process_time()
    bad = 0
    for rep in auditor.audit_range(ids):
        if rep.failed:
            bad += 1
    el = time.perf_counter() - t0
    CPU["audit"] = time.process_time() - c0
    RSS["audit"] = rss_kib(os.getpid())
    print(f"audited {len(ids)} hands in {el:.2f}s, {bad} failures")
    if bad or len(ids) != hands:
        raise SystemExit("audit failed")
    return len(ids) / el


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=5000)
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--players", type=int, default=8)
    p.add_argument("--group", type=int, default=50)
    p.add_argument(
        "--no-floor",
        action="store_true",
        help="skip the floor (the same I/O with no logic) after the run",
    )
    p.add_argument(
        "--prefill",
        type=int,
        default=0,
        help="growth mode: bulk-insert this many settled filler hands before the run "
        "(the floor is skipped)",
    )
    p.add_argument(
        "--rss-every",
        type=int,
        default=0,
        metavar="N",
        help="print every process's RSS each N hands dealt (a long run's memory)",
    )
    p.add_argument(
        "--max-ahead",
        type=int,
        default=0,
        metavar="K",
        help="the dealer waits while more than K of its hands are unsettled (0: never)",
    )
    p.add_argument("--no-audit", action="store_true", help="skip the audit after the run")
    p.add_argument(
        "--memlog",
        metavar="DIR",
        help="run the rule and settlement services under bench/memwatch.py, logging RSS, "
        "the C heap, pymalloc's blocks and SQLite's heap to DIR/<role>.log every 5 s "
        "(and this process's, the dealer's, to DIR/dealer.log)",
    )
    p.add_argument(
        "--memlog-trace",
        action="store_true",
        help="with --memlog, also trace the Python heap (tracemalloc; 2-3x slower)",
    )
    p.add_argument(
        "--trace-dealer",
        action="store_true",
        help="with --rss-every, trace this process's (the dealer's) Python heap and print "
        "where it grew at each point (tracemalloc; slows the dealer 2-3x)",
    )
    p.add_argument(
        "--stream-max-age",
        type=float,
        default=0.0,
        metavar="S",
        help="the stream keeps messages S seconds (0: no limit; a long run's disk)",
    )
    p.add_argument("--nats-url")
    p.add_argument("--database-url")
    p.add_argument(
        "--one-pass",
        action="store_true",
        help="rules and settlement as one process in one pass (croupier serve "
        "rules-settlement) instead of two",
    )
    p.add_argument(
        "--all-variants",
        action="store_true",
        help="the rule service serves every variant (default: baccarat only)",
    )
    p.add_argument(
        "--profile",
        metavar="DIR",
        help="run the rule and settlement services under cProfile, writing "
        "DIR/rules.prof and DIR/settlement.prof (read them with python -m pstats)",
    )
    args = p.parse_args()
    for d in (args.profile, args.memlog):
        if d:
            Path(d).mkdir(parents=True, exist_ok=True)
    if args.memlog:  # this process is the dealer: its memory logged the same way
        from memwatch import watch_in_thread

        watch_in_thread(str(Path(args.memlog) / "dealer.log"))
    with (
        tempfile.TemporaryDirectory(prefix="croupier-bench-") as d,
        own_schema(args.database_url or f"sqlite:///{d}/bench.sqlite") as db_url,
    ):
        nats = None if args.nats_url else EmbeddedNats().start()
        try:
            url = args.nats_url or nats.url  # type: ignore[union-attr]
            pid = nats.proc.pid if nats is not None and nats.proc is not None else None
            # the dealer on a service's event loop (CROUPIER_EVENT_LOOP)
            rate = run_service(drive(args, db_url, url, f"{d}/keys", pid))
            arate = 0.0 if args.no_audit else audit(db_url, args.hands, f"{d}/keys", args.tables)
            groups = -(-args.hands // args.group)
            fl = None if args.no_floor or args.prefill else measure(db_url, url, d, groups)
        finally:
            if nats is not None:
                nats.stop()
    print(
        f"end to end: {rate:,.0f} hands/s settled   audit replay: {arate:,.0f} hands/s "
        f"(one process)"
    )
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if fl is not None:
        floor_rate = args.hands / fl.total_s
        print(
            f"floor: {fl.messages} messages ({fl.message_bytes:,} bytes) published, "
            f"{fl.fetches} fetched; {fl.rows} rows inserted; {fl.signatures} signatures"
        )
        for k, v in fl.seconds.items():
            print(f"  {k:<14} {v:8.3f} s  {v / args.hands * 1e6:>9,.0f} µs/hand")
        print(
            f"floor: {floor_rate:,.0f} hands/s   croupier: {rate:,.0f} hands/s = "
            f"{100 * rate / floor_rate:.1f}% of floor"
        )
    print(f"{'process':<12} {'CPU µs/hand':>12} {'RSS MiB':>9} {'peak MiB':>9}")
    for role, sec in CPU.items():
        rss, hwm = RSS.get(role, (0, 0))
        print(f"{role:<12} {sec / args.hands * 1e6:>12,.0f} {rss / 1024:>9.1f} {hwm / 1024:>9.1f}")
    if PG_BACKGROUND and "postgres" in CPU:
        bg = PG_BACKGROUND[0] / args.hands * 1e6
        print(
            f"  of postgres: backends {CPU['postgres'] / args.hands * 1e6 - bg:,.0f}, background "
            f"(checkpointer, WAL writer, ...) {bg:,.0f}"
        )
    total = sum(v for k, v in CPU.items() if k != "audit")
    parts = "+".join(k for k in CPU if k != "audit")
    print(f"{'pipeline':<12} {total / args.hands * 1e6:>12,.0f}  ({parts})")
    print(f"{'dealer call':<20} {'calls':>7} {'p50 µs':>9} {'p99 µs':>9}")
    for name, xs in LAT.items():
        print(
            f"{name:<20} {_SEEN[name]:>7} {pct(xs, 0.5) * 1e6:>9,.0f} {pct(xs, 0.99) * 1e6:>9,.0f}"
        )


if __name__ == "__main__":
    main()
