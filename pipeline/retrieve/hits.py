"""Stored chunks as typed hits, and fetching chunks by id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..index.schema import CHUNKS
from ..index.store import quote

HIT_FIELDS = (
    "id,doc_id,doc_title,source,format,tier,parent_id,chunk_index,breadcrumb,section_title,"
    "content_hints,contains_table,table_headers,page_start,page_end,char_start,char_end,"
    "prefix_chars,suffix_chars,est_tokens,text"
)


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    doc_id: str
    doc_title: str
    source: str
    tier: str
    parent_id: str | None
    breadcrumb: tuple[str, ...]
    section_title: str
    content_hints: tuple[str, ...]
    page_start: int | None
    page_end: int | None
    char_start: int
    char_end: int
    highlight: str
    text: str
    score: float


def _placed(d: dict[str, Any]) -> dict[str, Any]:
    """The fields that say which chunk a stored document is and where it sits."""
    return {
        "id": d["id"],
        "doc_id": d["doc_id"],
        "doc_title": d["doc_title"],
        "source": d["source"],
        "parent_id": d.get("parent_id"),
        "breadcrumb": tuple(d["breadcrumb"]),
        "page_start": d.get("page_start"),
        "page_end": d.get("page_end"),
        "char_start": int(d["char_start"]),
        "char_end": int(d["char_end"]),
    }


def to_hit(d: dict[str, Any], *, highlight: str = "", score: float = 0.0) -> Hit:
    """A hit from a stored chunk document (``HIT_FIELDS``)."""
    return Hit(
        **_placed(d),
        tier=d["tier"],
        section_title=d["section_title"],
        content_hints=tuple(d["content_hints"]),
        highlight=highlight or d["text"][:240],
        text=d["text"],
        score=score,
    )


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A stored chunk as retrieval packs it: ``body`` is exactly
    ``extract(source)[char_start:char_end]`` (a split part's repeated header removed)."""

    id: str
    doc_id: str
    doc_title: str
    source: str
    parent_id: str | None
    breadcrumb: tuple[str, ...]
    page_start: int | None
    page_end: int | None
    char_start: int
    char_end: int
    body: str

    @classmethod
    def of(cls, d: dict[str, Any]) -> StoredChunk:
        text = str(d["text"])
        body = text[int(d["prefix_chars"]) : len(text) - int(d["suffix_chars"])]
        return cls(**_placed(d), body=body)

    def span(self, a: int, b: int) -> str:
        """The source text of ``[a, b)``, a range inside this chunk."""
        return self.body[a - self.char_start : b - self.char_start]


def by_id_search(ids: Sequence[str]) -> dict[str, Any] | None:
    """The search (for ``multi_search``) that reads these chunks; ``None`` for no ids."""
    if not ids:
        return None
    return {
        "collection": CHUNKS,
        "q": "*",
        "filter_by": f"id:=[{','.join(quote(i) for i in ids)}]",
        "per_page": len(ids),
        "include_fields": HIT_FIELDS,
    }
