"""Store throughput: events appended, hands settled and hands read back per second.

    .venv/bin/python bench/bench_store.py                       # SQLite in a temp dir
    .venv/bin/python bench/bench_store.py --url postgresql://postgres@127.0.0.1/test
    .venv/bin/python bench/bench_store.py --batches 50 --streams 100 --events 15
    .venv/bin/python bench/bench_store.py --tables 50 --players 8  # whose postings

Each batch is one unit of work: ``--streams`` new hand streams of ``--events`` events
each, registered, appended and closed by one dealer seal over all their heads. Events
and seals are built before the clock starts, so the figure is the store's alone. Then
the same hands are settled (one balanced ledger transaction plus one settlement record
per hand, a batch per unit of work: a posting for each of ``--players`` players of the
hand's table, one of ``--tables``, and the house's, as a table's hands post) and read
back (events and seals, a batch at a time).
On PostgreSQL the bench runs in a throw-away schema.
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


def build(
    signer: Signer, batches: int, streams: int, events: int, tables: int
) -> list[tuple[list[StreamInfo], list[Event], Seal]]:
    out = []
    for b in range(batches):
        infos, evs = [], []
        for s in range(streams):
            sid = f"h-{b:05d}-{s:04d}"
            infos.append(StreamInfo(sid, "hand", "baccarat", f"t{s % tables}", None, 1_000 + b))
            w = StreamWriter(sid)
            for i in range(events):
                w.append(signer, "bet" if i < events // 2 else "card", {"seat": i % 8, "n": i})
            evs.extend(w.take())
        out.append((infos, evs, seal(signer, heads_of(evs), 1_000 + b)))
    return out


def _per_hand(cpu_s: float, hands: int) -> str:
    """This process's CPU a hand (a database server's own is not in it)."""
    return f"{cpu_s / hands * 1e6:,.1f} CPU µs/hand in this process"


def _postings(table: str, players: int, n: int) -> tuple[Posting, ...]:
    """Each of ``players`` players of ``table`` wins or loses an amount, the house the
    rest: ``players`` + 1 accounts, every table's players their own."""
    amounts = [((n * 7 + p * 13) % 21 - 10) * 100 for p in range(players)]
    lines = [Posting(f"player:{table}p{p}", a) for p, a in enumerate(amounts)]
    return (*lines, Posting("house", -sum(amounts)))


def run(
    store: Store, batches: int, streams: int, events: int, tables: int = 50, players: int = 8
) -> None:
    signer = FileSigner.generate("dealer")
    store.put_key(signer.public_entry())
    work = build(signer, batches, streams, events, tables)

    t0, c0 = time.perf_counter(), time.process_time()
    for infos, evs, s in work:
        with store.transaction() as uow:
            uow.append(evs, [s], infos)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = batches * streams * events
    hands = batches * streams
    rate = f"{n / dt:,.0f} events/s ({hands / dt:,.0f} hands/s, {_per_hand(cpu, hands)})"
    print(f"append : {n} events in {dt:.2f} s = {rate}")

    t0, c0 = time.perf_counter(), time.process_time()
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
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rate = f"{hands / dt:,.0f} hands/s, {_per_hand(cpu, hands)}"
    print(f"settle : {hands} hands in {dt:.2f} s = {rate}")

    t0, c0 = time.perf_counter(), time.process_time()
    for infos, _, _ in work:
        names = [i.stream_id for i in infos]
        got = store.read_streams(names)
        store.seals_for_streams(names)
        assert sum(len(v) for v in got.values()) == streams * events
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    rate = f"{hands / dt:,.0f} hands/s, {_per_hand(cpu, hands)}"
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
    args = ap.parse_args()

    if args.url is None:
        with tempfile.TemporaryDirectory() as d:
            store = Store.open(f"sqlite:///{d}/bench.sqlite", upgrade=True)
            print(f"backend: sqlite ({sa.__version__})")
            try:
                run(store, args.batches, args.streams, args.events, args.tables, args.players)
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
        run(Store(engine), args.batches, args.streams, args.events, args.tables, args.players)
    finally:
        engine.dispose()
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


if __name__ == "__main__":
    main()
