"""The demo: start the embedded cluster, play hands through the gRPC API as a gateway
would, wait for settlement, audit everything and print a summary.

Simulated players pick a few spots per hand at random (from a seeded ``random.Random``,
so a run is repeatable apart from the dealer's server seeds) and stake whole points; in
games with player decisions they then act (:func:`croupier_services.bots.next_move`)
until the hand closes. They call the gateway as a gateway would
(:class:`croupier_services.gateway_client.GatewayClient`): a request id on every mutating
call, and retries in transit that reuse it.

The demo never stops on a refused move: bots check their moves with the rules first;
a bet or move the dealer still refuses is logged, counted in the summary and replaced
by a legal one (bets one by one without the refused ones; the rules' automatic move by
``ExpireTurn``); a table that cannot go on is logged and the run still ends with its
summary and the audit of every hand that was dealt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import signal
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import grpc

from croupier.auth import Role, init_dev
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
from croupier_services import config
from croupier_services.bots import bets_for, next_move, seat_to_act, theoretical_rtp
from croupier_services.config import AuthSettings
from croupier_services.gateway_client import GatewayClient
from croupier_services.keys import TRUST_ROOT_FILE, init_keys
from croupier_services.runtime import Node, run_service
from croupier_services.security import client_channel, seat_metadata

STACK = 10_000_000  # minor units each player carries into a hand

log = logging.getLogger("croupier.demo")


@dataclass
class Refusals:
    """Moves and bets the rules refused during a run (each replaced by a legal one)."""

    moves: int = 0
    bets: int = 0
    tables_stopped: int = 0
    first: str = ""

    def note(self, what: str) -> None:
        log.warning("%s", what)
        if not self.first:
            self.first = what

    @property
    def total(self) -> int:
        return self.moves + self.bets


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


Events = list[tuple[str, dict[str, Any]]]


class Refused(Exception):
    """The dealer refused a request (a bet, a move, a timeout); the message says why."""


@dataclass(frozen=True)
class View:
    """What a player sees of a hand: its phase and its events (face-down cards of others
    redacted), as ``GetHandView`` returns it."""

    phase: str
    events: Events


class Tables(Protocol):
    """The gateway calls the demo makes, one implementation per way of reaching a
    dealer (:class:`GrpcTables`: the cluster's gRPC API). Each raises :class:`Refused`
    when the dealer refuses the request."""

    async def open_table(self, table: str, variant: str) -> None: ...
    async def open_hand(self, table: str, seats: list[tuple[int, str, int]]) -> tuple[str, int]: ...
    async def place_bets(self, hand_id: str, bets: list[tuple[int, str, int]]) -> None: ...
    async def close_betting(self, hand_id: str) -> View: ...
    async def view(self, hand_id: str, seat: int) -> View: ...
    async def act(self, hand_id: str, seat: int, action: str, args: dict[str, Any]) -> View: ...
    async def expire(self, hand_id: str) -> View: ...
    async def close_table(self, table: str) -> None: ...


def _view(v: gateway_pb2.HandView) -> View:
    return View(v.phase, [(e.type, json.loads(e.payload_json)) for e in v.events])


class GrpcTables:
    """:class:`Tables` through the cluster's ``GatewayService`` (a bare stub, or a
    :class:`GatewayClient` that adds request ids and retries)."""

    def __init__(self, gw: gateway_pb2_grpc.GatewayServiceStub | GatewayClient) -> None:
        self.gw = gw
        # each player's session: a seat token from the dealer (IssueSeatToken), sent with
        # that seat's calls; the gateway remembers which table each hand is at
        self.tokens: dict[tuple[str, int, str], str] = {}
        self.hands: dict[str, tuple[str, dict[int, str]]] = {}

    async def _call(self, method: str, request: Any, seats: Any = ()) -> Any:
        md = None
        if seats:
            table, players = self.hands[request.hand_id]
            md = seat_metadata([self.tokens[(table, n, players[n])] for n in sorted(set(seats))])
        try:
            return await getattr(self.gw, method)(request, metadata=md)
        except grpc.aio.AioRpcError as e:
            raise Refused(f"{method}: {e.code().name}: {e.details()}") from e

    async def _seat_token(self, table: str, seat: int, player: str) -> None:
        if (table, seat, player) not in self.tokens:
            req = gateway_pb2.IssueSeatTokenRequest(table_id=table, seat=seat, player_id=player)
            r = await self._call("IssueSeatToken", req)
            self.tokens[(table, seat, player)] = r.token

    async def open_table(self, table: str, variant: str) -> None:
        req = gateway_pb2.OpenTableRequest(
            table_id=table, variant=variant, client_seed=f"demo-{table}"
        )
        await self._call("OpenTable", req)

    async def open_hand(self, table: str, seats: list[tuple[int, str, int]]) -> tuple[str, int]:
        rows = [gateway_pb2.SeatEntry(seat=s, player_id=p, stack_minor=k) for s, p, k in seats]
        h = await self._call("OpenHand", gateway_pb2.OpenHandRequest(table_id=table, seats=rows))
        for s, p, _ in seats:
            await self._seat_token(table, s, p)
        self.hands[h.hand_id] = (table, {s: p for s, p, _ in seats})
        return h.hand_id, h.hand_no

    async def place_bets(self, hand_id: str, bets: list[tuple[int, str, int]]) -> None:
        rows = [gateway_pb2.Bet(seat=s, spot=sp, amount_minor=a) for s, sp, a in bets]
        req = gateway_pb2.PlaceBetsRequest(hand_id=hand_id, bets=rows)
        await self._call("PlaceBets", req, [s for s, _, _ in bets])

    async def close_betting(self, hand_id: str) -> View:
        r = await self._call("CloseBetting", gateway_pb2.CloseBettingRequest(hand_id=hand_id))
        return _view(r.view)

    async def view(self, hand_id: str, seat: int) -> View:
        req = gateway_pb2.GetHandViewRequest(hand_id=hand_id, seat=seat)
        return _view((await self._call("GetHandView", req, [seat])).view)

    async def act(self, hand_id: str, seat: int, action: str, args: dict[str, Any]) -> View:
        req = gateway_pb2.ActRequest(
            hand_id=hand_id, seat=seat, action=action, args_json=json.dumps(args)
        )
        return _view((await self._call("Act", req, [seat])).view)

    async def expire(self, hand_id: str) -> View:
        r = await self._call("ExpireTurn", gateway_pb2.ExpireTurnRequest(hand_id=hand_id))
        return _view(r.view)

    async def close_table(self, table: str) -> None:
        await self._call("CloseTable", gateway_pb2.CloseTableRequest(table_id=table))


async def play_table(
    tables: Tables,
    variant: str,
    table: str,
    players: int,
    hands: int,
    rng: random.Random,
    progress: Progress,
    staked: dict[str, int],
    refused: Refusals,
) -> list[str]:
    """Play ``hands`` hands at a new table; returns their hand ids. A table that cannot
    go on (a refusal the bots could not work around) is logged and stopped, and the run
    goes on: it ends with its summary and audit (which then show the hands missing)."""
    played: list[str] = []
    try:
        await tables.open_table(table, variant)
        seats = [
            (i + 1, f"{table}_p{i + 1}", STACK)
            for i in range(min(players, engine_for(variant).max_seats or players))
        ]
        for _ in range(hands):
            hand_id, hand_no = await tables.open_hand(table, seats)
            played.append(hand_id)
            await play_hand(tables, variant, hand_id, hand_no, seats, rng, staked, refused)
            progress.step()
        await tables.close_table(table)
    except Refused as e:
        refused.tables_stopped += 1
        refused.note(f"table {table} stopped: {e}")
    return played


async def play_hand(
    tables: Tables,
    variant: str,
    hand_id: str,
    hand_no: int,
    seats: list[tuple[int, str, int]],
    rng: random.Random,
    staked: dict[str, int],
    refused: Refusals,
) -> None:
    """One hand: the bots' bets, then their decisions until the hand closes. A move the
    rules refuse is logged and replaced by the rules' automatic move (``ExpireTurn``), a
    refused bet is left out."""
    bets = bets_for(variant, rng, [s for s, _, _ in seats], hand_no, STACK)
    for _, sp, a in await place_bets(tables, hand_id, bets, refused):
        staked[sp] += a
    view = await tables.close_betting(hand_id)
    # families with player decisions: the bots decide until the hand closes; a bot that
    # lets its turn run out is played by the dealer (ExpireTurn)
    while view.phase != "closed":
        events = view.events
        seat = seat_to_act(variant, events)
        if seat is not None:  # the bot decides on its own seat's view (its own cards)
            events = (await tables.view(hand_id, seat)).events
        move = next_move(variant, events, rng)
        if move is None:
            break
        if move.refused:
            refused.moves += 1
            refused.note(f"{hand_id}: seat {move.seat} {move.action}: {move.refused}")
        if not move.timeout:
            try:
                view = await tables.act(hand_id, move.seat, move.action, move.args)
            except Refused as e:
                refused.moves += 1
                refused.note(
                    f"{hand_id}: seat {move.seat} {move.action} {move.args} refused "
                    f"({e}); the rules' automatic move instead"
                )
            else:
                if move.stake:
                    staked[move.spot] += move.stake
                continue
        view = await tables.expire(hand_id)


async def place_bets(
    tables: Tables, hand_id: str, bets: list[tuple[int, str, int]], refused: Refusals
) -> list[tuple[int, str, int]]:
    """Place ``bets`` in one request; if the dealer refuses it, log why and place them one
    by one, leaving out each it refuses. Returns the bets placed."""
    if not bets:
        return []
    try:
        await tables.place_bets(hand_id, bets)
        return bets
    except Refused as e:
        refused.note(f"{hand_id}: bets refused ({e}); placing them one by one")
    placed = []
    for bet in bets:
        try:
            await tables.place_bets(hand_id, [bet])
        except Refused as e:
            refused.bets += 1
            refused.note(f"{hand_id}: bet {bet} refused ({e})")
        else:
            placed.append(bet)
    return placed


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
    keep_running: bool = False,
) -> int:
    db_url = database_url or f"sqlite:///{workdir / 'croupier.sqlite'}"
    auth_dir = init_dev(workdir / "auth")  # dev certificates, tokens and dealer keys
    if metrics_port < 0:
        metrics_port = free_port()
    # dev keys, made once and explicitly (no service makes keys); the root key beside the
    # keys folder stands in for the offline one, its public half is for auditors to pin
    keys = init_keys(workdir / "keys", root_key=workdir / "root.key")
    (workdir / TRUST_ROOT_FILE).write_text(keys.root.to_text(), encoding="utf-8")
    node = Node(
        roles=("dealer", "rules", "settlement", "audit", "log"),
        database_url=db_url,
        keys_dir=str(workdir / "keys"),
        trust_root=str(workdir / TRUST_ROOT_FILE),
        # the audit service and viewer pin the log's key from the keys made above, so a
        # genuine seal of a since-revoked key is judged by its first checkpoint there too
        log_key=str(workdir / "keys" / "log.vkey"),
        nats_url=nats_url,
        grpc_port=0,
        metrics_port=metrics_port,
        rule_variants=games,
        fuse=True,  # rules and settlement in one pass: one process holds every key here
        auth=AuthSettings.from_env(str(auth_dir.root)),
        # --keep-running: the replay viewer too (CROUPIER_VIEWER_PORT, else a free port)
        viewer_port=config.VIEWER_PORT.or_(free_port()) if keep_running else 0,
        viewer_host=config.VIEWER_HOST.get(),
        dealer_writer=config.DEALER_WRITER.get(),  # as `croupier serve dealer`
    )
    await node.start()
    try:
        rc = await _drive(node, games, hands, tables, players, seed)
        if keep_running:
            await _serve_until_stopped(node)
        return rc
    finally:
        await node.stop()


async def _serve_until_stopped(node: Node) -> None:
    """``--keep-running``: leave the cluster up (gRPC, metrics) after the summary, so
    Prometheus, grpcurl or the replay viewer can be pointed at it, until SIGINT/SIGTERM."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, node.stop_event.set)
    print(
        f"\nserving until Ctrl-C: gRPC 127.0.0.1:{node.bound_port}"
        + (f", metrics http://127.0.0.1:{node.metrics_port}/metrics" if node.metrics_port else "")
        + (f", replay viewer http://127.0.0.1:{node.viewer.port}/" if node.viewer else ""),
        flush=True,
    )
    if node.auth is not None:
        a = Path(node.auth.auth_dir)
        print(
            f"credentials in {a}: CA ca.pem, client certificates <role>.pem/.key, identity "
            "tokens <role>.token (gateway, auditor, operator)",
            flush=True,
        )
        print(
            f"auditors pin {a.parent / TRUST_ROOT_FILE} (--trust-root) and "
            f"{a.parent / 'keys' / 'log.vkey'} (--log-key)",
            flush=True,
        )
    if node.nats is not None and node.nats.passwords:
        urls = Path(node.auth.auth_dir if node.auth else ".") / "nats-urls"
        urls.write_text(
            "".join(f"{u} {node.nats.user_url(u)}\n" for u in sorted(node.nats.passwords)),
            encoding="utf-8",
        )
        urls.chmod(0o600)
        print(
            f"embedded nats-server {node.nats.url}: one user per service, their URLs "
            f"(with the dev passwords) in {urls}",
            flush=True,
        )
    await node.wait()


async def _drive(
    node: Node, games: list[str], hands: int, tables: int, players: int, seed: int
) -> int:
    target = f"127.0.0.1:{node.bound_port}"
    assert node.auth is not None
    auth = Path(node.auth.auth_dir)
    async with (
        client_channel(target, auth, Role.GATEWAY) as ch,
        client_channel(target, auth, Role.AUDITOR) as ach,
    ):
        tables_ = GrpcTables(GatewayClient(gateway_pb2_grpc.GatewayServiceStub(ch)))
        st = settlement_pb2_grpc.SettlementServiceStub(ach)
        au = audit_pb2_grpc.AuditServiceStub(ach)
        rng = random.Random(seed)
        total = hands * len(games)
        progress = Progress(total, "dealing ")
        t0 = time.perf_counter()
        jobs = []
        refused = Refusals()
        staked: dict[str, dict[str, int]] = {v: defaultdict(int) for v in games}
        for variant in games:
            per = [hands // tables + (1 if i < hands % tables else 0) for i in range(tables)]
            for i, n in enumerate(per):
                if n:
                    table = f"{variant.replace('.', '_')}_t{i + 1}_{seed}"
                    jobs.append(
                        play_table(
                            tables_,
                            variant,
                            table,
                            players,
                            n,
                            random.Random(rng.random()),
                            progress,
                            staked[variant],
                            refused,
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
                if rep.verdict == audit_pb2.AUDIT_VERDICT_FAIL and first_bad is None:
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
        refused,
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
    refused: Refusals,
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
    p(
        f"  refused by the rules and replaced: {refused.moves} moves, {refused.bets} bets"
        + (f" (first: {refused.first})" if refused.first else "")
    )
    if refused.tables_stopped:
        p(f"  tables stopped: {refused.tables_stopped}")
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
    keep_running: bool = False,
) -> int:
    for g_ in games:
        engine_for(g_)
    if workdir:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        return run_service(
            run_demo(
                games,
                hands,
                tables,
                players,
                seed,
                wd,
                metrics_port=metrics_port,
                keep_running=keep_running,
            )
        )
    with tempfile.TemporaryDirectory(prefix="croupier-demo-") as d:
        return run_service(
            run_demo(
                games,
                hands,
                tables,
                players,
                seed,
                Path(d),
                metrics_port=metrics_port,
                keep_running=keep_running,
            )
        )
