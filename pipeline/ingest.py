"""Library ingest: discover files, hash, extract and chunk in a process pool while
batches stream into Typesense; skip unchanged, replace changed, report failures.

Crash safety: a document's record is written as ``indexing`` before its chunks and
marked ``complete`` only once every chunk is acknowledged. Chunk ids are derived
from the content hash, tier and index, so re-running after any interruption upserts
the same ids and then deletes what the run no longer produced: it converges. A file is
unchanged only when the collection holds every chunk its record counts, so a rerun
repairs whatever a crash or an outside write removed. The whole run holds the library
lock: no other writer (delete, prune, reindex, another ingest) runs meanwhile.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from . import logs
from .catalog import Found, Plan, copy_id, is_legacy, plan
from .chunk.tiers import chunk_document
from .config import ChunkConfig
from .errors import ExtractionError, FolioError
from .extract import extract_file
from .index import side_index, vectors
from .index.documents import read_records, release
from .index.records import ChunkRecord, DocumentRecord, Status
from .index.schema import CHUNKS, DOCUMENTS
from .index.store import BATCH_SIZE, Store, quote
from .library import Failure, discover, file_sha256, resolved, snapshot
from .limits import (
    DEFAULT_FILE_TIMEOUT,
    DEFAULT_MAX_FILE_MB,
    DEFAULT_MAX_MEMORY_MB,
    Limits,
    Note,
    memory_reason,
    size_problem,
    supervise,
)
from .model import Chunk, Document

log = logging.getLogger("folio.ingest")

MIN_BATCH = 250  # chunks: the smallest batch sent early when Typesense would idle
CHANGED = "the file changed while it was being ingested; run again to ingest it as it is now"


@dataclass(slots=True)
class Report:
    ingested: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)
    sections: int = 0
    snippets: int = 0
    pages: int = 0
    seconds: dict[str, float] = field(
        default_factory=lambda: {
            "extract": 0.0,
            "chunk": 0.0,
            "embed": 0.0,
            "index": 0.0,
            "total": 0.0,
        }
    )
    embedder: str = ""  # the model that embedded the snippets; empty: not embedded
    embedded: int = 0  # snippets embedded in this run
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["failed"] = [asdict(f) for f in self.failed]
        return out


@dataclass(frozen=True, slots=True)
class _Result:
    path: str
    sha256: str
    size: int
    record: DocumentRecord | None
    chunks: list[ChunkRecord]
    failure: Failure | None
    extract_s: float
    chunk_s: float
    embed_s: float = 0.0


# Bumped when what ingest stores for the same bytes and settings changes (fields,
# titles, retrieval text), so existing documents are re-ingested rather than "unchanged".
STORE_FORMAT = 2


def config_fingerprint(config: ChunkConfig, embedder: str = "") -> str:
    """What, besides the bytes, decides the stored chunks: a document stored under
    another fingerprint is ingested again (with vectors when they were missing)."""
    blob = json.dumps([STORE_FORMAT, asdict(config), embedder], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _process(
    work: Found,
    config: ChunkConfig,
    fingerprint: str,
    note: Note | None = None,
    memory_mb: int | None = None,
    embed: bool = False,
) -> _Result:
    """Extract and chunk one file (runs in a worker process)."""
    t0 = time.perf_counter()
    doc = _read(work, memory_mb)
    t1 = time.perf_counter()
    if isinstance(doc, Failure):
        return _failed(work, doc.stage, doc.reason, t1 - t0)
    doc = replace(doc, doc_id=work.sha256, source=work.path)
    if note is not None:
        note("chunk")
    try:
        with logs.about(work.path):
            chunks = chunk_document(doc, config)
    except MemoryError:
        return _failed(work, "chunk", memory_reason(memory_mb), t1 - t0)
    except Exception as exc:
        return _failed(work, "chunk", f"{type(exc).__name__}: {exc}", t1 - t0)
    t2 = time.perf_counter()
    record = _document_record(work, doc, chunks, fingerprint)
    docs = [ChunkRecord.from_chunk(c, doc.format) for c in chunks]
    if embed:
        if note is not None:
            note("embed")
        try:
            docs = _embed_snippets(docs)
        except Exception as exc:  # the model failing on one file must not stop the rest
            return _failed(work, "embed", f"{type(exc).__name__}: {exc}", t2 - t0)
    t3 = time.perf_counter()
    return _Result(work.path, work.sha256, work.size, record, docs, None, t1 - t0, t2 - t1, t3 - t2)


def _read(work: Found, memory_mb: int | None) -> Document | Failure:
    """The file read once, into a private copy that is hashed as it is written, then
    extracted: what is stored under a hash is exactly the bytes with that hash. A file
    rewritten since the run hashed it is reported, not stored (the next run ingests it)."""
    with contextlib.ExitStack() as stack:
        try:
            copy, sha, _ = stack.enter_context(snapshot(work.path))
        except OSError as exc:
            return Failure(work.path, "read", exc.strerror or str(exc))
        if sha != work.sha256:
            return Failure(work.path, "read", CHANGED)
        try:
            with logs.about(work.path, str(copy)):
                return extract_file(copy)
        except MemoryError:
            return Failure(work.path, "extract", memory_reason(memory_mb))
        except ExtractionError as exc:
            return Failure(work.path, "extract", exc.reason)
        except Exception as exc:  # a bug or a hostile file must not stop the library
            what = (
                str(exc)
                if isinstance(exc, OSError | FolioError)
                else f"{type(exc).__name__}: {exc}"
            )
            return Failure(work.path, "extract", what.replace(str(copy), work.path))


def _document_record(
    work: Found, doc: Document, chunks: list[Chunk], fingerprint: str
) -> DocumentRecord:
    """The record of a file chunked in this run, ``indexing`` until its chunks are in."""
    sections = sum(1 for c in chunks if c.tier == "section")
    # The page map lets citations name the exact pages of any range.
    pages = [[p.number, p.label, p.char_start, p.char_end] for p in doc.pages]
    return DocumentRecord(
        id=work.sha256,
        doc_id=work.sha256,
        path=work.path,
        title=chunks[0].doc_title if chunks else doc.title or Path(work.path).stem,
        author=doc.info.author,
        format=doc.format,
        pages=len(doc.pages),
        backend=doc.info.backend,
        heading_mode=chunks[0].heading_mode if chunks else "",
        bytes=work.size,
        sha256=work.sha256,
        status="indexing",
        sections=sections,
        snippets=len(chunks) - sections,
        config=fingerprint,
        ingested_at=int(time.time()),
        page_map=json.dumps(pages, ensure_ascii=False) if pages else None,
    )


def _embed_snippets(docs: list[ChunkRecord]) -> list[ChunkRecord]:
    """Snippets carry the vector of their retrieval text (what the 512-token snippet
    budget is sized for); sections are not embedded."""
    snippets = [i for i, d in enumerate(docs) if d.chunk.tier == "snippet"]
    embedded = vectors.embed([docs[i].chunk.retrieval_text for i in snippets])
    out = list(docs)
    for i, vector in zip(snippets, embedded, strict=True):
        out[i] = replace(docs[i], embedding=tuple(vector))
    return out


def _failed(work: Found, stage: str, reason: str, seconds: float) -> _Result:
    return _Result(
        work.path, work.sha256, work.size, None, [], Failure(work.path, stage, reason), seconds, 0
    )


class Sink(Protocol):
    """Where the index thread hands results: ``_Indexer`` writes them to Typesense."""

    @property
    def pending(self) -> int:
        """Chunks taken but not sent yet."""
        ...

    def add(self, result: _Result) -> None: ...

    def flush(self, final: bool = True) -> None: ...


class _Indexer:
    """Streams chunk batches across documents; completes a document when all of its
    chunks are acknowledged."""

    def __init__(
        self,
        store: Store,
        work: Plan,
        known: set[str],
        report: Report,
        fingerprint: str,
    ) -> None:
        self.store = store
        self.fingerprint = fingerprint
        self.plan = work
        self.known = known  # doc_ids with records: chunks of earlier runs may be stored
        self.completed: list[DocumentRecord] = []
        self.report = report
        self.batch: list[dict[str, Any]] = []
        self.waiting: dict[str, tuple[_Result, int]] = {}  # doc_id -> (result, chunks left)
        self.records: list[DocumentRecord] = []

    @property
    def pending(self) -> int:
        return len(self.batch)

    def add(self, result: _Result) -> None:
        if result.failure is not None:  # its record goes out with the next batch
            self.records.append(_failure_record(result, self.fingerprint))
            return
        assert result.record is not None
        self.records.append(result.record)
        self.waiting[result.sha256] = (result, len(result.chunks))
        for doc in result.chunks:
            self.batch.append(doc.to_store())
            if len(self.batch) >= BATCH_SIZE:
                self.flush(final=False)

    def flush(self, final: bool = True) -> None:
        """Send the batch. Records go first in one call: the documents completed by the
        previous batch, and the new ones as ``indexing`` (a crash after this leaves a
        visible trace); this batch's completions wait for the next call unless ``final``."""
        t0 = time.perf_counter()
        self._write_records(self.records)
        self.records = []
        batch, self.batch = self.batch, []
        failures = {f.id: f.reason for f in self.store.upsert(CHUNKS, batch)} if batch else {}
        done: list[str] = []
        for doc in batch:
            if doc["doc_id"] not in self.waiting:  # its document already failed
                continue
            result, left = self.waiting[doc["doc_id"]]
            if doc["id"] in failures:
                self._fail(result, f"chunk {doc['id']}: {failures[doc['id']]}")
                continue
            self.waiting[doc["doc_id"]] = (result, left - 1)
        for doc_id, (result, left) in list(self.waiting.items()):
            if left == 0:
                done.append(doc_id)
                self._complete(result)
        for doc_id in done:
            del self.waiting[doc_id]
        if final:
            self._write_records([])
        self.report.seconds["index"] += time.perf_counter() - t0

    def _write_records(self, new: list[DocumentRecord]) -> None:
        """Upsert the pending completions (then count them as done) and ``new``."""
        if not (self.completed or new):
            return
        self.store.upsert(DOCUMENTS, [r.to_store() for r in self.completed + new])
        for record in self.completed:
            # A document with no indexable text (front matter only, say) is recorded and
            # reported as empty: never a silent empty result, but not a failure either.
            empty = record.status == "empty"
            (self.report.empty if empty else self.report.ingested).append(record.path)
            self.report.sections += record.sections
            self.report.snippets += record.snippets
            self.report.pages += record.pages or 0
        self.completed = []

    def _fail(self, result: _Result, reason: str) -> None:
        if result.sha256 in self.waiting:
            del self.waiting[result.sha256]
            self.report.failed.append(Failure(result.path, "index", reason))
            # Chunks of this document already stored must not stay searchable.
            self.store.delete_where(CHUNKS, f"doc_id:={quote(result.sha256)}")
            assert result.record is not None
            failed = result.record.with_status("failed", error=reason, stage="index")
            self.store.upsert(DOCUMENTS, [failed.to_store()])

    def _complete(self, result: _Result) -> None:
        assert result.record is not None
        record = result.record
        sha = quote(result.sha256)
        if result.sha256 in self.known:
            # An earlier run (other settings, or interrupted) stored chunks under this
            # doc_id: drop the ones this run did not produce.
            for tier, n in (("section", record.sections), ("snippet", record.snippets)):
                self.store.delete_where(
                    CHUNKS, f"doc_id:={sha} && tier:={tier} && chunk_index:>={n}"
                )
        for old in self.plan.replaced.get(result.path, ()):  # another content, a copy's
            release(self.store, old, self.plan.held)
        self.completed.append(record.with_status("empty" if record.sections == 0 else "complete"))


class _IndexThread:
    """Runs an ``_Indexer`` on a thread of its own, fed through a hand-off that holds at
    most ``limit`` chunks (one result larger than that is let through alone), so memory
    stays bounded when Typesense is slower than the workers.

    An error on the thread (Typesense down after retries, say) stops it; the next
    ``put`` or ``finish`` raises it on the caller's thread.
    """

    def __init__(
        self, indexer: Sink, limit: int = 4 * BATCH_SIZE, min_batch: int = MIN_BATCH
    ) -> None:
        self.indexer = indexer
        self.limit = limit
        self.min_batch = min_batch
        self.cond = threading.Condition()
        self.items: deque[_Result] = deque()
        self.queued = 0  # chunks in ``items``
        self.closed = False  # no more results: flush and stop
        self.stopped = False  # stop now, without flushing
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="folio-index", daemon=True)
        self.thread.start()

    def put(self, result: _Result) -> None:
        n = len(result.chunks)
        with self.cond:
            self.cond.wait_for(
                lambda: self.error is not None or not self.items or self.queued + n <= self.limit
            )
            self._raise()
            self.items.append(result)
            self.queued += n
            self.cond.notify_all()

    def finish(self) -> None:
        """Index what is queued, flush the last batch and wait for the thread."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        self.thread.join()
        self._raise()

    def abandon(self) -> None:
        """Stop after the call in flight; what is queued stays for the next run."""
        with self.cond:
            self.stopped = True
            self.cond.notify_all()
        self.thread.join()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            self.stopped = True
            raise error

    def _run(self) -> None:
        try:
            while True:
                with self.cond:
                    self.cond.wait_for(lambda: self.items or self.closed or self.stopped)
                    if self.stopped:
                        return
                    if not self.items:  # closed and drained
                        break
                    result = self.items.popleft()
                    self.queued -= len(result.chunks)
                    idle = not self.items
                    self.cond.notify_all()
                self.indexer.add(result)
                if idle and self.indexer.pending >= self.min_batch:
                    # nothing else waiting: keep Typesense busy rather than let it idle
                    # until a full batch has been chunked (matters at the start of a run)
                    self.indexer.flush(final=False)
            self.indexer.flush()
        except BaseException as exc:  # handed to the caller's thread
            with self.cond:
                self.error = exc
                self.cond.notify_all()


ProgressHook = Callable[[str, dict[str, int]], None]


def ingest(
    paths: Sequence[str],
    config: ChunkConfig,
    store: Store,
    *,
    prune: bool = False,
    workers: int | None = None,
    progress: ProgressHook | None = None,
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
    max_file_mb: float | None = DEFAULT_MAX_FILE_MB,
    max_memory_mb: int | None = DEFAULT_MAX_MEMORY_MB,
    embed: bool | None = None,
) -> Report:
    """Ingest files and folders into ``store``; a bad file never stops the run.

    Limits (``None`` switches one off): a file is given ``file_timeout`` seconds to be
    extracted and chunked, files over ``max_file_mb`` are refused unread, and each
    worker process may use ``max_memory_mb`` of address space. A file that breaks a
    limit is reported in ``failed`` (path, stage, reason) and the run goes on.

    ``embed``: store snippet vectors for dense retrieval; ``None`` embeds when the dense
    extra can run here.
    """
    limits = Limits(file_timeout, max_file_mb, max_memory_mb)
    with store.writing(what="ingest"):
        return _ingest(paths, config, store, prune, workers, progress, limits, embed)


def _ingest(
    paths: Sequence[str],
    config: ChunkConfig,
    store: Store,
    prune: bool,
    workers: int | None,
    progress: ProgressHook | None,
    limits: Limits,
    embed: bool | None,
) -> Report:
    t_start = time.perf_counter()
    report = Report()
    created = store.ensure_collections()
    files, problems = discover(paths)
    report.failed.extend(problems)
    # Just created: nothing to read back (and a cluster follower may still answer 404).
    records = [] if DOCUMENTS in created else read_records(store)
    # Chunks per document, to tell a complete record from a complete document.
    stored = store.facet_counts(CHUNKS, "doc_id", 2 * len(records) + 100) if records else {}
    if embed is None:
        embed = vectors.unavailable() is None
    report.embedder = str(vectors.embedder().name) if embed else ""
    fingerprint = config_fingerprint(config, report.embedder)
    work = plan(_hashed(files, limits, report), records, stored, fingerprint)
    report.unchanged.extend(work.unchanged)
    _record_copies(store, work, fingerprint, report)
    todo = list(work.todo)
    totals = {"files": len(todo), "done": 0, "chunks": 0, "pages": 0}
    if progress:
        progress("start", totals)
    # Typesense calls run on their own thread so that the workers are fed while a
    # batch is being indexed: extraction and chunking overlap with indexing.
    known = {r.doc_id for r in records}
    writer = _IndexThread(_Indexer(store, work, known, report, fingerprint))
    try:
        for result in _run_pool(todo, config, fingerprint, workers, limits, embed):
            report.seconds["extract"] += result.extract_s
            report.seconds["chunk"] += result.chunk_s
            report.seconds["embed"] += result.embed_s
            if embed and result.failure is None:
                report.embedded += sum(1 for d in result.chunks if d.embedding is not None)
            if result.failure is not None:
                report.failed.append(result.failure)
            else:
                totals["chunks"] += len(result.chunks)
                totals["pages"] += (result.record.pages if result.record else 0) or 0
            writer.put(result)
            totals["done"] += 1
            if progress:
                progress("advance", totals)
        writer.finish()
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        writer.abandon()  # no-op after finish(); else the thread stops after its call
    if prune and not report.interrupted:
        _prune(store, paths, records, files, work.held, report)
    _warn_legacy(records, work.held)
    if not report.interrupted:
        side_index.refresh(store)  # so the first question does not pay for the rebuild
    report.seconds["total"] = time.perf_counter() - t_start
    return report


def _hashed(files: list[Path], limits: Limits, report: Report) -> list[Found]:
    """The regular, non-empty files within the size limit, with their hashes."""
    found: list[Found] = []
    for f in files:
        path = str(f)
        try:
            st = f.stat()
            if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read forever
                report.failed.append(Failure(path, "read", "not a regular file"))
                continue
            if st.st_size == 0:  # not a duplicate of every other empty file
                report.failed.append(Failure(path, "read", "the file is empty"))
                continue
            too_big = size_problem(st.st_size, limits)
            if too_big:
                report.failed.append(Failure(path, "read", too_big))
                continue
            found.append(Found(path, file_sha256(f), st.st_size))
        except OSError as exc:
            report.failed.append(Failure(path, "read", exc.strerror or str(exc)))
    return found


def _record_copies(store: Store, work: Plan, fingerprint: str, report: Report) -> None:
    """Each copy of a content gets a ``duplicate`` record of its own (its path is pruned
    on its own); then what those paths recorded before is released."""
    new = [
        replace(_file_record(f, fingerprint, "duplicate"), id=copy_id(f.path)).to_store()
        for f, _, recorded in work.copies
        if not recorded
    ]
    refused = {r.id: r.reason for r in store.upsert(DOCUMENTS, new)} if new else {}
    for f, keeper, _ in work.copies:
        if copy_id(f.path) in refused:
            report.failed.append(Failure(f.path, "index", refused[copy_id(f.path)]))
        else:
            report.duplicates.append((f.path, keeper))
    for old in work.stale:
        release(store, old, work.held)


def _warn_legacy(records: list[DocumentRecord], held: frozenset[str]) -> None:
    left = sum(1 for r in records if is_legacy(r) and r.doc_id not in held)
    if left:
        log.warning(
            "%d documents recorded under relative paths by an older Folio were not found "
            "by content in this run; `folio docs` lists them, `folio delete` removes them",
            left,
        )


def _file_record(f: Found, fingerprint: str, status: Status) -> DocumentRecord:
    """The record of a file whose content is not (or not here) indexed."""
    return DocumentRecord(
        id=f.sha256,
        doc_id=f.sha256,
        path=f.path,
        title=Path(f.path).name,
        format=Path(f.path).suffix.lower().lstrip(".") or "unknown",
        bytes=f.size,
        sha256=f.sha256,
        status=status,
        config=fingerprint,
        ingested_at=int(time.time()),
    )


def _failure_record(result: _Result, fingerprint: str) -> DocumentRecord:
    assert result.failure is not None
    found = Found(result.path, result.sha256, result.size)
    failure = result.failure
    return replace(
        _file_record(found, fingerprint, "failed"), stage=failure.stage, error=failure.reason
    )


def _run_pool(
    todo: list[Found],
    config: ChunkConfig,
    fingerprint: str,
    workers: int | None,
    limits: Limits | None = None,
    embed: bool = False,
) -> Iterator[_Result]:
    """Results in completion order, one file in flight per worker (memory stays flat).

    With a time or memory limit every file runs in a supervised worker process (killed
    and replaced when it passes its deadline); with neither and one worker, in-line.
    """
    if not todo:
        return
    limits = limits or Limits()
    workers = workers or max(1, min(os.cpu_count() or 1, len(todo)))
    if workers == 1 and limits.file_timeout is None and limits.max_memory_mb is None:
        for work in todo:
            yield _process(work, config, fingerprint, embed=embed)
        return
    fn = partial(
        _run_one,
        config=config,
        fingerprint=fingerprint,
        memory_mb=limits.max_memory_mb,
        embed=embed,
    )
    yield from supervise(
        fn,
        todo,
        _failed_in_worker,
        workers=workers,
        timeout=limits.file_timeout,
        memory_mb=limits.max_memory_mb,
    )


def _run_one(
    work: Found,
    note: Note,
    *,
    config: ChunkConfig,
    fingerprint: str,
    memory_mb: int | None,
    embed: bool,
) -> _Result:
    return _process(work, config, fingerprint, note, memory_mb, embed)


def _failed_in_worker(work: Found, stage: str, reason: str) -> _Result:
    return _failed(work, stage, reason, 0.0)


def _prune(
    store: Store,
    roots: Sequence[str],
    records: list[DocumentRecord],
    files: list[Path],
    held: frozenset[str],
    report: Report,
) -> None:
    """Forget the files under the given roots that are gone. A content goes with its
    last file; records of relative paths (an older Folio's) cannot be placed: kept."""
    present = {str(f) for f in files}
    prefixes = [str(resolved(Path(r))).rstrip("/") + "/" for r in roots]
    for record in records:
        path = record.path
        if (
            is_legacy(record)
            or path in present
            or not any((path + "/").startswith(p) for p in prefixes)
        ):
            continue
        if not os.path.exists(path):
            release(store, record, held)
            report.pruned.append(path)
