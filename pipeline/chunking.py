"""Chunking without a library: ``chunk_markdown``, ``chunk_text`` and ``chunk_file`` (no
Typesense, no index; ``pipeline.Library`` is the indexed library)."""

from __future__ import annotations

from pathlib import Path

from .chunk.tiers import chunk_document
from .config import ChunkConfig
from .extract import extract_file
from .extract.text import normalize_newlines
from .model import Chunk, Document


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
