"""The root-signed keyring, the key files of ``croupier keys``, key validity judged by a
witness's time, and reloading a keyring while running."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from croupier.errors import ConfigError, InvalidInput, SignatureError, UnknownKey
from croupier.events import GENESIS, SealVerifier, make_event, seal
from croupier.keyring import Keyring, RootKey, TrustRoot, key_valid_at, trusted_registry
from croupier.signing import FileSigner, KeyRegistry, Signer
from croupier_services import cli
from croupier_services import keys as k

ROOT = RootKey(SigningKey(bytes([7]) * 32))
DEALER = FileSigner.from_seed("dealer", "dealer-k1", bytes([1]) * 32)
RULES = FileSigner.from_seed("rules", "rules-k1", bytes([3]) * 32)


def ring(*entries: object, version: int = 1) -> Keyring:
    es = list(entries) or [DEALER.public_entry(), RULES.public_entry()]
    return ROOT.sign(es, version=version, issued_at_ms=0)  # type: ignore[arg-type]


def test_a_keyring_verifies_only_under_its_root_and_unchanged() -> None:
    kr = ring()
    kr.verify(ROOT.trust_root)
    assert trusted_registry(kr, ROOT.trust_root).get("dealer-k1").producer == "dealer"
    other = RootKey(SigningKey(bytes([8]) * 32)).trust_root
    with pytest.raises(UnknownKey, match="not by the pinned root") as e:
        kr.verify(other)
    assert e.value.reason == "untrusted_keyring"
    # a key added to a signed keyring (a rogue entry) breaks the root's signature
    rogue = FileSigner.generate("dealer").public_entry()
    grown = dataclasses.replace(kr, entries=(*kr.entries, rogue))
    with pytest.raises(UnknownKey, match="does not verify"):
        grown.verify(ROOT.trust_root)
    # so does a revocation taken out, or a producer swapped
    revoked = ROOT.sign(kr.ending("dealer-k1", revoked_at_ms=50), version=2, issued_at_ms=50)
    unrevoked = dataclasses.replace(revoked, entries=kr.entries)
    with pytest.raises(UnknownKey, match="does not verify"):
        unrevoked.verify(ROOT.trust_root)
    # round trip through its text form
    again = Keyring.from_text(revoked.to_text())
    again.verify(ROOT.trust_root)
    assert again == revoked and again.get("dealer-k1").revoked_at_ms == 50
    assert TrustRoot.from_text(ROOT.trust_root.to_text()) == ROOT.trust_root
    with pytest.raises(InvalidInput, match="does not match"):
        TrustRoot.from_text(
            ROOT.trust_root.to_text().replace(ROOT.trust_root.key_id, "root-00000000")
        )


def test_key_validity_is_judged_by_the_witness_not_the_signer() -> None:
    kr = ROOT.sign(ring().ending("dealer-k1", revoked_at_ms=1_000), version=2, issued_at_ms=1_000)
    reg = kr.registry()
    assert key_valid_at(reg, "dealer-k1", 999) and not key_valid_at(reg, "dealer-k1", 1_000)
    assert kr.key_valid_at("rules-k1", 10**12) and not kr.key_valid_at("nobody", 5)
    e = make_event("s", 0, "hand.opened", "dealer", DEALER.key_id, GENESIS, {})
    backdated = seal(DEALER, [e], 500)  # signed after the revocation, dated before it
    # a witness that saw it after the revocation (a consumer's receipt, a checkpoint)
    with pytest.raises(UnknownKey, match="revoked at 1000") as err:
        SealVerifier(reg, seen_at=lambda s: 2_000).verify(backdated)
    assert err.value.reason == "revoked_key"
    # nobody but the signer dates it: a revoked key's seal does not pass
    with pytest.raises(UnknownKey, match="nothing but its signer"):
        SealVerifier(reg).verify(backdated)
    # witnessed before the revocation: a genuine old seal stays valid
    SealVerifier(reg, seen_at=lambda s: 600).verify(backdated)
    # a seal dated outside its key's signing period never passes
    late = dataclasses.replace(DEALER.public_entry(), valid_from_ms=700)
    with pytest.raises(UnknownKey, match="not valid at 500"):
        SealVerifier(KeyRegistry([late]), seen_at=lambda s: 800).verify(backdated)


def test_an_event_names_a_key_of_its_own_producer() -> None:
    """Key binding: a rules key cannot write (or seal) a dealer's event."""
    reg = ring().registry()
    e = make_event("s", 0, "hand.opened", "dealer", RULES.key_id, GENESIS, {})
    as_dealer = FileSigner("dealer", RULES.key_id, RULES.signing_key)
    with pytest.raises(UnknownKey, match="names key rules-k1 of rules") as err:
        SealVerifier(reg).check_coverage([e], [seal(as_dealer, [e], 1)])
    assert err.value.reason == "wrong_key"
    ok = make_event("s", 0, "hand.opened", "dealer", DEALER.key_id, GENESIS, {})
    with pytest.raises(UnknownKey, match="belongs to rules, not dealer"):
        SealVerifier(reg).check_coverage([ok], [seal(as_dealer, [ok], 1)])
    with pytest.raises(SignatureError, match="not covered by a dealer seal"):
        SealVerifier(reg).check_coverage([ok], [seal(RULES, [ok], 1)])


def test_signer_is_a_seam() -> None:
    """Any object with producer, key id, public key and sign is a Signer (a KMS key)."""

    @dataclasses.dataclass(frozen=True)
    class Remote:
        producer: str
        key_id: str
        inner: FileSigner

        @property
        def public_key(self) -> bytes:
            return self.inner.public_key

        def sign(self, domain: str, body: bytes) -> bytes:
            return self.inner.sign(domain, body)

    remote: Signer = Remote("dealer", "dealer-k1", DEALER)
    assert isinstance(remote, Signer)
    e = make_event("s", 0, "hand.opened", "dealer", "dealer-k1", GENESIS, {})
    SealVerifier(ring().registry()).check_coverage([e], [seal(remote, [e], 1)])


# -- key files ---------------------------------------------------------------------------


def test_an_empty_keys_folder_stops_a_service_and_nothing_is_made(tmp_path: Path) -> None:
    empty = tmp_path / "keys"
    empty.mkdir()
    for service, first in (("dealer", "dealer.key"), ("rules", "rules.key")):
        with pytest.raises(ConfigError, match=f"no key file .*{first}"):
            k.load_service_signers(empty, service)
    assert list(empty.iterdir()) == []
    assert k.load_service_signers(empty, "audit") == {}  # the auditor holds no key


def test_init_rotate_revoke(tmp_path: Path) -> None:
    d = tmp_path / "keys"
    root = tmp_path / "offline" / "root.key"
    made = k.init_keys(d, root_key=root, at_ms=1_000)
    assert sorted(made.created) == ["dealer", "gateway", "log", "rules", "settlement"]
    assert (d / "log.key").is_file() and (d / "log.vkey").is_file()  # the publisher's key
    assert not (d / "root.key").exists() and root.exists()
    assert TrustRoot.load(d / "trust-root.pub") == made.root
    assert made.keyring.version == 1 and len(made.keyring.entries) == 4
    # each service gets only its own keys
    assert set(k.load_service_signers(d, "dealer")) == {"dealer", "gateway"}
    assert set(k.load_service_signers(d, "rules")) == {"rules"}
    again = k.init_keys(d, root_key=root, at_ms=2_000)
    assert again.created == () and again.keyring == made.keyring
    old = k.load_service_signers(d, "rules")["rules"]
    new, rotated = k.rotate_key(d, "rules", root_key=root, grace_ms=100, at_ms=5_000)
    assert rotated.keyring.version == 2
    assert k.load_service_signers(d, "rules")["rules"].key_id == new.key_id != old.key_id
    assert rotated.keyring.get(old.key_id).valid_to_ms == 5_100
    assert rotated.keyring.get(new.key_id).valid_from_ms == 5_000
    revoked = k.revoke_key(d, old.key_id, root_key=root, at_ms=4_000)
    assert revoked.keyring.version == 3
    assert revoked.keyring.get(old.key_id).revoked_at_ms == 4_000
    Keyring.load(d / "keyring.json").verify(made.root)
    # without the root key nothing can be signed
    with pytest.raises(ConfigError, match="no root key"):
        k.revoke_key(d, new.key_id)


def test_keys_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "keys"
    assert cli.main(["keys", "init", "--dir", str(d)]) == 0
    out = capsys.readouterr().out
    assert "keyring v1 signed by root-" in out and "trust-root.pub" in out
    assert cli.main(["keys", "rotate", "--dir", str(d), "--producer", "settlement"]) == 0
    assert "keyring v2" in capsys.readouterr().out
    kid = k.load_service_signers(d, "settlement")["settlement"].key_id
    assert cli.main(["keys", "revoke", "--dir", str(d), "--key-id", kid, "--at-ms", "9"]) == 0
    assert f"{kid} " in capsys.readouterr().out
    assert Keyring.load(d / "keyring.json").get(kid).revoked_at_ms == 9
    assert cli.main(["keys", "revoke", "--dir", str(d)]) == 2


def test_a_running_holder_reloads_a_newer_keyring_and_never_an_older_one(
    tmp_path: Path,
) -> None:
    d = tmp_path / "keys"
    made = k.init_keys(d, at_ms=1_000)
    now = [0.0]
    trust = k.TrustedKeys(made.root, d / "keyring.json", refresh_s=5, clock=lambda: now[0])
    dealer_id = made.keyring.producer_keys("dealer")[0].key_id
    v1 = (d / "keyring.json").read_text()
    k.revoke_key(d, dealer_id, at_ms=2_000)
    assert not trust.refresh()  # not yet time to look
    now[0] = 6
    assert trust.refresh() and trust.version == 2
    assert trust.registry.get(dealer_id).revoked_at_ms == 2_000
    # a stale copy put back (replaying the keyring from before the revocation) is ignored
    (d / "keyring.json").write_text(v1)
    os.utime(d / "keyring.json", ns=(1, 1))
    assert not trust.refresh(force=True) and trust.version == 2
    # and so is a keyring the root did not sign
    forged = json.loads(v1)
    forged["version"] = 99
    (d / "keyring.json").write_text(json.dumps(forged))
    assert not trust.refresh(force=True) and trust.version == 2


def test_the_checkpoint_witness_asks_the_log_once_per_included_seal() -> None:
    """The first checkpoint that included a seal never changes: the witness looks it up
    once per seal (a commit's seal covers many hands); a seal in no checkpoint yet is
    asked again, since a later checkpoint may include it."""
    from dataclasses import dataclass

    from croupier.tlog.note import Checkpoint, NoteSigner
    from croupier.tlog.witness import CheckpointWitness

    @dataclass
    class Stored:
        note: str

    kr = ROOT.sign(ring().ending("dealer-k1", revoked_at_ms=1_000), version=2, issued_at_ms=1_000)
    log = NoteSigner(
        "croupier.test/log", FileSigner.from_seed("log", "croupier.test/log", b"\x09" * 32)
    )
    note = Checkpoint("croupier.test/log", 3, b"\x07" * 32, time_ms=600).sign(log)
    e = make_event("s", 0, "hand.opened", "dealer", DEALER.key_id, GENESIS, {})
    included, pending = seal(DEALER, [e], 500), seal(DEALER, [e], 501)
    asked: list[str] = []

    def first_including(seal_id: str) -> Stored | None:
        asked.append(seal_id)
        return Stored(note) if seal_id == included.seal_id else None

    w = CheckpointWitness(kr.registry(), first_including, log.verifier)
    assert [w(included) for _ in range(3)] == [600, 600, 600]
    assert [w(pending) for _ in range(2)] == [None, None]
    assert asked == [included.seal_id, pending.seal_id, pending.seal_id]
    assert w.lookups == 3
