"""The replay viewer in a real browser: headless Chromium loads the audit service's pages
over a demo-like run, the test reads the DOM Chromium built and checks the figures
against the store (the day report against raw SQL over the ledger, a hand's seals, audit,
fair-deal check, settlement and the cards on the table at a step), and saves
screenshots under ``var/artifacts/browser/``. The auditor hook is checked over plain
HTTP: no identity 401, a refused one 403.

Needs Debian's ``chromium`` (``.ci/run`` installs it); without it these tests are
skipped and ``scripts/test`` says so."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sqlalchemy as sa

from croupier_services.demo import GrpcTables, Progress, Refusals, play_table
from croupier_services.viewer import Viewer

from .harness import Cluster, ClusterFactory, unique_table
from .test_auditor_reads import sql_figures

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("CROUPIER_ARTIFACTS_DIR", ROOT / "var" / "artifacts")) / "browser"
GAMES = ("baccarat", "dice.yaoyao", "mahjong.xuezhan", "holdem.must_bet")


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium not found: browser tests skipped (apt-get install chromium)")


def browse(url: str, tmp: Path, screenshot: Path | None = None) -> str:
    """The DOM Chromium built for ``url`` (and a full-page screenshot)."""
    base = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={tmp / 'chromium-profile'}",
    ]
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [*base, "--window-size=1280,2600", f"--screenshot={screenshot}", url],
            check=True,
            capture_output=True,
            timeout=90,
        )
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert screenshot.stat().st_size > 10_000
    out = subprocess.run(
        [*base, "--dump-dom", url], check=True, capture_output=True, timeout=90, text=True
    )
    return out.stdout


class Dom(HTMLParser):
    """What the tests read from a page: rows by their data attributes, the cells'
    data attributes and text, and elements by id."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.cells: list[tuple[dict[str, str], dict[str, str]]] = []  # (row attrs, cell attrs+text)
        self.by_id: dict[str, str] = {}
        self.counts: dict[str, int] = defaultdict(int)  # tag.class -> n
        self._row: dict[str, str] = {}
        self._open: list[tuple[str, dict[str, str], list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for cls in a.get("class", "").split():
            self.counts[f"{tag}.{cls}"] += 1
        self.counts[tag] += 1
        if tag == "tr":
            self._row = a
            self.rows.append(a)
        if tag in ("input", "img", "br", "meta", "link"):  # void: no end tag
            if "id" in a:
                self.by_id[a["id"]] = a.get("value", "")
            return
        if tag in ("td", "span", "pre", "p", "code") or "id" in a:
            self._open.append((tag, a, []))

    def handle_data(self, data: str) -> None:
        for _, _, buf in self._open:
            buf.append(data)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i][0] == tag:
                t, a, buf = self._open.pop(i)
                text = "".join(buf)
                if t == "td":
                    self.cells.append((self._row, {**a, "text": text}))
                if "id" in a:
                    self.by_id[a["id"]] = text
                break


async def play(c: Cluster) -> None:
    rng = random.Random(7)
    staked: dict[str, int] = defaultdict(int)
    progress = Progress(len(GAMES) * 2, "")
    for v in GAMES:
        table = unique_table(v.replace(".", "_")[:12])
        await play_table(
            GrpcTables(c.gw),
            v,
            table,
            4,
            2,
            random.Random(rng.random()),
            progress,
            staked,
            Refusals(),
        )
    await c.wait_settled(len(GAMES) * 2, timeout_s=120)


async def test_viewer_pages_in_chromium(cluster_factory: ClusterFactory, tmp_path: Path) -> None:
    chromium()
    c = await cluster_factory(variants=GAMES)
    await play(c)
    with c.store.engine.connect() as conn:
        first = int(
            conn.execute(sa.text("SELECT MIN(created_at_ms) FROM ledger_transactions")).scalar_one()
        )
    day = datetime.fromtimestamp(first / 1000, tz=UTC).date().isoformat()
    v = Viewer(c.store, trust=c.trust, port=0, authorize=lambda headers: "test-auditor")
    base = f"http://127.0.0.1:{v.start()}"
    try:
        # -- the day report -------------------------------------------------------------
        dom = Dom(browse(f"{base}/report?day={day}", tmp_path, ARTIFACTS / "report.png"))
        assert dom.by_id["auditor"] == "auditor: test-auditor"
        from croupier.report import day_window

        since, until = day_window(day, UTC)
        want = sql_figures(c, since, until)
        shown: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        for row, cell in dom.cells:
            if "table" in row.get("class", "") and cell.get("data-figure"):
                key = (row["data-variant"], row["data-table"])
                if cell["data-figure"] == "hands":
                    shown[key]["hands"] = int(cell["text"])
                else:
                    shown[key][cell["data-figure"]] = int(cell["data-minor"])
        money = {k: dict(w) for k, w in want.items() if not k[1].startswith("spot:")}
        assert set(shown) == set(money)
        assert {k: {f: money[k][f] for f in shown[k]} for k in money} == dict(shown)
        assert all(
            set(s) == {"hands", "turnover", "payouts", "ggr", "rake"} for s in shown.values()
        )
        # the chart: one dot per spot with an RTP, a band per interval, theory lines
        spot_rows = [r for r in dom.rows if r.get("class") == "spot"]
        assert spot_rows and dom.counts["svg"] == 1
        assert dom.counts["circle.empirical"] == len(spot_rows)
        assert dom.counts["line.theory"] > 0 and dom.counts["rect.band"] > 0
        rtp_cells = {
            (row["data-variant"], row["data-spot"], cell["data-figure"]): cell["text"]
            for row, cell in dom.cells
            if row.get("class") == "spot" and cell.get("data-figure")
        }
        assert rtp_cells[("baccarat", "banker", "theory")] == "0.9854"

        # -- the index: a hand-id form and every table; a table's hands --------------------
        dom = Dom(browse(f"{base}/", tmp_path, ARTIFACTS / "index.png"))
        assert "hand-id" in dom.by_id
        listed = {cell["text"] for row, cell in dom.cells if cell.get("class") == "l"}
        tables = {t.table_id for t in c.store.list_tables()}
        assert len(tables) == len(GAMES) and tables <= listed
        one = sorted(tables)[0]
        dom = Dom(browse(f"{base}/hands?table={one}", tmp_path))
        ids = {cell["text"] for _, cell in dom.cells if cell["text"].startswith(one)}
        assert ids == {s.stream_id for s in c.store.list_streams(kind="hand", table_id=one)}

        # -- a hand: seals, audit, fair deal, settlement, history, stepping -------------------
        hands = [
            s.stream_id
            for s in c.store.list_streams(kind="hand", variant="mahjong.xuezhan", limit=10)
        ]
        hid = hands[0]
        dom = Dom(browse(f"{base}/hand?id={hid}", tmp_path, ARTIFACTS / "hand-mahjong.png"))
        assert dom.by_id["verdict"] == "PASS"
        assert "fairness" in dom.by_id["checks"]
        assert dom.by_id["fair"].startswith("every dealt card and die matches")
        events = c.store.read_stream(hid)
        shoe = str(events[0].payload["shoe"])
        seals = [*c.store.seals_for(hid), *c.store.seals_for(shoe)]
        seal_rows = [r for r in dom.rows if r.get("class") == "seal"]
        assert len(seal_rows) == len(seals)
        page = browse(f"{base}/hand?id={hid}", tmp_path)
        key_ids = sorted(s.key_id for s in seals)
        assert sorted(k for k in key_ids if f'class="keyid">{k}<' in page) == key_ids
        assert page.count('<span class="ok">valid</span>') == len(seals)
        record = c.store.get_settlement(hid).record_json
        deltas = {
            cell["data-delta"]: int(cell["text"].replace(",", ""))
            for _, cell in dom.cells
            if cell.get("data-delta")
        }
        assert deltas == {k: int(v) for k, v in record["deltas"].items()}
        assert dom.by_id["history"].startswith(f"Croupier hand {hid}: mahjong.xuezhan")
        # step to the first deal: each seat's tiles lie face down on the table
        deal = next(e.seq for e in events if e.type == "card.dealt")
        dom = Dom(
            browse(f"{base}/hand?id={hid}&step={deal}", tmp_path, ARTIFACTS / "hand-step.png")
        )
        dealt = sum(1 for c_ in events[deal].payload["cards"])
        assert dom.counts["span.tile"] == dealt and dom.counts["span.down"] == dealt
        assert f"event {deal} of {len(events) - 1}" in browse(
            f"{base}/hand?id={hid}&step={deal}", tmp_path
        )
        # a card game's hand: cards drawn, the hand history beside
        hid = c.store.list_streams(kind="hand", variant="holdem.must_bet", limit=1)[0].stream_id
        dom = Dom(browse(f"{base}/hand?id={hid}", tmp_path, ARTIFACTS / "hand-holdem.png"))
        assert dom.by_id["verdict"] == "PASS" and dom.counts["span.card"] >= 13
        # an unknown hand
        assert "no hand" in Dom(browse(f"{base}/hand?id=nope", tmp_path)).by_id["error"]
    finally:
        v.stop()


def _get(url: str, headers: Mapping[str, str]) -> tuple[int, str]:
    req = urllib.request.Request(url, headers=dict(headers))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


async def test_every_page_passes_the_auditor_hook(cluster_factory: ClusterFactory) -> None:
    c = await cluster_factory(variants=("baccarat",))

    def authorize(headers: Mapping[str, str]) -> str | None:
        who = headers.get("x-auditor")
        if who == "mallory":
            raise PermissionError("mallory is not an auditor")
        return who

    v = Viewer(c.store, trust=c.trust, port=0, authorize=authorize)
    base = f"http://127.0.0.1:{v.start()}"
    try:
        for path in ("/", "/report?day=2026-12-01", "/hand?id=x", "/history?id=x", "/nope"):
            assert _get(base + path, {})[0] == 401
            assert _get(base + path, {"X-Auditor": "mallory"})[0] == 403
        code, text = _get(base + "/", {"X-Auditor": "alice"})
        assert code == 200 and "auditor: alice" in text
        assert _get(base + "/report?day=2026-02-30", {"X-Auditor": "alice"})[0] == 400
    finally:
        v.stop()
