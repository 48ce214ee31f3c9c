"""The fault drills, bounded for CI (about two minutes): real ``croupier serve``
processes over a 3-node JetStream cluster and SQLite — or, when
``CROUPIER_TEST_DATABASE_URL`` is set (CI), PostgreSQL instead: a private server from the
machine's binaries, or that server in a database of its own; one backend per run keeps
the drill within about three minutes. Every fault of :mod:`tests.chaos.drill` in turn,
with gateways driving baccarat tables throughout; then every closed hand must be
settled exactly once, the ledger zero-sum, every hand PASS its audit, and no process
restarted but those the drill killed. The long run is ``scripts/chaos``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .drill import Drill, make_database

pytestmark = [pytest.mark.integration, pytest.mark.chaos]


def backends() -> list[str]:
    return ["postgresql"] if os.environ.get("CROUPIER_TEST_DATABASE_URL") else ["sqlite"]


@pytest.mark.parametrize("backend", backends())
async def test_every_fault_heals_without_a_manual_restart(tmp_path: Path, backend: str) -> None:
    os.chmod(tmp_path, 0o755)
    drill = Drill(
        tmp_path,
        make_database(tmp_path, backend),
        nats_down_s=6.0,
        db_down_s=4.0,
        leader_down_s=3.0,
        tables=3,
        warmup_s=4.0,
        rogue_s=6.0,
        settle_timeout_s=60.0,
    )
    try:
        rep = await drill.run()
    except BaseException:
        for p in drill.procs.values():
            tail = p.log.read_text(errors="replace")[-3000:] if p.log.exists() else ""
            print(f"---- {p.role} ----\n{tail}")
        raise
    finally:
        drill.close()
    print(rep)
    assert rep["hands_closed"] > 0
    assert rep["hands_lost"] == 0
    assert rep["double_effects"] == 0
    assert rep["ledger_sum"] == 0 and rep["unbalanced_transactions"] == 0
    assert rep["audit"] == {"pass": rep["hands_closed"]} or set(rep["audit"]) == {"pass"}
    assert rep["manual_restarts"] == 0
    assert all(rep["processes_alive"].values())
    assert rep["settlement_health"] == "SERVING"
    # every poison message is in the dead letters; the rogue replica terminated nothing
    assert rep["dead_letters"] >= rep["poison_sent"] > 0
    rogue = next(p for p in rep["phases"] if p["fault"] == "rogue")
    assert rogue["unverifiable_handed_back"] > 0 and rogue["rogue_dead_letters"] == 0
    assert rogue["rogue_readyz"] == 503
    # dealing went on while all of NATS was down (the outbox took the hands)
    down = next(p for p in rep["phases"] if p["fault"] == "nats_down")
    assert down["hands_per_s_during"] > 0
    for p in rep["phases"]:
        assert p["drain_s"] < 60, p
    # every `croupier serve` process froze its start-up out of the garbage collector
    for proc in drill.procs.values():
        assert "start-up heap frozen" in proc.log.read_text(errors="replace"), proc.role
