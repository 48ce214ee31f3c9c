"""A closed hand's replay as the rule service does it (:meth:`RulesService.handle`):
``eng.replay(stream, [(type, payload), ...])`` over the stored events, ``close_check``
and ``outcome``, per variant, in CPU µs per hand.

    .venv/bin/python bench/bench_replay.py [--hands 300] [--players 8]
        [--variants baccarat,...] [--repeat 5] [--chain] [--events FILE]
        [--settle] [--dump FILE] [--profile VARIANT]

Hands are played once by the demo's own table loop (:func:`croupier_services.demo.
play_table`) against the dealer core in process, seeded, so every run replays the same
hands (as ``bench_settle_state`` builds them). Each hand's payloads are parsed from
their stored canonical bytes once, before the clock starts, as the chain check parses
them for the rule service; ``--chain`` times that chain check
(:func:`croupier.events.verify_chain`: parse, canonical re-encoding, hash) as well.
The least CPU time (``time.process_time``) of ``--repeat`` runs is reported per hand.
Everything built before the clock starts is frozen out of the garbage collector
(:func:`gc.freeze`), whose collections then walk only what the replays allocate.

``--settle`` settles each replayed hand too (:func:`croupier.settlement.settle_state`:
the settlement, its record, bytes, hash and postings), as the one-pass consumer and the
audit do after the outcome: the figure of a hand's whole check.

``--events FILE`` keeps the played hands (pickled) and reads them back on the next run:
the same hands for two versions of the code, and a run cheap enough for valgrind, where
``--repeat 1`` less ``--repeat 0`` is the instructions of replaying every hand once
(unaffected by the machine's load)::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python \
        bench/bench_replay.py --events /tmp/replay.pickle --variants baccarat --repeat 1

Answers a family remembers (hands per rule set, 查大叫's best fan:
:mod:`croupier.games.memo`) are warm from the second repeat on, so the least of
several repeats overstates those families against a log of distinct hands: for
that figure use ``--repeat 1`` (CPU of one pass), or instructions (``--repeat 1`` less
``--repeat 0``).

``--dump FILE`` writes every hand's outcome, or its refusal (one JSON line a hand): two
dumps from two versions of the engines must be identical byte for byte.
``--profile VARIANT`` runs that variant's replays under cProfile and prints the top
functions by own time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import pickle
import pstats
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from croupier.errors import CroupierError
from croupier.events import Event, verify_chain
from croupier.games.registry import engine as engine_for
from croupier.settlement import settle_state
from croupier_services.demo import Progress, Refusals, play_table
from tests.integration.test_demo_seeds import LocalTables

Hand = tuple[Event, ...]
Parsed = tuple[str, list[tuple[str, dict[str, Any]]]]


class Quiet(Progress):
    def step(self) -> None:
        pass


async def play(variant: str, hands: int, players: int, seed: int) -> list[Hand]:
    tables = LocalTables(seed)
    rng = random.Random(f"{variant} {seed}")
    played = await play_table(
        tables,
        variant,
        f"{variant.replace('.', '_')}_bench",
        players,
        hands,
        rng,
        Quiet(hands, variant),
        defaultdict(int),
        Refusals(),
    )
    return [tables.hands[h].stream(h).events for h in played]


def parsed(hands: Sequence[Hand]) -> list[Parsed]:
    """Each hand's stream id and (type, payload) pairs, payloads parsed from their bytes."""
    out: list[Parsed] = []
    for events in hands:
        payloads = verify_chain(events)
        out.append((events[0].stream, [(e.type, p) for e, p in zip(events, payloads, strict=True)]))
    return out


def replay_one(
    variant: str, stream: str, pairs: list[tuple[str, dict[str, Any]]], settle: bool = False
) -> Any:
    eng = engine_for(variant)
    st = eng.replay(stream, pairs)
    eng.close_check(st)
    out = eng.outcome(st)
    if settle:
        return out, settle_state(eng, st).record_hash
    return out


def run(
    variant: str, hands: Sequence[Hand], ready: list[Parsed], chain: bool, settle: bool
) -> float:
    start = time.process_time()
    if chain:
        for events in hands:
            payloads = verify_chain(events)
            replay_one(
                variant,
                events[0].stream,
                [(e.type, p) for e, p in zip(events, payloads, strict=True)],
                settle,
            )
    else:
        for stream, pairs in ready:
            replay_one(variant, stream, pairs, settle)
    return time.process_time() - start


def dump_line(
    variant: str, stream: str, pairs: list[tuple[str, dict[str, Any]]], settle: bool
) -> str:
    try:
        result: Any = {"outcome": replay_one(variant, stream, pairs, settle)}
    except CroupierError as e:
        result = {"refused": [type(e).__name__, e.reason, e.message]}
    return json.dumps({"variant": variant, "hand": stream, **result}, sort_keys=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--hands", type=int, default=300)
    p.add_argument("--players", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--variants", default="baccarat")
    p.add_argument("--chain", action="store_true")
    p.add_argument("--settle", action="store_true")
    p.add_argument("--events", default="")
    p.add_argument("--dump", default="")
    p.add_argument("--profile", default="")
    args = p.parse_args()
    names = [v for v in args.variants.split(",") if v]
    for v in names:
        engine_for(v)  # the engines' one-off import is no part of a hand's cost
    t0 = time.perf_counter()
    kept: dict[str, list[Hand]] = {}
    if args.events and Path(args.events).exists():
        with open(args.events, "rb") as f:
            kept = pickle.load(f)
    hands = {
        v: kept[v] if v in kept else asyncio.run(play(v, args.hands, args.players, args.seed))
        for v in names
    }
    if args.events and any(v not in kept for v in names):
        kept.update(hands)
        with open(args.events, "wb") as f:
            pickle.dump(kept, f)
    ready = {v: parsed(hands[v]) for v in names}
    print(
        f"{sum(map(len, hands.values()))} hands of {len(names)} variants ready "
        f"in {time.perf_counter() - t0:.1f}s (seed {args.seed}, up to {args.players} players)",
        file=sys.stderr,
    )
    gc.collect()
    gc.freeze()  # the kept hands are no part of a collection's cost in the service
    if args.dump:
        with open(args.dump, "w") as f:
            for v in names:
                for stream, pairs in ready[v]:
                    f.write(dump_line(v, stream, pairs, args.settle) + "\n")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.repeat):
            run(args.profile, hands[args.profile], ready[args.profile], args.chain, args.settle)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    if args.repeat < 1:
        return
    print(f"{'variant':18s} {'hands':>6s} {'CPU µs/hand':>12s}")
    for v in names:
        best = min(run(v, hands[v], ready[v], args.chain, args.settle) for _ in range(args.repeat))
        n = len(hands[v])
        print(f"{v:18s} {n:6d} {best / n * 1e6:12.1f}")


if __name__ == "__main__":
    main()
