"""The heading tree the chunker works from, with page ranges and chunk counts.

Built from the same heading sections (``parse``) the chunker packs, so what ``folio outline``
shows is what ``folio chunk`` cuts along.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Chunk, Document, HeadingMode
from ..parse.document import parse
from ..shared.config import ChunkConfig
from .tiers import chunk_parsed


@dataclass(frozen=True, slots=True)
class OutlineNode:
    """A heading and everything up to the next heading of its level or above."""

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
    heads = [s for s in d.sections if s.level > 0]
    starts = [d.blocks[s.first_block].start for s in heads]
    nodes: list[OutlineNode] = []
    for k, s in enumerate(heads):
        nxt = next((j for j in range(k + 1, len(heads)) if heads[j].level <= s.level), None)
        end = starts[nxt] if nxt is not None else len(d.src)
        first, last = _pages(doc, starts[k], end)
        nodes.append(
            OutlineNode(
                s.level,
                s.title,
                s.breadcrumb,
                starts[k],
                end,
                first,
                last,
                _count(chunks, "section", starts[k], end),
                _count(chunks, "snippet", starts[k], end),
            )
        )
    return DocumentOutline(
        d.title,
        d.heading_mode,
        tuple(nodes),
        sum(1 for c in chunks if c.tier == "section"),
        sum(1 for c in chunks if c.tier == "snippet"),
    )


def _pages(doc: Document, start: int, end: int) -> tuple[int | None, int | None]:
    if not doc.pages:
        return None, None
    ends = [p.char_end for p in doc.pages]
    first = min(bisect_right(ends, start), len(ends) - 1)
    last = min(bisect_left(ends, max(start, end - 1) + 1), len(ends) - 1)
    return doc.pages[first].number, doc.pages[max(first, last)].number


def _count(chunks: Sequence[Chunk], tier: str, start: int, end: int) -> int:
    return sum(1 for c in chunks if c.tier == tier and c.char_start < end and c.char_end > start)
