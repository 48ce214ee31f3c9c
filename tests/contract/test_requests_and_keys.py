"""Store contract for gateway request records and for concurrent key registration, on
every backend."""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy as sa

from croupier.errors import IdempotencyConflict
from croupier.signing import FileSigner
from croupier.store import RequestRecord, Store, migrate
from croupier.store.db import write_connection
from croupier.store.keys import put_key
from croupier.store.requests import replay, request_hash


def _rec(
    rid: str, body: bytes = b"req", at: int = 1_000, method: str = "PlaceBets"
) -> RequestRecord:
    return RequestRecord(rid, method, request_hash(method, body), b"response:" + body, at)


def test_a_record_is_stored_with_its_effect_and_replayed(store: Store) -> None:
    assert store.get_request("r1") is None
    with store.transaction() as uow:
        uow.put_request(_rec("r1"))
    got = store.get_request("r1")
    assert got == _rec("r1")
    assert replay(got, "PlaceBets", request_hash("PlaceBets", b"req")) == b"response:req"
    assert replay(None, "PlaceBets", b"x" * 32) is None
    with pytest.raises(IdempotencyConflict):  # same id, other request
        replay(got, "PlaceBets", request_hash("PlaceBets", b"other"))
    with pytest.raises(IdempotencyConflict):  # same id, other method
        replay(got, "Act", request_hash("Act", b"req"))
    # a second record under the id rolls back the whole transaction
    with pytest.raises(IdempotencyConflict), store.transaction() as uow:
        uow.put_request(_rec("r2"))
        uow.put_request(_rec("r1", b"again"))
    assert store.get_request("r2") is None
    assert store.count_requests() == 1


def test_a_group_of_records_is_one_insert_that_names_a_taken_id(store: Store) -> None:
    with store.transaction() as uow:
        uow.put_requests([_rec("g1"), _rec("g2", b"two"), _rec("g3", b"three")])
    assert [store.get_request(r) for r in ("g1", "g2", "g3")] == [
        _rec("g1"),
        _rec("g2", b"two"),
        _rec("g3", b"three"),
    ]
    # one id of the group already taken: the group's transaction rolls back whole
    with pytest.raises(IdempotencyConflict, match="'g2'"), store.transaction() as uow:
        uow.put_requests([_rec("g4"), _rec("g2", b"again"), _rec("g5")])
    # the same id twice in one group: the second is taken by the first
    with pytest.raises(IdempotencyConflict, match="'g6'"), store.transaction() as uow:
        uow.put_requests([_rec("g6"), _rec("g6", b"twice")])
    assert [store.get_request(r) for r in ("g4", "g5", "g6")] == [None, None, None]
    assert store.count_requests() == 3
    with store.transaction() as uow:
        uow.put_requests([])  # nothing to store


def test_prune_removes_only_records_older_than_the_cut(store: Store) -> None:
    with store.transaction() as uow:
        for i in range(5):
            uow.put_request(_rec(f"p{i}", at=100 * i))
    assert store.prune_requests(0) == 0
    assert store.prune_requests(250, limit=1) == 1
    assert store.prune_requests(250) == 2  # p1, p2
    assert sorted(r for r in ("p0", "p1", "p2", "p3", "p4") if store.get_request(r)) == [
        "p3",
        "p4",
    ]


def test_concurrent_registration_of_one_key_never_fails(engine: sa.Engine) -> None:
    """Two processes register the same key at once: the second waits for the first and
    finds the key there (False), instead of failing on the primary key."""
    entry = FileSigner.generate("dealer").public_entry()
    results: list[object] = []

    def second() -> None:
        try:
            with write_connection(engine) as conn:
                results.append(put_key(conn, entry))
        except Exception as e:  # reported below
            results.append(e)

    t = threading.Thread(target=second)
    with write_connection(engine) as conn:
        assert put_key(conn, entry) is True
        t.start()
        time.sleep(0.3)  # the second registration is now waiting on the first
        assert not results
    t.join(30)
    assert results == [False]
    other = FileSigner.generate("dealer", entry.key_id).public_entry()  # same id, other key
    with pytest.raises(IdempotencyConflict), write_connection(engine) as conn:
        put_key(conn, other)


def test_migrating_an_up_to_date_database_again_is_a_no_op(engine: sa.Engine) -> None:
    migrate(engine)
    migrate(engine)
    assert Store(engine).count_requests() == 0
