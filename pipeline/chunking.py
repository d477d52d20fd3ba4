"""Chunking without a library: ``chunk_markdown``, ``chunk_text`` and ``chunk_file``, the
files they read (``discover``), a file's text (``extract_file``) and heading tree
(``document_outline``). No Typesense, no index: ``pipeline.Library`` is the indexed library.
``folio chunk``, ``extract`` and ``outline`` use these and nothing below them."""

from __future__ import annotations

from pathlib import Path

from .chunk.outline import DocumentOutline, document_outline
from .chunk.tiers import chunk_parsed
from .extract import SUPPORTED_SUFFIXES, extract_file
from .extract.text import normalize_newlines
from .ingest.files import discover, holds_supported
from .model import Chunk, Document
from .parse.document import parse
from .shared.config import ChunkConfig

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DocumentOutline",
    "chunk_document",
    "chunk_file",
    "chunk_markdown",
    "chunk_text",
    "discover",
    "document_outline",
    "extract_file",
    "holds_supported",
]


def chunk_document(doc: Document, config: ChunkConfig | None = None) -> list[Chunk]:
    """Sections and their snippets for one extracted document, in reading order: parsed,
    then chunked."""
    config = config or ChunkConfig()
    return chunk_parsed(parse(doc, config), config)


def chunk_markdown(
    text: str, config: ChunkConfig | None = None, *, source: str = ""
) -> list[Chunk]:
    """Chunk markdown (BOM dropped, newlines normalized: offsets index that text)."""
    doc = Document(text=normalize_newlines(text.removeprefix("\ufeff")), source=source)
    return chunk_document(doc, config)


def chunk_text(text: str, config: ChunkConfig | None = None, *, source: str = "") -> list[Chunk]:
    """Chunk flat text: paragraphs by blank lines, headings by ATX lines or heuristics."""
    doc = Document(
        text=normalize_newlines(text.removeprefix("\ufeff")),
        source=source,
        format="text",
        markup="text",
    )
    return chunk_document(doc, config)


def chunk_file(path: str | Path, config: ChunkConfig | None = None) -> list[Chunk]:
    """Extract one file and chunk it."""
    return chunk_document(extract_file(path), config)
