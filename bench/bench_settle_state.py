"""A hand's settlement as the settlement service and the audit compute it
(:func:`croupier.settlement.settle_state`: the engine's ``settle``, the record, its
canonical bytes and hash, the postings), per variant, in CPU µs per call.

    .venv/bin/python bench/bench_settle_state.py [--hands 300] [--players 8]
        [--variants baccarat,niuniu.hundred,...] [--repeat 5] [--profile VARIANT]
        [--dump FILE] [--states FILE] [--service]

Hands are played once by the demo's own table loop (:func:`croupier_services.demo.
play_table`, the bots of every family) against the dealer core in process
(``tests/integration/test_demo_seeds.LocalTables``), seeded, so every run settles the
same hands. Each hand is replayed to its closed state (what ``settle_events`` does
before settling), then ``settle_state`` runs over all of a variant's hands ``--repeat``
times; the least CPU time (``time.process_time``) of the repeats is reported per call.
Answers a family remembers (hands per rule set, 查大叫's best fan:
:mod:`croupier.games.memo`) are warm from the second repeat on, so the least of
several repeats overstates those families against a log of distinct hands: for
that figure use ``--repeat 1`` (CPU of one pass), or instructions (``--repeat 1`` less
``--repeat 0``).

``--dump FILE`` writes every hand's record bytes, postings and ``hand.settled`` payload
(one JSON line a hand): two dumps from two versions of the kernel must be identical byte
for byte. ``--service`` also encodes each hand's ``hand.settled`` payload as the
settlement service does (:func:`croupier.events.make_event`: canonical JSON, checked),
so a figure is the service's whole cost of a hand after the replay. ``--profile
VARIANT`` runs that variant's settlements under cProfile and prints the top functions by
own time. ``--states FILE`` keeps the closed hands (pickled) and reads them back on the
next run: the same hands for two versions of the code, and a run cheap enough for
valgrind, where ``--repeat 1`` less ``--repeat 0`` is the instructions of settling each
hand once (unaffected by the machine's load)::

    valgrind --tool=cachegrind --cache-sim=no --cache-sim=no .venv/bin/python \
        bench/bench_settle_state.py --states /tmp/hands.pickle --variants baccarat --repeat 1
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from croupier import canonical
from croupier.games import base as g
from croupier.games.registry import engine as engine_for
from croupier.settlement import settle_state
from croupier_services.demo import Progress, Refusals, play_table
from tests.integration.test_demo_seeds import LocalTables

DEFAULT_VARIANTS = (
    "baccarat",
    "niuniu.hundred",
    "sangong.hundred",
    "dice.yaoyao",
    "blackjack.multi",
    "holdem.must_bet",
    "chuhan.insured",
    "erbagang",
    "niuniu.banker",
    "mahjong.xuezhan",
)

Closed = tuple[g.Engine[Any], g.HandState]


class Quiet(Progress):
    def step(self) -> None:
        pass


async def play(variant: str, hands: int, players: int, seed: int) -> tuple[LocalTables, list[str]]:
    tables = LocalTables(seed)
    table = f"{variant.replace('.', '_')}_bench"
    rng = random.Random(f"{variant} {seed}")
    played = await play_table(
        tables,
        variant,
        table,
        players,
        hands,
        rng,
        Quiet(hands, variant),
        defaultdict(int),
        Refusals(),
    )
    return tables, played


def closed_states(variant: str, hands: int, players: int, seed: int) -> list[Closed]:
    tables, played = asyncio.run(play(variant, hands, players, seed))
    out: list[Closed] = []
    for hand_id in played:
        run = tables.hands[hand_id]
        eng = run.engine
        events = [(e.type, e.payload) for e in run.stream(hand_id).events]
        st = eng.replay(hand_id, events)
        eng.close_check(st)
        out.append((eng, st))
    return out


def run(states: list[Closed], service: bool = False) -> float:
    gc.collect()
    start = time.process_time()
    if service:
        for eng, st in states:
            canonical.dumps(settle_state(eng, st).settled_payload())
    else:
        for eng, st in states:
            settle_state(eng, st)
    return time.process_time() - start


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--hands", type=int, default=300)
    p.add_argument("--players", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    p.add_argument("--profile", default="")
    p.add_argument("--dump", default="")
    p.add_argument("--states", default="")
    p.add_argument("--service", action="store_true")
    args = p.parse_args()
    names = [v for v in args.variants.split(",") if v]
    for v in names:
        engine_for(v)  # the engines' one-off import is no part of a hand's cost
    t0 = time.perf_counter()
    kept: dict[str, list[tuple[str, g.HandState]]] = {}
    if args.states and Path(args.states).exists():
        with open(args.states, "rb") as f:
            kept = pickle.load(f)
    states = {
        v: [(engine_for(name), st) for name, st in kept[v]]
        if v in kept
        else closed_states(v, args.hands, args.players, args.seed)
        for v in names
    }
    if args.states and any(v not in kept for v in names):
        kept.update({v: [(e.variant, st) for e, st in states[v]] for v in names})
        with open(args.states, "wb") as f:
            pickle.dump(kept, f)
    # the hands kept are no part of a run's collections (nor of its instructions)
    gc.collect()
    gc.freeze()
    print(
        f"{sum(map(len, states.values()))} hands of {len(names)} variants ready "
        f"in {time.perf_counter() - t0:.1f}s (seed {args.seed}, up to {args.players} players)",
        file=sys.stderr,
    )
    if args.dump:
        with open(args.dump, "w") as f:
            for v in names:
                for eng, st in states[v]:
                    hs = settle_state(eng, st)
                    line = {
                        "variant": v,
                        "hand": st.hand_id,
                        "record": hs.record_bytes.decode(),
                        "postings": hs.postings,
                        "settled": canonical.dumps(hs.settled_payload()).decode(),
                    }
                    f.write(json.dumps(line, sort_keys=True) + "\n")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.repeat):
            run(states[args.profile], args.service)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    if args.repeat < 1:
        return
    print(f"{'variant':18s} {'hands':>6s} {'CPU µs/settle':>14s}")
    for v in names:
        best = min(run(states[v], args.service) for _ in range(args.repeat))
        n = len(states[v])
        print(f"{v:18s} {n:6d} {best / n * 1e6:14.1f}")


if __name__ == "__main__":
    main()
