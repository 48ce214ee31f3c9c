"""A settled hand's metrics go to its variant's labelled children, looked up once
(``croupier_services.metrics.settled_children``): the same children ``labels()`` gives,
so what the settlement counts is what Prometheus scrapes."""

from __future__ import annotations

from prometheus_client import REGISTRY

from croupier_services import metrics


def test_the_children_are_the_metrics_own_and_count_into_the_scrape() -> None:
    m = metrics.settled_children("unit.variant")
    assert m is metrics.settled_children("unit.variant")
    assert m.hands is metrics.HANDS_SETTLED.labels("unit.variant")
    assert m.latency is metrics.SETTLEMENT_LATENCY.labels("unit.variant")
    assert m.rake is metrics.RAKE.labels("unit.variant")
    assert m.bets is metrics.BETS.labels("unit.variant")
    assert m.payout is metrics.PAYOUT.labels("unit.variant")
    assert m.pvp_turnover is metrics.PVP_TURNOVER.labels("unit.variant")
    before = REGISTRY.get_sample_value("croupier_hands_settled_total", {"variant": "unit.variant"})
    m.hands.inc()
    m.rake.inc(7)
    after = REGISTRY.get_sample_value("croupier_hands_settled_total", {"variant": "unit.variant"})
    assert after == (before or 0) + 1
    assert metrics.settled_children("other.variant").hands is not m.hands
