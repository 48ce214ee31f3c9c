"""Throughput with 1, 2 and 4 replicas of rules AND settlement, the dealer fixed.

    .venv/bin/python bench/bench_replicas.py [--hands 1500] [--tables 30] [--players 8]
        [--group 50] [--replicas 1,2,4] [--database-url postgresql+psycopg://...]

Each replica count is one run of :func:`bench_pipeline.drive` (the same load: baccarat,
the dealer in this process group-committing ``--group`` hands per transaction and
publishing them to JetStream) on a fresh embedded nats-server and a fresh store
(SQLite in a temporary directory; with ``--database-url``, a PostgreSQL server in a
database of the run's own, dropped afterwards), with ``N`` ``croupier serve rules`` and
``N`` ``croupier serve settlement`` processes sharing their durable consumers. It
reports wall hands/s (first hand opened to last settlement committed) and CPU µs per
hand per process kind (every replica of a kind summed; on PostgreSQL also the server's
backends, read from ``/proc``: the machine's server, so other load on it counts too),
then checks the store: every hand settled exactly once, one ledger transaction per
hand, the ledger zero-sum.

Replicas add throughput only where there are idle cores for them: on a machine with
fewer cores than processes the figures show the cost of a replica (its polling, its
share of contention on the store), not a speed-up.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_pipeline

from croupier.bus.embedded import EmbeddedNats
from croupier.testing import ScratchDatabase, store_counts

KINDS = ("dealer", "rules", "settlement", "nats-server", "postgres")


def run(args: argparse.Namespace, replicas: int) -> dict[str, Any]:
    bench_pipeline.CPU.clear()
    bench_pipeline.RSS.clear()
    bench_pipeline.LAT.clear()
    bench_pipeline.SHARE.clear()
    run_args = argparse.Namespace(**vars(args), replicas=replicas, prefill=0, all_variants=False)
    with tempfile.TemporaryDirectory(prefix="croupier-bench-replicas-") as d:
        pg = ScratchDatabase(args.database_url, "croupier_bench") if args.database_url else None
        url = pg.url if pg is not None else f"sqlite:///{d}/bench.sqlite"
        nats = EmbeddedNats().start()
        try:
            assert nats.proc is not None
            rate = asyncio.run(
                bench_pipeline.drive(run_args, url, nats.url, f"{d}/keys", nats.proc.pid)
            )
            check = store_counts(url)
        finally:
            nats.stop()
            if pg is not None:
                pg.close()
    ok = (
        check["settled"] == check["single_ledger"] == args.hands
        and check["double_settled"] == check["double_ledger"] == check["ledger_sum"] == 0
    )
    if not ok:
        raise SystemExit(f"{replicas} replicas: the store is wrong: {check}")
    cpu = {k: bench_pipeline.CPU.get(k, 0.0) / args.hands * 1e6 for k in KINDS}
    shares = {
        role: "/".join(f"{100 * x / max(1.0, sum(xs)):.0f}" for x in xs)
        for role, xs in bench_pipeline.SHARE.items()
    }
    return {
        "rate": rate,
        **cpu,
        "rss_mib": sum(r[0] for r in bench_pipeline.RSS.values()) / 1024,
        "shares": f"{shares.get('rules', '')} / {shares.get('settlement', '')}",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=1500)
    p.add_argument("--tables", type=int, default=30)
    p.add_argument("--players", type=int, default=8)
    p.add_argument("--group", type=int, default=50)
    p.add_argument("--replicas", default="1,2,4", help="replica counts, comma-separated")
    p.add_argument("--database-url", default="", help="a PostgreSQL server (default: SQLite)")
    args = p.parse_args()
    counts = [int(x) for x in args.replicas.split(",")]
    del args.replicas
    rows = []
    for n in counts:
        t0 = time.monotonic()
        r = run(args, n)
        print(f"{n} replicas: {r['rate']:.0f} hands/s ({time.monotonic() - t0:.0f} s with set-up)")
        rows.append((n, r))
    print(
        f"\n{os.cpu_count()} cores; load average at the end: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"store: {'postgresql' if args.database_url else 'sqlite'}; {args.hands} hands each"
    )
    print(
        "| rules + settlement replicas | hands/s (wall) | dealer µs/hand | rules µs/hand "
        "(all replicas) | settlement µs/hand (all replicas) | nats-server µs/hand | "
        "PostgreSQL server µs/hand | total µs/hand | RSS MiB | work per replica, % "
        "(rules / settlement) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n, r in rows:
        total = sum(r[k] for k in KINDS)
        print(
            f"| {n} + {n} | {r['rate']:,.0f} | {r['dealer']:,.0f} | {r['rules']:,.0f} | "
            f"{r['settlement']:,.0f} | {r['nats-server']:,.0f} | {r['postgres']:,.0f} | "
            f"{total:,.0f} | "
            f"{r['rss_mib']:,.0f} | {r['shares']} |"
        )
    print("every run: each hand settled once, one ledger transaction per hand, ledger zero-sum")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
