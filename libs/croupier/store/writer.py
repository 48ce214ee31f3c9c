"""A store's writes in a process of their own.

A service whose event loop is busy (the gateway dealer: gRPC, the handlers, dealing)
and which writes through a worker thread pays for the thread's SQL twice: its CPU, and
the wait of each side for the interpreter lock the other holds, which lengthens every
commit and so every call waiting on it. :class:`WriterProcess` runs the writes in a
child process instead, with a store of its own on the same database: the parent
pickles each write's arguments over a pipe and gets its result (or its error, whole:
:meth:`croupier.errors.CroupierError.__reduce__`) back; the two interpreters share no
lock. The parent needs no thread of its own for it: it sends on the event loop and
waits for the answer as the loop waits for a socket (``add_reader`` on the pipe), so
nothing else in the parent competes for its interpreter lock.

The child is started with ``spawn`` (a fresh interpreter: nothing of the parent's
threads, gRPC or open connections is inherited), opens the store from the URL (and
PostgreSQL schema) the parent's store was opened with, and keeps the picklable
``context`` every write gets (the dealer: its seed box). A write is a module-level
function ``fn(store, context, *args)``, run in the child's one thread, one at a time, in
the order given (:meth:`WriterProcess.run` waits for the previous write's answer).

Failures: a database failure in the child arrives as
:class:`~croupier.errors.StoreUnavailable` (:func:`croupier.store.db.store_outage`, which
reads the exception's causes: those do not cross the pipe); any other error as raised.
If the child dies (killed, out of memory) while it holds a write, that write fails with
``StoreUnavailable`` (whether it committed is unknown, as for a connection lost at
``COMMIT``: the caller rebuilds from the store); the next write starts a new child (a
child found dead between writes is replaced before the write is sent, which then goes
through), and :attr:`WriterProcess.restarts` counts each; a write whose caller is
cancelled while the child holds it ends that child too (its answer would arrive for the
next write). The child ignores ``SIGINT`` (a terminal's Ctrl-C reaches the whole
process group; the parent decides when it stops, with :meth:`WriterProcess.close`) and
ends by itself within half a second of its parent's death (a thread watching its parent
id: a child blocked on the pipe is not told).

A script that starts a writer must guard its top level (``if __name__ ==
"__main__":``): ``spawn`` imports the parent's main module in the child.

Only a store opened by URL can be reopened in another process (an in-memory SQLite
database cannot): :func:`reopenable` tells.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from croupier.errors import StoreUnavailable
from croupier.store.core import Store
from croupier.store.db import store_outage

T = TypeVar("T")


def reopenable(store: Store) -> bool:
    """Whether another process can open ``store`` (:attr:`Store.opened_with` is known
    and names no in-memory database)."""
    spec = store.opened_with
    return spec is not None and ":memory:" not in spec[0] and "mode=memory" not in spec[0]


def _serve(conn: Connection, url: str, schema: str | None, context: Any) -> None:
    """The child: open the store, say so, then run each write it is sent until the
    pipe closes or ``None`` comes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    threading.Thread(target=_orphaned, args=(parent,), name="parent-watch", daemon=True).start()
    store = Store.open(url, schema=schema)
    conn.send_bytes(b"ready")
    while True:
        try:
            msg = conn.recv_bytes()
        except EOFError:
            return
        job = pickle.loads(msg)
        if job is None:
            return
        fn, args = job
        try:
            reply: tuple[str, Any] = ("ok", fn(store, context, *args))
        except Exception as e:
            outage = store_outage(e)
            reply = ("err", e if outage is None else StoreUnavailable(outage.message))
        try:
            out = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # an answer that does not pickle: say so, whole
            out = pickle.dumps(("err", TypeError(f"the writer's answer does not pickle: {e}")))
        conn.send_bytes(out)


def _orphaned(parent: int, every_s: float = 0.5) -> None:
    """End the writer once its parent is gone (a child blocked on its pipe is not told
    when the parent is killed): a transaction it has open is rolled back by the
    database."""
    while os.getppid() == parent:
        time.sleep(every_s)
    os._exit(0)


def _ended(proc: BaseProcess, within_s: float) -> bool:
    """Whether ``proc`` has ended, waiting up to ``within_s``: read from its sentinel
    (closed when it exits), which holds whoever reaps it (``is_alive`` takes a child
    another part of the process reaped first for alive forever); reaped here if it can
    be."""
    if not wait([proc.sentinel], within_s):
        return False
    proc.join(0)
    return True


def _wake(readable: asyncio.Future[None]) -> None:
    if not readable.done():
        readable.set_result(None)


class WriterProcess:
    """Writes to ``store``'s database run in one child process (see the module
    docstring), each given ``context`` (picklable); :meth:`start` starts the child (else
    the first write does), :meth:`close` ends it."""

    def __init__(self, store: Store, context: Any = None) -> None:
        spec = store.opened_with
        if spec is None or not reopenable(store):
            raise ValueError("the store was not opened from a URL another process can open")
        self._spec = spec
        self._context = context
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock: asyncio.Lock | None = None
        self.restarts = 0  # children started again after one died

    @property
    def pid(self) -> int | None:
        """The child's process id, while there is one."""
        return self._proc.pid if self._proc is not None else None

    def alive(self) -> bool:
        """Whether a child runs (none started yet, or one that ended: ``False``)."""
        return self._proc is not None and not _ended(self._proc, 0)

    def start(self) -> int:
        """Start the child (if none runs) and wait until its store is open; its pid.
        Blocks: from an event loop, run it in a thread at start-up."""
        if self._proc is None or self._conn is None:
            ctx = multiprocessing.get_context("spawn")
            ours, theirs = ctx.Pipe()
            url, schema = self._spec
            proc = ctx.Process(
                target=_serve,
                args=(theirs, url, schema, self._context),
                name="croupier-writer",
                daemon=True,
            )
            proc.start()
            theirs.close()
            try:
                ours.recv_bytes()  # "ready": its store is open
            except EOFError:
                proc.join(5)
                raise StoreUnavailable(
                    f"the store's writer process did not start (exit code {proc.exitcode})"
                ) from None
            self._proc, self._conn = proc, ours
        assert self._proc.pid is not None
        return self._proc.pid

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(store, context, *args)`` in the child; its result or its error."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._proc is not None and _ended(self._proc, 0):
                self._lost()  # it died between writes: nothing of this one was sent
            if self._conn is None:
                await asyncio.to_thread(self.start)
            conn = self._conn
            assert conn is not None
            data = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
            loop = asyncio.get_running_loop()
            readable: asyncio.Future[None] = loop.create_future()
            fd = conn.fileno()
            try:
                # blocking, both ways: an event loop may leave the descriptor it watched
                # non-blocking (uvloop does), and a write larger than the pipe's buffer
                # would then stop half way; the child, idle, reads it at once
                os.set_blocking(fd, True)
                conn.send_bytes(data)
                loop.add_reader(fd, _wake, readable)
                try:
                    await readable
                finally:
                    loop.remove_reader(fd)
                os.set_blocking(fd, True)
                kind, value = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                self._lost()
                raise StoreUnavailable(
                    "the store's writer process ended during the write; whether it "
                    "committed is not known"
                ) from None
            except asyncio.CancelledError:
                self._lost()  # its answer, when it comes, would be read as the next one's
                raise
        if kind == "err":
            raise value
        return value  # type: ignore[no-any-return]

    def _lost(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        self.restarts += 1
        if conn is not None:
            conn.close()
        if proc is not None:
            if not _ended(proc, 0):
                proc.kill()
            _ended(proc, 5)

    def close(self) -> None:
        """End the child once the write it holds is done."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send_bytes(pickle.dumps(None))
            conn.close()
        if proc is not None and not _ended(proc, 10):
            proc.kill()
            _ended(proc, 5)
