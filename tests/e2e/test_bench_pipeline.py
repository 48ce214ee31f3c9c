"""The pipeline bench runs with a tiny N and prints every column of its tables (the
floor, CPU and RSS per process, p50/p99 of each dealer call); timings are not judged."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_bench_pipeline_prints_every_column() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "libs"), str(ROOT / "services")]),
    }
    r = subprocess.run(
        [sys.executable, "bench_pipeline.py", "--hands", "12", "--tables", "3", "--group", "4"],
        cwd=ROOT / "bench",
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    num = r"[\d,.]+"
    assert re.search(rf"end to end: {num} hands/s settled", out), out
    assert re.search(r"audited 12 hands in .*, 0 failures", out), out
    assert re.search(rf"load average at the end: {num} {num} {num}", out), out
    # the floor: the same messages, rows and signatures, timed, and the percentage
    m = re.search(
        r"floor: (\d+) messages \(([\d,]+) bytes\) published, (\d+) fetched; (\d+) rows "
        r"inserted; (\d+) signatures",
        out,
    )
    assert m, out
    messages, _, fetched, rows, sigs = (int(g.replace(",", "")) for g in m.groups())
    assert messages >= 12 * 2 and fetched >= 12 * 2 and rows > 12 and sigs == messages
    for phase in ("publish", "fetch+ack", "db insert", "ed25519 sign"):
        assert re.search(rf"^  {re.escape(phase)} +{num} s +{num} µs/hand$", out, re.M), phase
    assert re.search(rf"floor: {num} hands/s   croupier: {num} hands/s = {num}% of floor", out)
    # CPU and RSS per process
    assert re.search(r"^process +CPU µs/hand +RSS MiB +peak MiB$", out, re.M), out
    for role in ("dealer", "rules", "settlement", "nats-server", "audit"):
        assert re.search(rf"^{role} +{num} +{num} +{num}$", out, re.M), role
    assert re.search(rf"^pipeline +{num}", out, re.M), out
    # p50/p99 of each dealer call the gateway's RPCs make
    assert re.search(r"^dealer call +calls +p50 µs +p99 µs$", out, re.M), out
    for call in ("OpenHand", "PlaceBets", "CloseBetting", "persist \\(group\\)"):
        assert re.search(rf"^{call} +12 +{num} +{num}$", out, re.M) or (
            "group" in call and re.search(rf"^{call} +3 +{num} +{num}$", out, re.M)
        ), call
