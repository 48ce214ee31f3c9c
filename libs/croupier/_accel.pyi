# The native accelerator's interface (libs/croupier/_accel.c; croupier.accel).
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

HouseRows = tuple[
    bytes, tuple[str, ...], dict[str, int], dict[str, int], int, dict[str, int], dict[str, int]
]
"""(record bytes, participants, deltas, rakes, total rake, staked, returned)"""

def house_rows(
    rows: list[tuple[str, str, int, Fraction]],
    house: str,
    hand_id: str,
    rate_num: int,
    rate_den: int,
    cap: int | None,
    exempt: tuple[str, ...],
    texts: tuple[str, ...],
    version: int,
    /,
) -> HouseRows | None: ...
def canonical_text(data: bytes, /) -> bool: ...
def plain_value(value: object, /) -> bool: ...
def event_hash(
    stream: str,
    seq: int,
    type_: str,
    producer: str,
    key_id: str,
    prev: bytes,
    payload: bytes,
    /,
) -> bytes | None: ...
def bind_event(cls: type, names: tuple[str, ...], /) -> None: ...
def new_event(
    stream: str,
    seq: int,
    type_: str,
    producer: str,
    key_id: str,
    prev_hash: bytes,
    payload_bytes: bytes,
    hash_: bytes,
    /,
) -> Any: ...
def events_of(rows: Iterable[Sequence[Any]], /) -> list[Any]: ...
def chain_intact(events: Sequence[object], check_payloads: bool, /) -> bool: ...
def bind_seal_entry(cls: type, names: tuple[str, ...], tag: bytes, /) -> None: ...
def seal_entries(data: bytes, /) -> tuple[Any, ...] | None: ...
def seal_root(entries: Sequence[object], /) -> bytes | None: ...
def shisanshui_split(
    five: list[tuple[int, int]], three: list[tuple[int, int]], /
) -> tuple[int, int, int] | None: ...
