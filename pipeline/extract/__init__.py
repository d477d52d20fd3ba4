"""Turn a file into a ``Document``: dispatch by content first, then by suffix."""

from __future__ import annotations

from pathlib import Path

from ..errors import ExtractionError, UnsupportedFormatError
from ..model import Document
from .text import MARKDOWN_SUFFIXES, TEXT_SUFFIXES, read_text_document

SUPPORTED_SUFFIXES = frozenset({*MARKDOWN_SUFFIXES, *TEXT_SUFFIXES})


def extract_file(path: str | Path) -> Document:
    """Read one file into a normalized document, or raise an ``ExtractionError``."""
    p = Path(path)
    if not p.is_file():
        raise ExtractionError(str(path), "not a readable file")
    suffix = p.suffix.lower()
    fmt = MARKDOWN_SUFFIXES.get(suffix) or TEXT_SUFFIXES.get(suffix)
    if fmt is None:
        raise UnsupportedFormatError(str(path), f"unsupported file type {suffix or '(none)'}")
    return read_text_document(p, fmt)


__all__ = ["SUPPORTED_SUFFIXES", "extract_file"]
