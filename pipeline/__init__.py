"""Folio: turn a library of books and documents into search-ready two-tier chunks."""

from .api import chunk_file, chunk_markdown, chunk_text
from .chunk.tiers import chunk_document
from .chunk.tokens import Estimator, TokenCounter, estimate_tokens, make_counter
from .config import ChunkConfig, load_config, make_config
from .errors import ConfigError, ExtractionError, FolioError
from .extract import extract_file
from .model import Block, Chunk, Document

__all__ = [
    "Block",
    "Chunk",
    "ChunkConfig",
    "ConfigError",
    "Document",
    "Estimator",
    "ExtractionError",
    "FolioError",
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
