"""The audit service's transparency-log RPCs, used as an auditor would: fetch the latest
signed checkpoint and verify it under the pinned log key, prove it extends a checkpoint
held from before, and prove a hand's seals are in it, all with the library verifier;
bad sizes are INVALID_ARGUMENT, and only auditors may ask."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from croupier.auth import Role
from croupier.pb.croupier.v1 import audit_pb2, audit_pb2_grpc, gateway_pb2
from croupier.signing import FileSigner
from croupier.tlog import merkle, seal_leaf_hash
from croupier.tlog.merkle import ProofError
from croupier.tlog.note import Checkpoint, NoteSigner, open_checkpoint
from croupier_services.cli import main as cli_main
from croupier_services.security import client_channel
from croupier_services.tlog import log_signer, publish

from .harness import Cluster

pytestmark = pytest.mark.integration


async def _hand(c: Cluster, prefix: str) -> str:
    table = await c.open_table(prefix)
    n = c.store.count_settlements()
    hid = await c.play_hand(table, bets=((1, "banker", 10_000),))
    await c.wait_settled(n + 1)  # every seal of the hand is written
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    return hid


async def test_an_auditor_verifies_checkpoints_and_proofs_from_the_service(
    cluster: Cluster,
) -> None:
    c = cluster
    au = c.au
    with pytest.raises(grpc.aio.AioRpcError) as e:  # nothing published yet
        await au.GetCheckpoint(audit_pb2.GetCheckpointRequest())
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    signer = log_signer(c.keys_dir, create=True)
    pinned = signer.verifier  # what the auditor pins (log.vkey)
    first_hand = await _hand(c, "proofs_a")
    held = publish(c.store, signer)
    assert held is not None
    await asyncio.sleep(0.01)
    second_hand = await _hand(c, "proofs_b")
    assert publish(c.store, signer) is not None

    # the latest checkpoint, verified under the pinned key
    got = await au.GetCheckpoint(audit_pb2.GetCheckpointRequest())
    latest = open_checkpoint(got.note, pinned)
    assert (latest.size, latest.root) == (got.tree_size, got.root_hash)
    assert latest.time_ms == got.published_at_ms
    assert latest.size > held.size
    # the one held from before, fetched by size, is the same signed note
    old = await au.GetCheckpoint(audit_pb2.GetCheckpointRequest(tree_size=held.size))
    assert old.note == held.note
    held_cp = open_checkpoint(held.note, pinned)

    # the latest extends the held one
    cons = await au.GetConsistencyProof(
        audit_pb2.GetConsistencyProofRequest(old_size=held_cp.size, new_size=latest.size)
    )
    assert cons.proof
    merkle.verify_consistency(
        held_cp.size, latest.size, held_cp.root, latest.root, list(cons.proof)
    )
    with pytest.raises(ProofError):  # the proof is about these roots, not any others
        merkle.verify_consistency(
            held_cp.size, latest.size, latest.root, latest.root, list(cons.proof)
        )
    for o, n in ((0, latest.size), (latest.size, latest.size)):  # trivial cases: no hashes
        r = await au.GetConsistencyProof(
            audit_pb2.GetConsistencyProofRequest(old_size=o, new_size=n)
        )
        assert list(r.proof) == []

    # each hand's seals are in the latest tree; the first hand's in the held one too
    for hid, cp in ((first_hand, latest), (second_hand, latest), (first_hand, held_cp)):
        inc = await au.GetInclusionProof(
            audit_pb2.GetInclusionProofRequest(
                hand_id=hid, tree_size=0 if cp is latest else cp.size
            )
        )
        assert inc.tree_size == cp.size
        assert open_checkpoint(inc.checkpoint_note, pinned) == cp
        seals = {s.seal_id: s for s in c.store.seals_for(hid)}
        assert {x.seal_id for x in inc.leaves} == set(seals) and not inc.pending_seal_ids
        for leaf in inc.leaves:
            # the auditor hashes the seal itself (from an export), not the server's hash
            mine = seal_leaf_hash(seals[leaf.seal_id])
            assert mine == leaf.leaf_hash
            merkle.verify_inclusion(leaf.leaf_index, cp.size, mine, list(leaf.proof), cp.root)
    # the second hand is not in the held tree: its seals are pending there
    inc = await au.GetInclusionProof(
        audit_pb2.GetInclusionProofRequest(hand_id=second_hand, tree_size=held_cp.size)
    )
    assert not inc.leaves and set(inc.pending_seal_ids) == {
        s.seal_id for s in c.store.seals_for(second_hand)
    }

    # bad sizes and ids: INVALID_ARGUMENT (NOT_FOUND for a hand that does not exist)
    size = c.store.tlog_size()
    bad: list[tuple[object, grpc.StatusCode]] = [
        (
            au.GetCheckpoint(audit_pb2.GetCheckpointRequest(tree_size=-1)),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetCheckpoint(audit_pb2.GetCheckpointRequest(tree_size=latest.size + 1)),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetConsistencyProof(
                audit_pb2.GetConsistencyProofRequest(old_size=latest.size, new_size=held_cp.size)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetConsistencyProof(
                audit_pb2.GetConsistencyProofRequest(old_size=1, new_size=size + 1)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetConsistencyProof(audit_pb2.GetConsistencyProofRequest(old_size=-1, new_size=1)),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetInclusionProof(
                audit_pb2.GetInclusionProofRequest(hand_id=first_hand, tree_size=held_cp.size + 1)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetInclusionProof(audit_pb2.GetInclusionProofRequest(hand_id="no\x00hand")),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            au.GetInclusionProof(audit_pb2.GetInclusionProofRequest(hand_id="no_such_hand")),
            grpc.StatusCode.NOT_FOUND,
        ),
    ]
    for call, code in bad:
        with pytest.raises(grpc.aio.AioRpcError) as e:
            await call  # type: ignore[misc]
        assert e.value.code() == code, e.value.details()
    assert c.store.tlog_size() == size  # reads only: nothing was appended


async def test_only_auditors_read_the_log(cluster: Cluster) -> None:
    c = cluster
    await _hand(c, "proofs_roles")
    assert publish(c.store, log_signer(c.keys_dir, create=True)) is not None
    target = f"127.0.0.1:{c.port}"
    for role in (Role.GATEWAY, Role.OPERATOR):
        async with client_channel(target, c.auth.root, role) as ch:
            au = audit_pb2_grpc.AuditServiceStub(ch)
            for call in (
                au.GetCheckpoint(audit_pb2.GetCheckpointRequest()),
                au.GetConsistencyProof(
                    audit_pb2.GetConsistencyProofRequest(old_size=0, new_size=0)
                ),
                au.GetInclusionProof(audit_pb2.GetInclusionProofRequest(hand_id="h")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await call
                assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED, role
                assert "wrong_role" in (e.value.details() or "")
    # the auditor gets in
    r = await c.au.GetCheckpoint(audit_pb2.GetCheckpointRequest())
    assert r.tree_size == c.store.tlog_size()


async def test_the_command_line_fetches_and_verifies_checkpoints_from_the_service(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``croupier checkpoint latest|verify --remote``: an auditor's two commands against
    the audit service, every note opened under the pinned log key; a note signed by
    another key, or a proof of other roots, is refused with a non-zero exit."""
    c = cluster
    signer = log_signer(c.keys_dir, create=True)
    vkey = tmp_path / "log.vkey"
    vkey.write_text(signer.verifier.encode() + "\n", encoding="utf-8")
    await _hand(c, "cli_a")
    assert publish(c.store, signer) is not None
    common = ["--remote", f"127.0.0.1:{c.port}", "--auth-dir", str(c.auth.root)]
    held, latest = tmp_path / "held.cp", tmp_path / "latest.cp"

    def cli(*args: str) -> int:
        return cli_main(["checkpoint", *args, *common, "--log-key", str(vkey)])

    assert await asyncio.to_thread(cli, "latest", "-o", str(held)) == 0
    await asyncio.sleep(0.01)
    await _hand(c, "cli_b")
    assert publish(c.store, signer) is not None
    assert await asyncio.to_thread(cli, "latest", "-o", str(latest)) == 0
    old_cp = open_checkpoint(held.read_text(encoding="utf-8"), signer.verifier)
    new_cp = open_checkpoint(latest.read_text(encoding="utf-8"), signer.verifier)
    assert new_cp.size > old_cp.size == c.store.checkpoint_at(old_cp.size).size
    capsys.readouterr()
    assert await asyncio.to_thread(cli, "verify", str(held), str(latest)) == 0
    assert f"extends checkpoint {old_cp.size}" in capsys.readouterr().out

    # pinned to another log's key: the service's notes are refused
    other = tmp_path / "other.vkey"
    other_signer = NoteSigner("croupier.test/other", FileSigner.from_seed("log", "x", bytes(32)))
    other.write_text(other_signer.verifier.encode() + "\n", encoding="utf-8")
    rc = await asyncio.to_thread(
        cli_main, ["checkpoint", "latest", *common, "--log-key", str(other)]
    )
    assert rc != 0
    assert "croupier:" in capsys.readouterr().err
    # a held checkpoint of a forked log (same size, other root, signed by the same key)
    forged = Checkpoint(old_cp.origin, old_cp.size, bytes(32), old_cp.time_ms).sign(signer)
    fork = tmp_path / "fork.cp"
    fork.write_text(forged, encoding="utf-8")
    assert await asyncio.to_thread(cli, "verify", str(fork), str(latest)) != 0
