"""Faceted search for people: Typesense's own typo-tolerant query with exact counts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..index.filters import Filters
from ..index.schema import CHUNKS
from ..index.store import Store
from ..index.visible import excluding, hidden_docs
from ..shared.inputs import check_query, check_result_page
from ..text.stopwords import SEARCH_STOPWORDS
from .hits import HIT_FIELDS, Hit, to_hit

FACETS = ("content_hints", "tier", "doc_title", "format")
MAX_PER_PAGE = 250  # Typesense's own limit


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    found: int
    page: int
    per_page: int
    hits: tuple[Hit, ...]
    facets: dict[str, list[tuple[str, int]]]
    filters: str
    folded: int = 0  # hits of this page left out: same section, same preview as a hit above

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_MARKS = re.compile(r"</?mark>")
_SEPARATORS = re.compile(r"[\s\-_/.]+")
_NON_WORD = re.compile(r"[^\w]|_")
MAX_TERMS = 16


def keywords(query: str) -> str:
    """The query's words as the collection tokenizes them, question words dropped
    (Typesense needs every word to match)."""
    out = (_NON_WORD.sub("", w) for w in _SEPARATORS.split(query.lower()))
    tokens = list(dict.fromkeys(w for w in out if w))
    kept = [w for w in tokens if w not in SEARCH_STOPWORDS] or tokens
    return " ".join(kept[:MAX_TERMS]) or query


def keyword_params(query: str, filters: Filters, hidden: Sequence[str] = ()) -> dict[str, Any]:
    """Typesense's keyword query for ``query`` (also what ``retrieve`` ranks with while its
    lexical index is rebuilt); ``hidden``: doc_ids whose chunks are left out (documents
    not completely indexed)."""
    params: dict[str, Any] = {
        "q": keywords(query) if query.strip() else "*",
        "drop_tokens_threshold": 20,
        "query_by": "section_title,retrieval_text",
        "query_by_weights": "3,1",
        "num_typos": 2,
        "highlight_fields": "text",
        # Words of context each side of a match: Typesense's default of 4 made previews
        # as short as "Ownership Rules First, let's take".
        "highlight_affix_num_tokens": 16,
        "include_fields": HIT_FIELDS,
    }
    expr = " && ".join(x for x in (filters.expression(), excluding(hidden)) if x)
    if expr:
        params["filter_by"] = expr
    return params


def _highlight(h: dict[str, Any]) -> str:
    return next(
        (x.get("snippet", "") for x in h.get("highlights", []) if x.get("field") == "text"), ""
    )


def _preview(hit: Hit) -> str:
    return " ".join(_MARKS.sub("", hit.highlight).split())


def fold(hits: Sequence[Hit]) -> list[Hit]:
    """The hits without repeats: a section and its own snippet often match at the same
    place and would show the same preview twice; the better-ranked one stays."""
    seen: set[tuple[str, str]] = set()
    out: list[Hit] = []
    for h in hits:
        key = (h.parent_id if h.tier == "snippet" and h.parent_id else h.id, _preview(h))
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def search(
    store: Store,
    query: str,
    filters: Filters | None = None,
    *,
    page: int = 1,
    per_page: int = 10,
    facets: Sequence[str] = FACETS,
) -> SearchResult:
    """Chunks matching ``query`` with facet counts for hints, tiers, documents, formats.

    People search with a few keywords and read the facet counts as "how many chunks
    match", so this is Typesense's own search (all words, typo tolerant) with exact
    counts over every match; agents' questions go through ``retrieve``'s ranking. A page
    shows each preview of a section once (``folded`` counts the repeats left out).
    Chunks of documents not completely indexed (``index.visible``) are neither hits nor
    counted; ``filters`` in the result is the caller's filter only.
    ``facets``: the fields counted (any facet field of the chunks, e.g. ``doc_id``,
    ``contains_table``)."""
    check_query(query)
    filters = filters or Filters()
    check_result_page(page, per_page, MAX_PER_PAGE)
    params = keyword_params(query, filters, hidden_docs(store)) | {
        "facet_by": ",".join(facets),
        "max_facet_values": 20,
        "page": page,
        "per_page": per_page,
    }
    res = store.search(CHUNKS, params)
    hits = [
        to_hit(h["document"], highlight=_highlight(h), score=float(h.get("text_match", 0)))
        for h in res.get("hits", [])
    ]
    shown = fold(hits)
    counts = {
        f["field_name"]: [(str(c["value"]), int(c["count"])) for c in f["counts"]]
        for f in res.get("facet_counts", [])
    }
    return SearchResult(
        query=query,
        found=int(res.get("found", 0)),
        page=page,
        per_page=per_page,
        hits=tuple(shown),
        facets=counts,
        filters=filters.expression(),
        folded=len(hits) - len(shown),
    )
