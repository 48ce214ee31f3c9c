"""Every ``CROUPIER_*`` setting, defined once: its name, type, default, meaning and
whether it is secret (:data:`SETTINGS`). Services and the CLI read settings only through
this module; a bad value is refused with a one-line :class:`SettingError` naming the
variable and the form expected (``CROUPIER_GRPC_PORT: expected an integer, got 'abc'``).

``croupier settings`` prints each with its current value (secrets masked);
``croupier settings --markdown`` prints the table in the README (a test keeps the two
equal). To add a setting: one ``_define(...)`` call below, then regenerate the README
table. TLS files default to the auth folder's when they exist there.

Four settings are read by the pure library itself, which cannot import this module:
``CROUPIER_SEEDS_DIR`` (:mod:`croupier.games.registry`), ``CROUPIER_NATIVE``
(:mod:`croupier.accel`), ``CROUPIER_DATABASE_URL`` when Alembic runs on its own
(:mod:`croupier.store.migrations.env`) and ``CROUPIER_TEST_DATABASE_URL``
(:mod:`croupier.store.check`); they are defined here too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from croupier.bus.jetstream import ConsumerSpec, StreamSpec
from croupier.errors import InvalidInput
from croupier.urls import mask_url

T = TypeVar("T")

DEFAULT_PORTS = {
    "dealer": (50051, 9101),
    "rules": (0, 9102),
    "settlement": (50053, 9103),
    "audit": (50054, 9104),
}


class SettingError(InvalidInput):
    """A ``CROUPIER_*`` variable whose value does not parse (the message names it)."""

    reason = "bad_setting"


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable: ``parse`` turns its text into a value (raising
    ``ValueError`` on a bad one); unset or empty means ``default``."""

    name: str
    parse: Callable[[str], T]
    form: str  # what a good value looks like, for errors: "an integer"
    default: T
    meaning: str
    shown_default: str | None = None  # the default as documented when computed elsewhere
    secret: bool = False  # never printed (URLs: only the password is masked)
    url: bool = False
    group: str = "services"  # services | cli | auditors | deploy | tests

    def raw(self, env: Mapping[str, str] | None = None) -> str | None:
        return (os.environ if env is None else env).get(self.name)

    def is_set(self, env: Mapping[str, str] | None = None) -> bool:
        return self.raw(env) is not None

    def get(self, env: Mapping[str, str] | None = None) -> T:
        raw = self.raw(env)
        if raw is None or raw.strip() == "":
            return self.default
        try:
            return self.parse(raw.strip())
        except ValueError as e:
            raise SettingError(f"{self.name}: expected {self.form}, got {raw!r}") from e

    def or_(self, fallback: T, env: Mapping[str, str] | None = None) -> T:
        """The value when set, else ``fallback`` (a default computed by the caller)."""
        raw = self.raw(env)
        return fallback if raw is None or raw.strip() == "" else self.get(env)

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        d: Any = self.default
        if isinstance(d, bool):
            return "1" if d else "0"
        if isinstance(d, tuple):
            return ",".join(_num(x) for x in d) if d else "none"
        if isinstance(d, float):
            return _num(d)
        return str(d) if d not in (None, "") else "none"

    def shown(self, env: Mapping[str, str] | None = None) -> str | None:
        """The current value as it may be printed (None: unset)."""
        raw = self.raw(env)
        if raw is None:
            return None
        if self.secret:
            return "***" if raw else ""
        return mask_url(raw) if self.url else raw


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


SETTINGS: dict[str, Setting[Any]] = {}


def _define(s: Setting[T]) -> Setting[T]:
    assert s.name.startswith("CROUPIER_") and s.name not in SETTINGS, s.name
    SETTINGS[s.name] = s
    return s


# -- parsers ---------------------------------------------------------------------------
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _bool(text: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError("")


def _seconds_list(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


def _choice(*options: str, upper: bool = False) -> Callable[[str], str]:
    def parse(text: str) -> str:
        v = text.upper() if upper else text.lower()
        if v not in options:
            raise ValueError("")
        return v

    return parse


def _non_negative(x: float) -> float:
    if not x >= 0:  # NaN too
        raise ValueError("")
    return x


def _tz(text: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if text.upper() != "UTC":
        try:
            ZoneInfo(text)
        except (ZoneInfoNotFoundError, ValueError) as e:
            raise ValueError("") from e
    return text


def _s(name: str, default: str, meaning: str, **kw: Any) -> Setting[str]:
    return _define(Setting(name, str, kw.pop("form", "text"), default, meaning, **kw))


def _i(name: str, default: int, meaning: str, **kw: Any) -> Setting[int]:
    return _define(Setting(name, int, "an integer", default, meaning, **kw))


def _f(name: str, default: float, meaning: str, **kw: Any) -> Setting[float]:
    return _define(Setting(name, float, "a number", default, meaning, **kw))


def _b(name: str, default: bool, meaning: str, **kw: Any) -> Setting[bool]:
    return _define(Setting(name, _bool, "1 or 0 (true/false, yes/no)", default, meaning, **kw))


def _c(name: str, options: tuple[str, ...], meaning: str, **kw: Any) -> Setting[str]:
    form = "one of " + ", ".join(options)
    return _define(
        Setting(
            name,
            _choice(*options, upper=kw.pop("upper", False)),
            form,
            options[0] if "default" not in kw else kw.pop("default"),
            meaning,
            **kw,
        )
    )


# -- the settings ----------------------------------------------------------------------
# where things are
NATS_URL = _s(
    "CROUPIER_NATS_URL",
    "nats://127.0.0.1:4222",
    "NATS with JetStream: one server or a comma-separated list",
    url=True,
)
DATABASE_URL = _s(
    "CROUPIER_DATABASE_URL",
    "sqlite:///var/croupier.sqlite",
    "SQLAlchemy URL (`postgresql+psycopg://…` or `sqlite:///…`)",
    url=True,
)
KEYS_DIR = _s(
    "CROUPIER_KEYS_DIR", "var/keys", "producer key files (each service reads only its own)"
)
KEYRING = _s(
    "CROUPIER_KEYRING", "", "the root-signed keyring", shown_default="`<keys dir>/keyring.json`"
)
TRUST_ROOT = _s(
    "CROUPIER_TRUST_ROOT",
    "",
    "the pinned root public key",
    shown_default="`<keys dir>/trust-root.pub`",
)
SEEDS_DIR = _s(
    "CROUPIER_SEEDS_DIR",
    "",
    "variant configs (`variants/<id>.json`); read by the library",
    shown_default="`seeds/` of the source tree",
)
NATIVE = _s(
    "CROUPIER_NATIVE",
    "",
    "the native accelerator (`croupier.accel`): used when built; `0` turns it off, "
    "`require` makes its absence an error; read by the library",
    shown_default="on when built",
)
# listening
GRPC_PORT = _i(
    "CROUPIER_GRPC_PORT",
    0,
    "gRPC port",
    shown_default="dealer 50051, settlement 50053, audit 50054",
)
METRICS_PORT = _i(
    "CROUPIER_METRICS_PORT",
    0,
    "Prometheus `/metrics`, `/readyz`, `/livez` (0 = off)",
    shown_default="9101 / 9102 / 9103 / 9104",
)
GRPC_HOST = _s("CROUPIER_GRPC_HOST", "127.0.0.1", "bind address of gRPC (the image: `0.0.0.0`)")
METRICS_HOST = _s(
    "CROUPIER_METRICS_HOST", "127.0.0.1", "bind address of `/metrics` (the image: `0.0.0.0`)"
)
REFLECTION = _b("CROUPIER_REFLECTION", True, "serve gRPC reflection (`0` to turn off)")
VIEWER_PORT = _i("CROUPIER_VIEWER_PORT", 9105, "audit service: port of the replay viewer (0 = off)")
VIEWER_HOST = _s(
    "CROUPIER_VIEWER_HOST", "127.0.0.1", "audit service: bind address of the replay viewer"
)
LOG_LEVEL = _c(
    "CROUPIER_LOG_LEVEL",
    ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL"),
    "logging level",
    upper=True,
    default="INFO",
)
LOG_FORMAT = _c("CROUPIER_LOG_FORMAT", ("json", "text"), "`json` (one object per line) or `text`")
EVENT_LOOP = _c(
    "CROUPIER_EVENT_LOOP",
    ("uvloop", "asyncio"),
    "a service's event loop: `uvloop` (libuv; where not installed, asyncio's) or `asyncio`",
)
# security
AUTH_DIR = _s("CROUPIER_AUTH_DIR", "var/auth", 'security material (see "Security")')
TLS_CERT = _s(
    "CROUPIER_TLS_CERT",
    "",
    "server TLS certificate (set but empty: no TLS)",
    shown_default="`<auth>/server.pem` when present",
)
TLS_KEY = _s(
    "CROUPIER_TLS_KEY",
    "",
    "server TLS key (goes with the certificate)",
    shown_default="`<auth>/server.key` when present",
)
TLS_CLIENT_CA = _s(
    "CROUPIER_TLS_CLIENT_CA",
    "",
    "client CA: turns on mutual TLS (set but empty: off)",
    shown_default="`<auth>/ca.pem` when present",
)
AUTH_ISSUER_PUB = _s(
    "CROUPIER_AUTH_ISSUER_PUB",
    "",
    "identity-token issuer public key (required by gRPC servers)",
    shown_default="`<auth>/issuer.pub`",
)
SEAT_KEY_FILE = _s(
    "CROUPIER_SEAT_KEY_FILE",
    "",
    "dealer only: seat-token key",
    shown_default="`<auth>/seat.key`",
)
SEED_KEY_FILE = _s(
    "CROUPIER_SEED_KEY_FILE",
    "",
    "dealer only: SecretBox key sealing server seeds",
    shown_default="`<auth>/seed.key`",
)
NATS_CA = _s("CROUPIER_NATS_CA", "", "CA for `tls://` NATS", shown_default="none (system CAs)")
# the stream and its consumers
STREAM_REPLICAS = _i(
    "CROUPIER_STREAM_REPLICAS",
    1,
    "replicas of the `CROUPIER` stream (compose and k8s: 3)",
)
STREAM_MAX_AGE_S = _f(
    "CROUPIER_STREAM_MAX_AGE_S",
    0.0,
    "oldest message the stream keeps, seconds (0: no limit)",
)
STREAM_MAX_BYTES = _i("CROUPIER_STREAM_MAX_BYTES", -1, "stream size limit in bytes (-1: no limit)")
STREAM_DISCARD = _c(
    "CROUPIER_STREAM_DISCARD",
    ("new", "old"),
    "when full: `new` refuses publishes (they wait in the outbox), `old` drops the oldest",
)
STREAM_DUPLICATE_WINDOW_S = _f(
    "CROUPIER_STREAM_DUPLICATE_WINDOW_S",
    120.0,
    "`Nats-Msg-Id` deduplication window, seconds",
)
CONSUMER_ACK_WAIT_S = _f(
    "CROUPIER_CONSUMER_ACK_WAIT_S",
    10.0,
    "a message unacknowledged this long is redelivered",
)
CONSUMER_MAX_DELIVER = _i(
    "CROUPIER_CONSUMER_MAX_DELIVER",
    -1,
    "deliveries of one message (-1: no limit; poison is terminated by the loops)",
)
CONSUMER_BACKOFF_S = _define(
    Setting(
        "CROUPIER_CONSUMER_BACKOFF_S",
        _seconds_list,
        "comma-separated seconds",
        (),
        "redelivery delays, comma-separated seconds",
    )
)
CONSUMER_MAX_ACK_PENDING = _i(
    "CROUPIER_CONSUMER_MAX_ACK_PENDING",
    20_000,
    "unacknowledged messages per durable consumer",
)
STALL_AFTER_S = _f(
    "CROUPIER_STALL_AFTER_S",
    60.0,
    "a loop with work pending and no progress for this long is stalled (liveness fails)",
)
UNVERIFIABLE_PAUSE_S = _f(
    "CROUPIER_UNVERIFIABLE_PAUSE_S",
    30.0,
    "how long a replica stops taking work after a message it cannot verify",
)
REQUEST_ID_RETENTION_S = _i(
    "CROUPIER_REQUEST_ID_RETENTION_S",
    86_400,
    "how long the dealer keeps gateway request ids, seconds",
)
REQUIRE_REQUEST_ID = _b(
    "CROUPIER_REQUIRE_REQUEST_ID",
    False,
    "`1`: refuse mutating gateway calls without a request id",
)
SINGLE_BET_EVENTS = _b(
    "CROUPIER_SINGLE_BET_EVENTS",
    False,
    "`1`: the dealer writes one `bet.placed` per bet instead of one `bets.placed` per "
    "call, for rule, settlement and audit processes older than `bets.placed` (a rolling "
    "upgrade); turn it off once all of them are upgraded",
)
# dealer replicas (table leases)
DEALER_ID = _s(
    "CROUPIER_DEALER_ID",
    "",
    "dealer replica id: the replica owns tables by lease (empty: a single dealer)",
)
DEALER_ADDRESS = _s(
    "CROUPIER_DEALER_ADDRESS",
    "",
    "host:port other replicas route this replica's tables to",
)
LEASE_TTL_MS = _i(
    "CROUPIER_LEASE_TTL_MS",
    10_000,
    "a table lease's lifetime, milliseconds; renewed every third of it",
)
DEALER_WRITER = _c(
    "CROUPIER_DEALER_WRITER",
    ("process", "thread"),
    "where the dealer's group commits run: `process` (a child process with its own "
    "connection, so its SQL and the gRPC event loop never wait for each other's "
    "interpreter lock) or `thread` (a thread of the dealer process); an in-memory SQLite "
    "store always writes in the dealer's own process",
)
DEALER_COMMIT_LINGER_MS = _define(
    Setting(
        "CROUPIER_DEALER_COMMIT_LINGER_MS",
        lambda t: _non_negative(float(t)),
        "a number of milliseconds, 0 or more",
        1.0,
        "how long the dealer's group commit waits for more calls before it stores a small "
        "group, while calls at other tables are under way (0: never); fewer commits and "
        "seals a hand for a little latency",
    )
)
# the transparency log, auditors and reports
LOG_ORIGIN = _s(
    "CROUPIER_LOG_ORIGIN",
    "croupier.local/seal-log",
    "the log's origin (first line of checkpoints)",
)
CHECKPOINT_INTERVAL_S = _f(
    "CROUPIER_CHECKPOINT_INTERVAL_S",
    10.0,
    "a checkpoint is published this often when the log grew",
)
LOG_KEY = _s(
    "CROUPIER_LOG_KEY",
    "",
    "the log's verifier key file (`log.vkey`) the audit CLI, service and viewer pin",
    group="auditors",
    shown_default="none",
)
REPORT_TZ = _define(
    Setting(
        "CROUPIER_REPORT_TZ",
        _tz,
        "an IANA time zone (e.g. Asia/Shanghai)",
        "UTC",
        "IANA time zone of report days and hand-history times",
        group="auditors",
    )
)
DEBUG = _b(
    "CROUPIER_DEBUG", False, "`1`: the CLI shows tracebacks instead of one-line errors", group="cli"
)
# passwords of per-service database roles (`croupier db roles --login`)
DB_PASSWORDS = {
    svc: _s(
        f"CROUPIER_DB_{svc.upper()}_PASSWORD",
        "",
        f"`db roles --login`: password of the {svc} role",
        secret=True,
        group="cli",
    )
    for svc in ("dealer", "rules", "settlement", "audit")
}
# referenced by the shipped nats-server configs (deploy/, k8s/), not read by Python
NATS_PASSWORDS = {
    user: _s(
        f"CROUPIER_NATS_{user.upper()}_PASSWORD",
        "",
        f"nats-server: password of the {user} user",
        secret=True,
        group="deploy",
    )
    for user in ("dealer", "rules", "settlement", "rules_settlement", "audit", "provision")
}
IMAGE = _s("CROUPIER_IMAGE", "croupier:dev", "docker compose: the image to run", group="deploy")
# tests and benchmarks
TEST_DATABASE_URL = _s(
    "CROUPIER_TEST_DATABASE_URL",
    "",
    "tests: a PostgreSQL to test against too",
    url=True,
    group="tests",
    shown_default="none (SQLite)",
)
TEST_NATS_URL = _s(
    "CROUPIER_TEST_NATS_URL",
    "",
    "tests: an external NATS",
    url=True,
    group="tests",
    shown_default="none (embedded nats-server)",
)
HYPOTHESIS_PROFILE = _c(
    "CROUPIER_HYPOTHESIS_PROFILE",
    ("dev", "ci"),
    "tests: Hypothesis profile",
    group="tests",
)
UPDATE_GOLDEN = _b(
    "CROUPIER_UPDATE_GOLDEN", False, "tests: rewrite the golden files", group="tests"
)
ARTIFACTS_DIR = _s(
    "CROUPIER_ARTIFACTS_DIR",
    "",
    "tests: where browser screenshots go",
    group="tests",
    shown_default="`var/artifacts`",
)
BENCH_CODE = _s(
    "CROUPIER_BENCH_CODE",
    "",
    "benchmarks: the checkout whose dealer is timed",
    group="tests",
    shown_default="this checkout",
)


def markdown_table() -> str:
    """The README's settings table (``croupier settings --markdown``)."""
    lines = ["| variable | meaning | default |", "|---|---|---|"]
    for s in SETTINGS.values():
        d = s.default_text()
        if s.shown_default is None and d != "none":
            d = f"`{d}`"
        lines.append(f"| `{s.name}` | {s.meaning} | {d} |")
    return "\n".join(lines) + "\n"


def describe(env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Each setting with its current value as it may be shown, and whether it parses."""
    out = []
    for s in SETTINGS.values():
        error = None
        try:
            s.get(env)
        except SettingError as e:
            error = e.message
        out.append(
            {
                "name": s.name,
                "value": s.shown(env),
                "set": s.is_set(env),
                "default": s.default_text(),
                "meaning": s.meaning,
                "secret": s.secret,
                "group": s.group,
                "error": error,
            }
        )
    return out


# -- what services read ----------------------------------------------------------------
def _file(s: Setting[str], default: Path) -> str:
    """The path in ``s`` (set but empty: none), else ``default`` when it exists."""
    raw = s.raw()
    if raw is not None:
        return raw
    return str(default) if default.exists() else ""


def auth_dir() -> Path:
    return Path(AUTH_DIR.get())


@dataclass(frozen=True)
class AuthSettings:
    """Where a service listens and the material it authenticates callers with."""

    auth_dir: str = "var/auth"
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    issuer_pub: str = ""
    seat_key: str = ""
    seed_key: str = ""
    grpc_host: str = "127.0.0.1"
    metrics_host: str = "127.0.0.1"
    reflection: bool = True
    nats_ca: str = ""

    @classmethod
    def from_env(cls, auth_dir: str | None = None) -> AuthSettings:
        d = Path(auth_dir or AUTH_DIR.get())
        return cls(
            auth_dir=str(d),
            tls_cert=_file(TLS_CERT, d / "server.pem"),
            tls_key=_file(TLS_KEY, d / "server.key"),
            tls_client_ca=_file(TLS_CLIENT_CA, d / "ca.pem"),
            issuer_pub=AUTH_ISSUER_PUB.or_(str(d / "issuer.pub")),
            seat_key=SEAT_KEY_FILE.or_(str(d / "seat.key")),
            seed_key=SEED_KEY_FILE.or_(str(d / "seed.key")),
            grpc_host=GRPC_HOST.get(),
            metrics_host=METRICS_HOST.get(),
            reflection=REFLECTION.get(),
            nats_ca=NATS_CA.get(),
        )


def stream_spec_from_env() -> StreamSpec:
    return StreamSpec(
        replicas=STREAM_REPLICAS.get(),
        max_age_s=STREAM_MAX_AGE_S.get(),
        max_bytes=STREAM_MAX_BYTES.get(),
        discard=STREAM_DISCARD.get(),
        duplicate_window_s=STREAM_DUPLICATE_WINDOW_S.get(),
    )


def consumer_spec_from_env() -> ConsumerSpec:
    return ConsumerSpec(
        ack_wait_s=CONSUMER_ACK_WAIT_S.get(),
        max_deliver=CONSUMER_MAX_DELIVER.get(),
        backoff_s=CONSUMER_BACKOFF_S.get(),
        max_ack_pending=CONSUMER_MAX_ACK_PENDING.get(),
    )


@dataclass(frozen=True)
class Settings:
    nats_url: str
    database_url: str
    keys_dir: str
    grpc_port: int
    metrics_port: int
    log_level: str
    auth: AuthSettings = field(default_factory=AuthSettings)
    stream: StreamSpec = field(default_factory=StreamSpec)
    consumers: ConsumerSpec = field(default_factory=ConsumerSpec)
    stall_after_s: float = 60.0
    unverifiable_pause_s: float = 30.0
    request_id_retention_s: int = 86_400
    require_request_id: bool = False
    single_bet_events: bool = False
    log_format: str = "json"
    dealer_id: str = ""
    dealer_address: str = ""
    lease_ttl_ms: int = 10_000
    dealer_writer: str = "process"
    commit_linger_ms: float = 1.0

    @classmethod
    def from_env(cls, service: str) -> Settings:
        g, m = DEFAULT_PORTS.get(service, (0, 0))
        return cls(
            nats_url=NATS_URL.get(),
            database_url=DATABASE_URL.get(),
            keys_dir=KEYS_DIR.get(),
            grpc_port=GRPC_PORT.or_(g),
            metrics_port=METRICS_PORT.or_(m),
            log_level=LOG_LEVEL.get(),
            auth=AuthSettings.from_env(),
            stream=stream_spec_from_env(),
            consumers=consumer_spec_from_env(),
            stall_after_s=STALL_AFTER_S.get(),
            unverifiable_pause_s=UNVERIFIABLE_PAUSE_S.get(),
            request_id_retention_s=REQUEST_ID_RETENTION_S.get(),
            require_request_id=REQUIRE_REQUEST_ID.get(),
            single_bet_events=SINGLE_BET_EVENTS.get(),
            log_format=LOG_FORMAT.get(),
            dealer_id=DEALER_ID.get(),
            dealer_address=DEALER_ADDRESS.get(),
            lease_ttl_ms=LEASE_TTL_MS.get(),
            dealer_writer=DEALER_WRITER.get(),
            commit_linger_ms=DEALER_COMMIT_LINGER_MS.get(),
        )
