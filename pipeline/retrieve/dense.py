"""Vector search over snippet embeddings stored in Typesense (the ``dense`` extra)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..errors import StoreError
from ..index import vectors
from ..index.coverage import embedded_filter
from ..index.filters import Filters
from ..index.schema import CHUNKS
from ..index.store import Store
from .rank import POOL, Ranked


def unavailable() -> str | None:
    """Why dense retrieval cannot run here, or ``None`` when it can."""
    return vectors.unavailable()


def model_name() -> str:
    """The name the current model's vectors are stored with."""
    return str(vectors.embedder().name)


def vector_search(query: str, filters: Filters, k: int = POOL) -> dict[str, Any]:
    """The Typesense search (for ``multi_search``: a vector does not fit in a URL) for
    the ``k`` snippets nearest to the question's embedding."""
    vector = vectors.embedder().embed([query], "query")[0]
    # Only this model's vectors: another model's, even of the same width, are not
    # comparable with its question's (ingest embeds them again: ingest.embedding).
    mine = embedded_filter(model_name())
    expr = " && ".join(x for x in (mine, filters.expression()) if x)
    values = ",".join(f"{float(v):.6f}" for v in vector)
    return {
        "collection": CHUNKS,
        "q": "*",
        "vector_query": f"embedding:([{values}], k:{k})",
        "filter_by": expr,
        "per_page": k,
        "include_fields": "id,parent_id,doc_id",
    }


def ranked(result: dict[str, Any], docs: Collection[str], k: int = POOL) -> list[Ranked]:
    """``vector_search``'s answer as a ranking, best first: the hits of ``docs`` only."""
    out: list[Ranked] = []
    hits = [h for h in result.get("hits", []) if h["document"].get("doc_id") in docs]
    for n, h in enumerate(hits[:k], 1):
        similarity = 1.0 - float(h["vector_distance"])  # Typesense gives cosine distance
        d = h["document"]
        out.append(
            Ranked(
                d["id"],
                similarity,
                dense=similarity,
                dense_rank=n,
                parent=str(d.get("parent_id") or ""),
                doc_id=str(d["doc_id"]),
            )
        )
    return out


def other_width(store: Store) -> str | None:
    """Why the library's vectors cannot be searched with this model's, when their widths
    differ (Typesense refuses the search), else ``None``."""
    try:
        width = store.vector_width()
    except StoreError:  # a search-only key may not read the schema: the search's error stands
        return None
    model = vectors.embedder()
    if width is None or width == model.dim:
        return None
    return (
        f"the library's vectors have {width} dimensions, from another model; {model.name} "
        f"makes {model.dim}: run `folio ingest` on the library's folders to embed it with "
        f"this model"
    )
