"""Library ingest: discover files, hash, extract and chunk in a process pool while
batches stream into Typesense; skip unchanged, replace changed, report failures.

One run is three steps: ``plan`` (hash the files that changed since the last run, see
``hashes``; compare them with the stored records, record the copies), run (``pool``
processes the files with ``process``, the index thread of ``handoff`` feeds their
results to the ``indexer``), ``prune``.

Crash safety: a document's record is written as ``indexing`` before its chunks and
marked ``complete`` only once every chunk is acknowledged. Chunk ids are derived
from the content hash, tier and index, so re-running after any interruption upserts
the same ids and then deletes what the run no longer produced: it converges. A file is
unchanged only when the collection holds every chunk its record counts, so a rerun
repairs whatever a crash or an outside write removed. The whole run holds the library
lock: no other writer (delete, prune, reindex, another ingest) runs meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..index import side_index
from ..index.store import Store
from ..shared.config import ChunkConfig
from .catalog import Found
from .embedding import Embedding
from .handoff import MIN_BATCH, IndexThread
from .indexer import Indexer, Sink
from .options import IngestOptions
from .plan import STORE_FORMAT, Planned, config_fingerprint, prepare
from .pool import Pool, Runner
from .process import CHANGED, FileResult, Job, Process, process_file
from .prune import prune, warn_legacy
from .report import Progress, ProgressHook, Report

SYNC_EVERY_S = 60.0  # how often a long ingest brings the lexical index up to date


def ingest(
    paths: Sequence[str],
    config: ChunkConfig,
    store: Store,
    options: IngestOptions | None = None,
    *,
    progress: ProgressHook | None = None,
    process: Process = process_file,
    run: Runner | None = None,
) -> Report:
    """Ingest files and folders into ``store``; a bad file never stops the run (it is
    reported in ``failed`` with its path, stage and reason).

    ``process`` turns one file into its result (in a worker process: a module-level
    function); ``run`` gives the results of the files to do instead of the worker pool.
    """
    options = options or IngestOptions()
    with store.writing(what="ingest"):
        t_start = time.perf_counter()
        report = Report()
        planned = prepare(paths, config, store, options, report)
        report.seconds["plan"] = time.perf_counter() - t_start
        results = run or Pool(process, options.workers, options.limits)
        embedding = Embedding(report.embedder, report) if planned.job.embed else None
        _index(store, planned, options, report, results, progress, embedding)
        _forget_changed(planned, report)
        if embedding is not None and planned.unembedded and not report.interrupted:
            _add_vectors(store, planned, embedding, report)
        if options.prune and not report.interrupted:
            prune(store, paths, planned.records, planned.files, planned.plan.held, report)
        warn_legacy(planned.records, planned.plan.held)
        if not report.interrupted:
            t_lexical = time.perf_counter()
            side_index.refresh(store)  # the lexical index follows, readers never build it
            report.seconds["lexical"] += time.perf_counter() - t_lexical
        report.seconds["total"] = time.perf_counter() - t_start
        return report


def _index(
    store: Store,
    planned: Planned,
    options: IngestOptions,
    report: Report,
    run: Runner,
    hook: ProgressHook | None,
    embedding: Embedding | None,
) -> None:
    """Process the files to do and index their results; a Ctrl-C marks the report
    interrupted and leaves what is not acknowledged to the next run."""
    work, job = planned.plan, planned.job
    progress = Progress(hook, len(work.todo))
    # Typesense calls run on their own thread so that the workers are fed while a
    # batch is being indexed: extraction and chunking overlap with indexing.
    known = {r.doc_id for r in planned.records}
    indexer = Indexer(store, work, known, report, job.fingerprint, options.batch_size, embedding)
    writer = IndexThread(indexer)
    synced = time.monotonic()
    try:
        for result in run(list(work.todo), job):
            report.processed(result)
            writer.put(result)
            progress.advance(result)
            if time.monotonic() - synced > SYNC_EVERY_S:
                # A long ingest: readers see the documents completed so far.
                t_lexical = time.monotonic()
                side_index.refresh(store, finished=False)
                synced = time.monotonic()
                report.seconds["lexical"] += synced - t_lexical
        writer.finish()
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        writer.abandon()  # no-op after finish(); else the thread stops after its call


__all__ = [
    "CHANGED",
    "MIN_BATCH",
    "STORE_FORMAT",
    "FileResult",
    "Found",
    "IndexThread",
    "Indexer",
    "IngestOptions",
    "Job",
    "Pool",
    "Process",
    "ProgressHook",
    "Report",
    "Runner",
    "Sink",
    "config_fingerprint",
    "ingest",
    "process_file",
]


def _forget_changed(planned: Planned, report: Report) -> None:
    """A file whose bytes were not those of its planned hash is hashed again next run,
    whatever its stat says."""
    changed = [f.path for f in report.failed if f.stage == "read" and f.reason == CHANGED]
    if planned.hashes is not None and changed:
        for path in changed:
            planned.hashes.forget(path)
        planned.hashes.save()


def _add_vectors(store: Store, planned: Planned, embedding: Embedding, report: Report) -> None:
    """Unchanged documents stored without vectors of the current model get them from
    their stored snippets (no extraction); a Ctrl-C leaves the rest to the next run."""
    try:
        embedding.stored(store, planned.unembedded, planned.job.fingerprint)
    except KeyboardInterrupt:
        report.interrupted = True
