"""What auditors read, over a demo-like run through the real transport and store: the
day report (gRPC and CLI) equals figures recomputed with raw SQL over the ledger
postings, the settlement records and the log; hand histories over gRPC, the CLI and
files agree; tables and hands list with filters and pages, and ``VerifyRange`` pages;
必下德州 hands of the run export to PHH and replay in PokerKit; bad input is refused."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import pytest
import sqlalchemy as sa

from croupier.history import render
from croupier.history.phh import to_phh
from croupier.pb.croupier.v1 import audit_pb2
from croupier_services import cli, reporting
from croupier_services.demo import GrpcTables, Progress, Refusals, play_table

from .harness import Cluster, ClusterFactory, unique_table

pytestmark = pytest.mark.integration

GAMES = (
    "baccarat",
    "dice.yaoyao",
    "blackjack.multi",
    "holdem.must_bet",
    "mahjong.xuezhan",
    "niuniu.hundred",
)
TABLES = 2
HANDS = 3


async def play(c: Cluster) -> None:
    rng = random.Random(15)
    staked: dict[str, int] = defaultdict(int)
    progress = Progress(len(GAMES) * TABLES * HANDS, "")
    for v in GAMES:
        for _ in range(TABLES):
            table = unique_table(v.replace(".", "_")[:12])
            await play_table(
                GrpcTables(c.gw),
                v,
                table,
                4,
                HANDS,
                random.Random(rng.random()),
                progress,
                staked,
                Refusals(),
            )
    await c.wait_settled(len(GAMES) * TABLES * HANDS, timeout_s=120)


def sql_figures(c: Cluster, since: int, until: int) -> dict[tuple[str, str], dict[str, int]]:
    """Per (variant, table): hands, GGR and rake summed by SQL over the postings;
    turnover and payouts from the stored records; stakes per (variant, spot) from the
    bets of the bets.placed (and older bet.placed) events. Written out independently of
    croupier.report."""
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    with c.store.engine.connect() as conn:
        for r in conn.execute(
            sa.text(
                "SELECT s.variant, s.table_id, COUNT(DISTINCT t.tx_id) AS hands, "
                "SUM(CASE WHEN p.account LIKE 'player:%' THEN -p.amount ELSE 0 END) AS ggr, "
                "SUM(CASE WHEN p.account LIKE 'rake:%' THEN p.amount ELSE 0 END) AS rake "
                "FROM ledger_transactions t JOIN settlements s ON s.tx_id = t.tx_id "
                "JOIN ledger_postings p ON p.tx_id = t.tx_id "
                "WHERE t.kind = 'settle' AND t.created_at_ms >= :a AND t.created_at_ms < :b "
                "GROUP BY s.variant, s.table_id"
            ),
            {"a": since, "b": until},
        ):
            f = out[(r.variant, r.table_id)]
            f["hands"], f["ggr"], f["rake"] = int(r.hands), int(r.ggr), int(r.rake)
        for r in conn.execute(
            sa.text(
                "SELECT s.variant, s.table_id, s.record FROM settlements s "
                "JOIN ledger_transactions t ON t.tx_id = s.tx_id "
                "WHERE t.created_at_ms >= :a AND t.created_at_ms < :b"
            ),
            {"a": since, "b": until},
        ):
            rec = json.loads(bytes(r.record))
            f = out[(r.variant, r.table_id)]
            f["turnover"] += sum(rec["staked"].values())
            f["payouts"] += sum(max(0, v) for v in rec["returned"].values())
        for r in conn.execute(
            sa.text(
                "SELECT st.variant, e.type, e.payload FROM events e JOIN streams st "
                "ON st.stream_id = e.stream_id WHERE e.type IN ('bets.placed', 'bet.placed')"
            )
        ):
            p = json.loads(bytes(r.payload))
            for b in p["bets"] if r.type == "bets.placed" else [p]:
                out[(r.variant, "spot:" + b["spot"])]["staked"] += int(b["amount"])
    return out


def run_cli(c: Cluster, *argv: str) -> tuple[int, str]:
    os.environ["CROUPIER_DATABASE_URL"] = c.database.cli_url
    os.environ["CROUPIER_KEYS_DIR"] = str(c.keys_dir)  # exports carry the signed keyring
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            rc = cli.main(list(argv))
    finally:
        del os.environ["CROUPIER_DATABASE_URL"]
        del os.environ["CROUPIER_KEYS_DIR"]
    return rc, buf.getvalue()


async def test_reports_histories_listings(cluster_factory: ClusterFactory, tmp_path: Path) -> None:
    c = await cluster_factory(variants=GAMES)
    await play(c)
    with c.store.engine.connect() as conn:
        first = int(
            conn.execute(sa.text("SELECT MIN(created_at_ms) FROM ledger_transactions")).scalar_one()
        )
    day = datetime.fromtimestamp(first / 1000, tz=UTC).date().isoformat()

    # -- the day report against raw SQL --------------------------------------------
    resp = await c.au.GetDayReport(audit_pb2.GetDayReportRequest(day=day, time_zone="UTC"))
    want = sql_figures(c, resp.since_ms, resp.until_ms)
    tables = {(t.variant, t.table_id): t for t in resp.tables}
    money_keys = {k for k in want if not k[1].startswith("spot:")}
    assert set(tables) == money_keys and len(tables) == len(GAMES) * TABLES
    for k, t in tables.items():
        w = want[k]
        assert (t.hands, t.turnover_minor, t.payouts_minor, t.ggr_minor, t.rake_minor) == (
            w["hands"],
            w["turnover"],
            w["payouts"],
            w["ggr"],
            w["rake"],
        ), k
    assert resp.total.hands == len(GAMES) * TABLES * HANDS
    assert resp.total.ggr_minor == sum(want[k]["ggr"] for k in money_keys)
    assert resp.total.rake_minor == sum(want[k]["rake"] for k in money_keys)
    # stakes per spot of the games against the house
    spots = {(s.variant, s.spot): s for s in resp.rtp}
    staked = {(v, k[5:]): w["staked"] for (v, k), w in want.items() if k.startswith("spot:")}
    assert staked and {k: spots[k].staked_minor for k in staked} == staked
    # ... with a 95% band around each empirical RTP and the exact theory beside it
    banker = spots[("baccarat", "banker")]
    assert banker.HasField("theory") and abs(banker.theory - 0.985419) < 1e-6
    for s in resp.rtp:
        if s.bets >= 2 and s.staked_minor:
            assert s.ci_low <= s.rtp <= s.ci_high
    # peer-to-peer games have no RTP rows, only rake
    assert not any(s.variant in ("holdem.must_bet", "mahjong.xuezhan") for s in resp.rtp)
    # filters
    one = await c.au.GetDayReport(
        audit_pb2.GetDayReportRequest(day=day, variant="dice.yaoyao", format="csv")
    )
    assert {t.variant for t in one.tables} == {"dice.yaoyao"}
    assert one.rendered.startswith("section,day,variant,table")
    # the CLI prints the same figures
    rc, out = run_cli(c, "report", "--day", day, "--format", "json", "--tz", "UTC")
    assert rc == 0
    j = json.loads(out)
    assert {(t["variant"], t["table_id"]): t["ggr"] for t in j["tables"]} == {
        k: t.ggr_minor for k, t in tables.items()
    }
    rc, text = run_cli(c, "report", "--day", day)
    assert rc == 0 and "Return to player against the house" in text
    # a day without hands is empty, not an error
    empty = await c.au.GetDayReport(audit_pb2.GetDayReportRequest(day="2001-01-01"))
    assert empty.total.hands == 0 and not empty.tables

    # -- listings and paging --------------------------------------------------------
    lt = await c.au.ListTables(audit_pb2.ListTablesRequest())
    assert {(t.variant, t.table_id) for t in lt.tables} == money_keys
    assert all(t.hands == HANDS for t in lt.tables)
    only = await c.au.ListTables(audit_pb2.ListTablesRequest(variant="baccarat"))
    assert len(only.tables) == TABLES
    seen: list[str] = []
    token = ""
    while True:
        page = await c.au.ListHands(audit_pb2.ListHandsRequest(page_size=4, page_token=token))
        assert len(page.hands) <= 4
        seen += [h.hand_id for h in page.hands]
        token = page.next_page_token
        if not token:
            break
    assert len(seen) == len(set(seen)) == len(GAMES) * TABLES * HANDS and seen == sorted(seen)
    table = only.tables[0].table_id
    at = await c.au.ListHands(audit_pb2.ListHandsRequest(table_id=table))
    assert {h.table_id for h in at.hands} == {table} and len(at.hands) == HANDS
    paged: list[str] = []
    after = ""
    while True:
        got = [
            r.report.hand_id
            async for r in c.au.VerifyRange(
                audit_pb2.VerifyRangeRequest(limit=5, after_hand_id=after)
            )
        ]
        paged += got
        if len(got) < 5:
            break
        after = got[-1]
    assert paged == seen

    # -- hand histories -------------------------------------------------------------
    holdem = [h for h in seen if h.startswith("holdem")]
    hid = holdem[0]
    hist = (await c.au.GetHandHistory(audit_pb2.GetHandHistoryRequest(hand_id=hid))).text
    assert hist.startswith(f"Croupier hand {hid}: holdem.must_bet")
    assert "Log: signed events" in hist and "*** SUMMARY ***" in hist
    rc, out = run_cli(c, "hand", "history", hid, "--tz", "UTC")
    assert rc == 0 and out == hist
    # from the hand's export file: the same hand, the same text but for the time of opening
    rc, _ = run_cli(c, "hand", "export", hid, "-o", str(tmp_path / "h.jsonl"))
    rc, from_file = run_cli(c, "hand", "history", str(tmp_path / "h.jsonl"))
    assert rc == 0
    assert from_file.split("*** HAND ***")[1] == hist.split("*** HAND ***")[1]
    assert render(reporting.stored_log(c.store, hid)) == hist

    # -- PHH of every 必下德州 hand of the run, replayed in PokerKit ---------------------
    pokerkit = pytest.importorskip("pokerkit")
    for h in holdem:
        text = to_phh(reporting.stored_log(c.store, h))
        hh = pokerkit.HandHistory.loads(text)
        state: Any = None
        for state in hh:  # noqa: B007 - the last state is the end of the hand
            pass
        rake = hh.user_defined_fields["_rake"]
        outcome = reporting.history(c.store, h)
        odd = "odd units [" in outcome and "odd units []" not in outcome
        pk = [a - r for a, r in zip(state.stacks, rake, strict=True)]
        if not odd:
            assert pk == hh.finishing_stacks, h
        assert sum(pk) == sum(hh.finishing_stacks)

    # -- bad input --------------------------------------------------------------------
    for bad, code in (
        (c.au.GetDayReport(audit_pb2.GetDayReportRequest(day="2026-13-45")), "INVALID_ARGUMENT"),
        (
            c.au.GetDayReport(audit_pb2.GetDayReportRequest(day=day, format="xml")),
            "INVALID_ARGUMENT",
        ),
        (
            c.au.GetDayReport(audit_pb2.GetDayReportRequest(day=day, time_zone="Mars/Base")),
            "INVALID_ARGUMENT",
        ),
        (c.au.ListHands(audit_pb2.ListHandsRequest(page_size=5000)), "INVALID_ARGUMENT"),
        (c.au.GetHandHistory(audit_pb2.GetHandHistoryRequest(hand_id="nope")), "NOT_FOUND"),
        (c.au.GetHandHistory(audit_pb2.GetHandHistoryRequest()), "INVALID_ARGUMENT"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await bad
        assert e.value.code().name == code, (code, e.value.details())
