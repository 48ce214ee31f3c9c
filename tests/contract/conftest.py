"""Backends for the store contract suite.

Every test that takes the ``store`` (or ``engine``) fixture runs once per backend: on
SQLite always (a fresh file in the test's temporary directory), and on PostgreSQL too
when ``CROUPIER_TEST_DATABASE_URL`` names a server (``postgresql://`` URLs are run with
psycopg 3). On PostgreSQL each test gets its own freshly created schema, migrated to
head through ``search_path`` and dropped afterwards.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

try:
    import croupier  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "libs"))

from croupier.signing import FileSigner, Signer
from croupier.store import Store, create_engine, migrate, normalise_url

PG_ENV = "CROUPIER_TEST_DATABASE_URL"


def _backends() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(PG_ENV) else ["sqlite"]


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[sa.Engine | None]:
    url = os.environ.get(PG_ENV)
    if not url:
        yield None
        return
    admin = sa.create_engine(normalise_url(url), isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


@pytest.fixture(params=_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextmanager
def engine_at(
    backend: str, tmp_path: Path, pg_admin: sa.Engine | None, revision: str = "head"
) -> Iterator[sa.Engine]:
    """A new database migrated to ``revision``: a SQLite file in ``tmp_path``, or a fresh
    PostgreSQL schema (dropped afterwards)."""
    if backend == "sqlite":
        eng = create_engine(f"sqlite:///{tmp_path / f'store-{revision}.sqlite'}")
        try:
            migrate(eng, revision)
            yield eng
        finally:
            eng.dispose()
        return
    assert pg_admin is not None
    schema = f"croupier_t_{uuid.uuid4().hex[:16]}"
    with pg_admin.connect() as c:
        c.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    eng = create_engine(os.environ[PG_ENV], schema=schema)
    try:
        migrate(eng, revision)
        yield eng
    finally:
        eng.dispose()
        with pg_admin.connect() as c:
            c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def engine(backend: str, tmp_path: Path, pg_admin: sa.Engine | None) -> Iterator[sa.Engine]:
    with engine_at(backend, tmp_path, pg_admin) as eng:
        yield eng


@pytest.fixture
def engine_at_revision(
    backend: str, tmp_path: Path, pg_admin: sa.Engine | None
) -> Callable[[str], AbstractContextManager[sa.Engine]]:
    """``engine_at_revision("0009")``: a new database of this test's backend at that
    revision (see :func:`engine_at`)."""
    return lambda revision: engine_at(backend, tmp_path, pg_admin, revision)


@pytest.fixture
def store(engine: sa.Engine) -> Store:
    return Store(engine)


@pytest.fixture(scope="session")
def dealer() -> Signer:
    return FileSigner.generate("dealer")


@pytest.fixture(scope="session")
def rules() -> Signer:
    return FileSigner.generate("rules")
