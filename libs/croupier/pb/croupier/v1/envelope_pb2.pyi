from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ("stream", "seq", "type", "producer", "key_id", "prev_hash", "payload_json", "hash")
    STREAM_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PRODUCER_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    stream: str
    seq: int
    type: str
    producer: str
    key_id: str
    prev_hash: bytes
    payload_json: str
    hash: bytes
    def __init__(self, stream: _Optional[str] = ..., seq: _Optional[int] = ..., type: _Optional[str] = ..., producer: _Optional[str] = ..., key_id: _Optional[str] = ..., prev_hash: _Optional[bytes] = ..., payload_json: _Optional[str] = ..., hash: _Optional[bytes] = ...) -> None: ...

class SealEntry(_message.Message):
    __slots__ = ("stream", "seq", "hash")
    STREAM_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    stream: str
    seq: int
    hash: bytes
    def __init__(self, stream: _Optional[str] = ..., seq: _Optional[int] = ..., hash: _Optional[bytes] = ...) -> None: ...

class Seal(_message.Message):
    __slots__ = ("producer", "key_id", "sealed_at_ms", "entries", "signature", "version")
    PRODUCER_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    SEALED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    producer: str
    key_id: str
    sealed_at_ms: int
    entries: _containers.RepeatedCompositeFieldContainer[SealEntry]
    signature: bytes
    version: int
    def __init__(self, producer: _Optional[str] = ..., key_id: _Optional[str] = ..., sealed_at_ms: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[SealEntry, _Mapping]]] = ..., signature: _Optional[bytes] = ..., version: _Optional[int] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("events", "seals")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SEALS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    seals: _containers.RepeatedCompositeFieldContainer[Seal]
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., seals: _Optional[_Iterable[_Union[Seal, _Mapping]]] = ...) -> None: ...
