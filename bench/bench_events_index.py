"""What an index keyed by random values costs an append-only log as it grows: SQLite
inserts of hands (8 events each, 400-byte payloads) into an ``events``-shaped table with
and without a unique index on the events' hashes (random 32-byte keys), measured after
``--hands`` hands are already stored.

    .venv/bin/python bench/bench_events_index.py --hands 400000

Each variant fills its own file (2,000 hands a transaction), then appends 40 groups of
50 hands (the dealer's group commit) and reports CPU and wall µs per appended hand. Plain
``sqlite3``, the store's pragmas (WAL, ``synchronous=NORMAL``, a 64 MiB page cache):
the figure is the index's, not Croupier's (migration 0010 dropped that index).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sqlite3
import tempfile
import time


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(path: str, unique_hash: bool, hands: int) -> dict[str, float]:
    c = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-65536"):
        c.execute(f"PRAGMA {pragma}")
    extra = ", UNIQUE(hash)" if unique_hash else ""
    c.execute(
        "CREATE TABLE events (global_pos INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, "
        f"seq INT NOT NULL, hash BLOB NOT NULL, payload BLOB NOT NULL, table_id TEXT, "
        f"UNIQUE(stream_id, seq){extra})"
    )
    c.execute("CREATE INDEX ix_events_table ON events (table_id, global_pos)")

    def batch(start: int, n: int) -> None:
        rows = []
        for h in range(start, start + n):
            sid = f"t{h % 1000}_h{h // 1000}"
            for s in range(8):
                digest = hashlib.sha256(f"{sid}/{s}".encode()).digest()
                rows.append((sid, s, digest, b"x" * 400, f"t{h % 1000}"))
        c.execute("BEGIN")
        c.executemany(
            "INSERT INTO events (stream_id, seq, hash, payload, table_id) VALUES (?,?,?,?,?)",
            rows,
        )
        c.execute("COMMIT")

    t0 = time.perf_counter()
    for i in range(0, hands, 2000):
        batch(i, min(2000, hands - i))
    fill_s = time.perf_counter() - t0
    c0, t0 = _cpu(), time.perf_counter()
    for k in range(40):
        batch(hands + k * 50, 50)
    cpu, wall = _cpu() - c0, time.perf_counter() - t0
    c.close()
    return {"fill_s": fill_s, "cpu_us": cpu / 2000 * 1e6, "wall_us": wall / 2000 * 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=400_000, help="hands stored before measuring")
    a = ap.parse_args()
    print(f"{a.hands:,} hands ({8 * a.hands:,} events) stored first")
    print("| unique index on hash | fill s | CPU µs per appended hand | wall µs per hand |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="croupier-index-") as d:
        for unique_hash in (False, True):
            path = os.path.join(d, f"{unique_hash}.sqlite")
            r = run(path, unique_hash, a.hands)
            os.remove(path)
            print(
                f"| {'yes' if unique_hash else 'no'} | {r['fill_s']:.0f} | "
                f"{r['cpu_us']:,.0f} | {r['wall_us']:,.0f} |"
            )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
