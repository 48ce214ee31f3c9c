"""The gateway path under concurrent tables: calls at different tables run at once
(each holds only its table's lock) and their batches are stored together, in one
transaction per group (:class:`croupier_services.dealer.GroupCommitter`).

Every hand dealt at many tables at once is complete and gap-free; a request id sent
twice at once has one effect and one answer; a batch the store refuses inside a group
fails only its own call (its table rebuilt from the log, the group's other calls
stored); a store outage in the middle of a group fails every call of it and leaves
nothing of any of them."""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
import sqlalchemy as sa

from croupier.bus import wire
from croupier.errors import StaleFencingToken
from croupier.events import Event, Seal
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.store.core import UnitOfWork
from croupier.store.outbox import OutboxRow
from croupier.testing import bets_of
from croupier_services.consumer import IntegrityChecker
from croupier_services.dealer import GroupCommitter, PendingWrite
from croupier_services.grpc_util import error_info

from .harness import Cluster, all_stream_messages, seat_entries

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "player", 20_000)]


def rid() -> str:
    return str(uuid.uuid4())


def _bets() -> list[gateway_pb2.Bet]:
    return [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in BETS]


def check_hand(c: Cluster, hand_id: str, *, closed: bool = True) -> None:
    """The stored hand: seq 0..n-1 without a gap, each event chained to the one before,
    opened, bets placed once, closed (when ``closed``)."""
    events = c.store.read_stream(hand_id)
    assert [e.seq for e in events] == list(range(len(events))), hand_id
    for prev, e in itertools.pairwise(events):
        assert e.prev_hash == prev.hash, (hand_id, e.seq)
    types = [e.type for e in events]
    assert types[0] == g.HAND_OPENED
    assert types.count(g.BETS_PLACED) == 1, (hand_id, types)
    assert len(bets_of(events)) == len(BETS), (hand_id, types)
    assert (g.HAND_CLOSED in types) is closed, (hand_id, types)


def memory_matches_store(c: Cluster, hand_id: str) -> None:
    """The dealer's memory of the hand is what the store holds (nothing ahead)."""
    h = c.core.dealer.hands[hand_id]
    stored = c.store.read_stream(hand_id)
    assert h.writer.next_seq - 1 == stored[-1].seq
    assert [e.hash for e in h.events] == [e.hash for e in stored]


def seals_covering_last(c: Cluster, hand_id: str) -> set[str]:
    """The stored seals naming the hand's last stored event."""
    last = c.store.read_stream(hand_id)[-1]
    return {
        s.seal_id
        for s in c.store.seals_for(hand_id)
        if any(en.stream == hand_id and en.seq == last.seq for en in s.entries)
    }


def others(c: Cluster, hand_id: str) -> int:
    """Events stored, but those of ``hand_id``."""
    return c.store.count_events() - len(c.store.read_stream(hand_id))


async def open_hand(c: Cluster, table: str) -> str:
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 3), request_id=rid())
    )
    return str(h.hand_id)


@contextmanager
def grouped(first_table: str) -> Iterator[tuple[threading.Event, list[list[str]]]]:
    """Hold the committer's transaction for ``first_table``'s write in its thread until
    the returned event is set (the writes submitted meanwhile form the next group);
    records each transaction's tables."""
    gate = threading.Event()
    groups: list[list[str]] = []
    write_now = GroupCommitter.write_now

    def gated(
        self: GroupCommitter,
        writes: Sequence[PendingWrite],
        seals: Sequence[Seal] = (),
        held: frozenset[str] = frozenset(),
        published: Sequence[OutboxRow] = (),
    ) -> set[str]:
        groups.append([w.table_id for w in writes])
        if writes[0].table_id == first_table:
            assert gate.wait(30), "the test never opened the gate"
        return write_now(self, writes, seals, held, published)

    GroupCommitter.write_now = gated  # type: ignore[method-assign]
    try:
        yield gate, groups
    finally:
        GroupCommitter.write_now = write_now  # type: ignore[method-assign]
        gate.set()


async def in_one_group(
    c: Cluster,
    groups: list[list[str]],
    gate_table: str,
    first: Callable[[], Awaitable[Any]],
    calls: Sequence[Callable[[], Awaitable[Any]]],
) -> tuple[asyncio.Future[Any], list[asyncio.Future[Any]]]:
    """Start ``first`` (a call at ``gate_table``, its write held by :func:`grouped`),
    then ``calls``; returns once all their writes wait in the committer's queue: they
    are stored as one group when the gate opens."""
    head = asyncio.ensure_future(first())
    await wait_until(lambda: [gate_table] in groups)
    rest = [asyncio.ensure_future(call()) for call in calls]
    await wait_until(lambda: c.core.committer.queued == len(calls))
    return head, rest


async def wait_until(cond: Callable[[], bool], timeout_s: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not cond():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def outcomes(tasks: Sequence[asyncio.Future[Any]]) -> list[Any]:
    return list(await asyncio.gather(*tasks, return_exceptions=True))


# ------------------------------------------------------------------------------ tests


@contextmanager
def commits_in(c: Cluster, kind: str) -> Iterator[None]:
    """The cluster's dealer commits in a thread of its own process (as built) or, for
    ``process``, in a writer process (``CROUPIER_DEALER_WRITER=process``)."""
    if kind == "thread":
        yield
        return
    w = c.core.write_in_process()
    try:
        yield
    finally:
        c.core.committer.writer = None
        w.close()


@pytest.mark.parametrize("writer", ["thread", "process"])
async def test_coups_at_many_tables_at_once_are_complete_and_grouped(
    idle_cluster: Cluster, writer: str
) -> None:
    """24 tables play 3 coups each at once, every call with a request id: every hand is
    stored complete with gap-free, chained seqs, one request record per call, and the
    calls' batches were stored in shared transactions; with the commits in the dealer's
    thread and in its writer process."""
    c = idle_cluster
    with commits_in(c, writer):
        tables = [await c.open_table(f"many{i}") for i in range(24)]
        before = c.store.count_requests()
        writes0, groups0 = c.core.committer.writes, c.core.committer.groups

        async def play(table: str) -> list[str]:
            hands = []
            for _ in range(3):
                hid = await open_hand(c, table)
                placed = await c.gw.PlaceBets(
                    gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets(), request_id=rid())
                )
                closed = await c.gw.CloseBetting(
                    gateway_pb2.CloseBettingRequest(hand_id=hid, request_id=rid())
                )
                assert placed.accepted == len(BETS)
                assert closed.view.phase
                hands.append(hid)
            return hands

        hands = [h for hs in await asyncio.gather(*(play(t) for t in tables)) for h in hs]
        assert len(set(hands)) == 72
        for hid in hands:
            check_hand(c, hid)
        assert c.store.count_requests() - before == 72 * 3
        writes = c.core.committer.writes - writes0
        groups = c.core.committer.groups - groups0
        assert writes == 72 * 3
        assert groups < writes  # some transactions held several tables' calls


async def test_a_small_group_waits_for_the_calls_of_other_busy_tables(
    idle_cluster: Cluster,
) -> None:
    """With a linger, a write queued while a call at another table is under way waits
    for it: the two are stored in one transaction. A call at a table playing alone
    never waits (nobody could join its group)."""
    c = idle_cluster
    committer = c.core.committer
    alone, a, b, last = [await c.open_table("lg") for _ in range(4)]
    committer.linger_s = 0.5  # long: the test's own steps run inside it
    try:
        # alone: no other table has a call under way, so no wait
        lingered, groups0 = committer.lingered, committer.groups
        await open_hand(c, alone)
        assert committer.lingered == lingered and committer.groups == groups0 + 1
        # a call under way at b (its table lock held) while a's write is queued
        writes0, groups0 = committer.writes, committer.groups
        async with c.core.table_lock(b):
            first = asyncio.ensure_future(open_hand(c, a))
            await wait_until(lambda: committer.lingered == lingered + 1)
            assert committer.queued == 1 and committer.groups == groups0  # waiting
        second = asyncio.ensure_future(open_hand(c, b))  # b's call joins within the wait
        hands = await asyncio.gather(first, second)
        assert committer.writes - writes0 == 2
        assert committer.groups - groups0 == 1  # one transaction for both
        for hid in hands:
            assert [e.type for e in c.store.read_stream(hid)] == [g.HAND_OPENED]
        # no linger: never waits
        committer.linger_s = 0.0
        async with c.core.table_lock(b):
            await open_hand(c, last)
        assert committer.lingered == lingered + 1
    finally:
        committer.linger_s = 0.0


async def test_a_busy_table_does_not_hold_up_the_others(idle_cluster: Cluster) -> None:
    """While one table's lock is held (a call there is slow), whole coups are dealt at
    other tables; the held table's call waits for it and then goes through."""
    c = idle_cluster
    busy, free = await c.open_table("busy"), await c.open_table("free")
    held = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with c.core.table_lock(busy):
            held.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await held.wait()
    waiting = asyncio.create_task(open_hand(c, busy))
    hand = await asyncio.wait_for(c.play_hand(free), 10)
    assert g.HAND_CLOSED in [e.type for e in c.store.read_stream(hand)]
    assert not waiting.done()  # still behind the busy table's lock
    release.set()
    await holder
    hid = await asyncio.wait_for(waiting, 10)
    assert c.store.read_stream(hid)[0].type == g.HAND_OPENED


async def test_one_request_id_sent_twice_at_once_has_one_effect(idle_cluster: Cluster) -> None:
    """At 8 tables at once, each call of a coup is sent twice concurrently with the
    same request id: both answers are the same, one of them replayed from the stored
    record, and the effect happened once."""
    c = idle_cluster
    tables = [await c.open_table(f"twice{i}") for i in range(8)]

    async def twice(send: Callable[[], Any]) -> Any:
        calls = [send(), send()]
        answers = await asyncio.gather(*calls)
        assert answers[0] == answers[1]
        replayed = [
            ("croupier-replayed", "true") in tuple(await call.trailing_metadata()) for call in calls
        ]
        assert sorted(replayed) == [False, True]
        return answers[0]

    async def play(table: str) -> str:
        r_open, r_bets, r_close = rid(), rid(), rid()
        h = await twice(
            lambda: c.gw.OpenHand(
                gateway_pb2.OpenHandRequest(
                    table_id=table, seats=seat_entries(table, 3), request_id=r_open
                )
            )
        )
        await twice(
            lambda: c.gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=_bets(), request_id=r_bets)
            )
        )
        await twice(
            lambda: c.gw.CloseBetting(
                gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=r_close)
            )
        )
        return str(h.hand_id)

    hands = await asyncio.gather(*(play(t) for t in tables))
    for table, hid in zip(tables, hands, strict=True):
        check_hand(c, hid)
        assert hid.endswith("_h1")  # one hand opened per table, not two
        assert c.core.dealer.tables[table].hand_count == 1


async def test_one_request_id_at_two_tables_at_once_opens_one(
    idle_cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    """The same request id used at once for two different OpenTable calls: one table
    opens; the other call waits for the first one's commit, finds its record and is
    refused as a conflict before it changes anything (no commit of it is even tried),
    leaving nothing behind."""
    c = idle_cluster
    caplog.set_level(logging.ERROR, logger="croupier.dealer")
    r = rid()
    names = [f"dup_{uuid.uuid4().hex[:8]}", f"dup_{uuid.uuid4().hex[:8]}"]
    calls = [
        c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=t, variant="baccarat", request_id=r))
        for t in names
    ]
    got = await asyncio.gather(*calls, return_exceptions=True)
    ok = [t for t, x in zip(names, got, strict=True) if not isinstance(x, BaseException)]
    bad = [x for x in got if isinstance(x, grpc.aio.AioRpcError)]
    assert len(ok) == 1 and len(bad) == 1, got
    assert bad[0].code() == grpc.StatusCode.ALREADY_EXISTS
    info = error_info(bad[0])
    assert info is not None and info.reason == "idempotency_conflict"
    (loser,) = set(names) - set(ok)
    assert loser not in c.core.dealer.tables
    assert c.store.get_table(loser) is None
    assert c.store.get_table(ok[0]) is not None
    assert not [r for r in caplog.records if "commit failed" in r.getMessage()]


async def test_a_refused_batch_fails_only_its_call_in_a_group(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four tables' PlaceBets are stored in one group; the store refuses one table's
    batch (a stale fencing token). That call fails (UNAVAILABLE, stale_fencing_token),
    nothing of it is stored and its table is rebuilt from the log; the three others
    are stored. Sent again, the refused call goes through."""
    c = idle_cluster
    gate_table, *tables = [await c.open_table(f"grp{i}") for i in range(5)]
    bad = tables[2]
    gate_hand = await open_hand(c, gate_table)
    hands = {t: await open_hand(c, t) for t in tables}
    ids = {t: rid() for t in tables}
    append = UnitOfWork.append

    def refuse(self: UnitOfWork, events: Sequence[Event] = (), *a: Any, **kw: Any) -> Any:
        if any(e.stream == hands[bad] for e in events):
            raise StaleFencingToken(f"table {bad} fenced", table_id=bad, token=1, current=2)
        return append(self, events, *a, **kw)

    monkeypatch.setattr(UnitOfWork, "append", refuse)
    retried = c.core.committer.retried

    def bets(t: str) -> Callable[[], Awaitable[Any]]:
        req = gateway_pb2.PlaceBetsRequest(hand_id=hands[t], bets=_bets(), request_id=ids[t])
        return lambda: c.gw.PlaceBets(req)

    def gate_bets() -> Awaitable[Any]:
        return c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=gate_hand, bets=_bets()))

    with grouped(gate_table) as (gate, groups):
        head, rest = await in_one_group(c, groups, gate_table, gate_bets, [bets(t) for t in tables])
        gate.set()
        await head
        got = await outcomes(rest)
    assert sorted(tables) in [sorted(gr) for gr in groups]  # tried as one group
    assert c.core.committer.retried == retried + 1
    for t, out in zip(tables, got, strict=True):
        if t == bad:
            assert isinstance(out, grpc.aio.AioRpcError), out
            assert out.code() == grpc.StatusCode.UNAVAILABLE
            info = error_info(out)
            assert info is not None and info.reason == "stale_fencing_token"
            stored = [e.type for e in c.store.read_stream(hands[t])]
            assert g.BETS_PLACED not in stored
            assert c.store.get_request(ids[t]) is None
        else:
            assert not isinstance(out, BaseException), out
            assert out.accepted == len(BETS)
            assert c.store.get_request(ids[t]) is not None
            check_hand(c, hands[t], closed=False)
            # sealed anew, alone, when the group's writes were tried one by one
            (alone,) = seals_covering_last(c, hands[t])
            assert {en.stream for en in c.store.get_seal(alone).entries} == {hands[t]}
        memory_matches_store(c, hands[t])
    monkeypatch.setattr(UnitOfWork, "append", append)
    again = await bets(bad)()
    assert again.accepted == len(BETS)
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hands[bad]))
    check_hand(c, hands[bad])


async def test_a_group_is_sealed_once_and_each_hand_message_verifies(
    idle_cluster: Cluster,
) -> None:
    """Four tables' CloseBetting calls stored in one group: the dealer signs one seal for
    the group, not one per call (the four hands' closing events are named by the same
    stored seal), and each hand's message carries only its own part of that seal and
    passes the consumers' integrity check (chain, producers, seal coverage)."""
    c = idle_cluster
    gate_table, *tables = [await c.open_table(f"seal{i}") for i in range(5)]
    gate_hand = await open_hand(c, gate_table)
    hands = {t: await open_hand(c, t) for t in tables}
    for hid in [gate_hand, *hands.values()]:
        await c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets()))

    def close(hid: str) -> Callable[[], Awaitable[Any]]:
        req = gateway_pb2.CloseBettingRequest(hand_id=hid, request_id=rid())
        return lambda: c.gw.CloseBetting(req)

    with grouped(gate_table) as (gate, groups):
        head, rest = await in_one_group(
            c, groups, gate_table, close(gate_hand), [close(h) for h in hands.values()]
        )
        gate.set()
        await head
        for out in await outcomes(rest):
            assert not isinstance(out, BaseException), out
    assert sorted(tables) in [sorted(gr) for gr in groups]  # stored as one group
    covering = [seals_covering_last(c, hid) for hid in hands.values()]
    (shared,) = set.intersection(*covering)  # one seal names all four closings
    assert all(len(ids) == 1 for ids in covering)
    named = {en.stream for en in c.store.get_seal(shared).entries}
    assert set(hands.values()) <= named
    for hid in hands.values():
        check_hand(c, hid)

    await c.flush()
    messages = {
        m.events[0].stream: m
        for m in map(wire.decode, (x.data for x in await all_stream_messages(c.bus)))
        if m.events and m.events[0].stream in hands.values()
    }
    checker = IntegrityChecker(c.trust, "rules")
    for hid in hands.values():
        m = messages[hid]
        checker.check(m)
        part = next(s for s in m.seals if s.seal_id == shared)
        assert part.part is not None  # its own entries and their audit paths only
        assert {en.stream for en in part.entries} == {hid}


async def test_a_store_outage_mid_group_fails_every_call_and_writes_nothing(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four tables' CloseBetting calls are stored in one group and the database goes
    away half way through its transaction: every call answers UNAVAILABLE
    store_unavailable, nothing of any of them is stored (not the writes made before the
    failure either), each table is rebuilt; the same calls then go through."""
    c = idle_cluster
    gate_table, *tables = [await c.open_table(f"out{i}") for i in range(5)]
    gate_hand = await open_hand(c, gate_table)
    hands = {t: await open_hand(c, t) for t in tables}
    for hid in hands.values():
        await c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets()))
    ids = {t: rid() for t in tables}
    heads = {t: c.store.read_stream(hid)[-1].seq for t, hid in hands.items()}
    put_requests = UnitOfWork.put_requests
    seen: list[int] = []

    def flaky(self: UnitOfWork, records: Any) -> None:
        put_requests(self, records)
        if not records:  # the gate's call has no request id
            return
        seen.append(len(records))
        if len(seen) == 1:  # the group's events and records are written already
            raise sa.exc.OperationalError("INSERT", {}, Exception("server closed the connection"))

    def close(t: str) -> Callable[[], Awaitable[Any]]:
        req = gateway_pb2.CloseBettingRequest(hand_id=hands[t], request_id=ids[t])
        return lambda: c.gw.CloseBetting(req)

    def gate_call() -> Awaitable[Any]:
        return c.gw.PlaceBets(gateway_pb2.PlaceBetsRequest(hand_id=gate_hand, bets=_bets()))

    with grouped(gate_table) as (gate, groups):
        head, rest = await in_one_group(
            c, groups, gate_table, gate_call, [close(t) for t in tables]
        )
        before = others(c, gate_hand), c.store.count_requests()
        monkeypatch.setattr(UnitOfWork, "put_requests", flaky)
        gate.set()
        await head
        got = await outcomes(rest)
    monkeypatch.setattr(UnitOfWork, "put_requests", put_requests)
    events, requests = before
    assert sorted(tables) in [sorted(gr) for gr in groups]
    assert seen == [len(tables)]  # an outage: no write of the group was tried again alone
    for t, out in zip(tables, got, strict=True):
        assert isinstance(out, grpc.aio.AioRpcError), out
        assert out.code() == grpc.StatusCode.UNAVAILABLE
        info = error_info(out)
        assert info is not None and info.reason == "store_unavailable"
        assert c.store.read_stream(hands[t])[-1].seq == heads[t]
        memory_matches_store(c, hands[t])
    assert (others(c, gate_hand), c.store.count_requests()) == (events, requests)
    # back: the very same calls go through, once
    for t in tables:
        await close(t)()
        check_hand(c, hands[t])
        assert c.store.get_request(ids[t]) is not None


async def test_a_caller_gone_mid_commit_leaves_its_table_consistent(idle_cluster: Cluster) -> None:
    """A call whose caller gives up (deadline) while its batch is being stored: the
    table stays locked until the store has answered, the write is kept, memory and log
    agree, and the retried call is answered from the stored record."""
    c = idle_cluster
    table = await c.open_table("gone")
    hid = await open_hand(c, table)
    req = gateway_pb2.PlaceBetsRequest(hand_id=hid, bets=_bets(), request_id=rid())
    with grouped(table) as (gate, groups):
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await c.gw.PlaceBets(req, timeout=0.5)
        assert ei.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        await asyncio.sleep(0.3)  # the handler has been cancelled by now
        assert [table] in groups
        assert c.core.table_locks.locked(table)  # its write is still being stored
        gate.set()
        await wait_until(lambda: not c.core.table_locks.locked(table))
    assert c.store.get_request(req.request_id) is not None
    memory_matches_store(c, hid)
    again = c.gw.PlaceBets(req)
    assert (await again).accepted == len(BETS)
    assert ("croupier-replayed", "true") in tuple(await again.trailing_metadata())
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=hid))
    check_hand(c, hid)
