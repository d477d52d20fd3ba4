"""Retrievers for LangChain (``.langchain``) and LlamaIndex (``.llamaindex``): each item
of ``Library.retrieve`` (a cited, budgeted context) becomes one framework document."""

from __future__ import annotations

from typing import Any

from ..library import ContextItem, citation_text


def item_id(item: ContextItem) -> str:
    """A stable id: the section and the character range taken from it."""
    return f"{item.section_id}:{item.citation.char_start}-{item.citation.char_end}"


def metadata(item: ContextItem) -> dict[str, Any]:
    """What a framework document carries besides the text: the citation, flat."""
    c = item.citation
    return {
        "citation": citation_text(c),
        "source": c.source,
        "doc_id": c.doc_id,
        "doc_title": c.doc_title,
        "breadcrumb": list(c.breadcrumb),
        "page_start": c.page_start,
        "page_end": c.page_end,
        "page_labels": list(c.page_labels),
        "char_start": c.char_start,
        "char_end": c.char_end,
        "section_id": item.section_id,
        "snippet_ids": list(item.snippet_ids),
        "tokens": item.tokens,
        "rank": item.rank,
        "score": score(item),  # the ranking's score of its best snippet (higher is better)
    }


def score(item: ContextItem) -> float | None:
    value = item.signals.get("score")
    return None if value is None else float(value)
