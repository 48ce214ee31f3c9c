"""Who may call what: one rule per gRPC method, read by the server interceptor.

A method missing from :data:`RULES` is refused to everyone (``no_policy``), so a new
RPC is closed until it is given a rule here. Health checks are open (probes carry no
credential); reflection needs any authenticated caller.

* gateway methods: the ``gateway`` role, at a table the gateway opened or was granted;
  a seat's actions and view (``PlaceBets``' seats and ``OpenHand``'s betting seats,
  ``Act``, ``GetHandView(seat)``) also need that seat's seat token, naming the player
  seated there;
* settlement queries: ``auditor`` or ``operator``;
* audit methods: ``auditor``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from croupier.auth.tokens import Role

GATEWAY = "/croupier.v1.GatewayService/"
SETTLEMENT = "/croupier.v1.SettlementService/"
AUDIT = "/croupier.v1.AuditService/"


@dataclass(frozen=True)
class Rule:
    """``roles`` that may call; for gateway calls, how to find the table (directly or
    through the hand) and the seats acted for in the request."""

    roles: frozenset[Role]
    table: Callable[[Any], str] | None = None
    hand: Callable[[Any], str] | None = None
    seats: Callable[[Any], Iterable[int]] | None = None
    # for a table's rule: who the request itself seats where (the seat tokens must name
    # them); a hand's rule reads the players from the hand
    players: Callable[[Any], Mapping[int, str]] | None = None
    opens_table: bool = False
    rechecked: bool = False


OPEN: frozenset[str] = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})
ANY_ROLE = frozenset(Role)
_GW = frozenset({Role.GATEWAY})
_READERS = frozenset({Role.AUDITOR, Role.OPERATOR})
_AUDITOR = frozenset({Role.AUDITOR})


def _table(r: Any) -> str:
    return str(r.table_id)


def _hand(r: Any) -> str:
    return str(r.hand_id)


def _bet_seats(r: Any) -> set[int]:
    return {int(b.seat) for b in r.bets}


def _seated(r: Any) -> dict[int, str]:
    return {int(s.seat): str(s.player_id) for s in r.seats}


def _act_seat(r: Any) -> set[int]:
    return {int(r.seat)}


def _view_seat(r: Any) -> set[int]:
    return {int(r.seat)} if r.HasField("seat") else set()


RULES: dict[str, Rule] = {
    GATEWAY + "OpenTable": Rule(_GW, table=_table, opens_table=True),
    GATEWAY + "OpenShoe": Rule(_GW, table=_table, rechecked=True),
    GATEWAY + "OpenHand": Rule(
        _GW, table=_table, seats=_bet_seats, players=_seated, rechecked=True
    ),
    GATEWAY + "PlaceBets": Rule(_GW, hand=_hand, seats=_bet_seats, rechecked=True),
    GATEWAY + "Act": Rule(_GW, hand=_hand, seats=_act_seat, rechecked=True),
    GATEWAY + "ExpireTurn": Rule(_GW, hand=_hand, rechecked=True),
    GATEWAY + "CloseBetting": Rule(_GW, hand=_hand, rechecked=True),
    GATEWAY + "GetHandView": Rule(_GW, hand=_hand, seats=_view_seat),
    GATEWAY + "StreamTableEvents": Rule(_GW, table=_table),
    GATEWAY + "CloseTable": Rule(_GW, table=_table, rechecked=True),
    GATEWAY + "IssueSeatToken": Rule(_GW, table=_table),
    SETTLEMENT + "GetSettlement": Rule(_READERS),
    SETTLEMENT + "ListSettlements": Rule(_READERS),
    SETTLEMENT + "GetRakeSummary": Rule(_READERS),
    SETTLEMENT + "GetBalance": Rule(_READERS),
    AUDIT + "VerifyHand": Rule(_AUDITOR),
    AUDIT + "VerifyRange": Rule(_AUDITOR),
    AUDIT + "ExportHand": Rule(_AUDITOR),
    AUDIT + "GetHandHistory": Rule(_AUDITOR),
    AUDIT + "GetDayReport": Rule(_AUDITOR),
    AUDIT + "ListTables": Rule(_AUDITOR),
    AUDIT + "ListHands": Rule(_AUDITOR),
    AUDIT + "GetCheckpoint": Rule(_AUDITOR),
    AUDIT + "GetConsistencyProof": Rule(_AUDITOR),
    AUDIT + "GetInclusionProof": Rule(_AUDITOR),
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": Rule(ANY_ROLE),
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": Rule(ANY_ROLE),
}


def service_label(method: str) -> str:
    """``/croupier.v1.GatewayService/Act`` → ``gateway`` (the metrics label)."""
    svc = method.strip("/").split("/")[0].rsplit(".", 1)[-1]
    return svc.removesuffix("Service").lower() or "unknown"
