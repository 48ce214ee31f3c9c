"""Producer keys, the root-signed keyring and the pinned trust root on disk.

A keys directory made by ``croupier keys init`` holds:

- ``<producer>.key``: one producer's private key (``dealer``, ``gateway``, ``rules``,
  ``settlement``), mounted only into that producer's service (the dealer also signs as
  ``gateway``: it hosts the gateway API);
- ``keyring.json``: the root-signed keyring (public keys, validity, revocations), for
  every service and auditor;
- ``trust-root.pub``: the root's public key, pinned by every service and auditor;
- ``log.key``: the checkpoint publisher's note key (``serve log`` only), and ``log.vkey``,
  its public half that auditors pin (``croupier audit --log-key``);
- ``root.key``: the root's private key. Nobody online needs it: move it offline
  (``--root-key FILE`` points the key commands at it).

No service ever creates a key: :func:`load_service_signers` refuses to start a service
whose key file is missing, naming the file. :class:`TrustedKeys` is the keyring a running
service trusts: verified under the pinned root, reloaded when the file changes (checked
at most every ``refresh_s`` seconds, and at once when a seal names a key it does not
know), never replaced by a lower version, so a revocation reaches running consumers
without a restart.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from croupier.errors import ConfigError, CroupierError, InvalidInput
from croupier.keyring import Keyring, RootKey, TrustRoot, new_entry, revoked_signers
from croupier.signing import PRODUCERS, FileSigner, KeyRegistry, load_signer, save_signer
from croupier_services import config
from croupier_services.tlog import create_log_key

log = logging.getLogger("croupier.keys")

KEYRING_FILE = "keyring.json"
TRUST_ROOT_FILE = "trust-root.pub"
ROOT_KEY_FILE = "root.key"

SERVICE_PRODUCERS: dict[str, tuple[str, ...]] = {
    "dealer": ("dealer", "gateway"),  # the dealer hosts the gateway API and signs its actions
    "rules": ("rules",),
    "settlement": ("settlement",),
    "audit": (),
    "log": (),  # the checkpoint publisher holds only the log's note key (croupier.tlog)
}
"""The producer keys each service holds, and no other."""

TRUST_ROOT_ENV = config.TRUST_ROOT.name
KEYRING_ENV = config.KEYRING.name


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def key_path(directory: Path, producer: str) -> Path:
    return directory / f"{producer}.key"


@dataclass(frozen=True)
class KeysDir:
    """What ``keys init|rotate|revoke`` wrote."""

    directory: Path
    keyring: Keyring
    root: TrustRoot
    created: tuple[str, ...]


def _root(directory: Path, root_key: Path | None, *, create: bool) -> RootKey:
    path = root_key or directory / ROOT_KEY_FILE
    if path.exists():
        return RootKey.load(path)
    if not create:
        raise ConfigError(f"no root key at {path} (give --root-key FILE)")
    rk = RootKey.generate()
    rk.save(path)
    return rk


def _write(directory: Path, rk: RootKey, keyring: Keyring) -> None:
    keyring.verify(rk.trust_root)
    tmp = directory / (KEYRING_FILE + ".tmp")
    tmp.write_text(keyring.to_text(), encoding="utf-8")
    os.replace(tmp, directory / KEYRING_FILE)  # atomic: a reader never sees half a file
    (directory / TRUST_ROOT_FILE).write_text(rk.trust_root.to_text(), encoding="utf-8")


def _current(directory: Path, rk: RootKey) -> Keyring | None:
    path = directory / KEYRING_FILE
    if not path.exists():
        return None
    kr = Keyring.load(path)
    kr.verify(rk.trust_root)
    return kr


def init_keys(
    directory: Path,
    *,
    root_key: Path | None = None,
    producers: Sequence[str] = PRODUCERS,
    at_ms: int | None = None,
    log_key: bool = True,
) -> KeysDir:
    """Create the root key (if missing), every missing producer key, and a keyring that
    holds them all, signed by the root; write ``trust-root.pub``; with ``log_key``, also
    the checkpoint publisher's ``log.key`` and its public ``log.vkey`` (what auditors pin
    with ``--log-key``; not in the keyring: it signs checkpoints, not seals). Running it again adds
    nothing that exists (an existing key stays; a new one gets a new keyring version)."""
    directory.mkdir(parents=True, exist_ok=True)
    rk = _root(directory, root_key, create=True)
    t = now_ms() if at_ms is None else at_ms
    kr = _current(directory, rk)
    entries = list(kr.entries) if kr else []
    known = {e.key_id for e in entries}
    created = []
    for p in producers:
        path = key_path(directory, p)
        if path.exists():
            s = load_signer(path)
        else:
            s = FileSigner.generate(p)
            save_signer(s, directory)
            created.append(p)
        if s.key_id not in known:
            entries.append(new_entry(s.public_key, p, s.key_id, 0 if kr is None else t))
            known.add(s.key_id)
    if kr is None or len(entries) != len(kr.entries):
        kr = rk.sign(entries, version=1 if kr is None else kr.version + 1, issued_at_ms=t)
    _write(directory, rk, kr)
    if log_key and create_log_key(directory):  # the publisher's note key, and log.vkey
        created.append("log")
    return KeysDir(directory, kr, rk.trust_root, tuple(created))


def rotate_key(
    directory: Path,
    producer: str,
    *,
    root_key: Path | None = None,
    grace_ms: int = 300_000,
    at_ms: int | None = None,
) -> tuple[FileSigner, KeysDir]:
    """A new key for ``producer`` (its file replaced), valid from now; the old key stops
    signing ``grace_ms`` later (hands in flight still settle). The old key is retired,
    not revoked: its earlier seals stay valid. Revoke it as well if it leaked."""
    if producer not in PRODUCERS:
        raise InvalidInput(f"unknown producer {producer!r}; one of {PRODUCERS}")
    rk = _root(directory, root_key, create=False)
    kr = _current(directory, rk)
    if kr is None:
        raise ConfigError(f"no keyring in {directory}: run `croupier keys init` first")
    t = now_ms() if at_ms is None else at_ms
    entries = list(kr.entries)
    path = key_path(directory, producer)
    if path.exists():
        old = load_signer(path)
        entries = kr.ending(old.key_id, valid_to_ms=t + grace_ms)
    new = FileSigner.generate(producer)
    entries.append(new_entry(new.public_key, producer, new.key_id, t))
    kr = rk.sign(entries, version=kr.version + 1, issued_at_ms=t)
    save_signer(new, directory)
    _write(directory, rk, kr)
    return new, KeysDir(directory, kr, rk.trust_root, (producer,))


def revoke_key(
    directory: Path, key_id: str, *, root_key: Path | None = None, at_ms: int | None = None
) -> KeysDir:
    """Revoke ``key_id`` from ``at_ms`` (default now; give the time of the compromise if
    known): from then on nothing it signs passes, whatever date the seal carries."""
    rk = _root(directory, root_key, create=False)
    kr = _current(directory, rk)
    if kr is None:
        raise ConfigError(f"no keyring in {directory}: run `croupier keys init` first")
    t = now_ms() if at_ms is None else at_ms
    kr = rk.sign(kr.ending(key_id, revoked_at_ms=t), version=kr.version + 1, issued_at_ms=t)
    _write(directory, rk, kr)
    return KeysDir(directory, kr, rk.trust_root, ())


def load_service_signers(directory: Path, service: str) -> dict[str, FileSigner]:
    """The private keys of ``service``'s own producers, and no other. A missing file is
    a :class:`ConfigError` naming it; nothing is created."""
    out: dict[str, FileSigner] = {}
    for p in SERVICE_PRODUCERS[service]:
        path = key_path(directory, p)
        if not path.is_file():
            raise ConfigError(
                f"{service}: no key file {path} for producer {p!r}; a service never creates "
                "keys: mount its key (see `croupier keys init`)"
            )
        s = load_signer(path)
        if s.producer != p:
            raise ConfigError(f"{path} holds a {s.producer!r} key, not {p!r}")
        out[p] = s
    return out


def trust_root_path(directory: Path, explicit: str | None = None) -> Path:
    """The pinned root: ``explicit``, else ``CROUPIER_TRUST_ROOT``, else
    ``<keys dir>/trust-root.pub``."""
    return Path(explicit or config.TRUST_ROOT.get() or directory / TRUST_ROOT_FILE)


class TrustedKeys:
    """The keyring a running process trusts (see the module notes)."""

    def __init__(
        self,
        root: TrustRoot,
        path: Path,
        *,
        refresh_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        self.path = path
        self.refresh_s = refresh_s
        self.clock = clock
        self._stat: tuple[int, int] | None = None
        self._checked = clock()
        self.keyring = self._read()
        self.registry: KeyRegistry = self.keyring.registry()

    @classmethod
    def from_dir(cls, directory: Path, trust_root: str | None = None) -> TrustedKeys:
        """The keyring ``CROUPIER_KEYRING`` (default ``<directory>/keyring.json``) under
        the root :func:`trust_root_path` names."""
        root_path = trust_root_path(directory, trust_root)
        if not root_path.is_file():
            raise ConfigError(
                f"no pinned trust root at {root_path} (set {TRUST_ROOT_ENV} or run "
                "`croupier keys init`)"
            )
        keyring = Path(config.KEYRING.get() or directory / KEYRING_FILE)
        if not keyring.is_file():
            raise ConfigError(
                f"no keyring at {keyring} (set {KEYRING_ENV} or run `croupier keys init`)"
            )
        return cls(TrustRoot.load(root_path), keyring)

    @classmethod
    def of(cls, root: TrustRoot, keyring: Keyring, path: Path) -> TrustedKeys:
        path.write_text(keyring.to_text(), encoding="utf-8")
        return cls(root, path)

    def _read(self) -> Keyring:
        st = self.path.stat()
        kr = Keyring.load(self.path)
        kr.verify(self.root)
        self._stat = (st.st_mtime_ns, st.st_size)
        return kr

    @property
    def version(self) -> int:
        return self.keyring.version

    def refresh(self, *, force: bool = False) -> bool:
        """Reload the keyring if its file changed (checked at most every ``refresh_s``
        unless ``force``). ``True`` if a newer verified keyring is now trusted. A file
        that does not verify, or holds a lower version, is logged and ignored."""
        now = self.clock()
        if not force and now - self._checked < self.refresh_s:
            return False
        self._checked = now
        try:
            st = self.path.stat()
            if (st.st_mtime_ns, st.st_size) == self._stat:
                return False
            kr = self._read()
        except (OSError, CroupierError) as e:
            log.error("keyring %s not reloaded: %s", self.path, e)
            return False
        if kr.version < self.keyring.version:
            log.error(
                "keyring %s holds v%d, older than the trusted v%d: ignored",
                self.path,
                kr.version,
                self.keyring.version,
            )
            return False
        if kr.version == self.keyring.version:
            return False
        self.keyring, self.registry = kr, kr.registry()
        log.info("keyring v%d trusted (%d keys)", kr.version, len(kr.entries))
        return True


def signing_key_check(
    trust: TrustedKeys, key_ids: Sequence[str], clock: Callable[[], int] = now_ms
) -> Callable[[], str | None]:
    """A check for a running service: None while its own ``key_ids`` may sign, else why
    not (revoked in the trusted keyring, reloaded when its file changes)."""

    def check() -> str | None:
        trust.refresh()
        bad = revoked_signers(trust.registry, key_ids, clock())
        if not bad:
            return None
        return (
            f"own signing key {', '.join(bad)} is revoked in keyring v{trust.version}: "
            "not signing; mount a new key (croupier keys rotate)"
        )

    return check
