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
    __slots__ = ("table_id", "variant", "since_ms", "until_ms", "limit", "after_hand_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    AFTER_HAND_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    since_ms: int
    until_ms: int
    limit: int
    after_hand_id: str
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., since_ms: _Optional[int] = ..., until_ms: _Optional[int] = ..., limit: _Optional[int] = ..., after_hand_id: _Optional[str] = ...) -> None: ...

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

class GetHandHistoryRequest(_message.Message):
    __slots__ = ("hand_id", "time_zone")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    time_zone: str
    def __init__(self, hand_id: _Optional[str] = ..., time_zone: _Optional[str] = ...) -> None: ...

class GetHandHistoryResponse(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class GetDayReportRequest(_message.Message):
    __slots__ = ("day", "time_zone", "variant", "table_id", "format")
    DAY_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    day: str
    time_zone: str
    variant: str
    table_id: str
    format: str
    def __init__(self, day: _Optional[str] = ..., time_zone: _Optional[str] = ..., variant: _Optional[str] = ..., table_id: _Optional[str] = ..., format: _Optional[str] = ...) -> None: ...

class DayFigures(_message.Message):
    __slots__ = ("variant", "table_id", "hands", "turnover_minor", "payouts_minor", "ggr_minor", "rake_minor")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    TURNOVER_MINOR_FIELD_NUMBER: _ClassVar[int]
    PAYOUTS_MINOR_FIELD_NUMBER: _ClassVar[int]
    GGR_MINOR_FIELD_NUMBER: _ClassVar[int]
    RAKE_MINOR_FIELD_NUMBER: _ClassVar[int]
    variant: str
    table_id: str
    hands: int
    turnover_minor: int
    payouts_minor: int
    ggr_minor: int
    rake_minor: int
    def __init__(self, variant: _Optional[str] = ..., table_id: _Optional[str] = ..., hands: _Optional[int] = ..., turnover_minor: _Optional[int] = ..., payouts_minor: _Optional[int] = ..., ggr_minor: _Optional[int] = ..., rake_minor: _Optional[int] = ...) -> None: ...

class SpotRtp(_message.Message):
    __slots__ = ("variant", "spot", "bets", "staked_minor", "returned_minor", "rtp", "ci_low", "ci_high", "theory")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SPOT_FIELD_NUMBER: _ClassVar[int]
    BETS_FIELD_NUMBER: _ClassVar[int]
    STAKED_MINOR_FIELD_NUMBER: _ClassVar[int]
    RETURNED_MINOR_FIELD_NUMBER: _ClassVar[int]
    RTP_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    THEORY_FIELD_NUMBER: _ClassVar[int]
    variant: str
    spot: str
    bets: int
    staked_minor: int
    returned_minor: int
    rtp: float
    ci_low: float
    ci_high: float
    theory: float
    def __init__(self, variant: _Optional[str] = ..., spot: _Optional[str] = ..., bets: _Optional[int] = ..., staked_minor: _Optional[int] = ..., returned_minor: _Optional[int] = ..., rtp: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ..., theory: _Optional[float] = ...) -> None: ...

class GetDayReportResponse(_message.Message):
    __slots__ = ("day", "time_zone", "since_ms", "until_ms", "tables", "variants", "total", "rtp", "rendered")
    DAY_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    RTP_FIELD_NUMBER: _ClassVar[int]
    RENDERED_FIELD_NUMBER: _ClassVar[int]
    day: str
    time_zone: str
    since_ms: int
    until_ms: int
    tables: _containers.RepeatedCompositeFieldContainer[DayFigures]
    variants: _containers.RepeatedCompositeFieldContainer[DayFigures]
    total: DayFigures
    rtp: _containers.RepeatedCompositeFieldContainer[SpotRtp]
    rendered: str
    def __init__(self, day: _Optional[str] = ..., time_zone: _Optional[str] = ..., since_ms: _Optional[int] = ..., until_ms: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[DayFigures, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[DayFigures, _Mapping]]] = ..., total: _Optional[_Union[DayFigures, _Mapping]] = ..., rtp: _Optional[_Iterable[_Union[SpotRtp, _Mapping]]] = ..., rendered: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("variant",)
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant: str
    def __init__(self, variant: _Optional[str] = ...) -> None: ...

class TableSummary(_message.Message):
    __slots__ = ("table_id", "variant", "hands", "first_opened_ms", "last_opened_ms")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_OPENED_MS_FIELD_NUMBER: _ClassVar[int]
    LAST_OPENED_MS_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    hands: int
    first_opened_ms: int
    last_opened_ms: int
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., hands: _Optional[int] = ..., first_opened_ms: _Optional[int] = ..., last_opened_ms: _Optional[int] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableSummary]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableSummary, _Mapping]]] = ...) -> None: ...

class ListHandsRequest(_message.Message):
    __slots__ = ("table_id", "variant", "since_ms", "until_ms", "page_size", "page_token")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    variant: str
    since_ms: int
    until_ms: int
    page_size: int
    page_token: str
    def __init__(self, table_id: _Optional[str] = ..., variant: _Optional[str] = ..., since_ms: _Optional[int] = ..., until_ms: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class HandSummary(_message.Message):
    __slots__ = ("hand_id", "variant", "table_id", "shoe_id", "opened_at_ms")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    SHOE_ID_FIELD_NUMBER: _ClassVar[int]
    OPENED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    variant: str
    table_id: str
    shoe_id: str
    opened_at_ms: int
    def __init__(self, hand_id: _Optional[str] = ..., variant: _Optional[str] = ..., table_id: _Optional[str] = ..., shoe_id: _Optional[str] = ..., opened_at_ms: _Optional[int] = ...) -> None: ...

class ListHandsResponse(_message.Message):
    __slots__ = ("hands", "next_page_token")
    HANDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[HandSummary]
    next_page_token: str
    def __init__(self, hands: _Optional[_Iterable[_Union[HandSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetCheckpointRequest(_message.Message):
    __slots__ = ("tree_size",)
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    tree_size: int
    def __init__(self, tree_size: _Optional[int] = ...) -> None: ...

class GetCheckpointResponse(_message.Message):
    __slots__ = ("note", "tree_size", "root_hash", "published_at_ms")
    NOTE_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROOT_HASH_FIELD_NUMBER: _ClassVar[int]
    PUBLISHED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    note: str
    tree_size: int
    root_hash: bytes
    published_at_ms: int
    def __init__(self, note: _Optional[str] = ..., tree_size: _Optional[int] = ..., root_hash: _Optional[bytes] = ..., published_at_ms: _Optional[int] = ...) -> None: ...

class GetConsistencyProofRequest(_message.Message):
    __slots__ = ("old_size", "new_size")
    OLD_SIZE_FIELD_NUMBER: _ClassVar[int]
    NEW_SIZE_FIELD_NUMBER: _ClassVar[int]
    old_size: int
    new_size: int
    def __init__(self, old_size: _Optional[int] = ..., new_size: _Optional[int] = ...) -> None: ...

class GetConsistencyProofResponse(_message.Message):
    __slots__ = ("old_size", "new_size", "proof")
    OLD_SIZE_FIELD_NUMBER: _ClassVar[int]
    NEW_SIZE_FIELD_NUMBER: _ClassVar[int]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    old_size: int
    new_size: int
    proof: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, old_size: _Optional[int] = ..., new_size: _Optional[int] = ..., proof: _Optional[_Iterable[bytes]] = ...) -> None: ...

class GetInclusionProofRequest(_message.Message):
    __slots__ = ("hand_id", "tree_size")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    tree_size: int
    def __init__(self, hand_id: _Optional[str] = ..., tree_size: _Optional[int] = ...) -> None: ...

class LeafProof(_message.Message):
    __slots__ = ("seal_id", "leaf_index", "leaf_hash", "proof")
    SEAL_ID_FIELD_NUMBER: _ClassVar[int]
    LEAF_INDEX_FIELD_NUMBER: _ClassVar[int]
    LEAF_HASH_FIELD_NUMBER: _ClassVar[int]
    PROOF_FIELD_NUMBER: _ClassVar[int]
    seal_id: str
    leaf_index: int
    leaf_hash: bytes
    proof: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, seal_id: _Optional[str] = ..., leaf_index: _Optional[int] = ..., leaf_hash: _Optional[bytes] = ..., proof: _Optional[_Iterable[bytes]] = ...) -> None: ...

class GetInclusionProofResponse(_message.Message):
    __slots__ = ("hand_id", "tree_size", "checkpoint_note", "leaves", "pending_seal_ids")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    TREE_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_NOTE_FIELD_NUMBER: _ClassVar[int]
    LEAVES_FIELD_NUMBER: _ClassVar[int]
    PENDING_SEAL_IDS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    tree_size: int
    checkpoint_note: str
    leaves: _containers.RepeatedCompositeFieldContainer[LeafProof]
    pending_seal_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand_id: _Optional[str] = ..., tree_size: _Optional[int] = ..., checkpoint_note: _Optional[str] = ..., leaves: _Optional[_Iterable[_Union[LeafProof, _Mapping]]] = ..., pending_seal_ids: _Optional[_Iterable[str]] = ...) -> None: ...
