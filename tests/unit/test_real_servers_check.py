"""A run pointed at a real NATS or PostgreSQL that does not answer ends at once with
exit 3 naming it (``tests/conftest.py``), instead of failing or hanging in every test
that uses it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.bus.embedded import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("var", "url"),
    [
        ("CROUPIER_TEST_NATS_URL", "nats://svc:s3cret@127.0.0.1:{port}"),
        ("CROUPIER_TEST_DATABASE_URL", "postgresql://svc:s3cret@127.0.0.1:{port}/test"),
    ],
)
def test_a_real_server_that_does_not_answer_ends_the_run(var: str, url: str) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CROUPIER_TEST_NATS_URL", "CROUPIER_TEST_DATABASE_URL")
    }
    env |= {var: url.format(port=free_port()), "CROUPIER_TEST_REACH_S": "0.5"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/unit/test_settings.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 3, out.stdout + out.stderr
    text = out.stdout + out.stderr
    assert f"{var}=" in text and "does not answer" in text and "refused" in text.lower()
    assert "s3cret" not in text and "svc:***@" in text
    assert " passed" not in text  # no test ran
