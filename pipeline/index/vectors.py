"""Snippet embeddings for the ``embedding`` field (the ``dense`` extra): one embedder per
process, found once, with the reason when it cannot run."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from ..config_files import dense_model
from ..errors import FolioError
from ..home import folio_home

MODEL_ENV = "FOLIO_EMBED_MODEL"  # a directory with model.safetensors and tokenizer.json
_lock = threading.Lock()
_loaded: dict[str, Any] = {}


def embedder() -> Any:
    """The embedder (``pipeline.embed``), loaded once per process; raises a
    ``FolioError`` that says what to install when it cannot run."""
    with _lock:
        if "model" not in _loaded and "error" not in _loaded:
            try:
                _loaded["model"] = _load()
            except FolioError as exc:
                # Found once: every query asks, and a failed import is not cached by Python.
                _loaded["error"] = exc
        if "error" in _loaded:
            raise _loaded["error"]
        return _loaded["model"]


def _load() -> Any:
    try:
        from ..embed import load_embedder  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise FolioError(
            "dense retrieval needs the dense extra: pip install 'folio-pipeline[dense]'"
        ) from exc
    return load_embedder(model_dir(), cache_dir=folio_home() / "models")


def model_dir() -> Path | None:
    """``$FOLIO_EMBED_MODEL``, else the config file's ``dense.model``, else ``None`` (the
    weights package)."""
    env = os.environ.get(MODEL_ENV)
    return Path(env).expanduser() if env else dense_model()


def unavailable() -> str | None:
    """Why snippets cannot be embedded here, or ``None`` when they can."""
    try:
        embedder()
    except FolioError as exc:
        return str(exc)
    return None


def embed(texts: list[str]) -> list[list[float]]:
    """Unit vectors for ``texts`` (rounded: Typesense stores float32 anyway)."""
    if not texts:
        return []
    return [[round(float(x), 6) for x in row] for row in embedder().embed(texts)]
