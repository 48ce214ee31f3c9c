"""A hand the store cannot settle (a NUL in a player id: PostgreSQL refuses it in a text
column) is dead-lettered with its reason and the settlement loop goes on; it used to
kill the loop after every restart."""

from __future__ import annotations

import pytest

from croupier.store import Outbox

from .harness import Cluster, unique_table

pytestmark = pytest.mark.integration


async def test_a_hand_the_store_refuses_is_dead_lettered_and_the_loop_goes_on(
    cluster: Cluster,
) -> None:
    c = cluster
    table = unique_table("nul")
    core = c.core
    await core.commit(table, core.dealer.open_table(table, "baccarat", table))
    seats = [{"seat": 1, "player": "ann\x00x", "stack": 1_000_000}]  # past any gateway check
    async with core.lock:
        hid, b = core.dealer.open_hand(table, seats)
        await core.commit(table, b)
        bets = [{"seat": 1, "spot": "banker", "amount": 1000}]
        await core.commit(table, core.dealer.place_bets(hid, bets))
        await core.commit(table, core.dealer.close_betting(hid))
    good_table = await c.open_table("after_nul")
    if c.database.backend == "postgresql":
        ok = await c.play_hand(good_table)
        await c.wait_for(lambda: c.store.count_settlements() == 1, what="the next hand")
        (dl,) = Outbox(c.store.engine).dead_letters("settlement")
        assert dl.reason == "store_refused" and hid.encode() in dl.payload
        assert "\x00" not in dl.detail
        assert [s.hand_id for s in c.store.list_settlements()] == [ok]
        assert all(not t.done() for t in c.tasks)  # the same loops, still running
    else:  # SQLite keeps the NUL: the hand settles like any other
        await c.play_hand(good_table)
        await c.wait_settled(2)
        assert Outbox(c.store.engine).dead_letters() == []
