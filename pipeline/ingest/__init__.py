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

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from ..errors import FolioError
from ..index import generation, side_index
from ..index.store import Store
from ..index.terms import Carried
from ..shared.config import ChunkConfig
from . import ledger
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

log = logging.getLogger("folio.ingest")
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
    with store.writing(what="ingest") as before:
        t_start = time.perf_counter()
        report = Report()
        known = ledger.load(store, before)
        planned = prepare(paths, config, store, options, report, known)
        report.seconds["plan"] = time.perf_counter() - t_start
        results = run or Pool(process, options.workers, options.limits)
        embedding = Embedding(report.embedder, report) if planned.job.embed else None
        carried = Carried()  # the lexical terms the workers made, until a sync takes them
        synced = _index(store, planned, options, report, results, progress, embedding, carried)
        _forget_changed(planned, report)
        if embedding is not None and planned.unembedded and not report.interrupted:
            _add_vectors(store, planned, embedding, report)
        if options.prune and not report.interrupted:
            prune(store, paths, planned.records, planned.files, planned.plan.held, report)
        warn_legacy(planned.records, planned.plan.held)
        if report.interrupted:
            ledger.discard(store)
        else:
            t_lexical = time.perf_counter()
            counter = generation.counter(before) + 2 + synced
            _finish(store, planned, report, known, counter, carried)
            report.seconds["lexical"] += time.perf_counter() - t_lexical
        report.seconds["total"] = time.perf_counter() - t_start
        return report


def _finish(
    store: Store,
    planned: Planned,
    report: Report,
    known: ledger.Ledger | None,
    counter: int,
    carried: Carried,
) -> None:
    """Bring the lexical index up to date (readers never build it) and keep the ledger
    for the next run: the records and counts the run started from (the ledger it found,
    ``known``, or what it read), with those of the documents it touched read again.
    Kept only when the store's counter shows this run's raises and no other writer's
    (``counter``: what it must be after the last), and on one server only (a cluster's
    nodes are asked one by one, ``plan.stored_counts``)."""
    now: ledger.Ledger | None = None
    touched = _touched(planned, report)
    if planned.start is not None and len(store.nodes) == 1:
        try:
            now = ledger.updated(store, planned.start, touched)
        except FolioError as exc:
            log.warning("ledger not kept (the next ingest reads the store): %s", exc)
    lexical = None if now is None else ledger.lexical(known, now, touched)
    state = side_index.refresh(store, known=lexical, carried=carried)
    alone = state is not None and generation.counter(state) == counter
    ledger.save(store, now if alone else None, state)


def _touched(planned: Planned, report: Report) -> set[str]:
    """The doc_ids whose records or chunks this run may have written: its files to do and
    the copies it recorded, the records it released or replaced, gave vectors or pruned."""
    work = planned.plan
    pruned = set(report.pruned)
    records = [
        *work.stale,
        *(r for rs in work.replaced.values() for r in rs),
        *planned.unembedded,
        *(r for r in planned.records if r.path in pruned),
    ]
    return {
        *(f.sha256 for f in work.todo),
        *(f.sha256 for f, _, recorded in work.copies if not recorded),
        *(r.doc_id for r in records),
    }


def _index(
    store: Store,
    planned: Planned,
    options: IngestOptions,
    report: Report,
    run: Runner,
    hook: ProgressHook | None,
    embedding: Embedding | None,
    carried: Carried,
) -> int:
    """Process the files to do and index their results; a Ctrl-C marks the report
    interrupted and leaves what is not acknowledged to the next run. The lexical terms
    the workers made go to ``carried``. Returns how many times the lexical index was
    brought up to date on the way."""
    work, job = planned.plan, planned.job
    progress = Progress(hook, len(work.todo))
    # Typesense calls run on their own thread so that the workers are fed while a
    # batch is being indexed: extraction and chunking overlap with indexing.
    known = {r.doc_id for r in planned.records}
    indexer = Indexer(store, work, known, report, job.fingerprint, options.batch_size, embedding)
    writer = IndexThread(indexer)
    synced = time.monotonic()
    syncs = 0
    try:
        for result in run(list(work.todo), job):
            report.processed(result)
            if result.terms is not None:
                carried.keep(result.terms)
                result = replace(result, terms=None)
            writer.put(result)
            progress.advance(result)
            if time.monotonic() - synced > SYNC_EVERY_S:
                # A long ingest: readers see the documents completed so far.
                t_lexical = time.monotonic()
                side_index.refresh(store, finished=False, carried=carried)
                syncs += 1
                synced = time.monotonic()
                report.seconds["lexical"] += synced - t_lexical
        writer.finish()
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        writer.abandon()  # no-op after finish(); else the thread stops after its call
    return syncs


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
