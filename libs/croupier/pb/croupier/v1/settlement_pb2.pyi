from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Delta(_message.Message):
    __slots__ = ("account", "amount_minor")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_MINOR_FIELD_NUMBER: _ClassVar[int]
    account: str
    amount_minor: int
    def __init__(self, account: _Optional[str] = ..., amount_minor: _Optional[int] = ...) -> None: ...

class Settlement(_message.Message):
    __slots__ = ("hand_id", "variant", "table_id", "record_json", "deltas", "rake_minor", "tx_id", "settled_at_ms")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    RAKE_MINOR_FIELD_NUMBER: _ClassVar[int]
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    SETTLED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    variant: str
    table_id: str
    record_json: str
    deltas: _containers.RepeatedCompositeFieldContainer[Delta]
    rake_minor: int
    tx_id: str
    settled_at_ms: int
    def __init__(self, hand_id: _Optional[str] = ..., variant: _Optional[str] = ..., table_id: _Optional[str] = ..., record_json: _Optional[str] = ..., deltas: _Optional[_Iterable[_Union[Delta, _Mapping]]] = ..., rake_minor: _Optional[int] = ..., tx_id: _Optional[str] = ..., settled_at_ms: _Optional[int] = ...) -> None: ...

class GetSettlementRequest(_message.Message):
    __slots__ = ("hand_id",)
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    def __init__(self, hand_id: _Optional[str] = ...) -> None: ...

class GetSettlementResponse(_message.Message):
    __slots__ = ("settlement",)
    SETTLEMENT_FIELD_NUMBER: _ClassVar[int]
    settlement: Settlement
    def __init__(self, settlement: _Optional[_Union[Settlement, _Mapping]] = ...) -> None: ...

class ListSettlementsRequest(_message.Message):
    __slots__ = ("variant", "table_id", "page_size", "page_token")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    variant: str
    table_id: str
    page_size: int
    page_token: str
    def __init__(self, variant: _Optional[str] = ..., table_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSettlementsResponse(_message.Message):
    __slots__ = ("settlements", "next_page_token")
    SETTLEMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    settlements: _containers.RepeatedCompositeFieldContainer[Settlement]
    next_page_token: str
    def __init__(self, settlements: _Optional[_Iterable[_Union[Settlement, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetRakeSummaryRequest(_message.Message):
    __slots__ = ("variant", "since_ms", "until_ms")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    since_ms: int
    until_ms: int
    def __init__(self, variant: _Optional[str] = ..., since_ms: _Optional[int] = ..., until_ms: _Optional[int] = ...) -> None: ...

class RakeLine(_message.Message):
    __slots__ = ("variant", "rake_minor", "hands")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    RAKE_MINOR_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    variant: str
    rake_minor: int
    hands: int
    def __init__(self, variant: _Optional[str] = ..., rake_minor: _Optional[int] = ..., hands: _Optional[int] = ...) -> None: ...

class GetRakeSummaryResponse(_message.Message):
    __slots__ = ("lines",)
    LINES_FIELD_NUMBER: _ClassVar[int]
    lines: _containers.RepeatedCompositeFieldContainer[RakeLine]
    def __init__(self, lines: _Optional[_Iterable[_Union[RakeLine, _Mapping]]] = ...) -> None: ...

class GetBalanceRequest(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: str
    def __init__(self, account: _Optional[str] = ...) -> None: ...

class GetBalanceResponse(_message.Message):
    __slots__ = ("account", "balance_minor")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    BALANCE_MINOR_FIELD_NUMBER: _ClassVar[int]
    account: str
    balance_minor: int
    def __init__(self, account: _Optional[str] = ..., balance_minor: _Optional[int] = ...) -> None: ...
