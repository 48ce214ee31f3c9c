"""Table grants: which gateways may act at a table.

A gateway that opens a table is granted it (``how='open'``); an operator may grant a
table to another gateway (``croupier auth grant``, ``how='operator'``) and revoke a
gateway's grant (``croupier auth revoke``). Both tables are append-only (migrations
``0005`` and ``0009`` triggers): a grant is history, like the events it allows, so a
revocation does not delete it but appends a ``revoke`` row to ``table_grant_changes``
(an operator's later grant appends ``grant``); a gateway holds a table while it has a
grant and the latest change, if any, is ``grant``.

Because both tables only grow, what a reader once saw can change in two ways only: a
gateway is granted a table (a new ``table_grants`` row, or a ``grant`` change after a
revocation), or a grant is revoked (a ``revoke`` change). A reader that remembers a
table's holders (:func:`table_grants`) together with the number of that table's
changes it saw (:attr:`TableGrants.changes`) can therefore tell, from that number alone
(:func:`change_counts`), whether anything it remembered may have been revoked since:
the dealer keeps the holders in memory on that basis (see
:class:`croupier_services.grants.GrantCache`) and checks the number again in the
transaction that stores each call, so a revocation still holds from the next call on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.errors import InvalidInput
from croupier.store import schema
from croupier.store.db import IDS, Database

_G = schema.table_grants
_C = schema.table_grant_changes
_COUNTS_IN = (
    sa.select(_C.c.table_id, sa.func.count()).where(_C.c.table_id.in_(IDS)).group_by(_C.c.table_id)
)


@dataclass(frozen=True)
class GrantChange:
    """One revocation or re-grant, as recorded."""

    table_id: str
    gateway: str
    change: str
    by: str
    at_ms: int


def _check(table_id: str, gateway: str) -> None:
    if not isinstance(table_id, str) or not 0 < len(table_id) <= schema.ID_LEN:
        raise InvalidInput(f"table_id must be a string of 1..{schema.ID_LEN} characters")
    if not isinstance(gateway, str) or not 0 < len(gateway) <= 128:
        raise InvalidInput("a gateway subject is 1..128 characters")
    if "\x00" in table_id or "\x00" in gateway:
        raise InvalidInput("a table id or gateway subject cannot contain NUL")


def _latest_change() -> sa.ScalarSelect[str]:
    return (
        sa.select(_C.c.change)
        .where(_C.c.table_id == _G.c.table_id, _C.c.gateway == _G.c.gateway)
        .order_by(_C.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )


def _state(conn: Connection, table_id: str, gateway: str) -> str | None:
    """``None`` (never granted), ``'grant'`` (holds it) or ``'revoke'``."""
    row = conn.execute(
        sa.select(_latest_change()).where(_G.c.table_id == table_id, _G.c.gateway == gateway)
    ).first()
    if row is None:
        return None
    return "revoke" if row[0] == "revoke" else "grant"


def grant_table(conn: Connection, table_id: str, gateway: str, at_ms: int, how: str) -> bool:
    """Grant ``table_id`` to ``gateway``; ``True`` if the gateway did not hold it.

    Only an operator's grant (``how='operator'``) reinstates a revoked one; a table
    opening (``'open'``) never does."""
    _check(table_id, gateway)
    if how not in ("open", "operator"):
        raise InvalidInput("a grant is made by 'open' or 'operator'")
    state = _state(conn, table_id, gateway)
    if state == "grant":
        return False
    if state == "revoke":
        if how != "operator":
            return False
        _record(conn, table_id, gateway, "grant", how, at_ms)
        return True
    conn.execute(
        _G.insert(),
        {"table_id": table_id, "gateway": gateway, "how": how, "granted_at_ms": at_ms},
    )
    return True


def revoke_table(
    conn: Connection, table_id: str, gateway: str, at_ms: int, by: str = "operator"
) -> bool:
    """Revoke ``gateway``'s grant of ``table_id``; ``True`` if it held the table."""
    _check(table_id, gateway)
    if not isinstance(by, str) or not 0 < len(by) <= 128:
        raise InvalidInput("who revokes is named in 1..128 characters")
    if _state(conn, table_id, gateway) != "grant":
        return False
    _record(conn, table_id, gateway, "revoke", by, at_ms)
    return True


def _record(conn: Connection, table_id: str, gateway: str, change: str, by: str, at: int) -> None:
    conn.execute(
        _C.insert(),
        {"table_id": table_id, "gateway": gateway, "change": change, "changed_by": by, "at_ms": at},
    )


def table_owners(conn: Connection, table_id: str) -> frozenset[str]:
    """The gateways that hold ``table_id`` now (granted, not since revoked)."""
    latest = _latest_change()
    rows = conn.execute(sa.select(_G.c.gateway, latest).where(_G.c.table_id == table_id))
    return frozenset(str(r[0]) for r in rows if r[1] != "revoke")


@dataclass(frozen=True)
class TableGrants:
    """A table's holders as read at one moment, with the number of the table's recorded
    changes (revocations and re-grants) read just BEFORE them: if the store still
    counts ``changes`` for the table, nothing of ``owners`` was revoked since."""

    table_id: str
    owners: frozenset[str]
    changes: int


def table_grants(conn: Connection, table_id: str) -> TableGrants:
    """``table_id``'s holders and its change count. The count is read first: a change
    landing between the two reads leaves a count lower than the holders reflect, which
    a later :func:`change_counts` sees as a change (a needless re-check, never a missed
    revocation)."""
    changes = change_counts(conn, [table_id]).get(table_id, 0)
    return TableGrants(table_id, table_owners(conn, table_id), changes)


def change_counts(conn: Connection, table_ids: Sequence[str]) -> dict[str, int]:
    """How many changes (revocations, re-grants) each of ``table_ids`` has recorded
    (tables without any are absent); one indexed read for all of them."""
    if not table_ids:
        return {}
    rows = conn.execute(_COUNTS_IN, {"ids": sorted(set(table_ids))})
    return {str(r[0]): int(r[1]) for r in rows}


def holds(conn: Connection, table_id: str, gateway: str) -> bool:
    """Whether ``gateway`` holds ``table_id`` now."""
    return _state(conn, table_id, gateway) == "grant"


def grant_changes(conn: Connection, table_id: str) -> list[GrantChange]:
    """The revocations and re-grants of ``table_id``, oldest first."""
    rows = conn.execute(
        sa.select(_C.c.table_id, _C.c.gateway, _C.c.change, _C.c.changed_by, _C.c.at_ms)
        .where(_C.c.table_id == table_id)
        .order_by(_C.c.id)
    )
    return [GrantChange(str(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4])) for r in rows]


class GrantStore(Database):
    def grant_table(self, table_id: str, gateway: str, at_ms: int, how: str = "open") -> bool:
        with self._write() as conn:
            return grant_table(conn, table_id, gateway, at_ms, how)

    def revoke_table(self, table_id: str, gateway: str, at_ms: int, by: str = "operator") -> bool:
        with self._write() as conn:
            return revoke_table(conn, table_id, gateway, at_ms, by)

    def table_owners(self, table_id: str) -> frozenset[str]:
        with self._read() as conn:
            return table_owners(conn, table_id)

    def table_grants(self, table_id: str) -> TableGrants:
        with self._read() as conn:
            return table_grants(conn, table_id)

    def grant_changes(self, table_id: str) -> list[GrantChange]:
        with self._read() as conn:
            return grant_changes(conn, table_id)
