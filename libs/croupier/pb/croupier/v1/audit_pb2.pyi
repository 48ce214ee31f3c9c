from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AuditVerdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUDIT_VERDICT_UNSPECIFIED: _ClassVar[AuditVerdict]
    AUDIT_VERDICT_PASS: _ClassVar[AuditVerdict]
    AUDIT_VERDICT_FAIL: _ClassVar[AuditVerdict]
    AUDIT_VERDICT_PENDING_REVEAL: _ClassVar[AuditVerdict]
    AUDIT_VERDICT_PENDING_OPEN: _ClassVar[AuditVerdict]
AUDIT_VERDICT_UNSPECIFIED: AuditVerdict
AUDIT_VERDICT_PASS: AuditVerdict
AUDIT_VERDICT_FAIL: AuditVerdict
AUDIT_VERDICT_PENDING_REVEAL: AuditVerdict
AUDIT_VERDICT_PENDING_OPEN: AuditVerdict

class AuditReport(_message.Message):
    __slots__ = ("hand_id", "ok", "verdict", "first_bad_stream", "first_bad_seq", "reason", "message", "checks")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    FIRST_BAD_STREAM_FIELD_NUMBER: _ClassVar[int]
    FIRST_BAD_SEQ_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    ok: bool
    verdict: AuditVerdict
    first_bad_stream: str
    first_bad_seq: int
    reason: str
    message: str
    checks: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand_id: _Optional[str] = ..., ok: _Optional[bool] = ..., verdict: _Optional[_Union[AuditVerdict, str]] = ..., first_bad_stream: _Optional[str] = ..., first_bad_seq: _Optional[int] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., checks: _Optional[_Iterable[str]] = ...) -> None: ...

class VerifyHandRequest(_message.Message):
    __slots__ = ("hand_id",)
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    def __init__(self, hand_id: _Optional[str] = ...) -> None: ...

class VerifyHandResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: AuditReport
    def __init__(self, report: _Optional[_Union[AuditReport, _Mapping]] = ...) -> None: ...

class VerifyRangeRequest(_message.Message):
    __slots__ = ("table_id", "variant", "since_ms", "until_ms", "limit")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    since_ms: int
    until_ms: int
    limit: int
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., since_ms: _Optional[int] = ..., until_ms: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class VerifyRangeResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: AuditReport
    def __init__(self, report: _Optional[_Union[AuditReport, _Mapping]] = ...) -> None: ...

class ExportHandRequest(_message.Message):
    __slots__ = ("hand_id",)
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    def __init__(self, hand_id: _Optional[str] = ...) -> None: ...

class ExportHandResponse(_message.Message):
    __slots__ = ("jsonl",)
    JSONL_FIELD_NUMBER: _ClassVar[int]
    jsonl: str
    def __init__(self, jsonl: _Optional[str] = ...) -> None: ...
