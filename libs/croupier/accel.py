"""The optional native accelerator: the one place that says whether it is here.

``croupier._accel`` (C, ``libs/croupier/_accel.c``) is built by ``pip install`` where
a C compiler and Python's headers are found, and left out where not (the extension is
optional in ``setup.py``): every result is then computed by the pure-Python path, the
reference, which is always kept. What it computes natively:

* the house settlement of wagers on a net rake basis (baccarat, 开心摇摇乐, 多财多福,
  幸运五张, 幸运21点, 楚汉德州): the claims, the rounding, the rake and the record's
  canonical bytes in one call (:func:`croupier.money.settle.settle_spots_against_house`
  and :func:`~croupier.money.settle.settle_against_house`). The record's steps are
  rebuilt by the pure path only when something asks for them.
* canonical text and the event chain (``libs/croupier/_accel_chain.c``): whether bytes
  are an object in canonical JSON (:func:`croupier.canonical.parse`, ``loads``), an
  event's hash from its fields (:func:`croupier.events.make_event`,
  ``Event.recompute_hash``), and a whole stream's chain check
  (:func:`croupier.events.verify_chain`); a seal's entries decoded from their stored
  text (:func:`croupier.events.seal_entries_of`) and a version-2 seal's Merkle root over
  them (``Seal.root``). These answer "proven" or "not proven", never "bad": what they do
  not prove, the pure path decides and words.
* a baccarat hand's events stepped (``libs/croupier/_accel_baccarat.c``,
  :meth:`croupier.games.baccarat.engine.BaccaratEngine.fast_steps`, which
  :meth:`~croupier.games.base.Engine.replay` and the audit try first): the bets, the
  close of betting, the cards in the drawing order and the close, under the engine's own
  tables of who draws; "not proven" leaves every event to the pure engine's ``step``.
* 十三水's automatic arrangement (``libs/croupier/_accel_shisanshui.c``,
  :func:`croupier.games.shisanshui.hands.best_normal`): every row's strength and share
  read from the 13 cards and the search over every back, middle and front for the best
  legal split (72,072 splits a hand, ~25 ms in Python), passing over the backs that
  cannot reach the best found.
* the Hold'em evaluator's tables (``libs/croupier/_accel_poker.c``,
  :mod:`croupier.games.poker.hands`): the non-flush table of every 5 to 7 ranks (~0.5 s
  in Python on a process's first hand of the poker family, ~20 ms natively), the flush
  table, the strengths of every 5 of n cards (:func:`~croupier.games.poker.hands.rows5`),
  and 楚汉德州's run-out odds (every completion of the board, both sides' best hands
  counted: :func:`croupier.games.chuhan.probability.runout_odds`).
* whether mahjong tiles win (``libs/croupier/_accel_mahjong.c``; ``plain_win`` and
  ``Shape.is_win`` of :mod:`croupier.games.mahjong.win`, with or without wilds, and
  ``Shape.waits`` without): the question every other player's hand is asked at each
  discard, and 查大叫's of every tile at the wall's end.
* frozen dataclasses built from their fields (``maker``): each slot set once, as the
  events are built, without ``__init__``'s calls of ``object.__setattr__`` (a
  ``Seat`` ~5× faster to build), for the domain records a hand makes many of;
  ``tests/property/test_accel_maker.py`` checks the made instances equal ``__init__``'s.
* SHA-256 itself (``sha256``, and every digest the chain part takes): OpenSSL's block
  functions called directly in the libcrypto Python's hashlib has loaded, checked
  against hashlib at import, ~0.6 µs a digest less than through a hashlib object; where
  they are not found, through hashlib. ``CROUPIER_SHA256_HASHLIB`` set at import keeps
  the extension on hashlib's way (a comparison); ``native.sha256_direct()`` names the
  library or answers None. ``tests/property/test_accel_sha256.py`` checks the two
  ways against hashlib.

The native result is the pure path's byte for byte:
``tests/property/test_accel_differential.py`` compares the two over every variant's hands
and over random wagers, ``tests/property/test_accel_chain.py`` over random and mutated
JSON texts and event chains (hypothesis), ``tests/property/test_accel_seal.py`` over
random and edited seal entries, ``tests/property/test_accel_baccarat.py`` over a
corpus of legal and spoilt baccarat hands under four configs,
``tests/property/test_accel_shisanshui.py`` over random hands and rows,
``tests/property/test_accel_poker.py`` the tables whole and rows over random hands,
``tests/property/test_accel_mahjong.py`` every count of a suit and random hands.

``CROUPIER_NATIVE=0`` in the environment turns it off for a process (a comparison, or
a doubt); ``CROUPIER_NATIVE=require`` makes its absence an error at import (CI, which
must test the path it ships). Any other value: on when built.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from croupier.errors import CroupierError


class NativeMissing(CroupierError):
    """``CROUPIER_NATIVE=require`` and the native accelerator is not built."""


INTERFACE = 8
"""The extension's interface this code calls (``ACCEL_INTERFACE`` in ``_accel.h``): an
extension built from older sources (an editable install not rebuilt after a pull) is
not used — the pure-Python path runs, and ``CROUPIER_NATIVE=require`` refuses it."""


def _load() -> tuple[ModuleType | None, str]:
    raw = os.environ.get("CROUPIER_NATIVE", "")
    mode = raw.strip().lower()
    if mode in ("0", "off", "no", "false"):
        return None, f"off (CROUPIER_NATIVE={raw})"
    try:
        import croupier._accel as _accel
    except ImportError as e:
        why = f"not built ({e})"
    else:
        built = getattr(_accel, "INTERFACE", 1)
        if built == INTERFACE:
            return _accel, "on"
        why = f"built from other sources (interface {built}, this code calls {INTERFACE})"
    if mode == "require":
        raise NativeMissing(
            f"CROUPIER_NATIVE=require but croupier._accel is {why}: reinstall with a C "
            "compiler and Python's headers (pip install -e .)"
        )
    return None, f"{why}; the pure-Python path runs"


native, status = _load()
"""``native``: the extension module, or ``None``. ``status``: one line saying which
and why (``croupier --version`` prints it)."""
if native is not None:
    _direct = native.sha256_direct()
    status += f" (SHA-256 by {_direct} directly)" if _direct else " (SHA-256 through hashlib)"


def _sha256_hashlib(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


sha256: Callable[[bytes], bytes] = native.sha256 if native is not None else _sha256_hashlib
"""SHA-256 of bytes, its 32-byte digest: the extension's where it is on (one call,
OpenSSL's functions directly where found), else hashlib's."""


T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A constructor of ``cls`` from all its fields, in order, positionally: the
    extension's where it is on (each slot set once, no ``object.__setattr__`` a field),
    else ``cls`` itself. ``cls`` must be a frozen dataclass with slots whose ``__init__``
    is the generated one and does nothing more (no ``__post_init__``, every field an
    ``__init__`` argument): what it builds is then what ``cls(*fields)`` builds.
    Raises ``TypeError`` for any other class."""
    params: Any = getattr(cls, "__dataclass_params__", None)
    init: Any = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    if (
        params is None
        or not params.frozen
        or not params.init
        or "__slots__" not in cls.__dict__
        or hasattr(cls, "__post_init__")
        or code is None
        or code.co_filename != "<string>"  # dataclasses' own __init__, not the class's
        or not all(f.init and f.name in cls.__dict__ for f in fields)  # its own slots
    ):
        raise TypeError(f"{cls!r} is not a frozen slotted dataclass with a plain __init__")
    if native is None:
        return cls
    made: Callable[..., T] = native.slotted_maker(cls, tuple(f.name for f in fields))
    return made
