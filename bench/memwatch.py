"""Run a ``croupier`` command while logging its memory every few seconds.

    .venv/bin/python bench/memwatch.py [--trace] LOG serve rules [...]

Each line of ``LOG``: Unix time, then in MiB the RSS, the C heap in use (glibc's
``mallinfo2``: the bytes malloc has handed out and not had back, which holds every
Python object past pymalloc's small ones and the C libraries' memory, not pymalloc's
arenas, which are mapped apart), the number of pymalloc blocks in use
(``sys.getallocatedblocks``, thousands: the small objects), every malloc arena's size
and the free bytes within them (``malloc_info``: what fragmentation holds) and SQLite's heap in use
(``sqlite3_memory_used`` of the library the store loads). These cost nothing the
process would notice, so a run of a million hands can be watched. ``--trace`` adds the
Python heap in use and its peak by tracemalloc (one frame per allocation), which slows
the process 2–3×: its CPU figures are then not comparable.

``bench_pipeline.py --memlog DIR`` starts the rule and settlement services through it,
to tell a growing heap from SQLite's caches and from RSS that follows the peak of a
batch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable

from croupier.upkeep import rss_bytes

PERIOD_S = 5.0
MIB = 2**20


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def _c_heap() -> Callable[[], int]:
    """Bytes malloc has handed out (its arenas' and its mmapped chunks'), or -1."""
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except AttributeError:  # not glibc 2.33+
        return lambda: -1
    fn.restype = _MallInfo2

    def used() -> int:
        m = fn()
        return int(m.uordblks + m.hblkhd)

    return used


def _arenas() -> Callable[[], tuple[int, int]]:
    """Every malloc arena together (``malloc_info``; ``mallinfo2`` sees the main arena
    only): the bytes they hold from the system and the free bytes within them, or
    (-1, -1)."""
    libc = ctypes.CDLL(None)
    try:
        info, open_ms = libc.malloc_info, libc.open_memstream
    except AttributeError:  # not glibc
        return lambda: (-1, -1)
    open_ms.restype = ctypes.c_void_p
    info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    free_re = re.compile(rb'<total type="(?:fast|rest)" count="\d+" size="(\d+)"/>')
    held_re = re.compile(rb'<system type="current" size="(\d+)"/>')

    def read() -> tuple[int, int]:
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        fp = open_ms(ctypes.byref(buf), ctypes.byref(size))
        info(0, fp)
        libc.fclose(fp)
        xml = ctypes.string_at(buf, size.value)
        libc.free(buf)
        total = xml[xml.rfind(b"</heap>") :]  # the sums over every arena
        held = held_re.search(total)
        if held is None:
            return (-1, -1)
        return int(held.group(1)), sum(int(x) for x in free_re.findall(total))

    return read


def _sqlite_used() -> Callable[[], int]:
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        return lambda: -1
    fn = ctypes.CDLL(name).sqlite3_memory_used
    fn.restype = ctypes.c_longlong
    return lambda: int(fn())


def _watch(path: str, trace: bool) -> None:
    sqlite, heap, arenas = _sqlite_used(), _c_heap(), _arenas()
    with open(path, "w") as f:
        while True:
            rss = rss_bytes()
            held, free = arenas()
            line = (
                f"{time.time():.0f} rss {rss / MIB:.1f} heap {heap() / MIB:.1f} "
                f"arenas {held / MIB:.1f} free {free / MIB:.1f} "
                f"blocks_k {sys.getallocatedblocks() / 1000:.0f} sqlite {sqlite() / MIB:.1f}"
            )
            if trace:
                cur, peak = tracemalloc.get_traced_memory()
                line += f" py {cur / MIB:.1f} pypeak {peak / MIB:.1f}"
            f.write(line + "\n")
            f.flush()
            time.sleep(PERIOD_S)


def watch_in_thread(log: str, trace: bool = False) -> None:
    """Log this process's memory to ``log`` every :data:`PERIOD_S` from now on."""
    if trace:
        tracemalloc.start(1)
    threading.Thread(target=_watch, args=(log, trace), daemon=True).start()


def main() -> None:
    args = sys.argv[1:]
    trace = bool(args) and args[0] == "--trace"
    log, *args = args[1:] if trace else args
    watch_in_thread(log, trace)
    from croupier_services.cli import main as croupier

    sys.argv = ["croupier", *args]
    croupier()


if __name__ == "__main__":
    main()
