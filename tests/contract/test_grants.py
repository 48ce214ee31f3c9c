"""Table grants and their revocation: the latest change decides, history is kept and
append-only (both backends)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from croupier.errors import InvalidInput
from croupier.store import Store


def test_a_revoked_grant_is_gone_from_the_owners_and_kept_in_history(store: Store) -> None:
    assert store.grant_table("t1", "gw-a", 1, "open")
    assert store.grant_table("t1", "gw-b", 2, "operator")
    assert store.table_owners("t1") == {"gw-a", "gw-b"}
    assert store.revoke_table("t1", "gw-a", 3)
    assert store.table_owners("t1") == {"gw-b"}
    # revoking again, or a grant nobody holds, changes nothing
    assert not store.revoke_table("t1", "gw-a", 4)
    assert not store.revoke_table("t1", "gw-nobody", 4)
    assert not store.revoke_table("t2", "gw-a", 4)
    # re-opening does not reinstate a revoked grant; an operator's grant does
    assert not store.grant_table("t1", "gw-a", 5, "open")
    assert store.table_owners("t1") == {"gw-b"}
    assert store.grant_table("t1", "gw-a", 6, "operator")
    assert not store.grant_table("t1", "gw-a", 7, "operator")
    assert store.table_owners("t1") == {"gw-a", "gw-b"}
    assert store.revoke_table("t1", "gw-b", 8, "ops-alice")
    assert store.table_owners("t1") == {"gw-a"}
    hist = [(c.gateway, c.change, c.by, c.at_ms) for c in store.grant_changes("t1")]
    assert hist == [
        ("gw-a", "revoke", "operator", 3),
        ("gw-a", "grant", "operator", 6),
        ("gw-b", "revoke", "ops-alice", 8),
    ]
    assert store.grant_changes("t2") == []
    # another table's grants are untouched
    assert store.grant_table("t2", "gw-a", 9, "open")
    assert store.table_owners("t2") == {"gw-a"}


def test_bad_revocations_are_refused_and_write_nothing(store: Store) -> None:
    store.grant_table("t1", "gw-a", 1, "open")
    for table, gw, by in (
        ("", "gw-a", "op"),
        ("t1", "", "op"),
        ("t1", "gw-a", ""),
        ("x" * 129, "gw-a", "op"),
        ("t1", "g\x00w", "op"),
    ):
        with pytest.raises(InvalidInput):
            store.revoke_table(table, gw, 2, by)
    assert store.grant_changes("t1") == []
    assert store.table_owners("t1") == {"gw-a"}


@pytest.mark.parametrize(
    "sql", ["UPDATE table_grant_changes SET change = 'grant'", "DELETE FROM table_grant_changes"]
)
def test_grant_changes_are_append_only(store: Store, sql: str) -> None:
    store.grant_table("t1", "gw-a", 1, "open")
    store.revoke_table("t1", "gw-a", 2)
    with pytest.raises(sa.exc.DBAPIError) as err, store.engine.begin() as conn:
        conn.exec_driver_sql(sql)
    assert "append-only" in str(err.value)
    assert store.table_owners("t1") == frozenset()
