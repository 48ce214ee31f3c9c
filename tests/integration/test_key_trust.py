"""Attacks on key trust, each as an attacker would try it against the running cluster:
an export re-signed with fresh keys, a rogue row in the ``keys`` table, a service started
with an empty keys folder, a hand forged by a compromised rule service, and a backdated
seal from a revoked key. Each is refused (not settled, not passed by the audit)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from croupier.audit import StoredSettlement, StreamLog
from croupier.bus import subjects, wire
from croupier.dealing import Dealer
from croupier.events import Event, Seal, heads_of, make_event, seal
from croupier.export import HandExport, dump, load
from croupier.games import base as g
from croupier.games.registry import engine
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.settlement import settle_state
from croupier.signing import PRODUCERS, FileSigner
from croupier_services import cli
from croupier_services import keys as k
from croupier_services.dealer import DealerCore
from croupier_services.runtime import Node

from .harness import VARIANT, Cluster, event_of, metric, now_ms

pytestmark = pytest.mark.integration

BET = 5_000_000
SEATS = [{"seat": 1, "player": "mallory", "stack": 10 * BET}]


def _resign(
    events: Sequence[Event],
    seals: Sequence[Seal],
    signers: Mapping[str, FileSigner],
    payloads: Mapping[int, Mapping[str, Any]],
) -> tuple[list[Event], list[Seal]]:
    """The stream with new payloads at some seqs, every event re-chained under the new
    signers' key ids and every seal re-signed by them (a perfect log, other keys)."""
    out: list[Event] = []
    prev = events[0].prev_hash
    for e in events:
        s = signers[e.producer]
        ne = make_event(
            e.stream, e.seq, e.type, e.producer, s.key_id, prev, payloads.get(e.seq, e.payload)
        )
        out.append(ne)
        prev = ne.hash
    by_seq = {e.seq: e for e in out}
    stream = events[0].stream
    resealed = [
        seal(
            signers[x.producer],
            [by_seq[en.seq] for en in x.entries if en.stream == stream],
            x.sealed_at_ms,
        )
        for x in seals
    ]
    return out, resealed


async def _settle_one(c: Cluster, prefix: str) -> str:
    table = await c.open_table(prefix)
    hid = await c.play_hand(table, bets=((1, "banker", 10_000), (2, "player", 10_000)))
    await c.wait_settled(c.store.count_settlements() + 1)
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))  # reveal the seed
    assert c.auditor().audit(hid).verdict.value == "pass"
    return hid


async def _wait_reject(service: str, reason: str, before: float, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while metric("croupier_consumer_rejects_total", service=service, reason=reason) <= before:
        if time.monotonic() > deadline:
            raise AssertionError(f"{service} did not reject with {reason}")
        await asyncio.sleep(0.05)


def _rejects(service: str, reason: str) -> float:
    return metric("croupier_consumer_rejects_total", service=service, reason=reason)


async def _forged_hand(core: DealerCore, table: str) -> str:
    """A whole hand dealt by ``core``'s dealer (whatever keys it holds), written to the
    store and published to the rule service, as a dealer pod would."""
    d = core.dealer
    await core.commit(table, d.open_table(table, VARIANT, "cs"))
    hid, b = d.open_hand(table, SEATS)
    await core.commit(table, b)
    await core.commit(table, d.place_bets(hid, [{"seat": 1, "spot": "banker", "amount": BET}]))
    await core.commit(table, d.close_betting(hid))
    return hid


# ----------------------------------------------------------------------- re-signed export


async def test_a_re_signed_export_is_refused_under_the_pinned_root(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = cluster
    hid = await _settle_one(c, "resign")
    c.cli_env(monkeypatch)
    genuine = tmp_path / "hand.jsonl"
    assert cli.main(["hand", "export", hid, "-o", str(genuine)]) == 0
    x = load(genuine.read_text(encoding="utf-8"))
    pin = ["--trust-root", str(c.keys_dir / k.TRUST_ROOT_FILE)]
    capsys.readouterr()
    assert cli.main(["audit", "--file", str(genuine), *pin]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["keys"]["verified"] is True
    assert {v["producer"] for v in rep["keys"]["signed_by"].values()} == set(PRODUCERS)

    # four fresh keys; seat 1 renamed; chain, outcome and settlement recomputed
    fresh = {p: FileSigner.generate(p) for p in PRODUCERS}
    opened = x.hand.events[0]
    seats = [{**s, "player": "mallory"} if s["seat"] == 1 else s for s in opened.payload["seats"]]
    changed: dict[int, Mapping[str, Any]] = {0: {**opened.payload, "seats": seats}}
    eng = engine(VARIANT)
    steps = [
        (e.type, changed.get(e.seq, e.payload))
        for e in x.hand.events
        if e.type not in (g.HAND_OUTCOME, g.HAND_SETTLED)
    ]
    state = eng.replay(hid, steps)
    hs = settle_state(eng, state)
    changed[event_of(x.hand.events, g.HAND_OUTCOME).seq] = eng.outcome(state)
    changed[event_of(x.hand.events, g.HAND_SETTLED).seq] = hs.settled_payload()
    hand_ev, hand_se = _resign(x.hand.events, x.hand.seals, fresh, changed)
    shoe_ev, shoe_se = _resign(x.shoe.events, x.shoe.seals, fresh, {})
    forged = HandExport(
        hid,
        StreamLog(tuple(hand_ev), tuple(hand_se)),
        StreamLog(tuple(shoe_ev), tuple(shoe_se)),
        tuple(s.public_entry() for s in fresh.values()),  # the new keys as `key` lines
        StoredSettlement(hs.record_bytes, hs.postings),
        x.keyring,
    )
    assert "mallory" in json.dumps(hs.record)
    path = tmp_path / "forged.jsonl"
    path.write_text(dump(forged), encoding="utf-8")

    # under the pinned root: refused, naming a key outside the signed keyring
    capsys.readouterr()
    assert cli.main(["audit", "--file", str(path), *pin]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["keys"]["verified"] is False
    assert rep["keys"]["reason"].startswith("untrusted_key: key "), rep["keys"]
    assert "is not in the signed keyring" in rep["keys"]["reason"]
    assert rep["verdict"] == "fail" and rep["first_bad"]["reason"] == "unknown_key"
    # without the key lines, or without the keyring, it fails the same way
    bare = HandExport(forged.hand_id, forged.hand, forged.shoe, (), forged.settlement, None)
    path.write_text(dump(bare), encoding="utf-8")
    assert cli.main(["audit", "--file", str(path), *pin]) == 1
    assert "untrusted_keyring" in json.loads(capsys.readouterr().out)["keys"]["reason"]
    # with no root pinned the forgery is perfect on every check, but cannot pass
    path.write_text(dump(forged), encoding="utf-8")
    monkeypatch.delenv("CROUPIER_TRUST_ROOT")
    assert cli.main(["audit", "--file", str(path)]) == 1
    out = capsys.readouterr()
    rep = json.loads(out.out)
    assert rep["verdict"] == "pass" and rep["keys"]["verified"] is False
    assert "keys unverified" in out.err


# ----------------------------------------------------------------------- rogue key row


async def test_a_rogue_key_row_is_not_trusted(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone with write access to the database registers their own dealer and gateway
    keys in ``keys`` and deals a hand with them: the rule service refuses it, nothing is
    settled, and the audit names the key."""
    c = cluster
    await _settle_one(c, "rogue_ok")
    rogue = {p: FileSigner.generate(p) for p in ("dealer", "gateway")}
    for s in rogue.values():
        c.store.put_key(s.public_entry())  # the rogue rows, valid from epoch 0
    before = _rejects("rules", "unknown_key")
    settled = c.store.count_settlements()
    core = DealerCore(
        Dealer(rogue["dealer"], rogue["gateway"], clock_ms=now_ms),
        c.store,
        c.bus,
        seed_box=c.seed_box,
    )
    hid = await _forged_hand(core, f"rogue_{uuid.uuid4().hex[:8]}")
    await _wait_reject("rules", "unknown_key", before)
    await asyncio.sleep(0.5)
    assert c.store.count_settlements() == settled
    rep = c.auditor().audit(hid)
    assert rep.verdict.value == "fail" and rep.reason == "unknown_key", rep.message
    assert rogue["dealer"].key_id in rep.message or rogue["gateway"].key_id in rep.message
    c.cli_env(monkeypatch)
    capsys.readouterr()
    assert cli.main(["audit", "--hand", hid]) == 1
    assert "unknown_key" in capsys.readouterr().out


# ----------------------------------------------------------------------- empty keys folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("service", ["dealer", "rules", "settlement", "log"])
def test_a_service_with_an_empty_keys_folder_refuses_to_start(service: str, tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    env = {
        **os.environ,
        "CROUPIER_KEYS_DIR": str(keys),
        "CROUPIER_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}",
        "CROUPIER_NATS_URL": f"nats://127.0.0.1:{_free_port()}",  # nothing listens
        "CROUPIER_METRICS_PORT": "0",
        "CROUPIER_GRPC_PORT": "0",
    }
    env.pop("CROUPIER_TRUST_ROOT", None)
    p = subprocess.run(
        [sys.executable, "-m", "croupier_services.cli", "serve", service],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2, p.stderr
    assert f"no key file {keys / (service + '.key')}" in p.stderr
    assert list(keys.iterdir()) == []  # nothing minted
    assert not (tmp_path / "db.sqlite").exists()  # and nothing registered


# ----------------------------------------------------------------------- compromised rules


async def test_a_compromised_rule_service_cannot_forge_a_paid_hand(
    cluster: Cluster, tmp_path: Path
) -> None:
    c = cluster
    await _settle_one(c, "rules_ok")
    # what a rules pod holds: its own key, the keyring and the pinned root
    pod = tmp_path / "rules-pod"
    pod.mkdir()
    for name in ("rules.key", k.KEYRING_FILE, k.TRUST_ROOT_FILE):
        (pod / name).write_bytes((c.keys_dir / name).read_bytes())
    node = Node(
        roles=("rules",),
        database_url=c.database.cli_url,
        keys_dir=str(pod),
        nats_url=c.nats_url,
        rule_variants=[VARIANT],
    )
    await node.start()
    await node.stop()
    assert sorted(x.name for x in pod.iterdir()) == sorted(
        ["rules.key", k.KEYRING_FILE, k.TRUST_ROOT_FILE]
    )  # it made no dealer, gateway or settlement key
    rules = c.signers["rules"]
    assert isinstance(rules, FileSigner)

    # the attacker deals a hand with the only key it has, claiming to be the dealer
    as_dealer = FileSigner("dealer", rules.key_id, rules.signing_key)
    as_gateway = FileSigner("gateway", rules.key_id, rules.signing_key)
    before = _rejects("rules", "wrong_key")
    settled = c.store.count_settlements()
    core = DealerCore(
        Dealer(as_dealer, as_gateway, clock_ms=now_ms), c.store, c.bus, seed_box=c.seed_box
    )
    table = f"forge_{uuid.uuid4().hex[:8]}"
    hid = await _forged_hand(core, table)
    await _wait_reject("rules", "wrong_key", before)
    # and hands settlement an outcome signed with the genuine rules key
    hand = c.store.read_stream(hid)
    eng = engine(VARIANT)
    outcome = eng.outcome(eng.replay(hid, [(e.type, e.payload) for e in hand]))
    last = hand[-1]
    ev = make_event(hid, last.seq + 1, g.HAND_OUTCOME, "rules", rules.key_id, last.hash, outcome)
    seals = [*c.store.seals_for(hid), seal(rules, heads_of([ev]), now_ms())]
    before = _rejects("settlement", "wrong_key")
    await c.bus.publish_many(
        [
            (
                subjects.subject("outcome", VARIANT, table),
                wire.encode("outcome", [*hand, ev], seals),
                f"forged:{hid}",
            )
        ]
    )
    await _wait_reject("settlement", "wrong_key", before)
    await asyncio.sleep(0.5)
    assert c.store.count_settlements() == settled
    assert hid not in {t.hand_id for t in c.store.list_transactions()}
    rep = c.auditor().audit(hid)
    assert rep.verdict.value == "fail" and rep.reason == "wrong_key", rep.message


# ----------------------------------------------------------------------- revoked key


async def test_a_backdated_seal_from_a_revoked_key_is_refused_without_a_restart(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = cluster
    await _settle_one(c, "revoke_ok")
    keyring_v1 = c.trust.keyring
    c.trust.refresh_s = 0.1
    dealer = c.signers["dealer"]
    revoked_at = now_ms()
    k.revoke_key(c.keys_dir, dealer.key_id, at_ms=revoked_at)
    await asyncio.sleep(0.3)  # the running consumers look again by themselves: no restart
    # the leaked dealer key deals a hand dated an hour before the revocation
    before = _rejects("rules", "revoked_key")
    settled = c.store.count_settlements()
    backdated = iter(range(revoked_at - 3_600_000, revoked_at))
    core = DealerCore(
        Dealer(dealer, c.signers["gateway"], clock_ms=lambda: next(backdated)),
        c.store,
        c.bus,
        seed_box=c.seed_box,
    )
    hid = await _forged_hand(core, f"backdated_{uuid.uuid4().hex[:8]}")
    assert all(s.sealed_at_ms < revoked_at for s in c.store.seals_for(hid))
    await _wait_reject("rules", "revoked_key", before)
    await asyncio.sleep(0.5)
    assert c.store.count_settlements() == settled
    rep = c.auditor().audit(hid)
    assert rep.verdict.value == "fail" and rep.reason == "revoked_key", rep.message
    assert c.trust.version == 2 and c.rules_loop.checker.version == 2

    # offline: the export carries the keyring that revokes the key
    c.cli_env(monkeypatch)
    path = tmp_path / "backdated.jsonl"
    assert cli.main(["hand", "export", hid, "-o", str(path)]) == 0
    capsys.readouterr()
    assert cli.main(["audit", "--file", str(path)]) == 1
    rep_file = json.loads(capsys.readouterr().out)
    assert rep_file["keys"]["keyring_version"] == 2
    assert rep_file["first_bad"]["reason"] == "revoked_key"
    # an export that carries the keyring from before the revocation (rolled back) is
    # judged by the auditor's newer one
    x = load(path.read_text(encoding="utf-8"))
    stale = HandExport(x.hand_id, x.hand, x.shoe, x.keys, x.settlement, keyring_v1)
    path.write_text(dump(stale), encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["audit", "--file", str(path)]) == 1
    rep_file = json.loads(capsys.readouterr().out)  # v1 knows no revocation: the seals pass
    assert rep_file["keys"]["keyring_version"] == 1
    assert rep_file["first_bad"]["reason"] == "no_outcome", rep_file["first_bad"]
    newest = str(c.keys_dir / k.KEYRING_FILE)
    assert cli.main(["audit", "--file", str(path), "--keyring", newest]) == 1
    rep_file = json.loads(capsys.readouterr().out)
    assert rep_file["keys"]["keyring_version"] == 2
    assert rep_file["first_bad"]["reason"] == "revoked_key"


async def test_a_revoked_keys_seals_are_judged_by_the_first_checkpoint_that_included_them(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Genuine seals of a since-revoked key that a checkpoint before the revocation
    already included pass the store audit; a backdated seal that reached the log after
    it fails, whatever date its signer wrote."""
    from croupier_services.audit import Auditor
    from croupier_services.tlog import log_signer, publish

    c = cluster
    genuine = await _settle_one(c, "witness_ok")
    signer = log_signer(c.keys_dir, create=True)
    first = publish(c.store, signer)
    assert first is not None and first.size == c.store.tlog_size()
    await asyncio.sleep(0.01)
    dealer = c.signers["dealer"]
    revoked_at = now_ms()
    assert first.published_at_ms < revoked_at
    k.revoke_key(c.keys_dir, dealer.key_id, at_ms=revoked_at)
    backdated = iter(range(revoked_at - 3_600_000, revoked_at))
    core = DealerCore(
        Dealer(dealer, c.signers["gateway"], clock_ms=lambda: next(backdated)),
        c.store,
        c.bus,
        seed_box=c.seed_box,
    )
    forged = await _forged_hand(core, f"witness_bd_{uuid.uuid4().hex[:8]}")
    assert all(s.sealed_at_ms < revoked_at for s in c.store.seals_for(forged))
    await asyncio.sleep(0.01)
    later = publish(c.store, signer)
    assert later is not None and later.published_at_ms >= revoked_at

    auditor = Auditor(c.store, c.trust, log_key=signer.verifier)
    assert auditor.registry.get(dealer.key_id).revoked_at_ms == revoked_at
    ok = auditor.audit(genuine)
    assert not ok.failed, (ok.reason, ok.message)  # passes (or waits on a reveal)
    bad = auditor.audit(forged)
    assert bad.failed and bad.reason == "revoked_key", (bad.reason, bad.message)
    assert auditor.witness.lookups > 0
    # without the pinned log key nothing but the signer dates a seal: both fail
    blind = Auditor(c.store, c.trust)
    assert blind.audit(genuine).reason == "revoked_key"
    assert blind.audit(forged).reason == "revoked_key"
    # a checkpoint under another log key vouches for nothing
    other = log_signer(tmp_path / "other", create=True)
    fooled = Auditor(c.store, c.trust, log_key=other.verifier)
    assert fooled.audit(genuine).reason == "revoked_key"
    await _served_audits_pin_the_log_key(c, genuine, forged, monkeypatch)


async def _served_audits_pin_the_log_key(
    c: Cluster, genuine: str, forged: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit service and the replay viewer judge the revoked key's seals as the CLI
    does, with the log key pinned by CROUPIER_LOG_KEY."""
    from croupier.auth import Role
    from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc
    from croupier_services.audit import AuditServicer
    from croupier_services.grpc_util import bind, make_server
    from croupier_services.security import client_channel, server_security
    from croupier_services.tlog import VKEY_FILE, pinned_log_key
    from croupier_services.viewer import Viewer

    from .harness import auth_settings

    async def served(log_key: Any) -> dict[str, str]:
        sec = server_security(auth_settings(c.auth))
        server = make_server(sec)
        audit_pb2_grpc.add_AuditServiceServicer_to_server(
            AuditServicer(c.store, c.trust, log_key=log_key), server
        )
        port = bind(server, "127.0.0.1", 0, sec)
        await server.start()
        out: dict[str, str] = {}
        try:
            async with client_channel(f"127.0.0.1:{port}", c.auth.root, Role.AUDITOR) as ch:
                au = audit_pb2_grpc.AuditServiceStub(ch)
                for name, hid in (("genuine", genuine), ("forged", forged)):
                    r = (await au.VerifyHand(audit_pb2.VerifyHandRequest(hand_id=hid))).report
                    out[name] = r.reason or "ok"
                async for item in au.VerifyRange(audit_pb2.VerifyRangeRequest()):
                    if item.report.hand_id == genuine:
                        out["range"] = item.report.reason or "ok"
        finally:
            await server.stop(0)
        viewer = Viewer(c.store, trust=c.trust, log_key=log_key)
        viewer.start()
        try:
            for name, hid in (("genuine", genuine), ("forged", forged)):
                url = f"http://127.0.0.1:{viewer.port}/hand?id={hid}"
                body = await asyncio.to_thread(_fetch, url)
                out["viewer_" + name] = "revoked_key" if "revoked_key" in body else "ok"
        finally:
            viewer.stop()
        return out

    monkeypatch.setenv("CROUPIER_LOG_KEY", str(Path(c.keys_dir) / VKEY_FILE))
    pinned = pinned_log_key()
    assert pinned is not None
    got = await served(pinned)
    assert got == {
        "genuine": "ok",
        "forged": "revoked_key",
        "range": "ok",
        "viewer_genuine": "ok",
        "viewer_forged": "revoked_key",
    }, got
    # without it the service and viewer have nothing but the signer's date: both fail
    monkeypatch.delenv("CROUPIER_LOG_KEY")
    assert pinned_log_key() is None
    blind = await served(None)
    assert blind["genuine"] == blind["viewer_genuine"] == "revoked_key", blind


def _fetch(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode("utf-8"))


async def test_a_dealer_whose_own_key_is_revoked_refuses_to_write(cluster: Cluster) -> None:
    """Once the keyring it trusts revokes its signing key, the dealer signs nothing more:
    FAILED_PRECONDITION ``signing_key_revoked`` over gRPC, nothing written, counted; the
    health check names it."""
    import grpc

    from croupier_services import metrics as m
    from croupier_services.grpc_util import error_info
    from croupier_services.keys import signing_key_check

    c = cluster
    table = await c.open_table("ownkey")
    c.trust.refresh_s = 0.0
    check = signing_key_check(c.trust, [c.signers["dealer"].key_id, c.signers["gateway"].key_id])
    c.core.signing_check = check
    assert check() is None
    k.revoke_key(c.keys_dir, c.signers["dealer"].key_id, at_ms=now_ms())
    written = (c.store.count_events(), c.store.tlog_size())
    before = m.SIGNING_KEY_REFUSALS.labels("dealer")._value.get()
    for call in (
        c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=f"{table}b", variant=VARIANT)),
        c.gw.OpenHand(
            gateway_pb2.OpenHandRequest(
                table_id=table,
                seats=[gateway_pb2.SeatEntry(seat=1, player_id="p1", stack_minor=100_000)],
            )
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await call
        assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION, ei.value.details()
        info = error_info(ei.value)
        assert info is not None and info.reason == "signing_key_revoked", ei.value.details()
    assert (c.store.count_events(), c.store.tlog_size()) == written  # nothing written
    assert m.SIGNING_KEY_REFUSALS.labels("dealer")._value.get() == before + 2
    why = check()
    assert why is not None and c.signers["dealer"].key_id in why
    from croupier_services.health import HealthMonitor

    hm = HealthMonitor(c.store, lambda: None, lambda: [], needs_nats=False, key_problem=check)
    await hm.check()
    assert hm.ready[0] is False and "revoked" in hm.ready[1]  # NOT_SERVING, and why


async def test_a_rule_service_whose_own_key_is_revoked_stops_producing(cluster: Cluster) -> None:
    """The rules loop takes no more work once its own key is revoked: no outcome is
    signed, the hand waits (unsettled) in the stream, the loop shows paused."""
    from croupier_services.keys import signing_key_check

    c = cluster
    c.trust.refresh_s = 0.0
    lp = c.rules_loop
    lp.signing_check = signing_key_check(c.trust, [c.signers["rules"].key_id])
    k.revoke_key(c.keys_dir, c.signers["rules"].key_id, at_ms=now_ms())
    settled = c.store.count_settlements()
    table = await c.open_table("rules_rev")
    hid = await c.play_hand(table, bets=((1, "banker", 10_000),))
    deadline = time.monotonic() + 5
    while lp.state != "paused":
        assert time.monotonic() < deadline, lp.state
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.5)
    assert c.store.count_settlements() == settled
    assert not any(s.producer == "rules" for s in c.store.seals_for(hid))
    assert "revoked" in lp.last_error
