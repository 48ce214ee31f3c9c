"""Seals of both versions in the store (revision 0012): version-1 seals written before
it read back as version 1, version-2 seals keep their version, a seal that carries only
part of its entries is refused with nothing written, and the downgrade refuses to drop
the column while version-2 seals exist."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest
import sqlalchemy as sa
from alembic import command

from croupier.errors import InvalidInput
from croupier.events import Event, Seal, SealVerifier, StreamWriter, heads_of, seal
from croupier.signing import Signer
from croupier.store import Store, StreamInfo, migrate
from croupier.store.db import alembic_config


def _hand(signer: Signer, hand_id: str) -> tuple[list[Event], StreamInfo]:
    w = StreamWriter(hand_id)
    for i in range(3):
        w.append(signer, "bet", {"seat": i, "amount": 100 + i})
    return w.take(), StreamInfo(hand_id, "hand", "baccarat", "t1", None, 1_000)


def _v1(signer: Signer, s: Seal) -> Seal:
    body = Seal.body(s.producer, s.key_id, s.sealed_at_ms, s.entries)
    return Seal(s.producer, s.key_id, s.sealed_at_ms, s.entries, signer.sign("seal", body))


def test_both_versions_round_trip_and_a_part_is_refused(store: Store, dealer: Signer) -> None:
    store.put_key(dealer.public_entry())
    a, ia = _hand(dealer, "h1")
    b, ib = _hand(dealer, "h2")
    c, ic = _hand(dealer, "h3")
    old = _v1(dealer, seal(dealer, heads_of(a), 1_000))
    new = seal(dealer, heads_of([*b, *c]), 2_000)
    store.append(a, [old], [ia])
    store.append([*b, *c], [new], [ib, ic])
    assert store.get_seal(old.seal_id) == old and store.get_seal(old.seal_id).version == 1
    assert store.get_seal(new.seal_id) == new and store.get_seal(new.seal_id).version == 2
    registry = store.key_registry()
    for h in ("h1", "h2", "h3"):
        SealVerifier(registry).check_coverage(store.read_stream(h), store.seals_for(h))

    d, i_d = _hand(dealer, "h4")
    e, _ = _hand(dealer, "h5")
    part = seal(dealer, heads_of([*d, *e]), 3_000).part_for({"h4"})
    assert part is not None and part.part is not None
    with pytest.raises(InvalidInput, match="stored whole"):
        store.append(d, [part], [i_d])
    assert store.read_stream("h4") == [] and store.seals_for("h4") == []


def test_upgrade_marks_old_seals_version_1_and_downgrade_guards_version_2(
    engine_at_revision: Callable[[str], AbstractContextManager[sa.Engine]], dealer: Signer
) -> None:
    with engine_at_revision("0011") as eng:
        with eng.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO seals (seal_id, producer, key_id, sealed_at_ms, entries, "
                    "signature) VALUES ('a1', 'dealer', 'dealer-1', 5, :e, :s)"
                ),
                {"e": b"[]", "s": bytes(64)},
            )
        migrate(eng, "0012")
        with eng.connect() as conn:
            assert conn.execute(sa.text("SELECT version FROM seals")).scalar_one() == 1
        store = Store(eng)
        store.put_key(dealer.public_entry())
        evs, info = _hand(dealer, "h1")
        store.append(evs, [seal(dealer, heads_of(evs), 2_000)], [info])
        with eng.connect() as conn, pytest.raises(RuntimeError, match="version 2"):
            command.downgrade(alembic_config(conn), "0011")
        with eng.connect() as conn:  # nothing changed
            assert (
                conn.execute(sa.text("SELECT count(*) FROM seals WHERE version = 2")).scalar_one()
                == 1
            )
