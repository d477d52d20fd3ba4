"""The heading tree the chunker works from, with page ranges and chunk counts.

Built from the same heading sections (``parse``) the chunker packs, so what ``folio outline``
shows is what ``folio chunk`` cuts along. ``heading_spans`` is also what ingest stores with
a document (``index.headings``), so the outline of an indexed document lists every heading
once, whatever chunks it ended up in.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Chunk, Document, HeadingMode
from ..parse.document import ParsedDocument, parse
from ..shared.config import ChunkConfig
from .tiers import chunk_parsed


@dataclass(frozen=True, slots=True)
class HeadingSpan:
    """A heading and everything up to the next heading of its level or above."""

    level: int  # the heading's own level (1 for ``#``)
    title: str
    breadcrumb: tuple[str, ...]  # document title first, ending with this heading
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None


@dataclass(frozen=True, slots=True)
class OutlineNode:
    """A heading, its span and how many chunks hold text of that span."""

    level: int
    title: str
    breadcrumb: tuple[str, ...]  # document title first
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None
    sections: int  # section chunks holding text under this heading or its subheadings
    snippets: int

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__} | {
            "breadcrumb": list(self.breadcrumb)
        }


@dataclass(frozen=True, slots=True)
class DocumentOutline:
    title: str
    heading_mode: HeadingMode
    headings: tuple[OutlineNode, ...]
    sections: int
    snippets: int


def document_outline(doc: Document, config: ChunkConfig | None = None) -> DocumentOutline:
    """The heading tree of ``doc`` as the chunker reads it, and how it was chunked."""
    config = config or ChunkConfig()
    d = parse(doc, config)
    chunks = chunk_parsed(d, config)
    nodes = [
        OutlineNode(
            h.level,
            h.title,
            h.breadcrumb,
            h.char_start,
            h.char_end,
            h.page_start,
            h.page_end,
            _count(chunks, "section", h.char_start, h.char_end),
            _count(chunks, "snippet", h.char_start, h.char_end),
        )
        for h in heading_spans(doc, d)
    ]
    return DocumentOutline(
        d.title,
        d.heading_mode,
        tuple(nodes),
        sum(1 for c in chunks if c.tier == "section"),
        sum(1 for c in chunks if c.tier == "snippet"),
    )


def heading_spans(doc: Document, d: ParsedDocument) -> list[HeadingSpan]:
    """Every heading that starts a heading section, in order, with its span and pages:
    also a heading with no text of its own (``2.1`` right before ``2.1.1``)."""
    heads = [s for s in d.sections if s.level > 0]
    starts = [d.blocks[s.first_block].start for s in heads]
    ends = [len(d.src)] * len(heads)
    open_: list[int] = []  # headings whose span has not ended yet; linear, not quadratic
    for k, s in enumerate(heads):
        while open_ and heads[open_[-1]].level >= s.level:
            ends[open_.pop()] = starts[k]
        open_.append(k)
    page_ends = [p.char_end for p in doc.pages]
    out: list[HeadingSpan] = []
    for s, start, end in zip(heads, starts, ends, strict=True):
        first, last = _pages(doc, page_ends, start, end)
        out.append(HeadingSpan(s.level, s.title, s.breadcrumb, start, end, first, last))
    return out


def _pages(
    doc: Document, ends: Sequence[int], start: int, end: int
) -> tuple[int | None, int | None]:
    if not doc.pages:
        return None, None
    first = min(bisect_right(ends, start), len(ends) - 1)
    last = min(bisect_left(ends, max(start, end - 1) + 1), len(ends) - 1)
    return doc.pages[first].number, doc.pages[max(first, last)].number


def _count(chunks: Sequence[Chunk], tier: str, start: int, end: int) -> int:
    return sum(1 for c in chunks if c.tier == tier and c.char_start < end and c.char_end > start)
