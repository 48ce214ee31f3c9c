"""The checkpoint publisher: signs a C2SP checkpoint of the seal log at an interval (and
on demand), with the log's own key.

The log key is a dedicated Ed25519 key (``<keys dir>/log.key``, producer ``log``), held
only by the process that publishes checkpoints; no producer key (dealer, gateway,
rules, settlement) signs checkpoints, so a compromised producer cannot vouch for a log
it rewrote. Its key id is the log's origin (``CROUPIER_LOG_ORIGIN``, default
``croupier.local/seal-log``), the first line of every checkpoint. The public half is
written beside it as ``log.vkey`` in the C2SP verifier-key form; auditors pin that file
(``croupier audit --log-key``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from pathlib import Path

from croupier.errors import ConfigError
from croupier.signing import FileSigner, load_signer, save_signer
from croupier.store import EventStore
from croupier.store.tlog import StoredCheckpoint
from croupier.tlog.note import NoteSigner, NoteVerifier
from croupier_services import config

log = logging.getLogger("croupier.tlog")
DEFAULT_ORIGIN = "croupier.local/seal-log"
KEY_FILE = "log.key"
VKEY_FILE = "log.vkey"


def origin() -> str:
    return config.LOG_ORIGIN.get() or DEFAULT_ORIGIN


def interval_s() -> float:
    return config.CHECKPOINT_INTERVAL_S.get()


def create_log_key(keys_dir: str | Path) -> bool:
    """Make ``<keys_dir>/log.key`` (and its public ``log.vkey``) when missing, as
    ``croupier keys init`` does; True if a key was made. Never called by a service."""
    d = Path(keys_dir)
    d.mkdir(parents=True, exist_ok=True)
    path = d / KEY_FILE
    made = False
    if not path.exists():
        save_signer(FileSigner.from_seed("log", origin(), secrets.token_bytes(32)), d)
        made = True
    s = load_signer(path)
    (d / VKEY_FILE).write_text(NoteSigner(s.key_id, s).verifier.encode() + "\n", encoding="utf-8")
    return made


def log_signer(keys_dir: str | Path, *, create: bool = False) -> NoteSigner:
    """The log's note signer from ``<keys_dir>/log.key``; with ``create`` (operator
    commands only: ``keys init``, ``checkpoint key``), make the key and ``log.vkey`` when
    missing. Without it a missing key is a :class:`ConfigError` naming the file, and
    nothing is written."""
    d = Path(keys_dir)
    path = d / KEY_FILE
    if create:
        create_log_key(d)
    if not path.is_file():
        raise ConfigError(
            f"log: no key file {path}; a service never creates keys: mount the log's key "
            "(see `croupier keys init`)"
        )
    s = load_signer(path)
    ns = NoteSigner(s.key_id, s)
    vkey = d / VKEY_FILE
    if not vkey.exists():  # the public half beside it, for auditors (a read-only mount: skip)
        with contextlib.suppress(OSError):
            vkey.write_text(ns.verifier.encode() + "\n", encoding="utf-8")
    return ns


def pinned_log_key(path: str | None = None) -> NoteVerifier | None:
    """The log's verifier key an auditor pins: ``path`` (``--log-key FILE``), else
    ``CROUPIER_LOG_KEY`` (a file holding ``name+id+key``, e.g. the keys dir's
    ``log.vkey``); ``None`` when neither names one. The CLI audit, the audit service and
    the replay viewer all take it from here, so a genuine seal of a since-revoked key is
    judged the same everywhere (by the first checkpoint of this log that included it)."""
    p = path or config.LOG_KEY.get()
    if not p:
        return None
    f = Path(p)
    if not f.is_file():
        raise ConfigError(f"the log key {f} (--log-key / CROUPIER_LOG_KEY) is not a file")
    return NoteVerifier.parse(f.read_text(encoding="utf-8"))


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def publish(store: EventStore, signer: NoteSigner) -> StoredCheckpoint | None:
    cp = store.publish_checkpoint(signer, now_ms())
    if cp is not None:
        log.info("checkpoint %d published", cp.size)
    return cp


async def run_publisher(
    store: EventStore, signer: NoteSigner, stop: asyncio.Event, every_s: float | None = None
) -> None:
    """Publish a checkpoint whenever the log grew, every ``every_s`` seconds, until
    ``stop`` is set (and once more on the way out)."""
    period = interval_s() if every_s is None else every_s
    while not stop.is_set():
        try:
            publish(store, signer)
        except Exception:  # the next tick retries
            log.exception("checkpoint publishing failed")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), period)
    with contextlib.suppress(Exception):
        publish(store, signer)
