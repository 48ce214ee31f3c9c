"""The dashboards and alerts on a real Prometheus.

A short embedded demo (``croupier demo --keep-running``) is scraped by Debian's
``prometheus`` every second, with the shipped alert rules loaded. Then every panel query
of the Grafana dashboard (its variables filled as Grafana would) and every alert
expression is evaluated through Prometheus's HTTP API: each must evaluate without error,
each panel whose series the demo produced must return data, and the alerts that a
healthy cluster must not raise stay quiet. A table of every panel and alert with its
result (evaluated, has data, alert state) is printed and written to a file
(deploy/README.md shows the last one). ``.ci/run`` installs ``prometheus`` when it is
missing; elsewhere the test is skipped with that reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from croupier.bus.embedded import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy/grafana/dashboards/croupier-overview.json"
ALERTS = ROOT / "deploy/prometheus/alerts.yml"
PROMETHEUS = shutil.which("prometheus")
GAMES = "baccarat,niuniu.hundred,zhajinhua,blackjack.multi"
HANDS = 20  # per game, on one table each: dealt over several scrapes

# Grafana's variables, as a one-hour dashboard with this scrape interval fills them.
VARIABLES = {
    "$__rate_interval": "30s",
    "$__interval": "5s",
    "$__range": "5m",
    "$rtp_window": "5m",
    "$variant": ".*",
}

# Alerts that fire on an idle or healthy cluster would page someone for nothing; none may.
# (Alerts about absent replicas or targets of other jobs are about the compose stack's
# job names; this Prometheus scrapes one job.)
QUIET_EXEMPT = {"CroupierRulesNoReplicas"}
# A burst of demo hands on a busy two-core machine can hold settlement's p99 above its
# threshold for a while: that alert may be pending (its `for` is 5 minutes), never firing.
LOAD_DEPENDENT = {"CroupierSettlementLatencyHigh"}

# Panels that select only failures (a status code other than OK, ...): a healthy demo
# gives them no series at all, which Grafana shows as "No data".
EMPTY_WHEN_HEALTHY = {"gRPC non-OK requests by method"}


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _query(base: str, expr: str) -> dict[str, Any]:
    q = urllib.parse.urlencode({"query": expr})
    try:
        return dict(_get(f"{base}/api/v1/query?{q}"))
    except urllib.error.HTTPError as e:  # 400 with the parse error in the body
        return dict(json.loads(e.read()))


def _fill(expr: str) -> str:
    for k in sorted(VARIABLES, key=len, reverse=True):
        expr = expr.replace(k, VARIABLES[k])
    return expr


def _panels() -> list[tuple[int, str, str]]:
    dash = json.loads(DASHBOARD.read_text())
    out = []
    for p in dash["panels"]:
        for t in p.get("targets", []):
            out.append((int(p["id"]), str(p["title"]), str(t["expr"])))
    return out


def _wait_for(pred: Any, timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if PROMETHEUS is None:
        pytest.skip("prometheus is not installed (apt-get install prometheus; .ci/run does)")
    work = tmp_path_factory.mktemp("prom")
    metrics_port = free_port()
    exe = str(Path(sys.executable).parent / "croupier")
    env = {**os.environ, "CROUPIER_LOG_LEVEL": "WARNING"}
    web = free_port()
    config = work / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files:\n  - {ALERTS}\n"
        "scrape_configs:\n"
        "  - job_name: croupier-dealer\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
    )
    # Prometheus scrapes from before the demo deals: rates and increases need the
    # counters to move while they are watched.
    prom = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={work / 'data'}",
            f"--web.listen-address=127.0.0.1:{web}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{web}/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    _wait_for(ready, 60, "Prometheus to be ready")

    def scraping() -> bool:
        # ready is not scraping: targets reach the scrape loop after a discovery
        # interval (~5 s); a down target is recorded as up == 0
        try:
            r = _query(f"http://127.0.0.1:{web}", "up")
        except OSError:
            return False
        return bool(r.get("data", {}).get("result"))

    _wait_for(scraping, 60, "Prometheus to scrape (the demo not started yet)")

    def start_demo() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [
                exe,
                "demo",
                "--games",
                GAMES,
                "--hands",
                str(HANDS),
                "--tables",
                "1",
                "--players",
                "3",
                "--metrics-port",
                str(metrics_port),
                "--workdir",
                str(work / "demo"),
                "--keep-running",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )

    demo = start_demo()
    try:
        out: list[str] = []
        for attempt in range(3):
            assert demo.stdout is not None
            for line in demo.stdout:
                out.append(line)
                if line.startswith("serving until"):
                    break
            else:
                # a port picked free was taken before the demo bound it (another
                # process's, or a connection of Prometheus's scrapes to a port nobody
                # listened on yet): start it again, on fresh ports
                if attempt < 2 and "Address already in use" in "".join(out):
                    demo.wait(30)
                    shutil.rmtree(work / "demo", ignore_errors=True)
                    out = []
                    time.sleep(2)
                    demo = start_demo()
                    continue
                raise AssertionError("demo ended before serving:\n" + "".join(out))
            break
        assert any("verdict: PASS" in line for line in out), "".join(out)
        # what an operator and an auditor are told to use: the pinned files, and the
        # embedded nats-server's per-service credentials in a file only its owner reads
        # (printed after "serving until", so read up to that line)
        for line in demo.stdout:
            out.append(line)
            if line.startswith("embedded nats-server"):
                break
        text = "".join(out)
        assert f"{work / 'demo' / 'trust-root.pub'} (--trust-root)" in text, text
        assert f"{work / 'demo' / 'keys' / 'log.vkey'} (--log-key)" in text, text
        urls = work / "demo" / "auth" / "nats-urls"
        assert urls.stat().st_mode & 0o777 == 0o600
        users = dict(line.split(" ", 1) for line in urls.read_text().splitlines())
        assert set(users) == {
            "dealer",
            "rules",
            "settlement",
            "rules_settlement",
            "audit",
            "provision",
        }
        assert all(
            u.startswith(("nats://", "tls://")) and "@127.0.0.1:" in u for u in users.values()
        )
        base = f"http://127.0.0.1:{web}"

        def scraped() -> bool:
            try:
                r = _query(base, "count_over_time(up[1m])")
            except OSError:
                return False
            res = r.get("data", {}).get("result", [])
            return bool(res) and float(res[0]["value"][1]) >= 12

        _wait_for(scraped, 90, "twelve scrapes of the demo")
        yield base
    finally:
        prom.terminate()
        prom.wait(10)
        demo.send_signal(signal.SIGTERM)
        try:
            demo.wait(30)
        except subprocess.TimeoutExpired:
            demo.kill()


def test_every_panel_query_evaluates_and_has_data_where_the_demo_made_some(
    prometheus: str,
) -> None:
    exported = set(_get(f"{prometheus}/api/v1/label/__name__/values")["data"])
    failures = []
    for pid, title, expr in _panels():
        r = _query(prometheus, _fill(expr))
        if r.get("status") != "success":
            failures.append(f"panel {pid} {title!r}: {r.get('error')}")
            continue
        series = set(SERIES.findall(expr))
        produced = series and all(s in exported for s in series)
        if produced and not r["data"]["result"] and title not in EMPTY_WHEN_HEALTHY:
            failures.append(f"panel {pid} {title!r}: no data from {expr}")
    assert not failures, "\n".join(failures)


def test_money_panels_have_the_demo_figures(prometheus: str) -> None:
    r = _query(prometheus, "sum by (variant) (croupier_hands_settled_total)")
    settled = {x["metric"]["variant"]: float(x["value"][1]) for x in r["data"]["result"]}
    for v in GAMES.split(","):
        assert settled.get(v) == HANDS, (v, settled)
    # every house game's stakes are counted (百人牛牛 included: record version 2), and
    # only the player-against-player game (炸金花) has a turnover
    r = _query(prometheus, "sum by (variant) (croupier_bets_minor_total)")
    bets = {x["metric"]["variant"]: float(x["value"][1]) for x in r["data"]["result"]}
    for v in ("baccarat", "niuniu.hundred", "blackjack.multi"):
        assert bets.get(v, 0) > 0, (v, bets)
    r = _query(prometheus, "sum by (variant) (croupier_pvp_turnover_minor_total)")
    turnover = {x["metric"]["variant"]: float(x["value"][1]) for x in r["data"]["result"]}
    assert turnover.get("zhajinhua", 0) > 0, turnover
    assert all(turnover.get(v, 0) == 0 for v in ("baccarat", "niuniu.hundred")), turnover


def test_every_alert_evaluates_and_a_healthy_cluster_is_quiet(prometheus: str) -> None:
    time.sleep(3)  # a few evaluation rounds after the data is in
    groups = _get(f"{prometheus}/api/v1/rules")["data"]["groups"]
    rules = [r for g in groups for r in g["rules"]]
    assert rules, "no alert rules loaded"
    bad = [f"{r['name']}: {r.get('lastError')}" for r in rules if r.get("health") != "ok"]
    assert not bad, bad
    loud = [
        f"{r['name']} ({r['state']})"
        for r in rules
        if r["name"] not in QUIET_EXEMPT
        and (
            r.get("state") == "firing"
            or (r.get("state") == "pending" and r["name"] not in LOAD_DEPENDENT)
        )
    ]
    assert not loud, loud


SERIES = re.compile(r"\b((?:croupier|grpc|gnatsd|jetstream)_[a-z_]+)")


SERIES_NAME = re.compile(r"(?:croupier|grpc|gnatsd|jetstream)_[a-z0-9_]+|up")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_TOKEN = re.compile(r"\{[^}]*\}|[A-Za-z_:][A-Za-z0-9_:]*")


def selectors(expr: str) -> list[str]:
    """The series selectors ``expr`` reads (``name`` or ``name{matchers}``); label
    names in matchers and grouping clauses are not series."""
    e = _GROUPING.sub(" ", expr)
    toks = list(_TOKEN.finditer(e))
    out = []
    for i, t in enumerate(toks):
        name = t.group()
        if name.startswith("{") or not SERIES_NAME.fullmatch(name):
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        glued = (
            nxt is not None and nxt.group().startswith("{") and not e[t.end() : nxt.start()].strip()
        )
        out.append(name + (nxt.group() if glued and nxt is not None else ""))
    return out


def _has_inputs(base: str, expr: str) -> bool:
    """Whether every series selector of ``expr`` selects at least one series now (the
    rule is watching real input)."""
    sels = selectors(expr)
    return bool(sels) and all(_query(base, f"count({x})")["data"]["result"] for x in sels)


def result_table(base: str) -> list[tuple[str, str, str, str, str]]:
    """One row per dashboard panel query and per alert rule, as evaluated now on the
    real Prometheus: (kind, title, expression evaluated OK, has data, alert state).

    A panel has data when its query returns at least one series. An alert has data when
    every series selector of its expression selects series now (the rule watches real
    input);
    its state is Prometheus's own (inactive, pending, firing)."""
    rows: list[tuple[str, str, str, str, str]] = []
    for pid, title, expr in _panels():
        r = _query(base, _fill(expr))
        ok = r.get("status") == "success"
        data = ok and bool(r["data"]["result"])
        rows.append(
            (
                "panel",
                f"{pid} {title}",
                "yes" if ok else f"no: {r.get('error')}",
                "yes" if data else "no",
                "-",
            )
        )
    groups = _get(f"{base}/api/v1/rules")["data"]["groups"]
    for g in groups:
        for rule in g["rules"]:
            ok = rule.get("health") == "ok"
            rows.append(
                (
                    "alert",
                    str(rule["name"]),
                    "yes" if ok else f"no: {rule.get('lastError')}",
                    "yes" if _has_inputs(base, str(rule["query"])) else "no",
                    str(rule.get("state", "?")),
                )
            )
    return rows


def markdown(rows: list[tuple[str, str, str, str, str]]) -> str:
    head = "| kind | panel / alert | expression evaluated OK | has data | alert state |"
    lines = [head, "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(x.replace("|", "\\|") for x in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def test_a_table_of_every_panel_and_alert_with_its_result(
    prometheus: str, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table the operators read: every panel query and every alert with its result
    on this Prometheus, printed and written to ``prometheus-table.md`` in the test's
    temporary directory. Every panel and every alert has its row, every expression
    evaluates, and the alerts a healthy cluster may not raise are not firing."""
    time.sleep(3)  # a few evaluation rounds after the data is in
    rows = result_table(prometheus)
    panels = [r for r in rows if r[0] == "panel"]
    alerts = [r for r in rows if r[0] == "alert"]
    assert len(panels) == len(_panels())
    rule_names = re.findall(r"^\s*- alert: (\S+)", ALERTS.read_text(), re.M)
    assert sorted(r[1] for r in alerts) == sorted(rule_names)
    assert all(r[2] == "yes" for r in rows), [r for r in rows if r[2] != "yes"]
    assert all(r[4] in ("inactive", "pending", "firing") for r in alerts)
    assert not [r for r in alerts if r[4] == "firing" and r[1] not in QUIET_EXEMPT]
    # the demo's money panels have data
    assert all(r[3] == "yes" for r in panels if "RTP" in r[1] or "settled" in r[1].lower())
    text = markdown(rows)
    out = tmp_path_factory.mktemp("table") / "prometheus-table.md"
    out.write_text(text, encoding="utf-8")
    with capsys.disabled():
        print(f"\n{text}(written to {out})")


PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (package prometheus)")
def test_alert_rule_unit_tests_and_the_shipped_config_pass_promtool() -> None:
    assert PROMTOOL is not None
    for args in (
        ["test", "rules", "tests/alerts.test.yml"],
        ["check", "config", "prometheus.yml"],
    ):
        r = subprocess.run(
            [PROMTOOL, *args],
            cwd=ROOT / "deploy/prometheus",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stdout + r.stderr
