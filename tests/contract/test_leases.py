"""Table leases (:mod:`croupier.store.leases`) on every backend: one live owner per
table, fencing tokens that only grow across owners, renew/release by the holder only,
and the fence that refuses a stale token."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
import sqlalchemy as sa

from croupier.errors import InvalidInput, StaleFencingToken, TableOwnedElsewhere
from croupier.events import StreamWriter, heads_of, seal
from croupier.signing import Signer
from croupier.store import Store, StreamInfo
from croupier.store.db import store_outage
from croupier.store.leases import PAUSED_HOLDER_LIMIT_MS, Lease, check_fence, renew

TTL = 1_000


def test_acquire_is_exclusive_while_the_lease_is_live(store: Store) -> None:
    a = store.acquire_lease("t1", "dealer-a", "a:50051", TTL, 10_000)
    assert (a.owner, a.token, a.expires_at_ms) == ("dealer-a", 1, 11_000)
    with pytest.raises(TableOwnedElsewhere) as e:
        store.acquire_lease("t1", "dealer-b", "b:50051", TTL, 10_500)
    assert e.value.details() == {
        "table_id": "t1",
        "owner": "dealer-a",
        "owner_address": "a:50051",
    }
    assert e.value.reason == "table_owned_elsewhere"
    cur = store.current_lease("t1", 10_999)
    assert cur is not None and (cur.owner, cur.token) == ("dealer-a", 1)
    # the same owner again keeps its token and extends the lease
    again = store.acquire_lease("t1", "dealer-a", "a:50051", TTL, 10_900)
    assert (again.token, again.expires_at_ms) == (1, 11_900)
    # other tables are independent
    assert store.acquire_lease("t2", "dealer-b", "b:50051", TTL, 10_900).token == 1


def test_tokens_grow_across_owners_after_expiry_and_release(store: Store) -> None:
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    assert store.current_lease("t1", 1_000) is None  # expired at exactly 0 + ttl
    b = store.acquire_lease("t1", "dealer-b", "b", TTL, 1_000)
    assert b.token == a.token + 1
    assert store.release_lease("t1", "dealer-b", b.token, 1_500)
    assert store.current_lease("t1", 1_500) is None
    c = store.acquire_lease("t1", "dealer-a", "a", TTL, 1_600)
    assert c.token == b.token + 1 == 3
    # a released-then-reacquired lease by the same owner still gets a new token
    assert store.release_lease("t1", "dealer-a", c.token, 1_700)
    assert store.acquire_lease("t1", "dealer-a", "a", TTL, 1_800).token == 4


def test_renew_and_release_belong_to_the_current_holder(store: Store) -> None:
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    r = store.renew_lease("t1", "dealer-a", a.token, TTL, 900)
    assert r.expires_at_ms == 1_900
    assert store.current_lease("t1", 1_500) is not None
    # expired: renewing is refused, the owner must stop writing
    with pytest.raises(StaleFencingToken):
        store.renew_lease("t1", "dealer-a", a.token, TTL, 1_900)
    b = store.acquire_lease("t1", "dealer-b", "b", TTL, 2_000)
    with pytest.raises(StaleFencingToken) as e:
        store.renew_lease("t1", "dealer-a", a.token, TTL, 2_100)
    assert e.value.details()["current_token"] == str(b.token)
    assert not store.release_lease("t1", "dealer-a", a.token, 2_100)
    cur = store.current_lease("t1", 2_100)
    assert cur is not None and cur.owner == "dealer-b"
    with pytest.raises(StaleFencingToken):
        store.renew_lease("t9", "dealer-a", 1, TTL, 0)  # never leased


def test_the_fence_refuses_any_token_but_the_current_one(store: Store) -> None:
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    with store.engine.begin() as conn:
        check_fence(conn, "t1", a.token)
    b = store.acquire_lease("t1", "dealer-b", "b", TTL, 5_000)
    for stale in (a.token, 0, b.token + 1):
        with pytest.raises(StaleFencingToken), store.engine.begin() as conn:
            check_fence(conn, "t1", stale)
    with store.engine.begin() as conn:
        check_fence(conn, "t1", b.token)
    with pytest.raises(StaleFencingToken), store.engine.begin() as conn:
        check_fence(conn, "unleased", 1)


@pytest.mark.parametrize("paused_in", ["fenced write", "renewal"])
def test_an_owner_paused_holding_the_lease_row_does_not_block_the_takeover(
    store: Store, paused_in: str
) -> None:
    """A holder whose process stops between two statements of a transaction that locked
    the lease row (a fenced append, a renewal) — to the server, a session idle in its
    transaction — must not keep another replica's takeover of an expired lease waiting:
    on PostgreSQL the server ends that session after ``PAUSED_HOLDER_LIMIT_MS``. (SQLite
    has no such remedy: see the module docstring.)"""
    if store.engine.dialect.name != "postgresql":
        return
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    holder = store.engine.connect()
    holder.begin()
    if paused_in == "renewal":
        renew(holder, "t1", "dealer-a", a.token, TTL, 500)  # lease now to 1,500
    else:
        check_fence(holder, "t1", a.token)
    # the holder pauses here; another replica comes for the table after it expired
    taken: list[object] = []

    def take_over() -> None:
        try:
            taken.append(store.acquire_lease("t1", "dealer-b", "b", TTL, 5_000))
        except BaseException as e:  # reported below
            taken.append(e)

    t0 = time.monotonic()
    thread = threading.Thread(target=take_over, daemon=True)
    thread.start()
    thread.join(PAUSED_HOLDER_LIMIT_MS / 1000 + 10)
    waited = time.monotonic() - t0
    try:
        assert not thread.is_alive(), f"the takeover still waits after {waited:.1f} s"
        (b,) = taken
        assert isinstance(b, Lease) and (b.owner, b.token) == ("dealer-b", a.token + 1), b
        assert waited >= PAUSED_HOLDER_LIMIT_MS / 1000 * 0.8  # it did wait on the lock
        # the paused holder continues: its session is gone, its write fails as an outage
        with pytest.raises(sa.exc.DBAPIError) as e:
            holder.execute(sa.text("SELECT 1"))
        assert e.value.connection_invalidated
        assert store_outage(e.value) is not None
    finally:
        with contextlib.suppress(Exception):
            holder.close()
    # the store goes on; the holder's token is stale everywhere
    with pytest.raises(StaleFencingToken):
        store.renew_lease("t1", "dealer-a", a.token, TTL, 5_100)
    assert store.renew_lease("t1", "dealer-b", b.token, TTL, 5_100).token == b.token


def test_a_live_holders_transaction_is_not_limited_before_it_locks_a_lease(
    store: Store,
) -> None:
    """The idle limit is the lease-locking transaction's alone, set where the lock is
    taken: a session's other transactions keep the server's setting."""
    if store.engine.dialect.name != "postgresql":
        return
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    show = "SHOW idle_in_transaction_session_timeout"
    with store.engine.connect() as c:
        default = c.exec_driver_sql(show).scalar_one()
        c.commit()
        with c.begin():
            before = c.exec_driver_sql(show).scalar_one()
            check_fence(c, "t1", a.token)
            inside = c.exec_driver_sql(show).scalar_one()
        after = c.exec_driver_sql(show).scalar_one()
    assert before == default
    assert inside == f"{PAUSED_HOLDER_LIMIT_MS}ms" or inside == "1s"
    assert after == default != inside


def test_bad_input_is_refused_and_nothing_is_written(store: Store) -> None:
    for args in (("", "a"), ("t1", ""), ("x" * 200, "a")):
        with pytest.raises(InvalidInput):
            store.acquire_lease(args[0], args[1], "addr", TTL, 0)
    with pytest.raises(InvalidInput):
        store.acquire_lease("t1", "a", "addr", 0, 0)
    assert store.current_lease("t1", 0) is None


def test_a_batch_with_a_stale_token_is_refused_and_nothing_is_written(
    store: Store, dealer: Signer
) -> None:
    a = store.acquire_lease("t1", "dealer-a", "a", TTL, 0)
    b = store.acquire_lease("t1", "dealer-b", "b", TTL, 5_000)
    w = StreamWriter("h1")
    w.append(dealer, "bet", {"i": 1})
    evs = w.take()
    info = [StreamInfo("h1", "hand", "baccarat", "t1", None, 1_000)]
    with pytest.raises(StaleFencingToken), store.transaction() as tx:
        tx.fence("t1", a.token)
        tx.append(evs, [seal(dealer, heads_of(evs), 1_000)], info)
    assert store.head("h1") is None
    with store.transaction() as tx:
        tx.fence("t1", b.token)
        tx.append(evs, [seal(dealer, heads_of(evs), 1_000)], info)
    assert store.head("h1") is not None


def test_orphaned_tables_are_open_with_an_unfinished_hand_and_no_live_lease(
    store: Store,
) -> None:
    """The replicas' adoption sweep: open tables with a hand in progress whose lease ran
    out or was released; not a live lease, a closed table, a table
    between hands, or a table nobody ever leased (in table id order)."""
    from croupier.store import TableRecord

    def table(t: str, status: str = "open", hand: str | None = "h") -> TableRecord:
        return TableRecord(t, "blackjack.multi", "", status, None, 0, 0, hand and f"{t}_{hand}")

    store.put_tables(
        [
            table("dead"),
            table("released"),
            table("live"),
            table("closed", status="closed", hand=None),
            table("between", hand=None),
            table("never"),
        ]
    )
    store.acquire_lease("dead", "dealer-a", "a", TTL, 0)  # expires at 1_000
    rel = store.acquire_lease("released", "dealer-a", "a", TTL, 100)
    assert store.release_lease("released", "dealer-a", rel.token, 500)  # expired at 500
    store.acquire_lease("live", "dealer-b", "b", TTL, 1_500)
    store.acquire_lease("closed", "dealer-a", "a", TTL, 0)
    store.acquire_lease("between", "dealer-a", "a", TTL, 0)
    assert store.orphaned_tables(999) == [("released", "blackjack.multi")]
    assert store.orphaned_tables(2_000) == [
        ("dead", "blackjack.multi"),
        ("released", "blackjack.multi"),
    ]
    assert store.orphaned_tables(2_000, limit=1) == [("dead", "blackjack.multi")]
    store.acquire_lease("dead", "dealer-b", "b", TTL, 2_000)  # adopted: no longer orphaned
    assert store.orphaned_tables(2_400) == [("released", "blackjack.multi")]


def test_every_held_lease_renewed_in_one_transaction(store: Store) -> None:
    """``renew_leases``: every lease as held renewed at once, past one statement's chunk
    of ids; one taken over, one released and one extended by its holder since it was
    read are not renewed (and not changed)."""
    held = {
        f"t{i:04d}": store.acquire_lease(f"t{i:04d}", "dealer-a", "a", TTL, 0) for i in range(1_001)
    }
    store.release_lease("t0500", "dealer-a", held["t0500"].token, 100)
    store.acquire_lease("t0500", "dealer-b", "b", TTL, 200)  # taken over
    store.release_lease("t0007", "dealer-a", held["t0007"].token, 300)
    extended = store.acquire_lease("t0999", "dealer-a", "a", TTL, 300)
    renewed, lost = store.renew_leases(held, "dealer-a", TTL, 400)
    assert lost == ["t0007", "t0500", "t0999"]
    assert sorted(renewed) == sorted(set(held) - set(lost))
    assert all(lease.expires_at_ms == 400 + TTL for lease in renewed.values())
    assert store.current_lease("t0001", 400 + TTL - 1) == renewed["t0001"]
    assert store.current_lease("t0007", 401) is None
    assert store.current_lease("t0500", 401).owner == "dealer-b"  # type: ignore[union-attr]
    assert store.current_lease("t0999", 401) == extended
    assert store.renew_leases({}, "dealer-a", TTL, 500) == ({}, [])
