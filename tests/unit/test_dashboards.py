"""The Grafana dashboard and the Prometheus alert rules only query series the services
export: a renamed or mistyped metric is caught here, not on an empty panel."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY

import croupier_services.metrics  # noqa: F401  (registers every metric)

ROOT = Path(__file__).resolve().parents[2] / "deploy"
SERIES = re.compile(r"\b(croupier_[a-z_]+)")


def exported() -> set[str]:
    names: set[str] = set()
    for family in REGISTRY.collect():
        suffixes = {
            "counter": ("_total", "_created"),
            "histogram": ("_bucket", "_sum", "_count", "_created"),
            "info": ("_info",),
        }.get(family.type, ("",))
        names.update(family.name + s for s in suffixes)
    return {n for n in names if n.startswith("croupier_")}


def test_every_series_the_dashboard_and_alerts_query_is_exported() -> None:
    have = exported()
    dash = json.loads((ROOT / "grafana/dashboards/croupier-overview.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    alerts = (ROOT / "prometheus/alerts.yml").read_text()
    used = {m for e in exprs for m in SERIES.findall(e)} | set(SERIES.findall(alerts))
    assert used, "no croupier_ series found"
    missing = sorted(m for m in used if m not in have)
    assert not missing, missing
    assert "croupier_turn_timeouts_total" in used
    assert "croupier_pvp_turnover_minor_total" in used


def test_player_against_player_games_get_turnover_and_rake_never_an_rtp() -> None:
    dash = json.loads((ROOT / "grafana/dashboards/croupier-overview.json").read_text())
    for p in dash["panels"]:
        exprs = " ".join(t["expr"] for t in p.get("targets", []))
        if "croupier_pvp_turnover_minor_total" in exprs:
            assert "RTP" not in p["title"] and "payout" not in exprs, p["title"]
    titles = {p["title"] for p in dash["panels"]}
    assert "Player-against-player turnover per minute by variant" in titles
    assert "Player-against-player rake / turnover (time range)" in titles


def test_variant_children_exist_at_zero_before_the_first_hand() -> None:
    from prometheus_client import generate_latest

    from croupier_services import metrics

    metrics.prime(["baccarat", "never.played"])
    text = generate_latest().decode()
    for name in (
        "croupier_hands_dealt_total",
        "croupier_hands_settled_total",
        "croupier_rake_minor_total",
        "croupier_bets_minor_total",
        "croupier_payout_minor_total",
        "croupier_pvp_turnover_minor_total",
    ):
        assert f'{name}{{variant="never.played"}} 0.0' in text, name
    assert 'croupier_turn_timeouts_total{source="clock",variant="never.played"} 0.0' in text
    assert "croupier_build_info{" in text
