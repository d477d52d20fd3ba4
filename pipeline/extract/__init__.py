"""Turn a file into a ``Document``: dispatch by content first, then by suffix."""

from __future__ import annotations

from pathlib import Path

from ..model import Document
from .dispatch import SUPPORTED_SUFFIXES, extract_path


def extract_file(
    path: str | Path, *, pdf_backend: str = "auto", use_outline: bool = True
) -> Document:
    """Read one file into a normalized document, or raise an ``ExtractionError``."""
    return extract_path(path, pdf_backend=pdf_backend, use_outline=use_outline)


__all__ = ["SUPPORTED_SUFFIXES", "extract_file", "extract_path"]
