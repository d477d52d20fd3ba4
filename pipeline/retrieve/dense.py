"""Vector search over snippet embeddings stored in Typesense (the ``dense`` extra)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from ..errors import FolioError, RetrievalError
from ..index.filters import Filters
from ..index.schema import CHUNKS
from ..index.settings import folio_home
from .rank import POOL, Ranked

MODEL_ENV = "FOLIO_EMBED_MODEL"  # a directory with model.safetensors and tokenizer.json
_lock = threading.Lock()
_embedder: list[Any] = []


def embedder() -> Any:
    """The query/snippet embedder, loaded once per process; raises
    ``DenseUnavailableError`` (a ``FolioError``) with what to install when it cannot."""
    with _lock:
        if not _embedder:
            try:
                from ..embed import load_embedder  # type: ignore[import-not-found,unused-ignore]
            except ImportError as exc:
                raise RetrievalError(
                    "dense retrieval needs the dense extra: pip install 'folio-pipeline[dense]'"
                ) from exc
            model = os.environ.get(MODEL_ENV)
            _embedder.append(
                load_embedder(Path(model) if model else None, cache_dir=folio_home() / "models")
            )
        return _embedder[0]


def unavailable() -> str | None:
    """Why dense retrieval cannot run here, or ``None`` when it can."""
    try:
        embedder()
    except FolioError as exc:
        return str(exc)
    return None


def vector_search(query: str, filters: Filters, k: int = POOL) -> dict[str, Any]:
    """The Typesense search (for ``multi_search``: a vector does not fit in a URL) for
    the ``k`` snippets nearest to the question's embedding."""
    vector = embedder().embed([query])[0]
    expr = " && ".join(x for x in ("tier:=snippet", filters.expression()) if x)
    values = ",".join(f"{float(v):.6f}" for v in vector)
    return {
        "collection": CHUNKS,
        "q": "*",
        "vector_query": f"embedding:([{values}], k:{k})",
        "filter_by": expr,
        "per_page": k,
        "include_fields": "id",
    }


def ranked(result: dict[str, Any], k: int = POOL) -> list[Ranked]:
    """``vector_search``'s answer as a ranking, best first."""
    out: list[Ranked] = []
    for n, h in enumerate(result.get("hits", [])[:k], 1):
        similarity = 1.0 - float(h["vector_distance"])  # Typesense gives cosine distance
        out.append(Ranked(h["document"]["id"], similarity, dense=similarity, dense_rank=n))
    return out
