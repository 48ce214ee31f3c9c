"""Dealer start-up against a long history: how long the service's start
(:meth:`DealerCore.recover` without the republish) takes, and its peak memory, with
``--hands`` hands in the store; then how long the background republish of the hands
closed without an outcome (:meth:`DealerCore.republish_pages`) takes.

    .venv/bin/python bench/bench_dealer_start.py                    # 100,000 hands, SQLite
    .venv/bin/python bench/bench_dealer_start.py --hands 20000 --url postgresql://...
    .venv/bin/python bench/bench_dealer_start.py --hands 20000 --prefill 1000000

The store is filled through the dealer's own write path (:meth:`DealerCore.persist`, many
hands per transaction) by the real dealer: history tables of the variants whose hands
close without player decisions, each hand answered by a ``hand.outcome`` (as the rule
service would) except the last ``--unanswered``; then the state a restart must restore:
an idle table of every variant and a hand waiting on a player at the variants that have
decisions. ``--prefill N`` first bulk-inserts N settled filler hands (:mod:`prefill`, as
the pipeline bench's growth mode does), so the log is long without filling it all
through the dealer. Then a fresh process (so its peak RSS is the start's alone) opens
the store, loads the keys and runs ``recover()`` with a bus that only records what is
republished. Prints one JSON line.
"""

# ruff: noqa: E402
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# the code measured: this checkout, or another one named by CROUPIER_BENCH_CODE
sys.path[:0] = [
    str(Path(os.environ.get("CROUPIER_BENCH_CODE") or Path(__file__).resolve().parents[1]) / d)
    for d in ("libs", "services")
]

from prefill import prefill

from croupier.auth.material import init_dev
from croupier.dealing import Batch, Dealer
from croupier.events import heads_of, make_event, seal
from croupier.games import base as g
from croupier.games.registry import engine, variants
from croupier.store import EventStore
from croupier.store.secrets import SeedBox
from croupier_services.bots import bets_for
from croupier_services.dealer import DealerCore
from croupier_services.keys import TrustedKeys, init_keys
from croupier_services.runtime import load_signers, open_store

STACK = 10_000_000


class CountingBus:
    def __init__(self) -> None:
        self.messages = 0

    async def publish_many(self, items: list[tuple[str, bytes, str]]) -> int:
        self.messages += len(items)
        return len(items)


def seats_for(variant: str, table: str) -> list[dict[str, Any]]:
    eng = engine(variant)
    n = max(min(4, eng.max_seats or 4), getattr(eng, "min_seats", 1) or 1)
    return [{"seat": i, "player": f"{table}_p{i}", "stack": STACK} for i in range(1, n + 1)]


def play(d: Dealer, table: str, variant: str, rng: random.Random) -> tuple[str, Batch]:
    b = Batch()
    seats = seats_for(variant, table)
    hid, ob = d.open_hand(table, seats)
    b.extend(ob)
    h = d.hands[hid]
    bets = bets_for(variant, rng, [s["seat"] for s in seats], h.state.shoe_hand_no, STACK)
    if bets:
        b.extend(d.place_bets(hid, [{"seat": s, "spot": sp, "amount": a} for s, sp, a in bets]))
    b.extend(d.close_betting(hid))
    return hid, b


def finish(d: Dealer, hid: str) -> Batch:
    """Time out every remaining turn of a hand (the rules' automatic moves)."""
    b = Batch()
    while hid in d.hands:
        b.extend(d.expire(hid))
    return b


QUICK = ["baccarat", "sangong.hundred", "slots.duocai", "niuniu.hundred", "dice.yaoyao"]
"""History variants: their hands close at CloseBetting (no player decisions)."""


def answer(rules: Any, b: Batch, skip: set[str]) -> None:
    """Append each closed hand's ``hand.outcome`` (a placeholder payload) to the batch."""
    evs = []
    for h in b.closed_hands:
        if h.hand_id in skip:
            continue
        last = h.events[-1]
        evs.append(
            make_event(
                h.hand_id, last.seq + 1, g.HAND_OUTCOME, "rules", rules.key_id, last.hash, {}
            )
        )
    if evs:
        b.events += evs
        b.seals.append(seal(rules, heads_of(evs), 1))


def seed_box(keys: str) -> SeedBox:
    """The dealer's seed key, kept beside the keys folder (a dev set, made once)."""
    return SeedBox(init_dev(Path(keys).parent / "auth").seed_key.read_bytes())


def fill(url: str, keys: str, hands: int, tables: int, unanswered: int) -> dict[str, Any]:
    store = open_store(url)
    Path(keys).mkdir(parents=True, exist_ok=True)
    init_keys(Path(keys))  # the deployment's key files, made once
    signers = load_signers(store, keys, ("dealer", "rules"), TrustedKeys.from_dir(Path(keys)))
    clock = itertools.count(1_700_000_000_000)
    d = Dealer(signers["dealer"], signers["gateway"], clock_ms=lambda: next(clock))
    core = DealerCore(d, store, None, seed_box=seed_box(keys))
    quick = QUICK
    rng = random.Random(100_000)
    ts = [(f"hist{i:04d}", quick[i % len(quick)]) for i in range(tables)]
    b = Batch()
    for t, v in ts:
        b.extend(d.open_table(t, v))
    core.persist(b)
    start = time.perf_counter()
    b = Batch()
    skip: set[str] = set()
    for n in range(hands):
        t, v = ts[n % len(ts)]
        hid, hb = play(d, t, v, rng)
        hb.extend(finish(d, hid))
        if n >= hands - unanswered:
            skip.add(hid)
        b.extend(hb)
        if len(b.closed_hands) >= 500 or n == hands - 1:
            answer(signers["rules"], b, skip)
            core.persist(b)
            b = Batch()
    filled_s = time.perf_counter() - start
    # what a restart must bring back: an idle table of every variant, open hands
    b = Batch()
    for v in variants():
        t = f"idle_{v.replace('.', '_')}"
        b.extend(d.open_table(t, v))
        if v not in quick:
            t = f"busy_{v.replace('.', '_')}"
            b.extend(d.open_table(t, v))
            _, hb = play(d, t, v, rng)
            b.extend(hb)
    core.persist(b)
    out = {
        "hands": hands,
        "history_tables": tables,
        "history_variants": quick,
        "events": store.count_events(),
        "open_tables": len(d.tables),
        "open_hands": len(d.hands),
        "fill_s": round(filled_s, 1),
    }
    store.close()
    return out


def measure(url: str, keys: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    store = EventStore.from_url(url)  # migrated by the fill (and runnable by older code)
    signers = load_signers(store, keys, ("dealer",), TrustedKeys.from_dir(Path(keys)))
    t1 = time.perf_counter()
    bus = CountingBus()
    core = DealerCore(
        Dealer(signers["dealer"], signers["gateway"], clock_ms=lambda: 1_700_000_000_000),
        store,
        bus,  # type: ignore[arg-type]
        seed_box=seed_box(keys),
    )
    # as the service starts: the tables restored, then (in the background) the hands
    # closed without an outcome republished, a slice of opening time at a time
    tables, _ = asyncio.run(core.recover(republish=False))
    t2 = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    republished = asyncio.run(core.republish_pages())
    t3 = time.perf_counter()
    return {
        "open_store_s": round(t1 - t0, 3),
        "recover_s": round(t2 - t1, 3),
        "start_s": round(t2 - t0, 3),
        "tables_restored": tables,
        "hands_restored": len(core.dealer.hands),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),  # the process's, imports included
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "republished": republished,
        "republish_s": round(t3 - t2, 3),  # in the background, the service serving
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--tables", type=int, default=200, help="history tables")
    ap.add_argument("--unanswered", type=int, default=50)
    ap.add_argument("--url", default="")
    ap.add_argument("--keys", default="")
    ap.add_argument("--measure", action="store_true", help="only measure a filled store")
    ap.add_argument("--dir", default="", help="keep the store and keys here (default: a temp dir)")
    ap.add_argument("--repeat", type=int, default=3, help="starts measured")
    ap.add_argument(
        "--prefill", type=int, default=0, help="bulk-insert this many filler hands first"
    )
    ap.add_argument(
        "--baseline", default="", help="also measure the start of the code in this checkout"
    )
    a = ap.parse_args()
    if a.measure:
        print(json.dumps(measure(a.url, a.keys)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        tmp = a.dir or scratch
        url = a.url or f"sqlite:///{tmp}/start.sqlite"
        keys = a.keys or f"{tmp}/keys"
        report: dict[str, Any] = {"url": url.split("@")[-1]}
        if a.prefill:
            open_store(url).close()  # migrated
            report["prefill_hands"] = a.prefill
            report["prefill_s"] = round(prefill(url, a.prefill), 1)
        report.update(fill(url, keys, a.hands, a.tables, a.unanswered))
        for name, code in (("starts", ""), ("baseline_starts", a.baseline)):
            if name == "baseline_starts" and not code:
                continue
            env = {**os.environ, "CROUPIER_BENCH_CODE": code}
            runs = []
            for _ in range(a.repeat):
                done = subprocess.run(
                    [sys.executable, __file__, "--measure", "--url", url, "--keys", keys],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                if done.returncode:
                    sys.exit(f"{name}: the start failed:\n{done.stderr}")
                runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            report[name] = runs
        print(json.dumps(report))


if __name__ == "__main__":
    main()
