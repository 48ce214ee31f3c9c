"""The dealer service: the gateway-facing gRPC API over :class:`croupier.dealing.Dealer`.

Every call is one atomic batch: validated by the game's engine, appended to the SQL event
store (with the batch's seal and the table's registry row) and only then acknowledged. A
closed hand is published to JetStream as one message (all its events and seals) with
``Nats-Msg-Id = hand:<id>``: the message goes into the outbox in the same SQL transaction
as the hand's last events, and the dealer's outbox relay publishes it; no gateway call
waits on NATS. A restarted dealer resumes every open table from the registry and a
bounded part of the log (:meth:`DealerCore.recover`); the table feed is read from the
store (:mod:`croupier_services.feed`).

Calls at different tables run concurrently: each holds only its table's lock, and the
batches of calls waiting to be stored are written together, in one transaction run off
the event loop (:class:`GroupCommitter`); see :class:`DealerCore` for the rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from sqlalchemy.pool import SingletonThreadPool, StaticPool

from croupier import canonical, limits
from croupier.auth import SeatTokens, current_identity, not_your_table
from croupier.bus import subjects, wire
from croupier.bus.jetstream import Bus
from croupier.bus.relay import HeldMessages, OutboxRelay, Published
from croupier.dealing import Batch, Dealer, Hand, TableRow, hand_id_for, restore_table
from croupier.errors import (
    CroupierError,
    FieldRejected,
    IdempotencyConflict,
    InvalidInput,
    NotFound,
    PermissionDenied,
    SigningKeyRevoked,
    StaleFencingToken,
    StaleSequence,
    StoreUnavailable,
    TableOwnedElsewhere,
    Unauthenticated,
)
from croupier.events import Event, Seal
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.ownership import Ownership
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.signing import Signer
from croupier.store import (
    EventStore,
    Outbox,
    OutboxItem,
    OutboxRef,
    RequestRecord,
    StreamInfo,
    TableRecord,
)
from croupier.store import outbox as ob
from croupier.store.core import UnitOfWork
from croupier.store.db import store_outage
from croupier.store.outbox import OutboxRow
from croupier.store.requests import replay, request_hash
from croupier.store.secrets import SeedBox
from croupier.store.writer import WriterProcess
from croupier.trace import hand_traceparent
from croupier_services import metrics
from croupier_services.feed import FeedHub
from croupier_services.grants import GrantCache, GrantCheck
from croupier_services.grpc_util import abort, rpc, rpc_stream
from croupier_services.outboxes import relay_for
from croupier_services.views import redact, redact_public, to_pb

__all__ = [
    "DealerCore",
    "GatewayServicer",
    "GroupCommitter",
    "TableLocks",
    "redact_public",
    "turn_timeout_ms",
]

log = logging.getLogger("croupier.dealer")
R = TypeVar("R", bound=Message)
T = TypeVar("T")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class TableLocks:
    """One :class:`asyncio.Lock` per table, made on first use and forgotten when nobody
    holds or waits for it (so the map stays as small as the tables in use)."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    def locked(self, table_id: str) -> bool:
        entry = self._locks.get(table_id)
        return entry is not None and entry[0].locked()

    @contextlib.asynccontextmanager
    async def hold(self, table_id: str) -> AsyncIterator[None]:
        entry = self._locks.get(table_id)
        if entry is None:
            entry = self._locks[table_id] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0 and self._locks.get(table_id) is entry:
                del self._locks[table_id]


@dataclass(eq=False)
class PendingWrite:
    """One call's batch as :meth:`DealerCore.persist` writes it, every value taken on the
    event loop beforehand (the writing thread reads nothing of the dealer's memory).

    Its events are sealed with the group it is stored in (:meth:`GroupCommitter.seal`:
    one seal per producer for the whole group, not one per call), and the outbox rows of
    the hands it closes are made then, since their messages carry those seals."""

    table_id: str
    fences: list[tuple[str, int]]
    tables: list[TableRecord]
    secrets: list[tuple[str, bytes]]
    at_ms: int
    events: list[Event]
    seals: list[Seal]
    streams: list[StreamInfo]
    request: RequestRecord | None
    grant: GrantCheck | None = None
    unsealed: list[tuple[Signer, list[Event]]] = field(default_factory=list)
    closed: list[Hand] = field(default_factory=list)  # the hands it closes
    outbox: list[OutboxItem] = field(default_factory=list)  # theirs, once sealed
    done: asyncio.Future[None] | None = field(default=None, repr=False)

    def __reduce__(self) -> tuple[type[PendingWrite], tuple[Any, ...]]:
        """What :func:`write_group` needs in the writer process, as its fields in order
        (:mod:`croupier.picklable`): not the caller's future, the signers of its
        unsealed events nor the hands it closes."""
        return (
            PendingWrite,
            (
                self.table_id,
                self.fences,
                self.tables,
                self.secrets,
                self.at_ms,
                self.events,
                self.seals,
                self.streams,
                self.request,
                self.grant,
                [],
                [],
                self.outbox,
            ),
        )


def write_group(
    store: EventStore,
    box: SeedBox,
    writes: Sequence[PendingWrite],
    seals: Sequence[Seal] = (),
    held: frozenset[str] = frozenset(),
    published: Sequence[OutboxRow] = (),
) -> set[str]:
    """Store ``writes`` and the group's ``seals`` in one transaction of ``store`` (in
    the calling thread, or in the writer process: :mod:`croupier.store.writer`), the
    messages in ``held`` by reference, deleting the outbox rows ``published``; the
    tables whose remembered grants went stale (:func:`check_grants`)."""
    with store.transaction() as tx:
        return write_all(tx, writes, box, seals, held, published)


def write_all(
    tx: UnitOfWork,
    writes: Sequence[PendingWrite],
    box: SeedBox,
    seals: Sequence[Seal] = (),
    held: frozenset[str] = frozenset(),
    published: Sequence[OutboxRow] = (),
) -> set[str]:
    """Every write of a group in the transaction ``tx``: the fencing checks and the
    grant checks first (:func:`check_grants`), then the table rows (one statement),
    secrets, ONE append of all their events, their seals and the group's ``seals``
    (:meth:`GroupCommitter.seal`) and their streams (each batch's streams are
    its own table's, so the appends are independent; one append reads the streams' heads
    once for the group), the outbox rows (by reference for the messages whose bytes the
    relay holds: ``held``), the deletion of the rows the relay ``published`` since the
    last commit, and the request records (one statement each; the
    records' insert finds an id already taken by itself:
    :func:`croupier.store.requests.put_requests`). Returns the tables whose remembered
    grants are out of date."""
    # in the tables' order, as a lease renewal locks them (no two transactions wait on
    # each other's rows)
    for t, token in sorted({f for w in writes for f in w.fences}):
        tx.fence(t, token)
    stale = check_grants(tx, writes)
    events: list[Event] = []
    seals_all: list[Seal] = []
    streams: list[StreamInfo] = []
    tables: list[TableRecord] = []
    for w in writes:
        tables += w.tables
        for sid, seed in w.secrets:
            tx.put_secret(sid, seed, w.at_ms, box)
        events += w.events
        seals_all += w.seals
        streams += w.streams
    seals_all += seals
    if tables:  # one statement; a table's last row wins, as if written one by one
        tx.put_tables(tables)
    if events:
        tx.append(events, seals_all, streams)
    ob.enqueue_groups(tx.connection, [(w.outbox, w.at_ms) for w in writes if w.outbox], held)
    ob.delete(tx.connection, published)
    tx.put_requests([w.request for w in writes if w.request is not None])
    return stale


def check_grants(tx: UnitOfWork, writes: Sequence[PendingWrite]) -> set[str]:
    """The grant checks of a group's calls admitted on remembered grants
    (:mod:`croupier_services.grants`): one read of the change counts of their tables;
    where a count moved since the grants were read, whether the caller still holds the
    table (:class:`PermissionDenied` if not: the group fails and each write is tried
    alone, so only that call is refused). Returns the tables whose count moved."""
    checks = [w.grant for w in writes if w.grant is not None]
    if not checks:
        return set()
    counts = tx.grant_change_counts([c.table_id for c in checks])
    stale: set[str] = set()
    for c in checks:
        if counts.get(c.table_id, 0) == c.changes:
            continue
        stale.add(c.table_id)
        if not tx.holds_table(c.table_id, c.gateway):
            raise not_your_table(c.table_id, c.gateway)
    return stale


class GroupCommitter:
    """Group commit of the gateway calls' batches.

    :meth:`submit` queues a call's :class:`PendingWrite` and waits for it. One writer
    task takes every write queued while the previous transaction ran (at most
    ``max_group``), seals their events together on the event loop (:meth:`seal`: one
    seal per producer for the group, so a hand dealt through the gateway carries about
    one seal, not one per call) and stores them in ONE transaction, in the writer
    process (:attr:`writer`, :mod:`croupier.store.writer`) or a worker thread
    (:func:`asyncio.to_thread`), so the event loop keeps serving the other tables. When
    that transaction fails, each write of the group is tried again in a transaction of
    its own (and sealed anew, alone), so a write the store refuses (a stale fencing
    token, a request id already recorded...) fails only its own call; a store outage
    fails the whole group at once (trying each write would only meet the same outage).
    A small group waits ``linger_s`` before it is stored while calls at other tables
    are under way (``CROUPIER_DEALER_COMMIT_LINGER_MS``, 1 ms by default in the
    service): at 64 tables and 500 hands/s, 1 ms gave 1.2–1.3 → 1.6–1.7 calls a commit,
    1.51–1.62 → 1.17–1.26 seals a hand and −8 to −9 % of the dealer's CPU a hand for
    +0.5 ms of a coup's p50 (docs/performance.md, "The group commit's linger").
    Each caller's future gets its own outcome; nothing of a failed write is stored (its
    transaction rolled back). Writes of one table are never in one group: a call holds
    its table's lock until its write is settled.
    """

    def __init__(
        self,
        store: EventStore,
        box: SeedBox,
        *,
        max_group: int = 256,
        grants: GrantCache | None = None,
        dealer: Dealer | None = None,
        held: HeldMessages | None = None,
        published: Published | None = None,
        linger_s: float = 0.0,
        busy: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self.box = box
        self.dealer = dealer  # seals the writes' events (None: they come sealed)
        self.held = held  # the relay's: the bytes of the messages written by reference
        self.published = published  # the relay's: rows it published, deleted here
        self.grants = grants  # told of the tables whose remembered grants went stale
        self.max_group = max_group
        # the transactions' process (CROUPIER_DEALER_WRITER=process); None: a thread
        self.writer: WriterProcess | None = None
        # SQLite in memory keeps a connection per thread (or one for all): write there on
        # the loop, as the other writers of that store do
        self.off_loop = not isinstance(store.engine.pool, (SingletonThreadPool, StaticPool))
        self._queue: list[PendingWrite] = []
        self._task: asyncio.Task[None] | None = None
        self.groups = 0  # transactions that committed a group
        self.writes = 0  # writes committed
        self.retried = 0  # groups whose writes were tried again one by one
        # a small group waits this long for more calls while other tables are busy
        # (:meth:`_should_linger`); 0: never
        self.linger_s = linger_s
        self.busy = busy or (lambda: 0)
        self.lingered = 0  # groups that waited

    @property
    def queued(self) -> int:
        """Writes waiting for the next transaction."""
        return len(self._queue)

    def seal(self, writes: Sequence[PendingWrite]) -> Batch:
        """Seal the events ``writes`` left unsealed, together (:meth:`Dealer.seal`: one
        seal per producer), and make the outbox rows of the hands they close, whose
        messages carry those seals. On the event loop: it reads the hands. The seals are
        given to the open hands only once stored (:meth:`stored`)."""
        b = Batch()
        for w in writes:
            b.unsealed += w.unsealed
        if self.dealer is not None:
            self.dealer.seal(b)
        for w in writes:
            w.outbox = [
                OutboxItem(
                    "dealer",
                    subjects.subject("hand", h.state.variant, h.table_id),
                    f"hand:{h.hand_id}",
                    wire.encode("hand", h.events, seals),
                    OutboxRef.of("hand", h.events, seals),
                )
                for h in w.closed
                for seals in [b.seals_of(h)]
            ]
        return b

    def holding(
        self, writes: Sequence[PendingWrite]
    ) -> contextlib.AbstractContextManager[frozenset[str]]:
        """The relay keeps the bytes of the writes' messages (room permitting), those
        rows written by reference, until the block fails (:meth:`HeldMessages.holding`)."""
        if self.held is None:
            return contextlib.nullcontext(frozenset())
        return self.held.holding([it for w in writes for it in w.outbox])

    def stored(self, sealed: Batch) -> None:
        """``sealed`` (:meth:`seal`) is stored: the hands still open keep its seals."""
        if self.dealer is not None:
            self.dealer.committed(sealed)

    def write_now(
        self,
        writes: Sequence[PendingWrite],
        seals: Sequence[Seal] = (),
        held: frozenset[str] = frozenset(),
        published: Sequence[OutboxRow] = (),
    ) -> set[str]:
        """Store ``writes`` and the group's ``seals`` in one transaction (in the calling
        thread), the messages in ``held`` by reference, deleting the outbox rows
        ``published``; the tables whose remembered grants went stale
        (:func:`check_grants`)."""
        return write_group(self.store, self.box, writes, seals, held, published)

    def deleting(self) -> contextlib.AbstractContextManager[list[OutboxRow]]:
        """The rows the relay published, for the next transaction to delete (given back
        if it fails: :meth:`Published.riding`). On the event loop."""
        if self.published is None:
            return contextlib.nullcontext([])
        return self.published.riding()

    def store_now(self, writes: Sequence[PendingWrite]) -> set[str]:
        """Seal ``writes`` and store them in one transaction, in the calling thread."""
        sealed = self.seal(writes)
        with self.holding(writes) as held, self.deleting() as published:
            stale = self.write_now(writes, sealed.seals, held, published)
        self.stored(sealed)
        return stale

    def submit(self, w: PendingWrite) -> asyncio.Future[None]:
        """Queue ``w``; the future is settled once it is stored or refused."""
        loop = asyncio.get_running_loop()
        w.done = loop.create_future()
        self._queue.append(w)
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())
        return w.done

    async def _store(self, writes: Sequence[PendingWrite]) -> None:
        sealed = self.seal(writes)
        # a failed (or cancelled: unknown) write gives the bytes up; its rows, if any
        # were stored, are rebuilt from the store
        with self.holding(writes) as held, self.deleting() as published:
            if self.writer is not None:
                restarts = self.writer.restarts
                try:
                    stale = await self.writer.run(
                        write_group, writes, sealed.seals, held, list(published)
                    )
                finally:
                    if self.writer.restarts != restarts:
                        metrics.WRITER_RESTARTS.inc(self.writer.restarts - restarts)
            elif self.off_loop:
                stale = await asyncio.to_thread(
                    self.write_now, writes, sealed.seals, held, published
                )
            else:
                stale = self.write_now(writes, sealed.seals, held, published)
        self.stored(sealed)
        if self.grants is not None:  # on the loop, like every use of the grants
            for t in stale:
                self.grants.forget(t)

    def _should_linger(self) -> bool:
        """Whether to wait :attr:`linger_s` before storing the queue: a group with room
        while calls at other tables are under way (:attr:`busy` counts the tables with a
        call in progress, a queued write's among them), which may join it. A call alone
        never waits: nobody else could join its group."""
        n = len(self._queue)
        return bool(self.linger_s) and n < self.max_group and self.busy() > n

    async def _run(self) -> None:
        while self._queue:
            if self._should_linger():
                self.lingered += 1
                await asyncio.sleep(self.linger_s)
            group = self._queue[: self.max_group]
            del self._queue[: len(group)]
            try:
                try:
                    await self._store(group)
                except Exception as e:
                    if len(group) == 1 or store_outage(e) is not None:
                        for w in group:
                            self._settle(w, _own(e))
                        continue
                    self.retried += 1
                    for w in group:
                        try:
                            await self._store([w])
                        except Exception as e1:
                            self._settle(w, e1)
                        else:
                            self.groups += 1
                            self._settle(w, None)
                else:
                    self.groups += 1
                    for w in group:
                        self._settle(w, None)
            except BaseException:  # cancelled (shutdown): whether it committed is unknown
                for w in group + self._queue:
                    self._settle(w, StoreUnavailable("the dealer stopped while storing the call"))
                self._queue.clear()
                raise

    def _settle(self, w: PendingWrite, err: BaseException | None) -> None:
        if w.done is None or w.done.done():
            return
        if err is None:
            self.writes += 1
            w.done.set_result(None)
        else:
            w.done.set_exception(err)


def _own(e: Exception) -> BaseException:
    """An exception of its own for each caller of a failed group (one exception object
    raised in several tasks would pile up their tracebacks): a store outage as a fresh
    :class:`StoreUnavailable`; anything else as it is."""
    return store_outage(e) or e


async def through(aw: Awaitable[T]) -> T:
    """Await ``aw`` (run as a task of its own) to its end even if the caller is
    cancelled meanwhile, then deliver the cancellation: a call's commit, once its
    batch is made, is never abandoned half way (its table stays locked until the
    store's answer is known and, on a failure, the table is rebuilt)."""
    task = asyncio.ensure_future(aw)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return result


class DealerCore:
    """Persist-then-publish around the pure dealer; shared by gRPC and in-process drivers.

    Locking. Every change to one table — a gateway call, a turn the dealer's clock
    plays, a rebuild from the log — holds that table's lock (:meth:`table_lock`) from
    its first look at the table (for a gateway call: the request id's stored result)
    until its batch is stored or refused and, on a refusal, the table is rebuilt: calls
    at one table are strictly serialised, calls at different tables run concurrently
    (the pure :class:`Dealer` keeps each table's state apart, and asyncio runs the
    in-memory changes between two awaits without interleaving). :attr:`lock`, the
    dealer-wide lock, is taken only by the dealer's own passes over all its tables (a
    turn-clock sweep, a lease renewal, :meth:`recover`), which never run at once; they
    too take a table's lock before touching it. Order: the dealer-wide lock, then one
    table's lock; nothing waits for the dealer-wide lock while holding a table's, and
    nothing holds two tables' locks.

    Storing. A call's batch goes to :class:`GroupCommitter`: the batches submitted while
    the previous transaction ran are stored together in one transaction, off the event
    loop; a refused batch fails only its own call (see there). A call with a request id
    is known here (:meth:`request_settled`) from the moment its batch is submitted until
    the store has answered, so a concurrent call with the same id waits for that answer
    and then reads the stored result.
    """

    def __init__(
        self, dealer: Dealer, store: EventStore, bus: Bus | None, *, seed_box: SeedBox
    ) -> None:
        self.dealer = dealer
        dealer.seal_on_commit = True  # each commit seals what it holds (see persist)
        self.store = store
        self.bus = bus
        self.seed_box = seed_box  # seals server seeds at rest (the dealer's key only)
        self.lock = asyncio.Lock()  # the dealer-wide passes (see the class docstring)
        self.table_locks = TableLocks()
        self.grants = GrantCache(store)  # table grants, for the interceptor
        self.committer = GroupCommitter(
            store, seed_box, grants=self.grants, dealer=dealer, busy=self.table_locks.__len__
        )
        # request id -> settled when the call's batch is stored or refused
        self._in_flight: dict[str, asyncio.Future[None]] = {}
        # table -> the gateway whose OpenTable of it is being stored: the table is in
        # memory before its opening is committed and its grant recorded, and meanwhile
        # the authentication interceptor counts that gateway as its owner
        # (:class:`croupier_services.security.DealerResources`)
        self.opening: dict[str, str] = {}
        self.feed = FeedHub(store)
        self.last_move_ms: dict[str, int] = {}  # open hand -> when its last event was made
        self.relay: OutboxRelay = relay_for(store, lambda: self.bus, "dealer")
        self.committer.held = self.relay.held  # its messages written by reference
        self.committer.published = self.relay.acked  # its commits delete what it sent
        self._resyncing: dict[str, asyncio.Task[None]] = {}
        # table -> the fencing token of this replica's lease on it; a table listed here
        # is written only with its token checked in the same transaction (empty: a
        # single dealer, no leases)
        self.fences: dict[str, int] = {}
        self.ownership: Ownership | None = None  # set on a replica (CROUPIER_DEALER_ID)
        dealer.past_table = self.past_table
        # why the dealer's own signing key may not sign now (revoked), or None
        self.signing_check: Callable[[], str | None] | None = None

    def write_in_process(self) -> WriterProcess:
        """Run the group commits in a writer process from now on
        (``CROUPIER_DEALER_WRITER=process``, :mod:`croupier.store.writer`); it is
        started here (this blocks until its store is open: from an event loop, call it
        in a thread). The caller closes it (``committer.writer.close()``) at the end."""
        writer = WriterProcess(self.store, self.seed_box)
        writer.start()
        self.committer.writer = writer
        return writer

    def table_lock(self, table_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``table_id``'s lock for the ``async with`` block."""
        return self.table_locks.hold(table_id)

    async def request_settled(self, request_id: str) -> None:
        """Wait until no call with ``request_id`` is being stored (its record, if it
        was stored, is then in the store)."""
        while (f := self._in_flight.get(request_id)) is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(f)

    def check_signing_key(self) -> None:
        """Refuse to write (:class:`SigningKeyRevoked`) once the trusted keyring revokes
        a key this dealer signs with; counted and logged."""
        why = self.signing_check() if self.signing_check is not None else None
        if why is not None:
            metrics.SIGNING_KEY_REFUSALS.labels("dealer").inc()
            log.error("write refused: %s", why)
            raise SigningKeyRevoked(why)

    async def expire(self, hand_id: str, source: str) -> Batch:
        """Play the rules' automatic move for the seat a hand waits on (托管); ``source``
        is who decided the turn timed out (``gateway`` or the dealer's own ``clock``).
        Call with the hand's table's lock held."""
        h = self.dealer.hand(hand_id)
        b = self.dealer.expire(hand_id)
        await self.commit(h.table_id, b)
        metrics.TURN_TIMEOUTS.labels(h.state.variant, source).inc()
        return b

    async def expire_overdue(self, now_ms: int) -> int:
        """The dealer's own turn clock: every open hand of a variant with a
        ``timeouts.turn_ms`` whose last event is older than that and that waits on a
        player gets the rules' automatic move. Returns how many turns were played."""
        n = 0
        for hid in list(self.dealer.hands):
            hand = self.dealer.hands.get(hid)
            if hand is None:
                continue
            async with self.lock, self.table_lock(hand.table_id):
                if self.dealer.hands.get(hid) is not hand:
                    continue  # closed (or the table rebuilt) meanwhile
                if self.ownership is not None and hand.table_id not in self.ownership.leases:
                    continue  # another replica's table (or not yet taken): not ours to time
                limit = turn_timeout_ms(hand.state.variant)
                if limit is None or now_ms - self.last_move_ms.setdefault(hid, now_ms) < limit:
                    continue
                if engine_for(hand.state.variant).auto_action(hand.state) is None:
                    continue
                await self.expire(hid, "clock")
                n += 1
        return n

    async def run_turn_clock(self, stop: asyncio.Event, tick_s: float = 0.25) -> None:
        """Sweep for overdue turns until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self.expire_overdue(self.dealer.clock_ms())
            except Exception:  # a failed sweep is logged; the next one retries
                log.exception("turn clock sweep failed")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), tick_s)

    async def run_lease_renewal(self, stop: asyncio.Event) -> None:
        """Renew this replica's table leases every third of their lifetime until
        ``stop`` is set. A table whose lease was lost (it expired, e.g. while this
        process was paused, and another replica took it) is dropped from memory: the
        next call on it here is routed to the new owner, or takes the table again and
        rebuilds it from the log."""
        own = self.ownership
        if own is None:
            return
        tick_s = max(own.ttl_ms / 3000, 0.01)
        while not stop.is_set():
            try:
                held = own.held()
                # the store's transaction off the event loop: calls at every table go on
                # while it runs (or waits on a lease row another transaction holds)
                answer = await asyncio.to_thread(own.renew, held)
                async with self.lock:
                    lost = own.apply_renewal(held, answer)
                    for t in lost:
                        async with self.table_lock(t):
                            if t not in own.leases:  # not taken again meanwhile
                                self.drop(t)
                for t in lost:
                    metrics.LEASES_LOST.inc()
                    log.warning("lease on table %s lost; table dropped from memory", t)
                await self.adopt_orphans()
            except Exception:  # the store is down: the next tick retries
                log.exception("renewing table leases failed")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), tick_s)

    async def recover(
        self, republish_window_ms: int = 86_400_000, *, republish: bool = True
    ) -> tuple[int, int]:
        """After a restart: resume every open table from the registry (its row, its
        current shoe and its last one or two hands; nothing else of its history), and
        republish hands closed within the window that never got an outcome (the publish
        after commit may have been lost). A replica (:attr:`ownership` set) restores no
        table here: each is rebuilt from the log when the replica takes it. Returns
        (tables restored, hands republished). What the restore reads grows with the open
        tables, not with the log; the republish reads every hand opened in the window,
        so a service starts with ``republish=False`` and runs :meth:`republish_pages`
        in the background (its start does not wait on a day of hands)."""
        async with self.lock:
            return await self._recover(republish_window_ms if republish else None)

    async def _recover(self, republish_window_ms: int | None) -> tuple[int, int]:
        tables = 0
        page: list[TableRecord] = []
        # a replica loads a table when it takes it (:meth:`take`), not at start: what it
        # would load of another replica's table would be stale by the time it is used
        replica = self.ownership is not None
        for rec in () if replica else self.store.open_tables():
            page.append(rec)
            if len(page) == 500:
                tables += self._restore_all(page)
                page = []
        tables += self._restore_all(page)
        republished = 0
        if republish_window_ms is not None:
            republished = await self.republish_pages(republish_window_ms)
        if tables or republished:
            log.info("recovered %d tables, republished %d hands", tables, republished)
        return tables, republished

    async def republish_pages(
        self,
        window_ms: int = 86_400_000,
        step_ms: int = 60_000,
        *,
        stop: asyncio.Event | None = None,
    ) -> int:
        """Publish again the hands opened in the last ``window_ms`` whose log ends in
        ``hand.closed`` (no rule service has answered them), read in slices of
        ``step_ms`` of opening time (the last one open-ended), each in a worker thread
        (the event loop keeps serving calls meanwhile), oldest first, until ``stop`` is
        set. Returns the hands republished."""
        now = self.dealer.clock_ms()
        total = 0
        try:
            for start in range(now - window_ms, now + 1, step_ms):
                if stop is not None and stop.is_set():
                    break
                # the last slice is open-ended: a hand another replica's clock dated
                # ahead of this one's is still found
                end = None if start + step_ms > now else start + step_ms
                if self.committer.off_loop:
                    waiting = await asyncio.to_thread(
                        self.store.closed_hands_without_outcome, start, end
                    )
                else:
                    waiting = self.store.closed_hands_without_outcome(start, end)
                total += await self._republish(waiting)
        except Exception as err:  # a background task: say why it stopped, keep serving
            log.warning("republish stopped after %d hands: %s", total, err)
            return total
        if total:
            log.info("republished %d hands closed without an outcome", total)
        return total

    async def _republish(self, waiting: Sequence[StreamInfo]) -> int:
        """Publish again ``waiting``: hands whose log ends in ``hand.closed`` (no rule
        service has answered them)."""
        if not waiting:
            return 0
        ids = [r.stream_id for r in waiting]
        loaded = self.store.read_streams(ids)
        seals = self.store.seals_for_streams(ids)
        # through the outbox: a start never waits on NATS (the stream's duplicate window
        # and the consumers' idempotency absorb a hand that was in fact delivered)
        Outbox(self.store.engine).enqueue(
            [
                OutboxItem(
                    "dealer",
                    subjects.subject("hand", r.variant, r.table_id),
                    f"hand:{r.stream_id}",
                    wire.encode("hand", loaded[r.stream_id], seals.get(r.stream_id, [])),
                )
                for r in waiting
            ],
            self.dealer.clock_ms(),
        )
        self.relay.kick()
        return len(waiting)

    def _restore_all(self, records: Sequence[TableRecord]) -> int:
        """Rebuild a page of open tables with a few batched reads."""
        if not records:
            return 0
        wanted: list[str] = []
        for r in records:
            if r.shoe_id:
                wanted.append(r.shoe_id)
            wanted += [hand_id_for(r.table_id, n) for n in (r.hand_count, r.hand_count - 1) if n]
        logs = self.store.read_streams(wanted)
        open_hands = [r.hand_id for r in records if r.hand_id]
        seals = self.store.seals_for_streams(open_hands) if open_hands else {}
        for r in records:
            shoe_events = logs.get(r.shoe_id, []) if r.shoe_id else []
            revealed = any(e.type == g.SHOE_REVEALED for e in shoe_events)
            seed = (
                self.store.get_secret(r.shoe_id, self.seed_box)
                if r.shoe_id and not revealed
                else None
            )
            hands = [
                (logs.get(h, []), seals.get(h, []))
                for h in (hand_id_for(r.table_id, n) for n in (r.hand_count - 1, r.hand_count))
                if logs.get(h)
            ]
            t = restore_table(self.dealer, self._row(r), shoe_events, seed, hands)
            if t.hand is not None:
                # the turn clock of a restored hand runs from its last sealed event
                last = max((s.sealed_at_ms for s in t.hand.seals), default=None)
                self.last_move_ms[t.hand.hand_id] = (
                    last if last is not None else self.dealer.clock_ms()
                )
        return len(records)

    def past_table(self, table_id: str) -> TableRow | None:
        """The registry's row of a table this dealer does not hold (see
        :attr:`Dealer.past_table`)."""
        rec = self.store.get_table(table_id)
        return None if rec is None else self._row(rec)

    @staticmethod
    def _row(r: TableRecord) -> TableRow:
        return TableRow(
            r.table_id,
            r.variant,
            r.client_seed,
            r.open,
            r.shoe_id,
            r.shoe_count,
            r.hand_count,
            r.hand_id,
            dict(r.carry),
        )

    def _record(self, r: TableRow) -> TableRecord:
        return TableRecord(
            r.table_id,
            r.variant,
            r.client_seed,
            "open" if r.open else "closed",
            r.shoe_id,
            r.shoe_count,
            r.hand_count,
            r.hand_id,
            dict(r.carry),
            self.dealer.clock_ms(),
        )

    def drop(self, table_id: str) -> None:
        """Forget a table's in-memory state (and its fencing token and grants)."""
        self.fences.pop(table_id, None)
        self.grants.forget(table_id)
        t = self.dealer.tables.pop(table_id, None)
        if t is not None and t.hand is not None:
            self.dealer.hands.pop(t.hand.hand_id, None)
            self.last_move_ms.pop(t.hand.hand_id, None)

    async def adopt_orphans(self, limit: int = 100) -> list[str]:
        """Take the open tables whose owner stopped renewing (died, or drained) while a
        hand was unfinished and whose variant has a turn clock: no gateway call may come
        to move them (every seat waits on the clock), so a replica must own them for the
        clock to play the overdue turn. Tables without a clock are left to the next
        call on them, which lands on whichever replica the gateway reaches. Replicas
        race on the lease's compare-and-set; the losers are routed like any caller.
        Returns the tables taken."""
        own = self.ownership
        if own is None:
            return []
        taken: list[str] = []
        for table_id, variant in self.store.orphaned_tables(own.clock_ms(), limit):
            if turn_timeout_ms(variant) is None or table_id in own.leases:
                continue
            async with self.lock, self.table_lock(table_id):  # the locking rule's order
                try:
                    await self.take(table_id)
                except TableOwnedElsewhere:
                    continue  # another replica adopted it first
            taken.append(table_id)
            log.info("adopted table %s, left with an unfinished hand by its owner", table_id)
        return taken

    async def take(self, table_id: str) -> None:
        """On a replica, before a call on ``table_id`` touches memory: make sure this
        replica holds the table's lease. A lease it holds and believes live is used as
        is (the write's fence is the final check). Otherwise the lease is claimed —
        another replica's live lease raises :class:`TableOwnedElsewhere` (the caller is
        routed there), an expired or released one is taken — and, when that is a new
        tenure (a new token), the table is rebuilt from the log, open hand and bets
        included: whatever this replica held in memory may be older than what the
        previous owner wrote. The claim's transaction runs off the event loop (it may
        wait on the lease row a paused holder keeps locked), the rest on it. Call with
        the table's lock held."""
        own = self.ownership
        if own is None:
            return
        held = own.leases.get(table_id)
        if held is not None and held.live(own.clock_ms()) and table_id in self.fences:
            return
        lease = await asyncio.to_thread(own.acquire, table_id)
        own.leases[table_id] = lease
        if held is not None and held.token == lease.token and table_id in self.fences:
            return
        self.drop(table_id)
        rec = self.store.get_table(table_id)
        if rec is not None and rec.open:
            self._restore_all([rec])
        self.fences[table_id] = lease.token
        log.info(
            "table %s taken with fencing token %d, rebuilt from the log", table_id, lease.token
        )
        metrics.LEASES_TAKEN.inc()

    def resync(self, table_id: str) -> None:
        """Forget a table's in-memory state and rebuild it from the store: after a failed
        commit the dealer's memory is ahead of the log and must not be built upon. Call
        with the table's lock held."""
        fence = self.fences.get(table_id)
        self.drop(table_id)
        if fence is not None:
            self.fences[table_id] = fence
        rec = self.store.get_table(table_id)
        if rec is not None and rec.open:
            self._restore_all([rec])

    def rebuild_pending(self, table_id: str) -> None:
        """Rebuild now a table whose rebuild after a failed commit still waits for the
        store (:meth:`_resync_later`), so a call there is not told the table is unknown:
        it goes on at the rebuilt table, or fails as the store does (UNAVAILABLE while it
        is down). Call with the table's lock held."""
        task = self._resyncing.get(table_id)
        if task is None:
            return
        self.resync(table_id)
        task.cancel()
        self._resyncing.pop(table_id, None)
        log.info("table %s rebuilt from the log", table_id)

    def _resync_later(self, table_id: str, max_backoff_s: float = 5.0) -> None:
        """Retry :meth:`resync` in the background until the store answers (the table
        is unknown meanwhile: calls on it fail with NOT_FOUND, none is built on a
        memory ahead of the log)."""
        if table_id in self._resyncing:
            return

        async def retry() -> None:
            delay = 0.2
            try:
                while True:
                    await asyncio.sleep(delay)
                    try:
                        async with self.table_lock(table_id):
                            self.resync(table_id)
                        log.info("table %s rebuilt from the log", table_id)
                        return
                    except Exception as e:
                        log.warning("rebuilding table %s failed (%s); retrying", table_id, e)
                        delay = min(max_backoff_s, delay * 2)
            finally:
                self._resyncing.pop(table_id, None)

        self._resyncing[table_id] = asyncio.get_running_loop().create_task(retry())

    def persist(
        self, b: Batch, request: RequestRecord | None = None, table_id: str | None = None
    ) -> None:
        """One transaction, in the calling thread: the fencing check of each leased
        table it touches, the batch's table rows, secrets, events and seals, its closed
        hands' outbox rows, and the gateway call's request record (its stored result)
        when the call has a request id."""
        w = self.prepare(b, request, table_id)
        if w is not None:
            self.committer.store_now([w])  # sealed; the open hands keep the seals

    def prepare(
        self,
        b: Batch,
        request: RequestRecord | None = None,
        table_id: str | None = None,
        grant: GrantCheck | None = None,
    ) -> PendingWrite | None:
        """What :meth:`persist` writes for the batch, taken from memory now (None: nothing
        to write; a call admitted on remembered grants always has its ``grant`` checked)."""
        if b.empty() and request is None and grant is None:
            return None
        fenced = {r.table_id for r in b.tables} | {r.table_id for r in b.streams}
        if table_id is not None:
            fenced.add(table_id)
        return PendingWrite(
            table_id=table_id or "",
            fences=[(t, self.fences[t]) for t in sorted(fenced & self.fences.keys())],
            tables=[self._record(r) for r in b.tables],
            secrets=list(b.secrets),
            at_ms=self.dealer.clock_ms(),
            events=list(b.events),
            seals=list(b.seals),
            streams=[
                StreamInfo(r.stream_id, r.kind, r.variant, r.table_id, r.shoe_id, r.opened_at_ms)
                for r in b.streams
            ],
            request=request,
            grant=grant,
            unsealed=list(b.unsealed),  # sealed with the group it is stored in
            closed=list(b.closed_hands) if b.events else [],
        )

    async def commit(
        self,
        table_id: str,
        b: Batch,
        request: RequestRecord | None = None,
        grant: GrantCheck | None = None,
    ) -> None:
        """Store the batch (with the call's request record and its closed hands' outbox
        rows), feed the table's watchers, wake the outbox relay. If the store refuses the
        batch, the table is rebuilt from what the store holds and the error goes back to
        the caller (nothing of the batch took effect). Once the store has committed,
        nothing here fails the call: publishing is the relay's, outside the call. A call
        admitted on the grants kept in memory has them checked in the commit's
        transaction (``grant``, :func:`check_grants`). Call with the table's lock held;
        a cancelled caller's commit still runs to its end (:func:`through`)."""
        settled: asyncio.Future[None] | None = None
        if request is not None:  # known at once: no await since its id was looked up
            settled = asyncio.get_running_loop().create_future()
            self._in_flight[request.request_id] = settled
        await through(self._commit(table_id, b, request, settled, grant))

    async def _commit(
        self,
        table_id: str,
        b: Batch,
        request: RequestRecord | None,
        settled: asyncio.Future[None] | None,
        grant: GrantCheck | None = None,
    ) -> None:
        rid = request.request_id if request is not None else None
        try:
            try:
                self.check_signing_key()  # nothing signed by a revoked key is written
                if self.ownership is not None:  # the table's lease (claimed if not held live)
                    token = self.ownership.lease_for(table_id).token
                    prev = self.fences.get(table_id)
                    if prev is not None and prev != token:
                        # a new tenure since this table was loaded: memory may be stale
                        self.fences.pop(table_id, None)
                        raise StaleFencingToken(
                            f"table {table_id} was loaded under token {prev}, now {token}",
                            table_id=table_id,
                            token=prev,
                            current=token,
                        )
                    self.fences[table_id] = token
                w = self.prepare(b, request, table_id, grant)
                if w is not None:
                    await self.committer.submit(w)
            except BaseException as e:
                if isinstance(e, PermissionDenied):  # revoked since its grants were read
                    self.grants.forget(table_id)
                    log.warning("commit refused at table %s: %s", table_id, e.message)
                    metrics.AUTH_REFUSED.labels("gateway", e.reason).inc()
                elif isinstance(e, IdempotencyConflict):  # a retried call: answered from its record
                    log.info("request id already recorded at table %s; rebuilding it", table_id)
                else:
                    log.exception("commit failed at table %s; rebuilding it from the log", table_id)
                try:
                    self.resync(table_id)
                except Exception:  # the store is down: rebuild the table when it is back
                    self._resync_later(table_id)
                raise
        finally:
            if rid is not None and settled is not None:
                if self._in_flight.get(rid) is settled:
                    del self._in_flight[rid]
                settled.set_result(None)
        self._committed(b)

    def _committed(self, b: Batch) -> None:
        """After the store committed ``b`` (its seals are the open hands' already:
        :meth:`GroupCommitter.stored`): the feed, leases of closed tables, the turn clock,
        the relay, the counters."""
        self.feed.notify()
        for r in b.tables:
            if not r.open:  # closed: nothing of the table stays (fencing token, lease)
                self.fences.pop(r.table_id, None)
                if self.ownership is not None:
                    try:
                        self.ownership.release(r.table_id)
                    except Exception:  # committed already; the lease just expires
                        log.warning("could not release the lease of closed table %s", r.table_id)
        now = self.dealer.clock_ms()
        for e in b.events:
            if e.stream in self.dealer.hands:
                self.last_move_ms[e.stream] = now
        for h in b.closed_hands:
            self.last_move_ms.pop(h.hand_id, None)
        if b.closed_hands:
            self.relay.kick()  # the relay publishes; nobody waits on it
            metrics.EVENTS_PUBLISHED.labels("dealer").inc(
                sum(len(h.events) for h in b.closed_hands)
            )
        for h in b.closed_hands:
            metrics.HANDS_DEALT.labels(h.state.variant).inc()


def turn_timeout_ms(variant: str) -> int | None:
    """How long the dealer waits on a player before playing the automatic move: the
    variant's ``timeouts.turn_ms`` (None: only the gateway's ExpireTurn times out)."""
    t = engine_for(variant).config.raw.get("timeouts", {})
    v = t.get("turn_ms") if isinstance(t, dict) else None
    return int(v) if v is not None else None


async def prune_request_ids(
    store: EventStore,
    retention_ms: int,
    stop: asyncio.Event,
    clock_ms: Callable[[], int] = now_ms,
    every_s: float = 60.0,
) -> None:
    """Until ``stop`` is set, every ``every_s`` remove the gateway request records older
    than ``retention_ms`` (their ids may then be used again)."""
    while not stop.is_set():
        try:
            prune_requests_once(store, clock_ms() - retention_ms)
        except Exception:  # the next sweep retries
            log.exception("pruning request ids failed")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)


def prune_requests_once(store: EventStore, before_ms: int, batch: int = 10_000) -> int:
    """Remove every request record created before ``before_ms``, ``batch`` per
    transaction; returns how many."""
    total = 0
    while (n := store.prune_requests(before_ms, batch)) > 0:
        total += n
        if n < batch:
            break
    metrics.REQUESTS_PRUNED.inc(total)
    return total


def _bets_of(bets: Iterable[gateway_pb2.Bet]) -> list[dict[str, Any]]:
    """A request's bets, within the edge limits, as the dealer takes them (PlaceBets and
    OpenHand's bets)."""
    rows = limits.bets([limits.BetIn(b.seat, b.spot, b.amount_minor) for b in bets])
    return [{"seat": b.seat, "spot": b.spot, "amount": b.amount} for b in rows]


def _body(request: Message) -> bytes:
    """The request as it is compared across retries: every field but ``request_id``."""
    m = type(request)()
    m.CopyFrom(request)
    m.ClearField("request_id")
    return m.SerializeToString(deterministic=True)


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    """The gateway API. Each mutating call: edge limits (:mod:`croupier.limits`), then,
    under its table's lock (:meth:`DealerCore.table_lock`; calls at other tables go on
    meanwhile; a call with the same request id still being stored is waited for first),
    the optimistic ``expected_seq`` check, the dealer's move, and one commit holding the
    events and the call's result (stored in a group with other tables' calls,
    :class:`GroupCommitter`). A request id is not looked up before the call: its
    record's insert, in the commit, finds an id already taken and refuses the whole
    write (nothing of the retried move is stored; the table is rebuilt from the log);
    whenever a call with a request id fails, the id's record, if any, answers it
    instead (:meth:`_recorded`: the same response as the first time, or
    ``idempotency_conflict`` for a different request). Who may call what is decided
    before any of this by the authentication interceptor (:mod:`croupier.auth`), on
    table grants the commit checks again (:mod:`croupier_services.grants`)."""

    def __init__(
        self,
        core: DealerCore,
        seat_tokens: SeatTokens | None = None,
        *,
        require_request_id: bool = False,
    ) -> None:
        self.core = core
        self.seat_tokens = seat_tokens
        self.require_request_id = require_request_id

    @property
    def dealer(self) -> Dealer:
        return self.core.dealer

    async def _once(
        self,
        method: str,
        request: Any,
        context: grpc.aio.ServicerContext,
        response_type: type[R],
        apply: Callable[[], tuple[str, Batch, R]],
        hand_id: str | None = None,
        done: Callable[[], None] | None = None,
        *,
        table: str | None = None,
    ) -> R:
        """Run ``apply`` (returning the table, the batch and the response) at most once
        per request id, then ``done`` once it is committed; see the class docstring."""
        rid: str = request.request_id
        if rid:
            limits.request_id(rid)
        elif self.require_request_id:
            raise FieldRejected(
                "request_id is required on mutating calls",
                reason="request_id_required",
                field="request_id",
            )
        else:
            metrics.GATEWAY_NO_REQUEST_ID.labels(method).inc()
        owned = table if table is not None else self._table_of(hand_id)
        # a hand id naming no table matches no hand: its call only fails, under a lock
        # of its own (no table id has a ':')
        async with self.core.table_lock(owned if owned is not None else f"hand:{hand_id}"):
            digest = b""
            if rid:
                digest = request_hash(method, _body(request))
                await self.core.request_settled(rid)  # the same id in flight elsewhere
            # the interceptor's grants for the call's table, checked again in the commit
            grant = self.core.grants.check_for(owned) if owned is not None else None
            try:
                if owned is not None:
                    self.core.rebuild_pending(owned)  # after a failed commit, if not yet
                if self.core.ownership is not None and owned is not None:
                    await self.core.take(owned)  # a replica: the table is ours, or routed
                if hand_id is not None and request.HasField("expected_seq"):
                    expected = limits.expected_seq(request.expected_seq)
                    last = self.dealer.hand(hand_id).writer.next_seq - 1
                    if expected != last:
                        raise StaleSequence(
                            f"hand {hand_id} is at seq {last}, not {expected}",
                            expected=expected,
                            actual=last,
                        )
                # the table ``apply`` changes is ``owned``: a hand in memory is looked up
                # by the same id, and a hand's id names its table (``_table_of``)
                table_id, b, resp = apply()
                record = None
                if rid:
                    record = RequestRecord(
                        rid,
                        method,
                        digest,
                        resp.SerializeToString(deterministic=True),
                        self.dealer.clock_ms(),
                    )
                await self.core.commit(table_id, b, record, grant)  # on failure: rebuilt
            except Exception as e:
                if grant is not None and not isinstance(e, PermissionDenied):
                    self._still_holds(grant)  # refused: the refusal, not the call's error
                stored = self._recorded(e, rid, method, digest, grant) if rid else None
                if stored is None:
                    raise
                metrics.GATEWAY_REPLAYS.labels(method).inc()
                context.set_trailing_metadata((("croupier-replayed", "true"),))
                return response_type.FromString(stored)
        if done is not None:
            done()
        return resp

    def _recorded(
        self, e: Exception, rid: str, method: str, digest: bytes, grant: GrantCheck | None
    ) -> bytes | None:
        """After the call with ``rid`` failed with ``e``: the response stored for the
        same request under that id (the call is a retry: answered as the first time,
        nothing of this attempt stored — the record's insert refused it in the commit,
        or the table has moved on and the move itself was refused); ``None`` when there
        is no record (``e`` stands). A different request under the id is refused
        (:class:`IdempotencyConflict`). Nothing is looked up for a caller refused its
        table (a caller admitted on remembered grants was checked against the store
        first, :meth:`_still_holds`)."""
        if isinstance(e, PermissionDenied):
            return None
        try:
            record = self.core.store.get_request(rid)
        except Exception:
            return None  # the store cannot answer now: the call's own error stands
        if record is None:
            return None
        return replay(record, method, digest)

    def _still_holds(self, grant: GrantCheck) -> None:
        """After a call admitted on the grants in memory failed before its commit could
        check them: :class:`PermissionDenied` if the caller no longer holds the table (a
        revoked gateway learns nothing of the table from the call's own error), read
        from the store; the call's own error stands if the store cannot answer."""
        try:
            owners = self.core.grants.load(grant.table_id).owners
        except Exception:
            return
        if grant.gateway not in owners:
            metrics.AUTH_REFUSED.labels("gateway", "not_your_table").inc()
            raise not_your_table(grant.table_id, grant.gateway)

    def _table_of(self, hand_id: str | None) -> str | None:
        """The table a hand is dealt at: from memory, else from its id (``<table>_h<n>``,
        see :func:`croupier.dealing.hand_id_for`), so a call on a hand this replica never
        loaded takes (or is routed by) the hand's table."""
        if hand_id is None:
            return None
        h = self.dealer.hands.get(hand_id)
        if h is not None:
            return h.table_id
        table, sep, n = hand_id.rpartition("_h")
        return table if sep and table and n.isdigit() else None

    @rpc("OpenTable")
    async def OpenTable(
        self, request: gateway_pb2.OpenTableRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenTableResponse:
        limits.table_id(request.table_id)
        limits.variant(request.variant)
        limits.client_seed(request.client_seed)
        caller = current_identity()
        marked = False

        def apply() -> tuple[str, Batch, gateway_pb2.OpenTableResponse]:
            nonlocal marked
            b = self.dealer.open_table(request.table_id, request.variant, request.client_seed)
            if caller is not None:  # until the interceptor records its grant
                self.core.opening[request.table_id] = caller.subject
                marked = True
            t = self.dealer.table(request.table_id)
            cfg = engine_for(t.variant).config
            shoe = t.shoe
            return (
                t.table_id,
                b,
                gateway_pb2.OpenTableResponse(
                    table_id=t.table_id,
                    variant=t.variant,
                    config_version=str(cfg.version),
                    shoe_id=shoe.shoe_id if shoe else "",
                    commitment=shoe.commitment.commitment if shoe else b"",
                    algorithm=shoe.commitment.algorithm if shoe else "",
                ),
            )

        try:
            return await self._once(
                "OpenTable",
                request,
                context,
                gateway_pb2.OpenTableResponse,
                apply,
                table=request.table_id,
            )
        finally:
            # the grant follows the handler's return with no await between (and a
            # failed opening was dropped from memory by the rebuild)
            if marked:
                self.core.opening.pop(request.table_id, None)

    @rpc("OpenShoe")
    async def OpenShoe(
        self, request: gateway_pb2.OpenShoeRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenShoeResponse:
        limits.table_id(request.table_id)
        limits.client_seed(request.client_seed)

        def apply() -> tuple[str, Batch, gateway_pb2.OpenShoeResponse]:
            t = self.dealer.table(request.table_id)
            prev = t.shoe
            b = self.dealer.open_shoe(request.table_id, request.client_seed or None)
            shoe = t.shoe
            assert shoe is not None
            return (
                t.table_id,
                b,
                gateway_pb2.OpenShoeResponse(
                    shoe_id=shoe.shoe_id,
                    commitment=shoe.commitment.commitment,
                    algorithm=shoe.commitment.algorithm,
                    nonce=shoe.commitment.nonce,
                    previous_shoe_id=prev.shoe_id if prev else "",
                    previous_server_seed=prev.server_seed if prev and prev.revealed else b"",
                ),
            )

        return await self._once(
            "OpenShoe",
            request,
            context,
            gateway_pb2.OpenShoeResponse,
            apply,
            table=request.table_id,
        )

    @rpc("OpenHand")
    async def OpenHand(
        self, request: gateway_pb2.OpenHandRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenHandResponse:
        limits.table_id(request.table_id)
        if request.client_seed:
            # a seed given before the hand's commitment would be a seed the server could
            # choose its own against; the player's seed goes in PlaceBets, after it
            raise FieldRejected(
                "OpenHand takes no client seed: give the player's own seed with PlaceBets "
                "(client_seed) after this call's commitment, for games that commit a fresh "
                "seed every hand; a shoe's client seed goes with OpenTable or OpenShoe",
                reason="client_seed_too_early",
                field="client_seed",
            )
        rows = limits.seats(
            [limits.SeatIn(s.seat, s.player_id, s.stack_minor) for s in request.seats]
        )
        seats = [{"seat": r.seat, "player": r.player, "stack": r.stack} for r in rows]
        bets = _bets_of(request.bets)
        close = request.close_betting

        def apply() -> tuple[str, Batch, gateway_pb2.OpenHandResponse]:
            t = self.dealer.table(request.table_id)
            limits.seat_count(len(rows), engine_for(t.variant).max_seats)
            before = t.hand_count
            try:
                hand_id, b = self.dealer.open_hand(
                    request.table_id, seats, bets, close_betting=close
                )
            except Exception:
                if t.hand_count != before:  # refused after the hand was opened in memory
                    self.core.resync(request.table_id)
                raise
            h = self.dealer.hands.get(hand_id) or b.closed_hands[-1]
            return (
                request.table_id,
                b,
                gateway_pb2.OpenHandResponse(
                    hand_id=hand_id,
                    shoe_id=h.shoe.shoe_id,
                    hand_no=h.state.shoe_hand_no,
                    commitment=h.shoe.commitment.commitment,
                    accepted=len(bets),
                    last_seq=h.writer.next_seq - 1,
                    view=self._view(h, None) if close else None,
                ),
            )

        resp = await self._once(
            "OpenHand",
            request,
            context,
            gateway_pb2.OpenHandResponse,
            apply,
            table=request.table_id,
        )
        # the hand's trace starts here: the caller learns its traceparent (W3C), which
        # every message of the hand carries, to put its own later calls in it; in the
        # trailing metadata, which goes with the answer (initial metadata sent apart
        # costs the server a send of its own, ~12 % of a bare call's CPU), beside a
        # replayed answer's mark
        tp = ("traceparent", hand_traceparent(resp.hand_id))
        context.set_trailing_metadata((*(context.trailing_metadata() or ()), tp))
        return resp

    @rpc("PlaceBets")
    async def PlaceBets(
        self, request: gateway_pb2.PlaceBetsRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.PlaceBetsResponse:
        limits.hand_id(request.hand_id)
        bets = _bets_of(request.bets)

        def apply() -> tuple[str, Batch, gateway_pb2.PlaceBetsResponse]:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.place_bets(request.hand_id, bets, request.client_seed)
            return (
                h.table_id,
                b,
                gateway_pb2.PlaceBetsResponse(
                    hand_id=request.hand_id, accepted=len(bets), last_seq=h.writer.next_seq - 1
                ),
            )

        return await self._once(
            "PlaceBets", request, context, gateway_pb2.PlaceBetsResponse, apply, request.hand_id
        )

    @rpc("Act")
    async def Act(
        self, request: gateway_pb2.ActRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.ActResponse:
        limits.hand_id(request.hand_id)
        limits.seat(request.seat)
        limits.action(request.action)
        args = limits.args_json(request.args_json)
        if "auto" in args:
            raise FieldRejected(
                "the argument 'auto' is reserved for ExpireTurn",
                reason="reserved_argument",
                field="args_json",
            )

        def apply() -> tuple[str, Batch, gateway_pb2.ActResponse]:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.act(request.hand_id, request.seat, request.action, args)
            view = self._view(h, request.seat)
            return (
                h.table_id,
                b,
                gateway_pb2.ActResponse(
                    hand_id=request.hand_id, last_seq=h.writer.next_seq - 1, view=view
                ),
            )

        return await self._once(
            "Act", request, context, gateway_pb2.ActResponse, apply, request.hand_id
        )

    @rpc("ExpireTurn")
    async def ExpireTurn(
        self, request: gateway_pb2.ExpireTurnRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.ExpireTurnResponse:
        limits.hand_id(request.hand_id)

        def apply() -> tuple[str, Batch, gateway_pb2.ExpireTurnResponse]:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.expire(request.hand_id)
            act = next(e for e in b.events if e.type == g.ACTION_TAKEN)
            return (
                h.table_id,
                b,
                gateway_pb2.ExpireTurnResponse(
                    hand_id=request.hand_id,
                    last_seq=h.writer.next_seq - 1,
                    seat=int(act.payload["seat"]),
                    action=str(act.payload["action"]),
                    args_json=canonical.dumps(act.payload["args"]).decode(),
                    view=self._view(h, None),
                ),
            )

        def done() -> None:
            h = self.dealer.hands.get(request.hand_id)
            variant = h.state.variant if h is not None else self._stored_variant(request.hand_id)
            metrics.TURN_TIMEOUTS.labels(variant, "gateway").inc()

        return await self._once(
            "ExpireTurn",
            request,
            context,
            gateway_pb2.ExpireTurnResponse,
            apply,
            request.hand_id,
            done,
        )

    def _stored_variant(self, hand_id: str) -> str:
        events = self.core.store.read_stream(hand_id)
        return str(events[0].payload["variant"]) if events else ""

    @rpc("CloseBetting")
    async def CloseBetting(
        self, request: gateway_pb2.CloseBettingRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.CloseBettingResponse:
        limits.hand_id(request.hand_id)

        def apply() -> tuple[str, Batch, gateway_pb2.CloseBettingResponse]:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.close_betting(request.hand_id)
            return h.table_id, b, gateway_pb2.CloseBettingResponse(view=self._view(h, None))

        return await self._once(
            "CloseBetting",
            request,
            context,
            gateway_pb2.CloseBettingResponse,
            apply,
            request.hand_id,
        )

    @rpc("GetHandView")
    async def GetHandView(
        self, request: gateway_pb2.GetHandViewRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.GetHandViewResponse:
        limits.hand_id(request.hand_id)
        seat = limits.seat(request.seat) if request.HasField("seat") else None
        h = self.dealer.hands.get(request.hand_id)
        if h is not None:
            return gateway_pb2.GetHandViewResponse(view=self._view(h, seat))
        events = self.core.store.read_stream(request.hand_id)
        if not events:
            raise NotFound(f"no hand {request.hand_id!r}")
        return gateway_pb2.GetHandViewResponse(view=self._stored_view(events, seat))

    def _view(self, h: Hand, seat: int | None) -> gateway_pb2.HandView:
        return gateway_pb2.HandView(
            hand_id=h.hand_id,
            variant=h.state.variant,
            table_id=h.table_id,
            phase=h.state.phase,
            events=redact(h.events, seat, engine_for(h.state.variant).visible_to(h.state, seat)),
        )

    @staticmethod
    def _shown(events: list[Event], seat: int | None) -> frozenset[str]:
        """What the rules let ``seat`` see of a stored hand's face-down cards."""
        eng = engine_for(str(events[0].payload["variant"]))
        try:
            state = eng.replay(events[0].stream, [(e.type, e.payload) for e in events])
        except CroupierError:
            return frozenset()
        return eng.visible_to(state, seat)

    def _stored_view(self, events: list[Event], seat: int | None) -> gateway_pb2.HandView:
        opened = events[0].payload
        outcome = next((e for e in events if e.type == g.HAND_OUTCOME), None)
        settled = next((e for e in events if e.type == g.HAND_SETTLED), None)
        closed = any(e.type == g.HAND_CLOSED for e in events)
        return gateway_pb2.HandView(
            hand_id=events[0].stream,
            variant=str(opened["variant"]),
            table_id=str(opened["table"]),
            phase="settled" if settled else "closed" if closed else "open",
            events=redact(
                events,
                seat,
                self._shown(events, seat),
                engine_for(str(opened["variant"])).private_args,
            ),
            outcome_json=outcome.payload_bytes.decode() if outcome else "",
            settled=settled is not None,
            settlement_json=settled.payload_bytes.decode() if settled else "",
        )

    @rpc_stream("StreamTableEvents")
    async def StreamTableEvents(
        self, request: gateway_pb2.StreamTableEventsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[gateway_pb2.StreamTableEventsResponse]:
        """The table's public events from the store, resumable by cursor (a store
        position) at any dealer sharing the store; see :mod:`croupier_services.feed`."""
        try:
            limits.table_id(request.table_id)
            if request.WhichOneof("start") == "after_seq":
                limits.check_int("after_seq", request.after_seq, 0, 2**63 - 1)
        except FieldRejected as e:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, e.reason, e.message, e.details())
        table_id = request.table_id
        if table_id not in self.dealer.tables and not self.core.store.table_known(table_id):
            await abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                "not_found",
                f"not_found: table {table_id!r} is not open",
            )
        start = request.WhichOneof("start")
        if start == "after_seq" and request.after_seq < 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "after_seq must be >= 0")
        after = None if start == "from_now" else (request.after_seq if start else 0)
        async for pos, e in self.core.feed.follow(table_id, after):
            yield gateway_pb2.StreamTableEventsResponse(event=to_pb(e), cursor=pos)

    @rpc("CloseTable")
    async def CloseTable(
        self, request: gateway_pb2.CloseTableRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.CloseTableResponse:
        limits.table_id(request.table_id)

        def apply() -> tuple[str, Batch, gateway_pb2.CloseTableResponse]:
            t = self.dealer.table(request.table_id)
            shoe = t.shoe
            b = self.dealer.close_table(request.table_id)
            return (
                request.table_id,
                b,
                gateway_pb2.CloseTableResponse(
                    shoe_id=shoe.shoe_id if shoe else "",
                    server_seed=shoe.server_seed if shoe and shoe.revealed else b"",
                ),
            )

        return await self._once(
            "CloseTable",
            request,
            context,
            gateway_pb2.CloseTableResponse,
            apply,
            table=request.table_id,
        )

    @rpc("IssueSeatToken")
    async def IssueSeatToken(
        self, request: gateway_pb2.IssueSeatTokenRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.IssueSeatTokenResponse:
        caller = current_identity()
        if caller is None or self.seat_tokens is None:
            raise Unauthenticated("seat tokens are issued to an authenticated gateway")
        if request.ttl_s < 0:
            raise InvalidInput("ttl_s must be >= 0")
        token, exp = self.seat_tokens.issue(
            caller.subject,
            request.table_id,
            request.seat,
            request.player_id,
            int(request.ttl_s) or 86_400,
        )
        return gateway_pb2.IssueSeatTokenResponse(token=token, expires_at_s=exp)
