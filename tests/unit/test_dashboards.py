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
