"""The dealer's group commits in a writer process (:mod:`croupier.store.writer`,
``CROUPIER_DEALER_WRITER=process``), over the real store of each mode.

The writes run in another process and come back with their results; an error raised
there arrives whole (its class, reason and facts), a database failure as
``StoreUnavailable``; a writer killed with ``kill -9`` fails only the write that meets
it (``UNAVAILABLE``), its table is rebuilt from the log, and the next write starts a
new writer; closing the writer or killing its parent ends it. (The gateway's calls at
many tables at once through it: ``test_gateway_concurrency``.)"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
import sqlalchemy as sa

from croupier.errors import StaleFencingToken, StoreUnavailable
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.store import Store
from croupier.store.writer import WriterProcess, reopenable
from croupier.testing import bets_of
from croupier_services import metrics
from croupier_services.grpc_util import error_info

from .harness import Cluster
from .test_gateway_concurrency import (
    _bets,
    memory_matches_store,
    open_hand,
    rid,
)

pytestmark = pytest.mark.integration


# module-level, so the writer process can import them
def pid_and_store(store: Store, context: Any, tag: str) -> tuple[int, str, Any]:
    return os.getpid(), tag, context


def refuse(store: Store, context: Any) -> None:
    raise StaleFencingToken("table t fenced", table_id="t", token=1, current=2)


def outage(store: Store, context: Any) -> None:
    raise sa.exc.OperationalError("SELECT 1", {}, Exception("server closed the connection"))


def size_of(store: Store, context: Any, blob: bytes) -> tuple[int, bytes]:
    return len(blob), blob[-16:] * 70_000  # an answer larger than a pipe's buffer too


def stall(store: Store, context: Any, seconds: float) -> None:
    time.sleep(seconds)


def gone(pid: int, within_s: float = 10.0) -> bool:
    """``pid`` has ended (reaped, or a zombie its parent has not waited for yet)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def writer(idle_cluster: Cluster) -> Any:
    c = idle_cluster
    assert reopenable(c.store)
    w = c.core.write_in_process()
    try:
        yield w
    finally:
        c.core.committer.writer = None
        w.close()


async def test_writes_run_in_another_process_and_errors_arrive_whole(
    idle_cluster: Cluster,
) -> None:
    w = WriterProcess(idle_cluster.store, context={"k": 1})
    try:
        pid, tag, ctx = await w.run(pid_and_store, "x")
        assert pid == w.start() != os.getpid()
        assert (tag, ctx) == ("x", {"k": 1})
        with pytest.raises(StaleFencingToken) as e:
            await w.run(refuse)
        assert (e.value.reason, e.value.table_id, e.value.token, e.value.current) == (
            "stale_fencing_token",
            "t",
            1,
            2,
        )
        with pytest.raises(StoreUnavailable):
            await w.run(outage)
        assert w.restarts == 0 and w.pid == pid  # errors do not cost the process
    finally:
        w.close()
    assert gone(pid)


async def test_a_writer_killed_mid_write_fails_that_write_and_the_next_starts_anew(
    idle_cluster: Cluster,
) -> None:
    w = WriterProcess(idle_cluster.store)
    try:
        pid = w.start()
        slow = asyncio.ensure_future(w.run(stall, 30.0))
        await asyncio.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(StoreUnavailable, match="whether it committed is not known"):
            await asyncio.wait_for(slow, 20)
        assert w.restarts == 1
        again, _, _ = await w.run(pid_and_store, "y")
        assert again not in (pid, os.getpid())
    finally:
        w.close()


async def test_a_write_cancelled_in_flight_ends_its_writer_and_the_next_is_answered(
    idle_cluster: Cluster,
) -> None:
    """The answer to a cancelled write would be read as the next write's: the writer
    holding it is ended, and the next write gets its own answer from a new one."""
    w = WriterProcess(idle_cluster.store)
    try:
        pid = w.start()
        slow = asyncio.ensure_future(w.run(stall, 30.0))
        await asyncio.sleep(0.3)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        assert gone(pid) and w.restarts == 1
        again, tag, _ = await w.run(pid_and_store, "next")
        assert tag == "next" and again not in (pid, os.getpid())
    finally:
        w.close()


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_writes_larger_than_the_pipe_buffer_cross_on_either_event_loop(
    tmp_path: Path, loop: str
) -> None:
    """A group commit's arguments can be megabytes; uvloop leaves a descriptor it watched
    non-blocking, where a large send would stop half way: every write, several in a
    row, crosses whole and gets its whole answer."""
    url = f"sqlite:///{tmp_path / 'big.sqlite'}"
    store = Store.open(url, upgrade=True)
    blob = os.urandom(3_000_000)

    async def main() -> None:
        w = WriterProcess(store)
        try:
            for _ in range(3):
                n, back = await w.run(size_of, blob)
                assert n == len(blob) and back == blob[-16:] * 70_000
            assert w.restarts == 0
        finally:
            w.close()

    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop")
        uvloop.run(main())
    else:
        asyncio.run(main())


def test_the_writer_ends_with_its_parent(tmp_path: Path) -> None:
    """A parent killed with ``kill -9`` leaves no writer behind."""
    url = f"sqlite:///{tmp_path / 'w.sqlite'}"
    Store.open(url, upgrade=True).close()
    script = textwrap.dedent(
        f"""
        import sys, time
        from croupier.store import Store
        from croupier.store.writer import WriterProcess
        w = WriterProcess(Store.open({url!r}))
        print(w.start(), flush=True)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        parent.kill()
        parent.wait(10)
        assert gone(child), "the writer outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_only_a_store_opened_by_url_can_be_reopened(tmp_path: Path) -> None:
    assert not reopenable(Store.open("sqlite:///:memory:", upgrade=True))
    assert reopenable(Store.open(f"sqlite:///{tmp_path / 'a.sqlite'}", upgrade=True))
    with pytest.raises(ValueError, match="another process"):
        WriterProcess(Store.open("sqlite:///:memory:", upgrade=True))


async def test_a_repeated_request_id_is_answered_from_the_store_through_the_writer(
    idle_cluster: Cluster, writer: WriterProcess
) -> None:
    """A retried call (same id, same request) gets the first answer and writes nothing
    more; the same id with another request is refused (the record's insert in the
    writer process refuses it; the error crosses back whole)."""
    c = idle_cluster
    table = await c.open_table("wprid")
    hid = await open_hand(c, table)
    req = gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets(), request_id=rid())
    first = await c.gw.PlaceBets(req)
    n = len(c.store.read_stream(hid))
    again = await c.gw.PlaceBets(req)
    assert again == first and len(c.store.read_stream(hid)) == n
    other = gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets()[:1], request_id=req.request_id)
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await c.gw.PlaceBets(other)
    info = error_info(e.value)
    assert info is not None and info.reason == "idempotency_conflict", info
    assert len(c.store.read_stream(hid)) == n
    memory_matches_store(c, hid)


async def test_a_killed_writer_fails_only_the_call_it_held_and_the_table_goes_on(
    idle_cluster: Cluster, writer: WriterProcess
) -> None:
    """``kill -9`` of the writer between commits: the next call goes through on a new
    writer. Killed while it holds a call's commit (stopped first, so the commit is in
    its hands): that call fails ``UNAVAILABLE`` ``store_unavailable``, its table is
    rebuilt from the log, the same call sent again is stored once by the next writer,
    and the hand completes. Both restarts are counted."""
    c = idle_cluster
    restarts0 = metrics.WRITER_RESTARTS._value.get()
    table = await c.open_table("wpkill")
    hid = await open_hand(c, table)
    pid = writer.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while writer.alive() and time.monotonic() < deadline:  # the kill takes its moment
        await asyncio.sleep(0.01)
    assert not writer.alive()
    req = gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets()[:1], request_id=rid())
    first = await c.gw.PlaceBets(req)  # between commits: a new writer, no failure
    assert first.accepted == 1 and writer.restarts == 1
    second = writer.pid
    assert second is not None and second != pid
    os.kill(second, signal.SIGSTOP)
    req = gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets()[1:], request_id=rid())
    held = asyncio.ensure_future(c.gw.PlaceBets(req))
    await asyncio.sleep(0.5)
    assert not held.done()  # its commit is in the stopped writer's hands
    os.kill(second, signal.SIGKILL)
    with pytest.raises(grpc.aio.AioRpcError) as e:
        await held
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    info = error_info(e.value)
    assert info is not None and info.reason == StoreUnavailable.reason
    memory_matches_store(c, hid)
    placed = await c.gw.PlaceBets(req)  # the same call again: stored once, by a third
    assert placed.accepted == len(_bets()) - 1
    memory_matches_store(c, hid)
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid, request_id=rid()))
    events = c.store.read_stream(hid)
    assert [e.seq for e in events] == list(range(len(events)))
    assert len(bets_of(events)) == len(_bets())
    assert writer.restarts == 2
    assert metrics.WRITER_RESTARTS._value.get() == restarts0 + 2  # counted, for alerts
    now, _, _ = await writer.run(pid_and_store, "z")
    assert now not in (pid, second, os.getpid())
