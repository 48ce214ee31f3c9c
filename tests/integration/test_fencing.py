"""Fencing: two dealer cores on one store. The first holds the table's lease, pauses
past its expiry, the second takes the table over (a larger fencing token) and goes on
dealing; when the first wakes its batch is refused inside the append transaction and
nothing of it is written."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.dealing import Dealer
from croupier.errors import StaleFencingToken, TableOwnedElsewhere
from croupier.ownership import Ownership
from croupier.signing import FileSigner, Signer
from croupier.store import Store, schema
from croupier.store.secrets import SeedBox
from croupier.testing import bets_of
from croupier_services.dealer import DealerCore

pytestmark = pytest.mark.integration

SEATS = [{"seat": s, "player": f"p{s}", "stack": 1_000_000} for s in (1, 2)]
TTL = 1_000


def _core(store: Store, signers: dict[str, Signer], first_seed: int) -> DealerCore:
    clock = itertools.count(1_000)
    seeds = (bytes([n]) * 32 for n in itertools.count(first_seed))
    d = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: next(clock),
        seed_source=lambda: next(seeds),
    )
    return DealerCore(d, store, None, seed_box=SeedBox(bytes([3]) * 32))


def _events(store: Store) -> int:
    with store.engine.connect() as c:
        return int(c.execute(sa.select(sa.func.count()).select_from(schema.events)).scalar_one())


async def test_a_paused_owner_that_lost_its_lease_cannot_write(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'f.sqlite'}", upgrade=True)
    signers = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    for s in signers.values():
        store.put_key(s.public_entry())
    a = _core(store, signers, 1)
    b = _core(store, signers, 100)

    la = store.acquire_lease("bac", "dealer-a", "a:1", TTL, 0)
    a.fences["bac"] = la.token
    await a.commit("bac", a.dealer.open_table("bac", "baccarat"))
    hid, batch = a.dealer.open_hand("bac", SEATS)
    await a.commit("bac", batch)
    await a.commit("bac", a.dealer.place_bets(hid, [{"seat": 1, "spot": "tie", "amount": 1000}]))
    written = _events(store)

    # dealer-a pauses; its lease runs out and dealer-b takes the table over
    lb = store.acquire_lease("bac", "dealer-b", "b:1", TTL, 5_000)
    assert lb.token == la.token + 1
    b.fences["bac"] = lb.token
    b.resync("bac")
    assert hid in b.dealer.hands  # the open hand, with its bet, rebuilt from the log
    await b.commit("bac", b.dealer.place_bets(hid, [{"seat": 2, "spot": "banker", "amount": 3000}]))
    after_b = _events(store)
    assert after_b > written

    # dealer-a wakes and tries to write with its old token: refused, nothing written
    stale = a.dealer.place_bets(hid, [{"seat": 2, "spot": "player", "amount": 5000}])
    with pytest.raises(StaleFencingToken) as e:
        a.persist(stale, None, "bac")
    assert e.value.details()["current_token"] == str(lb.token)
    assert _events(store) == after_b
    # the log holds dealer-b's bet, never dealer-a's late one
    bets = bets_of(store.read_stream(hid))
    assert bets == [
        {"amount": 1000, "seat": 1, "spot": "tie"},
        {"amount": 3000, "seat": 2, "spot": "banker"},
    ]
    # without a fence (single dealer) the same core writes as before
    b.fences.clear()
    await b.commit("bac", b.dealer.close_betting(hid))
    assert _events(store) > after_b
    store.close()


async def test_a_replica_refuses_a_table_another_replica_owns_and_writes_nothing(
    tmp_path: Path,
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'o.sqlite'}", upgrade=True)
    signers = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    for s in signers.values():
        store.put_key(s.public_entry())
    now = [0]
    a, b = _core(store, signers, 1), _core(store, signers, 100)
    a.ownership = Ownership(store, "dealer-a", "a:1", TTL, lambda: now[0])
    b.ownership = Ownership(store, "dealer-b", "b:1", TTL, lambda: now[0])
    await a.commit("bac", a.dealer.open_table("bac", "baccarat"))
    written = _events(store)
    b.resync("bac")
    _, batch = b.dealer.open_hand("bac", SEATS)
    with pytest.raises(TableOwnedElsewhere) as e:
        await b.commit("bac", batch)
    assert e.value.details()["owner_address"] == "a:1"
    assert _events(store) == written
    # a renews; b still refused; a drains (releases) and b takes the table
    now[0] = 900
    assert a.ownership.renew_all() == []
    now[0] = 1_500
    with pytest.raises(TableOwnedElsewhere):
        b.ownership.claim("bac")
    assert a.ownership.release_all() == 1
    assert b.ownership.claim("bac").token == 2
    # a lease that ran out and was taken over is reported lost by renew
    a.ownership.claim("t2")
    now[0] = 5_000
    b.ownership.claim("t2")
    assert a.ownership.renew_all() == ["t2"]
    assert "t2" not in a.ownership.leases
    store.close()


async def test_the_renew_loop_keeps_the_lease_and_a_drain_hands_it_over(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'r.sqlite'}", upgrade=True)
    signers = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    for s in signers.values():
        store.put_key(s.public_entry())
    a = _core(store, signers, 1)
    a.ownership = own = Ownership(store, "dealer-a", "a:1", 300, harness_now)
    await a.commit("bac", a.dealer.open_table("bac", "baccarat"))
    stop = asyncio.Event()
    loop = asyncio.create_task(a.run_lease_renewal(stop))
    await asyncio.sleep(0.8)  # well past the 300 ms ttl: only renewal keeps it
    cur = store.current_lease("bac", harness_now())
    assert cur is not None and cur.owner == "dealer-a"
    stop.set()
    await loop
    assert own.release_all() == 1
    assert store.current_lease("bac", harness_now()) is None
    b = Ownership(store, "dealer-b", "b:1", 300, harness_now)
    assert b.claim("bac").token == cur.token + 1
    store.close()


def harness_now() -> int:
    return time.time_ns() // 1_000_000
