"""Messages wait in the outbox by reference: the dealer's, the rule service's and
settlement's rows name the events and seals they are made of and carry no bytes, which
their relay holds in memory; a relay that does not hold them (a restarted process, a row
of another replica) rebuilds each message from the store, byte for byte the message
first encoded, and the consumers take it as they took the original."""

from __future__ import annotations

import pytest
from nats.aio.msg import Msg

from croupier.bus import wire
from croupier.bus.relay import OutboxRelay
from croupier.store import Outbox, OutboxRow

from .harness import Cluster, FakeMsg, all_stream_messages

pytestmark = pytest.mark.integration


def _row(outbox: Outbox, producer: str, msg_id: str) -> OutboxRow:
    (row,) = [r for r in outbox.pending(producer, 10_000) if r.msg_id == msg_id]
    return row


async def _published(c: Cluster, kind: str, hand_id: str) -> Msg:
    (msg,) = [
        m
        for m in await all_stream_messages(c.bus)
        if m.subject.startswith(f"croupier.{kind}.")
        and wire.decode(m.data).events[0].stream == hand_id
    ]
    return msg


async def _forget_and_republish(c: Cluster, relay: OutboxRelay, row: OutboxRow) -> bytes:
    """What the relay holds for ``row``, then publish it as a relay that holds nothing."""
    held = relay.held.get(row.msg_id)
    assert held is not None
    relay.held.release([row.msg_id])  # as after a restart
    rebuilt = relay.rebuilt
    await c.flush()
    assert relay.rebuilt == rebuilt + 1
    return held


def _no_kicks(c: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """The relays publish only when the test flushes them (no drain started by a commit)."""
    for relay in (c.core.relay, c.rules.relay, c.settlement.relay):
        monkeypatch.setattr(relay, "kick", lambda: None)


async def test_every_producer_writes_by_reference_and_a_rebuilt_message_is_the_same(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = idle_cluster
    _no_kicks(c, monkeypatch)
    outbox = Outbox(c.store.engine)
    table = await c.open_table("ref")
    hid = await c.play_hand(table)

    row = _row(outbox, "dealer", f"hand:{hid}")
    assert row.payload == b"" and row.ref is not None
    assert (row.ref.kind, row.ref.stream, row.ref.first_seq) == ("hand", hid, 0)
    assert row.ref.last_seq == len(c.store.read_stream(hid)) - 1
    original = await _forget_and_republish(c, c.core.relay, row)
    hand_msg = await _published(c, "hand", hid)
    assert hand_msg.data == original

    await c.rules_loop.process([FakeMsg(hand_msg.data, hand_msg.subject)])
    row = _row(outbox, "rules", f"outcome:{hid}")
    assert row.payload == b"" and row.ref is not None and row.ref.kind == "outcome"
    original = await _forget_and_republish(c, c.rules.relay, row)
    outcome_msg = await _published(c, "outcome", hid)
    assert outcome_msg.data == original

    settled_before = c.store.count_settlements()
    await c.settlement_loop.process([FakeMsg(outcome_msg.data, outcome_msg.subject)])
    assert c.store.count_settlements() == settled_before + 1
    row = _row(outbox, "settlement", f"settled:{hid}")
    assert row.payload == b"" and row.ref is not None and row.ref.kind == "settled"
    original = await _forget_and_republish(c, c.settlement.relay, row)
    assert (await _published(c, "settled", hid)).data == original

    for producer, relay in (
        ("dealer", c.core.relay),
        ("rules", c.rules.relay),
        ("settlement", c.settlement.relay),
    ):
        assert outbox.stats(producer).depth == 0
        assert len(relay.held) == 0 and relay.held.size == 0
    report = c.auditor().audit(hid)  # every figure reproduced; the shoe is still open
    assert report.verdict.value == "pending_reveal", (report.reason, report.message)
    assert not report.reason


async def test_held_bytes_are_published_as_held_and_given_up_once_published(
    idle_cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common path: the relay publishes the bytes it holds (nothing rebuilt) and
    forgets them once the stream has them; with no room left the rows keep their bytes."""
    c = idle_cluster
    _no_kicks(c, monkeypatch)
    outbox = Outbox(c.store.engine)
    table = await c.open_table("held")
    rebuilt = c.core.relay.rebuilt
    first = await c.play_hand(table)
    assert len(c.core.relay.held) >= 1
    await c.flush()
    assert c.core.relay.rebuilt == rebuilt
    assert c.core.relay.held.get(f"hand:{first}") is None
    assert (await _published(c, "hand", first)).data

    c.core.relay.held.max_bytes = 0  # full: the next rows carry their bytes
    second = await c.play_hand(table)
    row = _row(outbox, "dealer", f"hand:{second}")
    assert row.ref is None and row.payload
    await c.flush()
    assert (await _published(c, "hand", second)).data == row.payload
