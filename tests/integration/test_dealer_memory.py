"""Bounded memory: a dealer core that opened and closed 10,000 tables holds no more than
one that did 1,000, give or take a small constant: nothing per table outlives CloseTable
(tables, hands, turn clocks, fencing tokens, leases).

Measured with tracemalloc (Python allocations; SQLite's own page cache is not counted)
after a full collection, in process, on SQLite. The single dealer commits its opens and
closes 100 tables a transaction (10,000 one at a time would take minutes of CPU on a
shared machine); the lease-holding replica commits each table on its own, as a replica
claims the lease of the table it writes, with fewer tables."""

from __future__ import annotations

import gc
import itertools
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

from croupier.dealing import Batch, Dealer
from croupier.ownership import Ownership
from croupier.store.secrets import SeedBox
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import load_signers, open_store

SEATS = [{"seat": 1, "player": "p1", "stack": 1_000_000}]
BETS = [{"seat": 1, "spot": "banker", "amount": 1000}]
SLACK = 256 * 1024  # bytes: caches that fill once (interned strings, statement caches)


def make_core(tmp_path: Path) -> DealerCore:
    store = open_store(f"sqlite:///{tmp_path / 'm.sqlite'}")
    keys = tmp_path / "keys"
    init_keys(keys)
    signers = load_signers(store, str(keys), ("dealer",), TrustedKeys.from_dir(keys))
    clock = itertools.count(1_000)
    return DealerCore(
        Dealer(signers["dealer"], signers["gateway"], clock_ms=lambda: next(clock)),
        store,
        None,
        seed_box=SeedBox(b"\x07" * 32),
    )


def retained() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def growth(
    cycle: Callable[[int], Awaitable[None]], warm: int, first: int, then: int
) -> tuple[int, int]:
    """Memory kept after ``first`` cycles and after ``then`` more, past a warm-up of
    ``warm`` (engine caches, the first statements), in bytes."""
    await cycle(warm)
    tracemalloc.start()
    try:
        base = retained()
        await cycle(first)
        small = retained() - base
        await cycle(then)
        return small, retained() - base
    finally:
        tracemalloc.stop()


async def test_ten_thousand_tables_opened_and_closed_retain_bounded_memory(
    tmp_path: Path,
) -> None:
    core = make_core(tmp_path)
    # the hands' messages wait for a bus this dealer has none of: written with their
    # bytes, as when the relay's hold is full (its own bound: tests/unit/test_held_messages.py)
    core.relay.held.max_bytes = 0
    n = itertools.count()

    async def cycle(tables: int, group: int = 100) -> None:
        for _ in range(tables // group):
            ids = [f"m{next(n)}" for _ in range(group)]
            b = Batch()
            for t in ids:
                b.extend(core.dealer.open_table(t, "baccarat", "cs"))
            await core.commit(ids[0], b)
            hid, b = core.dealer.open_hand(ids[0], SEATS)  # one hand a group, dealt out
            b.extend(core.dealer.place_bets(hid, BETS))
            b.extend(core.dealer.close_betting(hid))
            await core.commit(ids[0], b)
            b = Batch()
            for t in ids:
                b.extend(core.dealer.close_table(t))
            await core.commit(ids[0], b)

    small, large = await growth(cycle, 200, 1_000, 9_000)
    print(f"\nretained after 1,000 tables: {small:,} B; after 10,000: {large:,} B")
    assert next(n) == 10_200
    assert not core.dealer.tables and not core.dealer.hands and not core.last_move_ms
    assert large < 2 * max(small, 0) + SLACK, (small, large)
    core.store.close()


async def test_a_replica_keeps_no_lease_or_token_of_a_closed_table(tmp_path: Path) -> None:
    core = make_core(tmp_path)
    now = itertools.count(10_000)
    own = core.ownership = Ownership(core.store, "dealer-a", "a:1", 60_000, lambda: next(now))
    n = itertools.count()

    async def cycle(tables: int) -> None:
        for _ in range(tables):
            t = f"r{next(n)}"
            await core.commit(t, core.dealer.open_table(t, "baccarat", "cs"))
            assert t in core.fences and t in own.leases
            await core.commit(t, core.dealer.close_table(t))

    small, large = await growth(cycle, 20, 100, 400)
    print(f"\nreplica: retained after 100 tables: {small:,} B; after 500: {large:,} B")
    assert not core.fences and not own.leases and not core.dealer.tables
    assert own.renew_all() == []  # nothing left to renew
    assert core.store.current_lease("r0", next(now)) is None  # released, not left to expire
    assert large < 2 * max(small, 0) + SLACK, (small, large)
    core.store.close()
