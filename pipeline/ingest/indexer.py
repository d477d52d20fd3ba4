"""The Typesense side of an ingest: results in, chunk batches out, and a document's
record marked complete only once every one of its chunks is acknowledged; on a cluster,
each node is then asked whether it holds them (``verify``)."""

from __future__ import annotations

import time
from typing import Protocol

from ..index.documents import release
from ..index.records import ChunkRecord, DocumentRecord
from ..index.schema import CHUNKS, DOCUMENTS, Encoded
from ..index.store import BATCH_SIZE, Store, quote
from .catalog import Plan
from .embedding import Embedding
from .files import Failure
from .plan import failure_record
from .process import FileResult
from .report import Report
from .verify import Verifier


class Sink(Protocol):
    """Where the index thread hands results: ``Indexer`` writes them to Typesense."""

    @property
    def pending(self) -> int:
        """Chunks taken but not sent yet."""
        ...

    def add(self, result: FileResult) -> None: ...

    def flush(self, final: bool = True) -> None: ...


class Indexer:
    """Streams chunk batches across documents; completes a document when all of its
    chunks are acknowledged."""

    def __init__(
        self,
        store: Store,
        work: Plan,
        known: set[str],
        report: Report,
        fingerprint: str,
        batch_size: int = BATCH_SIZE,
        embedding: Embedding | None = None,
    ) -> None:
        self.store = store
        self.embedding = embedding  # snippets get their vectors here, on the index thread
        self.fingerprint = fingerprint
        self.plan = work
        self.known = known  # doc_ids with records: chunks of earlier runs may be stored
        self.batch_size = batch_size
        self.completed: list[DocumentRecord] = []
        self.report = report
        self.batch: list[tuple[str, Encoded]] = []  # (doc_id, chunk)
        self.waiting: dict[str, tuple[FileResult, int]] = {}  # doc_id -> (result, chunks left)
        self.records: list[DocumentRecord] = []
        # On a cluster, each node is asked whether it holds what was acknowledged.
        self.verifier = Verifier(store, self._rewrite)

    @property
    def pending(self) -> int:
        return len(self.batch)

    def add(self, result: FileResult) -> None:
        if self.embedding is not None:
            result = self.embedding.result(result)
        if result.failure is not None:  # its record goes out with the next batch
            self.records.append(failure_record(result, self.fingerprint))
            return
        assert result.record is not None
        self.records.append(result.record)
        self.waiting[result.sha256] = (result, len(result.chunks))
        for doc in result.chunks:
            self.batch.append((result.sha256, _encoded(doc)))
            if len(self.batch) >= self.batch_size:
                self.flush(final=False)

    def flush(self, final: bool = True) -> None:
        """Send the batch. Records go first in one call: the documents completed by the
        previous batch, and the new ones as ``indexing`` (a crash after this leaves a
        visible trace); this batch's completions wait for the next call unless ``final``.
        On a cluster, completed documents are checked on every node (``verify``)."""
        t0 = time.perf_counter()
        # On a cluster: the documents completed a while ago, on every node.
        self.verifier.check_due()
        self._write_records(self.records)
        self.records = []
        batch, self.batch = self.batch, []
        docs = [doc for _, doc in batch]
        failures = {f.id: f.reason for f in self.store.upsert(CHUNKS, docs)} if batch else {}
        self.verifier.add(self._acknowledged(batch, failures))
        if final:
            self._write_records([])
            self.verifier.sweep()
        self.report.seconds["index"] += time.perf_counter() - t0

    def _acknowledged(
        self, batch: list[tuple[str, Encoded]], failures: dict[str, str]
    ) -> list[FileResult]:
        """Count each document's chunks the batch stored; the documents with none left
        are complete (returned)."""
        for doc_id, doc in batch:
            if doc_id not in self.waiting:  # its document already failed
                continue
            result, left = self.waiting[doc_id]
            if doc.id in failures:
                self._fail(result, f"chunk {doc.id}: {failures[doc.id]}")
                continue
            self.waiting[doc_id] = (result, left - 1)
        done = [result for result, left in self.waiting.values() if left == 0]
        for result in done:
            self._complete(result)
            del self.waiting[result.sha256]
        return done

    def _write_records(self, new: list[DocumentRecord]) -> None:
        """Upsert the pending completions (then count them as done) and ``new``."""
        if not (self.completed or new):
            return
        self.store.upsert(DOCUMENTS, [r.to_store() for r in self.completed + new])
        for record in self.completed:
            self.report.completed(record)
        self.completed = []

    def _fail(self, result: FileResult, reason: str) -> None:
        if result.sha256 in self.waiting:
            del self.waiting[result.sha256]
            self.report.failed.append(Failure(result.path, "index", reason))
            # Chunks of this document already stored must not stay searchable.
            self.store.delete_where(CHUNKS, f"doc_id:={quote(result.sha256)}")
            assert result.record is not None
            failed = result.record.with_status("failed", error=reason, stage="index")
            self.store.upsert(DOCUMENTS, [failed.to_store()])

    def _complete(self, result: FileResult) -> None:
        assert result.record is not None
        record = result.record
        if result.sha256 in self.known:
            # An earlier run (other settings, or interrupted) stored chunks under this
            # doc_id: drop the ones this run did not produce.
            self._drop_beyond(result)
        for old in self.plan.replaced.get(result.path, ()):  # another content, a copy's
            release(self.store, old, self.plan.held)
        self.completed.append(record.with_status("empty" if record.sections == 0 else "complete"))

    def _drop_beyond(self, result: FileResult) -> None:
        """Delete the chunks stored under this document's id past its counts."""
        assert result.record is not None
        record, sha = result.record, quote(result.sha256)
        for tier, n in (("section", record.sections), ("snippet", record.snippets)):
            self.store.delete_where(CHUNKS, f"doc_id:={sha} && tier:={tier} && chunk_index:>={n}")

    def _rewrite(self, results: list[FileResult]) -> None:
        """Write these documents again: a node of the cluster holds other chunks than
        the ones acknowledged (upserts restore the missing, deletes drop extra ones)."""
        self.store.upsert(CHUNKS, [_encoded(d) for r in results for d in r.chunks])
        for result in results:
            self._drop_beyond(result)


def _encoded(doc: ChunkRecord | Encoded) -> Encoded:
    """A chunk as the import sends it (most come encoded from the workers)."""
    return doc if isinstance(doc, Encoded) else doc.encoded()
