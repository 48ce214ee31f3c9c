"""Every Prometheus metric the services export (one registry per process)."""

from __future__ import annotations

import platform
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, Info, generate_latest

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
SIGNING_KEY_REFUSALS = Counter(
    "croupier_signing_key_refusals_total",
    "Writes refused because the service's own signing key is revoked",
    ["service"],
)
AUDIT_MISMATCHES = Counter("croupier_audit_mismatches_total", "Hands whose audit failed")
AUDIT_HANDS = Counter("croupier_audit_hands_total", "Hands audited", ["verdict"])
RAKE = Counter("croupier_rake_minor_total", "Rake taken, minor units", ["variant"])
PAYOUT = Counter(
    "croupier_payout_minor_total", "Returned to players (stake + win), minor units", ["variant"]
)
BETS = Counter("croupier_bets_minor_total", "Staked by players, minor units", ["variant"])
PVP_TURNOVER = Counter(
    "croupier_pvp_turnover_minor_total",
    "Player-against-player hands (no house stake): what the losing players paid, minor units",
    ["variant"],
)
TURN_TIMEOUTS = Counter(
    "croupier_turn_timeouts_total",
    "Turns the dealer played automatically after the player timed out",
    ["variant", "source"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, by status code",
    ["grpc_service", "grpc_method", "grpc_type", "grpc_code"],
)
GRPC_HANDLING = Histogram(
    "grpc_server_handling_seconds",
    "Server-side handling time of an RPC (to the end of its stream for a stream)",
    ["grpc_service", "grpc_method", "grpc_type"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
REDELIVERIES = Counter(
    "croupier_redeliveries_total", "Messages delivered more than once", ["service"]
)
GATEWAY_REPLAYS = Counter(
    "croupier_gateway_replays_total",
    "Gateway calls answered from a stored result (a retried request id)",
    ["method"],
)
GATEWAY_NO_REQUEST_ID = Counter(
    "croupier_gateway_calls_without_request_id_total",
    "Mutating gateway calls made without a request id (not deduplicated)",
    ["method"],
)
REQUESTS_PRUNED = Counter(
    "croupier_gateway_request_ids_pruned_total", "Request records removed after retention"
)
LEASES_TAKEN = Counter(
    "croupier_dealer_leases_taken_total",
    "Tables a dealer replica took (a new lease tenure) and rebuilt from the log",
)
LEASES_LOST = Counter(
    "croupier_dealer_leases_lost_total",
    "Table leases a dealer replica found lost on renewal (table dropped from memory)",
)
WRITER_RESTARTS = Counter(
    "croupier_dealer_writer_restarts_total",
    "Dealer writer processes that ended during a group commit (the calls in it answered "
    "UNAVAILABLE, their tables rebuilt from the log) and were started again",
)
AUTH_REFUSED = Counter(
    "croupier_auth_refused_total",
    "gRPC calls refused by authentication or authorisation",
    ["service", "reason"],
)


Probe = Callable[[], tuple[bool, str]]


def serve(
    port: int,
    ready: Probe | None = None,
    live: Probe | None = None,
    host: str = "127.0.0.1",
) -> ThreadingHTTPServer | None:
    """Expose ``/metrics`` on ``host:port`` (0 = do not serve), with ``/readyz`` and
    ``/livez`` (HTTP 200 or 503 with the reason) when probes are given."""
    if not port:
        return None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(200, generate_latest(), CONTENT_TYPE_LATEST)
            elif path in ("/readyz", "/livez"):
                probe = ready if path == "/readyz" else live
                ok, why = probe() if probe is not None else (True, "ok")
                self._send(200 if ok else 503, (why + "\n").encode(), "text/plain")
            else:
                self._send(404, b"not found\n", "text/plain")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


OUTBOX_DEPTH = Gauge(
    "croupier_outbox_depth", "Messages committed and not yet published", ["producer"]
)
OUTBOX_OLDEST_AGE = Gauge(
    "croupier_outbox_oldest_age_seconds",
    "Age of the oldest message waiting in the outbox (0 when empty)",
    ["producer"],
)
OUTBOX_PUBLISHED = Counter(
    "croupier_outbox_published_total", "Outbox messages the stream acknowledged", ["producer"]
)
OUTBOX_HELD = Gauge(
    "croupier_outbox_held_bytes",
    "Bytes of outbox messages written by reference, held in memory until published",
    ["producer"],
)
OUTBOX_REBUILT = Counter(
    "croupier_outbox_rebuilt_total",
    "Outbox messages written by reference and rebuilt from the store (not held: after a "
    "restart, or another replica's)",
    ["producer"],
)
MEMORY_TRIMMED = Counter(
    "croupier_memory_trimmed_bytes_total",
    "Resident bytes the C allocator gave back to the system when trimmed (once a minute)",
)
DEAD_LETTERS = Counter(
    "croupier_dead_letters_total",
    "Poison messages terminated and kept in the dead letters",
    ["consumer", "reason"],
)
CONSUMER_PENDING = Gauge(
    "croupier_consumer_pending", "Messages not yet delivered to a durable consumer", ["consumer"]
)
CONSUMER_ACK_PENDING = Gauge(
    "croupier_consumer_ack_pending",
    "Messages delivered to a durable consumer and not yet acknowledged",
    ["consumer"],
)
CONSUMER_ERRORS = Counter(
    "croupier_consumer_errors_total",
    "Transient failures of a consumer loop (retried with backoff)",
    ["consumer", "kind"],
)
CONSUMER_UNVERIFIABLE = Counter(
    "croupier_consumer_unverifiable_total",
    "Messages a replica could not verify against its store (handed back, not terminated)",
    ["consumer"],
)
CONSUMER_PAUSED = Gauge(
    "croupier_consumer_paused",
    "1 while a consumer loop has stopped taking work because it cannot verify it",
    ["consumer"],
)
CONSUMER_STALLED = Gauge(
    "croupier_consumer_stalled",
    "1 while a consumer loop makes no progress although work is pending",
    ["consumer"],
)
HEALTH = Gauge(
    "croupier_health_ok", "1 when a dependency or loop of this process is healthy", ["check"]
)


BUILD_INFO = Info("croupier_build", "Version of the running Croupier build")

TURN_SOURCES = ("gateway", "clock")
"""Who decided a turn timed out: the gateway's ExpireTurn call, or the dealer's clock."""

PER_VARIANT = (HANDS_DEALT, HANDS_SETTLED, RAKE, PAYOUT, BETS, PVP_TURNOVER)


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


@dataclass(frozen=True, slots=True)
class SettledChildren:
    """One variant's labelled children of the metrics a settled hand moves, looked up
    once (a ``labels()`` call takes the metric's lock and checks the labels each time:
    five a hand)."""

    hands: Counter
    latency: Histogram
    rake: Counter
    bets: Counter
    payout: Counter
    pvp_turnover: Counter


_SETTLED: dict[str, SettledChildren] = {}


def settled_children(variant: str) -> SettledChildren:
    """The children a settled hand of ``variant`` increments (:class:`SettledChildren`)."""
    got = _SETTLED.get(variant)
    if got is None:
        got = _SETTLED[variant] = SettledChildren(
            HANDS_SETTLED.labels(variant),
            SETTLEMENT_LATENCY.labels(variant),
            RAKE.labels(variant),
            BETS.labels(variant),
            PAYOUT.labels(variant),
            PVP_TURNOVER.labels(variant),
        )
    return got
