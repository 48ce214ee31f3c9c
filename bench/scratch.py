"""A benchmark's own place on a shared PostgreSQL server: a schema made for the run and
dropped after it, so a run never reads what another left there (another run's hands
audited, its outbox published with a key nobody trusts) and leaves nothing behind."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa

from croupier.store.db import create_engine


@contextmanager
def own_schema(url: str) -> Iterator[str]:
    """``url`` itself for SQLite; for PostgreSQL, a new schema ``bench_<hex>`` and the
    URL with that schema first on the search path (``options=-csearch_path=…``, which
    the services' own connections carry too), the schema dropped on exit."""
    if not url.startswith(("postgresql", "postgres:")):
        yield url
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    try:
        with admin.begin() as c:
            c.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        sep = "&" if "?" in url else "?"
        try:
            yield f"{url}{sep}options=-csearch_path%3D{schema}"
        finally:
            with admin.begin() as c:
                c.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()
