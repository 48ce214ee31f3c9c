"""The transactional outbox: a closed hand's message is committed with the hand, the
gateway never waits on NATS, and the backlog drains when NATS returns."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from pathlib import Path

import pytest

from croupier.bus import subjects
from croupier.bus.embedded import EmbeddedNats
from croupier.bus.jetstream import Bus
from croupier.dealing import Dealer
from croupier.store import Outbox, OutboxItem
from croupier.store.secrets import SeedBox
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import load_signers, open_store

pytestmark = pytest.mark.integration

SEATS = [{"seat": 1, "player": "ann", "stack": 1_000_000}]


def test_enqueue_is_idempotent_and_a_reused_id_is_never_deleted(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'o.sqlite'}")
    ob = Outbox(store.engine)
    a = OutboxItem("rules", "croupier.outcome.baccarat.t", "outcome:a", b"a")
    ob.enqueue([a], 1)
    ob.enqueue([a], 2)  # a redelivered message processed again adds nothing
    (row,) = ob.pending("rules")
    assert (row.msg_id, row.created_at_ms) == ("outcome:a", 1)
    # another relay published and deleted it; SQLite hands the id to the next row
    assert ob.delete([row]) == 1
    ob.enqueue([OutboxItem("dealer", "croupier.hand.baccarat.t", "hand:b", b"b")], 3)
    (newer,) = ob.pending("dealer")
    assert newer.id == row.id  # the id was reused ...
    assert ob.delete([row]) == 0  # ... and the stale delete leaves the new row alone
    assert [r.msg_id for r in ob.pending("dealer")] == ["hand:b"]
    st = ob.stats("dealer")
    assert (st.depth, st.oldest_at_ms) == (1, 3)
    assert ob.stats("rules").depth == 0
    store.close()


async def _stream_hands(bus: Bus) -> int:
    info = await bus.js.stream_info(subjects.STREAM, subjects_filter="croupier.hand.>")
    return sum((info.state.subjects or {}).values())


async def test_dealing_goes_on_while_nats_is_down_and_the_backlog_drains(
    tmp_path: Path,
) -> None:
    nats = EmbeddedNats().start()
    store = open_store(f"sqlite:///{tmp_path / 'd.sqlite'}")
    keys = tmp_path / "keys"
    init_keys(keys)  # made once, explicitly: no service makes keys
    signers = load_signers(store, str(keys), ("dealer",), TrustedKeys.from_dir(keys))
    clock = itertools.count(1_000)
    seeds = (bytes([n]) * 32 for n in itertools.count(1))
    core = DealerCore(
        Dealer(
            signers["dealer"],
            signers["gateway"],
            clock_ms=lambda: next(clock),
            seed_source=lambda: next(seeds),
        ),
        store,
        None,
        seed_box=SeedBox(b"\x07" * 32),
    )
    bus = await Bus.connect(nats.url)
    await bus.ensure_stream()
    core.bus = bus
    stop = asyncio.Event()
    relay = asyncio.create_task(core.relay.run(stop))
    try:
        await core.commit("t1", core.dealer.open_table("t1", "baccarat", "cs"))

        async def hand() -> float:
            t0 = time.monotonic()
            hid, b = core.dealer.open_hand("t1", SEATS)
            await core.commit("t1", b)
            bets = [{"seat": 1, "spot": "banker", "amount": 1000}]
            await core.commit("t1", core.dealer.place_bets(hid, bets))
            await core.commit("t1", core.dealer.close_betting(hid))
            return time.monotonic() - t0

        for _ in range(3):
            await hand()
        for _ in range(100):
            if await _stream_hands(bus) == 3:
                break
            await asyncio.sleep(0.05)
        assert await _stream_hands(bus) == 3

        nats.kill()  # all of NATS gone (its storage kept)
        took = [await hand() for _ in range(20)]
        assert max(took) < 1.0, took  # no call waits on the publish (it used to wait 10 s)
        core.relay.stats()
        assert Outbox(store.engine).stats("dealer").depth == 20

        nats.start()  # back on the same port with the same storage
        deadline = time.monotonic() + 30
        while Outbox(store.engine).stats("dealer").depth and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert Outbox(store.engine).stats("dealer").depth == 0
        assert await _stream_hands(bus) == 23
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(relay, 10)
        await bus.close()
        store.close()
        nats.stop()
