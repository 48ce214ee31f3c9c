"""The demo: start the embedded cluster, play hands through the gRPC API as a gateway
would, wait for settlement, audit everything and print a summary.

Simulated players pick a few spots per hand at random (from a seeded ``random.Random``,
so a run is repeatable apart from the dealer's server seeds) and stake whole points; in
games with player decisions they then act (:func:`croupier_services.bots.next_move`)
until the hand closes.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import grpc

from croupier.bus.embedded import free_port
from croupier.games.registry import engine as engine_for
from croupier.money import HOUSE
from croupier.pb.croupier.v1 import (
    audit_pb2,
    audit_pb2_grpc,
    gateway_pb2,
    gateway_pb2_grpc,
    settlement_pb2,
    settlement_pb2_grpc,
)
from croupier_services.bots import bets_for, next_move, seat_to_act, theoretical_rtp
from croupier_services.keys import TRUST_ROOT_FILE, init_keys
from croupier_services.runtime import Node

STACK = 10_000_000  # minor units each player carries into a hand


@dataclass
class Tally:
    hands: int = 0
    staked: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    won: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    rake: int = 0

    def returned(self, spot: str) -> int:
        return self.staked[spot] + self.won[spot]


class Progress:
    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.done = total, label, 0
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last < 0.1 and self.done < self.total:
            return
        self.last = now
        width = 30
        filled = int(width * self.done / max(1, self.total))
        line = f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        if self.tty:
            sys.stderr.write("\r" + line)
            if self.done >= self.total:
                sys.stderr.write("\n")
        elif self.done >= self.total or self.done % max(1, self.total // 10) == 0:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


async def play_table(
    gw: gateway_pb2_grpc.GatewayServiceStub,
    variant: str,
    table: str,
    players: int,
    hands: int,
    rng: random.Random,
    progress: Progress,
    staked: dict[str, int],
) -> None:
    await gw.OpenTable(
        gateway_pb2.OpenTableRequest(table_id=table, variant=variant, client_seed=f"demo-{table}")
    )
    seats = [
        gateway_pb2.SeatEntry(seat=i + 1, player_id=f"{table}_p{i + 1}", stack_minor=STACK)
        for i in range(min(players, engine_for(variant).max_seats or players))
    ]
    for _ in range(hands):
        h = await gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=table, seats=seats))
        bets = bets_for(variant, rng, [s.seat for s in seats], h.hand_no, STACK)
        if bets:
            await gw.PlaceBets(
                gateway_pb2.PlaceBetsRequest(
                    hand_id=h.hand_id,
                    bets=[gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets],
                )
            )
            for _, sp, a in bets:
                staked[sp] += a
        view = (await gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))).view
        # families with player decisions: the bots decide until the hand closes; a bot that
        # lets its turn run out is played by the dealer (ExpireTurn)
        while view.phase != "closed":
            events = [(e.type, json.loads(e.payload_json)) for e in view.events]
            seat = seat_to_act(variant, events)
            if seat is not None:  # the bot decides on its own seat's view (its own cards)
                own = await gw.GetHandView(
                    gateway_pb2.GetHandViewRequest(hand_id=h.hand_id, seat=seat)
                )
                events = [(e.type, json.loads(e.payload_json)) for e in own.view.events]
            move = next_move(variant, events, rng)
            if move is None:
                break
            if move.timeout:
                view = (await gw.ExpireTurn(gateway_pb2.ExpireTurnRequest(hand_id=h.hand_id))).view
            else:
                act = await gw.Act(
                    gateway_pb2.ActRequest(
                        hand_id=h.hand_id,
                        seat=move.seat,
                        action=move.action,
                        args_json=json.dumps(move.args),
                    )
                )
                view = act.view
            if move.stake:
                staked[move.spot] += move.stake
        progress.step()
    await gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))


async def run_demo(
    games: list[str],
    hands: int,
    tables: int,
    players: int,
    seed: int,
    workdir: Path,
    nats_url: str | None = None,
    database_url: str | None = None,
    metrics_port: int = 0,
) -> int:
    db_url = database_url or f"sqlite:///{workdir / 'croupier.sqlite'}"
    if metrics_port < 0:
        metrics_port = free_port()
    # dev keys, made once and explicitly (no service makes keys); the root key beside the
    # keys folder stands in for the offline one, its public half is for auditors to pin
    keys = init_keys(workdir / "keys", root_key=workdir / "root.key")
    (workdir / TRUST_ROOT_FILE).write_text(keys.root.to_text(), encoding="utf-8")
    node = Node(
        roles=("dealer", "rules", "settlement", "audit"),
        database_url=db_url,
        keys_dir=str(workdir / "keys"),
        trust_root=str(workdir / TRUST_ROOT_FILE),
        nats_url=nats_url,
        grpc_port=0,
        metrics_port=metrics_port,
        rule_variants=games,
    )
    await node.start()
    try:
        return await _drive(node, games, hands, tables, players, seed)
    finally:
        await node.stop()


async def _drive(
    node: Node, games: list[str], hands: int, tables: int, players: int, seed: int
) -> int:
    target = f"127.0.0.1:{node.bound_port}"
    async with grpc.aio.insecure_channel(target) as ch:
        gw = gateway_pb2_grpc.GatewayServiceStub(ch)
        st = settlement_pb2_grpc.SettlementServiceStub(ch)
        au = audit_pb2_grpc.AuditServiceStub(ch)
        rng = random.Random(seed)
        total = hands * len(games)
        progress = Progress(total, "dealing ")
        t0 = time.perf_counter()
        jobs = []
        staked: dict[str, dict[str, int]] = {v: defaultdict(int) for v in games}
        for variant in games:
            per = [hands // tables + (1 if i < hands % tables else 0) for i in range(tables)]
            for i, n in enumerate(per):
                if n:
                    table = f"{variant.replace('.', '_')}_t{i + 1}_{seed}"
                    jobs.append(
                        play_table(
                            gw,
                            variant,
                            table,
                            players,
                            n,
                            random.Random(rng.random()),
                            progress,
                            staked[variant],
                        )
                    )
        await asyncio.gather(*jobs)
        t_dealt = time.perf_counter()
        sprog = Progress(total, "settling")
        settled = 0
        deadline = time.monotonic() + 120
        while settled < total and time.monotonic() < deadline:
            r = await st.GetRakeSummary(settlement_pb2.GetRakeSummaryRequest())
            now = sum(line.hands for line in r.lines if line.variant in games)
            if now > settled:
                sprog.step(now - settled)
                settled = now
            if settled < total:
                await asyncio.sleep(0.05)
        t_settled = time.perf_counter()
        tallies = await _tally(st, games)
        for v in games:
            tallies[v].staked = staked[v]
        verdicts: dict[str, int] = defaultdict(int)
        first_bad: str | None = None
        aprog = Progress(settled, "auditing")
        t_a = time.perf_counter()
        for variant in games:
            async for resp in au.VerifyRange(audit_pb2.VerifyRangeRequest(variant=variant)):
                rep = resp.report
                verdicts[audit_pb2.AuditVerdict.Name(rep.verdict)] += 1
                if not rep.ok and first_bad is None:
                    first_bad = f"{rep.hand_id} #{rep.first_bad_seq}: {rep.reason}: {rep.message}"
                aprog.step()
        t_audit = time.perf_counter() - t_a
    ok = settled == total and first_bad is None and verdicts.get("AUDIT_VERDICT_FAIL", 0) == 0
    _print_summary(
        games,
        tallies,
        total,
        settled,
        t_dealt - t0,
        t_settled - t0,
        t_audit,
        verdicts,
        first_bad,
        ok,
        node,
    )
    return 0 if ok else 1


async def _tally(
    st: settlement_pb2_grpc.SettlementServiceStub, games: list[str]
) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for variant in games:
        t = Tally()
        token = ""
        while True:
            r = await st.ListSettlements(
                settlement_pb2.ListSettlementsRequest(
                    variant=variant, page_size=100, page_token=token
                )
            )
            for s in r.settlements:
                t.hands += 1
                t.rake += s.rake_minor
                rec: dict[str, Any] = json.loads(s.record_json)
                for line in rec.get("spots", []):
                    if line["participant"] != HOUSE:
                        t.won[line["spot"]] += int(line["amount"])
            token = r.next_page_token
            if not token:
                break
        out[variant] = t
    return out


def _print_summary(
    games: list[str],
    tallies: dict[str, Tally],
    total: int,
    settled: int,
    t_deal: float,
    t_settle: float,
    t_audit: float,
    verdicts: dict[str, int],
    first_bad: str | None,
    ok: bool,
    node: Node,
) -> None:
    p = print
    p("")
    p("Croupier demo")
    p(
        f"  hands: {settled}/{total} settled   dealing {t_deal:.2f}s   "
        f"dealt→settled {t_settle:.2f}s   throughput {settled / max(t_settle, 1e-9):.0f} hands/s"
    )
    for variant in games:
        t = tallies[variant]
        staked = sum(t.staked.values())
        returned = sum(t.returned(sp) for sp in t.staked)
        if not staked:  # players against each other: the house only takes the rake
            p(
                f"\n  {variant}: {t.hands} hands, players against each other, rake "
                f"{t.rake / 100:,.2f} (the players' net result: {-t.rake / 100:+,.2f} points)"
            )
            continue
        p(
            f"\n  {variant}: {t.hands} hands, bets {staked / 100:,.2f}, payouts "
            f"{returned / 100:,.2f}, rake {t.rake / 100:,.2f}, house "
            f"{(staked - returned - t.rake) / 100:+,.2f} (points; 1 point = 100 minor units)"
        )
        theo = theoretical_rtp(variant)
        p(f"    {'spot':<12}{'bets':>16}{'payouts':>16}{'RTP':>10}{'theory':>10}")
        for spot in sorted(t.staked):
            s, r = t.staked[spot], t.returned(spot)
            th = theo.get(spot)
            p(
                f"    {spot:<12}{s / 100:>16,.2f}{r / 100:>16,.2f}{r / s if s else 0:>10.4f}"
                f"{float(th) if isinstance(th, Fraction) else float('nan'):>10.4f}"
            )
    p(
        f"\n  audit: {dict(verdicts)} in {t_audit:.2f}s "
        f"({sum(verdicts.values()) / max(t_audit, 1e-9):.0f} hands/s)"
    )
    if first_bad:
        p(f"  first failure: {first_bad}")
    p(f"  verdict: {'PASS' if ok else 'FAIL'}")
    if node.metrics_port:
        p(
            f"  metrics: http://127.0.0.1:{node.metrics_port}/metrics (while the demo runs; "
            "the same series every service exports for Prometheus and the Grafana dashboard "
            "in deploy/)"
        )
    p(f"  gRPC: 127.0.0.1:{node.bound_port} (Gateway, Settlement, Audit; health, reflection)")


def main_demo(
    games: list[str],
    hands: int,
    tables: int,
    players: int,
    seed: int,
    workdir: str | None,
    metrics_port: int,
) -> int:
    for g_ in games:
        engine_for(g_)
    if workdir:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        return asyncio.run(
            run_demo(games, hands, tables, players, seed, wd, metrics_port=metrics_port)
        )
    with tempfile.TemporaryDirectory(prefix="croupier-demo-") as d:
        return asyncio.run(
            run_demo(games, hands, tables, players, seed, Path(d), metrics_port=metrics_port)
        )
