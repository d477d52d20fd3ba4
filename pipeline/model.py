"""Frozen data passed between pipeline stages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

BlockKind = Literal[
    "frontmatter",
    "heading",
    "paragraph",
    "list",
    "code",
    "table",
    "quote",
    "html",
    "hr",
    "mdx_esm",
    "mdx_component",
]
HeadingMode = Literal["markdown", "outline", "fonts", "heuristic"]
Tier = Literal["section", "snippet"]
# Where a file's ingest failed: reading its bytes, extracting, chunking, embedding, indexing.
Stage = Literal["read", "extract", "chunk", "embed", "index"]
STAGES: tuple[Stage, ...] = ("read", "extract", "chunk", "embed", "index")
BoilerplateKind = Literal["page_number", "running_header", "toc", "index", "copyright"]
BOILERPLATE_KINDS: tuple[BoilerplateKind, ...] = (
    "page_number",
    "running_header",
    "toc",
    "index",
    "copyright",
)


@dataclass(frozen=True, slots=True)
class Block:
    """A top-level block of the source: ``src[start:end]`` is its exact text."""

    kind: BlockKind
    start: int
    end: int
    line_start: int  # 1-based, inclusive
    line_end: int  # 1-based, inclusive
    level: int = 0  # heading level (1-6); 0 for other kinds
    title: str = ""  # heading text without markers
    lang: str = ""  # code fence info word


@dataclass(frozen=True, slots=True)
class Page:
    """A physical page of a paginated source and its range in the document text."""

    number: int  # 1-based physical page
    label: str | None
    char_start: int
    char_end: int


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    level: int
    title: str
    page: int | None  # 1-based physical page
    char_start: int | None


@dataclass(frozen=True, slots=True)
class RemovedLine:
    """A line an extractor left out of the text as boilerplate."""

    page: int | None  # 1-based page number; None where the source has no pages (EPUB)
    line: int | None  # 0-based index in that page's line list
    kind: BoilerplateKind
    text: str


def boilerplate_counts(removed: Iterable[RemovedLine]) -> dict[BoilerplateKind, int]:
    counts = dict.fromkeys(BOILERPLATE_KINDS, 0)
    for line in removed:
        counts[line.kind] += 1
    return counts


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """What an extractor learned about the file besides its text: the fields the index
    stores, the boilerplate it removed, and facts of one format (``extra``: PDF outline
    counts, EPUB navigation, Dublin Core fields) that ``folio extract --json`` shows."""

    backend: str = "text"  # what read the text: pdfium, pypdf, marker, epub or text
    author: str = ""
    page_count: int | None = None
    boilerplate: tuple[RemovedLine, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The flat JSON mapping ``folio extract --json`` prints as ``metadata``."""
        removed = [
            {"page": r.page, "line": r.line, "kind": r.kind, "text": r.text}
            for r in self.boilerplate
        ]
        return {
            "backend": self.backend,
            "author": self.author,
            "page_count": self.page_count,
            **self.extra,
            "boilerplate": {"counts": boilerplate_counts(self.boilerplate), "removed": removed},
        }


@dataclass(frozen=True, slots=True)
class Document:
    """Normalized text of one source file; chunk offsets index into ``text``.

    ``markup`` tells the chunker how to read ``text``: ``markdown`` is parsed as
    CommonMark, ``text`` as flat text whose only markup is ATX heading lines.
    """

    text: str
    source: str = ""
    format: str = "markdown"
    markup: Literal["markdown", "text"] = "markdown"
    title: str = ""
    heading_mode: HeadingMode | None = None  # None: decide from the text
    pages: tuple[Page, ...] = ()
    outline: tuple[OutlineEntry, ...] = ()
    info: SourceInfo = field(default_factory=SourceInfo)
    doc_id: str = ""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One section or snippet; also the JSONL record and the Typesense document."""

    id: str
    doc_id: str
    source: str
    doc_title: str
    tier: Tier
    parent_id: str | None
    chunk_index: int
    text: str
    context: str  # the retrieval prefix: `[DOC: …] [PATH: …] [CONCEPTS: …]` + blank line
    breadcrumb: tuple[str, ...]
    section_title: str
    content_hints: tuple[str, ...]
    contains_table: bool
    table_columns: int
    table_headers: tuple[str, ...]
    est_tokens: int
    char_start: int
    char_end: int
    line_start: int
    line_end: int
    block_start: int
    block_end: int
    page_start: int | None
    page_end: int | None
    oversized: bool
    frontmatter: Mapping[str, Any] | None
    prefix_chars: int
    suffix_chars: int
    heading_mode: HeadingMode

    @property
    def retrieval_text(self) -> str:
        """What an embedding model sees: the context prefix, then the text.

        Built on demand: storing it would double the memory of every chunk list.
        """
        return self.context + self.text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping of the contract fields, in declaration order."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            if name == "context":
                out["retrieval_text"] = self.retrieval_text
                continue
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        if self.frontmatter is not None:
            out["frontmatter"] = dict(self.frontmatter)
        return out
