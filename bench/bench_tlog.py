"""What the transparency log and the whole-log checks cost per hand.

    .venv/bin/python bench/bench_tlog.py [--seals 20000] [--hands 50000]

1. pure: a seal's leaf hash (canonical JSON + SHA-256) and an O(log n) append to the
   compact range, per seal;
2. store (SQLite in a temp dir): appending seals one unit of work each (as the services
   commit), with the log's leaf and subtree rows written in the same transaction,
   against the same appends with the log switched off; CPU time (process time) per
   seal and wall time, then rows kept per seal, and an inclusion proof read from the
   store and verified;
3. a baccarat hand through the dealer, the rule and the settlement service makes
   ``seals/hand`` seals (counted from a real dealer run), so the per-hand figure is the
   per-seal figure times that;
4. the whole-log reconciliation (hand numbers, shoe order, ledger ties, balances) over
   ``--hands`` hands' facts, per hand.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

from croupier.audit import HandFacts, LedgerFact, ShoeFacts, reconcile
from croupier.events import Seal, StreamWriter, heads_of, seal
from croupier.signing import FileSigner, Signer
from croupier.store import Store, StreamInfo
from croupier.store import tlog as store_tlog
from croupier.testing import DealerRun, seat_rows
from croupier.tlog import merkle, seal_leaf_hash


def batches(signer: Signer, n: int) -> list[tuple[StreamInfo, list, Seal]]:
    out = []
    for i in range(n):
        w = StreamWriter(f"h{i}")
        w.append(signer, "bet", {"seat": 1, "amount": 1000, "i": i})
        evs = w.take()
        out.append(
            (
                StreamInfo(f"h{i}", "hand", "baccarat", "t1", None, i),
                evs,
                seal(signer, heads_of(evs), i),
            )
        )
    return out


INSIDE = [0.0]  # CPU seconds spent inside the log's append, summed over a run


def store_run(n: int, with_log: bool, group: int = 1) -> tuple[float, float, Store, str]:
    """Append ``n`` one-seal batches, ``group`` of them per unit of work (the services
    commit a group of hands' batches together), with the log or with it switched off.
    With the log, the CPU time inside its append is summed in ``INSIDE`` (a direct
    figure, steadier on a loaded machine than the difference of two runs)."""
    d = tempfile.mkdtemp()
    store = Store.open(f"sqlite:///{d}/b.sqlite", upgrade=True)
    work = batches(FileSigner.generate("dealer"), n)
    saved = store_tlog.append_seals
    INSIDE[0] = 0.0
    if not with_log:
        store_tlog.append_seals = lambda conn, seals: []  # type: ignore[assignment]
    else:

        def timed(conn: Any, seals: Any) -> list[int]:
            t = time.process_time()
            try:
                return saved(conn, seals)
            finally:
                INSIDE[0] += time.process_time() - t

        store_tlog.append_seals = timed  # type: ignore[assignment]
    try:
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(0, len(work), group):
            with store.transaction() as uow:
                for info, evs, s in work[i : i + group]:
                    uow.append(evs, [s], [info])
        return time.process_time() - c0, time.perf_counter() - w0, store, d
    finally:
        store_tlog.append_seals = saved


def seals_per_hand() -> float:
    run = DealerRun("baccarat", "bench", seat_rows([1, 2, 3], 10**7), [(1, "banker", 1000)])
    hands = [run.open() for _ in range(20)]
    n = 0
    for h in hands:
        log, _ = run.finish(h.hand_id)
        n += len({s.seal_id for s in log.seals})
    return n / len(hands)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seals", type=int, default=20_000)
    ap.add_argument("--hands", type=int, default=50_000)
    ap.add_argument(
        "--group", type=int, default=50, help="seals per unit of work in the grouped run"
    )
    a = ap.parse_args()

    signer = FileSigner.generate("dealer")
    sample = [b[2] for b in batches(signer, 20_000)]
    t0 = time.process_time()
    leaves = [seal_leaf_hash(s) for s in sample]
    t_leaf = (time.process_time() - t0) / len(sample)
    c = merkle.CompactRange()
    t0 = time.process_time()
    for h in leaves:
        c.append(h)
    t_app = (time.process_time() - t0) / len(leaves)
    print(f"pure   : leaf hash {t_leaf * 1e6:.1f} µs, append {t_app * 1e6:.1f} µs per seal")

    cpu_on, wall_on, store, _ = store_run(a.seals, True)
    inside = INSIDE[0] / a.seals
    cpu_off, wall_off, _, _ = store_run(a.seals, False)
    per = (cpu_on - cpu_off) / a.seals
    print(
        f"store  : {a.seals} seals, one unit of work each: CPU {cpu_on / a.seals * 1e6:.0f} µs "
        f"with the log, {cpu_off / a.seals * 1e6:.0f} µs without: the log costs "
        f"{per * 1e6:.0f} µs CPU per seal (wall {wall_on / a.seals * 1e6:.0f} vs "
        f"{wall_off / a.seals * 1e6:.0f} µs); inside the log's append {inside * 1e6:.0f} µs"
    )
    g_on, gw_on, _, _ = store_run(a.seals, True, a.group)
    inside_g = INSIDE[0] / a.seals
    g_off, gw_off, _, _ = store_run(a.seals, False, a.group)
    per_g = (g_on - g_off) / a.seals
    print(
        f"grouped: {a.group} seals per unit of work: CPU {g_on / a.seals * 1e6:.0f} µs per "
        f"seal with the log, {g_off / a.seals * 1e6:.0f} µs without: the log costs "
        f"{per_g * 1e6:.0f} µs CPU per seal (wall {gw_on / a.seals * 1e6:.0f} vs "
        f"{gw_off / a.seals * 1e6:.0f} µs); inside the log's append {inside_g * 1e6:.0f} µs"
    )
    with store.engine.connect() as conn:
        nodes = conn.exec_driver_sql("SELECT count(*) FROM tlog_nodes").scalar_one()
    print(f"rows   : {nodes / a.seals:.2f} subtree rows + 1 leaf row per seal")
    size = store.tlog_size()
    t0 = time.perf_counter()
    for i in range(0, size, max(1, size // 200)):
        p = store.inclusion_proof(i, size)
    t_proof = (time.perf_counter() - t0) / 200
    _, root = store.tlog_root()
    last = store.leaf_seals(size - 2)[0][2]
    assert last is not None
    proof = store.inclusion_proof(size - 1, size)
    t0 = time.perf_counter()
    merkle.verify_inclusion(size - 1, size, seal_leaf_hash(last), proof, root)
    t_ver = time.perf_counter() - t0
    print(
        f"proofs : an inclusion proof read from the store {t_proof * 1e3:.2f} ms "
        f"({len(p)} hashes), verified in {t_ver * 1e6:.0f} µs"
    )

    sph = seals_per_hand()
    print(
        f"hand   : a baccarat hand makes {sph:.1f} seals: the log costs "
        f"~{inside * sph * 1e6:.0f} µs CPU per hand one seal per commit, "
        f"~{inside_g * sph * 1e6:.0f} µs grouped (inside its append; "
        f"{per * sph * 1e6:.0f} and {per_g * sph * 1e6:.0f} µs by difference of runs)"
    )

    facts = []
    ledger = []
    for i in range(a.hands):
        t = f"t{i % 100}"
        no = i // 100 + 1
        post = (("player:p", -100), ("house:baccarat", 100))
        facts.append(
            HandFacts(f"{t}_h{no}", t, "baccarat", no, f"{t}_s{no}", 1, 0, 6, True, post, False)
        )
        ledger.append(LedgerFact(i + 1, "settle", f"{t}_h{no}", None, post))
    shoes = {f.shoe: ShoeFacts(f.shoe, True, 6, 1) for f in facts}
    tx = {f.hand_id: i + 1 for i, f in enumerate(facts)}
    bal = {"player:p": -100 * a.hands, "house:baccarat": 100 * a.hands}
    t0 = time.process_time()
    found = reconcile(facts, shoes, ledger=ledger, settlement_tx=tx, balances=bal)
    t_rec = (time.process_time() - t0) / a.hands
    assert found == [], found[:3]
    print(f"whole  : reconciliation of {a.hands} hands: {t_rec * 1e6:.1f} µs CPU per hand")


if __name__ == "__main__":
    main()
