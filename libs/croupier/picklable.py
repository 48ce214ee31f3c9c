"""Records pickled as their fields in order.

The dealer's group commits cross to its writer process pickled (:mod:`croupier.store.writer`):
each call's events, table rows, streams, outbox items and request record. ``dataclasses``
pickles a slotted record through a generic state (a list built from ``fields()`` on
every dump, one ``setattr`` per field on every load): about twice the cost of a tuple
of the fields handed back to the class. A record that derives from :class:`ByFields`
pickles as ``(its class, its init fields in order)`` and is rebuilt through its own
``__init__`` (so its ``__post_init__`` checks run again on the reading side).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any

_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


class ByFields:
    """Mixin for a dataclass whose init fields are all positional: pickled as them."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        cls = type(self)
        get = _GETTERS.get(cls)
        if get is None:
            get = _GETTERS[cls] = _getter(cls)
        return (cls, get(self))


def _getter(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    init = [f for f in dataclasses.fields(cls) if f.init]
    if any(f.kw_only for f in init):
        raise TypeError(f"{cls.__name__} has keyword-only fields: not rebuilt positionally")
    names = [f.name for f in init]
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)
