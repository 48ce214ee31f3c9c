"""Memory upkeep of a long-running process: the cyclic garbage collector kept off what
start-up built and off each batch while it is worked, and the C allocator's free pages
given back to the system.

Three measured costs of the services, all outside the code that does their work:

* **The garbage collector walked start-up.** A service imports and builds a great deal
  once — modules, the engines, SQLAlchemy's metadata, protobuf descriptors — and every
  full collection walked all of it again: 7.5 % of the rule service's CPU and 10.7 % of
  settlement's went to ``gc_collect_main`` (py-spy, native frames, baccarat pipeline).
  :func:`freeze_startup` collects once and then moves every surviving object to the
  permanent generation (:func:`gc.freeze`), which later collections skip; objects made
  after it are collected as before.
* **glibc keeps freed memory.** A process that allocates and frees batches of messages
  leaves free pages inside its heaps that glibc's ``free`` does not return, so its
  resident size follows the peak of its batches. :class:`Trimmer` calls
  ``malloc_trim(0)`` now and then, which returns whole free pages of every arena: over
  300,000 hands the rule and settlement services sat 6–13 MiB lower than untrimmed.

* **The collector walked each batch while it was alive.** A consumer holds a batch's
  messages, events and hand states until the batch commits; the collector's young
  generation fills with them many times a batch, so its passes walk live objects that
  are no garbage and promote them, and the older generations' passes walk them again:
  6.2 % of the one-pass rule and settlement service's CPU (``gc.callbacks``, 8,000
  baccarat hands). :func:`collector_paused` keeps the collector off for one batch; what
  the batch leaves (cycles, if any) is collected by the first pass after it.

None of these changes what the process computes. Where glibc is not the C library (musl,
macOS), trimming is a no-op.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["Trimmer", "collector_paused", "freeze_startup", "rss_bytes", "trim"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def freeze_startup() -> int:
    """Collect once, then keep every object alive now out of later collections; returns
    how many objects were frozen. Call it when a process has finished starting (its
    long-lived objects built). Calling it again freezes what was built since."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


_PAUSES = 0  # the batches now inside collector_paused
_RESUME = False  # whether the collector was on when the first of them came in
_PAUSE_LOCK = threading.Lock()  # the two above, for pauses begun in other threads too


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (a batch's work), back as it was
    after it; reference counting frees what the block drops as ever. Blocks may overlap
    (the event loop's tasks, or threads, each pausing for their own batch): the
    collector comes back when the last one ends, and only if it was on when the first
    began. Keep the block bounded, as one batch is: nothing is collected inside it."""
    global _PAUSES, _RESUME
    with _PAUSE_LOCK:
        if _PAUSES == 0:
            _RESUME = gc.isenabled()
            gc.disable()
        _PAUSES += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _PAUSES -= 1
            resume = _PAUSES == 0 and _RESUME
            if resume:
                gc.enable()
        if resume:
            _collect_due()


def _collect_due() -> None:
    """The pass the collector would have made by itself, if one is due: the oldest
    generation whose count passed its threshold, when the youngest's has. Made here, not
    left to the next allocation, so that batches back to back (a pause beginning before
    anything is allocated after the last) still collect, the older generations too."""
    counts, limits = gc.get_count(), gc.get_threshold()
    if limits[0] <= 0 or counts[0] <= limits[0]:
        return
    gen = next((g for g in (2, 1) if counts[g] > limits[g]), 0)
    gc.collect(gen)


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        fn = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


_TRIM = _malloc_trim()


def rss_bytes() -> int:
    """This process's resident set size (0 where ``/proc`` is not there)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def trim() -> int:
    """Give the C allocator's free pages back to the system; returns the resident bytes
    this released (0 where there is nothing to give back, or no glibc)."""
    if _TRIM is None:
        return 0
    before = rss_bytes()
    _TRIM(0)
    return max(0, before - rss_bytes())


@dataclass
class Trimmer:
    """Trims every ``every_s`` seconds while a process runs (:meth:`run`), counting what
    it gave back. A trim walks the heaps under the allocator's lock: a few milliseconds
    for a service's heap, so once a minute is far below a measurable cost."""

    every_s: float = 60.0
    on_trim: Callable[[int], None] | None = None  # bytes released by each trim
    trims: int = 0
    released: int = 0

    def once(self) -> int:
        n = trim()
        self.trims += 1
        self.released += n
        if self.on_trim is not None:
            self.on_trim(n)
        return n

    async def run(self, stop: asyncio.Event) -> None:
        next_at = time.monotonic() + self.every_s
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, next_at - time.monotonic()))
            if stop.is_set():
                return
            self.once()
            next_at = time.monotonic() + self.every_s
