"""Canonical bytes, the hash chain, seals, coverage and the key registry."""

from __future__ import annotations

import dataclasses

import orjson
import pytest

from croupier import canonical
from croupier.errors import ChainError, InvalidInput, SignatureError, UnknownKey
from croupier.events import (
    GENESIS,
    Event,
    Seal,
    SealEntry,
    SealVerifier,
    StreamWriter,
    heads_of,
    make_event,
    seal,
    verify_chain,
)
from croupier.signing import FileSigner, KeyRegistry, Signer


@pytest.fixture
def dealer() -> Signer:
    return FileSigner.from_seed("dealer", "dealer-1", bytes(32))


@pytest.fixture
def gateway() -> Signer:
    return FileSigner.from_seed("gateway", "gateway-1", bytes([1]) * 32)


def stream(dealer: Signer, gateway: Signer) -> tuple[list[Event], list[Seal]]:
    w = StreamWriter("t1_h1")
    w.append(dealer, "hand.opened", {"table": "t1", "n": 1})
    s1 = seal(dealer, w.pending[-1:], 1000)
    ev1 = w.take()
    w.append(gateway, "bet.placed", {"seat": 1, "amount": 100, "spot": "banker"})
    w.append(gateway, "bet.placed", {"seat": 2, "amount": 200, "spot": "player"})
    s2 = seal(gateway, w.pending[-1:], 1001)
    ev2 = w.take()
    return ev1 + ev2, [s1, s2]


def registry(*signers: Signer) -> KeyRegistry:
    return KeyRegistry(s.public_entry() for s in signers)


def test_canonical_json_sorts_keys_and_refuses_floats() -> None:
    assert canonical.dumps({"b": 1, "a": "漢"}) == '{"a":"漢","b":1}'.encode()
    with pytest.raises(InvalidInput, match="float"):
        canonical.dumps({"x": 0.5})
    with pytest.raises(InvalidInput):
        canonical.loads(b'{"x": 1.5}')
    assert canonical.is_canonical(b'{"a":1}')
    assert not canonical.is_canonical(b'{"a": 1}')


def test_chain_links_and_hashes(dealer: Signer, gateway: Signer) -> None:
    events, _ = stream(dealer, gateway)
    verify_chain(events)
    assert events[0].prev_hash == GENESIS
    assert [e.seq for e in events] == [0, 1, 2]
    assert events[1].prev_hash == events[0].hash


def test_each_kind_of_break_is_named(dealer: Signer, gateway: Signer) -> None:
    events, _ = stream(dealer, gateway)
    bad_payload = dataclasses.replace(
        events[1], payload_bytes=b'{"amount":999,"seat":1,"spot":"banker"}'
    )
    with pytest.raises(ChainError, match="#1: hash does not match") as e:
        verify_chain([events[0], bad_payload, events[2]])
    assert (e.value.stream, e.value.seq) == ("t1_h1", 1)
    with pytest.raises(ChainError, match="expected seq 1"):
        verify_chain([events[0], events[2]])
    with pytest.raises(ChainError, match="previous hash"):
        verify_chain([events[0], dataclasses.replace(events[1], prev_hash=bytes(32))])
    spaced = dataclasses.replace(events[0], payload_bytes=b'{"n": 1,"table":"t1"}')
    with pytest.raises(ChainError, match="not canonical"):
        verify_chain([spaced])


def test_seals_cover_their_producers_events(dealer: Signer, gateway: Signer) -> None:
    events, seals = stream(dealer, gateway)
    SealVerifier(registry(dealer, gateway)).check_coverage(events, seals)
    # without the gateway seal the bets are not covered
    with pytest.raises(SignatureError, match=r"#1 .*not covered"):
        SealVerifier(registry(dealer, gateway)).check_coverage(events, seals[:1])


def test_a_seal_by_another_producer_does_not_cover(dealer: Signer, gateway: Signer) -> None:
    events, _ = stream(dealer, gateway)
    only_dealer = seal(dealer, events[-1:], 2000)  # dealer seals the head, bets unsigned
    with pytest.raises(SignatureError, match=r"bet\.placed by gateway"):
        SealVerifier(registry(dealer, gateway)).check_coverage(events, [only_dealer])


def test_forged_or_wrong_key_signatures(dealer: Signer, gateway: Signer) -> None:
    events, seals = stream(dealer, gateway)
    forged = dataclasses.replace(seals[1], signature=bytes(64))
    with pytest.raises(SignatureError, match="does not verify"):
        SealVerifier(registry(dealer, gateway)).check_coverage(events, [seals[0], forged])
    impostor = FileSigner.from_seed("gateway", "gateway-1", bytes([9]) * 32)
    fake = seal(impostor, events[-1:], 1001)
    with pytest.raises(SignatureError):
        SealVerifier(registry(dealer, gateway)).check_coverage(events, [seals[0], fake])
    with pytest.raises(UnknownKey):
        SealVerifier(registry(dealer)).check_coverage(events, seals)


def test_a_seal_naming_several_events_is_verified_once_and_refused_at_its_first(
    dealer: Signer, gateway: Signer, monkeypatch: pytest.MonkeyPatch
) -> None:
    events, seals = stream(dealer, gateway)
    both_bets = seal(gateway, events[1:], 1001)  # names seq 1 and seq 2
    reg = registry(dealer, gateway)
    calls: list[str] = []
    real = SealVerifier.verify

    def counted(self: SealVerifier, s: Seal) -> None:
        calls.append(s.key_id)
        real(self, s)

    monkeypatch.setattr(SealVerifier, "verify", counted)
    SealVerifier(reg).check_coverage(events, [seals[0], both_bets])
    assert calls == [dealer.key_id, gateway.key_id]
    forged = dataclasses.replace(both_bets, signature=bytes(64))
    with pytest.raises(SignatureError, match=r"^t1_h1#1: seal by gateway-1: ") as err:
        SealVerifier(reg).check_coverage(events, [seals[0], forged])
    assert err.value.seq == 1


def test_every_event_s_key_is_checked_whatever_came_before(dealer: Signer, gateway: Signer) -> None:
    """Event keys are looked up once per (key id, producer): a later event naming
    another key, or the same key under another producer, is still refused."""
    other = FileSigner.from_seed("gateway", "gateway-2", bytes([2]) * 32)
    reg = registry(dealer, gateway)
    w = StreamWriter("t1_h1")
    w.append(dealer, "hand.opened", {"table": "t1", "n": 1})
    w.append(gateway, "bet.placed", {"seat": 1, "amount": 100, "spot": "banker"})
    w.append(other, "bet.placed", {"seat": 2, "amount": 200, "spot": "player"})
    with pytest.raises(UnknownKey, match=r"t1_h1#2: key id 'gateway-2' is not in the registry"):
        SealVerifier(reg).check_event_keys(w.take())
    rogue = FileSigner(producer="rules", key_id=gateway.key_id, signing_key=gateway.signing_key)
    w = StreamWriter("t1_h1")
    w.append(gateway, "bet.placed", {"seat": 1, "amount": 100, "spot": "banker"})
    w.append(rogue, "bet.placed", {"seat": 2, "amount": 200, "spot": "player"})
    with pytest.raises(UnknownKey, match=r"t1_h1#1 \(bet\.placed by rules\) names key"):
        SealVerifier(reg).check_event_keys(w.take())


def test_key_validity_window_and_producer_binding(dealer: Signer) -> None:
    reg = KeyRegistry([dealer.public_entry(valid_from_ms=100, valid_to_ms=200)])
    e = make_event("s", 0, "x", "dealer", dealer.key_id, GENESIS, {})
    SealVerifier(reg).verify(seal(dealer, [e], 150))
    with pytest.raises(UnknownKey, match="not valid"):
        SealVerifier(reg).verify(seal(dealer, [e], 200))
    rogue = FileSigner(producer="rules", key_id=dealer.key_id, signing_key=dealer.signing_key)
    with pytest.raises(UnknownKey, match="belongs to dealer"):
        SealVerifier(reg).verify(seal(rogue, [e], 150))


def test_signatures_are_domain_separated(dealer: Signer) -> None:
    e = make_event("s", 0, "x", "dealer", dealer.key_id, GENESIS, {})
    s = seal(dealer, [e], 1)
    body = s.signed_body()
    assert dealer.sign("seal", body) == s.signature
    assert dealer.sign("other", body) != s.signature


def test_seal_naming_a_hash_not_in_the_chain(dealer: Signer, gateway: Signer) -> None:
    events, seals = stream(dealer, gateway)
    other = make_event("t1_h1", 2, "bet.placed", "gateway", gateway.key_id, events[1].hash, {})
    with pytest.raises(SignatureError, match="not in the chain"):
        SealVerifier(registry(dealer, gateway)).check_coverage(
            events, [seals[0], seal(gateway, [other], 5)]
        )


def test_json_round_trip(dealer: Signer, gateway: Signer) -> None:
    events, seals = stream(dealer, gateway)
    back = [Event.from_json_dict(e.to_json_dict()) for e in events]
    assert back == events
    assert [Seal.from_json_dict(s.to_json_dict()) for s in seals] == seals
    with pytest.raises(InvalidInput):
        Event.from_json_dict({"stream": "x"})
    assert (
        KeyRegistry.from_json(registry(dealer).to_json()).get("dealer-1") == dealer.public_entry()
    )


def test_pickle_round_trip(dealer: Signer, gateway: Signer) -> None:
    """Events and seals cross to the dealer's writer process pickled as their fields
    (:class:`croupier.picklable.ByFields`): every field comes back, in its place."""
    import pickle

    events, seals = stream(dealer, gateway)
    back = pickle.loads(pickle.dumps((events, seals)))
    assert back == (events, seals)
    assert [e.recompute_hash() for e in back[0]] == [e.hash for e in events]
    for cls, value in ((Event, events[1]), (SealEntry, seals[1].entries[0])):
        names = [f.name for f in dataclasses.fields(cls)]
        assert [getattr(pickle.loads(pickle.dumps(value)), n) for n in names] == [
            getattr(value, n) for n in names
        ]


def copied_signature(events: list[Event], seals: list[Seal], gateway: Signer) -> tuple[Event, Seal]:
    """A forged bet, and the genuine gateway seal's signature carried over the forged
    bet's chain head instead of the genuine one."""
    forged_bet = make_event(
        "t1_h1",
        1,
        "bet.placed",
        "gateway",
        gateway.key_id,
        events[0].hash,
        {"seat": 1, "amount": 100_000, "spot": "banker"},
    )
    copied = dataclasses.replace(
        seals[1], entries=(dataclasses.replace(seals[1].entries[0], seq=1, hash=forged_bet.hash),)
    )
    return forged_bet, copied


def test_a_copied_signature_on_other_entries_is_refused_after_the_genuine_seal(
    dealer: Signer, gateway: Signer
) -> None:
    """The verifier remembers verified seals; a forged seal that carries a genuine seal's
    signature over other entries must not ride on that memory."""
    events, seals = stream(dealer, gateway)
    v = SealVerifier(registry(dealer, gateway))
    v.check_coverage(events, seals)  # the genuine seals, now remembered
    forged_bet, copied = copied_signature(events, seals, gateway)
    assert copied.signature == seals[1].signature
    with pytest.raises(SignatureError, match="does not verify"):
        v.verify(copied)
    with pytest.raises(SignatureError, match="does not verify"):
        v.check_coverage([events[0], forged_bet], [seals[0], copied])
    later = dataclasses.replace(seals[1], sealed_at_ms=seals[1].sealed_at_ms + 1)
    with pytest.raises(SignatureError, match="does not verify"):
        v.verify(later)
    v.verify(seals[1])  # the genuine one still passes


def test_bus_messages_reuse_a_seal_only_when_its_whole_content_comes_again(
    dealer: Signer, gateway: Signer
) -> None:
    """A batch seal travels in every message of its hands and is rebuilt once; a message
    whose seal carries the same signature, producer, key and time over other entries
    gets its own seal, which then fails verification as it should."""
    from croupier.bus import wire

    events, seals = stream(dealer, gateway)
    data = wire.encode("hand", events, seals)
    first, again = wire.decode(data), wire.decode(data)
    assert first == again and first.events == tuple(events) and first.seals == tuple(seals)
    assert all(a is b for a, b in zip(first.seals, again.seals, strict=True))  # reused
    forged_bet, copied = copied_signature(events, seals, gateway)
    forged = wire.decode(wire.encode("hand", [events[0], forged_bet], [seals[0], copied]))
    assert forged.seals[1] == copied and forged.seals[1] != first.seals[1]
    v = SealVerifier(registry(dealer, gateway))
    v.check_coverage(list(first.events), list(first.seals))
    with pytest.raises(SignatureError, match="does not verify"):
        v.check_coverage(list(forged.events), list(forged.seals))
    # the wire encoding is the standard library's compact JSON of the events' and seals'
    # JSON forms, byte for byte (payloads spliced in as their canonical bytes)
    import json

    cn = make_event(
        "t8_h1",
        0,
        "hand.opened",
        "dealer",
        dealer.key_id,
        bytes(32),
        {"玩家": "张三", "note": 'q"\\\u0001', "nested": {"b": [1, -2], "a": None}},
    )
    for evs, ss in ((events, seals), ([cn], [])):
        body = {
            "kind": "hand",
            "events": [e.to_json_dict() for e in evs],
            "seals": [x.to_json_dict() for x in ss],
        }
        wire_bytes = wire.encode("hand", evs, ss)
        assert wire_bytes == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        assert wire.decode(wire_bytes).events == tuple(evs)
    # a payload integer beyond 64 bits still travels (the standard library's path)
    big = make_event("t9_h1", 0, "hand.opened", "dealer", dealer.key_id, bytes(32), {"n": 2**70})
    back = wire.decode(wire.encode("hand", [big], []))
    assert back.events == (big,) and back.events[0].payload["n"] == 2**70
    with pytest.raises(InvalidInput, match="malformed seal"):
        wire.decode(b'{"kind": "hand", "events": [], "seals": [{"producer": "x"}]}')
    with pytest.raises(InvalidInput, match="malformed bus message"):
        wire.decode(b'{"kind": "hand", "events": [')


def test_a_decoded_message_carries_its_parse_and_the_chain_check_takes_it(
    dealer: Signer, gateway: Signer
) -> None:
    """The decoder builds each event's bytes as the canonical encoding of the payload it
    parsed, so that parse travels with the message and the chain check returns it
    unparsed; a payload changed in transit still fails the hash, parse or not."""
    from croupier.bus import wire

    events, seals = stream(dealer, gateway)
    m = wire.decode(wire.encode("hand", events, seals))
    assert m.payloads is not None
    assert [canonical.dumps(p) for p in m.payloads] == [e.payload_bytes for e in events]
    got = verify_chain(m.events, m.payloads)
    assert got == verify_chain(m.events) and all(
        a is b for a, b in zip(got, m.payloads, strict=True)
    )
    with pytest.raises(InvalidInput, match="2 parsed payloads for 3 events"):
        verify_chain(m.events, m.payloads[:2])
    body = orjson.loads(wire.encode("hand", events, seals))
    body["events"][1]["payload"]["amount"] = 999_999  # the hash left as it was
    tampered = wire.decode(orjson.dumps(body))
    for parsed in (tampered.payloads, None):
        with pytest.raises(ChainError, match="hash does not match"):
            verify_chain(tampered.events, parsed)


def test_the_verifier_remembers_a_bounded_number_of_seals(dealer: Signer, gateway: Signer) -> None:
    """Past its ``cache`` of seals the oldest half is forgotten (whole seals and
    version-2 parts alike); a forgotten seal is verified again, and still passes."""
    assert SealVerifier(registry(dealer)).cache == SealVerifier.CACHE == 1_024
    v = SealVerifier(registry(dealer, gateway), cache=8)
    seals = []
    for i in range(20):
        events = []
        for h in (f"h{i}", f"g{i}"):  # two hands: a part carries one of them
            w = StreamWriter(h)
            w.append(dealer, "hand.opened", {"n": i})
            events += w.take()
        s = seal(dealer, heads_of(events), 1_000 + i)
        seals.append(s)
        v.verify(s)
        part = s.part_for({f"h{i}"})
        assert part is not None and part.part is not None
        v.verify(part)
        assert len(v._ok) <= 8 and len(v._parts) <= 8
    assert seals[0].signature not in v._ok  # forgotten ...
    v.verify(seals[0])  # ... and verified anew
    assert seals[0].signature in v._ok


@pytest.mark.parametrize("number", [b"1.5", b"1E5", b"-2e-3", b"1e+2", b"0.0", b"1e400", b"NaN"])
def test_a_bus_message_with_a_float_in_a_payload_is_refused(dealer: Signer, number: bytes) -> None:
    """However the sender spells a float (orjson's parse, or the standard library's when
    orjson declines), the decoded event is refused: canonical JSON has no floats."""
    from croupier.bus import wire

    ev = make_event("t1_h1", 0, "hand.opened", "dealer", dealer.key_id, bytes(32), {"x": 1})
    data = wire.encode("hand", [ev], [])
    assert b'{"x":1}' in data
    with pytest.raises(InvalidInput, match="float"):
        wire.decode(data.replace(b'{"x":1}', b'{"x":[0,' + number + b"]}"))


def test_a_bus_message_with_strings_that_look_like_floats_decodes(dealer: Signer) -> None:
    from croupier.bus import wire

    payload = {"at": "06:42:41.362", "ids": ["1.5", "e-1", ",2e+3"], "n": [1, -2]}
    ev = make_event("t1_h1", 0, "hand.opened", "dealer", dealer.key_id, bytes(32), payload)
    back = wire.decode(wire.encode("hand", [ev], []))
    assert back.events == (ev,) and back.events[0].payload == payload


def _others(signer: Signer, n: int) -> list[Event]:
    """Heads of ``n`` other streams, for a seal of many entries."""
    return [
        make_event(f"{signer.producer}_h{i}", 0, "x", signer.producer, signer.key_id, GENESIS, {})
        for i in range(n)
    ]


@pytest.mark.parametrize("many", [0, SealVerifier.INDEX_FROM + 4])
def test_seals_of_many_entries_are_checked_as_seals_of_few(
    dealer: Signer, gateway: Signer, many: int
) -> None:
    """A seal of many entries is looked up by stream (an index kept per seal); what it
    covers and what it refuses are the same as for a seal read whole, and the same
    verifier asked again about other streams of the same seal answers for each."""
    events, _ = stream(dealer, gateway)
    d_others, g_others = _others(dealer, many), _others(gateway, many)
    seals = [
        seal(dealer, [*d_others[: many // 2], events[0], *d_others[many // 2 :]], 1000),
        seal(gateway, [*g_others, events[-1]], 1001),
    ]
    v = SealVerifier(registry(dealer, gateway))
    for _ in range(2):  # the second time through the kept index
        v.check_coverage(events, seals)
        for e in d_others[:3]:
            v.check_coverage([e], seals)
        with pytest.raises(SignatureError, match=r"#1 .*not covered"):
            v.check_coverage(events, seals[:1])
    # a seal naming the stream at a hash not in the chain, among many others
    other = make_event("t1_h1", 2, "bet.placed", "gateway", gateway.key_id, events[1].hash, {})
    with pytest.raises(SignatureError, match="t1_h1#2 with a hash not in the chain"):
        v.check_coverage(events, [seals[0], seal(gateway, [*g_others, other], 5)])
    # a seal with its signature replaced is refused, though its index is kept
    forged = dataclasses.replace(seals[1], signature=bytes(64))
    with pytest.raises(SignatureError, match="does not verify"):
        v.check_coverage(events, [seals[0], forged])
