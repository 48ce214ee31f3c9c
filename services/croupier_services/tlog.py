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

from croupier.errors import InvalidInput
from croupier.signing import FileSigner, load_signer, save_signer
from croupier.store import EventStore
from croupier.store.tlog import StoredCheckpoint
from croupier.tlog.note import NoteSigner
from croupier_services import config

log = logging.getLogger("croupier.tlog")
DEFAULT_ORIGIN = "croupier.local/seal-log"
KEY_FILE = "log.key"
VKEY_FILE = "log.vkey"


def origin() -> str:
    return config.LOG_ORIGIN.get() or DEFAULT_ORIGIN


def interval_s() -> float:
    return config.CHECKPOINT_INTERVAL_S.get()


def log_signer(keys_dir: str | Path, *, create: bool = False) -> NoteSigner:
    """The log's note signer from ``<keys_dir>/log.key``; with ``create``, make the key
    (and ``log.vkey``) when missing."""
    d = Path(keys_dir)
    path = d / KEY_FILE
    if path.exists():
        s = load_signer(path)
    elif create:
        s = FileSigner.from_seed("log", origin(), secrets.token_bytes(32))
        save_signer(s, d)
    else:
        raise InvalidInput(f"no log key {path} (create it with: croupier checkpoint key)")
    ns = NoteSigner(s.key_id, s)
    (d / VKEY_FILE).write_text(ns.verifier.encode() + "\n", encoding="utf-8")
    return ns


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
