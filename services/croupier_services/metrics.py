"""Every Prometheus metric the services export (one registry per process)."""

from __future__ import annotations

import platform
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import Counter, Histogram, Info, start_http_server

HANDS_DEALT = Counter("croupier_hands_dealt_total", "Hands closed by the dealer", ["variant"])
HANDS_SETTLED = Counter("croupier_hands_settled_total", "Hands settled", ["variant"])
SETTLEMENT_LATENCY = Histogram(
    "croupier_settlement_latency_seconds",
    "Time from the dealer sealing a hand's close to the settlement commit",
    ["variant"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
EVENTS_PUBLISHED = Counter(
    "croupier_events_published_total", "Events published to JetStream", ["producer"]
)
EVENTS_CONSUMED = Counter(
    "croupier_events_consumed_total", "Events consumed from JetStream", ["service"]
)
CONSUMER_REJECTS = Counter(
    "croupier_consumer_rejects_total", "Messages a consumer refused", ["service", "reason"]
)
SIGNATURE_FAILURES = Counter(
    "croupier_signature_failures_total", "Seals or chains that failed to verify", ["service"]
)
AUDIT_MISMATCHES = Counter("croupier_audit_mismatches_total", "Hands whose audit failed")
AUDIT_HANDS = Counter("croupier_audit_hands_total", "Hands audited", ["verdict"])
RAKE = Counter("croupier_rake_minor_total", "Rake taken, minor units", ["variant"])
PAYOUT = Counter(
    "croupier_payout_minor_total", "Returned to players (stake + win), minor units", ["variant"]
)
BETS = Counter("croupier_bets_minor_total", "Staked by players, minor units", ["variant"])
TURN_TIMEOUTS = Counter(
    "croupier_turn_timeouts_total",
    "Turns the dealer played automatically after the player timed out",
    ["variant", "source"],
)
GRPC_REQUESTS = Counter("croupier_grpc_requests_total", "gRPC calls", ["method", "code"])
REDELIVERIES = Counter(
    "croupier_redeliveries_total", "Messages delivered more than once", ["service"]
)


def serve(port: int) -> None:
    """Expose /metrics on ``port`` (0 = do not serve)."""
    if port:
        start_http_server(port, addr="0.0.0.0")


BUILD_INFO = Info("croupier_build", "Version of the running Croupier build")

TURN_SOURCES = ("gateway", "clock")
"""Who decided a turn timed out: the gateway's ExpireTurn call, or the dealer's clock."""

PER_VARIANT = (HANDS_DEALT, HANDS_SETTLED, RAKE, PAYOUT, BETS)


def build_version() -> str:
    try:
        return version("croupier")
    except PackageNotFoundError:
        return "unknown"


def prime(variants: Iterable[str]) -> None:
    """Create every labelled child at start-up, at 0, for the variants this process
    serves (the consumer loops create their service's children when they are built).
    A child that first appears on its first increment
    has no earlier sample, so ``increase()`` and ``rate()`` read that first step as 0:
    a variant that settles its first hands would look stalled, and a first signature
    failure would go unseen. ``croupier_build_info`` is set here too."""
    BUILD_INFO.info({"version": build_version(), "python": platform.python_version()})
    for v in variants:
        for counter in PER_VARIANT:
            counter.labels(v)
        SETTLEMENT_LATENCY.labels(v)
        for source in TURN_SOURCES:
            TURN_TIMEOUTS.labels(v, source)
    for verdict in ("pass", "fail", "pending_reveal"):
        AUDIT_HANDS.labels(verdict)
