"""Safe concurrent first start: several service processes starting at the same moment
against a new, empty database (a fresh PostgreSQL schema, or a new SQLite file) all come
up. Each runs the start-up path of every service — migrate to head
(:func:`croupier.store.migrate`, under its lock) and register the producer keys
(:func:`croupier.store.keys.put_key`, idempotent under concurrency) — after waiting at a
common barrier, so the migrations and the registrations really race."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from croupier.signing import PRODUCERS
from croupier.store import Store, current_revision, head_revisions
from croupier_services.keys import init_keys

from .harness import Database

pytestmark = pytest.mark.integration

PROCESSES = 5

START = """
import sys, time
from pathlib import Path
from croupier_services.keys import TrustedKeys
from croupier_services.runtime import load_signers, open_store
url, keys, barrier = sys.argv[1], sys.argv[2], Path(sys.argv[3])
(barrier / f"ready-{sys.argv[4]}").touch()
deadline = time.monotonic() + 60
while not (barrier / "go").exists():
    if time.monotonic() > deadline:
        sys.exit("no go")
    time.sleep(0.002)
store = open_store(url)
load_signers(store, keys, ("dealer", "rules", "settlement"), TrustedKeys.from_dir(Path(keys)))
print(len(store.list_keys()))
store.close()
"""


def test_processes_starting_at_once_on_a_new_database_all_come_up(
    database: Database, tmp_path: Path
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    init_keys(keys)  # the deployment's key files, shared by the processes
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", START, database.cli_url, str(keys), str(barrier), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(PROCESSES)
    ]
    try:
        deadline = time.monotonic() + 120
        while len(list(barrier.glob("ready-*"))) < PROCESSES:
            assert time.monotonic() < deadline, "processes did not get ready"
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.01)
        (barrier / "go").touch()
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    failures = [
        f"process {i} exited {p.returncode}:\n{err}"
        for i, (p, (_, err)) in enumerate(zip(procs, results, strict=True))
        if p.returncode
    ]
    assert not failures, "\n".join(failures)
    assert [out.strip() for out, _ in results] == [str(len(PRODUCERS))] * PROCESSES
    store = Store.open(database.url, schema=database.schema)
    try:
        assert current_revision(store.engine) == head_revisions()[0]
        assert sorted(k.producer for k in store.list_keys()) == sorted(PRODUCERS)
    finally:
        store.close()
