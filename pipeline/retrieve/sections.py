"""Chunks by id with their neighbours and citation, and the documents of the library.
Everything reads through search, so a search-only key suffices. Chunks of a document not
completely indexed are not shown (``index.visible``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, RetrievalError
from ..index.records import DocumentRecord, Status
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.store import Store, found, quote
from ..index.visible import hides, is_hidden, status_search
from ..shared.inputs import check_id, quoted
from ..shared.pathtext import os_path, resolved, stored
from .context import Citation, cite, page_map_search, page_maps
from .hits import HIT_FIELDS, Hit, StoredChunk, by_id_search, to_hit


def get_section(store: Store, section_id: str) -> Hit | None:
    """One section by id (through search: a search-only key cannot GET by id); ``None``
    when there is none, or its document is not completely indexed."""
    check_id(section_id, "section id")
    res = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"id:={quote(section_id)} && tier:=section",
            "include_fields": HIT_FIELDS,
            "per_page": 1,
        },
    )
    hits = found(res)
    if not hits or is_hidden(store, hits[0]["doc_id"]):
        return None
    return to_hit(hits[0])


def neighbors(store: Store, section_id: str) -> tuple[Hit | None, Hit | None]:
    """The chunks before and after ``section_id`` in its document, of the same tier
    (sections for a section, snippets for a snippet)."""
    check_id(section_id, "section id")
    sec = found(
        store.search(
            CHUNKS,
            {
                "q": "*",
                "filter_by": f"id:={quote(section_id)}",
                "include_fields": "doc_id,tier,chunk_index",
                "per_page": 1,
            },
        )
    )
    if not sec or is_hidden(store, sec[0]["doc_id"]):
        raise RetrievalError(f"no section with id {section_id}")
    return _around(store, sec[0])


def _around(store: Store, chunk: dict[str, Any]) -> tuple[Hit | None, Hit | None]:
    """The chunks before and after a stored one (its ``doc_id``, ``tier`` and
    ``chunk_index``): ``neighbors`` once the chunk is known to be shown."""
    doc, tier, index = chunk["doc_id"], chunk["tier"], int(chunk["chunk_index"])
    res = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"doc_id:={quote(doc)} && tier:={quote(tier)} && "
            f"chunk_index:=[{index - 1},{index + 1}]",
            "include_fields": HIT_FIELDS + ",chunk_index",
            "per_page": 2,
        },
    )
    by_index = {int(d["chunk_index"]): to_hit(d) for d in found(res)}
    return by_index.get(index - 1), by_index.get(index + 1)


def list_documents(store: Store, *, limit: int = 250) -> list[DocumentRecord]:
    """Indexed documents (through search, so a search-only key suffices)."""
    out: list[DocumentRecord] = []
    page = 1
    while len(out) < limit:
        res = store.search(
            DOCUMENTS,
            {
                "q": "*",
                "per_page": min(250, limit - len(out)),
                "page": page,
                "sort_by": "ingested_at:desc",
                "exclude_fields": "headings",  # a book's can be tens of KB: outline reads it
            },
        )
        hits = [DocumentRecord.from_store(d) for d in found(res)]
        out.extend(hits)
        if len(hits) == 0 or len(out) >= int(res.get("found", 0)):
            break
        page += 1
    return out


@dataclass(frozen=True, slots=True)
class Shown:
    """One chunk as a reader opens it: its text, the citation an agent would get for it,
    and the chunks before and after it (same tier, same document)."""

    chunk: Hit
    citation: Citation
    previous: Hit | None
    next: Hit | None


def show(store: Store, chunk_id: str) -> Shown | None:
    """A section or snippet by id with its citation and neighbours; ``None``: no such id,
    or its document is not completely indexed."""
    check_id(chunk_id, "chunk id")
    chunks = found(store.search(CHUNKS, by_id_search([chunk_id]) or {}))
    if not chunks:
        return None
    doc = chunks[0]
    # The page map and whether the content is shown, in one round trip.
    maps, statuses = store.multi_search(
        [page_map_search([doc["doc_id"]]) or {}, status_search(doc["doc_id"])]
    )
    if hides(statuses):
        return None
    stored = StoredChunk.of(doc)
    page_map = page_maps({d["id"]: d for d in found(maps)}).get(stored.doc_id)
    before, after = _around(store, doc)
    citation = cite(stored, stored.char_start, stored.char_end, (), page_map)
    return Shown(to_hit(doc), citation, before, after)


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A file's record: the content it holds (``doc_id``), where, and how it was indexed.
    ``status``: complete, indexing, empty, failed or duplicate (a copy of another file)."""

    doc_id: str
    title: str
    path: str
    format: str
    status: Status
    pages: int | None
    sections: int
    snippets: int
    error: str
    ingested_at: int

    @classmethod
    def of(cls, record: DocumentRecord) -> DocumentInfo:
        return cls(
            doc_id=record.doc_id,
            title=record.title,
            path=stored(record.path),  # shown and sent as JSON: valid UTF-8
            format=record.format,
            status=record.status,
            pages=record.pages or None,  # markdown and text have none (not 0 pages)
            sections=record.sections,
            snippets=record.snippets,
            error=record.error or "",
            ingested_at=record.ingested_at,
        )


_NAMING = "give a doc_id, its first characters (unique among the documents) or the file's path"


def path_names(doc: str) -> frozenset[str]:
    """The stored paths a document argument may name: as given, and resolved."""
    return frozenset({doc, stored(str(resolved(Path(os_path(doc)))))})


def find_document(store: Store, doc: str) -> DocumentInfo:
    """The document named by its doc_id, a unique prefix of it, or its file's path: the
    one lookup behind every command and tool that takes a document."""
    if not doc.strip():  # a prefix of nothing matches every document
        raise InvalidInput(f"no document named: {_NAMING}")
    records = [DocumentInfo.of(r) for r in list_documents(store, limit=1_000_000)]
    paths = path_names(doc)
    matches = [r for r in records if r.doc_id.startswith(doc) or r.path in paths]
    ids = sorted({r.doc_id for r in matches})
    if not ids:
        raise RetrievalError(f"no indexed document matches {quoted(doc)}: {_NAMING}")
    if len(ids) > 1:
        shown = ", ".join(i[:12] for i in ids[:5])
        raise RetrievalError(
            f"{quoted(doc)} is the start of {len(ids)} doc_ids ({shown}): give more characters "
            "of the one you mean"
        )
    # The record holding the content (id == doc_id) when there are copies.
    return next((r for r in matches if r.status != "duplicate"), matches[0])


@dataclass(frozen=True, slots=True)
class LibraryCounts:
    """What the library holds: file records by status, and chunks by tier."""

    statuses: dict[str, int]
    sections: int
    snippets: int


def library_counts(store: Store) -> LibraryCounts:
    return LibraryCounts(
        statuses=store.facet_counts(DOCUMENTS, "status", 20),
        sections=store.count(CHUNKS, "tier:=section"),
        snippets=store.count(CHUNKS, "tier:=snippet"),
    )
