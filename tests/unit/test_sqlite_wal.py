"""A new connection's switch to WAL waits out other connections' locks: SQLite answers
"database is locked" at once (without its busy handler) where waiting could deadlock,
which several processes opening one new database file at once can hit; the switch is
retried up to the busy timeout, and any other error is raised at once."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from croupier.store import db


def test_the_wal_switch_is_retried_while_another_connection_holds_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM t").fetchall()  # a shared lock, held
    # timeout=0: no busy handler, so the driver answers "locked" at once, as SQLite
    # does when waiting could deadlock.
    opener = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        opener.execute("PRAGMA journal_mode=WAL")
    release = threading.Timer(0.2, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    cursor = opener.cursor()
    db._enter_wal(cursor)
    waited = time.monotonic() - started
    release.join()
    assert opener.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert waited >= 0.15  # it waited for the holder, it did not skip the switch
    opener.close()
    holder.close()


class _Raising:
    """A cursor whose every statement fails with ``message``; counts the tries."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.calls = 0

    def execute(self, sql: str) -> None:
        self.calls += 1
        raise sqlite3.OperationalError(self.message)


def test_other_errors_are_not_retried() -> None:
    cursor = _Raising("disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        db._enter_wal(cursor)
    assert cursor.calls == 1


def test_a_lock_that_outlasts_the_busy_timeout_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 50)
    cursor = _Raising("database is locked")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        db._enter_wal(cursor)
    assert cursor.calls > 1


def test_every_connection_gets_the_bounded_page_cache(tmp_path: Path) -> None:
    """The page cache is bounded per connection (its pages are held in the process's
    memory as the store grows), on every connection of the pool."""
    engine = db.create_engine(f"sqlite:///{tmp_path / 'c.sqlite'}")
    with engine.connect() as a, engine.connect() as b:
        for c in (a, b):
            assert c.exec_driver_sql("PRAGMA cache_size").scalar() == -db.SQLITE_CACHE_KIB
    assert db.SQLITE_CACHE_KIB <= 8192
    engine.dispose()
