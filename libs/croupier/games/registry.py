"""Variant ids → configs → engines.

Configs live in ``seeds/variants/<variant>.json`` (the directory is found through
``CROUPIER_SEEDS_DIR`` or next to the source tree). Engines register by family name.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
from functools import cache
from pathlib import Path
from typing import Any

from croupier.errors import ConfigError, UnknownVariant
from croupier.games.base import Engine, VariantConfig

_FAMILIES: dict[str, type[Engine[Any]]] = {}


def register_family(cls: type[Engine[Any]]) -> type[Engine[Any]]:
    _FAMILIES[cls.family] = cls
    return cls


def seeds_dir() -> Path:
    env = os.environ.get("CROUPIER_SEEDS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "seeds"


@cache
def _load_families() -> None:
    """Import every family's ``croupier.games.<family>.engine`` module so that it
    registers itself (a family is a sub-package of :mod:`croupier.games`)."""
    import croupier.games as pkg

    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        name = f"croupier.games.{m.name}.engine"
        if m.ispkg and importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


@cache
def variant_config(variant: str) -> VariantConfig:
    path = seeds_dir() / "variants" / f"{variant}.json"
    if not path.is_file():
        raise UnknownVariant(f"no variant {variant!r} (known: {', '.join(variants()) or 'none'})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ConfigError(f"{path}: {e}") from e
    cfg = VariantConfig.from_json_dict(data)
    if cfg.variant != variant:
        raise ConfigError(f"{path} declares variant {cfg.variant!r}")
    return cfg


def variants() -> list[str]:
    """Variant ids that have a config and a registered engine family."""
    _load_families()
    d = seeds_dir() / "variants"
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            fam = json.loads(p.read_text(encoding="utf-8")).get("family")
        except ValueError:
            continue
        if fam in _FAMILIES:
            out.append(p.stem)
    return out


@cache
def engine(variant: str) -> Engine[Any]:
    _load_families()
    cfg = variant_config(variant)
    cls = _FAMILIES.get(cfg.family)
    if cls is None:
        raise UnknownVariant(f"variant {variant!r}: no engine for family {cfg.family!r}")
    return cls(cfg)
