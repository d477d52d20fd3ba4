"""Snippet vectors during an ingest, made by one model in the ingesting process.

The workers only extract and chunk: a model in each worker held its own arrays (105
snippets: peak summed PSS 711 MiB with two embedding workers, 427 MiB with one model here;
scripts/bench/bench_embed.py --ingest). Results are embedded on the index thread, which
overlaps with the workers' next files; documents stored without vectors of the current
model (ingested before the weights were installed, with ``--no-embed`` or with another
model) get them from their stored snippets' text, without being extracted again.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..index import vectors
from ..index.coverage import stored_models
from ..index.records import ChunkRecord, DocumentRecord
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.store import Store, quote
from .catalog import Found
from .files import Failure
from .process import FileResult
from .report import Report

# Texts per call of the model: bounds the arrays alive at once (the model batches
# by padded length inside a call); measured in scripts/bench/bench_ingest.py --embed.
TEXTS_PER_CALL = 256


@dataclass(frozen=True, slots=True)
class Embedding:
    """Fills in snippet vectors with the process's model, named ``name``."""

    name: str
    report: Report

    def result(self, result: FileResult) -> FileResult:
        """``result`` with its snippets' vectors, or failed at stage ``embed``."""
        records = [c for c in result.chunks if isinstance(c, ChunkRecord)]
        if result.failure is not None or not records or len(records) < len(result.chunks):
            return result  # nothing to embed, or encoded by a worker (a run without vectors)
        t0 = time.perf_counter()
        try:
            chunks = self._chunks(records)
        except Exception as exc:  # the model failing on one file must not stop the rest
            found = Found(result.path, result.sha256, result.size)
            reason = f"{type(exc).__name__}: {exc}"
            failed = FileResult.failed(found, "embed", reason, result.extract_s)
            assert failed.failure is not None
            self.report.failed.append(failed.failure)
            return failed
        seconds = time.perf_counter() - t0
        self._count(sum(1 for c in chunks if c.embedding is not None), seconds)
        return replace(result, chunks=chunks, embed_s=seconds)

    def _chunks(self, chunks: Sequence[ChunkRecord]) -> tuple[ChunkRecord, ...]:
        snippets = [i for i, d in enumerate(chunks) if d.chunk.tier == "snippet"]
        rows = embed_texts([chunks[i].chunk.retrieval_text for i in snippets])
        out = list(chunks)
        for i, row in zip(snippets, rows, strict=True):
            out[i] = replace(chunks[i], embedding=tuple(row), embedder=self.name)
        return tuple(out)

    def _count(self, snippets: int, seconds: float) -> None:
        self.report.embedded += snippets
        self.report.seconds["embed"] += seconds

    def stored(self, store: Store, records: Sequence[DocumentRecord], fingerprint: str) -> None:
        """Vectors for the stored snippets of ``records`` (documents whose files did not
        change), written in place; each record then carries ``fingerprint``."""
        for record in records:
            t0 = time.perf_counter()
            try:
                added = self._document(store, record)
            except Exception as exc:  # the document stays as it was: lexical
                reason = f"{type(exc).__name__}: {exc}"
                self.report.failed.append(Failure(record.path, "embed", reason))
                continue
            if record.config != fingerprint:  # recorded by an older Folio
                # Only the field that changes (``record`` may lack some: ``ledger.FIELDS``).
                store.upsert(DOCUMENTS, [{"id": record.id, "config": fingerprint}], "update")
            self._count(added, time.perf_counter() - t0)
            self.report.vectors_added.append(record.path)

    def _document(self, store: Store, record: DocumentRecord) -> int:
        where = f"doc_id:={quote(record.doc_id)} && tier:=snippet"
        snippets = store.export(CHUNKS, where, include="id,retrieval_text")
        for start in range(0, len(snippets), TEXTS_PER_CALL):
            part = snippets[start : start + TEXTS_PER_CALL]
            rows = embed_texts([str(s["retrieval_text"]) for s in part])
            updates = [
                {"id": s["id"], "embedding": row, "embedder": self.name}
                for s, row in zip(part, rows, strict=True)
            ]
            refused = store.upsert(CHUNKS, updates, action="update")
            if refused:
                raise RuntimeError(f"snippet {refused[0].id}: {refused[0].reason}")
        return len(snippets)


def embed_texts(texts: list[str]) -> list[list[float]]:
    """Vectors for ``texts``, ``TEXTS_PER_CALL`` at a time."""
    rows: list[list[float]] = []
    for start in range(0, len(texts), TEXTS_PER_CALL):
        rows.extend(vectors.embed(texts[start : start + TEXTS_PER_CALL]))
    return rows


def missing(
    records: Sequence[DocumentRecord], unchanged: Sequence[str], have: Mapping[str, int]
) -> tuple[DocumentRecord, ...]:
    """The records of ``unchanged`` files whose stored snippets do not all hold a vector
    of the model: ``have``, its vectors per doc_id, is counted in the store (or kept in
    the ledger from such a count), not taken from the records."""
    by_path = {r.path: r for r in records if not r.is_copy and r.status == "complete"}
    mine = [by_path[p] for p in unchanged if p in by_path and by_path[p].snippets > 0]
    return tuple(r for r in mine if have.get(r.doc_id, 0) < r.snippets)


@dataclass(frozen=True, slots=True)
class ModelChange:
    """Stored vectors of models other than the current one, found before an ingest
    embeds the snippets again: ``replaced`` snippets per model name, and the vector
    field's width before and after (the same unless the new model's differs)."""

    replaced: dict[str, int]
    width: tuple[int | None, int]

    def message(self, name: str) -> str:
        held = ", ".join(f"{n} snippets of {m}" for m, n in sorted(self.replaced.items()))
        old, new = self.width
        widths = ""
        if old != new:
            widths = f" ({old} dimensions, now {new}: the old vectors are dropped)"
        return (
            f"the dense model changed: the library held vectors of {held}"
            f"{widths}; every snippet is embedded again with {name}"
        )


def follow_model(store: Store, name: str, width: int) -> ModelChange | None:
    """Make the library ready for model ``name``: its vector field ``width`` wide (a
    library of another width is rebuilt without its vectors: Typesense holds one width
    per field). Returns what changed, if anything; retrieval never compares a question's
    vector with another model's (``retrieve.dense`` filters on the model's name)."""
    others = {m: n for m, n in stored_models(store).items() if m != name}
    old = store.vector_width()
    if old is not None and old != width:
        store.set_vector_width(width)
    # A library without vectors (new, or ingested with --no-embed) changes silently.
    return ModelChange(others, (old, width)) if others else None
