"""The replay viewer: read-only HTML pages for auditors, served by the audit service
process (stdlib ``http.server`` in a thread; server-rendered, no script, no build step).

Pages:

* ``/``                     find a hand by id; the tables with hands
* ``/hand?id=H[&step=N]``   step through the hand's events with the cards, tiles and dice
                            drawn as they lie after event N; each seal's key id and
                            verification; the audit verdict and the fair-deal check; the
                            settlement steps as a table; the hand history
* ``/history?id=H``         the hand history as plain text
* ``/report?day=D[&variant=V][&table=T]``  the day report: RTP per spot against theory
                            (an inline SVG chart with the 95% band), money per table

Settings: ``CROUPIER_VIEWER_PORT`` (default 9105; 0 = off) and
``CROUPIER_VIEWER_HOST`` (default ``127.0.0.1``). Every request passes the
``authorize`` hook first, the one place an auditor's identity is required: it gets the
request's headers and returns the identity (shown on each page), returns None (401)
or raises :class:`PermissionError` (403). Without a hook the pages are open, as the
gRPC API is without authentication.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

from croupier import canonical
from croupier.errors import CroupierError, NotFound
from croupier.history import render, replay
from croupier.history.text import money
from croupier.report import DayReport
from croupier.store import EventStore
from croupier.tlog.note import NoteVerifier
from croupier_services import config, reporting
from croupier_services.audit import Auditor, load_hand
from croupier_services.keys import TrustedKeys

Authorize = Callable[[Mapping[str, str]], str | None]

DEFAULT_PORT = 9105


def viewer_port() -> int:
    return config.VIEWER_PORT.get()


def viewer_host() -> str:
    return config.VIEWER_HOST.get()


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:right;font-variant-numeric:tabular-nums}th{background:#eee}td.l,th.l{text-align:left}
.card{display:inline-block;min-width:1.9em;padding:.3em .25em;margin:.1em;border:1px solid #333;
border-radius:.3em;background:#fff;text-align:center;font-size:1.1em}
.card.red{color:#c00}.card.down{border-style:dashed;background:#e8eef8}
.tile{display:inline-block;min-width:1.6em;margin:.1em;padding:.25em .15em;border:1px solid #575;
border-radius:.25em;background:#f6f3e6;text-align:center;line-height:1.15;font-size:1.05em}
.tile.down{border-style:dashed;background:#e8eef8}
.die{font-size:1.8em;margin:.1em}
.ok{color:#070;font-weight:bold}.bad{color:#b00;font-weight:bold}.pending{color:#a60;font-weight:bold}
.ev{font-family:monospace;white-space:pre-wrap;word-break:break-all}
td.src{max-width:30em;text-align:left;font-size:.8em}.cur{background:#ffd}
nav a,nav b{margin-right:1em}pre{background:#fff;border:1px solid #ccc;padding:.8em;overflow-x:auto}
.who{float:right;color:#555}
"""

_SUIT = {"s": ("♠", False), "h": ("♥", True), "d": ("♦", True), "c": ("♣", False)}
_TILE_SUIT = {"m": "万", "p": "筒", "s": "条"}
_HONOURS = {1: "东", 2: "南", 3: "西", 4: "北", 5: "白", 6: "发", 7: "中"}
_DIE = "⚀⚁⚂⚃⚄⚅"


def draw(token: str, *, down: bool = False, tiles: bool = False) -> str:
    """A card (``As``), a tile (``5p``, ``7z``; ``tiles``: the game deals tiles, so
    ``5s`` is a 条 tile, not the five of spades) or a joker drawn in HTML."""
    t = str(token)
    cls = " down" if down else ""
    title = f' title="{esc(t)}{" (face down)" if down else ""}"'
    if tiles and len(t) == 2 and t[0] in "123456789" and t[1] in "mspz":
        n = int(t[0])
        face = _HONOURS.get(n, t) if t[1] == "z" else f"{n}<br>{_TILE_SUIT[t[1]]}"
        return f'<span class="tile{cls}"{title} data-tile="{esc(t)}">{face}</span>'
    if len(t) == 2 and t[1] in _SUIT:
        sym, red = _SUIT[t[1]]
        rank = "10" if t[0] == "T" else t[0]
        return (
            f'<span class="card{" red" if red else ""}{cls}"{title} data-card="{esc(t)}">'
            f"{esc(rank)}{sym}</span>"
        )
    return f'<span class="card{cls}"{title} data-card="{esc(t)}">{esc(t)}</span>'


def _die(v: int, faces: int) -> str:
    if faces == 6 and 1 <= v <= 6:
        return f'<span class="die" title="{v} of 6">{_DIE[v - 1]}</span>'
    return f'<span class="card" title="{v} of {faces}">{v}/{faces}</span>'


def page(title: str, body: str, who: str | None) -> bytes:
    ident = f'<span class="who" id="auditor">auditor: {esc(who)}</span>' if who else ""
    doc = (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        f'{ident}<nav><a href="/">Croupier audit</a><a href="/report">Day report</a></nav>'
        f"<h1>{esc(title)}</h1>{body}</body></html>"
    )
    return doc.encode("utf-8")


# -- pages ----------------------------------------------------------------------------
def index_page(store: EventStore) -> str:
    rows = "".join(
        f'<tr><td class=l><a href="/hands?table={quote(t.table_id)}">{esc(t.table_id)}</a></td>'
        f"<td class=l>{esc(t.variant)}</td><td>{t.hands}</td>"
        f"<td class=l>{esc(_when(t.last_opened_ms))}</td></tr>"
        for t in store.list_tables()
    )
    return (
        '<form action="/hand" method="get"><label>Hand id <input name="id" id="hand-id" '
        'size="40"></label> <button type="submit">Show</button></form>'
        "<h2>Tables</h2><table id=tables><tr><th class=l>table</th><th class=l>variant</th>"
        f"<th>hands</th><th class=l>last hand opened</th></tr>{rows}</table>"
    )


def hands_page(store: EventStore, table: str) -> str:
    rows = "".join(
        f'<tr><td class=l><a href="/hand?id={quote(r.stream_id)}">{esc(r.stream_id)}</a></td>'
        f"<td class=l>{esc(r.variant)}</td><td class=l>{esc(_when(r.opened_at_ms))}</td></tr>"
        for r in store.list_streams(kind="hand", table_id=table, limit=1000)
    )
    head = "<tr><th class=l>hand</th><th class=l>variant</th><th class=l>opened</th></tr>"
    return f"<table id=hands>{head}{rows}</table>"


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="seconds")


def _event_text(t: str, p: Mapping[str, Any]) -> str:
    return f"{t} {canonical.dumps(dict(p), check=False).decode('utf-8')}"


def _board(events: Sequence[tuple[str, Mapping[str, Any]]], upto: int, tiles: bool) -> str:
    """What lies on the table after event ``upto``: each target's cards (face-down ones
    dashed until turned up) and the dice rolled so far."""
    cards: dict[str, list[tuple[str, bool]]] = {}
    dice: list[str] = []
    for t, p in events[1 : upto + 1]:
        if t == "card.dealt":
            for c in p["cards"]:
                cards.setdefault(str(c["to"]), []).append((str(c["card"]), not c["up"]))
        elif t == "cards.revealed":
            shown = list(p["cards"])
            row = cards.get(str(p["to"]), [])
            for i, (c, down) in enumerate(row):
                if down and c in shown:
                    row[i] = (c, False)
                    shown.remove(c)
        elif t == "dice.rolled":
            dice.append(
                "".join(_die(int(v), int(f)) for v, f in zip(p["dice"], p["faces"], strict=True))
            )
    rows = "".join(
        f'<tr data-target="{esc(to)}"><td class=l>{esc(to)}</td><td class=l>'
        + "".join(draw(c, down=d, tiles=tiles) for c, d in cs)
        + "</td></tr>"
        for to, cs in cards.items()
    )
    head = "<tr><th class=l>target</th><th class=l>cards / tiles</th></tr>"
    out = f"<table id=board>{head}{rows}</table>"
    if dice:
        out += "<p id=dice>Dice: " + " &nbsp; ".join(dice) + "</p>"
    return out


def _tiles(opened: Mapping[str, Any]) -> bool:
    from croupier.games.registry import variant_config

    base = variant_config(str(opened["variant"])).deck.base
    return not base.startswith("cards")


def _settlement_table(rec: Mapping[str, Any]) -> str:
    people = list(rec.get("participants", []))
    head = "".join(f"<th>{esc(p)}</th>" for p in people)
    rows = []
    for n, st in enumerate(rec.get("steps", []), 1):
        figs: dict[str, Any] = {}
        for key in ("nets", "after", "rakes"):
            if isinstance(st.get(key), Mapping):
                figs = dict(st[key])
                break
        else:
            if st.get("step") == "rounding":
                for pay in st.get("payments", []):
                    figs[pay["payee"]] = figs.get(pay["payee"], 0) + int(pay["paid"])
                    figs[pay["payer"]] = figs.get(pay["payer"], 0) - int(pay["paid"])
            elif st.get("step") == "pots":
                for pot in st.get("pots", []):
                    for who, v in pot.get("shares", {}).items():
                        figs[who] = figs.get(who, 0) + int(v)
        cells = "".join(
            f"<td>{esc(money(figs[p], sign=True)) if p in figs else ''}</td>" for p in people
        )
        rows.append(
            f'<tr data-step="{esc(st.get("step"))}"><td>{n}</td>'
            f"<td class=l>{esc(st.get('step'))}</td>"
            f"<td class=l>{esc(st.get('rule'))}</td>{cells}"
            f"<td class=src>{esc(st.get('source', ''))}</td></tr>"
        )
    deltas = rec.get("deltas", {})
    rake = rec.get("rake", {})
    rows.append(
        '<tr data-step="delta"><td></td><td class=l><b>delta</b></td><td class=l>after rake</td>'
        + "".join(
            f'<td data-delta="{esc(p)}"><b>{int(deltas.get(p, 0)):+,}</b></td>' for p in people
        )
        + "<td></td></tr>"
    )
    rows.append(
        '<tr data-step="rake-taken"><td></td><td class=l>rake</td><td class=l></td>'
        + "".join(f"<td>{int(rake.get(p, 0)):,}</td>" for p in people)
        + "<td></td></tr>"
    )
    return (
        f"<table id=settlement><tr><th>#</th><th class=l>step</th><th class=l>rule</th>{head}"
        f"<th class=l>source</th></tr>{''.join(rows)}</table>"
        "<p><small>Per step: the theoretical nets, the nets after caps or liability, the "
        "money paid after rounding, the pots' shares, the rake taken (minor units).</small></p>"
    )


def hand_page(
    store: EventStore,
    hand_id: str,
    step: int | None,
    trust: TrustedKeys,
    log_key: NoteVerifier | None = None,
) -> tuple[str, str]:
    x = load_hand(store, hand_id)
    events = [(e.type, e.payload) for e in x.hand.events]
    opened = events[0][1]
    rep = Auditor(store, trust, log_key=log_key).audit(hand_id)
    log = reporting.export_log(x, store.stream_info(hand_id).opened_at_ms)
    title = f"Hand {hand_id}"
    last = len(events) - 1
    cur = last if step is None else max(0, min(step, last))
    verdict_cls = {"pass": "ok", "fail": "bad"}.get(rep.verdict.value, "pending")
    parts = [
        f"<p>{esc(opened['variant'])} at table {esc(opened['table'])}, "
        f"hand {esc(opened['hand_no'])}"
        f", shoe {esc(opened.get('shoe', ''))}</p>",
        f'<h2>Audit</h2><p>Verdict: <span id=verdict class="{verdict_cls}">'
        f"{esc(rep.verdict.value.upper())}</span>; checks: <span id=checks>"
        f"{esc(', '.join(rep.checks))}</span></p>",
    ]
    if rep.reason:
        parts.append(
            f"<p class=bad id=failure>first bad event {esc(rep.stream)}#{esc(rep.seq)}: "
            f"{esc(rep.reason)}: {esc(rep.message)}</p>"
        )
    # fair deal
    shoe_open = x.shoe.events[0].payload if x.shoe.events else {}
    revealed = next((e.payload for e in x.shoe.events if e.type == "shoe.revealed"), None)
    if "fairness" in rep.checks:
        fair = (
            "<span class=ok id=fair>every dealt card and die matches the revealed seed "
            "and the seed matches its commitment</span>"
        )
    elif revealed is None:
        fair = "<span class=pending id=fair>the shoe's seed is not revealed yet</span>"
    else:
        fair = f"<span class=bad id=fair>failed: {esc(rep.message)}</span>"
    parts.append(
        "<h2>Fair deal</h2><table id=fairdeal>"
        f"<tr><th class=l>algorithm</th><td class=l>{esc(shoe_open.get('algorithm', ''))}</td></tr>"
        f"<tr><th class=l>commitment (SHA-256 of the seed)</th><td class=l>"
        f"<code>{esc(shoe_open.get('commitment', ''))}</code></td></tr>"
        "<tr><th class=l>client seed, nonce</th>"
        f"<td class=l>{esc(shoe_open.get('client_seed', ''))}"
        f", {esc(shoe_open.get('nonce', ''))}</td></tr>"
        f"<tr><th class=l>revealed server seed</th><td class=l><code>"
        f"{esc(revealed['server_seed']) if revealed else '(not yet)'}</code></td></tr>"
        f"<tr><th class=l>check</th><td class=l>{fair}</td></tr></table>"
    )
    # seals
    registry = store.key_registry()
    seal_rows = []
    for log_name, slog in (("hand", x.hand), ("shoe", x.shoe)):
        for s in slog.seals:
            try:
                s.verify(registry)
                ok = '<span class="ok">valid</span>'
            except CroupierError as e:
                ok = f'<span class="bad">{esc(e.reason)}: {esc(e.message)}</span>'
            covered = ", ".join(f"#{en.seq}" for en in s.entries if en.stream in (hand_id,))
            seal_rows.append(
                f"<tr class=seal><td class=l>{log_name}</td>"
                f"<td class=l><code>{esc(s.seal_id)}</code></td><td class=l>{esc(s.producer)}</td>"
                f"<td class=l><code class=keyid>{esc(s.key_id)}</code></td>"
                f"<td class=l>{esc(_when(s.sealed_at_ms))}</td><td class=l>{esc(covered)}</td>"
                f"<td class=l>{ok}</td></tr>"
            )
    n_ok = sum(1 for r in seal_rows if '"ok"' in r)
    seals_html = (
        f"<h2>Seals</h2><details{' open' if len(seal_rows) <= 12 else ''}><summary id=seal-summary>"
        f"{len(seal_rows)} seals, {n_ok} valid (key ids and heads)</summary>"
        "<table id=seals><tr><th class=l>log</th><th class=l>seal</th>"
        "<th class=l>producer</th><th class=l>key id</th><th class=l>sealed</th>"
        "<th class=l>hand heads</th><th class=l>verification</th></tr>"
        + "".join(seal_rows)
        + "</table></details>"
    )
    # stepping
    q = quote(hand_id)
    nav = (
        f'<nav id=steps><a href="/hand?id={q}&step=0">first</a>'
        f'<a id=prev href="/hand?id={q}&step={max(0, cur - 1)}">previous</a>'
        f"<b>event {cur} of {last}</b>"
        f'<a id=next href="/hand?id={q}&step={min(last, cur + 1)}">next</a>'
        f'<a href="/hand?id={q}&step={last}">last</a></nav>'
    )
    items = "".join(
        f"<li{' class=cur id=current' if i == cur else ''}>"
        f'<a href="/hand?id={q}&step={i}">#{i}</a> '
        f"<span class=ev>{esc(_event_text(t, p))}</span></li>"
        for i, (t, p) in enumerate(events)
    )
    parts.append(
        f"<h2>Events</h2>{nav}<h3>On the table after event {cur}</h3>"
        f"{_board(events, cur, _tiles(opened))}"
        f"<ol start=0 id=events>{items}</ol>"
    )
    # settlement and history
    rp = replay(log)
    if rp.settlement is not None:
        parts.append("<h2>Settlement</h2>" + _settlement_table(rp.settlement.record))
    parts.append(seals_html)
    parts.append(
        f'<h2>Hand history</h2><p><a href="/history?id={q}">plain text</a></p>'
        f"<pre id=history>{esc(render(log))}</pre>"
    )
    return title, "".join(parts)


def _chart(rep: DayReport) -> str:
    rows = [s for s in rep.spots if s.rtp is not None]
    if not rows:
        return "<p>No bets against the house on this day.</p>"
    vals = [v for s in rows for v in (s.rtp, s.ci_low, s.ci_high, s.theory) if v is not None]
    lo, hi = min(vals), max(vals)
    pad = (hi - lo) * 0.05 or 0.05
    lo, hi = lo - pad, hi + pad
    left, width, rh = 260, 520, 22
    height = rh * len(rows) + 40

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * width

    out = [
        f'<svg id=rtp-chart xmlns="http://www.w3.org/2000/svg" width="{left + width + 40}" '
        f'height="{height}" font-size="12" font-family="sans-serif">'
    ]
    for i, s in enumerate(rows):
        y = 20 + i * rh
        out.append(f'<text x="4" y="{y + 14}">{esc(s.variant)} {esc(s.spot)}</text>')
        if s.ci_low is not None and s.ci_high is not None:
            out.append(
                f'<rect class=band x="{x(s.ci_low):.1f}" y="{y + 4}" '
                f'width="{max(1.0, x(s.ci_high) - x(s.ci_low)):.1f}" height="12" '
                'fill="#9cf" opacity="0.7"/>'
            )
        assert s.rtp is not None
        out.append(
            f'<circle class=empirical cx="{x(s.rtp):.1f}" cy="{y + 10}" r="4" fill="#036">'
            f"<title>{esc(s.variant)} {esc(s.spot)}: RTP {s.rtp:.4f}</title></circle>"
        )
        if s.theory is not None:
            out.append(
                f'<line class=theory x1="{x(s.theory):.1f}" x2="{x(s.theory):.1f}" y1="{y + 1}" '
                f'y2="{y + 19}" stroke="#c00" stroke-width="2"/>'
            )
    for v in (lo + pad, (lo + hi) / 2, hi - pad):
        out.append(
            f'<text x="{x(v):.1f}" y="{height - 4}" text-anchor="middle">{v:.3f}</text>'
            f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="14" y2="{height - 16}" stroke="#ddd"/>'
        )
    out.append("</svg>")
    return (
        "".join(out)
        + "<p><small>Dot: empirical RTP; blue band: its 95% confidence interval; red line: "
        "the exact theoretical RTP.</small></p>"
    )


def report_page(store: EventStore, day: str, variant: str | None, table: str | None) -> str:
    rep = reporting.day_report(
        store, day, reporting.report_time_zone(), variant=variant, table_id=table
    )
    form = (
        f'<form action="/report" method="get"><label>Day <input name="day" value="{esc(day)}">'
        f'</label> <label>Variant <input name="variant" value="{esc(variant or "")}"></label> '
        f'<label>Table <input name="table" value="{esc(table or "")}"></label> '
        '<button type="submit">Show</button></form>'
        f"<p>Time zone {esc(rep.time_zone)}; amounts in points (1 point = 100 minor units); "
        "from the ledger.</p>"
    )

    def money_rows(ts: Iterable[Any], cls: str) -> str:
        return "".join(
            f'<tr class={cls} data-variant="{esc(t.variant)}" data-table="{esc(t.table_id)}">'
            f"<td class=l>{esc(t.variant)}</td><td class=l>{esc(t.table_id)}</td>"
            f'<td data-figure="hands">{t.hands}</td>'
            f'<td data-figure="turnover" data-minor="{t.turnover}">{t.turnover / 100:,.2f}</td>'
            f'<td data-figure="payouts" data-minor="{t.payouts}">{t.payouts / 100:,.2f}</td>'
            f'<td data-figure="ggr" data-minor="{t.ggr}">{t.ggr / 100:,.2f}</td>'
            f'<td data-figure="rake" data-minor="{t.rake}">{t.rake / 100:,.2f}</td></tr>'
            for t in ts
        )

    money_html = (
        "<h2>Turnover and GGR per table</h2><table id=money><tr><th class=l>variant</th>"
        "<th class=l>table</th><th>hands</th><th>turnover</th><th>payouts</th><th>GGR</th>"
        "<th>rake</th></tr>"
        + money_rows(rep.tables, "table")
        + money_rows(rep.variants, "variant")
        + money_rows([rep.total], "total")
        + "</table>"
    )

    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.4f}"

    spots = "".join(
        f'<tr class=spot data-variant="{esc(s.variant)}" data-spot="{esc(s.spot)}">'
        f"<td class=l>{esc(s.variant)}</td><td class=l>{esc(s.spot)}</td><td>{s.bets}</td>"
        f"<td>{s.staked / 100:,.2f}</td><td data-figure=rtp>{f(s.rtp)}</td>"
        f"<td>{f(s.ci_low)} .. {f(s.ci_high)}</td><td data-figure=theory>{f(s.theory)}</td></tr>"
        for s in rep.spots
    )
    rtp = (
        "<h2>RTP per spot against theory</h2>"
        + _chart(rep)
        + "<table id=rtp><tr><th class=l>variant</th><th class=l>spot</th><th>bets</th>"
        "<th>staked</th><th>RTP</th><th>95% CI</th><th>theory</th></tr>" + spots + "</table>"
    )
    return form + rtp + money_html


# -- server ---------------------------------------------------------------------------
class Viewer:
    """The viewer's HTTP server on a daemon thread."""

    def __init__(
        self,
        store: EventStore,
        *,
        trust: TrustedKeys,
        host: str = "127.0.0.1",
        port: int = 0,
        authorize: Authorize | None = None,
        today: Callable[[], str] | None = None,
        log_key: NoteVerifier | None = None,
    ) -> None:
        self.store = store
        self.trust = trust
        self.log_key = log_key  # the pinned log key: judges revoked keys' seals
        self.authorize = authorize
        self.today = today or (
            lambda: datetime.now(tz=reporting.report_time_zone()).date().isoformat()
        )
        viewer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                viewer.handle(self)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    def start(self) -> int:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="croupier-viewer", daemon=True
        )
        self._thread.start()
        return self.port

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def handle(self, req: BaseHTTPRequestHandler) -> None:
        who: str | None = None
        if self.authorize is not None:
            try:
                who = self.authorize({k.lower(): v for k, v in req.headers.items()})
            except PermissionError as e:
                return self._send(req, 403, page("Forbidden", f"<p>{esc(e)}</p>", None))
            if who is None:
                req.send_response(401)
                req.send_header("WWW-Authenticate", 'Bearer realm="croupier-audit"')
                req.send_header("Content-Type", "text/plain; charset=utf-8")
                req.end_headers()
                req.wfile.write(b"an auditor identity is required\n")
                return None
        url = urlparse(req.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        try:
            if url.path == "/":
                body = page("Croupier audit", index_page(self.store), who)
            elif url.path == "/hands":
                t = q.get("table", "")
                body = page(f"Hands at {t}", hands_page(self.store, t), who)
            elif url.path == "/hand":
                hid = q.get("id", "").strip()
                step = int(q["step"]) if q.get("step", "").lstrip("-").isdigit() else None
                title, content = hand_page(self.store, hid, step, self.trust, self.log_key)
                body = page(title, content, who)
            elif url.path == "/history":
                text = reporting.history(self.store, q.get("id", ""))
                return self._send(req, 200, text.encode("utf-8"), "text/plain; charset=utf-8")
            elif url.path == "/report":
                day = q.get("day") or self.today()
                body = page(
                    f"Day report {day}",
                    report_page(self.store, day, q.get("variant") or None, q.get("table") or None),
                    who,
                )
            else:
                return self._send(req, 404, page("Not found", "<p>No such page.</p>", who))
        except NotFound as e:
            return self._send(req, 404, page("Not found", f"<p id=error>{esc(e.message)}</p>", who))
        except CroupierError as e:
            return self._send(
                req,
                400,
                page("Bad request", f"<p id=error>{esc(e.reason)}: {esc(e.message)}</p>", who),
            )
        return self._send(req, 200, body)

    @staticmethod
    def _send(
        req: BaseHTTPRequestHandler, code: int, body: bytes, ctype: str = "text/html; charset=utf-8"
    ) -> None:
        req.send_response(code)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(body)))
        req.send_header("Cache-Control", "no-store")
        req.end_headers()
        req.wfile.write(body)
