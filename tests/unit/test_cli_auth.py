"""``croupier auth`` and ``croupier db roles`` from the command line, and a service that
refuses to start without its security material."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest

from croupier.auth import AuthDir, Role, TokenVerifier, identity_from_certificate
from croupier.errors import ConfigError
from croupier_services.cli import main
from croupier_services.config import AuthSettings
from croupier_services.runtime import Node


def test_auth_init_and_issue_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = AuthDir(tmp_path / "auth")
    assert main(["auth", "init", "--dir", str(d.root)]) == 0
    assert d.complete()
    for private in (d.ca_key, d.server_key, d.issuer_key, d.seat_key, d.seed_key):
        assert stat.S_IMODE(private.stat().st_mode) == 0o600, private
    before = d.ca_cert.read_bytes()
    assert main(["auth", "init", "--dir", str(d.root)]) == 0  # keeps what exists
    assert d.ca_cert.read_bytes() == before
    ident = identity_from_certificate(d.client_cert(Role.AUDITOR).read_bytes())
    assert ident is not None and ident.role is Role.AUDITOR
    capsys.readouterr()
    rc = main(["auth", "issue-token", "--dir", str(d.root), "--subject", "gw-7",
               "--role", "gateway", "--ttl", "60"])
    token = capsys.readouterr().out.strip()
    assert rc == 0
    got = TokenVerifier.from_pem(d.issuer_pub.read_bytes()).verify(token)
    assert (got.subject, got.role) == ("gw-7", Role.GATEWAY)
    assert main(["auth", "issue-token", "--dir", str(d.root), "--role", "gateway"]) == 2


def test_db_roles_needs_postgresql(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CROUPIER_DATABASE_URL", f"sqlite:///{tmp_path / 'x.sqlite'}")
    assert main(["db", "roles"]) == 2
    assert "PostgreSQL" in capsys.readouterr().err


def test_auth_grant_and_revoke_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from croupier.store import Store

    url = f"sqlite:///{tmp_path / 'g.sqlite'}"
    monkeypatch.setenv("CROUPIER_DATABASE_URL", url)
    assert main(["auth", "grant", "--table", "t1", "--gateway", "gw-2"]) == 0
    assert main(["auth", "revoke", "--table", "t1", "--gateway", "gw-2"]) == 0
    assert main(["auth", "revoke", "--table", "t1", "--gateway", "gw-2"]) == 0
    out = capsys.readouterr().out
    assert "revoked from gw-2" in out and "was not granted to gw-2" in out
    assert main(["auth", "revoke", "--table", "t1"]) == 2  # no gateway: refused
    assert "revoke needs --table and --gateway" in capsys.readouterr().err
    store = Store.open(url)
    try:
        assert store.table_owners("t1") == frozenset()
        assert [c.change for c in store.grant_changes("t1")] == ["revoke"]
    finally:
        store.close()


def test_a_service_without_its_material_does_not_start(tmp_path: Path) -> None:
    from croupier_services.keys import init_keys

    init_keys(tmp_path / "keys")  # its keys are there; its TLS material is not
    node = Node(
        roles=("audit",),
        database_url=f"sqlite:///{tmp_path / 'x.sqlite'}",
        keys_dir=str(tmp_path / "keys"),
        auth=AuthSettings.from_env(str(tmp_path / "no-auth")),
    )

    async def start() -> None:
        try:
            await node.start()
        finally:
            await node.stop()

    with pytest.raises(ConfigError, match="croupier auth init"):
        asyncio.run(start())


def test_the_viewer_admits_auditors_only() -> None:
    from croupier.auth import TokenIssuer
    from croupier_services.security import viewer_authorizer

    iss = TokenIssuer.generate()
    check = viewer_authorizer(iss.verifier())
    auditor = iss.issue("aud-1", Role.AUDITOR, 60)
    assert check({"authorization": f"Bearer {auditor}"}) == "aud-1"
    assert check({}) is None
    forged = TokenIssuer.generate().issue("x", Role.AUDITOR)
    assert check({"authorization": f"Bearer {forged}"}) is None
    with pytest.raises(PermissionError):
        check({"authorization": f"Bearer {iss.issue('gw', Role.GATEWAY, 60)}"})


def test_the_audit_node_pins_the_log_key_or_does_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit service and viewer of a node take CROUPIER_LOG_KEY; a key file that is
    not there stops the start, nothing served."""
    from croupier.auth import init_dev
    from croupier_services.keys import init_keys

    keys = tmp_path / "keys"
    init_keys(keys)
    auth = init_dev(tmp_path / "auth")

    def node() -> Node:
        return Node(
            roles=("audit",),
            database_url=f"sqlite:///{tmp_path / 'x.sqlite'}",
            keys_dir=str(keys),
            auth=AuthSettings.from_env(str(auth.root)),
        )

    async def start(n: Node) -> None:
        try:
            await n.start()
        finally:
            await n.stop()

    monkeypatch.setenv("CROUPIER_LOG_KEY", str(tmp_path / "missing.vkey"))
    with pytest.raises(ConfigError, match=r"missing\.vkey"):
        asyncio.run(start(node()))
    monkeypatch.setenv("CROUPIER_LOG_KEY", str(keys / "log.vkey"))
    asyncio.run(start(node()))
