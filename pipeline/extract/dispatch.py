"""Pick the reader by what a file is (magic bytes), then by its suffix."""

from __future__ import annotations

import dataclasses
import logging
import zipfile
from pathlib import Path
from typing import Literal

from ..errors import CorruptFileError, EmptyDocumentError, ExtractionError, UnsupportedFormatError
from ..model import Document
from .text import MARKDOWN_SUFFIXES, TEXT_SUFFIXES, read_text_document

log = logging.getLogger("folio.extract")

Kind = Literal["pdf", "epub", "text", "html", "zip", "bad-zip", "binary", "empty"]
PDF_SUFFIXES = frozenset({".pdf"})
EPUB_SUFFIXES = frozenset({".epub"})
SUPPORTED_SUFFIXES = frozenset({*PDF_SUFFIXES, *EPUB_SUFFIXES, *MARKDOWN_SUFFIXES, *TEXT_SUFFIXES})
# The format a file is read as by its name (its content may say otherwise: ``sniff``).
FORMAT_OF_SUFFIX = {".pdf": "pdf", ".epub": "epub", **MARKDOWN_SUFFIXES, **TEXT_SUFFIXES}


def suffix_format(path: str) -> str:
    """The format a file's name says, in the words of ``Document.format`` (``book.md``:
    markdown), for the records of files that were not read (copies, failures)."""
    suffix = Path(path).suffix.lower()
    return FORMAT_OF_SUFFIX.get(suffix) or suffix.lstrip(".") or "unknown"


_BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\xd0\xcf\x11\xe0", "an old MS Office document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf", "a 7-zip archive"),
    (b"\x7fELF", "a program"),
)


def sniff(path: Path) -> tuple[Kind, str]:
    """What the file is by content: a kind and a short description."""
    with path.open("rb") as fh:
        head = fh.read(8192)
    if not head:
        return "empty", "an empty file"
    if b"%PDF-" in head[:1024]:
        return "pdf", "a PDF"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        try:
            with zipfile.ZipFile(path) as zf:
                names = set(zf.namelist())
                mimetype = b""
                if "mimetype" in names and zf.getinfo("mimetype").file_size <= 256:
                    mimetype = zf.read("mimetype").strip()
        except (zipfile.BadZipFile, OSError, KeyError, ValueError, EOFError, RuntimeError):
            return "bad-zip", "a damaged zip archive"
        if mimetype == b"application/epub+zip" or "META-INF/container.xml" in names:
            return "epub", "an EPUB"
        if any(n.startswith("word/") for n in names):
            return "zip", "a Word document (.docx)"
        return "zip", "a zip archive"
    for magic, what in _BINARY_MAGIC:
        if head.startswith(magic):
            return "binary", what
    utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))
    if not utf16 and b"\x00" in head and not _mostly_text(head):
        return "binary", "a binary file"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if stripped.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml")) and (
        b"<html" in stripped[:4096]
    ):
        return "html", "an HTML page"
    return "text", "text"


_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b")


def _mostly_text(head: bytes) -> bool:
    """A few stray NUL bytes in otherwise valid UTF-8 text (CommonMark reads them as
    U+FFFD) do not make a file binary."""
    if head.count(b"\x00") > max(8, len(head) // 100):
        return False
    if any(b < 0x20 and b not in _TEXT_CONTROLS for b in head.replace(b"\x00", b"")):
        return False
    try:
        head.replace(b"\x00", b"").decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 4  # only a character cut at the end of the sample
    return True


PDF_BACKENDS = ("auto", "pdfium", "pypdf", "marker")


def extract_path(
    path: str | Path, *, pdf_backend: str = "auto", use_outline: bool = True
) -> Document:
    """Read one file into a ``Document`` or raise a typed ``ExtractionError``."""
    p = Path(path)
    src = str(path)
    if not p.is_file():
        raise ExtractionError(src, "not a readable file")
    if pdf_backend not in PDF_BACKENDS:
        raise UnsupportedFormatError(src, f"unknown PDF backend {pdf_backend!r}")
    try:
        kind, what = sniff(p)
    except OSError as exc:
        raise ExtractionError(src, f"cannot read the file ({exc.strerror or exc})") from exc
    suffix = p.suffix.lower()
    if kind == "empty":
        raise EmptyDocumentError(src, "the file is empty")
    if kind == "pdf":
        if suffix not in PDF_SUFFIXES:
            log.info("%s: content is a PDF (suffix %s); reading it as a PDF", src, suffix or "-")
        return _extract_pdf(p, src, pdf_backend, use_outline)
    if kind == "epub":
        if suffix not in EPUB_SUFFIXES:
            log.info("%s: content is an EPUB (suffix %s); reading it as an EPUB", src, suffix)
        from .epub.reader import read_epub

        return read_epub(p, use_nav=use_outline)
    if suffix in PDF_SUFFIXES or suffix in EPUB_SUFFIXES:
        expected = "a PDF" if suffix in PDF_SUFFIXES else "an EPUB"
        if kind == "bad-zip" and suffix in EPUB_SUFFIXES:
            raise CorruptFileError(src, "damaged or truncated EPUB (unreadable zip archive)")
        if kind == "zip" and suffix in EPUB_SUFFIXES:
            raise CorruptFileError(src, "not an EPUB: a zip without the EPUB mimetype/container")
        if kind in {"html", "text"}:
            raise UnsupportedFormatError(
                src, f"named {suffix} but it is {what}, not {expected} (a saved web page?)"
            )
        raise CorruptFileError(src, f"named {suffix} but it is {what}, not {expected}")
    if kind in {"binary", "zip", "bad-zip"}:
        raise UnsupportedFormatError(src, f"unsupported file: {what}")
    fmt = MARKDOWN_SUFFIXES.get(suffix) or TEXT_SUFFIXES.get(suffix)
    if fmt is None:
        raise UnsupportedFormatError(src, f"unsupported file type {suffix or '(none)'}")
    return read_text_document(p, fmt)


def _extract_pdf(p: Path, src: str, backend: str, use_outline: bool) -> Document:
    from .pdf.marker import read_pdf_marker, resolve_backend
    from .pdf.reader import TextLayer, read_pdf

    chosen, reason = resolve_backend(backend, src)
    if chosen == "marker":
        log.info("%s: PDF backend marker (%s)", src, reason)
        doc = read_pdf_marker(p, use_outline=use_outline)
    else:
        layer: TextLayer = "pypdf" if chosen == "pypdf" else "pdfium"
        log.info("%s: PDF backend %s (%s)", src, layer, reason)
        doc = read_pdf(p, use_outline=use_outline, layer=layer)
    extra = {**doc.info.extra, "backend_reason": reason}
    return dataclasses.replace(doc, info=dataclasses.replace(doc.info, extra=extra))


__all__ = ["PDF_BACKENDS", "SUPPORTED_SUFFIXES", "extract_path", "sniff"]
