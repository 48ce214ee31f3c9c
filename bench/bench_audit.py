"""Store audit throughput, one process against a pool of forked workers.

    .venv/bin/python bench/bench_audit.py [--hands 2000] [--tables 20] [--jobs 1 2]
        [--repeat N] [--store DIR] [--profile] [--database-url sqlite:///...]

Fills a store with ``--hands`` real baccarat hands through the pipeline of
``bench_pipeline`` (dealer core in this process, rules and settlement services as
processes, embedded JetStream), closes nothing else, then audits every hand with
``Auditor.audit_range(jobs=N)`` for each N of ``--jobs``: wall-clock hands/s and CPU
µs per hand (this process plus its reaped workers). The reports of every N must be
identical. ``--profile`` runs one single-process audit under cProfile and splits its
time into JSON parse, chain check, seal coverage, rules replay and settlement
recompute, and the store reads.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import resource
import tempfile
import time
from pathlib import Path

from bench_pipeline import drive

from croupier.bus.embedded import EmbeddedNats
from croupier.games.registry import variants
from croupier.upkeep import freeze_startup
from croupier_services.audit import Auditor
from croupier_services.keys import TrustedKeys
from croupier_services.runtime import open_store

# cumulative-time buckets: (label, functions whose cumulative time is the bucket's)
BUCKETS = [
    (
        "store reads (SQL + row decode)",
        ("read_streams", "seals_for_streams", "settlements_with_postings"),
    ),
    ("JSON parse (events, seals)", ("loads",)),
    ("chain check", ("check_chain", "verify_chain")),
    ("seal coverage (Ed25519)", ("check_coverage", "check_producers")),
    ("rules replay", ("step", "open", "roll")),
    ("settlement recompute", ("settle_state", "settled_payload", "_posting_diff")),
    ("fairness (shoe order)", ("deck_order", "_shoe_order")),
]


def cpu_both() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def audit(db_url: str, keys: str, jobs: int) -> tuple[float, float, list[tuple[str, str]]]:
    variants()  # the engines' one-off import is no part of a hand's cost
    # this process dealt the hands: its heap from the fill, out of the collector's walks
    # (a `croupier audit` process has none of it)
    freeze_startup()
    auditor = Auditor(open_store(db_url), TrustedKeys.from_dir(Path(keys)))
    ids = auditor.in_log_order(auditor.hand_ids(variant="baccarat"))
    c0 = cpu_both()
    t0 = time.perf_counter()
    # as `croupier audit` asks: the verdicts, not a passing hand's recomputed record
    reps = [
        (r.hand_id, r.verdict.value) for r in auditor.audit_range(ids, jobs=jobs, records=False)
    ]
    el = time.perf_counter() - t0
    cpu = cpu_both() - c0
    return len(ids) / el, cpu / len(ids) * 1e6, reps


def profile(db_url: str, keys: str) -> None:
    freeze_startup()  # as audit() does
    auditor = Auditor(open_store(db_url), TrustedKeys.from_dir(Path(keys)))
    ids = auditor.in_log_order(auditor.hand_ids(variant="baccarat"))
    pr = cProfile.Profile()
    pr.enable()
    for _ in auditor.audit_range(ids):
        pass
    pr.disable()
    st = pstats.Stats(pr)
    total = max(v[3] for v in st.stats.values())  # type: ignore[attr-defined]
    print(f"profile of one single-process audit ({len(ids)} hands, {total:.2f}s cumulative):")
    for label, names in BUCKETS:
        cum = 0.0
        for (_f, _l, fn), v in st.stats.items():  # type: ignore[attr-defined]
            if fn in names and "croupier" in _f:
                cum += v[3]
        print(f"  {label:<34} {cum:6.2f}s  {cum / total:5.0%}")
    print("  top functions by own time:")
    st.sort_stats("tottime").print_stats(12)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=2000)
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--players", type=int, default=8)
    p.add_argument("--group", type=int, default=50)
    p.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="audit this many times per --jobs (a fresh auditor each time) and keep the "
        "least CPU per hand: on a shared machine the others only add",
    )
    p.add_argument("--profile", dest="profile_audit", action="store_true")
    p.add_argument("--database-url")
    p.add_argument("--nats-url")
    p.add_argument(
        "--store",
        help="keep the filled store (SQLite and keys) in this directory and reuse it when "
        "it is there already, to compare audits of the same hands",
    )
    args = p.parse_args()
    # what bench_pipeline's drive() reads beyond the options above
    args.prefill, args.all_variants, args.no_floor = 0, False, True
    args.profile = None  # drive()'s own --profile DIR (the services'), not this one
    with tempfile.TemporaryDirectory(prefix="croupier-bench-") as tmp:
        d = args.store or tmp
        Path(d).mkdir(parents=True, exist_ok=True)
        db_url = args.database_url or f"sqlite:///{d}/bench.sqlite"
        if not (args.store and Path(f"{d}/keys").is_dir()):
            nats = EmbeddedNats().start()
            try:
                pid = nats.proc.pid if nats.proc is not None else None
                asyncio.run(drive(args, db_url, nats.url, f"{d}/keys", pid))
            finally:
                nats.stop()
        first = None
        for jobs in args.jobs:
            runs = [audit(db_url, f"{d}/keys", jobs) for _ in range(args.repeat)]
            rate, us, reps = min(runs, key=lambda r: r[1])
            if first is None:
                first = reps
            elif reps != first:
                raise SystemExit(f"--jobs {jobs} reported differently from --jobs {args.jobs[0]}")
            print(f"audit --jobs {jobs}: {rate:,.0f} hands/s, {us:,.0f} CPU µs/hand")
        if args.profile_audit:
            profile(db_url, f"{d}/keys")


if __name__ == "__main__":
    main()
