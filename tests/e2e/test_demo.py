"""The demo end to end with a small N: the embedded cluster (its own nats-server and a
SQLite file), simulated players through gRPC, settlement, a full audit and the summary."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from croupier.games.registry import variants
from croupier.keyring import Keyring, TrustRoot
from croupier.store import Store
from croupier.tlog.note import NoteVerifier
from croupier_services.audit import Auditor
from croupier_services.demo import run_demo
from croupier_services.keys import TrustedKeys

pytestmark = pytest.mark.e2e


async def test_demo_settles_and_audits_every_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = await asyncio.wait_for(
        run_demo(["baccarat"], hands=40, tables=2, players=3, seed=7, workdir=tmp_path),
        timeout=45,
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert re.search(r"hands: 40/40 settled", out), out
    assert "verdict: PASS" in out
    assert re.search(r"baccarat: 40 hands", out), out
    assert "AUDIT_VERDICT_FAIL" not in out
    assert re.search(r"'AUDIT_VERDICT_PASS': 40\b", out), out
    assert (tmp_path / "croupier.sqlite").exists()
    assert sorted(p.name for p in (tmp_path / "keys").iterdir()) == [
        "dealer.key",
        "gateway.key",
        "keyring.json",
        "log.key",
        "log.vkey",
        "rules.key",
        "settlement.key",
        "trust-root.pub",
    ]
    # the root an auditor pins sits in the workdir; the root's private key is not in the
    # keys folder the services read
    root = TrustRoot.load(tmp_path / "trust-root.pub")
    Keyring.load(tmp_path / "keys" / "keyring.json").verify(root)
    assert (tmp_path / "root.key").exists()
    # the log publisher signed a checkpoint of every seal on the way out, and the whole
    # log audits clean under the log's verifier key
    store = Store.open(f"sqlite:///{tmp_path / 'croupier.sqlite'}")
    try:
        cp = store.latest_checkpoint()
        assert cp is not None and cp.size == store.tlog_size() > 0
        key = NoteVerifier.parse((tmp_path / "keys" / "log.vkey").read_text(encoding="utf-8"))
        la = Auditor(store, TrustedKeys.from_dir(tmp_path / "keys")).audit_log(log_key=key)
        assert la.ok and la.checkpoints_checked >= 1, la.to_json_dict()
    finally:
        store.close()


async def test_every_variant_plays_settles_and_audits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every registered variant, a few hands each, through the whole cluster: dealt (cards,
    dice, decisions by the bots, timeouts), judged, settled and audited PASS."""
    games = variants()
    hands = 3
    rc = await asyncio.wait_for(
        run_demo(games, hands=hands, tables=1, players=4, seed=11, workdir=tmp_path),
        timeout=240,
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    total = hands * len(games)
    assert re.search(rf"hands: {total}/{total} settled", out), out
    assert re.search(rf"'AUDIT_VERDICT_PASS': {total}\b", out), out
    for v in games:
        assert re.search(rf"\b{re.escape(v)}: {hands} hands", out), (v, out)
