"""``python -m croupier.store.check [URL ...]``: the migration invariants CI relies on.

1. The migration scripts have exactly one head.
2. A database freshly migrated to that head matches :data:`croupier.store.schema.metadata`
   (Alembic's autogenerate comparison finds no difference — what ``alembic check``
   reports).

Without arguments the check runs on a temporary SQLite file, and also on PostgreSQL
(in a throw-away schema) when ``CROUPIER_TEST_DATABASE_URL`` is set. Exit status 0 when
every check passes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Sequence

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from croupier.store.db import create_engine, head_revisions, migrate, normalise_url
from croupier.store.schema import metadata


def schema_diffs(engine: sa.Engine) -> list[object]:
    """Differences between the migrated database and the schema module."""
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, metadata))


def check_url(url: str) -> list[str]:
    """Migrate a fresh database at ``url`` (a PostgreSQL server gets a throw-away schema)
    and return the problems found."""
    url = normalise_url(url)
    if sa.make_url(url).get_backend_name() == "sqlite":
        engine = create_engine(url)
        try:
            migrate(engine)
            return [f"drift: {d}" for d in schema_diffs(engine)]
        finally:
            engine.dispose()
    schema = f"croupier_check_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        engine = create_engine(url, schema=schema)
        try:
            migrate(engine)
            return [f"drift: {d}" for d in schema_diffs(engine)]
        finally:
            engine.dispose()
            with admin.connect() as c:
                c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        admin.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    urls = list(sys.argv[1:] if argv is None else argv)
    problems: list[str] = []
    heads = head_revisions()
    if len(heads) != 1:
        problems.append(f"expected exactly one migration head, found {list(heads)}")
    with tempfile.TemporaryDirectory() as tmp:
        if not urls:
            urls = [f"sqlite:///{tmp}/check.sqlite"]
            pg = os.environ.get("CROUPIER_TEST_DATABASE_URL")
            if pg:
                urls.append(pg)
        for url in urls:
            backend = sa.make_url(normalise_url(url)).get_backend_name()
            found = check_url(url)
            problems += [f"{backend}: {p}" for p in found]
            print(f"{backend}: {'ok' if not found else f'{len(found)} problem(s)'}")
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"migrations: one head ({heads[0]}), schema matches the models")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
