"""Alembic environment for the Croupier store.

The database URL comes from ``CROUPIER_DATABASE_URL`` (default
``sqlite:///var/croupier.sqlite``); bare ``postgresql://`` URLs use psycopg 3. When a
caller hands a connection in ``config.attributes["connection"]`` (see
:func:`croupier.store.db.migrate`), the migration runs on it, inside the caller's
transaction. ``target_metadata`` is :data:`croupier.store.schema.metadata`, so
``alembic check`` reports any drift between the migrations and the schema module.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from croupier.store.db import (
    DEFAULT_URL,
    create_engine,
    lock_for_migration,
    normalise_url,
    write_connection,
)
from croupier.store.schema import metadata

config = context.config
target_metadata = metadata

if config.config_file_name is not None and "connection" not in config.attributes:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    return normalise_url(os.environ.get("CROUPIER_DATABASE_URL") or DEFAULT_URL)


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
        transactional_ddl=True,
    )


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    given = config.attributes.get("connection")
    if isinstance(given, Connection):
        _configure(given)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(_url())
    try:
        with write_connection(engine) as connection:
            lock_for_migration(connection)  # concurrent `alembic upgrade`s take turns
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
