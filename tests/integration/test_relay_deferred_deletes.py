"""Deletes that ride on the producer's next commit (``OutboxRelay(defer_deletes=True)``,
as every service's relay is made): a published row stays in the outbox, left out of
what the relay publishes, until the producer's next transaction deletes it; a failed
transaction gives the rows back; with no commit in ``delete_after_s`` (or ``batch`` rows
waiting) the relay deletes them itself, and at its stop; the depth it reports leaves
them out."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from nats.aio.msg import Msg

from croupier.bus import wire
from croupier.bus.relay import OutboxRelay, Published
from croupier.store import Outbox, OutboxItem
from croupier.store import outbox as ob
from croupier.store.db import write_connection
from croupier_services.runtime import open_store

from .harness import Cluster, FakeMsg, all_stream_messages

pytestmark = pytest.mark.integration


class Bus:
    """Acknowledges every publish; records them."""

    connected = True

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def publish_each(
        self, items: list[tuple[str, bytes, str]], timeout_s: float = 5.0
    ) -> list[bool]:
        self.sent += [mid for _, _, mid in items]
        return [True] * len(items)


def _setup(tmp_path: Path, **kw: float) -> tuple[Outbox, OutboxRelay, Bus]:
    store = open_store(f"sqlite:///{tmp_path / 'o.sqlite'}")
    box = Outbox(store.engine)
    bus = Bus()
    relay = OutboxRelay(box, lambda: bus, "rules", defer_deletes=True, **kw)  # type: ignore[arg-type]
    return box, relay, bus


def _items(*ids: str) -> list[OutboxItem]:
    return [OutboxItem("rules", "croupier.outcome.baccarat.t", i, i.encode()) for i in ids]


def _waiting(box: Outbox) -> list[str]:
    return [r.msg_id for r in box.pending("rules")]


async def test_a_published_row_is_deleted_by_the_next_commit_and_never_sent_twice(
    tmp_path: Path,
) -> None:
    box, relay, bus = _setup(tmp_path, delete_after_s=60.0)
    box.enqueue(_items("a", "b"), 1)
    assert await relay.drain_once() == 2
    assert bus.sent == ["a", "b"]
    assert _waiting(box) == ["a", "b"]  # published, not yet deleted
    assert relay.stats().depth == 0  # ... and not counted as waiting
    box.enqueue(_items("c"), 2)
    assert await relay.drain_once() == 1
    assert bus.sent == ["a", "b", "c"]  # a and b were left out
    assert relay.acked is not None and len(relay.acked) == 3
    # the producer's next transaction: its own rows and the deletion of those sent
    with write_connection(box.engine) as conn, relay.acked.riding() as gone:
        ob.enqueue(conn, _items("d"), 3)
        assert ob.delete(conn, gone) == 3
    assert _waiting(box) == ["d"] and len(relay.acked) == 0
    assert await relay.drain_once() == 1
    assert bus.sent == ["a", "b", "c", "d"]


async def test_a_failed_commit_gives_the_rows_back(tmp_path: Path) -> None:
    box, relay, bus = _setup(tmp_path, delete_after_s=60.0)
    box.enqueue(_items("a"), 1)
    await relay.drain_once()
    assert relay.acked is not None
    with (
        pytest.raises(RuntimeError),
        write_connection(box.engine) as conn,
        relay.acked.riding() as gone,
    ):
        ob.delete(conn, gone)
        raise RuntimeError("the producer's transaction failed")
    assert _waiting(box) == ["a"]  # rolled back: still there ...
    assert len(relay.acked) == 1  # ... and still to delete
    assert await relay.drain_once() == 0 and bus.sent == ["a"]  # not sent again
    assert relay.delete_due(now=True) == 1
    assert _waiting(box) == []


async def test_with_no_commit_the_relay_deletes_them_itself(tmp_path: Path) -> None:
    box, relay, _ = _setup(tmp_path, delete_after_s=0.05)
    box.enqueue(_items("a"), 1)
    await relay.drain_once()
    assert relay.delete_due() == 0  # not yet due
    time.sleep(0.06)
    assert relay.delete_due() == 1
    assert _waiting(box) == []
    # so does its run loop, without a kick, long before its idle poll (1 s)
    box.enqueue(_items("b"), 2)
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run(stop))
    deadline = time.monotonic() + 0.9
    while _waiting(box) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert _waiting(box) == []
    stop.set()
    await task


async def test_a_batch_of_them_is_deleted_at_once(tmp_path: Path) -> None:
    box, relay, bus = _setup(tmp_path, delete_after_s=60.0)
    relay.batch = 3
    box.enqueue(_items("a", "b", "c", "d"), 1)
    assert await relay.drain_once() == 3
    assert await relay.drain_once() == 1  # the three sent are deleted first
    assert bus.sent == ["a", "b", "c", "d"]
    assert _waiting(box) == ["d"]


async def test_at_stop_what_was_published_is_deleted(tmp_path: Path) -> None:
    box, relay, bus = _setup(tmp_path, delete_after_s=60.0)
    box.enqueue(_items("a"), 1)
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run(stop))
    while bus.sent != ["a"]:
        await asyncio.sleep(0.01)
    stop.set()
    await task
    assert _waiting(box) == []


def test_published_keeps_each_row_once_and_its_age() -> None:
    p = Published()
    assert p.waited() == 0.0
    rows = [ob.OutboxRow(1, "rules", "s", "a", b"", 1), ob.OutboxRow(2, "rules", "s", "b", b"", 1)]
    p.add(rows)
    p.add(rows[:1])
    assert len(p) == 2 and rows[0] in p
    assert ob.OutboxRow(1, "rules", "s", "other", b"", 1) not in p  # an id given again
    assert p.take() == rows and len(p) == 0


# --- the services: the dealer's group commit and a consumer's batch commit delete them


def _msg_ids(box: Outbox, producer: str) -> list[str]:
    return [r.msg_id for r in box.pending(producer, 10_000)]


async def test_the_dealer_and_the_consumers_delete_what_their_relays_sent(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = idle_cluster
    for relay in (c.core.relay, c.rules.relay, c.settlement.relay):
        monkeypatch.setattr(relay, "kick", lambda: None)  # published only when drained here
        assert relay.acked is not None
    box = Outbox(c.store.engine)
    table = await c.open_table("dd")
    first = await c.play_hand(table)
    assert await c.core.relay.drain_once() == 1
    assert _msg_ids(box, "dealer") == [f"hand:{first}"]  # sent, waiting for a commit
    second = await c.play_hand(table)
    assert _msg_ids(box, "dealer") == [f"hand:{second}"]  # the dealer's commit took it
    assert await c.core.relay.drain_once() == 1

    msgs = {wire.decode(m.data).events[0].stream: m for m in await hand_messages(c)}
    await c.rules_loop.process([FakeMsg(msgs[first].data, msgs[first].subject)])
    assert await c.rules.relay.drain_once() == 1
    assert _msg_ids(box, "rules") == [f"outcome:{first}"]
    await c.rules_loop.process([FakeMsg(msgs[second].data, msgs[second].subject)])
    assert _msg_ids(box, "rules") == [f"outcome:{second}"]  # the batch's commit took it

    outcomes = [m for m in await all_stream_messages(c.bus) if ".outcome." in m.subject]
    assert len(outcomes) == 1
    await c.settlement_loop.process([FakeMsg(outcomes[0].data, outcomes[0].subject)])
    assert await c.settlement.relay.drain_once() == 1
    assert _msg_ids(box, "settlement") == [f"settled:{first}"]
    assert await c.rules.relay.drain_once() == 1
    outcomes = [m for m in await all_stream_messages(c.bus) if ".outcome." in m.subject]
    await c.settlement_loop.process([FakeMsg(outcomes[1].data, outcomes[1].subject)])
    assert _msg_ids(box, "settlement") == [f"settled:{second}"]
    assert c.store.count_settlements() == 2
    await c.flush()
    assert all(_msg_ids(box, p) == [] for p in ("dealer", "rules", "settlement"))


async def hand_messages(c: Cluster) -> list[Msg]:
    return [m for m in await all_stream_messages(c.bus) if ".hand." in m.subject]


async def test_rows_a_transaction_is_deleting_are_not_published_again(tmp_path: Path) -> None:
    """The dealer's transaction runs in a thread while the relay goes on on the loop:
    the rows it took stay left out until it ends."""
    box, relay, bus = _setup(tmp_path, delete_after_s=60.0)
    box.enqueue(_items("a"), 1)
    await relay.drain_once()
    assert relay.acked is not None
    with relay.acked.riding() as gone:
        assert [r.msg_id for r in gone] == ["a"] and len(relay.acked) == 0
        assert relay.acked.in_outbox() == 1
        box.enqueue(_items("b"), 2)
        assert await relay.drain_once() == 1  # b only: a is being deleted
        assert relay.stats().depth == 0
        with write_connection(box.engine) as conn:
            ob.delete(conn, gone)
    assert bus.sent == ["a", "b"]
    assert relay.acked.in_outbox() == 1  # b, waiting for the next commit
    assert _waiting(box) == ["b"]
