"""A replica adopts the tables its dead peer left with an unfinished hand that only a
turn clock can move: nobody calls, yet the overdue turn is played by the adopter, on
the hand rebuilt from the log with its bets, under a new fencing token, and the dead
owner's late write is refused. Tables without a clock, closed tables and live leases
are left alone. Two dealer cores share one SQLite store, each with its own lease
ownership and an injected clock (the sweep's query runs on every backend in the store
contract and plans tests)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from croupier.dealing import Dealer
from croupier.errors import StaleFencingToken
from croupier.events import verify_chain
from croupier.games import base as g
from croupier.ownership import Ownership
from croupier.store import EventStore
from croupier.testing import bets_of
from croupier_services.dealer import DealerCore, turn_timeout_ms
from croupier_services.runtime import open_store

from .test_recovery import SEATS, SEED_BOX, dealer_signers

pytestmark = pytest.mark.integration

TTL = 60_000  # longer than a turn, so the adopter's renewals keep up with the jumps


def replica(
    store: EventStore, keys: Path, name: str, now: list[int], first_seed: int
) -> DealerCore:
    signers = dealer_signers(store, keys)
    seeds = (bytes([n % 256]) * 32 for n in itertools.count(first_seed))
    dealer = Dealer(
        signers["dealer"],
        signers["gateway"],
        clock_ms=lambda: now[0],
        seed_source=lambda: next(seeds),
    )
    core = DealerCore(dealer, store, None, seed_box=SEED_BOX)
    core.ownership = Ownership(store, name, f"{name}:50051", TTL, lambda: now[0])
    return core


async def test_a_replica_adopts_a_dead_peers_clocked_table_and_plays_its_turn(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.sqlite'}")
    keys = tmp_path / "keys"
    now = [5_000_000]
    a = replica(store, keys, "dealer-a", now, 1)
    b = replica(store, keys, "dealer-b", now, 101)
    limit = turn_timeout_ms("blackjack.multi")
    assert limit is not None and turn_timeout_ms("baccarat") is None

    # dealer-a: a clocked table with a hand waiting on a player, a baccarat table with a
    # hand open for bets, and a clocked table with no hand
    for t, v in (("bj", "blackjack.multi"), ("bac", "baccarat"), ("idle", "blackjack.multi")):
        await a.take(t)
        await a.commit(t, a.dealer.open_table(t, v))
    hid, batch = a.dealer.open_hand("bj", SEATS)
    await a.commit("bj", batch)
    bets = [{"seat": 1, "spot": "main", "amount": 1200}, {"seat": 2, "spot": "main", "amount": 900}]
    await a.commit("bj", a.dealer.place_bets(hid, bets))
    await a.commit("bj", a.dealer.close_betting(hid))
    bac, batch = a.dealer.open_hand("bac", SEATS)
    await a.commit("bac", batch)
    token_a = a.fences["bj"]

    # while dealer-a's leases are live, dealer-b adopts nothing
    now[0] += TTL - 1
    assert await b.adopt_orphans() == []
    # dealer-a dies (no more renewals); past the TTL dealer-b adopts the clocked table
    # with an unfinished hand, and only that one
    now[0] += 2
    assert await b.adopt_orphans() == ["bj"]
    assert b.fences["bj"] == token_a + 1
    assert await b.adopt_orphans() == []  # held now: not adopted twice
    h = b.dealer.hand(hid)
    assert {s: p.bet for s, p in h.state.play.items()} == {1: 1200, 2: 900}  # type: ignore[attr-defined]

    # nobody calls: dealer-b's own clock plays the overdue turns until the hand closes
    played = 0
    while hid in b.dealer.hands:
        now[0] += limit
        assert b.ownership.renew_all() == []  # type: ignore[union-attr]
        played += await b.expire_overdue(now[0])
    events = store.read_stream(hid)
    verify_chain(events)
    autos = [e for e in events if e.type == g.ACTION_TAKEN]
    assert played == len(autos) > 0
    assert all(e.payload["args"] == {"auto": "timeout"} for e in autos)
    assert events[-1].type == g.HAND_CLOSED
    assert [b["amount"] for b in bets_of(events)] == [1200, 900]

    # the dead owner wakes up and writes under its old token: refused, nothing stored
    before = store.count_events(hid)
    with pytest.raises(StaleFencingToken):
        a.persist(a.dealer.expire(hid), None, "bj")
    assert store.count_events(hid) == before
    # the baccarat hand (no clock) waits for a call; the idle table has no hand
    assert store.current_lease("bac", now[0]) is None
    rec = store.get_table("bac")
    assert (
        rec is not None
        and rec.hand_id == bac
        and [e.type for e in store.read_stream(bac)] == [g.HAND_OPENED]
    )
    assert store.current_lease("idle", now[0]) is None
    store.close()
