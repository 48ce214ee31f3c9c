"""The first connect to NATS is bounded: with no server answering, :meth:`Bus.connect`
raises :class:`BusUnavailable` (the password masked, the last reason named) instead of
waiting forever in the client's own retry loop; a service's
:meth:`Bus.connect_retrying` stops when told to even in the middle of a try, and joins a
server that comes up later. Before, a caller waited forever for a server that was down
(a service could not be stopped; a test run hung)."""

from __future__ import annotations

import asyncio

import pytest

from croupier.bus import jetstream
from croupier.bus.embedded import EmbeddedNats, free_port
from croupier.bus.jetstream import Bus
from croupier.errors import BusUnavailable

pytestmark = pytest.mark.integration

GUARD_S = 30  # a hang fails here instead of holding the run


async def test_a_first_connect_to_no_server_raises_naming_the_reason() -> None:
    url = f"nats://svc:s3cret@127.0.0.1:{free_port()}"
    with pytest.raises(BusUnavailable) as e:
        await asyncio.wait_for(Bus.connect(url, first_connect_s=1.0), GUARD_S)
    msg = str(e.value)
    assert "s3cret" not in msg and "svc:***@127.0.0.1" in msg
    assert "answered within 1s" in msg and "Connect call failed" in msg
    assert e.value.reason == "bus_unavailable"
    # the client it made is closed: nothing of it is left running on the loop
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []


async def test_the_default_deadline_is_read_when_connecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jetstream, "FIRST_CONNECT_S", 0.5)
    with pytest.raises(BusUnavailable, match=r"within 0\.5s"):
        await asyncio.wait_for(Bus.connect(f"nats://127.0.0.1:{free_port()}"), GUARD_S)


async def test_connect_retrying_stops_when_told_while_nats_is_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jetstream, "FIRST_CONNECT_S", 60.0)  # stopped in the middle of a try
    stop = asyncio.Event()
    task = asyncio.ensure_future(
        Bus.connect_retrying(f"nats://127.0.0.1:{free_port()}", stop, max_backoff_s=0.2)
    )
    await asyncio.sleep(1.0)
    assert not task.done()  # still trying
    stop.set()
    assert await asyncio.wait_for(task, GUARD_S) is None
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []


async def test_connect_retrying_joins_a_server_that_comes_up_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jetstream, "FIRST_CONNECT_S", 0.5)  # several tries fail first
    port = free_port()
    stop = asyncio.Event()
    task = asyncio.ensure_future(
        Bus.connect_retrying(f"nats://127.0.0.1:{port}", stop, max_backoff_s=0.2)
    )
    await asyncio.sleep(1.5)
    assert not task.done()
    server = EmbeddedNats(port=port).start()
    try:
        bus = await asyncio.wait_for(task, GUARD_S)
        assert bus is not None and bus.connected
        await bus.close()
    finally:
        server.stop()
