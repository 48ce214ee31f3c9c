"""Key validity judged by the log, not by the signer's clock.

A seal by a key revoked at ``T`` is good iff a checkpoint signed by the log's key (and
verified here under the key the auditor pins) with a time before ``T`` already
included it: the log then vouches the seal existed before the compromise. A seal the
signer backdated but that reached the log after ``T`` is first included by a later
checkpoint and fails, whatever ``sealed_at_ms`` it carries.

:class:`CheckpointWitness` is the ``seen_at`` of a :class:`~croupier.events.SealVerifier`
in an audit of the store. It looks the log up only for seals whose key is revoked (one
indexed query per such seal, remembered: the first checkpoint that included a seal never
changes, so a seal met again — one seal covers every hand of its commit — costs a
dictionary probe; and one signature check per distinct checkpoint); for every other seal
it answers ``None`` without a query (nothing is asked of the witness then).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from croupier.errors import CroupierError, UnknownKey
from croupier.events import Seal
from croupier.signing import KeyRegistry
from croupier.tlog.note import NoteVerifier, open_checkpoint


class _Stored(Protocol):
    @property
    def note(self) -> str: ...


class CheckpointWitness:
    """``seen_at(seal)``: the signed time of the first checkpoint that included the seal,
    for seals of revoked keys; ``None`` (no witness) when the key is not revoked, no log
    key is pinned, the seal is in no checkpoint yet, or the checkpoint does not verify
    under the pinned key."""

    def __init__(
        self,
        registry: KeyRegistry,
        first_including: Callable[[str], _Stored | None],
        log_key: NoteVerifier | None,
    ) -> None:
        self.registry = registry
        self.first_including = first_including
        self.log_key = log_key
        self.lookups = 0  # log queries made (one per seal of a revoked key)
        self._times: dict[str, int | None] = {}  # checkpoint note -> its verified time
        # seal id -> its first checkpoint's verified time, once the log has one (a seal
        # in no checkpoint yet is asked again: a later checkpoint may include it)
        self._seen: dict[str, int | None] = {}

    def _revoked(self, s: Seal) -> bool:
        try:
            return self.registry.get(s.key_id).revoked_at_ms is not None
        except UnknownKey:
            return False

    SEEN = 100_000  # seals remembered, at most (the oldest half dropped beyond)

    def __call__(self, s: Seal) -> int | None:
        if self.log_key is None or not self._revoked(s):
            return None
        if s.seal_id in self._seen:
            return self._seen[s.seal_id]
        self.lookups += 1
        try:
            stored = self.first_including(s.seal_id)
        except CroupierError:  # not in the log at all
            return None
        if stored is None:
            return None
        note = stored.note
        if note not in self._times:
            try:
                self._times[note] = open_checkpoint(note, self.log_key).time_ms
            except CroupierError:
                self._times[note] = None  # not the pinned log's: vouches for nothing
        if len(self._seen) >= self.SEEN:
            for old in list(self._seen)[: self.SEEN // 2]:
                del self._seen[old]
        self._seen[s.seal_id] = self._times[note]
        return self._times[note]
