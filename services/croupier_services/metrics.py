"""Every Prometheus metric the services export (one registry per process)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram, start_http_server

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
AUTH_REFUSED = Counter(
    "croupier_auth_refused_total",
    "gRPC calls refused by authentication or authorisation",
    ["service", "reason"],
)


def serve(port: int, host: str = "127.0.0.1") -> None:
    """Expose /metrics on ``host:port`` (0 = do not serve)."""
    if port:
        start_http_server(port, addr=host)
