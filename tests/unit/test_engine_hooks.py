"""``Engine.verify_event``/``apply_event`` dispatch each event type to its hook: a type
without a ``verify_*`` hook is refused as ``unknown_event`` ("<name> has no <type>
event"), ``betting.closed`` by default is refused once betting is over, and a type
without an ``apply_*`` hook changes nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from croupier.errors import ActionRejected
from croupier.games import base as g
from croupier.money import SettlementResult


class Toy(g.Engine[g.HandState]):
    """Takes bets and nothing else."""

    family = "toy"

    def open(self, hand_id: str, payload: Mapping[str, Any]) -> g.HandState:
        o = g.parse_opened(payload)
        return g.HandState(self.variant, o.table, hand_id, o.hand_no, o.shoe_hand_no, o.seats)

    def verify_bet(self, st: g.HandState, p: Mapping[str, Any]) -> int:
        return int(p["amount"])

    def apply_bet(self, st: g.HandState, p: Mapping[str, Any]) -> None:
        st.positions.append(int(p["amount"]))

    def next_deal(self, st: g.HandState) -> g.DealRequest | None:
        return None

    def is_over(self, st: g.HandState) -> bool:
        return st.phase != "betting"

    def outcome(self, st: g.HandState) -> dict[str, Any]:
        return {}

    def settle(self, st: g.HandState) -> SettlementResult:
        raise NotImplementedError


class NamedToy(Toy):
    display_name: ClassVar[str] = "玩具"


OPENED = {
    "table": "t",
    "hand_no": 1,
    "shoe_hand_no": 1,
    "seats": [{"seat": 1, "player": "p1", "stack": 100}],
}


def _engine(cls: type[Toy] = Toy) -> Toy:
    return cls(g.VariantConfig.from_json_dict({"variant": "toy", "version": 1, "family": "toy"}))


def test_hooks_dispatch_by_type() -> None:
    eng = _engine()
    st = eng.open("h", OPENED)
    eng.step(st, g.BET_PLACED, {"seat": 1, "spot": "x", "amount": 7})
    assert st.positions == [7]
    eng.step(st, g.BETTING_CLOSED, {})  # no apply hook: nothing changes
    assert st.phase == "betting" and st.positions == [7]


def test_betting_closed_is_refused_once_betting_is_over() -> None:
    eng = _engine()
    st = eng.open("h", OPENED)
    st.phase = "dealing"
    with pytest.raises(ActionRejected) as err:
        eng.verify(st, g.BETTING_CLOSED, {})
    assert err.value.reason == "betting_closed"
    assert err.value.message == "betting is already closed"


@pytest.mark.parametrize(
    "type_",
    [g.CARD_DEALT, g.CARDS_REVEALED, g.DICE_ROLLED, g.ACTION_TAKEN, g.HAND_OPENED, "x.y"],
)
@pytest.mark.parametrize(("cls", "name"), [(Toy, "toy"), (NamedToy, "玩具")])
def test_a_type_without_a_hook_is_an_unknown_event(type_: str, cls: type[Toy], name: str) -> None:
    eng = _engine(cls)
    st = eng.open("h", OPENED)
    with pytest.raises(ActionRejected) as err:
        eng.verify(st, type_, {"seat": 1, "action": "hit", "args": {}})
    assert err.value.reason == "unknown_event"
    assert err.value.message == f"{name} has no {type_} event"
    assert not eng.can(st, type_, {})
