"""Sections by id, their neighbours, and the documents of the library."""

from __future__ import annotations

from typing import Any

from ..errors import RetrievalError
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.store import Store, quote
from ..inputs import check_id
from .hits import HIT_FIELDS, Hit, to_hit


def get_section(store: Store, section_id: str) -> Hit | None:
    """One section by id (through search: a search-only key cannot GET by id)."""
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
    hits = res.get("hits", [])
    return to_hit(hits[0]["document"]) if hits else None


def neighbors(store: Store, section_id: str) -> tuple[Hit | None, Hit | None]:
    """The sections before and after ``section_id`` in its document."""
    check_id(section_id, "section id")
    sec = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"id:={quote(section_id)}",
            "include_fields": "doc_id,chunk_index",
            "per_page": 1,
        },
    ).get("hits", [])
    if not sec:
        raise RetrievalError(f"no section with id {section_id}")
    doc, index = sec[0]["document"]["doc_id"], int(sec[0]["document"]["chunk_index"])
    res = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"doc_id:={quote(doc)} && tier:=section && "
            f"chunk_index:=[{index - 1},{index + 1}]",
            "include_fields": HIT_FIELDS + ",chunk_index",
            "per_page": 2,
        },
    )
    by_index = {
        int(h["document"]["chunk_index"]): to_hit(h["document"]) for h in res.get("hits", [])
    }
    return by_index.get(index - 1), by_index.get(index + 1)


def list_documents(store: Store, *, limit: int = 250) -> list[dict[str, Any]]:
    """Indexed documents (through search, so a search-only key suffices)."""
    out: list[dict[str, Any]] = []
    page = 1
    while len(out) < limit:
        res = store.search(
            DOCUMENTS,
            {
                "q": "*",
                "per_page": min(250, limit - len(out)),
                "page": page,
                "sort_by": "ingested_at:desc",
            },
        )
        hits = [h["document"] for h in res.get("hits", [])]
        out.extend(hits)
        if len(hits) == 0 or len(out) >= int(res.get("found", 0)):
            break
        page += 1
    return out
