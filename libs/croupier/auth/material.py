"""Security material on disk and the development set ``croupier auth init`` writes.

One folder (``CROUPIER_AUTH_DIR``, default ``var/auth``) holds, by fixed names:

* ``ca.pem`` / ``ca.key``: the certificate authority (dev only; keep its key offline);
* ``server.pem`` / ``server.key``: the gRPC servers' TLS certificate (every service);
* ``<role>.pem`` / ``<role>.key``: a client certificate per role, CN the subject and OU
  the role (gateway, auditor, operator);
* ``issuer.key`` / ``issuer.pub``: the Ed25519 identity-token issuer (the key stays with
  the operator; every service holds the public half);
* ``<role>.token``: an identity token per role;
* ``seat.key``: the seat-token HMAC key (dealer only);
* ``seed.key``: the SecretBox key that seals unrevealed server seeds (dealer only).

Certificates are ECDSA P-256, made with ``cryptography``; private keys are written
``0600``. Generating a set never overwrites a file that exists.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from croupier.auth.tokens import Role, TokenIssuer

SERVER_NAMES = (
    "localhost",
    "dealer",
    "rules",
    "settlement",
    "audit",
    "croupier-dealer",
    "croupier-settlement",
    "croupier-audit",
    "nats",
    "nats-1",
    "nats-2",
    "nats-3",
    "nats-0.nats-headless",
    "nats-1.nats-headless",
    "nats-2.nats-headless",
)
DEV_SUBJECTS = {Role.GATEWAY: "gateway-dev", Role.AUDITOR: "auditor-dev", Role.OPERATOR: "ops-dev"}


@dataclass(frozen=True)
class AuthDir:
    """The fixed file names inside an auth folder."""

    root: Path

    @property
    def ca_cert(self) -> Path:
        return self.root / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.root / "ca.key"

    @property
    def server_cert(self) -> Path:
        return self.root / "server.pem"

    @property
    def server_key(self) -> Path:
        return self.root / "server.key"

    @property
    def issuer_key(self) -> Path:
        return self.root / "issuer.key"

    @property
    def issuer_pub(self) -> Path:
        return self.root / "issuer.pub"

    @property
    def seat_key(self) -> Path:
        return self.root / "seat.key"

    @property
    def seed_key(self) -> Path:
        return self.root / "seed.key"

    def client_cert(self, role: Role) -> Path:
        return self.root / f"{role.value}.pem"

    def client_key(self, role: Role) -> Path:
        return self.root / f"{role.value}.key"

    def token(self, role: Role) -> Path:
        return self.root / f"{role.value}.token"

    def complete(self) -> bool:
        return all(
            p.exists() for p in (self.ca_cert, self.server_cert, self.server_key, self.issuer_pub)
        )


def _write(path: Path, data: bytes, private: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if private:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    else:
        path.write_bytes(data)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _name(cn: str, ou: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Croupier")]
    if ou:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def _validity(days: int) -> tuple[dt.datetime, dt.datetime]:
    now = dt.datetime.now(dt.UTC)
    return now - dt.timedelta(minutes=5), now + dt.timedelta(days=days)


def make_ca(days: int = 365) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    start, end = _validity(days)
    name = _name("Croupier dev CA")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return cert, key


def make_leaf(
    ca: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    cn: str,
    *,
    role: str | None = None,
    server_names: tuple[str, ...] = (),
    days: int = 365,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A server certificate (``server_names`` as DNS/IP SANs) or a client certificate
    whose CN is the caller's subject and OU its role."""
    key = ec.generate_private_key(ec.SECP256R1())
    start, end = _validity(days)
    b = (
        x509.CertificateBuilder()
        .subject_name(_name(cn, role))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    )
    if server_names:
        sans: list[x509.GeneralName] = []
        for n in (*server_names, "127.0.0.1"):
            try:
                sans.append(x509.IPAddress(ipaddress.ip_address(n)))
            except ValueError:
                sans.append(x509.DNSName(n))
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        # client use too: a container's health probe presents the server's own
        # certificate (it names no role, so it reaches only the open health service)
        usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    else:
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH]
    b = b.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    return b.sign(ca_key, hashes.SHA256()), key


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def init_dev(root: Path, *, token_ttl_s: int = 30 * 86_400) -> AuthDir:
    """Write a complete development set into ``root``, keeping any file already there."""
    d = AuthDir(root)
    root.mkdir(parents=True, exist_ok=True)
    if d.ca_cert.exists() and d.ca_key.exists():
        ca = x509.load_pem_x509_certificate(d.ca_cert.read_bytes())
        loaded = serialization.load_pem_private_key(d.ca_key.read_bytes(), password=None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        ca_key = loaded
    else:
        ca, ca_key = make_ca()
        _write(d.ca_key, _key_pem(ca_key), private=True)
        _write(d.ca_cert, _pem(ca))
    if not d.server_cert.exists():
        cert, key = make_leaf(ca, ca_key, "croupier", server_names=SERVER_NAMES)
        _write(d.server_key, _key_pem(key), private=True)
        _write(d.server_cert, _pem(cert))
    for role, subject in DEV_SUBJECTS.items():
        if not d.client_cert(role).exists():
            cert, key = make_leaf(ca, ca_key, subject, role=role.value)
            _write(d.client_key(role), _key_pem(key), private=True)
            _write(d.client_cert(role), _pem(cert))
    if d.issuer_key.exists():
        issuer = TokenIssuer.from_pem(d.issuer_key.read_bytes())
    else:
        issuer = TokenIssuer.generate()
        _write(d.issuer_key, issuer.private_pem(), private=True)
    if not d.issuer_pub.exists():
        _write(d.issuer_pub, issuer.public_pem())
    for role, subject in DEV_SUBJECTS.items():
        if not d.token(role).exists():
            _write(d.token(role), issuer.issue(subject, role, token_ttl_s).encode(), private=True)
    for path in (d.seat_key, d.seed_key):
        if not path.exists():
            _write(path, secrets.token_bytes(32), private=True)
    return d
