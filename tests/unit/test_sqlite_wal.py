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
from sqlalchemy import exc as sa_exc

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


# --- the write lock: BEGIN IMMEDIATE in short pauses, not SQLite's busy-handler ladder


def _busy_timeout(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA busy_timeout").fetchone()[0])


def _wal_pair(tmp_path: Path) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    path = tmp_path / "w.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE t (x INTEGER)")
    writer = sqlite3.connect(path, isolation_level=None, timeout=db.BUSY_TIMEOUT_MS / 1000)
    return holder, writer


def test_a_writer_takes_the_lock_once_the_holder_lets_go(tmp_path: Path) -> None:
    holder, writer = _wal_pair(tmp_path)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.2, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    db.begin_immediate(writer)
    waited = time.monotonic() - started
    release.join()
    assert waited >= 0.15  # it waited for the holder
    assert writer.in_transaction
    writer.execute("INSERT INTO t VALUES (1)")  # it holds the write lock now
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        holder.execute("BEGIN IMMEDIATE")  # (the holder's busy timeout is 5 s)
    writer.execute("COMMIT")
    assert _busy_timeout(writer) == db.BUSY_TIMEOUT_MS  # the busy timeout is back
    holder.close()
    writer.close()


def test_a_lock_held_past_the_timeout_is_raised_and_the_busy_timeout_restored(
    tmp_path: Path,
) -> None:
    holder, writer = _wal_pair(tmp_path)
    holder.execute("PRAGMA busy_timeout=0")
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        db.begin_immediate(writer, timeout_ms=50)
    assert not writer.in_transaction
    assert _busy_timeout(writer) == db.BUSY_TIMEOUT_MS
    holder.execute("ROLLBACK")
    holder.close()
    writer.close()


class _Busy:
    """A DB-API connection whose ``BEGIN IMMEDIATE`` finds the lock taken ``busy`` times;
    records every statement."""

    def __init__(
        self, busy: int, error: str = "database is locked", code: int | None = None
    ) -> None:
        self.busy = busy
        self.error = error
        self.code = code
        self.statements: list[str] = []

    def cursor(self) -> _Busy:
        return self

    def close(self) -> None:
        self.statements.append("close")

    def execute(self, sql: str) -> None:
        self.statements.append(sql)
        if sql == "BEGIN IMMEDIATE" and self.busy:
            self.busy -= 1
            err = sqlite3.OperationalError(self.error)
            code = sqlite3.SQLITE_BUSY if "locked" in self.error else 1
            err.sqlite_errorcode = code if self.code is None else self.code  # type: ignore[attr-defined]
            raise err


def test_the_pauses_start_at_100_us_and_double_to_2_ms(monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own handler would sleep 1, 2, 5, 10, 15… ms: 18 ms before a fifth try."""
    pauses: list[float] = []
    monkeypatch.setattr(db.time, "sleep", pauses.append)
    conn = _Busy(busy=7)
    db.begin_immediate(conn)
    assert pauses == pytest.approx([0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.002, 0.002])
    assert conn.statements == [
        "PRAGMA busy_timeout=0",
        *["BEGIN IMMEDIATE"] * 8,
        f"PRAGMA busy_timeout={db.BUSY_TIMEOUT_MS}",
        "close",
    ]


@pytest.mark.parametrize(
    "code",
    [sqlite3.SQLITE_BUSY_RECOVERY, sqlite3.SQLITE_BUSY_SNAPSHOT, sqlite3.SQLITE_BUSY_TIMEOUT],
    ids=["recovery", "snapshot", "timeout"],
)
def test_the_extended_forms_of_busy_are_waited_out(
    monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """The driver gives SQLite's extended code: a write lock refused as SQLITE_BUSY_SNAPSHOT
    or SQLITE_BUSY_RECOVERY (processes opening a new database at once) is the lock taken,
    not an error to raise."""
    pauses: list[float] = []
    monkeypatch.setattr(db.time, "sleep", pauses.append)
    conn = _Busy(busy=2, code=code)
    db.begin_immediate(conn)
    assert len(pauses) == 2
    assert conn.statements.count("BEGIN IMMEDIATE") == 3


@pytest.mark.parametrize("code", [sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR_LOCK])
def test_a_lock_error_that_is_not_busy_is_raised_at_once(
    monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    monkeypatch.setattr(db.time, "sleep", lambda _s: None)
    conn = _Busy(busy=1, error="locked elsewhere", code=code)
    with pytest.raises(sqlite3.OperationalError, match="locked elsewhere"):
        db.begin_immediate(conn)
    assert conn.statements.count("BEGIN IMMEDIATE") == 1


def test_an_error_other_than_busy_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []
    monkeypatch.setattr(db.time, "sleep", pauses.append)
    conn = _Busy(busy=1, error="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        db.begin_immediate(conn)
    assert pauses == []
    assert conn.statements[-2:] == [f"PRAGMA busy_timeout={db.BUSY_TIMEOUT_MS}", "close"]


def test_the_engine_begins_its_write_transactions_this_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = db.create_engine(f"sqlite:///{tmp_path / 'e.sqlite'}")
    calls: list[object] = []
    real = db.begin_immediate
    monkeypatch.setattr(db, "begin_immediate", lambda c: (calls.append(c), real(c))[1])
    with db.write_connection(engine) as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    with db.read_connection(engine) as conn:
        conn.exec_driver_sql("SELECT count(*) FROM t").scalar()
    assert len(calls) == 1  # the write, not the read
    engine.dispose()


def test_the_engine_words_a_lock_timeout_as_sqlalchemy_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock held past the timeout is SQLAlchemy's ``OperationalError`` (what the
    consumers count as the database being unavailable), as before."""
    engine = db.create_engine(f"sqlite:///{tmp_path / 'e.sqlite'}")
    with db.write_connection(engine) as conn:
        conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    real = db.begin_immediate
    monkeypatch.setattr(db, "begin_immediate", lambda c: real(c, timeout_ms=50))
    holder = sqlite3.connect(tmp_path / "e.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with (
        pytest.raises(sa_exc.OperationalError, match="locked"),
        db.write_connection(engine) as conn,
    ):
        conn.exec_driver_sql("INSERT INTO t VALUES (1)")
    holder.execute("ROLLBACK")
    with db.write_connection(engine) as conn:  # the pool's connection still works
        conn.exec_driver_sql("INSERT INTO t VALUES (1)")
    holder.close()
    engine.dispose()
