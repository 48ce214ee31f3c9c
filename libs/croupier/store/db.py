"""Engines and migrations.

:func:`create_engine` turns a URL into a configured SQLAlchemy engine:

* SQLite (``sqlite:///path``): WAL journal, ``synchronous=NORMAL``, foreign keys on, a
  busy timeout, and transactions begun by SQLAlchemy rather than by the ``sqlite3``
  driver, so that SAVEPOINTs and transactional DDL behave. Write transactions start with
  ``BEGIN IMMEDIATE`` (they take the write lock up front, so a transaction that read
  first can never fail to upgrade its lock); read transactions with a plain ``BEGIN``.
* PostgreSQL (``postgresql://``, ``postgres://`` or ``postgresql+psycopg://``): the
  psycopg 3 driver; an optional ``schema`` puts that schema first on the
  ``search_path`` (the contract tests migrate each test into its own schema).

:func:`migrate` upgrades a database to the single Alembic head programmatically; the
repository's ``alembic.ini`` drives the same scripts from the command line. Migrations run
under a lock, so any number of processes may start at once against a new database: on
PostgreSQL a transaction-scoped advisory lock (:data:`MIGRATE_LOCK`, per schema) taken
before Alembic reads the version table; on SQLite the migration's ``BEGIN IMMEDIATE``
write lock (waiting up to the busy timeout). The first process migrates; the others find
the database at head and do nothing.
"""

from __future__ import annotations

import contextlib
import operator
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeAlias, TypeVar, cast

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, Row

from croupier.errors import StoreError, StoreUnavailable

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
DEFAULT_URL = "sqlite:///var/croupier.sqlite"
BUSY_TIMEOUT_MS = 30_000
WRITE_OPTION = "croupier_write"
"""Execution option marking a connection whose next transaction will write."""

AnyRow: TypeAlias = "Row[*tuple[Any, ...]]"
"""A result row of any shape."""

MIGRATE_LOCK = 0x43524F55  # "CROU"
"""First key of the PostgreSQL advisory lock held while migrating (the second key is a
hash of the current schema, so separate schemas migrate independently)."""

_SCHEMA_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def store_outage(err: BaseException) -> StoreUnavailable | None:
    """The one mapping of connection-level database failures (SQLAlchemy
    ``OperationalError``, ``InterfaceError``, ``DisconnectionError``, or any driver error
    that cost the connection — the server ended the session: PostgreSQL's
    ``idle_in_transaction_session_timeout`` arrives as an ``InternalError`` — found on the
    error or its causes) to :class:`~croupier.errors.StoreUnavailable`; ``None``
    otherwise."""
    seen: set[int] = set()
    e: BaseException | None = err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, StoreUnavailable):
            return e
        if isinstance(
            e, (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.DisconnectionError)
        ) or (isinstance(e, sa_exc.DBAPIError) and e.connection_invalidated):
            out = StoreUnavailable(f"database unreachable ({type(e).__name__})")
            out.__cause__ = e
            return out
        e = e.__cause__ or e.__context__
    return None


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for bare PostgreSQL URLs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(engine_or_conn: Engine | Connection) -> bool:
    return engine_or_conn.dialect.name == "sqlite"


def retryable(conn: Connection) -> AbstractContextManager[Any]:
    """Where a write that re-reads and decides again when the database refuses a row
    (an append, a ledger batch, settlement records) runs its inserts.

    On PostgreSQL a savepoint: a concurrent writer's rows can refuse an insert between
    the write's read and its insert, and a failed statement would abort the whole
    transaction before it could read again. On SQLite nothing: a write transaction holds
    the database's write lock from its ``BEGIN IMMEDIATE``, so no other writer can get
    there first and a refused row is a conflict no second read resolves — the write
    raises at once (``is_sqlite``) and its caller's transaction rolls back whole, the
    rows inserted before the refused one with it. The savepoint's statement journal cost
    SQLite a temp file per commit, created, written (the original image of every page
    the write changed) and unlinked: a third of a dealer commit's file writes
    (docs/performance.md, "The writer process over 874,816 hands")."""
    return contextlib.nullcontext() if is_sqlite(conn) else conn.begin_nested()


def create_engine(url: str, *, schema: str | None = None, echo: bool = False) -> Engine:
    """A configured engine for ``url`` (see the module docstring)."""
    url = normalise_url(url)
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if schema is not None:
            raise ValueError("schema= applies to PostgreSQL only")
        return _sqlite_engine(parsed, echo=echo)
    connect_args: dict[str, Any] = {}
    if schema is not None:
        if not _SCHEMA_RE.match(schema):
            raise ValueError(f"bad schema name {schema!r}")
        connect_args["options"] = f"-c search_path={schema}"
    engine = sa.create_engine(parsed, echo=echo, connect_args=connect_args)
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() == "psycopg":
        event.listen(engine, "connect", _binary_arrays)
    return engine


def _binary_arrays(dbapi_connection: Any, _record: Any) -> None:
    """psycopg sends a ``list`` parameter (an array of :func:`insert_of_rows`) in the
    binary format: its text format escapes every element that needs quotes with a
    regular expression, which for an array of ``bytes`` (``\\x…``: every element) cost
    more than the statements a row it replaces. The store binds lists nowhere else (its
    ``IN`` lists are a parameter a value)."""
    from psycopg.types.array import ListBinaryDumper

    dbapi_connection.adapters.register_dumper(list, ListBinaryDumper)


def _sqlite_engine(url: sa.URL, *, echo: bool) -> Engine:
    database = url.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url, echo=echo, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, emit BEGIN (see the SQLAlchemy SQLite docs).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            _enter_wal(cursor)
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(WRITE_OPTION):
            try:
                begin_immediate(conn.connection.driver_connection)
            except sqlite3.Error as err:  # as SQLAlchemy words a driver's error
                raise sa_exc.DBAPIError.instance(
                    "BEGIN IMMEDIATE", None, err, sqlite3.Error
                ) from err
        else:
            conn.exec_driver_sql("BEGIN")

    return engine


WRITE_LOCK_PAUSES_S = (0.0001, 0.002)
"""The first and the longest pause between two tries for SQLite's write lock."""


def begin_immediate(dbapi_connection: Any, timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
    """``BEGIN IMMEDIATE``, waiting for the write lock in short pauses (100 µs, doubling
    to 2 ms) up to ``timeout_ms``; the connection's busy timeout (:data:`BUSY_TIMEOUT_MS`,
    as every connection of :func:`create_engine` has it) is off for the ``BEGIN`` and
    back after it.

    SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25 ms… between its tries, so a
    writer that finds the lock taken sleeps to the next step of that ladder even when the
    holder lets go microseconds later; with the dealer and both consumers writing one file,
    each commit's wait was whole milliseconds more than the lock was held
    (docs/performance.md, "SQLite's write lock in short pauses"). Only the
    ``BEGIN`` waits here: the other statements of a transaction that holds the lock do
    not wait for it. Every form of the lock being taken is waited out (:func:`is_busy`),
    as SQLite's own handler does; any other error is raised at once."""
    cursor = dbapi_connection.cursor()
    deadline: float | None = None  # set by the first refusal
    pause, longest = WRITE_LOCK_PAUSES_S
    try:
        cursor.execute("PRAGMA busy_timeout=0")
        while True:
            try:
                cursor.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as err:
                if not is_busy(err):
                    raise
                now = time.monotonic()
                if deadline is None:
                    deadline = now + timeout_ms / 1000
                elif now >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, longest)
    finally:
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.close()


def is_busy(err: sqlite3.Error) -> bool:
    """Whether ``err`` is SQLite's "database is locked" in any of its forms: the driver
    gives the *extended* code, and ``BEGIN IMMEDIATE`` with no busy handler answers
    ``SQLITE_BUSY_SNAPSHOT`` (a writer committed between its read snapshot and its
    write lock) or ``SQLITE_BUSY_RECOVERY`` (another connection rebuilding the WAL
    index, as when processes open a new database at once) as well as plain
    ``SQLITE_BUSY``; each is a lock taken, to wait out like the others."""
    code = getattr(err, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_BUSY


def _enter_wal(cursor: Any) -> None:
    """Switch a new connection's database to WAL, waiting out other connections.

    On a new file the switch needs an exclusive lock; while another process holds a
    shared lock and is itself upgrading (several processes opening one new database at
    once), SQLite answers "database is locked" at once instead of calling the busy
    handler (it would deadlock), so the switch is retried here up to the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


_SQLITE_INSERTS: dict[tuple[str, tuple[str, ...]], str | None] = {}


SQLITE_CACHE_KIB = 2000
"""Each SQLite connection's page cache, KiB (SQLite's own default). A connection keeps
the pages it read up to this bound, so a process's resident memory rises towards it as
the store grows: at 64 MiB the dealer grew 27.6 MiB over 1,000,000 hands and had not
reached it, with no CPU per hand gained in the pipeline against this size
(docs/performance.md, "Bounded memory"). The operating system's page cache holds the
file either way."""

_S = TypeVar("_S")
_PER_DIALECT: dict[tuple[str, Callable[..., Any], tuple[Any, ...]], Any] = {}
_DIALECTS: dict[str, Any] = {"postgresql": postgresql, "sqlite": sqlite}


def per_dialect(conn: Connection, build: Callable[..., _S], *args: Any) -> _S:
    """The statement ``build(dialect, *args)`` for ``conn``'s database, built on first
    use and kept per dialect, builder and (hashable) ``args``: for the statements a
    dialect must write itself (``INSERT … ON CONFLICT`` from
    ``sqlalchemy.dialects.postgresql`` or ``.sqlite``, passed as ``dialect``) that a
    commit runs every time."""
    name = conn.dialect.name
    key = (name, build, args)
    try:
        stmt: _S = _PER_DIALECT[key]
        return stmt
    except KeyError:
        pass
    dialect = _DIALECTS.get(name)
    if dialect is None:
        raise StoreError(f"unsupported database {name!r} (SQLite or PostgreSQL)")
    stmt = _PER_DIALECT[key] = build(dialect, *args)
    return stmt


IDS: sa.BindParameter[Any] = sa.bindparam("ids", expanding=True)
"""The values of an ``IN`` list bound at execution (``{"ids": [...]}``): a statement
built once around it is reused as it is, where ``column.in_(values)`` would be built and
coerced value by value on every call (~1 ms for two short lookups here; the rendered
SQL and its plan are the same)."""


COPY_MIN_ROWS = 4
"""On PostgreSQL, a batch of at least this many rows goes in as one binary ``COPY``."""

COPY_TYPES: tuple[tuple[type[sa.types.TypeEngine[Any]], str], ...] = (
    (sa.LargeBinary, "bytea"),
    (sa.BigInteger, "int8"),
    (sa.SmallInteger, "int2"),
    (sa.Integer, "int4"),
    (sa.String, "text"),  # Text too; varchar(n) takes text's binary form, its length checked
)
"""The binary ``COPY`` type of a column of each SQLAlchemy type the store uses, the
first that matches (subclasses before their bases)."""
_PG_COPIES: dict[tuple[str, tuple[str, ...]], tuple[str, list[str]] | None] = {}


def insert_rows(conn: Connection, table: sa.Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (mappings with the same keys, in the same order) into ``table``.

    On SQLite the rows go to the driver's ``executemany`` as tuples, through a statement
    built once per table and column set: SQLAlchemy's compile and per-row parameter
    building were a third of the dealer's commit. That path is taken only when no column
    of the set converts its values on the way in (a bind processor), so what reaches the
    driver is what SQLAlchemy would have sent.

    On PostgreSQL :data:`COPY_MIN_ROWS` rows or more go in as one binary ``COPY … FROM
    STDIN`` on the connection's own transaction: the server then runs no statement per
    row (its executor set up, planned and finished each time), which took half its CPU
    for the events of a hand and five sixths of the client's (docs/performance.md, "The
    server's side of a hand on PostgreSQL"). What the rows hold is the same: columns
    left out take their server defaults, constraints and triggers apply, and a refused
    row raises SQLAlchemy's exception for it (``IntegrityError`` for a duplicate) with
    the transaction's savepoint to roll back to, as an ``INSERT`` does. Fewer rows go
    through SQLAlchemy's insert (psycopg's pipelined ``executemany``)."""
    if not rows:
        return
    cols = tuple(rows[0])
    if is_sqlite(conn):
        sql = _sqlite_insert(conn, table, cols)
        if sql is not None:
            conn.exec_driver_sql(sql, row_values(rows, cols))
            return
    elif len(rows) >= COPY_MIN_ROWS and conn.dialect.name == "postgresql":
        copy = _pg_copy(conn, table, cols)
        if copy is not None:
            _copy_rows(conn, copy, cols, rows)
            return
    conn.execute(table.insert(), list(rows))


def row_values(rows: Sequence[Mapping[str, Any]], cols: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """Each row's values for ``cols``, in that order, as a tuple (one C call a row)."""
    if len(cols) == 1:
        (col,) = cols
        return [(r[col],) for r in rows]
    pick = operator.itemgetter(*cols)
    return [pick(r) for r in rows]


def insert_new(
    conn: Connection,
    table: sa.Table,
    rows: Sequence[Mapping[str, Any]],
    key: tuple[str, ...],
    returning: str | None = None,
) -> list[Any]:
    """Insert the ``rows`` (mappings with the same keys, in the same order) whose
    ``key`` columns match no stored row, the others left out (``INSERT … ON CONFLICT
    (key) DO NOTHING``); with ``returning``, that column of each row stored (in no set
    order), else ``[]``.

    On SQLite through the driver, as :func:`insert_rows` does, when no column of the
    set converts its values: SQLAlchemy's execution of the statement was most of its
    cost for the few rows of a dealer commit (docs/performance.md, "The writer process
    over 874,816 hands"). With ``returning`` the rows go as one multi-row ``VALUES``
    (the driver's ``executemany`` returns no rows). Elsewhere SQLAlchemy's insert of
    the dialect, on PostgreSQL one statement over arrays (:func:`insert_of_rows`)."""
    if not rows:
        return []
    cols = tuple(rows[0])
    if is_sqlite(conn) and _sqlite_insert(conn, table, cols) is not None:
        quote = conn.dialect.identifier_preparer.quote
        head = f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in cols)}) VALUES "
        tail = f" ON CONFLICT ({', '.join(quote(c) for c in key)}) DO NOTHING"
        one = f"({', '.join('?' * len(cols))})"
        if returning is None:
            conn.exec_driver_sql(head + one + tail, row_values(rows, cols))
            return []
        tail += f" RETURNING {quote(returning)}"
        out: list[Any] = []
        for i in range(0, len(rows), _VALUES_ROWS):
            chunk = rows[i : i + _VALUES_ROWS]
            sql = head + ", ".join([one] * len(chunk)) + tail
            args = tuple(v for values in row_values(chunk, cols) for v in values)
            out += conn.exec_driver_sql(sql, args).scalars().all()
        return out
    stmt = per_dialect(conn, _ignoring, table, cols, key, returning)
    if conn.dialect.name == "postgresql":
        result = conn.execute(stmt, {c: [r[c] for r in rows] for c in cols})
    else:
        result = conn.execute(stmt, list(rows))
    return list(result.scalars().all()) if returning is not None else []


_VALUES_ROWS = 200
"""Rows in one multi-row ``VALUES`` of :func:`insert_new` (well under SQLite's limit of
32,766 bound values)."""


def _ignoring(
    dialect: Any,
    table: sa.Table,
    cols: tuple[str, ...],
    key: tuple[str, ...],
    returning: str | None,
) -> Any:
    stmt = insert_of_rows(dialect, table, cols).on_conflict_do_nothing(index_elements=list(key))
    return stmt if returning is None else stmt.returning(table.c[returning])


def _pg_copy(
    conn: Connection, table: sa.Table, cols: tuple[str, ...]
) -> tuple[str, list[str]] | None:
    """The ``COPY`` statement and binary types for ``cols`` of ``table``, or ``None``
    when a column's type is not one :data:`COPY_TYPES` knows."""
    key = (table.name, cols)
    try:
        return _PG_COPIES[key]
    except KeyError:
        pass
    types: list[str] = []
    for c in cols:
        t = table.c[c].type
        name = next((n for cls, n in COPY_TYPES if isinstance(t, cls)), None)
        if name is None:
            _PG_COPIES[key] = None
            return None
        types.append(name)
    quote = conn.dialect.identifier_preparer.quote
    sql = (
        f"COPY {quote(table.name)} ({', '.join(quote(c) for c in cols)}) FROM STDIN (FORMAT BINARY)"
    )
    got = _PG_COPIES[key] = (sql, types)
    return got


def _copy_rows(
    conn: Connection,
    copy: tuple[str, list[str]],
    cols: tuple[str, ...],
    rows: Sequence[Mapping[str, Any]],
) -> None:
    import psycopg

    sql, types = copy
    raw = cast("psycopg.Connection[Any]", conn.connection.dbapi_connection)
    try:
        with raw.cursor() as cur, cur.copy(sql) as cp:
            cp.set_types(types)
            for values in row_values(rows, cols):
                cp.write_row(values)
    except psycopg.Error as e:
        raise sa_exc.DBAPIError.instance(sql, None, e, psycopg.Error) from e


def _sqlite_insert(conn: Connection, table: sa.Table, cols: tuple[str, ...]) -> str | None:
    key = (table.name, cols)
    try:
        return _SQLITE_INSERTS[key]
    except KeyError:
        pass
    quote = conn.dialect.identifier_preparer.quote
    dialect = conn.dialect
    plain = all(table.c[c].type.dialect_impl(dialect).bind_processor(dialect) is None for c in cols)
    sql = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in cols)}) "
        f"VALUES ({', '.join('?' * len(cols))})"
        if plain
        else None
    )
    _SQLITE_INSERTS[key] = sql
    return sql


def select_rows(
    conn: Connection, stmt: sa.Select[Any], ids: Sequence[Any]
) -> Sequence[Sequence[Any]]:
    """The rows of ``stmt``, a statement of a hot read path built once whose one
    parameter is the expanding :data:`IDS`, for ``ids``: tuples (or rows) in the order
    of its columns, to be read by position.

    On SQLite the statement goes to the driver as SQL compiled once per number of ids,
    and its rows come back as the driver's tuples: SQLAlchemy's execution and a ``Row``
    per row were half the cost of an audited range's reads (docs/performance.md, "Store
    reads past SQLAlchemy"). That path is taken only when no column of the statement
    converts its values on the way out (a result processor), so what the caller reads
    is what SQLAlchemy would have given; a driver's error is raised as SQLAlchemy's
    exception for it. Elsewhere SQLAlchemy executes it."""
    if is_sqlite(conn):
        sql = _sqlite_select(conn, stmt, len(ids))
        if sql is not None:
            try:
                return cast(
                    "Sequence[Sequence[Any]]",
                    conn.connection.driver_connection.execute(sql, tuple(ids)).fetchall(),  # type: ignore[union-attr]
                )
            except sqlite3.Error as e:
                raise sa_exc.DBAPIError.instance(sql, ids, e, sqlite3.Error) from e
    return conn.execute(stmt, {"ids": list(ids)}).all()


_SQLITE_SELECTS: dict[tuple[int, int], tuple[sa.Select[Any], str | None]] = {}


def _sqlite_select(conn: Connection, stmt: sa.Select[Any], n: int) -> str | None:
    key = (id(stmt), n)
    kept = _SQLITE_SELECTS.get(key)
    if kept is not None and kept[0] is stmt:
        return kept[1]
    dialect = conn.dialect
    plain = all(
        c.type.dialect_impl(dialect).result_processor(dialect, None) is None
        for c in stmt.selected_columns
    )
    compiled = stmt.params(ids=[None] * n).compile(
        dialect=dialect, compile_kwargs={"render_postcompile": True}
    )
    # the ids bound in their order, and nothing else
    in_order = list(compiled.positiontup or ()) == [f"ids_{i + 1}" for i in range(n)]
    sql = str(compiled) if plain and in_order and n > 0 else None
    _SQLITE_SELECTS[key] = (stmt, sql)
    return sql


def select_params(
    conn: Connection, stmt: sa.Select[Any], params: Mapping[str, Any]
) -> Sequence[Sequence[Any]]:
    """:func:`select_rows` for a statement of a hot path built once whose bound
    parameters are named ones (``sa.bindparam(name)``, no expanding list): its rows for
    ``params``, read by position. On SQLite it goes to the driver as SQL compiled once,
    on the terms of :func:`select_rows`; elsewhere SQLAlchemy executes it."""
    if is_sqlite(conn):
        kept = _sqlite_named(conn, stmt, result=True)
        if kept is not None:
            sql, names = kept
            args = _bound(names, params)
            try:
                return cast(
                    "Sequence[Sequence[Any]]",
                    conn.connection.driver_connection.execute(sql, args).fetchall(),  # type: ignore[union-attr]
                )
            except sqlite3.Error as e:
                raise sa_exc.DBAPIError.instance(sql, args, e, sqlite3.Error) from e
    return conn.execute(stmt, dict(params)).all()


def insert_of_rows(dialect: Any, table: sa.Table, cols: tuple[str, ...]) -> Any:
    """``dialect.insert(table)`` of rows with ``cols`` (``dialect``: the module
    ``sqlalchemy.dialects.postgresql`` or ``.sqlite``, as :func:`per_dialect` passes
    it), for :func:`execute_rows`; an ``ON CONFLICT`` clause may be added to it.

    On PostgreSQL it is one statement for any number of rows: each column's values
    bound as one array and the rows read back by ``unnest`` (``INSERT … SELECT … FROM
    unnest(…)``). The driver's ``executemany`` ran an ``INSERT … ON CONFLICT`` a row,
    the server planning and executing each: ~400 a settlement commit of 50 hands for
    the ledger's running totals (docs/performance.md, "The running totals, table rows
    and outbox in one statement on PostgreSQL"; the arrays go in psycopg's binary
    format, :func:`_binary_arrays`). Elsewhere a row's values (``VALUES``), run once a
    row."""
    ins = dialect.insert(table)
    if dialect is not postgresql:
        return ins.values({c: sa.bindparam(c) for c in cols})
    rows = (
        sa.func.unnest(*(sa.bindparam(c, type_=postgresql.ARRAY(table.c[c].type)) for c in cols))
        .table_valued(*cols)
        .render_derived()
    )
    return ins.from_select(list(cols), sa.select(*(rows.c[c] for c in cols)))


def execute_rows(conn: Connection, stmt: sa.Executable, rows: Sequence[Mapping[str, Any]]) -> None:
    """Run ``stmt``, built by :func:`insert_of_rows` for ``conn``'s database, for
    ``rows`` (mappings with its columns, in its order): on PostgreSQL once, a column's
    values an array in the rows' order; elsewhere once a row (:func:`execute_each`).
    Rows an ``ON CONFLICT … DO UPDATE`` would change twice must not both be among
    ``rows`` (PostgreSQL refuses such a statement)."""
    if not rows:
        return
    if conn.dialect.name != "postgresql":
        execute_each(conn, stmt, rows)
        return
    conn.execute(stmt, {c: [r[c] for r in rows] for c in rows[0]})


def execute_each(conn: Connection, stmt: sa.Executable, rows: Sequence[Mapping[str, Any]]) -> int:
    """Execute ``stmt`` (an ``UPDATE`` or ``DELETE`` of a hot path built once, with
    named bound parameters) once for each of ``rows``, in the caller's transaction; the
    number of rows it changed in all. On SQLite the rows go to the driver's
    ``executemany`` as tuples through SQL compiled once (no value of theirs converted on
    the way in, as :func:`insert_rows` requires); elsewhere SQLAlchemy executes it with
    every row (its driver's ``executemany``)."""
    if not rows:
        return 0
    if is_sqlite(conn):
        kept = _sqlite_named(conn, stmt, result=False)
        if kept is not None:
            sql, names = kept
            args = [_bound(names, r) for r in rows]
            try:
                cur = conn.connection.driver_connection.executemany(sql, args)  # type: ignore[union-attr]
            except sqlite3.Error as e:
                raise sa_exc.DBAPIError.instance(sql, args, e, sqlite3.Error) from e
            return int(cur.rowcount)
    return int(conn.execute(stmt, [dict(r) for r in rows]).rowcount)


_REQUIRED: Any = object()
_Named: TypeAlias = tuple[str, tuple[tuple[str, Any], ...]]


def _bound(names: tuple[tuple[str, Any], ...], params: Mapping[str, Any]) -> tuple[Any, ...]:
    out = []
    for n, fixed in names:
        v = params.get(n, fixed)
        if v is _REQUIRED:
            raise sa_exc.InvalidRequestError(f"A value is required for bind parameter {n!r}")
        out.append(v)
    return tuple(out)


_SQLITE_NAMED: dict[int, tuple[sa.Executable, _Named | None]] = {}


def _sqlite_named(conn: Connection, stmt: sa.Executable, *, result: bool) -> _Named | None:
    """``stmt``'s SQL for SQLite with its parameters in their order, each a name and the
    value it has when the caller gives none (one the statement fixed, as the ``OFFSET 0``
    SQLite writes after a ``LIMIT``), built once per statement; ``None`` where a value
    would be converted on its way in or out (a bind or, with ``result``, a result
    processor) or a parameter is expanding."""
    kept = _SQLITE_NAMED.get(id(stmt))
    if kept is not None and kept[0] is stmt:
        return kept[1]
    dialect = conn.dialect
    compiled = stmt.compile(dialect=dialect)  # type: ignore[attr-defined]
    binds = compiled.binds
    order = tuple(compiled.positiontup or ())
    plain = all(
        not binds[n].expanding
        and binds[n].type.dialect_impl(dialect).bind_processor(dialect) is None
        for n in order
    )
    names = tuple((n, _REQUIRED if binds[n].required else binds[n].value) for n in order)
    if result:
        plain = plain and all(
            c.type.dialect_impl(dialect).result_processor(dialect, None) is None
            for c in stmt.selected_columns  # type: ignore[attr-defined]
        )
    out = (str(compiled), names) if plain else None
    _SQLITE_NAMED[id(stmt)] = (stmt, out)
    return out


@contextmanager
def write_connection(engine: Engine) -> Iterator[Connection]:
    """A connection inside a write transaction: committed on normal exit, rolled back
    if the block raises."""
    with engine.connect() as conn:
        conn = conn.execution_options(**{WRITE_OPTION: True})
        with conn.begin():
            yield conn


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """A connection inside a read transaction (a consistent snapshot on both backends
    for the statements of one call)."""
    with engine.connect() as conn, conn.begin():
        yield conn


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic ``Config`` for the bundled migrations, independent of any ini file."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def migrate(url_or_engine: str | Engine, revision: str = "head") -> None:
    """Upgrade the database to ``revision`` (default: the single head), in one
    transaction."""
    engine = create_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
    try:
        with write_connection(engine) as conn:
            lock_for_migration(conn)
            command.upgrade(alembic_config(conn), revision)
    finally:
        if isinstance(url_or_engine, str):
            engine.dispose()


def lock_for_migration(conn: Connection) -> None:
    """Serialise migrations of one database (schema) across processes: on PostgreSQL wait
    for the advisory lock, released when the transaction ends; on SQLite the write
    transaction's ``BEGIN IMMEDIATE`` already holds the database's write lock."""
    if conn.dialect.name == "postgresql":
        conn.execute(
            sa.text("SELECT pg_advisory_xact_lock(:k, hashtext(current_schema()))"),
            {"k": MIGRATE_LOCK},
        )


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or ``None`` if it was never migrated."""
    with read_connection(engine) as conn:
        rev = MigrationContext.configure(conn).get_current_revision()
    return rev


def head_revisions() -> tuple[str, ...]:
    """Every head of the migration scripts (the project keeps exactly one)."""
    return tuple(ScriptDirectory.from_config(alembic_config()).get_heads())


class Database:
    """Holds an engine and hands out read and write connections; the base of every
    store facade."""

    opened_with: tuple[str, str | None] | None = None
    """The URL and PostgreSQL schema the store was opened from (:meth:`Store.open`), so
    another process can open the same database (:mod:`croupier.store.writer`); ``None``
    for a store made around an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _read(self) -> AbstractContextManager[Connection]:
        return read_connection(self.engine)

    def _write(self) -> AbstractContextManager[Connection]:
        return write_connection(self.engine)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        """Release the engine's pooled connections."""
        self.engine.dispose()
