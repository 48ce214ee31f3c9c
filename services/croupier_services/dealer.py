"""The dealer service: the gateway-facing gRPC API over :class:`croupier.dealing.Dealer`.

Every call is one atomic batch: validated by the game's engine, appended to the SQL event
store (with the batch's seal) and only then acknowledged. A closed hand is published to
JetStream as one message (all its events and seals) with ``Nats-Msg-Id = hand:<id>``:
the message goes into the outbox in the same SQL transaction as the hand's last events,
and the dealer's outbox relay publishes it; no gateway call waits on NATS.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from croupier import canonical
from croupier.bus import subjects, wire
from croupier.bus.jetstream import Bus
from croupier.bus.relay import OutboxRelay
from croupier.dealing import Batch, Dealer, Hand, restore_table
from croupier.errors import CroupierError, InvalidInput, NotFound
from croupier.events import Event
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import EventStore, Outbox, OutboxItem, StreamInfo
from croupier.store import outbox as ob
from croupier_services import metrics
from croupier_services.grpc_util import rpc
from croupier_services.outboxes import relay_for
from croupier_services.views import redact, to_pb

log = logging.getLogger("croupier.dealer")
FEED_HISTORY = 10_000


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class TableFeed:
    """Public events of one table, numbered by a cursor, for StreamTableEvents."""

    history: deque[tuple[int, Event]] = field(default_factory=lambda: deque(maxlen=FEED_HISTORY))
    cursor: int = 0
    waiters: set[asyncio.Queue[tuple[int, Event]]] = field(default_factory=set)

    def push(self, e: Event) -> None:
        self.cursor += 1
        item = (self.cursor, e)
        self.history.append(item)
        for q in self.waiters:
            q.put_nowait(item)


class DealerCore:
    """Persist-then-publish around the pure dealer; shared by gRPC and in-process drivers."""

    def __init__(self, dealer: Dealer, store: EventStore, bus: Bus | None) -> None:
        self.dealer = dealer
        self.store = store
        self.bus = bus
        self.lock = asyncio.Lock()
        self.feeds: dict[str, TableFeed] = {}
        self.last_move_ms: dict[str, int] = {}  # open hand -> when its last event was made
        self.relay: OutboxRelay = relay_for(store, lambda: self.bus, "dealer")
        self._resyncing: dict[str, asyncio.Task[None]] = {}

    async def expire(self, hand_id: str, source: str) -> Batch:
        """Play the rules' automatic move for the seat a hand waits on (托管); ``source``
        is who decided the turn timed out (``gateway`` or the dealer's own ``clock``).
        Call with the lock held."""
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
            async with self.lock:
                hand = self.dealer.hands.get(hid)
                if hand is None:
                    continue
                limit = turn_timeout_ms(hand.state.variant)
                if limit is None or now_ms - self.last_move_ms.get(hid, now_ms) < limit:
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

    async def recover(self, republish_window_ms: int = 86_400_000) -> tuple[int, int]:
        """After a restart: rebuild every table whose current shoe is not revealed (its
        position and any unfinished hand), and republish hands closed within the window
        that never got an outcome (the publish after commit may have been lost). Returns
        (tables restored, hands republished)."""
        tables = 0
        after: str | None = None
        latest: dict[str, StreamInfo] = {}
        while rows := self.store.list_streams(kind="shoe", after_stream_id=after, limit=1000):
            for r in rows:
                cur = latest.get(r.table_id)
                if cur is None or r.opened_at_ms >= cur.opened_at_ms:
                    latest[r.table_id] = r
            after = rows[-1].stream_id
        for info in latest.values():
            if self._restore(info):
                tables += 1
        since = self.dealer.clock_ms() - republish_window_ms
        pending = []
        recent = self._all(kind="hand", since_ms=since)
        ids = [r.stream_id for r in recent]
        loaded = self.store.read_streams(ids)
        seals = self.store.seals_for_streams(ids)
        for r in recent:
            ev = loaded.get(r.stream_id, [])
            if ev and ev[-1].type == g.HAND_CLOSED:
                pending.append((r, ev, seals.get(r.stream_id, [])))
        if pending:  # through the outbox: a start never waits on NATS
            Outbox(self.store.engine).enqueue(
                [
                    OutboxItem(
                        "dealer",
                        subjects.subject("hand", r.variant, r.table_id),
                        f"hand:{r.stream_id}",
                        wire.encode("hand", ev, se),
                    )
                    for r, ev, se in pending
                ],
                self.dealer.clock_ms(),
            )
            self.relay.kick()
        if tables or pending:
            log.info("recovered %d tables, republished %d hands", tables, len(pending))
        return tables, len(pending)

    def _restore(self, shoe: StreamInfo) -> bool:
        """Rebuild one table from its latest shoe, unless that shoe is revealed."""
        shoe_events = self.store.read_stream(shoe.stream_id)
        if any(e.type == g.SHOE_REVEALED for e in shoe_events):
            return False
        hand_rows = self._all(kind="hand", table_id=shoe.table_id)
        own = [h.stream_id for h in hand_rows if h.shoe_id == shoe.stream_id]
        events = self.store.read_streams(own)
        seals = self.store.seals_for_streams(own)
        hands = sorted(
            ((events[h], seals.get(h, [])) for h in own if events.get(h)),
            key=lambda x: int(x[0][0].payload["hand_no"]),
        )
        # hand ids are "<table>_h<n>": the table's hand count without reading every hand
        hand_count = max((int(h.stream_id.rsplit("_h", 1)[1]) for h in hand_rows), default=0)
        restore_table(
            self.dealer,
            shoe_events,
            self.store.get_secret(shoe.stream_id),
            hands,
            hand_count,
            self._last_carry(hand_rows),
        )
        return True

    def _last_carry(self, hand_rows: list[StreamInfo]) -> dict[str, Any]:
        """The carry of the table's last closed hand (what its next hand inherits)."""
        latest = sorted(hand_rows, key=lambda h: int(h.stream_id.rsplit("_h", 1)[1]))[-2:]
        events = self.store.read_streams([h.stream_id for h in latest])
        for h in reversed(latest):
            ev = events.get(h.stream_id, [])
            if ev and ev[-1].type == g.HAND_CLOSED:
                return dict(ev[-1].payload.get("carry", {}))
        return {}

    def resync(self, table_id: str) -> None:
        """Forget a table's in-memory state and rebuild it from the store: after a failed
        commit the dealer's memory is ahead of the log and must not be built upon."""
        t = self.dealer.tables.pop(table_id, None)
        if t is not None and t.hand is not None:
            self.dealer.hands.pop(t.hand.hand_id, None)
        shoes = self._all(kind="shoe", table_id=table_id)
        if shoes:
            self._restore(max(shoes, key=lambda r: (r.opened_at_ms, r.stream_id)))

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
                        async with self.lock:
                            self.resync(table_id)
                        log.info("table %s rebuilt from the log", table_id)
                        return
                    except Exception as e:
                        log.warning("rebuilding table %s failed (%s); retrying", table_id, e)
                        delay = min(max_backoff_s, delay * 2)
            finally:
                self._resyncing.pop(table_id, None)

        self._resyncing[table_id] = asyncio.get_running_loop().create_task(retry())

    def _all(self, **filters: Any) -> list[StreamInfo]:
        out: list[StreamInfo] = []
        after: str | None = None
        while rows := self.store.list_streams(after_stream_id=after, limit=1000, **filters):
            out += rows
            after = rows[-1].stream_id
        return out

    def persist(self, b: Batch) -> None:
        if not b.events:
            return
        with self.store.transaction() as tx:
            for sid, seed in b.secrets:
                tx.put_secret(sid, seed, self.dealer.clock_ms())
            tx.append(
                b.events,
                b.seals,
                [
                    StreamInfo(
                        r.stream_id, r.kind, r.variant, r.table_id, r.shoe_id, r.opened_at_ms
                    )
                    for r in b.streams
                ],
            )
            ob.enqueue(tx.connection, self.outbox_items(b.closed_hands), self.dealer.clock_ms())

    @staticmethod
    def outbox_items(hands: list[Hand]) -> list[OutboxItem]:
        """The message of each closed hand: all its events and seals."""
        return [
            OutboxItem(
                "dealer",
                subjects.subject("hand", h.state.variant, h.table_id),
                f"hand:{h.hand_id}",
                wire.encode("hand", h.events, h.seals),
            )
            for h in hands
        ]

    async def commit(self, table_id: str, b: Batch) -> None:
        """Store the batch, feed the table's watchers, publish closed hands. If the store
        refuses the batch, the table is rebuilt from what the store holds and the error
        goes back to the caller (nothing of the batch took effect)."""
        try:
            self.persist(b)
        except Exception:
            log.exception("commit failed at table %s; rebuilding it from the log", table_id)
            try:
                self.resync(table_id)
            except Exception:  # the store is down: rebuild the table when it is back
                self._resync_later(table_id)
            raise
        feed = self.feeds.setdefault(table_id, TableFeed())
        t = self.dealer.tables.get(table_id)
        private = engine_for(t.variant).private_args if t is not None else None
        for e in redact_public(b.events, private):
            feed.push(e)
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


def redact_public(
    events: list[Event], private: Callable[[str], frozenset[str]] | None = None
) -> list[Event]:
    """Events whose public form is the event itself; face-down cards and actions with
    private arguments (``private``: :meth:`Engine.private_args`) are withheld from the
    live feed entirely (a seat sees its own through GetHandView)."""
    out = []
    for e in events:
        if e.type == g.CARD_DEALT and not all(c.get("up", True) for c in e.payload["cards"]):
            continue
        hidden = private(str(e.payload.get("action"))) if private is not None else frozenset()
        if e.type == g.ACTION_TAKEN and hidden & set(e.payload.get("args", {})):
            continue
        out.append(e)
    return out


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(self, core: DealerCore) -> None:
        self.core = core

    @property
    def dealer(self) -> Dealer:
        return self.core.dealer

    @rpc("OpenTable")
    async def OpenTable(
        self, request: gateway_pb2.OpenTableRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenTableResponse:
        async with self.core.lock:
            b = self.dealer.open_table(request.table_id, request.variant, request.client_seed)
            t = self.dealer.table(request.table_id)
            await self.core.commit(t.table_id, b)  # on failure the table is forgotten again
            cfg = engine_for(t.variant).config
            shoe = t.shoe
            return gateway_pb2.OpenTableResponse(
                table_id=t.table_id,
                variant=t.variant,
                config_version=str(cfg.version),
                shoe_id=shoe.shoe_id if shoe else "",
                commitment=shoe.commitment.commitment if shoe else b"",
                algorithm=shoe.commitment.algorithm if shoe else "",
            )

    @rpc("OpenShoe")
    async def OpenShoe(
        self, request: gateway_pb2.OpenShoeRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenShoeResponse:
        async with self.core.lock:
            t = self.dealer.table(request.table_id)
            prev = t.shoe
            b = self.dealer.open_shoe(request.table_id, request.client_seed or None)
            await self.core.commit(t.table_id, b)
            shoe = t.shoe
            assert shoe is not None
            return gateway_pb2.OpenShoeResponse(
                shoe_id=shoe.shoe_id,
                commitment=shoe.commitment.commitment,
                algorithm=shoe.commitment.algorithm,
                nonce=shoe.commitment.nonce,
                previous_shoe_id=prev.shoe_id if prev else "",
                previous_server_seed=prev.server_seed if prev and prev.revealed else b"",
            )

    @rpc("OpenHand")
    async def OpenHand(
        self, request: gateway_pb2.OpenHandRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.OpenHandResponse:
        seats = [
            {"seat": s.seat, "player": s.player_id, "stack": s.stack_minor} for s in request.seats
        ]
        async with self.core.lock:
            hand_id, b = self.dealer.open_hand(request.table_id, seats)
            await self.core.commit(request.table_id, b)
            h = self.dealer.hand(hand_id)
            return gateway_pb2.OpenHandResponse(
                hand_id=hand_id,
                shoe_id=h.shoe.shoe_id,
                hand_no=h.state.shoe_hand_no,
                commitment=h.shoe.commitment.commitment,
            )

    @rpc("PlaceBets")
    async def PlaceBets(
        self, request: gateway_pb2.PlaceBetsRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.PlaceBetsResponse:
        bets = [{"seat": b.seat, "spot": b.spot, "amount": b.amount_minor} for b in request.bets]
        async with self.core.lock:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.place_bets(request.hand_id, bets)
            await self.core.commit(h.table_id, b)
            return gateway_pb2.PlaceBetsResponse(
                hand_id=request.hand_id, accepted=len(bets), last_seq=b.events[-1].seq
            )

    @rpc("Act")
    async def Act(
        self, request: gateway_pb2.ActRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.ActResponse:
        try:
            args = canonical.loads(request.args_json or "{}")
        except (ValueError, InvalidInput) as e:
            raise InvalidInput(f"args_json is not valid JSON: {e}") from e
        if not isinstance(args, dict):
            raise InvalidInput("args_json must be a JSON object")
        if "auto" in args:
            raise InvalidInput("the argument 'auto' is reserved for ExpireTurn")
        async with self.core.lock:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.act(request.hand_id, request.seat, request.action, args)
            await self.core.commit(h.table_id, b)
            view = self._view(h, request.seat)
            return gateway_pb2.ActResponse(
                hand_id=request.hand_id, last_seq=h.writer.next_seq - 1, view=view
            )

    @rpc("ExpireTurn")
    async def ExpireTurn(
        self, request: gateway_pb2.ExpireTurnRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.ExpireTurnResponse:
        async with self.core.lock:
            h = self.dealer.hand(request.hand_id)
            b = await self.core.expire(request.hand_id, "gateway")
            act = next(e for e in b.events if e.type == g.ACTION_TAKEN)
            return gateway_pb2.ExpireTurnResponse(
                hand_id=request.hand_id,
                last_seq=h.writer.next_seq - 1,
                seat=int(act.payload["seat"]),
                action=str(act.payload["action"]),
                args_json=canonical.dumps(act.payload["args"]).decode(),
                view=self._view(h, None),
            )

    @rpc("CloseBetting")
    async def CloseBetting(
        self, request: gateway_pb2.CloseBettingRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.CloseBettingResponse:
        async with self.core.lock:
            h = self.dealer.hand(request.hand_id)
            b = self.dealer.close_betting(request.hand_id)
            await self.core.commit(h.table_id, b)
            return gateway_pb2.CloseBettingResponse(view=self._view(h, None))

    @rpc("GetHandView")
    async def GetHandView(
        self, request: gateway_pb2.GetHandViewRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.GetHandViewResponse:
        seat = request.seat if request.HasField("seat") else None
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

    async def StreamTableEvents(
        self, request: gateway_pb2.StreamTableEventsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[gateway_pb2.StreamTableEventsResponse]:
        if request.table_id not in self.dealer.tables and request.table_id not in self.core.feeds:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"table {request.table_id!r} is not open"
            )
        feed = self.core.feeds.setdefault(request.table_id, TableFeed())
        q: asyncio.Queue[tuple[int, Event]] = asyncio.Queue()
        start = request.WhichOneof("start")
        after = (
            feed.cursor
            if start == "from_now"
            else (request.after_seq if start == "after_seq" else 0)
        )
        for cur, e in list(feed.history):
            if cur > after:
                q.put_nowait((cur, e))
        feed.waiters.add(q)
        metrics.GRPC_REQUESTS.labels("StreamTableEvents", "OK").inc()
        try:
            while True:
                cur, e = await q.get()
                if cur <= after:
                    continue
                after = cur
                yield gateway_pb2.StreamTableEventsResponse(event=to_pb(e), cursor=cur)
        finally:
            feed.waiters.discard(q)

    @rpc("CloseTable")
    async def CloseTable(
        self, request: gateway_pb2.CloseTableRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.CloseTableResponse:
        async with self.core.lock:
            t = self.dealer.table(request.table_id)
            shoe = t.shoe
            b = self.dealer.close_table(request.table_id)
            await self.core.commit(request.table_id, b)
            return gateway_pb2.CloseTableResponse(
                shoe_id=shoe.shoe_id if shoe else "",
                server_seed=shoe.server_seed if shoe and shoe.revealed else b"",
            )
