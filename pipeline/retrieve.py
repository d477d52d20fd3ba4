"""Faceted search for people and budgeted, cited context for agents."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .chunk.tokens import TokenCounter, make_counter
from .config import ChunkConfig
from .errors import FolioError
from .index.schema import CHUNKS, DOCUMENTS
from .index.store import Store, quote

FACETS = ("content_hints", "tier", "doc_title", "format")
HIT_FIELDS = (
    "id,doc_id,doc_title,source,format,tier,parent_id,chunk_index,breadcrumb,section_title,"
    "content_hints,contains_table,table_headers,page_start,page_end,char_start,char_end,"
    "prefix_chars,suffix_chars,est_tokens,text"
)


class RetrievalError(FolioError):
    """A search or retrieval request could not be served."""


@dataclass(frozen=True, slots=True)
class Filters:
    hints: tuple[str, ...] = ()
    tier: str | None = None
    doc: str | None = None
    format: str | None = None
    has_table: bool | None = None
    page_from: int | None = None
    page_to: int | None = None

    def expression(self) -> str:
        parts = [f"content_hints:={quote(h)}" for h in self.hints]
        if self.tier:
            parts.append(f"tier:={quote(self.tier)}")
        if self.doc:
            parts.append(f"doc_id:={quote(self.doc)}")
        if self.format:
            parts.append(f"format:={quote(self.format)}")
        if self.has_table is not None:
            parts.append(f"contains_table:={'true' if self.has_table else 'false'}")
        if self.page_from is not None:
            parts.append(f"page_end:>={int(self.page_from)}")
        if self.page_to is not None:
            parts.append(f"page_start:<={int(self.page_to)}")
        return " && ".join(parts)


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
    score: int


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    found: int
    page: int
    per_page: int
    hits: tuple[Hit, ...]
    facets: dict[str, list[tuple[str, int]]]
    filters: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hit(h: dict[str, Any]) -> Hit:
    d = h["document"]
    highlight = next(
        (x.get("snippet", "") for x in h.get("highlights", []) if x.get("field") == "text"), ""
    )
    return Hit(
        id=d["id"],
        doc_id=d["doc_id"],
        doc_title=d["doc_title"],
        source=d["source"],
        tier=d["tier"],
        parent_id=d.get("parent_id"),
        breadcrumb=tuple(d["breadcrumb"]),
        section_title=d["section_title"],
        content_hints=tuple(d["content_hints"]),
        page_start=d.get("page_start"),
        page_end=d.get("page_end"),
        char_start=int(d["char_start"]),
        char_end=int(d["char_end"]),
        highlight=highlight or d["text"][:240],
        text=d["text"],
        score=int(h.get("text_match", 0)),
    )


_QUESTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "did",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "with",
        "you",
        "your",
    ]
)


def keywords(query: str) -> str:
    """The words of a question worth matching: keyword search wants every word to match
    (until tokens are dropped), so question and function words only get in the way."""
    words = [w for w in query.split() if w.lower().strip("?.,!;:'\"") not in _QUESTION_WORDS]
    return " ".join(words) if words else query


def _query_params(query: str, filters: Filters) -> dict[str, Any]:
    params: dict[str, Any] = {
        "q": keywords(query) if query.strip() else "*",
        # Fewer than this many hits: drop query words (right to left) and search again.
        "drop_tokens_threshold": 20,
        # Headings weigh most; retrieval_text carries title, path and concepts too.
        "query_by": "section_title,retrieval_text",
        "query_by_weights": "3,1",
        "num_typos": 2,
        "highlight_fields": "text",
        "include_fields": HIT_FIELDS,
    }
    expr = filters.expression()
    if expr:
        params["filter_by"] = expr
    return params


def search(
    store: Store,
    query: str,
    filters: Filters | None = None,
    *,
    page: int = 1,
    per_page: int = 10,
) -> SearchResult:
    """Chunks matching ``query`` with facet counts for hints, tiers, documents, formats."""
    filters = filters or Filters()
    params = _query_params(query, filters) | {
        "facet_by": ",".join(FACETS),
        "max_facet_values": 20,
        "page": max(1, page),
        "per_page": max(1, min(per_page, 250)),
    }
    res = store.search(CHUNKS, params)
    facets = {
        f["field_name"]: [(str(c["value"]), int(c["count"])) for c in f["counts"]]
        for f in res.get("facet_counts", [])
    }
    return SearchResult(
        query=query,
        found=int(res.get("found", 0)),
        page=int(res.get("page", page)),
        per_page=int(params["per_page"]),
        hits=tuple(_hit(h) for h in res.get("hits", [])),
        facets=facets,
        filters=params.get("filter_by", ""),
    )


@dataclass(frozen=True, slots=True)
class Citation:
    doc_id: str
    doc_title: str
    source: str
    breadcrumb: tuple[str, ...]
    page_start: int | None
    page_end: int | None
    char_start: int
    char_end: int


@dataclass(frozen=True, slots=True)
class ContextItem:
    section_id: str
    snippet_ids: tuple[str, ...]
    text: str  # exactly extract(source)[char_start:char_end]
    tokens: int
    window: bool  # True when only part of the section fit
    citation: Citation


@dataclass(frozen=True, slots=True)
class Context:
    query: str
    budget: int
    tokens: int
    items: tuple[ContextItem, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self) -> str:
        if not self.items:
            return f"No context found for {self.query!r}.\n"
        out: list[str] = []
        for n, item in enumerate(self.items, 1):
            out.append(header(n, item.citation) + "\n\n" + item.text + "\n")
        return "\n".join(out)


def header(n: int, c: Citation) -> str:
    pages = ""
    if c.page_start is not None:
        pages = f", p. {c.page_start}" + (f"–{c.page_end}" if c.page_end != c.page_start else "")
    path = " > ".join(c.breadcrumb)
    return f"[{n}] {path} — {c.source}{pages}, chars {c.char_start}–{c.char_end}"


def _sections(store: Store, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    res = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"id:=[{','.join(quote(i) for i in ids)}]",
            "per_page": len(ids),
            "include_fields": HIT_FIELDS,
        },
    )
    return {h["document"]["id"]: h["document"] for h in res.get("hits", [])}


def _subtract(span: tuple[int, int], taken: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    pieces = [span]
    for a, b in taken:
        nxt: list[tuple[int, int]] = []
        for s, e in pieces:
            if b <= s or a >= e:
                nxt.append((s, e))
                continue
            if s < a:
                nxt.append((s, a))
            if b < e:
                nxt.append((b, e))
        pieces = nxt
    return [(s, e) for s, e in pieces if e > s]


def retrieve(
    store: Store,
    query: str,
    budget: int,
    filters: Filters | None = None,
    *,
    counter: TokenCounter | None = None,
    groups: int = 8,
    snippets_per_group: int = 3,
) -> Context:
    """The best snippets grouped by parent section, each expanded to its section (or a
    window of it around the matching snippets) while the total fits ``budget`` tokens.

    Overlapping sections are trimmed so no source character appears twice; each item's
    text is exactly the cited character range of the document's extracted text.
    """
    if budget <= 0:
        raise RetrievalError(f"budget must be positive, got {budget}")
    counter = counter or make_counter(ChunkConfig())
    filters = filters or Filters()
    snippet_filters = Filters(**{**asdict(filters), "tier": "snippet"})
    params = _query_params(query, snippet_filters) | {
        "group_by": "parent_id",
        "group_limit": snippets_per_group,
        "per_page": groups,
    }
    res = store.search(CHUNKS, params)
    grouped = [
        (g["group_key"][0], [_hit(h) for h in g["hits"]]) for g in res.get("grouped_hits", [])
    ]
    parents = _sections(store, [pid for pid, _ in grouped])
    taken: dict[str, list[tuple[int, int]]] = {}
    items: list[ContextItem] = []
    used = 0
    for pid, hits in grouped:
        sec = parents.get(pid)
        if sec is None:
            continue
        text = sec["text"]
        body = text[int(sec["prefix_chars"]) : len(text) - int(sec["suffix_chars"])]
        start, end = int(sec["char_start"]), int(sec["char_end"])
        free = _subtract((start, end), taken.get(sec["doc_id"], []))
        if not free:
            continue  # everything of this section is already in the context
        best = max(free, key=lambda p: sum(_overlap(p, (h.char_start, h.char_end)) for h in hits))
        choice = _fit(best, hits, body, start, used, budget, counter, sec)
        if choice is None:
            continue
        (a, b), tokens = choice
        matched = tuple(h.id for h in hits if _overlap((a, b), (h.char_start, h.char_end)) > 0)
        if not matched:
            continue
        cite = Citation(
            doc_id=sec["doc_id"],
            doc_title=sec["doc_title"],
            source=sec["source"],
            breadcrumb=tuple(sec["breadcrumb"]),
            page_start=sec.get("page_start"),
            page_end=sec.get("page_end"),
            char_start=a,
            char_end=b,
        )
        items.append(
            ContextItem(
                pid, matched, body[a - start : b - start], tokens, (a, b) != (start, end), cite
            )
        )
        taken.setdefault(sec["doc_id"], []).append((a, b))
        used += tokens
    return Context(query=query, budget=budget, tokens=used, items=tuple(items))


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def _fit(
    span: tuple[int, int],
    hits: Sequence[Hit],
    body: str,
    start: int,
    used: int,
    budget: int,
    counter: TokenCounter,
    sec: dict[str, Any],
) -> tuple[tuple[int, int], int] | None:
    """The widest of: the free part of the section, the hull of its matching snippets,
    the best snippet alone — the first whose text and citation header fit the budget."""
    a, b = span
    candidates = [(a, b)]
    inside = [(max(a, h.char_start), min(b, h.char_end)) for h in hits]
    inside = [(s, e) for s, e in inside if e > s]
    if inside:
        candidates.append((min(s for s, _ in inside), max(e for _, e in inside)))
        candidates.append(inside[0])
    for s, e in candidates:
        cite = Citation(
            sec["doc_id"],
            sec["doc_title"],
            sec["source"],
            tuple(sec["breadcrumb"]),
            sec.get("page_start"),
            sec.get("page_end"),
            s,
            e,
        )
        tokens = counter.count(body[s - start : e - start]) + counter.count(header(99, cite))
        if used + tokens <= budget:
            return (s, e), tokens
    return None


def get_section(store: Store, section_id: str) -> Hit | None:
    """One section by id (through search: a search-only key cannot GET by id)."""
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
    return _hit(hits[0]) if hits else None


def neighbors(store: Store, section_id: str) -> tuple[Hit | None, Hit | None]:
    """The sections before and after ``section_id`` in its document."""
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
    by_index = {int(h["document"]["chunk_index"]): _hit(h) for h in res.get("hits", [])}
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
