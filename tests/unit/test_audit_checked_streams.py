"""A batch audit checks each shoe stream once (CheckedStreams), by identity only: a shoe
log that is another object, however alike, is checked on its own, and a shoe that fails
is never remembered. A vouched shoe's reveal (commitment, seed, order) is worked out
once for the batch, and gives each hand the verdict it gets alone."""

from __future__ import annotations

import dataclasses

import pytest
from test_audit_export import HAND, SHOE, build, rechain, specs_of

from croupier import audit, fair
from croupier.audit import CheckedStreams, StreamLog, audit_hand
from croupier.events import SealVerifier
from croupier.testing import REGISTRY


def test_a_checked_shoe_is_taken_again_only_as_the_same_object() -> None:
    b = build()
    v = SealVerifier(REGISTRY)
    checked = CheckedStreams()
    plain = audit_hand(HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored).to_json_dict()
    first = audit_hand(
        HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, verifier=v, checked=checked
    )
    assert first.ok and first.to_json_dict() == plain
    assert checked.get(b.revealed_shoe) is not None
    again = audit_hand(
        HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, verifier=v, checked=checked
    )
    assert again.to_json_dict() == plain
    # the same events and seals in another log object: not vouched for
    copy = StreamLog(tuple(b.revealed_shoe.events), tuple(b.revealed_shoe.seals))
    assert checked.get(copy) is None


def test_a_tampered_shoe_beside_a_checked_one_still_fails() -> None:
    b = build()
    v = SealVerifier(REGISTRY)
    checked = CheckedStreams()
    assert audit_hand(
        HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, verifier=v, checked=checked
    ).ok
    ev0 = b.revealed_shoe.events[0]
    forged = dataclasses.replace(ev0, payload_bytes=ev0.payload_bytes.replace(b'"', b'"x', 1))
    bad = StreamLog((forged, *b.revealed_shoe.events[1:]), b.revealed_shoe.seals)
    rep = audit_hand(HAND, b.hand, bad, REGISTRY, b.stored, verifier=v, checked=checked)
    assert rep.failed and rep.stream == ev0.stream and rep.seq == 0, rep.to_json_dict()
    assert checked.get(bad) is None
    # and again: a failed shoe is checked (and fails) every time
    rep2 = audit_hand(HAND, b.hand, bad, REGISTRY, b.stored, verifier=v, checked=checked)
    assert rep2.to_json_dict() == rep.to_json_dict()


def test_without_a_verifier_nothing_is_remembered() -> None:
    b = build()
    checked = CheckedStreams()
    assert audit_hand(HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, checked=checked).ok
    assert checked.get(b.revealed_shoe) is None


def _counting_commitments(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    real = fair.commitment

    def counted(seed: bytes) -> bytes:
        seen.append(seed)
        return real(seed)

    monkeypatch.setattr(audit.fair, "commitment", counted)
    return seen


def test_a_vouched_shoe_reveal_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    b = build()
    plain = audit_hand(HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored).to_json_dict()
    seen = _counting_commitments(monkeypatch)
    v = SealVerifier(REGISTRY)
    checked = CheckedStreams()
    for _ in range(3):
        rep = audit_hand(
            HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, verifier=v, checked=checked
        )
        assert rep.to_json_dict() == plain and "fairness" in rep.checks
    assert len(seen) == 1
    # another log object, however alike, is checked and worked out on its own (once)
    copy = StreamLog(tuple(b.revealed_shoe.events), tuple(b.revealed_shoe.seals))
    for _ in range(2):
        rep = audit_hand(HAND, b.hand, copy, REGISTRY, b.stored, verifier=v, checked=checked)
        assert rep.to_json_dict() == plain
    assert len(seen) == 2
    # without a verifier nothing is kept
    for _ in range(2):
        audit_hand(HAND, b.hand, b.revealed_shoe, REGISTRY, b.stored, checked=checked)
    assert len(seen) == 4


def test_a_vouched_shoe_with_a_wrong_reveal_fails_each_hand_alike() -> None:
    b = build()
    specs = specs_of(b.revealed_shoe)
    specs[1] = (specs[1][0], specs[1][1], {**specs[1][2], "server_seed": "ab" * 32})
    bad = rechain(SHOE, specs)
    alone = audit_hand(HAND, b.hand, bad, REGISTRY, b.stored).to_json_dict()
    assert alone["first_bad"]["reason"] == "unfair_deal", alone
    v = SealVerifier(REGISTRY)
    checked = CheckedStreams()
    for _ in range(3):
        rep = audit_hand(HAND, b.hand, bad, REGISTRY, b.stored, verifier=v, checked=checked)
        assert rep.to_json_dict() == alone
    assert checked.get(bad) is not None  # its chain and seals are sound: vouched


def test_an_unrevealed_shoe_stays_pending_when_vouched() -> None:
    b = build()
    v = SealVerifier(REGISTRY)
    checked = CheckedStreams()
    for _ in range(2):
        rep = audit_hand(HAND, b.hand, b.shoe, REGISTRY, b.stored, verifier=v, checked=checked)
        assert rep.verdict.value == "pending_reveal", rep.to_json_dict()
