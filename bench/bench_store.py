"""Store throughput: events appended, hands settled and hands read back per second.

    .venv/bin/python bench/bench_store.py                       # SQLite in a temp dir
    .venv/bin/python bench/bench_store.py --url postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/bench_store.py --batches 50 --streams 100 --events 15
    .venv/bin/python bench/bench_store.py --tables 50 --players 8  # whose postings
    .venv/bin/python bench/bench_store.py --table-ids  # hands named as a table's are

Each batch is one unit of work: ``--streams`` new hand streams of ``--events`` events
each, registered, appended and closed by one dealer seal over all their heads. Events
and seals are built before the clock starts, so the figure is the store's alone. Then
the same hands are settled (one balanced ledger transaction plus one settlement record
per hand, a batch per unit of work: a posting for each of ``--players`` players of the
hand's table, one of ``--tables``, and the house's, as a table's hands post) and read
back (events and seals, a batch at a time).
On PostgreSQL the bench runs in a throw-away schema; as the services do on a server
without autovacuum (:class:`croupier.store.planner.TableKeeper`), the tables that grew
past autovacuum's threshold are analyzed every ``KEEP_EVERY`` batches (else the planner,
with no statistics, scans the ledger for each batch's lookups); each phase also reports
the server's CPU a hand (every ``postgres`` process of this machine, :mod:`cpu`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

import sqlalchemy as sa
from cpu import postgres_cpu_seconds

from croupier.events import Event, Seal, StreamWriter, heads_of, seal
from croupier.signing import FileSigner, Signer
from croupier.store import (
    LedgerTx,
    Posting,
    Settlement,
    Store,
    StreamInfo,
    create_engine,
    migrate,
    normalise_url,
)
from croupier.store.planner import TableKeeper

KEEP_EVERY = 10
"""Batches between two passes of the table keeper on PostgreSQL (the services' keeper
runs every 30 s, ~10,000 hands at their rates: here a pass is due sooner)."""


def hand_name(by_table: bool, tables: int, streams: int, b: int, s: int) -> str:
    """The ``s``-th hand of batch ``b``: named in the order the hands opened
    (``h-<batch>-<n>``), or ``by_table`` as a table's hands are (``t<table>_h<n>``, as
    :func:`croupier.dealing.hand_id_for` names them), so each index keyed by the hands'
    ids takes a commit's hands at as many places as it has tables."""
    if not by_table:
        return f"h-{b:05d}-{s:04d}"
    per_batch = -(-streams // tables)  # each table's hands in one batch
    return f"t{s % tables}_h{b * per_batch + s // tables + 1}"


def build(
    signer: Signer,
    batches: int,
    streams: int,
    events: int,
    tables: int,
    by_table: bool = False,
) -> list[tuple[list[StreamInfo], list[Event], Seal]]:
    out = []
    for b in range(batches):
        infos, evs = [], []
        for s in range(streams):
            sid = hand_name(by_table, tables, streams, b, s)
            infos.append(StreamInfo(sid, "hand", "baccarat", f"t{s % tables}", None, 1_000 + b))
            w = StreamWriter(sid)
            for i in range(events):
                w.append(signer, "bet" if i < events // 2 else "card", {"seat": i % 8, "n": i})
            evs.extend(w.take())
        out.append((infos, evs, seal(signer, heads_of(evs), 1_000 + b)))
    return out


class Clock:
    """A phase's wall time, this process's CPU and the PostgreSQL server's (on this
    machine, when it can be read)."""

    def __init__(self, server: bool) -> None:
        self.server = server
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        self.s0 = postgres_cpu_seconds() if server else None

    def rate(self, hands: int, events: int | None = None) -> tuple[float, str]:
        dt, cpu = time.perf_counter() - self.t0, time.process_time() - self.c0
        s1 = postgres_cpu_seconds() if self.server else None
        per = f"{cpu / hands * 1e6:,.1f} CPU µs/hand in this process"
        if self.s0 is not None and s1 is not None:
            per += f", {(s1 - self.s0) / hands * 1e6:,.1f} in the server"
        head = f"{events / dt:,.0f} events/s (" if events is not None else ""
        return dt, f"{head}{hands / dt:,.0f} hands/s, {per}{')' if head else ''}"


def _postings(table: str, players: int, n: int) -> tuple[Posting, ...]:
    """Each of ``players`` players of ``table`` wins or loses an amount, the house the
    rest: ``players`` + 1 accounts, every table's players their own."""
    amounts = [((n * 7 + p * 13) % 21 - 10) * 100 for p in range(players)]
    lines = [Posting(f"player:{table}p{p}", a) for p, a in enumerate(amounts)]
    return (*lines, Posting("house", -sum(amounts)))


def run(
    store: Store,
    batches: int,
    streams: int,
    events: int,
    tables: int = 50,
    players: int = 8,
    by_table: bool = False,
) -> None:
    signer = FileSigner.generate("dealer")
    store.put_key(signer.public_entry())
    work = build(signer, batches, streams, events, tables, by_table)

    server = store.engine.dialect.name == "postgresql"
    keeper = TableKeeper(store.engine, always=True)
    clock = Clock(server)
    for b, (infos, evs, s) in enumerate(work):
        with store.transaction() as uow:
            uow.append(evs, [s], infos)
        if b % KEEP_EVERY == KEEP_EVERY - 1:
            keeper.once()
    n = batches * streams * events
    hands = batches * streams
    dt, rate = clock.rate(hands, n)
    print(f"append : {n} events in {dt:.2f} s = {rate}")

    clock = Clock(server)
    for b, (infos, _, _) in enumerate(work):
        txs = [
            LedgerTx(
                f"settle:{i.stream_id}",
                i.stream_id,
                _postings(i.table_id, players, b * streams + n),
                {"hand": i.stream_id},
            )
            for n, i in enumerate(infos)
        ]
        with store.transaction() as uow:
            ids = uow.post_many(txs, 2_000 + b)
            uow.put_settlements(
                [
                    Settlement.build(i.stream_id, "baccarat", i.table_id, tx_id, {"r": 1}, 2_000)
                    for i, tx_id in zip(infos, ids, strict=True)
                ]
            )
        if b % KEEP_EVERY == KEEP_EVERY - 1:
            keeper.once()
    dt, rate = clock.rate(hands)
    print(f"settle : {hands} hands in {dt:.2f} s = {rate}")

    clock = Clock(server)
    for infos, _, _ in work:
        names = [i.stream_id for i in infos]
        got = store.read_streams(names)
        store.seals_for_streams(names)
        assert sum(len(v) for v in got.values()) == streams * events
    dt, rate = clock.rate(hands)
    print(f"read   : {hands} hands in {dt:.2f} s = {rate}")
    assert store.count_events() == n
    assert sum(store.balances().values()) == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", help="database URL (default: a temporary SQLite file)")
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--streams", type=int, default=100)
    ap.add_argument("--events", type=int, default=15)
    ap.add_argument("--tables", type=int, default=50, help="the hands' tables (default 50)")
    ap.add_argument("--players", type=int, default=8, help="players a table (default 8)")
    ap.add_argument(
        "--table-ids",
        action="store_true",
        help="name the hands as a table's are (<table>_h<n>), not in the order they opened",
    )
    args = ap.parse_args()

    def bench(store: Store) -> None:
        run(
            store,
            args.batches,
            args.streams,
            args.events,
            args.tables,
            args.players,
            args.table_ids,
        )

    if args.url is None:
        with tempfile.TemporaryDirectory() as d:
            store = Store.open(f"sqlite:///{d}/bench.sqlite", upgrade=True)
            print(f"backend: sqlite ({sa.__version__})")
            try:
                bench(store)
            finally:
                store.close()
        return

    url = normalise_url(args.url)
    schema = f"croupier_bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    engine = create_engine(url, schema=schema)
    try:
        migrate(engine)
        print(f"backend: {engine.dialect.name}")
        bench(Store(engine))
    finally:
        engine.dispose()
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


if __name__ == "__main__":
    main()
