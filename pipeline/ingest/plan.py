"""The first step of an ingest: find and hash the files, read what the store holds,
decide what to do with each file (``catalog.plan``) and record the copies."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ..extract.dispatch import suffix_format
from ..index import vectors
from ..index.coverage import embedded_per_doc
from ..index.documents import release
from ..index.records import DocumentRecord, Status
from ..index.replicas import Replicas
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.store import Store
from ..shared.config import ChunkConfig
from ..shared.home import folio_home
from ..shared.limits import Limits, size_problem
from ..shared.pathtext import resolved
from .catalog import Found, Plan, copy_id, plan
from .embedding import follow_model, missing
from .files import Failure, file_sha256, find
from .hashes import HashCache
from .ledger import FIELDS, Ledger
from .options import IngestOptions
from .process import FileResult, Job
from .report import Report

log = logging.getLogger("folio.ingest")
# Bumped when what ingest stores for the same bytes and settings changes (fields,
# titles, retrieval text), so existing documents are re-ingested rather than "unchanged".
STORE_FORMAT = 3
SAVE_EVERY_S = 60.0  # a long first hashing run keeps what it hashed if it is stopped


def config_fingerprint(config: ChunkConfig, embedder: str = "") -> str:
    """What, besides the bytes, decides the stored chunks: a document stored under
    another fingerprint is ingested again. The embedding model is not part of it (its
    vectors are counted on the snippets: ``embedding.missing``); ``embedder`` gives the
    fingerprint older Folios stored for documents embedded with that model."""
    blob = json.dumps([STORE_FORMAT, asdict(config), embedder], sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Planned:
    """A run once planned: its files, the records stored before it, what to do with
    each file, and the settings each file is processed with."""

    files: tuple[str, ...]
    records: tuple[DocumentRecord, ...]
    plan: Plan
    job: Job
    unembedded: tuple[DocumentRecord, ...] = ()  # unchanged, but lacking vectors
    hashes: HashCache | None = None  # the files' hashes, kept for the next run
    start: Ledger | None = None  # the records and chunk counts the run started from


def prepare(
    paths: Sequence[str],
    config: ChunkConfig,
    store: Store,
    options: IngestOptions,
    report: Report,
    known: Ledger | None = None,
) -> Planned:
    """Plan the run; the copies' records are written now, the rest is left to do.
    ``known``: the store's records and chunk counts as the last run left them (``ledger``),
    when they are still the store's; else they are read."""
    created = store.ensure_collections()
    files, problems = find(paths, missing_ok=options.prune)
    report.failed.extend(problems)
    if known is None:
        # Just created: nothing to read back (and a cluster follower may still answer 404).
        rows = [] if DOCUMENTS in created else store.export(DOCUMENTS, include=FIELDS)
        # Chunks per document, to tell a complete record from a complete document.
        known = Ledger.of("", rows, stored_counts(store, len(rows)) if rows else {})
    records, stored = list(known.records), known.counts
    embed = vectors.unavailable() is None if options.embed is None else options.embed
    report.embedder = str(vectors.embedder().name) if embed else ""
    if embed:
        changed = follow_model(store, report.embedder, int(vectors.embedder().dim))
        report.model_change = changed.message(report.embedder) if changed else ""
    fingerprint = config_fingerprint(config)
    current = _current_form(records, config_fingerprint(config, report.embedder), fingerprint)
    hashes = HashCache.load(hash_cache(store), trust=not options.rehash)
    found = hashed(files, options.limits, report, hashes)
    hashes.save(resolved(Path(p)) for p in paths)
    work = plan(found, current, stored, fingerprint)
    report.unchanged.extend(work.unchanged)
    record_copies(store, work, fingerprint, report)
    job = Job(config, fingerprint, embed, options.limits.max_memory_mb)
    unembedded: tuple[DocumentRecord, ...] = ()
    if embed:
        known = with_vectors(store, known, report.embedder)
        unembedded = missing(records, work.unchanged, known.vectors)
    return Planned(tuple(files), tuple(records), work, job, unembedded, hashes, known)


def with_vectors(store: Store, known: Ledger, model: str) -> Ledger:
    """``known`` with the store's snippets holding a vector of ``model`` per doc_id: the
    ledger's when it counted them for that model, else counted now (one faceted count
    over every snippet: ~1 s at 100k, which the ledger then saves the next run)."""
    if known.model == model:
        return known
    vectors = embedded_per_doc(store, model, 2 * len(known.records) + 100)
    return replace(known, model=model, vectors=vectors)


def hash_cache(store: Store) -> Path:
    """Where the hashes of the files ingested into ``store`` are kept (``hashes``)."""
    return folio_home() / "hashes" / f"{store.identity()}.json"


def _current_form(
    records: list[DocumentRecord], legacy: str, fingerprint: str
) -> list[DocumentRecord]:
    """Records an older Folio stored with the model's name in the fingerprint: their
    chunks are current (their vectors are checked like any others')."""
    if legacy == fingerprint:  # no model: nothing to tell apart (and no copy to make)
        return records
    return [replace(r, config=fingerprint) if r.config == legacy else r for r in records]


def stored_counts(store: Store, records: int) -> dict[str, int]:
    """Chunks per doc_id. On a cluster each node is asked for itself: a document whose
    chunks, or finished records, differ between nodes counts -1 (no record's count), so
    it is not unchanged but written again, which brings the node that lacks some of it
    level (see ``pipeline.index.replicas``). A node that does not answer is waited for,
    then left out with a warning."""
    limit = 2 * records + 100
    replicas = Replicas(store)
    if not replicas.several:
        return store.facet_counts(CHUNKS, "doc_id", limit)
    answers = replicas.ask(lambda s: s.holdings(limit, attempts=1), replicas.patience)
    for a in answers:
        if a.value is None:
            log.warning(
                "%s does not answer (%s): what it holds is not checked; run `folio ingest` "
                "again once it is up",
                a.node.url(),
                a.error,
            )
    held = [a.value for a in answers if a.value is not None]
    if not held:  # none answered on its own: the cluster's client, with its retries
        return store.facet_counts(CHUNKS, "doc_id", limit)
    return agreed(held)


def agreed(held: Sequence[tuple[Mapping[str, int], Mapping[str, int]]]) -> dict[str, int]:
    """From each node's (chunks per doc_id, finished records per doc_id): the chunk
    count every node agrees on, or -1 where they differ in either."""
    out: dict[str, int] = {}
    for doc in set().union(*(chunks.keys() | records.keys() for chunks, records in held)):
        chunks = {c.get(doc, 0) for c, _ in held}
        records = {r.get(doc, 0) for _, r in held}
        out[doc] = chunks.pop() if len(chunks) == 1 and len(records) == 1 else -1
    return out


def hashed(
    files: Sequence[str | Path], limits: Limits, report: Report, cache: HashCache | None = None
) -> list[Found]:
    """The regular, non-empty files within the size limit, with their hashes: from
    ``cache`` for a file its entry matches (not read), else read and remembered there."""
    found: list[Found] = []
    saved = time.monotonic()
    for f in files:
        path = os.fspath(f)
        try:
            seen = time.time_ns()
            st = os.stat(path)
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
            sha = cache.known(path, st) if cache is not None else None
            if sha is None:
                sha = file_sha256(Path(path))
                if cache is not None:
                    cache.put(path, sha, st, seen)
                    if time.monotonic() - saved > SAVE_EVERY_S:
                        cache.save()
                        saved = time.monotonic()
            found.append(Found(path, sha, st.st_size))
        except OSError as exc:
            report.failed.append(Failure(path, "read", exc.strerror or str(exc)))
    return found


def record_copies(store: Store, work: Plan, fingerprint: str, report: Report) -> None:
    """Each copy of a content gets a ``duplicate`` record of its own (its path is pruned
    on its own); then what those paths recorded before is released."""
    new = [
        replace(file_record(f, fingerprint, "duplicate"), id=copy_id(f.path)).to_store()
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


def file_record(f: Found, fingerprint: str, status: Status) -> DocumentRecord:
    """The record of a file whose content is not (or not here) indexed."""
    return DocumentRecord(
        id=f.sha256,
        doc_id=f.sha256,
        path=f.path,
        title=Path(f.path).name,
        format=suffix_format(f.path),
        bytes=f.size,
        sha256=f.sha256,
        status=status,
        config=fingerprint,
        ingested_at=int(time.time()),
    )


def failure_record(result: FileResult, fingerprint: str) -> DocumentRecord:
    """The record of a file that failed in its worker: stage and reason, no chunks."""
    assert result.failure is not None
    found = Found(result.path, result.sha256, result.size)
    failure = result.failure
    return replace(
        file_record(found, fingerprint, "failed"), stage=failure.stage, error=failure.reason
    )
