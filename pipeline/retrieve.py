"""Faceted search for people and budgeted, cited context for agents."""

from __future__ import annotations

import math
import re
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


_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself me more most my no nor not of off on once only or other our ours out over own same
    she should so some such than that the their theirs them then there these they this those
    through to too under until up very was we were what whats when where which while who whom
    whose why will with would you your yours according mentioned mention described describe
    discussed regarding given specific particular""".split()  # noqa: SIM905
)
_SEPARATORS = re.compile(r"[\s\-_/.]+")
_NON_WORD = re.compile(r"[^\w]|_")
MAX_TERMS = 16
POOL = 50  # hits per query word
RERANK = 40  # candidates scored with BM25


def tokens(text: str) -> list[str]:
    """Words as the index sees them: lower case, split on whitespace and the collection's
    token separators, other punctuation dropped (so ``Biden's`` is ``bidens``)."""
    out = (_NON_WORD.sub("", w) for w in _SEPARATORS.split(text.lower()))
    return [w for w in out if w]


def terms(query: str) -> list[str]:
    """The distinct query words worth matching (stopwords and question words removed)."""
    words = list(dict.fromkeys(w for w in tokens(query) if w not in _STOPWORDS))
    return words[:MAX_TERMS] or list(dict.fromkeys(tokens(query)))[:MAX_TERMS]


def keywords(query: str) -> str:
    return " ".join(terms(query)) or query


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _bm25(pattern: re.Pattern[str], text: str, idf: dict[str, float], avg: float) -> float:
    """BM25 of ``text`` for the stems in ``pattern`` (a word matches a stem when it is the
    stem plus at most one of the suffixes ``_stem`` strips)."""
    tf: dict[str, int] = {}
    for m in pattern.finditer(text.lower()):
        tf[m.group(1)] = tf.get(m.group(1), 0) + 1
    norm = 1.2 * (0.25 + 0.75 * len(text.split()) / avg)
    return sum(idf[w] * f * 2.2 / (f + norm) for w, f in tf.items())


def _rank(store: Store, query: str, filters: Filters) -> list[dict[str, Any]]:
    """Chunks ranked by BM25: one Typesense query per word (OR semantics, so a chunk needs
    only some of the words), whose ``found`` is the word's document frequency; the chunks
    with the most idf-weighted words are then fetched and scored with BM25.

    Typesense 0.24 alone needs every query word to match, drops words only from the
    ends and has no IDF: for whole questions it found the reference passage in its top
    10 for 64% of the QA set, this ranking for 97%. Returns the best ``RERANK`` chunks
    (``HIT_FIELDS``), best first."""
    words = terms(query)
    expr = filters.expression()
    base: dict[str, Any] = {"collection": CHUNKS}
    if expr:
        base["filter_by"] = expr
    searches = [base | {"q": "*", "per_page": 0}]
    searches += [
        base
        | {
            "q": w,
            "query_by": "retrieval_text",
            "num_typos": 0,
            "prefix": False,
            "drop_tokens_threshold": 0,
            "typo_tokens_threshold": 0,
            "per_page": POOL,
            "include_fields": "id",
            "highlight_fields": "none",
        }
        for w in words
    ]
    res = store.multi_search(searches)
    n = max(1, int(res[0].get("found", 0)))
    df: dict[str, int] = {}
    coord: dict[str, float] = {}
    for w, r in zip(words, res[1 : 1 + len(words)], strict=True):
        found = int(r.get("found", 0))
        df[_stem(w)] = max(df.get(_stem(w), 0), found)
        weight = math.log(1 + (n - found + 0.5) / (found + 0.5))
        for h in r.get("hits", []):
            key = h["document"]["id"]
            coord[key] = coord.get(key, 0.0) + weight
    if not coord:
        return []
    top = sorted(coord, key=lambda k: -coord[k])[:RERANK]
    fetched = store.search(
        CHUNKS,
        {
            "q": "*",
            "filter_by": f"id:=[{','.join(quote(i) for i in top)}]",
            "per_page": len(top),
            "include_fields": HIT_FIELDS,
        },
    )
    docs = {h["document"]["id"]: h["document"] for h in fetched.get("hits", [])}
    stems = sorted(set(df), key=len, reverse=True)
    idf = {w: math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in stems}
    pattern = re.compile(
        r"(?<![^\W_])(" + "|".join(map(re.escape, stems)) + r")(?:s|es|ed|ing)?(?![^\W_])"
    )
    avg = sum(len(d["text"].split()) for d in docs.values()) / max(1, len(docs))
    scored = sorted(
        docs.values(),
        key=lambda d: (-_bm25(pattern, d["text"], idf, max(avg, 1.0)), -coord[d["id"]]),
    )
    return scored


def rank(store: Store, query: str, filters: Filters | None = None, *, k: int = 10) -> list[Hit]:
    """The ``k`` best chunks for a question, by the BM25 ranking ``retrieve`` uses."""
    if not terms(query):
        return []
    return [_hit({"document": d}) for d in _rank(store, query, filters or Filters())[:k]]


def _query_params(query: str, filters: Filters) -> dict[str, Any]:
    params: dict[str, Any] = {
        "q": keywords(query) if query.strip() else "*",
        "drop_tokens_threshold": 20,
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
    """Chunks matching ``query`` with facet counts for hints, tiers, documents, formats.

    People search with a few keywords and read the facet counts as "how many chunks
    match", so this is Typesense's own search (all words, typo tolerant) with exact
    counts over every match; agents' questions go through ``retrieve``'s BM25 ranking."""
    filters = filters or Filters()
    page, per_page = max(1, page), max(1, min(per_page, 250))
    params = _query_params(query, filters) | {
        "facet_by": ",".join(FACETS),
        "max_facet_values": 20,
        "page": page,
        "per_page": per_page,
    }
    res = store.search(CHUNKS, params)
    hits = tuple(_hit(h) for h in res.get("hits", []))
    found = int(res.get("found", 0))
    facets = {
        f["field_name"]: [(str(c["value"]), int(c["count"])) for c in f["counts"]]
        for f in res.get("facet_counts", [])
    }
    return SearchResult(
        query=query,
        found=found,
        page=page,
        per_page=per_page,
        hits=hits,
        facets=facets,
        filters=filters.expression(),
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
    snippets: int = 12,
) -> Context:
    """The best snippets first, in rank order, while they fit ``budget`` tokens (snippets
    of one section that touch are one item); what budget is left widens the items to their
    whole sections, best first.

    No source character appears twice; each item's text is exactly the cited character
    range of the document's extracted text.
    """
    if budget <= 0:
        raise RetrievalError(f"budget must be positive, got {budget}")
    counter = counter or make_counter(ChunkConfig())
    filters = filters or Filters()
    snippet_filters = Filters(**{**asdict(filters), "tier": "snippet"})
    ranked = _rank(store, query, snippet_filters)[:snippets] if terms(query) else []
    parents = _sections(store, list(dict.fromkeys(str(d.get("parent_id")) for d in ranked)))
    items: list[list[Any]] = []  # [section, a, b, tokens, snippet ids]
    used = 0

    def cost(sec: dict[str, Any], a: int, b: int) -> int:
        text = sec["text"]
        body = text[int(sec["prefix_chars"]) : len(text) - int(sec["suffix_chars"])]
        s0 = int(sec["char_start"])
        cite = _citation(sec, a, b)
        return counter.count(body[a - s0 : b - s0]) + counter.count(header(99, cite))

    def taken(doc: str) -> list[tuple[int, int]]:
        return [(it[1], it[2]) for it in items if it[0]["doc_id"] == doc]

    for d in ranked:  # 1. snippets, best first
        sec = parents.get(str(d.get("parent_id")))
        if sec is None:
            continue
        span = (
            max(int(d["char_start"]), int(sec["char_start"])),
            min(int(d["char_end"]), int(sec["char_end"])),
        )
        for a, b in _subtract(span, taken(sec["doc_id"])):
            join = next(
                (it for it in items if it[0]["id"] == sec["id"] and (it[2] == a or it[1] == b)),
                None,
            )
            if join is not None:
                na, nb = min(join[1], a), max(join[2], b)
                t = cost(sec, na, nb)
                if used - join[3] + t <= budget:
                    used += t - join[3]
                    join[1:5] = [na, nb, t, [*join[4], d["id"]]]
                continue
            t = cost(sec, a, b)
            if used + t <= budget:
                items.append([sec, a, b, t, [d["id"]]])
                used += t
    for it in items:  # 2. widen to the section, best first, while the budget allows
        sec = it[0]
        others = [s for s in taken(sec["doc_id"]) if s != (it[1], it[2])]
        free = _subtract((int(sec["char_start"]), int(sec["char_end"])), others)
        whole = next((p for p in free if p[0] <= it[1] and it[2] <= p[1]), None)
        if whole is None or whole == (it[1], it[2]):
            continue
        t = cost(sec, *whole)
        if used - it[3] + t <= budget:
            used += t - it[3]
            it[1], it[2], it[3] = whole[0], whole[1], t
    out: list[ContextItem] = []
    for sec, a, b, t, ids in items:
        text = sec["text"]
        body = text[int(sec["prefix_chars"]) : len(text) - int(sec["suffix_chars"])]
        s0 = int(sec["char_start"])
        out.append(
            ContextItem(
                sec["id"],
                tuple(ids),
                body[a - s0 : b - s0],
                t,
                (a, b) != (s0, int(sec["char_end"])),
                _citation(sec, a, b),
            )
        )
    return Context(query=query, budget=budget, tokens=used, items=tuple(out))


def _citation(sec: dict[str, Any], a: int, b: int) -> Citation:
    return Citation(
        doc_id=sec["doc_id"],
        doc_title=sec["doc_title"],
        source=sec["source"],
        breadcrumb=tuple(sec["breadcrumb"]),
        page_start=sec.get("page_start"),
        page_end=sec.get("page_end"),
        char_start=a,
        char_end=b,
    )


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
