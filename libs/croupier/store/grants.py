"""Table grants: which gateways may act at a table.

A gateway that opens a table is granted it (``how='open'``); an operator may grant a
table to another gateway (``croupier auth grant``, ``how='operator'``). Rows are
append-only (migration ``0002`` triggers): a grant is history, like the events it
allows.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.errors import InvalidInput
from croupier.store import schema
from croupier.store.db import Database

_G = schema.table_grants


def grant_table(conn: Connection, table_id: str, gateway: str, at_ms: int, how: str) -> bool:
    """Grant ``table_id`` to ``gateway``; ``True`` if the grant is new."""
    if not isinstance(table_id, str) or not 0 < len(table_id) <= schema.ID_LEN:
        raise InvalidInput(f"table_id must be a string of 1..{schema.ID_LEN} characters")
    if not isinstance(gateway, str) or not 0 < len(gateway) <= 128:
        raise InvalidInput("a gateway subject is 1..128 characters")
    if how not in ("open", "operator"):
        raise InvalidInput("a grant is made by 'open' or 'operator'")
    exists = conn.execute(
        sa.select(_G.c.gateway).where(_G.c.table_id == table_id, _G.c.gateway == gateway)
    ).first()
    if exists is not None:
        return False
    conn.execute(
        _G.insert(),
        {"table_id": table_id, "gateway": gateway, "how": how, "granted_at_ms": at_ms},
    )
    return True


def table_owners(conn: Connection, table_id: str) -> frozenset[str]:
    rows = conn.execute(sa.select(_G.c.gateway).where(_G.c.table_id == table_id))
    return frozenset(str(r[0]) for r in rows)


class GrantStore(Database):
    def grant_table(self, table_id: str, gateway: str, at_ms: int, how: str = "open") -> bool:
        with self._write() as conn:
            return grant_table(conn, table_id, gateway, at_ms, how)

    def table_owners(self, table_id: str) -> frozenset[str]:
        with self._read() as conn:
            return table_owners(conn, table_id)
