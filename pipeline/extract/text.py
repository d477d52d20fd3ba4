"""Markdown, MDX and plain text: the decoded file is the document."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..errors import EmptyDocumentError, EncodingError
from ..model import Document

MARKDOWN_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx"}
TEXT_SUFFIXES = {".txt": "text", ".text": "text"}


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 (BOM dropped, UTF-16 by BOM), newlines normalized to ``\\n``."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise EncodingError(path, f"invalid UTF-16 at byte {exc.start}") from exc
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise EncodingError(
                path, f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"
            ) from exc
    # CommonMark: NUL is read as U+REPLACEMENT CHARACTER (same length: offsets hold)
    return normalize_newlines(text.removeprefix("\ufeff")).replace("\x00", "\ufffd")


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text_document(path: Path, fmt: str) -> Document:
    text = decode_text(path.read_bytes(), str(path))
    if not text.strip():
        raise EmptyDocumentError(str(path), "the file holds only whitespace")
    markup: Literal["markdown", "text"] = "text" if fmt == "text" else "markdown"
    return Document(text=text, source=str(path), format=fmt, markup=markup)
