"""Producer keys on disk (``<dir>/<producer>.key``) and their registration in the store."""

from __future__ import annotations

from pathlib import Path

from croupier.signing import PRODUCERS, Signer, load_signer, save_signer


def init_keys(directory: Path, producers: tuple[str, ...] = PRODUCERS) -> list[Signer]:
    """Create any missing key file; return every producer's signer."""
    out = []
    for p in producers:
        path = directory / f"{p}.key"
        out.append(load_signer(path) if path.exists() else _new(p, directory))
    return out


def _new(producer: str, directory: Path) -> Signer:
    s = Signer.generate(producer)
    save_signer(s, directory)
    return s
