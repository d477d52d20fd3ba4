"""What the MCP tools take and give, as the JSON schemas an agent reads before calling.

Inputs carry their enums and ranges in the schema only: the check is the one every
caller gets (``Filters``, ``search``, ``retrieve``), so an agent gets the command line's
message (the allowed values, a did-you-mean) as an error result, not pydantic's.
Outputs are the SDK's structured output: pydantic models read from Folio's own records
by attribute, so each field is named once."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from ..library import (
    FORMATS,
    HINTS,
    MAX_PER_PAGE,
    MODES,
    TIERS,
    Citation,
    ContextItem,
    DocumentInfo,
    OutlineEntry,
)
from ..shared.inputs import MAX_HITS, MAX_PAGE_NUMBER


def _enum(values: tuple[str, ...]) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "enum": list(values)})


def _whole(low: int, high: int | None = None) -> WithJsonSchema:
    bounds = {"minimum": low} | ({"maximum": high} if high is not None else {})
    return WithJsonSchema({"type": "integer", **bounds})


Hint = Annotated[str, _enum(HINTS)]
Tier = Annotated[str, _enum(TIERS)]
Format = Annotated[str, _enum(FORMATS)]
Mode = Annotated[str, _enum(MODES)]
Positive = Annotated[int, _whole(1)]
PerPage = Annotated[int, _whole(1, MAX_PER_PAGE)]
ResultPage = Annotated[int, _whole(1, MAX_HITS)]  # at most MAX_HITS // per_page (checked)
PageNumber = Annotated[int, _whole(1, MAX_PAGE_NUMBER)]

DOC = (
    "a document: its doc_id, the first characters of it (unique among the documents, as "
    "list_documents shows them) or its file's path"
)
# The filters search and retrieve share.
Hints = Annotated[
    list[Hint] | None, Field(description="only chunks with every one of these content hints")
]
InDoc = Annotated[str | None, Field(description=f"only chunks of {DOC}")]
PageFrom = Annotated[
    PageNumber | None, Field(description="only chunks ending on this page or later")
]
PageTo = Annotated[
    PageNumber | None, Field(description="only chunks starting on this page or before")
]
InFormat = Annotated[Format | None, Field(description="only this file format")]
HasTable = Annotated[
    bool, Field(description="only chunks holding a table (false: no filter), as --has-table")
]
Ranking = Annotated[
    Mode | None,
    Field(description="ranking (default: hybrid when embeddings are available, else lexical)"),
]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, from_attributes=True)


class ChunkRef(_Record):
    """A section or snippet, without its text."""

    id: str
    doc_id: str
    doc_title: str
    source: str = Field(description="the file's path")
    tier: str = Field(description="section (~1700 tokens) or snippet (~420, inside a section)")
    parent_id: str | None = Field(description="a snippet's section")
    breadcrumb: tuple[str, ...] = Field(description="the headings above it, outermost first")
    section_title: str
    content_hints: tuple[str, ...]
    page_start: int | None
    page_end: int | None


class SearchHit(ChunkRef):
    highlight: str = Field(description="the matching passage, matched words in <mark>")


class SearchPage(_Record):
    query: str
    found: int = Field(
        description="matching chunks in all pages; an empty page past the end still counts them"
    )
    page: int
    per_page: int
    hits: tuple[SearchHit, ...]
    facets: dict[str, list[tuple[str, int]]] = Field(
        description="per field (content_hints, tier, doc_title, format): [value, count] pairs"
    )
    filters: str = Field(description="the filter applied, as Typesense's filter_by")
    folded: int = Field(description="hits of this page left out: same section, same preview")


class Retrieved(_Record):
    query: str
    budget: int
    tokens: int = Field(description="tokens of context given, at most the budget")
    mode: str = Field(description="the ranking that ran: lexical, dense or hybrid")
    note: str = Field(description="why the ranking is not the one asked for, if it is not")
    items: tuple[ContextItem, ...] = Field(
        description="best first; text is exactly the cited character range of the document"
    )


class Section(_Record):
    section: ChunkRef
    text: str
    citation: Citation
    previous: ChunkRef | None = Field(description="the section before it in its document")
    next: ChunkRef | None = Field(description="the section after it in its document")


class Outline(_Record):
    document: DocumentInfo
    headings: tuple[OutlineEntry, ...] = Field(
        description="each heading once, in reading order; level: depth below the title (0: "
        "the text before the first heading); id: the section holding it, for get_section"
    )


class Documents(_Record):
    documents: tuple[DocumentInfo, ...] = Field(
        description="newest first; status: complete, indexing, empty, failed or duplicate"
    )
