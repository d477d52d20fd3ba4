"""An indexed document's outline: every heading once, in document order, at its depth,
each with the section chunk to open it at. The headings come from the document record
(``index.headings``), not from the chunks: a chunk's breadcrumb is what its text has in
common, so chunks alone miss the headings that share one or own no text ("2.1" right
before "2.1.1") and repeat those whose text is split."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..index.headings import StoredHeading, decode_headings
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.store import Store, found, quote
from ..index.visible import hides, status_search
from ..shared.inputs import check_id


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """A heading of a document, in reading order; ``id`` is the section that holds its
    start (``show`` / ``get_section`` open it). ``level`` is its depth below the document
    title (1: a top heading); 0 is the document's opening, the text before its first
    heading, or a first heading that repeats the title."""

    id: str
    chunk_index: int
    level: int
    breadcrumb: tuple[str, ...]  # document title first, ending with this heading
    section_title: str
    page_start: int | None
    page_end: int | None


@dataclass(frozen=True, slots=True)
class _Section:
    id: str
    chunk_index: int
    breadcrumb: tuple[str, ...]
    char_start: int
    page_start: int | None
    page_end: int | None


def outline(store: Store, doc_id: str) -> list[OutlineEntry]:
    """The headings of one document in order (none while it is not completely indexed)."""
    check_id(doc_id, "document id")
    record_search = {
        "collection": DOCUMENTS,
        "q": "*",
        "filter_by": f"id:={quote(doc_id)}",
        "include_fields": "id,headings",
        "per_page": 1,
    }
    statuses, record = store.multi_search([status_search(doc_id), record_search])
    if hides(statuses):
        return []
    sections = _sections(store, doc_id)
    if not sections:
        return []
    raw = next((r.get("headings") for r in found(record)), None)
    title = sections[0].breadcrumb[0]
    heads = decode_headings(raw, title) if raw else _from_breadcrumbs(sections)
    return _entries(sections, heads)


def _entries(sections: Sequence[_Section], heads: Sequence[StoredHeading]) -> list[OutlineEntry]:
    starts = [s.char_start for s in sections]
    out: list[OutlineEntry] = []
    first = sections[0]
    if not heads or first.char_start < heads[0].char_start:  # text before the first heading
        title = first.breadcrumb[0]
        end = heads[0].page_start if heads else sections[-1].page_end
        pages = (first.page_start, first.page_end if end is None else end)
        out.append(OutlineEntry(first.id, first.chunk_index, 0, (title,), title, *pages))
    for h in heads:
        sec = sections[max(0, bisect_right(starts, h.char_start) - 1)]
        out.append(
            OutlineEntry(
                sec.id, sec.chunk_index, h.depth, h.breadcrumb, h.title, h.page_start, h.page_end
            )
        )
    return out


def _from_breadcrumbs(sections: Sequence[_Section]) -> list[StoredHeading]:
    """For a record written before records kept their headings: each heading path the
    sections' breadcrumbs show, once, in order (headings sharing a section are missed)."""
    seen: set[tuple[str, ...]] = set()
    out: list[StoredHeading] = []
    for s in sections:
        for k in range(2, len(s.breadcrumb) + 1):
            path = s.breadcrumb[:k]
            if path not in seen:
                seen.add(path)
                at = (s.char_start, s.char_start, s.page_start, s.page_end)
                out.append(StoredHeading(path[-1], path, *at))
    return out


def _sections(store: Store, doc_id: str) -> list[_Section]:
    """The document's section chunks in order (they cover its text, in order)."""
    out: list[_Section] = []
    page = 1
    while True:
        res = store.search(
            CHUNKS,
            {
                "q": "*",
                "filter_by": f"doc_id:={quote(doc_id)} && tier:=section",
                "include_fields": "id,chunk_index,breadcrumb,char_start,page_start,page_end",
                "sort_by": "chunk_index:asc",
                "per_page": 250,
                "page": page,
            },
        )
        hits = found(res)
        out.extend(_section(d) for d in hits)
        if not hits or len(out) >= int(res.get("found", 0)):
            return out
        page += 1


def _section(d: dict[str, Any]) -> _Section:
    return _Section(
        d["id"],
        int(d["chunk_index"]),
        tuple(d["breadcrumb"]),
        int(d["char_start"]),
        d.get("page_start"),
        d.get("page_end"),
    )
