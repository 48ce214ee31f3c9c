"""A batch audit checks each shoe stream once (CheckedStreams), by identity only: a shoe
log that is another object, however alike, is checked on its own, and a shoe that fails
is never remembered."""

from __future__ import annotations

import dataclasses

from test_audit_export import HAND, build

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
