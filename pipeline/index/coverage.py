"""Vector coverage: which stored snippets hold a vector of the current embedding model.

Counted from the snippets themselves (each vector is stored with the name of the model
that made it, the ``embedder`` facet), not from what the document records claim, so a
library ingested before the weights were installed, or with another model, shows as
partly or not embedded until ``folio ingest`` adds the vectors.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from .schema import CHUNKS
from .store import ID_GROUP, Store, facet_search, facet_values, quote

SNIPPETS = "tier:=snippet"


@dataclass(frozen=True, slots=True)
class Coverage:
    """``embedder``: the current model's name (empty: no model can run here);
    ``documents``/``snippets``: the documents with snippets stored, and their snippets;
    the ``_embedded`` counts: those whose every snippet / which hold a vector of it."""

    embedder: str
    documents: int
    documents_embedded: int
    snippets: int
    snippets_embedded: int

    @property
    def complete(self) -> bool:
        return self.snippets_embedded == self.snippets

    @property
    def missing(self) -> int:
        """Snippets without a vector of the current model."""
        return self.snippets - self.snippets_embedded


def embedded_filter(embedder: str) -> str:
    return f"{SNIPPETS} && embedder:={quote(embedder)}"


def count_searches(embedder: str) -> list[dict[str, Any]]:
    """Two counts for a ``multi_search``: all snippets, and those with the model's vector
    (what retrieve sends with its question to say when hybrid is partly lexical)."""
    return [
        {"collection": CHUNKS, "q": "*", "per_page": 0, "filter_by": f}
        for f in (SNIPPETS, embedded_filter(embedder))
    ]


def embedded_per_doc(store: Store, embedder: str, limit: int) -> dict[str, int]:
    """Snippets holding a vector of ``embedder``, per doc_id (up to ``limit`` docs)."""
    search = facet_search(CHUNKS, "doc_id", limit, embedded_filter(embedder))
    return facet_values(store.search(CHUNKS, search), "doc_id")


def embedded_of(store: Store, embedder: str, doc_ids: Collection[str]) -> dict[str, int]:
    """``embedded_per_doc`` of ``doc_ids`` only (none: left out), in one request."""
    ids = sorted(doc_ids)
    searches = [
        facet_search(CHUNKS, "doc_id", len(group), f"{embedded_filter(embedder)} && {named}")
        for group in (ids[i : i + ID_GROUP] for i in range(0, len(ids), ID_GROUP))
        for named in ["doc_id:=[" + ",".join(map(quote, group)) + "]"]
    ]
    counts: dict[str, int] = {}
    for res in store.searches(searches) if searches else []:
        counts.update(facet_values(res, "doc_id"))
    return counts


def coverage(store: Store, embedder: str, limit: int = 100_000) -> Coverage:
    """The library's coverage by ``embedder`` ("": no model, no vector counts); documents
    are those with snippets stored (up to ``limit`` of them)."""
    model = embedder or "-"  # no model: a name no vector is stored with
    searches = [
        *count_searches(model),
        facet_search(CHUNKS, "doc_id", limit, SNIPPETS),
        facet_search(CHUNKS, "doc_id", limit, embedded_filter(model)),
    ]
    total, embedded, per_doc, embedded_per = store.searches(searches)
    snippets = facet_values(per_doc, "doc_id")
    done = facet_values(embedded_per, "doc_id")
    whole = sum(1 for doc, n in snippets.items() if done.get(doc, 0) >= n)
    return Coverage(
        embedder, len(snippets), whole if embedder else 0, int(total["found"]),
        int(embedded["found"]) if embedder else 0,
    )  # fmt: skip


def stored_models(store: Store) -> dict[str, int]:
    """Snippets holding a vector, per model name: what a reader that loads no model (the
    web reader) can say about coverage."""
    return facet_values(
        store.search(CHUNKS, facet_search(CHUNKS, "embedder", 20, SNIPPETS)), "embedder"
    )
