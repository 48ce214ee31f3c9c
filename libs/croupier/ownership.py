"""Which tables this dealer replica owns: its leases (:mod:`croupier.store.leases`) and
their fencing tokens, as the dealer core uses them.

A replica claims a table the first time it writes to it (:meth:`Ownership.claim`, which
also extends a lease it already holds), carries the lease's token on every batch (the
store checks it in the append transaction), renews its leases periodically
(:meth:`renew_all`, dropping any it lost), releases a table's as soon as it closes
(:meth:`release`) and all of them when it drains (:meth:`release_all`). Another
replica's live lease makes :meth:`claim` raise
:class:`~croupier.errors.TableOwnedElsewhere`, which names the owner so the caller can be
routed there. Times come from the injected clock (ms).

The store's halves (:meth:`Ownership.acquire`, :meth:`Ownership.renew`) touch nothing
held here, so a service runs them off its event loop (a lease row another transaction
holds locked makes them wait, up to the store's limit); what they answer is recorded on
the owner's thread (:meth:`Ownership.apply_renewal`), where a claim, release or renewal
made meanwhile is the newer fact and wins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from croupier.store.leases import Lease, LeaseStore


@dataclass(frozen=True, slots=True)
class Renewal:
    """The store's answer to one renewal of the held leases (:meth:`Ownership.renew`)."""

    renewed: dict[str, Lease]
    lost: tuple[str, ...]


class Ownership:
    """One replica's leases (see the module docstring)."""

    def __init__(
        self,
        store: LeaseStore,
        dealer_id: str,
        address: str,
        ttl_ms: int,
        clock_ms: Callable[[], int],
    ) -> None:
        self.store = store
        self.dealer_id = dealer_id
        self.address = address
        self.ttl_ms = ttl_ms
        self.clock_ms = clock_ms
        self.leases: dict[str, Lease] = {}

    @property
    def tokens(self) -> dict[str, int]:
        return {t: lease.token for t, lease in self.leases.items()}

    def claim(self, table_id: str) -> Lease:
        """This replica's live lease on ``table_id`` (taken or extended now)."""
        lease = self.acquire(table_id)
        self.leases[table_id] = lease
        return lease

    def acquire(self, table_id: str) -> Lease:
        """The store's half of :meth:`claim` (the lease taken or extended), touching
        nothing held here: it may run on another thread while the caller goes on, and
        the caller records the lease (``leases[table_id] = lease``) on its own."""
        return self.store.acquire_lease(
            table_id, self.dealer_id, self.address, self.ttl_ms, self.clock_ms()
        )

    def lease_for(self, table_id: str) -> Lease:
        """The lease to write ``table_id`` under: the one held while it is live by this
        replica's clock (the renew loop keeps it so, and the write's fence is the final
        check), else one claimed now. Saves a lease transaction on every write."""
        lease = self.leases.get(table_id)
        if lease is not None and lease.live(self.clock_ms()):
            return lease
        return self.claim(table_id)

    def renew_all(self) -> list[str]:
        """Renew every held lease; returns (and forgets) the tables whose lease was lost."""
        held = self.held()
        return self.apply_renewal(held, self.renew(held))

    def held(self) -> dict[str, Lease]:
        """The leases held now: what :meth:`renew` renews."""
        return dict(self.leases)

    def renew(self, held: Mapping[str, Lease]) -> Renewal:
        """The store's half of :meth:`renew_all`: every lease of ``held`` renewed in one
        transaction, nothing held here touched, so that it may run on another thread
        while the caller goes on claiming and releasing; :meth:`apply_renewal` then
        records the answer on the caller's thread."""
        renewed, lost = self.store.renew_leases(held, self.dealer_id, self.ttl_ms, self.clock_ms())
        return Renewal(renewed, tuple(lost))

    def apply_renewal(self, held: Mapping[str, Lease], answer: Renewal) -> list[str]:
        """Record ``answer`` for the leases of ``held`` still held as they were (one
        claimed anew, released or renewed meanwhile is the newer fact and stays);
        returns (and forgets) the tables whose lease was lost."""
        for t, lease in answer.renewed.items():
            if self.leases.get(t) is held[t]:
                self.leases[t] = lease
        lost = []
        for t in answer.lost:
            if self.leases.get(t) is held[t]:
                del self.leases[t]
                lost.append(t)
        return lost

    def release(self, table_id: str) -> bool:
        """Release and forget the lease on ``table_id`` (the table was closed); returns
        whether it was still ours. Nothing is held for a table this replica closed."""
        lease = self.leases.pop(table_id, None)
        if lease is None:
            return False
        return self.store.release_lease(table_id, self.dealer_id, lease.token, self.clock_ms())

    def release_all(self) -> int:
        """Release every held lease (drain); returns how many were still ours."""
        n = 0
        for table_id, lease in list(self.leases.items()):
            n += self.store.release_lease(table_id, self.dealer_id, lease.token, self.clock_ms())
            del self.leases[table_id]
        return n
