"""A hand recorded under settlement record version 1 is shown as recorded: its export,
its text history (from the export file or the store) and its PHH rebuild the settlement
at the stored record's version, as the auditor does - not at the current version."""

from __future__ import annotations

import json
from pathlib import Path

from croupier.audit import StoredSettlement, Verdict, audit_hand
from croupier.export import HandExport, dump, keys_for
from croupier.history import render
from croupier.money.record import RECORD_VERSION
from croupier.settlement import HandSettlement, recorded_version
from croupier.testing import REGISTRY, DealerRun
from croupier_services import reporting

SEATS = [
    {"seat": 1, "player": "p1", "stack": 10**7},
    {"seat": 2, "player": "p2", "stack": 10**7},
]


def export_at(version: int) -> tuple[str, HandSettlement]:
    run = DealerRun("sangong.hundred", seats=SEATS, bets=[(1, "east", 1000), (2, "west", 500)])
    hand = run.open()
    full, hs = run.finish(hand.hand_id, record_version=version)
    shoe = run.stream(run.shoe_of(hand.hand_id))
    x = HandExport(
        hand.hand_id,
        full,
        shoe,
        keys_for(REGISTRY, [*full.seals, *shoe.seals]),
        StoredSettlement(hs.record_bytes, hs.postings),
    )
    return dump(x), hs


def test_a_version_1_hand_is_shown_at_version_1() -> None:
    assert RECORD_VERSION == 2
    text, hs = export_at(1)
    assert hs.record["record_version"] == 1 and hs.record["staked"] == {}
    # the export carries the stored v1 record
    line = json.loads(text.splitlines()[-1])
    assert line["kind"] == "settlement" and line["record"]["record_version"] == 1
    # its history rebuilds the v1 record: the same hash as the stored one
    log = reporting.file_log(text)
    assert log.record_version == 1
    history = render(log)
    assert "Settlement record version: 1" in history
    assert f"Settlement record SHA-256: {hs.record_hash}" in history
    # and the audit of the export agrees
    x = reporting.load(text)
    rep = audit_hand(x.hand_id, x.hand, x.shoe, x.registry(), x.settlement)
    assert rep.verdict is Verdict.PASS and rep.settlement is not None
    assert rep.settlement["record_version"] == 1


def test_a_version_2_hand_is_shown_at_version_2() -> None:
    text, hs = export_at(2)
    history = render(reporting.file_log(text))
    assert "Settlement record version: 2" in history
    assert f"Settlement record SHA-256: {hs.record_hash}" in history
    _, hs1 = export_at(1)
    assert hs1.record_hash != hs.record_hash  # the two versions differ for this hand


def test_the_recorded_version_of_a_stored_record() -> None:
    assert recorded_version(None) == RECORD_VERSION
    assert recorded_version(b'{"record_version":1}') == 1
    assert recorded_version(b'{"record_version":9}') == RECORD_VERSION  # unknown: current
    assert recorded_version(b'{"record_version":true}') == RECORD_VERSION
    assert recorded_version(b"not json") == RECORD_VERSION
    assert recorded_version(b"[1]") == RECORD_VERSION


def test_a_stored_version_1_hand_is_shown_at_version_1(tmp_path: Path) -> None:
    """The same through the store: `croupier hand history ID`, the viewer and the
    export read the stored record's version."""
    from croupier.store import Store
    from croupier.store.events import StreamInfo
    from croupier.store.ledger import LedgerTx, Posting
    from croupier_services.audit import load_hand

    run = DealerRun("sangong.hundred", seats=SEATS, bets=[(1, "east", 1000), (2, "west", 500)])
    hand = run.open()
    full, hs = run.finish(hand.hand_id, record_version=1)
    store = Store.open(f"sqlite:///{tmp_path / 'v1.db'}", upgrade=True)
    try:
        with store.transaction() as tx:
            for b in run.batches:
                streams = [
                    StreamInfo(
                        r.stream_id, r.kind, r.variant, r.table_id, r.shoe_id, r.opened_at_ms
                    )
                    for r in b.streams
                ]
                tx.append(b.events, b.seals, streams)
            kept = {e.hash for b in run.batches for e in b.events}
            tx.append(
                [e for e in full.events if e.hash not in kept],
                [s for s in full.seals if s not in run.stream(hand.hand_id).seals],
            )
            tx_id = tx.post(
                LedgerTx(
                    idempotency_key=hs.idempotency_key,
                    hand_id=hs.hand_id,
                    postings=tuple(Posting(a, n) for a, n in hs.postings),
                    memo={},
                ),
                at_ms=1,
            )
            tx.put_settlement(hs.hand_id, hs.variant, "t1", tx_id, hs.record_bytes, 1)
        log = reporting.stored_log(store, hand.hand_id)
        assert log.record_version == 1
        history = reporting.history(store, hand.hand_id)
        assert "Settlement record version: 1" in history
        assert f"Settlement record SHA-256: {hs.record_hash}" in history
        exported = dump(load_hand(store, hand.hand_id, proofs=False))
        assert json.loads(exported.splitlines()[-1])["record"]["record_version"] == 1
    finally:
        store.engine.dispose()
