"""Folio: turn a library of books and documents into search-ready two-tier chunks.

``Library`` (ingest, search, retrieve, show, outline, documents, delete), ``Filters`` and
``IngestOptions`` are imported on first use, so chunking alone never loads the Typesense client."""

from typing import TYPE_CHECKING, Any

from .chunk.tokens import Estimator, TokenCounter, estimate_tokens, make_counter
from .chunking import chunk_document, chunk_file, chunk_markdown, chunk_text
from .errors import ConfigError, ExtractionError, FolioError
from .extract import extract_file
from .model import Block, Chunk, Document
from .shared.config import ChunkConfig, make_config
from .shared.config_files import load_config
from .shared.limits import Limits

if TYPE_CHECKING:
    from .index.filters import Filters
    from .ingest import IngestOptions
    from .library import Library

__all__ = [
    "Block",
    "Chunk",
    "ChunkConfig",
    "ConfigError",
    "Document",
    "Estimator",
    "ExtractionError",
    "Filters",
    "FolioError",
    "IngestOptions",
    "Library",
    "Limits",
    "TokenCounter",
    "chunk_document",
    "chunk_file",
    "chunk_markdown",
    "chunk_text",
    "estimate_tokens",
    "extract_file",
    "load_config",
    "make_config",
    "make_counter",
]


def __getattr__(name: str) -> Any:
    if name == "Library":
        from .library import Library

        return Library
    if name == "Filters":
        from .index.filters import Filters

        return Filters
    if name == "IngestOptions":
        from .ingest import IngestOptions

        return IngestOptions
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
