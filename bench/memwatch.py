"""Run a ``croupier`` command while logging its memory every few seconds.

    .venv/bin/python bench/memwatch.py LOG serve rules [...]

Each line of ``LOG``: Unix time, RSS, the Python heap in use and its peak
(tracemalloc, one frame per allocation), and SQLite's heap in use
(``sqlite3_memory_used`` of the library the store loads), in MiB. ``bench_pipeline.py
--memlog DIR`` starts the rule and settlement services through it, to tell a growing
Python heap from SQLite's caches and from RSS that follows the peak of a batch. Tracing
allocations slows the process (2–3× here): its CPU figures are not comparable.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable

PERIOD_S = 5.0


def _sqlite_used() -> Callable[[], int]:
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return lambda: -1
    fn = ctypes.CDLL(name).sqlite3_memory_used
    fn.restype = ctypes.c_longlong
    return lambda: int(fn())


def _watch(path: str) -> None:
    used = _sqlite_used()
    mib = 2**20
    with open(path, "w") as f:
        while True:
            with open("/proc/self/statm") as s:
                rss = int(s.read().split()[1]) * 4096
            cur, peak = tracemalloc.get_traced_memory()
            f.write(
                f"{time.time():.0f} rss {rss / mib:.1f} py {cur / mib:.1f} "
                f"pypeak {peak / mib:.1f} sqlite {used() / mib:.1f}\n"
            )
            f.flush()
            time.sleep(PERIOD_S)


def main() -> None:
    log, *args = sys.argv[1:]
    tracemalloc.start(1)
    threading.Thread(target=_watch, args=(log,), daemon=True).start()
    from croupier_services.cli import main as croupier

    sys.argv = ["croupier", *args]
    croupier()


if __name__ == "__main__":
    main()
