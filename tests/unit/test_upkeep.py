"""Memory upkeep: start-up frozen out of the collector, the C allocator trimmed."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from croupier import upkeep


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the suite collects as before


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_what_is_alive_at_the_freeze_is_out_of_collections_and_later_objects_are_not(
    unfrozen: None,
) -> None:
    before = Cycle()
    n = upkeep.freeze_startup()
    assert n == gc.get_freeze_count() > 0
    assert gc.is_tracked(before)
    assert all(o is not before for o in gc.get_objects())  # the permanent generation
    after = Cycle()
    assert any(after is o for o in gc.get_objects())  # in the collector's generations


def test_cyclic_garbage_made_after_the_freeze_is_still_collected(unfrozen: None) -> None:
    upkeep.freeze_startup()
    gone = []
    c = Cycle()
    weakref.finalize(c, gone.append, True)
    del c
    gc.collect()
    assert gone == [True]


@pytest.mark.skipif(upkeep._TRIM is None, reason="the C library is not glibc: trim is a no-op")
def test_trim_gives_back_the_free_pages_glibc_kept() -> None:
    # 4 KiB objects come from malloc (larger than pymalloc's 512 B); the last one is kept
    # so the heap's top cannot shrink by itself: what free() left in the middle stays
    # resident until trimmed
    blocks = [bytes(4096) for _ in range(12_000)]
    keep = blocks[-1]
    del blocks
    rss = upkeep.rss_bytes()
    released = upkeep.trim()
    assert released > 20 * 2**20, (released, rss)
    assert upkeep.rss_bytes() <= rss - released + 2**20
    assert len(keep) == 4096


def test_trim_without_glibc_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upkeep, "_TRIM", None)
    assert upkeep.trim() == 0


def test_the_trimmer_trims_on_its_period_and_stops_when_told() -> None:
    seen: list[int] = []
    t = upkeep.Trimmer(every_s=0.01, on_trim=seen.append)

    async def go() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(t.run(stop))
        while t.trims < 3:
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(task, 1)

    asyncio.run(go())
    assert t.trims >= 3 and len(seen) == t.trims
    assert t.released == sum(seen) and all(n >= 0 for n in seen)


# --- the collector paused for a batch


def _cycle_gone() -> list[bool]:
    gone: list[bool] = []
    c = Cycle()
    weakref.finalize(c, gone.append, True)
    return gone


def test_nothing_is_collected_inside_a_pause_and_the_collector_comes_back_after_it() -> None:
    assert gc.isenabled()
    with upkeep.collector_paused():
        assert not gc.isenabled()
        gone = _cycle_gone()
        for _ in range(20_000):  # far past every generation's threshold
            _ = [[]]
        assert gone == []  # garbage, but not collected
    assert gc.isenabled()
    gc.collect()
    assert gone == [True]


def test_a_collection_due_at_the_end_of_a_pause_is_made_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Batches back to back allocate nothing between two pauses: the pass the collector
    owes is made when the pause ends, and the older generations get theirs."""
    made: list[int] = []
    monkeypatch.setattr(upkeep.gc, "collect", made.append)
    t0, t1, t2 = gc.get_threshold()
    counts = iter([(5, 0, 0), (t0 + 1, 0, 0), (t0 + 1, t1 + 1, 0), (t0 + 1, t1 + 1, t2 + 1)])
    monkeypatch.setattr(upkeep.gc, "get_count", lambda: next(counts))
    for _ in range(4):
        with upkeep.collector_paused():
            pass
    assert made == [0, 1, 2]  # none due after the first, then the oldest one due


def test_overlapping_pauses_resume_once_after_the_last_and_only_if_the_collector_was_on() -> None:
    a, b = upkeep.collector_paused(), upkeep.collector_paused()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # the first to start ends first: b still runs
    assert not gc.isenabled()
    b.__exit__(None, None, None)
    assert gc.isenabled()
    gc.disable()  # a process that runs with the collector off keeps it off
    try:
        with upkeep.collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_pause_ends_when_its_block_raises() -> None:
    with pytest.raises(RuntimeError), upkeep.collector_paused():
        raise RuntimeError("the batch failed")
    assert gc.isenabled()


def test_a_consumer_batch_runs_with_the_collector_paused() -> None:
    """The consumer loop's batch (decode, check, handle, commit) is inside one pause."""
    from croupier_services.consumer import ConsumerLoop

    seen: list[bool] = []

    class Loop(ConsumerLoop):
        def __init__(self) -> None:
            pass

        async def _process(self, msgs: list[object]) -> None:  # type: ignore[override]
            seen.append(gc.isenabled())

    asyncio.run(Loop().process([]))
    assert seen == [False] and gc.isenabled()


def test_pauses_from_many_threads_leave_the_collector_on() -> None:
    import threading

    start = threading.Barrier(8)

    def work() -> None:
        start.wait()
        for _ in range(2_000):
            with upkeep.collector_paused():
                pass

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.isenabled() and upkeep._PAUSES == 0
