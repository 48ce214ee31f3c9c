"""Frozen dataclasses built from their fields by :func:`croupier.accel.maker` (the
extension's ``slotted_maker`` where it is on) are what their ``__init__`` builds: equal,
of the same type, hashing alike, as frozen, pickled alike — for the domain records it
builds (a seat, a baccarat coup, a hand's settlement, a table's row, a stored
settlement) over random fields; and a class
whose ``__init__`` does more than set its own slots is refused, natively or not."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier import accel
from croupier.accel import maker
from croupier.dealing import TableRow
from croupier.games.baccarat.rules import Coup, Winner
from croupier.games.base import Seat
from croupier.settlement import HandSettlement
from croupier.store.settlements import Settlement

_any = st.one_of(st.integers(), st.text(max_size=8), st.none(), st.booleans())


def _same(cls: type[Any], fields: tuple[Any, ...]) -> None:
    made, want = maker(cls)(*fields), cls(*fields)
    assert type(made) is cls
    assert made == want and repr(made) == repr(want)
    assert dataclasses.astuple(made) == fields
    assert pickle.loads(pickle.dumps(made)) == want
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, name, None)


@given(st.integers(), st.text(max_size=10), st.integers())
def test_a_seat(seat: int, player: str, stack: int) -> None:
    _same(Seat, (seat, player, stack))
    assert hash(maker(Seat)(seat, player, stack)) == hash(Seat(seat, player, stack))


@given(
    st.tuples(
        st.tuples(st.text(max_size=3), st.text(max_size=3)),
        st.tuples(st.text(max_size=3)),
        st.integers(0, 9),
        st.integers(0, 9),
        st.sampled_from(list(Winner)),
        st.booleans(),
        st.booleans(),
        st.booleans(),
        st.integers(4, 6),
    )
)
def test_a_coup(fields: tuple[Any, ...]) -> None:
    _same(Coup, fields)


@given(st.lists(_any, min_size=10, max_size=10))
def test_a_hand_settlement(fields: list[Any]) -> None:
    _same(HandSettlement, tuple(fields))


@given(st.lists(_any, min_size=9, max_size=9))
def test_a_table_row(fields: list[Any]) -> None:
    _same(TableRow, tuple(fields))


@given(st.lists(_any, min_size=7, max_size=7))
def test_a_stored_settlement(fields: list[Any]) -> None:
    _same(Settlement, tuple(fields))


def test_a_count_of_fields_other_than_the_classs_is_refused() -> None:
    with pytest.raises(TypeError):
        maker(Seat)(1, "p")
    with pytest.raises(TypeError):
        maker(Seat)(1, "p", 2, 3)


@dataclass(frozen=True)
class _NoSlots:
    a: int


@dataclass(slots=True)
class _NotFrozen:
    a: int


@dataclass(frozen=True, slots=True)
class _PostInit:
    a: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("a")


@dataclass(frozen=True, slots=True)
class _NotAllInit:
    a: int
    b: int = field(init=False, default=0)


@dataclass(frozen=True, slots=True)
class _Base:
    a: int


@dataclass(frozen=True, slots=True)
class _Derived(_Base):
    b: int


@dataclass(frozen=True, slots=True)
class _OwnInit:
    a: int

    def __init__(self, a: int) -> None:  # the class's own, not dataclasses'
        object.__setattr__(self, "a", abs(a))


class _Plain:
    __slots__ = ("a",)


@pytest.mark.parametrize(
    "cls", [_NoSlots, _NotFrozen, _PostInit, _NotAllInit, _Derived, _OwnInit, _Plain, int]
)
def test_a_class_whose_init_does_more_is_refused(cls: type[Any]) -> None:
    with pytest.raises(TypeError):
        maker(cls)


def test_the_native_maker_is_used_where_the_extension_is_on() -> None:
    made = maker(Seat)
    if accel.native is None:
        assert made is Seat
    else:
        assert made is not Seat and callable(made)
