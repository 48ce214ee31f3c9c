from croupier.pb.croupier.v1 import envelope_pb2 as _envelope_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpenTableRequest(_message.Message):
    __slots__ = ("table_id", "variant", "client_seed", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    client_seed: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., client_seed: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class OpenTableResponse(_message.Message):
    __slots__ = ("table_id", "variant", "config_version", "shoe_id", "commitment", "algorithm")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    CONFIG_VERSION_FIELD_NUMBER: _ClassVar[int]
    SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    config_version: str
    shoe_id: str
    commitment: bytes
    algorithm: str
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., config_version: _Optional[str] = ..., shoe_id: _Optional[str] = ..., commitment: _Optional[bytes] = ..., algorithm: _Optional[str] = ...) -> None: ...

class OpenShoeRequest(_message.Message):
    __slots__ = ("table_id", "client_seed", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    client_seed: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., client_seed: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class OpenShoeResponse(_message.Message):
    __slots__ = ("shoe_id", "commitment", "algorithm", "nonce", "previous_shoe_id", "previous_server_seed")
    SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    shoe_id: str
    commitment: bytes
    algorithm: str
    nonce: int
    previous_shoe_id: str
    previous_server_seed: bytes
    def __init__(self, shoe_id: _Optional[str] = ..., commitment: _Optional[bytes] = ..., algorithm: _Optional[str] = ..., nonce: _Optional[int] = ..., previous_shoe_id: _Optional[str] = ..., previous_server_seed: _Optional[bytes] = ...) -> None: ...

class SeatEntry(_message.Message):
    __slots__ = ("seat", "player_id", "stack_minor")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_MINOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player_id: str
    stack_minor: int
    def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., stack_minor: _Optional[int] = ...) -> None: ...

class OpenHandRequest(_message.Message):
    __slots__ = ("table_id", "seats", "client_seed", "bets", "close_betting", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    BETS_FIELD_NUMBER: _ClassVar[int]
    CLOSE_BETTING_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatEntry]
    client_seed: str
    bets: _containers.RepeatedCompositeFieldContainer[Bet]
    close_betting: bool
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatEntry, _Mapping]]] = ..., client_seed: _Optional[str] = ..., bets: _Optional[_Iterable[_Union[Bet, _Mapping]]] = ..., close_betting: _Optional[bool] = ..., request_id: _Optional[str] = ...) -> None: ...

class OpenHandResponse(_message.Message):
    __slots__ = ("hand_id", "shoe_id", "hand_no", "commitment", "accepted", "last_seq", "view")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    HAND_NO_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    shoe_id: str
    hand_no: int
    commitment: bytes
    accepted: int
    last_seq: int
    view: HandView
    def __init__(self, hand_id: _Optional[str] = ..., shoe_id: _Optional[str] = ..., hand_no: _Optional[int] = ..., commitment: _Optional[bytes] = ..., accepted: _Optional[int] = ..., last_seq: _Optional[int] = ..., view: _Optional[_Union[HandView, _Mapping]] = ...) -> None: ...

class Bet(_message.Message):
    __slots__ = ("seat", "spot", "amount_minor")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPOT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_MINOR_FIELD_NUMBER: _ClassVar[int]
    seat: int
    spot: str
    amount_minor: int
    def __init__(self, seat: _Optional[int] = ..., spot: _Optional[str] = ..., amount_minor: _Optional[int] = ...) -> None: ...

class PlaceBetsRequest(_message.Message):
    __slots__ = ("hand_id", "bets", "client_seed", "request_id", "expected_seq")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    BETS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    bets: _containers.RepeatedCompositeFieldContainer[Bet]
    client_seed: str
    request_id: str
    expected_seq: int
    def __init__(self, hand_id: _Optional[str] = ..., bets: _Optional[_Iterable[_Union[Bet, _Mapping]]] = ..., client_seed: _Optional[str] = ..., request_id: _Optional[str] = ..., expected_seq: _Optional[int] = ...) -> None: ...

class PlaceBetsResponse(_message.Message):
    __slots__ = ("hand_id", "accepted", "last_seq")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    accepted: int
    last_seq: int
    def __init__(self, hand_id: _Optional[str] = ..., accepted: _Optional[int] = ..., last_seq: _Optional[int] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("hand_id", "seat", "action", "args_json", "request_id", "expected_seq")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ARGS_JSON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    seat: int
    action: str
    args_json: str
    request_id: str
    expected_seq: int
    def __init__(self, hand_id: _Optional[str] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., args_json: _Optional[str] = ..., request_id: _Optional[str] = ..., expected_seq: _Optional[int] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("hand_id", "last_seq", "view")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    last_seq: int
    view: HandView
    def __init__(self, hand_id: _Optional[str] = ..., last_seq: _Optional[int] = ..., view: _Optional[_Union[HandView, _Mapping]] = ...) -> None: ...

class ExpireTurnRequest(_message.Message):
    __slots__ = ("hand_id", "request_id", "expected_seq")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    request_id: str
    expected_seq: int
    def __init__(self, hand_id: _Optional[str] = ..., request_id: _Optional[str] = ..., expected_seq: _Optional[int] = ...) -> None: ...

class ExpireTurnResponse(_message.Message):
    __slots__ = ("hand_id", "last_seq", "seat", "action", "args_json", "view")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ARGS_JSON_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    last_seq: int
    seat: int
    action: str
    args_json: str
    view: HandView
    def __init__(self, hand_id: _Optional[str] = ..., last_seq: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., args_json: _Optional[str] = ..., view: _Optional[_Union[HandView, _Mapping]] = ...) -> None: ...

class CloseBettingRequest(_message.Message):
    __slots__ = ("hand_id", "request_id", "expected_seq")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_SEQ_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    request_id: str
    expected_seq: int
    def __init__(self, hand_id: _Optional[str] = ..., request_id: _Optional[str] = ..., expected_seq: _Optional[int] = ...) -> None: ...

class CloseBettingResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: HandView
    def __init__(self, view: _Optional[_Union[HandView, _Mapping]] = ...) -> None: ...

class GetHandViewRequest(_message.Message):
    __slots__ = ("hand_id", "seat")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    seat: int
    def __init__(self, hand_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class GetHandViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: HandView
    def __init__(self, view: _Optional[_Union[HandView, _Mapping]] = ...) -> None: ...

class HandView(_message.Message):
    __slots__ = ("hand_id", "variant", "table_id", "phase", "events", "outcome_json", "settled", "settlement_json")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_JSON_FIELD_NUMBER: _ClassVar[int]
    SETTLED_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENT_JSON_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    variant: str
    table_id: str
    phase: str
    events: _containers.RepeatedCompositeFieldContainer[_envelope_pb2.Event]
    outcome_json: str
    settled: bool
    settlement_json: str
    def __init__(self, hand_id: _Optional[str] = ..., variant: _Optional[str] = ..., table_id: _Optional[str] = ..., phase: _Optional[str] = ..., events: _Optional[_Iterable[_Union[_envelope_pb2.Event, _Mapping]]] = ..., outcome_json: _Optional[str] = ..., settled: _Optional[bool] = ..., settlement_json: _Optional[str] = ...) -> None: ...

class StreamTableEventsRequest(_message.Message):
    __slots__ = ("table_id", "after_seq", "from_now")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    FROM_NOW_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    after_seq: int
    from_now: bool
    def __init__(self, table_id: _Optional[str] = ..., after_seq: _Optional[int] = ..., from_now: _Optional[bool] = ...) -> None: ...

class StreamTableEventsResponse(_message.Message):
    __slots__ = ("event", "cursor")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    event: _envelope_pb2.Event
    cursor: int
    def __init__(self, event: _Optional[_Union[_envelope_pb2.Event, _Mapping]] = ..., cursor: _Optional[int] = ...) -> None: ...

class CloseTableRequest(_message.Message):
    __slots__ = ("table_id", "request_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    request_id: str
    def __init__(self, table_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CloseTableResponse(_message.Message):
    __slots__ = ("shoe_id", "server_seed")
    SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    SERVER_SEED_FIELD_NUMBER: _ClassVar[int]
    shoe_id: str
    server_seed: bytes
    def __init__(self, shoe_id: _Optional[str] = ..., server_seed: _Optional[bytes] = ...) -> None: ...

class IssueSeatTokenRequest(_message.Message):
    __slots__ = ("table_id", "seat", "player_id", "ttl_s")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_S_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    seat: int
    player_id: str
    ttl_s: int
    def __init__(self, table_id: _Optional[str] = ..., seat: _Optional[int] = ..., player_id: _Optional[str] = ..., ttl_s: _Optional[int] = ...) -> None: ...

class IssueSeatTokenResponse(_message.Message):
    __slots__ = ("token", "expires_at_s")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_S_FIELD_NUMBER: _ClassVar[int]
    token: str
    expires_at_s: int
    def __init__(self, token: _Optional[str] = ..., expires_at_s: _Optional[int] = ...) -> None: ...
