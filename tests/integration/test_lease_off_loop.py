"""A replica's lease transactions run off its event loop: while a takeover's claim or the
renewal of every held lease waits on a lease row another transaction keeps locked (on
PostgreSQL ``SELECT … FOR UPDATE`` held open, as a holder paused mid-transaction keeps
it; on SQLite the database's write lock), the loop goes on serving — a ticker on it
never waits more than a fraction of the hold — and the claim and the renewal complete
once the lock goes. A renewal's answer never undoes what the loop did meanwhile (a
lease released or claimed anew while the renewal ran stays as the loop left it)."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import sqlalchemy as sa

from croupier.dealing import Dealer
from croupier.ownership import Ownership
from croupier.signing import FileSigner
from croupier.store import Store
from croupier.store.secrets import SeedBox
from croupier_services.dealer import DealerCore

from .harness import Database

pytestmark = pytest.mark.integration

TTL = 60_000
HOLD_S = 1.2  # how long the other transaction keeps the lock
LAG_LIMIT_S = 0.4  # the most a tick of the loop may wait meanwhile (a third of it)


def _core(store: Store, name: str) -> DealerCore:
    signers = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    for s in signers.values():
        store.put_key(s.public_entry())
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    d = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: time.time_ns() // 10**6,
        seed_source=lambda: next(seeds),
    )
    core = DealerCore(d, store, None, seed_box=SeedBox(bytes([3]) * 32))
    core.ownership = Ownership(store, name, f"{name}:1", TTL, lambda: time.time_ns() // 10**6)
    return core


@contextmanager
def _held_lock(store: Store, backend: str, tables: list[str]) -> Iterator[threading.Event]:
    """Another transaction holding the lease rows of ``tables`` (PostgreSQL) or the
    database's write lock (SQLite) until the event is set or :data:`HOLD_S` passes."""
    release = threading.Event()
    locked = threading.Event()

    def hold() -> None:
        if backend == "sqlite":
            raw = store.engine.raw_connection()
            try:
                raw.cursor().execute("BEGIN IMMEDIATE")
                locked.set()
                release.wait(HOLD_S)
                raw.cursor().execute("ROLLBACK")
            finally:
                raw.close()
            return
        with store.engine.connect() as c:
            c.execute(
                sa.text("SELECT table_id FROM table_leases WHERE table_id = ANY(:t) FOR UPDATE"),
                {"t": tables},
            )
            locked.set()
            release.wait(HOLD_S)
            c.rollback()

    t = threading.Thread(target=hold)
    t.start()
    assert locked.wait(10)
    try:
        yield release
    finally:
        release.set()
        t.join()


async def _max_lag_while(work: Callable[[], object]) -> tuple[float, float]:
    """Run ``work`` (a coroutine) beside a 10 ms ticker on the same loop: the ticker's
    longest wait beyond its 10 ms, and how long ``work`` took."""
    lag = 0.0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal lag
        while not done.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            lag = max(lag, time.perf_counter() - t0 - 0.01)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.02)  # the ticker is waiting on the loop before the work starts
    t0 = time.perf_counter()
    try:
        await work()  # type: ignore[misc]
    finally:
        took = time.perf_counter() - t0
        done.set()
        await ticker
    return lag, took


async def test_a_takeover_waits_for_a_locked_lease_off_the_loop(database: Database) -> None:
    store = database.open()
    a, b = _core(store, "dealer-a"), _core(store, "dealer-b")
    assert a.ownership is not None and b.ownership is not None
    # dealer-a holds the table briefly; its lease is then released, so dealer-b may take it
    async with a.table_lock("t1"):
        await a.take("t1")
    assert a.ownership.release("t1")
    with _held_lock(store, database.backend, ["t1"]):

        async def take() -> None:
            async with b.table_lock("t1"):
                await b.take("t1")

        lag, took = await _max_lag_while(take)
    assert took >= HOLD_S * 0.8  # it did wait for the lock
    assert lag < LAG_LIMIT_S, f"the event loop stalled {lag:.3f} s during a takeover"
    lease = b.ownership.leases["t1"]
    assert lease.token == 2 and b.fences["t1"] == 2
    store.engine.dispose()


async def test_a_renewal_waits_for_a_locked_lease_off_the_loop(database: Database) -> None:
    store = database.open()
    a = _core(store, "dealer-a")
    own = a.ownership
    assert own is not None
    tables = [f"t{i}" for i in range(64)]
    for t in tables:
        own.claim(t)
    before = {t: own.leases[t].expires_at_ms for t in tables}
    stop = asyncio.Event()
    with _held_lock(store, database.backend, tables[10:12]):

        async def renew_once() -> None:
            task = asyncio.create_task(a.run_lease_renewal(stop))
            deadline = time.monotonic() + 10
            while any(own.leases[t].expires_at_ms == before[t] for t in tables):
                assert time.monotonic() < deadline, "the renewal never completed"
                await asyncio.sleep(0.01)
            stop.set()
            await task

        await asyncio.sleep(0.002)  # every lease's expiry moves on the next renewal
        lag, took = await _max_lag_while(renew_once)
    assert took >= HOLD_S * 0.8
    assert lag < LAG_LIMIT_S, f"the event loop stalled {lag:.3f} s during a renewal"
    assert sorted(own.leases) == sorted(tables)
    store.engine.dispose()


def test_a_renewal_never_undoes_what_the_loop_did_meanwhile(database: Database) -> None:
    store = database.open()
    now = [10_000]
    own = Ownership(store, "dealer-a", "a:1", TTL, lambda: now[0])
    for t in ("kept", "released", "again", "lost"):
        own.claim(t)
    held = own.held()
    # meanwhile, on the owner's thread: one released, one claimed anew (extended), and
    # one taken over by another replica after its lease ran out
    now[0] = 10_005
    assert own.release("released")
    again = own.claim("again")
    store.release_lease("lost", "dealer-a", held["lost"].token, now[0])
    store.acquire_lease("lost", "dealer-b", "b:1", TTL, now[0])
    # the renewal read its clock before those (its thread ran late): the lease released
    # at 10,005 is still "live" at 10,002, but no longer the lease it holds
    now[0] = 10_002
    answer = own.renew(held)
    assert sorted(answer.lost) == ["again", "lost", "released"]
    assert own.apply_renewal(held, answer) == ["lost"]  # the others are the loop's to keep
    assert sorted(own.leases) == ["again", "kept"]
    assert own.leases["again"] is again  # the newer claim stays
    assert own.leases["kept"].expires_at_ms == 10_002 + TTL  # renewed
    assert store.current_lease("released", 10_006) is None  # stays released
    assert store.current_lease("again", 10_006) == again
    lost = store.current_lease("lost", 10_006)
    assert lost is not None and lost.owner == "dealer-b"
    store.engine.dispose()
