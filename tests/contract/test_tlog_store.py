"""The seal log in SQL (:mod:`croupier.store.tlog`), on every backend: each stored seal
gets the next leaf in the same transaction, checkpoints stay consistent across 10,000
appended batches, proofs from the store verify, and the tables are append-only."""

from __future__ import annotations

import itertools
import random

import pytest
import sqlalchemy as sa

from croupier.events import Event, Seal, StreamWriter, heads_of, seal
from croupier.signing import FileSigner, Signer
from croupier.store import Store, StreamInfo
from croupier.tlog import merkle, seal_leaf_hash
from croupier.tlog.note import NoteSigner, open_checkpoint

LOG = NoteSigner("croupier.test/log", FileSigner.from_seed("log", "log-test", bytes([7]) * 32))


def _batch(signer: Signer, i: int) -> tuple[list[StreamInfo], list[Event], list[Seal]]:
    w = StreamWriter(f"h{i}")
    w.append(signer, "bet", {"i": i})
    evs = w.take()
    return (
        [StreamInfo(f"h{i}", "hand", "baccarat", "t1", None, 1_000 + i)],
        evs,
        [seal(signer, heads_of(evs), 1_000 + i)],
    )


def test_checkpoints_stay_consistent_across_10000_appended_batches(
    store: Store, dealer: Signer
) -> None:
    rng = random.Random(14)
    sealed: list[Seal] = []
    checkpoints = []
    i = 0
    while i < 10_000:
        k = min(rng.choice((1, 7, 50, 200)), 10_000 - i)
        infos, evs, seals = [], [], []
        for j in range(i, i + k):
            a, b, c = _batch(dealer, j)
            infos += a
            evs += b
            seals += c
        store.append(evs, seals, infos)
        sealed += seals
        i += k
        if rng.random() < 0.2 or i == 10_000:
            cp = store.publish_checkpoint(LOG, 5_000 + i)
            assert cp is not None and cp.size == i
            checkpoints.append(open_checkpoint(cp.note, LOG.verifier))
    assert store.tlog_size() == 10_000
    assert store.publish_checkpoint(LOG, 99_999) is None  # nothing new: nothing published
    # the stored root is the RFC 6962 root of the seals' leaves, in append order
    leaves = [seal_leaf_hash(s) for s in sealed]
    assert checkpoints[-1].root == merkle.root_from_leaf_hashes(leaves)
    assert store.tlog_leaves(limit=20_000) == [(n, s.seal_id) for n, s in enumerate(sealed)]
    # every checkpoint is consistent with every later one (pairs sampled) and the last
    pairs = list(itertools.pairwise(checkpoints))
    pairs += [(checkpoints[0], checkpoints[-1])]
    for _ in range(20):
        x, y = sorted(rng.sample(checkpoints, 2), key=lambda c: c.size)
        pairs.append((x, y))
    for old, new in pairs:
        proof = store.consistency_proof(old.size, new.size)
        assert len(proof) <= 2 * new.size.bit_length()
        merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
    # inclusion of sampled seals against the last checkpoint
    last = checkpoints[-1]
    idx = store.leaf_indices([sealed[n].seal_id for n in (0, 1, 4095, 4096, 9999)])
    for n in (0, 1, 4095, 4096, 9999):
        assert idx[sealed[n].seal_id] == n
        merkle.verify_inclusion(
            n, last.size, leaves[n], store.inclusion_proof(n, last.size), last.root
        )
    # the log keeps every perfect subtree and nothing more
    with store.engine.connect() as conn:
        nodes = conn.exec_driver_sql("SELECT count(*) FROM tlog_nodes").scalar_one()
    assert nodes == 2 * 10_000 - bin(10_000).count("1")
    # a rewritten log cannot pose as an extension of a checkpoint
    forged = [*leaves[:5000], merkle.leaf_hash(b"rewritten"), *leaves[5001:]]
    forged_root = merkle.root_from_leaf_hashes(forged)
    with pytest.raises(merkle.ProofError):
        merkle.verify_consistency(
            checkpoints[-1].size, 10_000, checkpoints[-1].root, forged_root, []
        )


def test_first_checkpoint_including_a_seal(store: Store, dealer: Signer) -> None:
    for i in range(3):
        a, b, c = _batch(dealer, i)
        store.append(b, c, a)
    first = store.publish_checkpoint(LOG, 10)
    a, b, c = _batch(dealer, 3)
    store.append(b, c, a)
    assert store.first_checkpoint_including(c[0].seal_id) is None  # not yet checkpointed
    second = store.publish_checkpoint(LOG, 20)
    assert first is not None and second is not None
    assert store.first_checkpoint_including(c[0].seal_id) == second
    s0 = store.tlog_leaves()[0][1]
    assert store.first_checkpoint_including(s0) == first
    # the time it vouches for is signed inside the note
    assert open_checkpoint(second.note, LOG.verifier).time_ms == second.published_at_ms == 20
    # an idempotent re-append of a stored seal gets no second leaf
    store.append(b, c, a)
    assert store.tlog_size() == 4


class _Abandon(Exception):
    pass


def test_units_of_work_of_two_writers_with_rollbacks_keep_one_tree(
    engine: sa.Engine, dealer: Signer
) -> None:
    """Each writer keeps the edge it appended; another writer's appends, and a unit of
    work rolled back after its leaves were computed, must make it read the edge again.
    Several batches per unit of work get their leaves together at commit, in order."""
    a = Store(engine)
    b = Store(engine.execution_options(croupier_second_writer=True))  # its own edge cache
    rng = random.Random(17)
    committed: list[Seal] = []
    i = 0
    for _ in range(120):
        writer = rng.choice((a, b))
        batches = [_batch(dealer, j) for j in range(i, i + rng.choice((1, 1, 2, 5)))]
        i += len(batches)
        fate = rng.choice(("commit", "commit", "commit", "abandon", "abandon_after_leaves"))
        try:
            with writer.transaction() as uow:
                for infos, evs, seals in batches:
                    uow.append(evs, seals, infos)
                if fate == "abandon_after_leaves":
                    uow.flush_log()  # leaves written (and the edge kept), then rolled back
                if fate != "commit":
                    raise _Abandon
        except _Abandon:
            continue
        committed += [s for _, _, seals in batches for s in seals]
    assert a.tlog_leaves(limit=1_000) == [(n, s.seal_id) for n, s in enumerate(committed)]
    leaves = [seal_leaf_hash(s) for s in committed]
    assert a.tlog_root() == (len(committed), merkle.root_from_leaf_hashes(leaves))
    n = len(committed)
    for k in (0, n // 2, n - 1):
        proof = b.inclusion_proof(k, n)
        merkle.verify_inclusion(k, n, leaves[k], proof, a.tlog_root()[1])


@pytest.mark.parametrize("table", ["tlog_leaves", "tlog_nodes", "tlog_checkpoints"])
def test_the_log_tables_are_append_only(store: Store, dealer: Signer, table: str) -> None:
    a, b, c = _batch(dealer, 0)
    store.append(b, c, a)
    store.publish_checkpoint(LOG, 10)
    for sql in (f"DELETE FROM {table}",):
        with pytest.raises(sa.exc.DBAPIError) as err, store.engine.begin() as conn:
            conn.exec_driver_sql(sql)
        assert "append-only" in str(err.value)


def test_leaf_seals_give_each_leaf_its_stored_seal(store: Store, dealer: Signer) -> None:
    """The log as the auditor replays it (``croupier audit --all``): each leaf with the
    seal stored under its id, decoded from the joined row as from the seal's own."""
    sealed: list[Seal] = []
    for i in range(5):
        infos, evs, seals = _batch(dealer, i)
        store.append(evs, seals, infos)
        sealed += seals
    got = store.leaf_seals()
    assert [(n, sid) for n, sid, _ in got] == [(n, s.seal_id) for n, s in enumerate(sealed)]
    assert [s for _, _, s in got] == sealed
    assert [s for _, _, s in store.leaf_seals(after=2, limit=1)] == sealed[3:4]
