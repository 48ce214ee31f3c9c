"""PostgreSQL roles per service, with only the grants each service needs.

``croupier db roles`` (after ``croupier db upgrade``, run by the schema owner) creates
or updates five roles, ``<prefix>dealer``, ``<prefix>rules``, ``<prefix>settlement``,
``<prefix>audit`` and ``<prefix>log`` (the checkpoint publisher: reads ``tlog_leaves``,
``tlog_nodes``, ``keys``; reads and inserts ``tlog_checkpoints``; nothing else), and
grants them, table by table:

| table | dealer | rules | settlement | audit |
|---|---|---|---|---|
(``...``: as the column before)
| ``streams`` | read, insert | read | read | read |
| ``events``, ``seals``, ``seal_heads``, ``tlog_*`` | read, insert | read, insert | ... | read |
| ``tlog_checkpoints`` | — | — | — | read |
| ``keys`` | read | read | read | read |
| ``dealer_secrets`` | read, insert | — | — | — |
| ``table_grants`` | read, insert | — | — | — |
| ``table_grant_changes`` | read | — | — | — |
| ``dealer_tables`` | read, insert, update | — | — | read |
| ``gateway_requests`` | read, insert, delete | — | — | — |
| ``ledger_transactions``, ``ledger_postings``, ``settlements`` | — | — | read, insert | read |
| ``ledger_totals`` | — | — | read, insert, update | read |
| ``outbox`` | read, insert, delete | read, insert, delete | read, insert, delete | — |
| ``dead_letters`` | — | read, insert | read, insert | read |
| ``alembic_version`` | read | read | read | read |

No role may UPDATE anything but the dealer's table registry (a derived index of the log,
updated in place) and the settlement's running ledger totals (derived from the postings
in their transaction; the whole-log audit checks them against the sums), nor DELETE
outside the outbox (whose relay deletes what JetStream
acknowledged) and the dealer's expired gateway request ids (the history tables' append-
only triggers refuse it even to the owner); keys are registered and revoked, and log
checkpoints signed by the log role (or the owner) only. The roles are ``NOLOGIN`` groups
unless login passwords are given, so a deployment can either log in as them (compose,
k8s: one database identity per service) or grant them to login users of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from croupier.errors import InvalidInput

SERVICES = ("dealer", "rules", "settlement", "audit", "log")
_LOG = ("events", "seals", "seal_heads", "tlog_leaves", "tlog_nodes")
"""What every producer appends in the transaction of its events: the transparency log's
leaf for each seal and the tree's new right edge come with the seal."""
_MONEY = ("ledger_transactions", "ledger_postings", "settlements")

GRANTS: dict[str, dict[str, str]] = {
    "dealer": {
        "streams": "SELECT, INSERT",
        **{t: "SELECT, INSERT" for t in _LOG},
        "keys": "SELECT",
        "dealer_secrets": "SELECT, INSERT",
        "table_grants": "SELECT, INSERT",
        "table_grant_changes": "SELECT",  # revoked by an operator, honoured by the dealer
        "dealer_tables": "SELECT, INSERT, UPDATE",
        "gateway_requests": "SELECT, INSERT, DELETE",
        "outbox": "SELECT, INSERT, DELETE",
        "alembic_version": "SELECT",
    },
    "rules": {
        "streams": "SELECT",
        **{t: "SELECT, INSERT" for t in _LOG},
        "keys": "SELECT",
        "outbox": "SELECT, INSERT, DELETE",
        "dead_letters": "SELECT, INSERT",
        "alembic_version": "SELECT",
    },
    "settlement": {
        "streams": "SELECT",
        **{t: "SELECT, INSERT" for t in _LOG},
        "keys": "SELECT",
        **{t: "SELECT, INSERT" for t in _MONEY},
        "ledger_totals": "SELECT, INSERT, UPDATE",
        "outbox": "SELECT, INSERT, DELETE",
        "dead_letters": "SELECT, INSERT",
        "alembic_version": "SELECT",
    },
    "audit": {
        "streams": "SELECT",
        **{t: "SELECT" for t in _LOG},
        "keys": "SELECT",
        "dealer_tables": "SELECT",
        "tlog_checkpoints": "SELECT",
        **{t: "SELECT" for t in _MONEY},
        "ledger_totals": "SELECT",
        "dead_letters": "SELECT",
        "alembic_version": "SELECT",
    },
    "log": {  # the checkpoint publisher: reads the tree, appends signed checkpoints
        "tlog_leaves": "SELECT",
        "tlog_nodes": "SELECT",
        "tlog_checkpoints": "SELECT, INSERT",
        "keys": "SELECT",
        "alembic_version": "SELECT",
    },
}
"""Privileges per service and table (the table in the module docstring)."""

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")


def role_name(prefix: str, service: str) -> str:
    name = f"{prefix}{service}"
    if not _IDENT.match(name):
        raise InvalidInput(f"role name {name!r} is not a plain lower-case identifier")
    return name


def statements(prefix: str, schema: str, passwords: Mapping[str, str] | None = None) -> list[str]:
    """The SQL that creates (or brings up to date) the roles and their grants."""
    if not _IDENT.match(schema):
        raise InvalidInput(f"schema {schema!r} is not a plain lower-case identifier")
    out: list[str] = []
    for svc in SERVICES:
        role = role_name(prefix, svc)
        login = "NOLOGIN"
        if passwords is not None and svc in passwords:
            login = "LOGIN PASSWORD " + _literal(passwords[svc])
        out.append(
            "DO $$ BEGIN "
            f"IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN "
            f"CREATE ROLE {role} {login}; ELSE ALTER ROLE {role} {login}; END IF; END $$"
        )
        out.append(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {role}")
        out.append(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        for table, privs in GRANTS[svc].items():
            out.append(f"GRANT {privs} ON {schema}.{table} TO {role}")
        if any("INSERT" in p for p in GRANTS[svc].values()):
            out.append(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {schema} TO {role}")
        out.append(f"ALTER ROLE {role} SET search_path = {schema}")
    return out


def _literal(text: str) -> str:
    if "\x00" in text:
        raise InvalidInput("a password cannot contain NUL")
    return "'" + text.replace("'", "''") + "'"


def create_roles(
    engine: Engine,
    prefix: str = "croupier_",
    schema: str = "public",
    passwords: Mapping[str, str] | None = None,
) -> list[str]:
    """Run :func:`statements` in one transaction; the role names."""
    if engine.dialect.name != "postgresql":
        raise InvalidInput("database roles need PostgreSQL (SQLite has no users)")
    with engine.begin() as conn:
        for stmt in statements(prefix, schema, passwords):
            conn.exec_driver_sql(stmt)
    return [role_name(prefix, s) for s in SERVICES]


def drop_roles(engine: Engine, prefix: str) -> None:
    """Remove the roles and everything granted to them (tests, decommissioning)."""
    with engine.begin() as conn:
        for svc in SERVICES:
            role = role_name(prefix, svc)
            exists = conn.execute(
                sa.text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}
            ).first()
            if exists:
                conn.exec_driver_sql(f"DROP OWNED BY {role}")
                conn.exec_driver_sql(f"DROP ROLE {role}")
