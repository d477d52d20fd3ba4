"""One file of an ingest through the stages in order: read and extract, parse, chunk, into
a ``FileResult`` (its snippets are embedded afterwards, in the ingesting process:
``embedding``; the indexer writes it: ``indexer``). Runs in a worker process, so
``process_file`` and everything it is given must pickle."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..chunk.outline import heading_spans
from ..chunk.tiers import chunk_parsed
from ..errors import ExtractionError, FolioError
from ..extract import extract_file
from ..index.headings import StoredHeading, encode_headings
from ..index.records import ChunkRecord, DocumentRecord
from ..index.schema import Encoded
from ..index.terms import DocTerms, made
from ..model import Chunk, Document, Stage
from ..parse.document import ParsedDocument, parse
from ..shared import logs
from ..shared.config import ChunkConfig
from ..shared.limits import Note, memory_reason
from .catalog import Found
from .files import Failure, snapshot

CHANGED = "the file changed while it was being ingested; run again to ingest it as it is now"


@dataclass(frozen=True, slots=True)
class Job:
    """What every file of a run is processed with."""

    config: ChunkConfig
    fingerprint: str  # the settings fingerprint stored in each record
    embed: bool = False  # store snippet vectors (made by ``embedding``, not the workers)
    memory_mb: int | None = None  # the worker's address-space limit, to name in a failure


@dataclass(frozen=True, slots=True)
class FileResult:
    """A processed file: its record and chunk records, or the failure that stopped it."""

    path: str
    sha256: str
    size: int
    record: DocumentRecord | None  # ``indexing`` until its chunks are in
    # Encoded by the worker (``schema.encoded``: the ingesting process only joins the
    # lines), or records when the ingesting process adds vectors to them first.
    chunks: tuple[ChunkRecord | Encoded, ...]
    failure: Failure | None
    extract_s: float
    chunk_s: float  # with the snippets' lexical rows and the encoding
    embed_s: float = 0.0
    # The snippets' lexical rows, made here in parallel for the lexical index's sync
    # (``index.terms``); the ingesting process takes them off before indexing.
    terms: DocTerms | None = None

    @classmethod
    def failed(cls, work: Found, stage: Stage, reason: str, seconds: float = 0.0) -> FileResult:
        failure = Failure(work.path, stage, reason)
        return cls(work.path, work.sha256, work.size, None, (), failure, seconds, 0.0)


class Process(Protocol):
    """Turns one file into a result; ``note(stage)`` says which stage it is in (a
    timeout is reported against that stage). Must pickle: a module-level function."""

    def __call__(self, work: Found, job: Job, note: Note | None = None) -> FileResult: ...


def process_file(work: Found, job: Job, note: Note | None = None) -> FileResult:
    """Extract one file, parse the extracted ``Document``, chunk the ``ParsedDocument``;
    a failure in parsing is reported as the chunk stage's."""
    t0 = time.perf_counter()
    doc = _read(work, job.memory_mb)
    t1 = time.perf_counter()
    if isinstance(doc, Failure):
        return FileResult.failed(work, doc.stage, doc.reason, t1 - t0)
    doc = replace(doc, doc_id=work.sha256, source=work.path)
    if note is not None:
        note("chunk")
    try:
        with logs.about(work.path):
            parsed = parse(doc, job.config)
            chunks = chunk_parsed(parsed, job.config)
            headings = _headings(doc, parsed)
    except MemoryError:
        return FileResult.failed(work, "chunk", memory_reason(job.memory_mb), t1 - t0)
    except Exception as exc:
        return FileResult.failed(work, "chunk", f"{type(exc).__name__}: {exc}", t1 - t0)
    record = _document_record(work, doc, chunks, headings, job.fingerprint)
    records = (ChunkRecord.from_chunk(c, doc.format) for c in chunks)
    # Encoded here, in parallel, unless the ingesting process adds vectors first.
    docs = tuple(records) if job.embed else tuple(r.encoded() for r in records)
    snippets = (c for c in chunks if c.tier == "snippet")
    terms = made(work.sha256, job.fingerprint, record.title, snippets)
    t2 = time.perf_counter()
    return FileResult(
        work.path, work.sha256, work.size, record, docs, None, t1 - t0, t2 - t1, terms=terms
    )


def _headings(doc: Document, parsed: ParsedDocument) -> list[StoredHeading]:
    """Every heading of the document, also those that share a chunk or own no text: the
    record keeps them (the indexed outline)."""
    return [
        StoredHeading(h.title, h.breadcrumb, h.char_start, h.char_end, h.page_start, h.page_end)
        for h in heading_spans(doc, parsed)
    ]


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
    work: Found,
    doc: Document,
    chunks: list[Chunk],
    headings: list[StoredHeading],
    fingerprint: str,
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
        headings=encode_headings(headings),
    )
