"""What key trust costs: per hand, the seal checks a consumer or an auditor runs (event
keys bound to their producers, key validity judged at a witness's time, Ed25519 once per
seal), and per keyring the root's signature and a reload check.

    .venv/bin/python bench/bench_key_checks.py [--hands 2000]

Hands are baccarat coups dealt by :class:`croupier.testing.DealerRun` and finished by the
rule and settlement keys, so each has the seals the cluster writes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "services"))

from croupier.events import SealVerifier
from croupier.keyring import RootKey
from croupier.testing import REGISTRY, SIGNERS, DealerRun, seat_rows
from croupier_services.keys import TrustedKeys


def per(label: str, seconds: float, n: int) -> None:
    print(f"{label:<58} {seconds / n * 1e6:9.2f} µs")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=2000)
    args = p.parse_args()
    run = DealerRun("baccarat", "bench", seats=seat_rows([1, 2, 3], 10**9))
    logs = []
    for _ in range(args.hands):
        hand = run.open(bets=[(1, "banker", 1000), (2, "player", 1000)])
        full, _ = run.finish(hand.hand_id)
        logs.append(full)
    seals = sum(len(x.seals) for x in logs)
    events = sum(len(x.events) for x in logs)
    print(
        f"{args.hands} hands, {events / args.hands:.1f} events and "
        f"{seals / args.hands:.1f} seals a hand"
    )

    t = time.perf_counter()
    cold = SealVerifier(REGISTRY, seen_at=lambda s: s.sealed_at_ms)
    for x in logs:
        cold.check_coverage(x.events, x.seals)
    per(
        "coverage, every seal verified (a consumer's first sight)",
        time.perf_counter() - t,
        args.hands,
    )
    t = time.perf_counter()
    for x in logs:
        cold.check_coverage(x.events, x.seals)
    per("coverage again, seals remembered (checks only)", time.perf_counter() - t, args.hands)
    t = time.perf_counter()
    for x in logs:
        cold.check_event_keys(x.events)
    per("  of which: every event's key bound to its producer", time.perf_counter() - t, args.hands)
    t = time.perf_counter()
    for x in logs:
        for s in x.seals:
            s.check_key(REGISTRY, s.sealed_at_ms)
    per("  of which: key validity at a witness's time", time.perf_counter() - t, args.hands)

    root = RootKey.generate()
    kr = root.sign([s.public_entry() for s in SIGNERS.values()], version=1, issued_at_ms=0)
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        kr.verify(root.trust_root)
    per("keyring: the root's signature checked (per load)", time.perf_counter() - t, n)
    with tempfile.TemporaryDirectory() as d:
        trust = TrustedKeys.of(root.trust_root, kr, Path(d) / "keyring.json")
        trust.refresh_s = 0
        t = time.perf_counter()
        for _ in range(n):
            trust.refresh()
        per(
            "keyring: reload check, file unchanged (per message, at most)",
            time.perf_counter() - t,
            n,
        )


if __name__ == "__main__":
    main()
