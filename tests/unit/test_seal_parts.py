"""Version-2 seals: the signature covers the RFC 6962 root over the entries, and a bus
message carries only its own hand's entries with their audit paths. A part verifies
against the same signature; a part that was altered, or a copied signature over other
entries, is refused; version-1 seals verify as before."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import canonical
from croupier.bus import wire
from croupier.errors import InvalidInput, SignatureError
from croupier.events import (
    GENESIS,
    SEAL_ENTRY_TAG,
    Event,
    Seal,
    SealPart,
    SealVerifier,
    make_event,
    seal,
)
from croupier.signing import FileSigner, KeyRegistry, Signer
from croupier.tlog import leaf_data
from croupier.tlog.merkle import mth

DEALER = FileSigner.from_seed("dealer", "dealer-1", bytes(32))


@pytest.fixture
def dealer() -> Signer:
    return DEALER


def heads(n: int, signer: Signer) -> list[Event]:
    return [
        make_event(f"t1_h{i}", 0, "hand.opened", "dealer", signer.key_id, GENESIS, {"n": i})
        for i in range(n)
    ]


def verifier(*signers: Signer) -> SealVerifier:
    return SealVerifier(KeyRegistry(s.public_entry() for s in signers))


def test_a_new_seal_signs_the_root_of_its_entries(dealer: Signer) -> None:
    evs = heads(5, dealer)
    s = seal(dealer, evs, 1_000)
    assert s.version == 2 and s.part is None and s.size == 5
    # the root by RFC 6962's recursive definition over the entries' leaf data
    raw = [SEAL_ENTRY_TAG + canonical.dumps([e.stream, e.seq, e.hash.hex()]) for e in evs]
    assert s.root() == mth(raw)
    body = canonical.loads(s.signed_body())
    assert body == {
        "key_id": "dealer-1",
        "producer": "dealer",
        "root": mth(raw).hex(),
        "sealed_at_ms": 1_000,
        "size": 5,
        "v": 2,
    }
    assert dealer.sign("seal", s.signed_body()) == s.signature
    verifier(dealer).verify(s)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 70), data=st.data())
def test_every_part_verifies_and_covers_its_hand(n: int, data: st.DataObject) -> None:
    dealer = DEALER
    evs = heads(n, dealer)
    s = seal(dealer, evs, 1_000)
    v = verifier(dealer)
    picked = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=min(n, 4)))
    streams = {evs[i].stream for i in picked}
    p = s.part_for(streams)
    assert p is not None
    assert {e.stream for e in p.entries} == streams
    if len(picked) < n:
        assert p.part is not None and p.part.size == n
        assert [i for i, _ in p.part.paths] == sorted(picked)
    else:
        assert p is s  # every entry: the whole seal
    v.verify(p)
    for i in picked:
        v.check_coverage([evs[i]], [p])
    again = Seal.from_json_dict(canonical.loads(canonical.dumps(p.to_json_dict())))
    assert again == p
    v.verify(again)


def test_an_altered_part_is_refused(dealer: Signer) -> None:
    evs = heads(9, dealer)
    s = seal(dealer, evs, 1_000)
    p = s.part_for({evs[3].stream})
    assert p is not None and p.part is not None
    e = p.entries[0]
    index, path = p.part.paths[0]
    forged_hash = dataclasses.replace(p, entries=(dataclasses.replace(e, hash=b"\x07" * 32),))
    moved = dataclasses.replace(p, part=SealPart(9, ((index + 1, path),)))
    resized = dataclasses.replace(p, part=SealPart(10, ((index, path),)))
    short = dataclasses.replace(p, part=SealPart(9, ((index, path[:-1]),)))
    for bad in (forged_hash, moved, resized, short):
        v = verifier(dealer)
        v.verify(p)  # the genuine part first: its signature is remembered
        with pytest.raises(SignatureError):
            v.verify(bad)


def test_a_copied_signature_over_another_tree_is_refused(dealer: Signer) -> None:
    """A forger who saw a genuine part builds a tree of their own (same size, a forged
    entry at the same index) and carries the genuine signature: the root differs, so the
    remembered verification does not apply and the signature does not verify."""
    evs = heads(4, dealer)
    genuine = seal(dealer, evs, 1_000)
    rogue = FileSigner.from_seed("dealer", "dealer-1", bytes([9]) * 32)
    fake_heads = [
        *evs[:2],
        make_event("t1_h2", 0, "hand.opened", "dealer", "dealer-1", GENESIS, {"n": 99}),
        evs[3],
    ]
    forged = seal(rogue, fake_heads, 1_000)
    fp = forged.part_for({"t1_h2"})
    assert fp is not None
    fp = dataclasses.replace(fp, signature=genuine.signature)
    v = verifier(dealer)
    gp = genuine.part_for({"t1_h2"})
    assert gp is not None
    v.verify(gp)
    with pytest.raises(SignatureError, match="does not verify"):
        v.verify(fp)


def test_version_1_seals_verify_and_travel_whole(dealer: Signer) -> None:
    evs = heads(3, dealer)
    entries = seal(dealer, evs, 5).entries
    body = Seal.body("dealer", "dealer-1", 5, entries)
    v1 = Seal("dealer", "dealer-1", 5, entries, dealer.sign("seal", body))
    assert v1.version == 1 and v1.signed_body() == body
    verifier(dealer).verify(v1)
    assert v1.part_for({evs[0].stream}) is v1
    d = v1.to_json_dict()
    assert "v" not in d and "paths" not in d  # the exported form (and the log's leaf) as before
    assert Seal.from_json_dict(d) == v1
    assert b'"v"' not in leaf_data(v1)
    # the same entries signed as version 1 do not pass as version 2, nor the reverse
    with pytest.raises(SignatureError):
        verifier(dealer).verify(dataclasses.replace(v1, version=2))
    v2 = seal(dealer, evs, 5)
    with pytest.raises(SignatureError):
        verifier(dealer).verify(dataclasses.replace(v2, version=1))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"v": 3}, "unknown seal version"),
        ({"v": True}, "unknown seal version"),
        ({"v": 1, "size": 4, "paths": [[0, []]]}, "only a version-2 seal"),
        ({"size": 0}, "positive integer"),
        ({"size": True}, "positive integer"),
        ({"paths": []}, "audit paths"),
        ({"paths": [[0, ["zz"]]]}, "malformed seal"),
    ],
)
def test_malformed_parts_are_refused(dealer: Signer, change: dict[str, object], match: str) -> None:
    evs = heads(4, dealer)
    p = seal(dealer, evs, 5).part_for({evs[1].stream})
    assert p is not None
    d = {**p.to_json_dict(), **change}
    with pytest.raises(InvalidInput, match=match):
        Seal.from_json_dict(d)


def test_a_message_carries_only_its_hand_of_a_batch_seal(dealer: Signer) -> None:
    evs = heads(50, dealer)
    s = seal(dealer, evs, 1_000)
    other = seal(dealer, heads(3, dealer)[1:], 1_001)  # names none of the message's hand
    whole_v1 = dataclasses.replace(
        s,
        version=1,
        signature=dealer.sign("seal", Seal.body("dealer", "dealer-1", 1_000, s.entries)),
    )
    msg = wire.encode("hand", [evs[7]], [s, other])
    m = wire.decode(msg)
    assert len(m.seals) == 1  # the seal naming no event of the message is left out
    (p,) = m.seals
    assert p.part is not None and [e.stream for e in p.entries] == [evs[7].stream]
    verifier(dealer).check_coverage(m.events, m.seals)
    old = wire.encode("hand", [evs[7]], [whole_v1])
    assert len(msg) * 4 < len(old)  # 1 entry and 6 hashes of path against 50 entries
    # forwarded again (the rule service passes the dealer's parts on), still verifiable
    again = wire.decode(wire.encode("outcome", m.events, m.seals))
    assert again.seals == m.seals


def test_seal_builds_either_version_and_no_other(dealer: Signer) -> None:
    evs = heads(3, dealer)
    v1 = seal(dealer, evs, 5, version=1)
    assert v1.version == 1 and v1.signed_body() == Seal.body("dealer", "dealer-1", 5, v1.entries)
    verifier(dealer).verify(v1)
    with pytest.raises(InvalidInput, match="unknown seal version"):
        seal(dealer, evs, 5, version=3)
