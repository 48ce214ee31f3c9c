"""The table grants the dealer keeps in memory for the authentication interceptor.

Every gateway call at a table is admitted only if the calling gateway holds the table
(:mod:`croupier.store.grants`). Reading that from the store on every call cost two
reads per call on the event loop; :class:`GrantCache` keeps each table's holders
instead, with the number of the table's recorded changes (revocations, re-grants) seen
when they were read (:class:`~croupier.store.grants.TableGrants`). How each way a grant
can change is seen:

* a gateway opens a table here: the interceptor records the grant, and the table's
  entry is forgotten (the next call reads the holders again);
* a grant made elsewhere (another replica's ``OpenTable``, ``croupier auth grant``,
  an operator's re-grant after a revocation): a caller not among the remembered
  holders is never refused from memory — the interceptor reads the store again before
  refusing (:meth:`croupier.auth.AuthInterceptor._owners`), which refreshes the entry;
* a revocation made elsewhere (``croupier auth revoke``, by the CLI or any other
  process): grants are append-only, so a revocation always adds a
  ``table_grant_changes`` row and raises the table's change count. A call admitted
  from memory carries the count it was admitted on (:class:`GrantCheck`) to the
  transaction that stores its effect; that transaction reads the counts of its
  group's tables (one indexed read per group, not per call) and, for a table whose
  count moved, whether the caller still holds it — a caller that does not is refused
  there (``PERMISSION_DENIED``, nothing written, the table rebuilt from the log) and
  the entry is forgotten. The transaction starts after the call did, so a revocation
  committed before a call holds for that call, as when every call read the store;
* the table moves between dealer replicas: the entry is forgotten when this replica
  takes the table's lease for a new tenure or drops the table from memory
  (:meth:`croupier_services.dealer.DealerCore.drop`), and reloaded on the next call —
  the commit's count check holds either way.

Only calls whose effect is stored through that commit use the memory (the rules marked
``rechecked`` in :mod:`croupier.auth.policy`); views, streams and seat tokens, which
store nothing, are checked against the store on every call. A table nobody holds is
not remembered: every call there reads the store, and is refused by it.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from croupier.auth import current_identity
from croupier.picklable import ByFields
from croupier.store import EventStore
from croupier.store.grants import TableGrants

_admitted: contextvars.ContextVar[TableGrants | None] = contextvars.ContextVar(
    "croupier_admitted_grants", default=None
)


@dataclass(frozen=True, slots=True)
class GrantCheck(ByFields):
    """What the commit of a call admitted on a table's grants checks: that the table
    still counts ``changes`` changes, or else that ``gateway`` still holds it."""

    table_id: str
    gateway: str
    changes: int


class GrantCache:
    """Each table's holders as last read, on the event loop only (see the module
    docstring for when an entry is read, trusted and forgotten)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._tables: dict[str, TableGrants] = {}
        self.loads = 0  # reads of a table's holders (misses and refreshes)

    def __len__(self) -> int:
        return len(self._tables)

    def owners(self, table_id: str, *, cached: bool) -> frozenset[str]:
        """``table_id``'s holders (from memory when ``cached`` and remembered, else read
        and remembered), noted for this call's commit (:meth:`check_for`)."""
        g = self._tables.get(table_id) if cached else None
        if g is None:
            g = self.load(table_id)
        _admitted.set(g)
        return g.owners

    def load(self, table_id: str) -> TableGrants:
        """Read the table's holders from the store and remember them (a table nobody
        holds is forgotten instead)."""
        self.loads += 1
        g = self.store.table_grants(table_id)
        if g.owners:
            self._tables[table_id] = g
        else:
            self._tables.pop(table_id, None)
        return g

    def forget(self, table_id: str) -> None:
        self._tables.pop(table_id, None)

    @staticmethod
    def check_for(table_id: str) -> GrantCheck | None:
        """The check the commit of the current call at ``table_id`` makes: ``None`` when
        the caller was not admitted on the table's grants (no interceptor, a table being
        opened, a dealer's own move)."""
        g = _admitted.get()
        ident = current_identity()
        if g is None or ident is None or g.table_id != table_id or ident.subject not in g.owners:
            return None
        return GrantCheck(table_id, ident.subject, g.changes)
