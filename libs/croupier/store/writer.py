"""A store's writes in a process of their own.

A service whose event loop is busy (the gateway dealer: gRPC, the handlers, dealing)
and which writes through a worker thread pays for the thread's SQL twice: its CPU, and
the wait of each side for the interpreter lock the other holds, which lengthens every
commit and so every call waiting on it. :class:`WriterProcess` runs the writes in a
child process instead, with a store of its own on the same database: the parent
pickles each write's arguments over a pipe and gets its result (or its error, whole:
:meth:`croupier.errors.CroupierError.__reduce__`) back; the two interpreters share no
lock.

The child is started with ``spawn`` (a fresh interpreter: nothing of the parent's
threads, gRPC or open connections is inherited), opens the store from the URL (and
PostgreSQL schema) the parent's store was opened with, and keeps the picklable
``context`` every write gets (the dealer: its seed box). A write is a module-level
function ``fn(store, context, *args)``, run in the child's one thread, one at a time, in
the order given.

Failures: a database failure in the child arrives as
:class:`~croupier.errors.StoreUnavailable` (:func:`croupier.store.db.store_outage`, which
reads the exception's causes: those do not cross the pipe); any other error as raised.
If the child dies (killed, out of memory) the writes in flight fail with
``StoreUnavailable`` (whether the last one committed is unknown, as for a connection lost
at ``COMMIT``: the caller rebuilds from the store), the next write starts a new child,
and :attr:`WriterProcess.restarts` counts it. The child ignores ``SIGINT`` (a terminal's
Ctrl-C reaches the whole process group; the parent decides when it stops, with
:meth:`WriterProcess.close`) and ends by itself within half a second of its parent's
death (a thread watching its parent id: a worker blocked on the pipe is not told).

Only a store opened by URL can be reopened in another process (an in-memory SQLite
database cannot): :func:`reopenable` tells.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from croupier.errors import StoreUnavailable
from croupier.store.core import Store
from croupier.store.db import store_outage

T = TypeVar("T")

_STORE: Store | None = None
_CONTEXT: Any = None


def reopenable(store: Store) -> bool:
    """Whether another process can open ``store`` (:attr:`Store.opened_with` is known
    and names no in-memory database)."""
    spec = store.opened_with
    return spec is not None and ":memory:" not in spec[0] and "mode=memory" not in spec[0]


def _start(url: str, schema: str | None, context: Any) -> None:
    global _STORE, _CONTEXT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    threading.Thread(target=_orphaned, args=(parent,), name="parent-watch", daemon=True).start()
    _STORE = Store.open(url, schema=schema)
    _CONTEXT = context


def _orphaned(parent: int, every_s: float = 0.5) -> None:
    """End the writer once its parent is gone (its pipe alone does not tell a worker
    blocked on it): a transaction it has open is rolled back by the database."""
    while os.getppid() == parent:
        time.sleep(every_s)
    os._exit(0)


def _run(fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    assert _STORE is not None, "the writer process has no store"
    try:
        return fn(_STORE, _CONTEXT, *args)
    except Exception as e:
        outage = store_outage(e)
        if outage is None:
            raise
        raise StoreUnavailable(outage.message) from None


def _ping(_store: Store, _context: Any) -> int:
    return os.getpid()


class WriterProcess:
    """Writes to ``store``'s database run in one child process (see the module
    docstring), each given ``context`` (picklable); :meth:`start` starts the child (else
    the first write does), :meth:`close` ends it."""

    def __init__(self, store: Store, context: Any = None) -> None:
        if store.opened_with is None or not reopenable(store):
            raise ValueError("the store was not opened from a URL another process can open")
        self._spec = store.opened_with
        self._context = context
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.pid: int | None = None  # the child's, once :meth:`start` saw it answer
        self.restarts = 0  # children started again after one died

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            url, schema = self._spec
            self._pool = concurrent.futures.ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=(url, schema, self._context),
            )
        return self._pool

    def start(self) -> int:
        """Start the child and wait until its store is open; its pid."""
        self.pid = self._executor().submit(_run, _ping, ()).result()
        return self.pid

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(store, context, *args)`` in the child; its result or its error."""
        pool = self._executor()
        try:
            return await asyncio.wrap_future(pool.submit(_run, fn, args))
        except BrokenProcessPool:
            self._lost(pool)
            raise StoreUnavailable(
                "the store's writer process ended during the write; whether it committed "
                "is not known"
            ) from None

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """:meth:`run`, waiting in the calling thread."""
        pool = self._executor()
        try:
            return pool.submit(_run, fn, args).result()
        except BrokenProcessPool:
            self._lost(pool)
            raise StoreUnavailable(
                "the store's writer process ended during the write; whether it committed "
                "is not known"
            ) from None

    def _lost(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        if self._pool is pool:  # the first of the failed writes to see it
            self._pool = None
            self.pid = None
            self.restarts += 1
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """End the child once the writes given to it are done."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
