"""Agent retrieval: rank snippets (lexical, dense or hybrid), then pack cited context
within a token budget."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..chunk.tokens import Estimator, TokenCounter
from ..errors import RetrievalError, StoreError
from ..index import coverage, generation
from ..index.filters import Filters
from ..index.schema import CHUNKS
from ..index.side_index import current
from ..index.store import Store, found
from ..index.visible import hidden_docs
from ..index.words import query_words
from ..shared.inputs import check_query, check_range, quoted
from . import dense
from . import rank as _rank  # its constants read at each call (eval_loso.py varies them)
from .arrange import arrange, covered
from .context import Context, Packer, page_map_search, page_maps
from .hits import Hit, StoredChunk, by_id_search, to_hit
from .rank import MODES, Mode, Ranked, fuse, fusion_for, lexical
from .search import keyword_params

SNIPPETS = 12  # ranked snippets considered for one context


@dataclass(frozen=True, slots=True)
class Ranking:
    ranked: list[Ranked]
    parents: dict[str, str]  # snippet id -> section id
    docs: dict[str, str]  # snippet id -> doc id
    mode: Mode
    note: str  # why a default fell back to lexical
    # The doc ids a question about several periods covers (``arrange.covered``).
    scope: frozenset[str] = frozenset()


def rank_snippets(
    store: Store, query: str, filters: Filters | None = None, mode: str | None = None
) -> Ranking:
    """Snippets ranked for ``query``: one round trip reads the store's generation (and
    runs the vector search), the lexical index on disk scores the rest in process."""
    check_query(query)
    filters = replace(filters or Filters(), tier="snippet")
    chosen, note = _mode(mode)
    searches = generation.searches()
    if chosen != "lexical":
        searches.append(dense.vector_search(query, filters, _rank.POOL))
        searches.extend(coverage.count_searches(dense.model_name()))
    try:
        results, wanted = _search(store, searches, chosen)
    except RetrievalError as exc:
        why = dense.other_width(store)
        if why is None:
            raise
        if mode is not None:  # asked for by name: refused, with the reason
            raise RetrievalError(why) from exc
        ranking = rank_snippets(store, query, filters, "lexical")
        return replace(ranking, note=f"lexical ranking only: {why}")
    if chosen != "lexical":
        note = _coverage_note(results[3:5], chosen) or note
    index = current(store, wanted)
    if index is None:
        return _fallback(store, query, filters, chosen)
    words = lexical(index, query, filters, _rank.POOL) if chosen != "dense" else []
    # A vector hit of a document the index does not hold is not complete yet.
    complete = {d.doc_id for d in index.docs}
    vectors = dense.ranked(results[2], complete, _rank.POOL) if chosen != "lexical" else []
    if chosen == "hybrid":
        ranked = fuse(words, vectors, fusion_for(words), _rank.POOL)
    else:
        ranked = words if chosen == "lexical" else vectors
    return Ranking(
        ranked,
        {r.id: r.parent for r in ranked},
        {r.id: r.doc_id for r in ranked},
        chosen,
        note,
        covered(index.docs, query, ranked[0].doc_id if ranked else None),
    )


def _coverage_note(counts: list[dict[str, Any]], chosen: Mode) -> str:
    """Said when part of the library has no vectors of this model: those snippets are
    ranked by BM25 alone (hybrid) or not found at all (dense)."""
    total, embedded = (int(c.get("found", 0)) for c in counts)
    if embedded >= total:
        return ""
    if chosen == "dense" and embedded == 0:  # nothing to rank: refused, not an empty answer
        raise RetrievalError(
            f"no snippet has a vector of {dense.model_name()} (a library embedded with another "
            f"model, or none): run `folio ingest` on the library's folders to embed it"
        )
    how = "hybrid is lexical for them" if chosen == "hybrid" else "dense ranking cannot find them"
    return (
        f"{total - embedded} of {total} snippets have no vector of {dense.model_name()}: "
        f"{how}; run `folio ingest` on their folders to embed them"
    )


def _search(
    store: Store, searches: list[dict[str, Any]], chosen: Mode
) -> tuple[list[dict[str, Any]], str]:
    """The answers, and the store's state token (``generation.of``) for the index."""
    try:
        results = store.multi_search(searches)
    except StoreError as exc:
        if chosen != "lexical":
            raise RetrievalError(f"vector search failed (were snippets embedded?): {exc}") from exc
        # A library no writer of this Folio has written yet has no generation record.
        return [], generation.read(store)
    return results, generation.of(results[:2])


def _fallback(store: Store, query: str, filters: Filters, chosen: Mode) -> Ranking:
    """While another process rebuilds the lexical index: Typesense's own ranking, over
    complete documents only, as the index would be."""
    # ``filters`` asks for snippets already (``rank_snippets``).
    params = keyword_params(query, filters, hidden_docs(store)) | {
        "include_fields": "id,parent_id,doc_id",
        "per_page": _rank.POOL,
    }
    docs = found(store.search(CHUNKS, params))
    ranked = [
        Ranked(
            d["id"],
            float(_rank.POOL - n),
            lexical_rank=n + 1,
            parent=d["parent_id"],
            doc_id=d["doc_id"],
        )
        for n, d in enumerate(docs)
    ]
    note = "the lexical index is being rebuilt: ranked by Typesense's keyword search for now"
    return Ranking(
        ranked, {r.id: r.parent for r in ranked}, {r.id: r.doc_id for r in ranked}, chosen, note
    )


def _mode(mode: str | None) -> tuple[Mode, str]:
    if mode is not None and mode not in MODES:
        raise RetrievalError(f"unknown mode {quoted(mode)}; allowed: {', '.join(MODES)}")
    why = dense.unavailable() if mode != "lexical" else None
    if mode is None:
        if why is None:
            return "hybrid", ""
        return "lexical", f"lexical ranking only: {why}"
    if mode != "lexical" and why is not None:
        raise RetrievalError(why)
    return mode, ""


def rank(
    store: Store,
    query: str,
    filters: Filters | None = None,
    *,
    k: int = 10,
    mode: str | None = None,
) -> list[Hit]:
    """The ``k`` best snippets for a question, by the ranking ``retrieve`` uses."""
    ranked = rank_snippets(store, query, filters, mode).ranked[:k]
    docs = _fetch(store, [r.id for r in ranked], [], [])[0]
    return [to_hit(docs[r.id], score=r.score) for r in ranked if r.id in docs]


def _fetch(
    store: Store, ids: list[str], parent_ids: list[str], doc_ids: list[str]
) -> list[dict[str, Any]]:
    """Snippets, their sections and their documents' page maps, in one round trip."""
    searches = [by_id_search(ids), by_id_search(parent_ids), page_map_search(doc_ids)]
    wanted = [s for s in searches if s is not None]
    answers = iter(store.multi_search(wanted) if wanted else [])
    return [{d["id"]: d for d in found(next(answers))} if s is not None else {} for s in searches]


def retrieve(
    store: Store,
    query: str,
    budget: int,
    filters: Filters | None = None,
    *,
    counter: TokenCounter | None = None,
    snippets: int | None = None,
    mode: str | None = None,
) -> Context:
    """The best snippets first, in rank order, while they fit ``budget`` tokens, each cut
    to the sentences the question points at (``Packer.trim``; snippets of one section
    that touch or nearly touch are one item); what budget is left widens the items to
    their whole sections, best first, and then takes the best sentences of the snippets
    that did not fit whole.

    No source character appears twice; each item's text is exactly the cited character
    range of the document's extracted text. Tokens are counted with ``counter``,
    by default the estimator without bias (WordPiece counts), so the budget is filled.
    """
    check_range(budget, "budget", 1)
    ranking = rank_snippets(store, query, filters, mode)
    ranked = arrange(ranking.ranked, query, ranking.scope)[
        : SNIPPETS if snippets is None else snippets
    ]
    sections = sorted({ranking.parents[r.id] for r in ranked})
    doc_ids = sorted({ranking.docs[r.id] for r in ranked})
    found, parents, maps = _fetch(store, [r.id for r in ranked], sections, doc_ids)
    chunks = {i: StoredChunk.of(d) for i, d in found.items()}
    sections_by_id = {i: StoredChunk.of(d) for i, d in parents.items()}
    terms = frozenset(query_words(query))
    packer = Packer(budget, counter or Estimator("prose"), page_maps(maps), terms)
    for position, r in enumerate(ranked, 1):
        snippet = chunks.get(r.id)
        sec = sections_by_id.get(ranking.parents[r.id])
        if snippet is not None and sec is not None:
            packer.add(snippet, sec, (position, r))
    packer.widen()
    packer.fill()
    items = tuple(packer.result())
    note = ranking.note
    least = None if items else packer.least()
    if least is not None:  # matches exist: "no context" would say there are none
        small = f"no match fits {budget} tokens: the best one needs a budget of {least} or more"
        note = f"{small}; {note}" if note else small
    return Context(query, budget, packer.used, ranking.mode, note, items)
