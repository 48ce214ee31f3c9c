"""The one exception tree of the ``croupier`` library.

::

    CroupierError
    ├── InvalidInput                 bad request data; nothing was written
    │   ├── NotationError            a card, tile or die that does not parse
    │   ├── ConfigError              a variant config that is missing or inconsistent
    │   ├── UnknownVariant           no engine registered for a variant id
    │   ├── AlreadyExists            a table (or other named thing) that is already open
    │   ├── FieldRejected            a request field outside its edge limit (croupier.limits)
    │   └── RuleViolation            an event the game's rules forbid now
    │       ├── BetRejected          over a limit, closed spot, unknown seat, bad amount
    │       └── ActionRejected       out of turn, illegal move, finished hand
    ├── IntegrityError               the log does not prove what it claims
    │   ├── SignatureError           missing, malformed or wrong Ed25519 signature
    │   ├── UnknownKey               key id not in the registry or outside its validity
    │   ├── ChainError               sequence gap, wrong previous hash, bad event hash
    │   └── FairnessError            revealed seed does not match commitment or cards
    ├── StaleSequence                a call's expected_seq is not the hand's last seq
    ├── MoneyError                   a settlement that would not balance
    ├── StoreError                   the system of record refused an operation
    │   ├── DuplicateEvent           (stream, seq) already holds a different event
    │   ├── IdempotencyConflict      same idempotency key, different content
    │   ├── NotFound                 no such hand, shoe, settlement or transaction
    │   ├── TableOwnedElsewhere      another dealer holds the table's lease
    │   ├── StaleFencingToken        a write fenced by a lease that is no longer current
    │   └── StoreUnavailable         the database cannot be reached; nothing was committed
    ├── BusUnavailable               no NATS server of the URL answered a first connect
    ├── AuditMismatch                a replay disagrees with what was stored
    └── AuthError                    a caller the server does not let in
        ├── Unauthenticated          no credential, or one that does not verify
        └── PermissionDenied         a known caller acting outside its role or grants

Every error carries a human message; ``RuleViolation`` and ``IntegrityError`` also carry
a machine ``reason`` (a short snake_case code used as a metrics label and in gRPC
status details); :meth:`CroupierError.details` adds the key/value facts a client may act
on (the ``google.rpc.ErrorInfo`` metadata of the gRPC status).
"""

from __future__ import annotations

from typing import Any


class CroupierError(Exception):
    """Base of every error raised by the croupier library."""

    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason

    def details(self) -> dict[str, str]:
        """Machine-readable facts about the error (field names, limits, positions)."""
        return {}

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class, its arguments and its attributes, whatever keywords its
        constructor requires (``Exception``'s own pickling calls the class with the
        positional arguments alone): an error raised in another process (the dealer's
        writer process, the audit's workers) arrives whole."""
        return (_restore, (type(self), self.args, dict(self.__dict__)))


def _restore(cls: type[CroupierError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    err = cls.__new__(cls, *args)
    err.__dict__.update(state)
    return err


class InvalidInput(CroupierError):
    reason = "invalid_input"


class NotationError(InvalidInput):
    reason = "bad_notation"


class ConfigError(InvalidInput):
    reason = "bad_config"


class UnknownVariant(InvalidInput):
    reason = "unknown_variant"


class AlreadyExists(InvalidInput):
    reason = "already_exists"


class FieldRejected(InvalidInput):
    """A request field outside its limit; ``field`` names it, ``limit`` is the bound."""

    reason = "bad_field"

    def __init__(
        self, message: str, *, reason: str | None = None, field: str, limit: int | None = None
    ) -> None:
        super().__init__(message, reason=reason)
        self.field = field
        self.limit = limit

    def details(self) -> dict[str, str]:
        out = {"field": self.field}
        if self.limit is not None:
            out["limit"] = str(self.limit)
        return out


class RuleViolation(InvalidInput):
    reason = "rule_violation"


class BetRejected(RuleViolation):
    reason = "bet_rejected"


class ActionRejected(RuleViolation):
    reason = "action_rejected"


class IntegrityError(CroupierError):
    reason = "integrity"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        stream: str | None = None,
        seq: int | None = None,
    ) -> None:
        super().__init__(message, reason=reason)
        self.stream = stream
        self.seq = seq

    def details(self) -> dict[str, str]:
        out = {}
        if self.stream is not None:
            out["stream"] = self.stream
        if self.seq is not None:
            out["seq"] = str(self.seq)
        return out


class SignatureError(IntegrityError):
    reason = "bad_signature"


class UnknownKey(IntegrityError):
    reason = "unknown_key"


class ChainError(IntegrityError):
    reason = "broken_chain"


class FairnessError(IntegrityError):
    reason = "unfair_deal"


class SigningKeyRevoked(CroupierError):
    """This service's own signing key is revoked in the trusted keyring: it refuses to
    sign (and so to write) anything more until it is given a new key."""

    reason = "signing_key_revoked"


class StaleSequence(CroupierError):
    """Optimistic concurrency: the caller expected the hand at another sequence number."""

    reason = "seq_mismatch"

    def __init__(self, message: str, *, expected: int, actual: int) -> None:
        super().__init__(message)
        self.expected = expected
        self.actual = actual

    def details(self) -> dict[str, str]:
        return {"expected_seq": str(self.expected), "last_seq": str(self.actual)}


class MoneyError(CroupierError):
    reason = "money"


class StoreError(CroupierError):
    reason = "store"


class DuplicateEvent(StoreError):
    reason = "duplicate_event"


class IdempotencyConflict(StoreError):
    reason = "idempotency_conflict"


class NotFound(StoreError):
    reason = "not_found"


class TableOwnedElsewhere(StoreError):
    """Another dealer holds a live lease on the table (see croupier.store.leases)."""

    reason = "table_owned_elsewhere"

    def __init__(self, message: str, *, table_id: str, owner: str, address: str) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.owner = owner
        self.address = address

    def details(self) -> dict[str, str]:
        return {"table_id": self.table_id, "owner": self.owner, "owner_address": self.address}


class StaleFencingToken(StoreError):
    """A write carried a fencing token that is not the table's current one."""

    reason = "stale_fencing_token"

    def __init__(self, message: str, *, table_id: str, token: int, current: int) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.token = token
        self.current = current

    def details(self) -> dict[str, str]:
        return {
            "table_id": self.table_id,
            "fencing_token": str(self.token),
            "current_token": str(self.current),
        }


class StoreUnavailable(StoreError):
    """The database cannot be reached (connection refused, lost, or the file gone):
    nothing was committed and the same call may be retried once the store is back."""

    reason = "store_unavailable"


class BusUnavailable(CroupierError):
    """No NATS server of the URL answered within the first connect's deadline (refused,
    unreachable, or refusing the credentials); the message names the last reason. Once
    connected, a client reconnects on its own and never raises this."""

    reason = "bus_unavailable"


class AuditMismatch(CroupierError):
    reason = "audit_mismatch"

    def __init__(self, message: str, *, stream: str | None = None, seq: int | None = None) -> None:
        super().__init__(message)
        self.stream = stream
        self.seq = seq


class AuthError(CroupierError):
    reason = "auth"


class Unauthenticated(AuthError):
    reason = "unauthenticated"


class PermissionDenied(AuthError):
    reason = "permission_denied"
