"""Hypothesis profiles: ``dev`` (the default) explores new examples on every run; ``ci``
(``CROUPIER_HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``) draws the same examples every
time, so a CI result is reproducible and a red run is a real regression, not a new
draw. Failures found in ``dev`` are pinned as explicit examples or unit tests.

The real servers named by ``CROUPIER_TEST_NATS_URL`` and ``CROUPIER_TEST_DATABASE_URL``
are checked once when the session starts (:func:`pytest_sessionstart`)."""

from __future__ import annotations

import os
import socket
import time
from urllib.parse import urlsplit

import pytest
from hypothesis import settings

settings.register_profile("dev")
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("CROUPIER_HYPOTHESIS_PROFILE", "dev"))


# how long the run waits for the real servers to answer (CROUPIER_TEST_REACH_S)
REACH_S = float(os.environ.get("CROUPIER_TEST_REACH_S", "30"))


def _nats_answers(url: str) -> str | None:
    """``None`` when a server of ``url`` sends its INFO line; else the reason."""
    from croupier.bus.jetstream import server_list

    why = "no server"
    for server in server_list(url):
        u = urlsplit(server if "://" in server else f"nats://{server}")
        try:
            with socket.create_connection((u.hostname or "127.0.0.1", u.port or 4222), 3) as s:
                s.settimeout(3)
                if s.recv(5) == b"INFO ":
                    return None
                why = f"{u.hostname}:{u.port} did not greet as a NATS server"
        except OSError as e:
            why = f"{u.hostname}:{u.port}: {e}"
    return why


def _database_answers(url: str) -> str | None:
    import sqlalchemy as sa

    from croupier.store import normalise_url

    engine = sa.create_engine(normalise_url(url), connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as c:
            c.exec_driver_sql("SELECT 1")
        return None
    except sa.exc.SQLAlchemyError as e:
        return str(getattr(e, "orig", None) or e).strip().splitlines()[0]
    finally:
        engine.dispose()


def pytest_sessionstart(session: pytest.Session) -> None:
    """With ``CROUPIER_TEST_NATS_URL`` or ``CROUPIER_TEST_DATABASE_URL`` set, the real
    servers must answer (waited for up to :data:`REACH_S`): otherwise the run ends at once
    naming the one that does not, instead of failing (or waiting in) every test that
    uses it."""
    from croupier.urls import mask_url

    checks = [
        (var, url, probe)
        for var, probe in (
            ("CROUPIER_TEST_NATS_URL", _nats_answers),
            ("CROUPIER_TEST_DATABASE_URL", _database_answers),
        )
        if (url := os.environ.get(var))
    ]
    deadline = time.monotonic() + REACH_S
    for var, url, probe in checks:
        while (why := probe(url)) is not None:
            if time.monotonic() >= deadline:
                pytest.exit(f"{var}={mask_url(url)} does not answer: {why}", returncode=3)
            time.sleep(1)
