"""Table leases (:mod:`croupier.store.leases`) on every backend: one live owner per
table, fencing tokens that only grow across owners, renew/release by the holder only,
and the fence that refuses a stale token."""

from __future__ import annotations

import pytest

from croupier.errors import InvalidInput, StaleFencingToken, TableOwnedElsewhere
from croupier.events import StreamWriter, heads_of, seal
from croupier.signing import Signer
from croupier.store import Store, StreamInfo
from croupier.store.leases import check_fence

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
