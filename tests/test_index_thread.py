"""The index thread's hand-off: bounded by queued chunks, errors surface on the caller's
thread, and an abandoned run leaves what is queued alone. The Typesense side of the
same path is exercised end to end in test_ingest.py and test_interrupted.py."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline import chunk_markdown
from pipeline.index.records import ChunkRecord
from pipeline.index.schema import Encoded
from pipeline.ingest import FileResult, IndexThread

CHUNK = ChunkRecord.from_chunk(chunk_markdown("# A\n\ntext\n")[0], "markdown")


class Recorder:
    """Takes results like ``Indexer`` does; ``add`` waits for ``gate`` when it is set up."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batch: list[ChunkRecord | Encoded] = []
        self.added: list[str] = []
        self.flushes = 0
        self.finals = 0
        self.gate: threading.Event | None = None
        self.fail_on = fail_on

    def add(self, result: FileResult) -> None:
        if self.gate is not None:
            assert self.gate.wait(10)
        if result.path == self.fail_on:
            raise RuntimeError(f"store refused {result.path}")
        self.added.append(result.path)
        self.batch.extend(result.chunks)

    @property
    def pending(self) -> int:
        return len(self.batch)

    def flush(self, final: bool = True) -> None:
        self.flushes += 1
        self.finals += final
        self.batch = []


def result(name: str, chunks: int) -> FileResult:
    return FileResult(name, name, 1, None, (CHUNK,) * chunks, None, 0.0, 0.0)


def put_in_thread(writer: IndexThread, item: FileResult) -> threading.Thread:
    t = threading.Thread(target=writer.put, args=(item,), daemon=True)
    t.start()
    return t


def test_put_waits_while_the_queue_holds_its_limit_of_chunks() -> None:
    rec = Recorder()
    rec.gate = threading.Event()
    writer = IndexThread(rec, limit=10, min_batch=10**9)
    writer.put(result("a", 1))  # taken by the thread, which then waits on the gate
    deadline = time.monotonic() + 5
    while writer.items and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.put(result("b", 6))
    writer.put(result("c", 4))  # 10 chunks queued: at the limit, allowed
    blocked = put_in_thread(writer, result("d", 1))
    blocked.join(0.3)
    assert blocked.is_alive(), "an eleventh queued chunk must wait"
    rec.gate.set()
    blocked.join(5)
    assert not blocked.is_alive()
    writer.finish()
    assert rec.added == ["a", "b", "c", "d"]
    assert rec.flushes == rec.finals == 1  # the final flush only (min_batch never reached)


def test_a_result_larger_than_the_limit_goes_through_alone() -> None:
    rec = Recorder()
    writer = IndexThread(rec, limit=5)
    writer.put(result("big", 50))
    writer.put(result("small", 1))
    writer.finish()
    assert rec.added == ["big", "small"]


def test_an_error_on_the_thread_is_raised_to_the_caller() -> None:
    rec = Recorder(fail_on="b")
    writer = IndexThread(rec)
    writer.put(result("a", 2))
    writer.put(result("b", 2))
    with pytest.raises(RuntimeError, match="store refused b"):
        writer.finish()
    assert rec.added == ["a"] and rec.flushes == 0
    writer.abandon()  # what ingest's ``finally`` does: returns at once
    assert not writer.thread.is_alive()


def test_abandon_leaves_queued_results_unindexed() -> None:
    rec = Recorder()
    rec.gate = threading.Event()
    writer = IndexThread(rec)
    for name in "abc":
        writer.put(result(name, 1))
    deadline = time.monotonic() + 5
    while len(writer.items) > 2 and time.monotonic() < deadline:  # "a" is in flight
        time.sleep(0.01)
    stopper = threading.Thread(target=writer.abandon, daemon=True)
    stopper.start()
    rec.gate.set()  # the call in flight completes ...
    stopper.join(5)
    assert not stopper.is_alive() and not writer.thread.is_alive()
    assert rec.added == ["a"] and rec.flushes == 0  # ... and nothing after it runs


def test_idle_thread_sends_a_partial_batch_early() -> None:
    rec = Recorder()
    writer = IndexThread(rec, min_batch=3)
    writer.put(result("a", 3))
    deadline = time.monotonic() + 5
    while rec.flushes == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert rec.flushes == 1 and rec.finals == 0  # Typesense gets work early ...
    writer.finish()
    assert rec.flushes == 2 and rec.finals == 1  # ... and the last flush completes the run
