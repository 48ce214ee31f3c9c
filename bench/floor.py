"""The machine's floor for the pipeline bench: the same bytes moved with no logic.

After a pipeline run, :func:`measure` replays its I/O without any Croupier code in the
path and times it, in this one process, sequentially:

- **JetStream**: every message the run left in the ``CROUPIER`` stream (same count, same
  subjects' shape, same payloads) is published to a scratch stream, then fetched and
  acknowledged once for each durable consumer whose filter matched it in the run;
- **database**: every row the run left in each table is inserted again into an identical
  scratch table (SQLite: a scratch database file made from the same DDL; PostgreSQL:
  ``CREATE TABLE … (LIKE … INCLUDING ALL)`` in a scratch schema), one transaction per
  group of hands as the dealer commits, through the driver alone (SQLite's
  ``executemany``, PostgreSQL's binary ``COPY``);
- **signatures**: one Ed25519 signature per published message (one per batch).

Not replayed: the outbox rows (inserted then deleted by the relay, gone at the end) and
rows updated in place, so the floor is, if anything, optimistic (too fast).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any

import nats
import sqlalchemy as sa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nats.js.api import StorageType, StreamConfig

from croupier.store.db import COPY_TYPES  # the column types' binary forms, no logic

STREAM = "CROUPIER"


@dataclass
class Floor:
    messages: int = 0
    message_bytes: int = 0
    fetches: int = 0
    rows: int = 0
    signatures: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def total_s(self) -> float:
        return sum(self.seconds.values())


def _matches(filt: str, subject: str) -> bool:
    f, s = filt.split("."), subject.split(".")
    for i, tok in enumerate(f):
        if tok == ">":
            return len(s) > i
        if i >= len(s) or (tok != "*" and tok != s[i]):
            return False
    return len(f) == len(s)


async def _jetstream(url: str, fl: Floor) -> list[bytes]:
    nc = await nats.connect(url)
    js = nc.jetstream()
    try:
        filters = [c.config.filter_subject or ">" for c in await js.consumers_info(STREAM)]
        sub = await js.pull_subscribe("croupier.>", stream=STREAM)
        msgs: list[tuple[str, bytes]] = []
        while True:
            try:
                got = await sub.fetch(1000, timeout=1)
            except (TimeoutError, nats.errors.TimeoutError):
                break
            msgs.extend((m.subject, m.data) for m in got)
            for m in got:
                await m.ack()
        await sub.unsubscribe()
        fl.messages = len(msgs)
        fl.message_bytes = sum(len(d) for _, d in msgs)
        reads = [sum(_matches(f, s) for f in filters) for s, _ in msgs]
        fl.fetches = sum(reads)
        name = f"FLOOR{os.getpid()}"
        await js.add_stream(
            StreamConfig(name=name, subjects=[f"{name.lower()}.>"], storage=StorageType.FILE)
        )
        subs = [
            await js.pull_subscribe(f"{name.lower()}.>", durable=f"floor{i}", stream=name)
            for i in range(max(reads, default=0))
        ]
        try:
            t0 = time.perf_counter()
            acks = [
                js.publish(f"{name.lower()}.{s}", d, headers={"Nats-Msg-Id": f"f{i}"})
                for i, (s, d) in enumerate(msgs)
            ]
            for k in range(0, len(acks), 256):  # as the relay: concurrent batches
                await asyncio.gather(*acks[k : k + 256])
            fl.seconds["publish"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            for i, sub in enumerate(subs):
                want = sum(1 for r in reads if r > i)
                n = 0
                while n < want:
                    got = await sub.fetch(256, timeout=5)
                    for m in got:
                        await m.ack()
                    n += len(got)
            fl.seconds["fetch+ack"] = time.perf_counter() - t0
        finally:
            await js.delete_stream(name)
        return [d for _, d in msgs]
    finally:
        await nc.close()


def _database(db_url: str, scratch_dir: str, groups: int, fl: Floor) -> None:
    src = sa.create_engine(db_url)
    insp = sa.inspect(src)
    names = [t for t in insp.get_table_names() if t != "alembic_version"]
    md = sa.MetaData()
    md.reflect(src, only=names)
    data: dict[str, list[dict[str, Any]]] = {}
    with src.connect() as c:
        for t in names:
            data[t] = [dict(r._mapping) for r in c.execute(sa.select(md.tables[t]))]
    fl.rows = sum(len(v) for v in data.values())
    if src.dialect.name == "sqlite":
        dst = sa.create_engine(f"sqlite:///{scratch_dir}/floor.sqlite")
        with src.connect() as c:
            ddl = [
                r[0]
                for r in c.exec_driver_sql(
                    "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE "
                    "'sqlite_%' AND tbl_name != 'alembic_version' "
                    "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END"
                )
            ]
        with dst.begin() as c:
            c.exec_driver_sql("PRAGMA journal_mode=WAL")
            for s in ddl:
                c.exec_driver_sql(s)
        target = {t: sa.Table(t, sa.MetaData(), autoload_with=dst) for t in names}
        cleanup: list[str] = []
    else:
        schema = f"floor_{os.getpid()}"
        dst = src
        with dst.begin() as c:
            c.exec_driver_sql(f"CREATE SCHEMA {schema}")
            for t in names:
                c.exec_driver_sql(f'CREATE TABLE {schema}."{t}" (LIKE "{t}" INCLUDING ALL)')
        target = {t: sa.Table(t, sa.MetaData(), schema=schema, autoload_with=dst) for t in names}
        cleanup = [f"DROP SCHEMA {schema} CASCADE"]
    try:
        groups = max(1, groups)
        t0 = time.perf_counter()
        for g in range(groups):  # the same rows, in as many transactions as dealer groups
            with dst.begin() as c:
                for t in names:
                    rows = data[t]
                    k = len(rows)
                    part = rows[g * k // groups : (g + 1) * k // groups]
                    if part:
                        _insert(c, target[t], part)
        fl.seconds["db insert"] = time.perf_counter() - t0
    finally:
        with dst.begin() as c:
            for s in cleanup:
                c.exec_driver_sql(s)
        dst.dispose()
        src.dispose()


def _insert(c: sa.Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """``rows`` into ``table`` the cheapest way the driver has: SQLite's ``executemany``
    of tuples, PostgreSQL's binary ``COPY`` (what the store does with a batch)."""
    cols = list(rows[0])
    raw: Any = c.connection.dbapi_connection
    if c.dialect.name == "sqlite":
        marks = ", ".join("?" * len(cols))
        names = ", ".join(f'"{n}"' for n in cols)
        raw.executemany(
            f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
            [tuple(r[n] for n in cols) for r in rows],
        )
        return
    types = [next(n for cls, n in COPY_TYPES if isinstance(table.c[k].type, cls)) for k in cols]
    names = ", ".join(f'"{n}"' for n in cols)
    with (
        raw.cursor() as cur,
        cur.copy(f'COPY {table.schema}."{table.name}" ({names}) FROM STDIN (FORMAT BINARY)') as cp,
    ):
        cp.set_types(types)
        for r in rows:
            cp.write_row(tuple(r[n] for n in cols))


def measure(db_url: str, nats_url: str, scratch_dir: str, groups: int) -> Floor:
    fl = Floor()
    payloads = asyncio.run(_jetstream(nats_url, fl))
    _database(db_url, scratch_dir, groups, fl)
    key = Ed25519PrivateKey.generate()
    t0 = time.perf_counter()
    for p in payloads:
        key.sign(p)
    fl.seconds["ed25519 sign"] = time.perf_counter() - t0
    fl.signatures = len(payloads)
    return fl
