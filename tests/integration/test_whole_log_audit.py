"""The whole-log audit (``croupier audit --all``) over a real store filled by the
running cluster: an untouched log passes, and each attack on the history is named —
a deleted hand, an inserted hand or ledger transaction, a voided hand, a hand hidden by
editing ``streams`` — while an authorised void passes. The transparency log's
checkpoints, held by the auditor, show what the reconciliation alone could not (a
deleted seal), and ``croupier checkpoint verify`` refuses a rewritten log even when the
log's own key signed it."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from croupier.audit import Finding
from croupier.events import Event, Seal, heads_of, make_event, seal
from croupier.games import base as g
from croupier.pb.croupier.v1 import gateway_pb2
from croupier.signing import FileSigner
from croupier.store import LedgerTx, Posting, StreamInfo
from croupier.tlog.note import Checkpoint, NoteSigner
from croupier_services import cli
from croupier_services.audit import LogAudit

from .harness import VARIANT, Cluster, metric, now_ms, seat_entries, unique_table

pytestmark = pytest.mark.integration

BETS = [(1, "banker", 10_000), (2, "player", 20_000), (3, "tie", 5_000)]
LOG = NoteSigner(
    "croupier.test/log", FileSigner.from_seed("log", "croupier.test/log", bytes([5]) * 32)
)


async def _history(c: Cluster, n: int = 4) -> tuple[str, list[str]]:
    """``n`` settled coups at one table, the table closed (its shoe revealed)."""
    c.fix_seeds("wholelog")
    table = await c.open_table("wl")
    hands = [await c.play_hand(table, bets=BETS) for _ in range(n)]
    await c.wait_settled(n)
    await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=table))
    return table, hands


def _audit(c: Cluster, held: Checkpoint | None = None) -> LogAudit:
    return c.auditor().audit_log(log_key=LOG.verifier, held=held)


def _named(la: LogAudit, reason: str) -> list[Finding]:
    return [f for f in la.findings if f.reason == reason]


@contextmanager
def _behind_its_back(c: Cluster) -> Iterator[Connection]:
    """A connection that writes past the append-only triggers, as a database
    administrator could."""
    with c.store.engine.begin() as conn:
        if c.store.dialect == "sqlite":
            for (name,) in conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'"
            ).all():
                conn.exec_driver_sql(f'DROP TRIGGER IF EXISTS "{name}"')
        else:
            conn.exec_driver_sql("SET LOCAL session_replication_role = replica")
        yield conn


def _delete_hand(conn: Connection, hand: str) -> None:
    """Remove a settled hand whole: its events, seals, stream, settlement and ledger."""
    tx = conn.execute(
        sa.text("SELECT tx_id FROM ledger_transactions WHERE hand_id = :h"), {"h": hand}
    ).scalar_one()
    for sql in (
        "DELETE FROM seal_heads WHERE stream_id = :h",
        "DELETE FROM events WHERE stream_id = :h",
        "DELETE FROM settlements WHERE hand_id = :h",
        f"DELETE FROM ledger_postings WHERE tx_id = {int(tx)}",
        "DELETE FROM ledger_transactions WHERE hand_id = :h",
        "DELETE FROM streams WHERE stream_id = :h",
    ):
        conn.execute(sa.text(sql), {"h": hand})


def _checkpoint(c: Cluster, tmp: Path, name: str) -> tuple[Path, Checkpoint]:
    cp = c.store.publish_checkpoint(LOG, now_ms(), force=True)
    assert cp is not None
    path = tmp / name
    path.write_text(cp.note, encoding="utf-8")
    return path, Checkpoint(LOG.name, cp.size, cp.root)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    rc = cli.main(list(argv))
    return rc, capsys.readouterr().out


async def test_an_untouched_log_passes_and_checkpoints_stay_consistent(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = cluster
    _, hands = await _history(c, 3)
    old_path, old = _checkpoint(c, tmp_path, "old.cp")
    la = _audit(c, held=old)
    assert la.ok and la.findings == [] and la.counts["pass"] == 3, la.to_json_dict()
    assert la.log_size == c.store.tlog_size() and la.checkpoints_checked == 2

    # more history, a newer checkpoint: consistent with the old one
    t2 = await c.open_table("wl2")
    await c.play_hand(t2, bets=BETS)
    await c.wait_settled(4)
    new_path, new = _checkpoint(c, tmp_path, "new.cp")
    assert new.size > old.size
    vkey = tmp_path / "log.vkey"
    vkey.write_text(LOG.verifier.encode() + "\n", encoding="utf-8")
    c.cli_env(monkeypatch)
    rc, out = _cli(
        capsys, "checkpoint", "verify", str(old_path), str(new_path), "--log-key", str(vkey)
    )
    assert rc == 0 and f"checkpoint {new.size}" in out, out

    # the operator's log key signs a rewritten history at the same size as ``new``: the
    # store's consistency proof cannot link it to ``old``
    forged = Checkpoint(LOG.name, new.size, bytes(32)).sign(LOG)
    fpath = tmp_path / "forged.cp"
    fpath.write_text(forged, encoding="utf-8")
    rc, _ = _cli(capsys, "checkpoint", "verify", str(old_path), str(fpath), "--log-key", str(vkey))
    assert rc == 1

    # the command line, for machines: one JSON document, ok means PASS everywhere
    rc, out = _cli(
        capsys, "audit", "--all", "--json", "--log-key", str(vkey), "--checkpoint", str(old_path)
    )
    doc = json.loads(out)
    # the second table is still open: its shoe is not revealed, so its hand is pending
    assert rc == 0 and doc["ok"] is False and doc["failures"] == []
    assert doc["totals"]["pending_reveal"] == 1 and doc["totals"]["pass"] == 3
    assert [p["verdict"] for p in doc["pending"]] == ["pending_reveal"]

    # an export carries proofs that verify against the held checkpoint
    exp = tmp_path / "h.jsonl"
    rc, _ = _cli(capsys, "hand", "export", hands[0], "-o", str(exp), "--size", str(old.size))
    assert rc == 0
    rc, out = _cli(
        capsys, "audit", "--file", str(exp), "--log-key", str(vkey), "--checkpoint", str(old_path)
    )
    assert rc == 0 and json.loads(out)["log"]["verified"] is True, out
    # ... and one seal rewritten in the export (its signature kept) is not in the log
    lines = exp.read_text(encoding="utf-8").splitlines()
    i = next(n for n, line in enumerate(lines) if '"kind": "seal"' in line)
    d = json.loads(lines[i])
    d["sealed_at_ms"] += 1
    lines[i] = json.dumps(d, ensure_ascii=False, sort_keys=True)
    exp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, out = _cli(
        capsys, "audit", "--file", str(exp), "--log-key", str(vkey), "--checkpoint", str(old_path)
    )
    assert rc == 1 and json.loads(out)["log"]["verified"] is False


async def test_a_deleted_hand_is_named(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = cluster
    _, (h1, h2, h3, _) = await _history(c)
    cp_path, held = _checkpoint(c, tmp_path, "held.cp")
    only_h2 = [s.seal_id for s in c.store.seals_for(h2) if {e.stream for e in s.entries} == {h2}]
    assert only_h2
    with _behind_its_back(c) as conn:
        _delete_hand(conn, h2)
    la = _audit(c, held)
    gap = _named(la, "hand_number_gap")
    assert [f.hand_id for f in gap] == [h2], la.to_json_dict()
    assert h1 in gap[0].message and h3 in gap[0].message
    assert any(f.reason == "shoe_order" and f.hand_id == h3 for f in la.findings)
    assert not la.failed  # every remaining hand is fine on its own: only the whole log shows it

    # deleting its seals too (and their leaves) breaks the log the auditor holds a
    # checkpoint of
    with _behind_its_back(c) as conn:
        for sid in only_h2:
            conn.execute(sa.text("DELETE FROM tlog_leaves WHERE seal_id = :s"), {"s": sid})
            conn.execute(sa.text("DELETE FROM seals WHERE seal_id = :s"), {"s": sid})
    la = _audit(c, held)
    assert any(f.reason.startswith("log_") for f in la.findings), la.to_json_dict()

    vkey = tmp_path / "log.vkey"
    vkey.write_text(LOG.verifier.encode(), encoding="utf-8")
    c.cli_env(monkeypatch)
    rc, out = _cli(capsys, "audit", "--all", "--log-key", str(vkey), "--checkpoint", str(cp_path))
    assert rc == 1
    assert f"FAIL {h2}: hand_number_gap" in out and "audit FAILED" in out, out


async def test_an_inserted_hand_and_an_inserted_transaction_are_named(cluster: Cluster) -> None:
    c = cluster
    table, (_, h2, _, _) = await _history(c)
    # a forger holding every key copies hand 2 under a new id, through the store's own
    # API (so the log appends it and stays consistent with every checkpoint)
    src = c.store.read_stream(h2)
    forged_id = f"{table}_h2x"
    events: list[Event] = []
    prev = src[0].prev_hash
    for e in src:
        ne = make_event(forged_id, e.seq, e.type, e.producer, e.key_id, prev, e.payload)
        events.append(ne)
        prev = ne.hash
    seals: list[Seal] = [
        seal(c.signers[p], heads_of([e for e in events if e.producer == p]), now_ms())
        for p in sorted({e.producer for e in events})
    ]
    info = c.store.stream_info(h2)
    c.store.append(
        events,
        seals,
        [StreamInfo(forged_id, "hand", VARIANT, table, info.shoe_id, info.opened_at_ms)],
    )
    settled = next(e for e in events if e.type == g.HAND_SETTLED).payload
    c.store.post(
        LedgerTx(
            f"settle:{forged_id}",
            forged_id,
            tuple(Posting(a, n) for a, n in settled["postings"]),
        ),
        now_ms(),
    )
    # and a transaction for no hand at all
    c.store.post(
        LedgerTx(
            "settle:ghost", "ghost", (Posting("player:x", 500), Posting("house:baccarat", -500))
        ),
        now_ms(),
    )
    la = _audit(c)
    assert [f.hand_id for f in _named(la, "hand_number_duplicate")] == [forged_id]
    assert any(f.reason == "shoe_order" for f in la.findings)
    assert [f.hand_id for f in _named(la, "ledger_orphan")] == ["ghost"]
    assert [f.hand_id for f in _named(la, "settlement_tx_mismatch")] == [forged_id]
    bal = {f.account: f.amount for f in _named(la, "balance_mismatch")}
    assert bal == {"player:x": 500, "house:baccarat": -500}, la.to_json_dict()


async def test_a_voided_hand_is_named_unless_authorised(cluster: Cluster) -> None:
    c = cluster
    _, (_, h2, h3, _) = await _history(c)
    settle2 = c.store.transaction_for(h2)
    c.store.void(h2, "goodwill", now_ms())
    # h3's void is authorised: settlement signs a hand.voided in the hand's own log
    last = c.store.read_stream(h3)[-1]
    sig = c.signers["settlement"]
    ev = make_event(
        h3,
        last.seq + 1,
        g.HAND_VOIDED,
        sig.producer,
        sig.key_id,
        last.hash,
        {"reason": "dealer error", "reverses": "settle"},
    )
    with c.store.transaction() as uow:
        uow.append([ev], [seal(sig, [ev], now_ms())])
        uow.void(h3, "dealer error", now_ms())
    la = _audit(c)
    assert [f.hand_id for f in _named(la, "void_unauthorised")] == [h2], la.to_json_dict()
    # the ledger no longer holds what hand 2 settled: each account named, by how much
    bal = {f.account: f.amount for f in _named(la, "balance_mismatch")}
    assert bal == {p.account: -p.amount for p in settle2.postings if p.amount}
    assert bal  # the hand moved money
    assert all(f.hand_id != h3 for f in la.findings)
    assert la.counts["fail"] == 0 and la.counts["pass"] == 4  # h3 still audits (void event skipped)


async def test_a_hand_hidden_by_editing_streams_is_named(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    c = cluster
    table, (_, h2, _, _) = await _history(c)
    with _behind_its_back(c) as conn:  # streams is append-only: an administrator's trick
        conn.execute(
            sa.text("UPDATE streams SET table_id = 'elsewhere' WHERE stream_id = :h"), {"h": h2}
        )
    c.cli_env(monkeypatch)
    rc, out = _cli(capsys, "audit", "--table", table, "--json")
    assert rc == 0 and json.loads(out)["totals"]["hands"] == 3  # the table audit is blind to it
    rc, out = _cli(capsys, "audit", "--all", "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["ok"] is False
    named = [f for f in doc["failures"] if f.get("reason") == "stream_row_mismatch"]
    assert [f["hand_id"] for f in named] == [h2] and "elsewhere" in named[0]["message"]
    assert doc["totals"]["hands"] == 4


async def test_events_of_a_stream_nobody_registered_are_named(cluster: Cluster) -> None:
    """``events`` carries no foreign key to ``streams`` (migration 0014): a row written
    past the recorder for a stream the table does not register is stored, and the
    whole-log audit names its stream; the hands around it still pass."""
    c = cluster
    await _history(c, n=2)
    sig = c.signers["dealer"]
    ghost = make_event("ghost-stream", 0, g.SHOE_OPENED, sig.producer, sig.key_id, b"\0" * 32, {})
    with c.store.engine.begin() as conn:  # a plain INSERT: no trigger or key refuses it
        conn.execute(
            sa.text(
                "INSERT INTO events (stream_id, seq, type, producer, key_id, prev_hash, hash, "
                "payload, table_id) VALUES (:s, 0, :t, :p, :k, :ph, :h, :pl, 'nowhere')"
            ),
            {
                "s": ghost.stream,
                "t": ghost.type,
                "p": ghost.producer,
                "k": ghost.key_id,
                "ph": ghost.prev_hash,
                "h": ghost.hash,
                "pl": b"{}",
            },
        )
    la = _audit(c)
    named = _named(la, "stream_unregistered")
    assert [f.stream for f in named] == ["ghost-stream"], la.to_json_dict()
    assert [f.reason for f in la.findings] == ["stream_unregistered"]
    assert la.counts["fail"] == 0 and la.counts["pass"] == 2


async def test_a_players_client_seed_through_the_gateway(cluster_factory: Any) -> None:
    """The gateway passes the player's own client seed with the bet; the hand settles
    and audits PASS with the order drawn from it; a shoe game refuses one."""
    c: Cluster = await cluster_factory(variants=("videopoker.lucky5", VARIANT))
    table = unique_table("vp")
    await c.gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="videopoker.lucky5"))
    h = await c.gw.OpenHand(
        gateway_pb2.OpenHandRequest(table_id=table, seats=seat_entries(table, 1))
    )
    assert len(h.commitment) == 32  # seen before the seed is chosen
    await c.gw.PlaceBets(
        gateway_pb2.PlaceBetsRequest(
            hand_id=h.hand_id,
            bets=[gateway_pb2.Bet(seat=1, spot="main", amount_minor=1000)],
            client_seed="player-own-seed",
        )
    )
    await c.gw.CloseBetting(gateway_pb2.CloseBettingRequest(hand_id=h.hand_id))
    await c.gw.Act(gateway_pb2.ActRequest(hand_id=h.hand_id, seat=1, action="draw"))
    await c.wait_settled(1)
    rep = c.auditor().audit(h.hand_id)
    assert rep.verdict.value == "pass", rep.to_json_dict()
    shoe = c.store.read_stream(h.shoe_id)
    given = [e.payload["client_seed"] for e in shoe if e.type == g.SHOE_CLIENT_SEED]
    assert given == ["player-own-seed"]
    # baccarat deals many hands from one shoe: no per-player seed
    t2 = await c.open_table("bac")
    h2 = await c.gw.OpenHand(gateway_pb2.OpenHandRequest(table_id=t2, seats=seat_entries(t2, 1)))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await c.gw.PlaceBets(
            gateway_pb2.PlaceBetsRequest(
                hand_id=h2.hand_id,
                bets=[gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1000)],
                client_seed="mine",
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_parallel_audit_reports_exactly_what_one_process_does(
    cluster: Cluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``croupier audit --jobs 2`` forks workers over batches of hands; with batches of
    two hands the report (text and JSON, failures included) is the same as ``--jobs 1``."""
    from croupier_services import audit as audit_mod

    c = cluster
    _, (_, h2, _, h4, _) = await _history(c, 5)
    await c.open_table("wlopen")  # a second table: more streams and a pending shoe
    with _behind_its_back(c) as conn:
        _delete_hand(conn, h2)
        # h4 loses its last event: a failure of that hand alone
        conn.execute(
            sa.text(
                "DELETE FROM events WHERE stream_id = :h AND seq = "
                "(SELECT MAX(seq) FROM events WHERE stream_id = :h)"
            ),
            {"h": h4},
        )
    monkeypatch.setattr(audit_mod, "BATCH", 2)
    one = _audit(c)
    auditor = c.auditor()
    assert gc.get_freeze_count() == 0  # the suite collects everything (test_upkeep thaws)
    counted = {v: metric("croupier_audit_hands_total", verdict=v) for v in ("pass", "fail")}
    mismatches = metric("croupier_audit_mismatches_total")
    reps = auditor.audit_range(list(auditor.hand_ids()), jobs=2)
    first = next(reps)
    # while the workers run the parent's heap is out of collections (theirs included) ...
    assert gc.get_freeze_count() > 0
    got = [first, *reps]
    # ... and after it, the collector's again
    assert gc.get_freeze_count() == 0
    # each report counted once, by its verdict, a batch's verdicts together
    for v in ("pass", "fail"):
        n = sum(r.verdict.value == v for r in got)
        assert metric("croupier_audit_hands_total", verdict=v) - counted[v] == n, v
    assert metric("croupier_audit_mismatches_total") - mismatches == 1  # h4
    # without records: the same verdicts and checks; a passing report drops the outcome
    # and record it recomputed (a forked worker does not send them), a failing one keeps
    # all it had
    full = {r.hand_id: r for r in auditor.audit_range(list(auditor.hand_ids()))}
    for jobs in (1, 2):
        lean = list(auditor.audit_range(list(auditor.hand_ids()), jobs=jobs, records=False))
        assert [(r.hand_id, r.verdict, r.checks) for r in lean] == [
            (h, r.verdict, r.checks) for h, r in full.items()
        ]
        assert any(r.ok for r in lean) and any(r.failed for r in lean)
        for r in lean:
            if r.ok:
                assert r.outcome is None and r.settlement is None
                assert full[r.hand_id].outcome and full[r.hand_id].settlement
            else:
                assert r == full[r.hand_id]
    two = auditor.audit_log(log_key=LOG.verifier, jobs=2)
    assert gc.get_freeze_count() == 0
    assert one.to_json_dict() == two.to_json_dict()
    assert [r.hand_id for r in two.failed] == [h4], two.to_json_dict()
    assert _named(two, "hand_number_gap"), two.to_json_dict()

    vkey = tmp_path / "log.vkey"
    vkey.write_text(LOG.verifier.encode(), encoding="utf-8")
    c.cli_env(monkeypatch)
    for extra in ((), ("--json",)):
        outs = []
        for jobs in ("1", "2"):
            rc, out = _cli(capsys, "audit", "--all", "--log-key", str(vkey), "--jobs", jobs, *extra)
            assert rc == 1, out
            outs.append(out)
        assert outs[0] == outs[1]
        assert h4 in outs[0] and "hand_number_gap" in outs[0]
    rc, out = _cli(capsys, "audit", "--variant", VARIANT, "--jobs", "2", "--json")
    rc1, out1 = _cli(capsys, "audit", "--variant", VARIANT, "--jobs", "1", "--json")
    assert (rc, out) == (rc1, out1) and json.loads(out)["totals"]["hands"] >= 4


async def test_without_records_a_failing_hand_keeps_what_it_recomputed(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``audit_range(records=False)`` (the whole-log audit's) drops only a passing hand's
    recomputed outcome and record: a hand failing at its ledger, after both were
    recomputed, keeps them, in one process and from forked workers alike."""
    from croupier_services import audit as audit_mod

    c = cluster
    _, hands = await _history(c, 3)
    with _behind_its_back(c) as conn:
        tx = conn.execute(
            sa.text("SELECT tx_id FROM ledger_transactions WHERE hand_id = :h"), {"h": hands[1]}
        ).scalar_one()
        first, second = (
            conn.execute(
                sa.text("SELECT account FROM ledger_postings WHERE tx_id = :t ORDER BY account"),
                {"t": tx},
            )
            .scalars()
            .all()[:2]
        )
        for account, by in ((first, 1), (second, -1)):  # still zero-sum: only the hand's check
            conn.execute(
                sa.text(
                    "UPDATE ledger_postings SET amount = amount + :by "
                    "WHERE tx_id = :t AND account = :a"
                ),
                {"by": by, "t": tx, "a": account},
            )
    monkeypatch.setattr(audit_mod, "BATCH", 1)  # a batch a hand: forked workers for 3
    auditor = c.auditor()
    full = {r.hand_id: r for r in auditor.audit_range(hands)}
    assert full[hands[1]].reason == "ledger_mismatch", full[hands[1]]
    assert full[hands[1]].outcome and full[hands[1]].settlement
    for jobs in (1, 2):
        lean = {r.hand_id: r for r in auditor.audit_range(hands, jobs=jobs, records=False)}
        assert lean[hands[1]] == full[hands[1]]
        for h in (hands[0], hands[2]):
            assert lean[h].ok and lean[h].outcome is None and lean[h].settlement is None


async def test_the_log_is_audited_in_the_order_it_opened_its_hands(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole-log audit takes its hands in the order the log opened them, not by id:
    coups of two tables played in turn are batched as they were played (a batch's hands
    share the same few seals), and what is not in the log comes last."""
    from croupier_services import audit as audit_mod

    c = cluster
    c.fix_seeds("logorder")
    tz, ta = await c.open_table("wlz"), await c.open_table("wla")
    played = [await c.play_hand(t, bets=BETS) for _ in range(3) for t in (tz, ta)]
    await c.wait_settled(6)
    for t in (tz, ta):
        await c.gw.CloseTable(gateway_pb2.CloseTableRequest(table_id=t))
    auditor = c.auditor()
    opened = [p.event.stream for p in c.store.tail(0, 10_000) if p.event.type == g.HAND_OPENED]
    assert opened == played and sorted(opened) != opened  # ids sort the tables apart
    batches: list[list[str]] = []
    audit_many = audit_mod.Auditor.audit_many

    def spied(self: Any, ids: Any, facts: Any = None, records: bool = True) -> Any:
        batches.append(list(ids))
        return audit_many(self, ids, facts, records)

    monkeypatch.setattr(audit_mod.Auditor, "audit_many", spied)
    monkeypatch.setattr(audit_mod, "BATCH", 2)
    la = _audit(c)
    assert not la.has_failures and la.total == 6, la.to_json_dict()
    assert batches == [played[i : i + 2] for i in range(0, 6, 2)]
    assert auditor.in_log_order([*reversed(opened), "nope", opened[0]]) == [*opened, "nope"]


async def test_an_edited_running_total_is_named(
    cluster: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    c = cluster
    await _history(c, 2)
    assert not _named(_audit(c), "totals_mismatch")
    with _behind_its_back(c) as conn:
        conn.execute(
            sa.text(
                "UPDATE ledger_totals SET total = total + 1 "
                "WHERE account = (SELECT MIN(account) FROM ledger_totals)"
            )
        )
    [f] = _named(_audit(c), "totals_mismatch")
    assert f.account is not None and f.account in c.store.summed_balances()
    c.cli_env(monkeypatch)
    rc, out = _cli(capsys, "audit", "--all")
    assert rc == 1 and "totals_mismatch" in out and "audit FAILED" in out, out
