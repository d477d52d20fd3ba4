"""A PDF opened for reading: by PDFium, or by pypdf when PDFium cannot open it.

PDFium (pypdfium2) reads everything Folio takes from a PDF: the page count, the text
layer (``pdfium.py``), the outline (each bookmark's title, page and destination top),
the page labels, the information dictionary, whether the file is encrypted and which
pages hold images. Over 78 real PDFs (``shared/``, the repository's, two on the machine)
it gives the same outline, labels and metadata as pypdf did, less the bookmarks pypdf
invents for a named destination that does not exist (placed on the first page).

pypdf reads a file only where PDFium does not:

- a file PDFium cannot open (junk before the header, a damaged cross-reference table it
  will not rebuild) or whose page tree fails the checks below: then pypdf gives the text
  layer, outline, labels and metadata, within its own hardening limits;
- the text layer of a file whose pages PDFium opened but could read none of;
- the text layer when it is asked for (``pdf_backend=pypdf``).

A pypdf failure there costs that layer, with a warning naming the file, never the
document: the file is damaged only when neither library can read it.

pypdf's limits (100,000 elements per array, 100,000 page-tree entries) refused real
filings whose structure tree holds a longer array. What they protected against is
checked here instead, on the page count PDFium reports: no more than ``MAX_PAGES``, and no
more than one page per ``MIN_PAGE_BYTES`` bytes of file (a page is an object of its own,
with its own content stream: the real PDFs seen hold 4.7 KB a page or more). A lying
``/Count`` or a page tree that names the same page a million times fails them; PDFium
itself refuses a tree past 2^20 pages. The outline is read with a bound on bookmarks and
depth, and a cycle in it ends the walk.
"""

from __future__ import annotations

import ctypes
import logging
import struct
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from ...errors import CorruptFileError, EmptyDocumentError, EncryptedError, ExtractionError
from .headings import OutlineItem, clean_heading

log = logging.getLogger("folio.extract")

Backend = Literal["pdfium", "pypdf"]
MAX_PAGES = 100_000  # pypdf's page-tree entry limit: no real document comes near it
MIN_PAGE_BYTES = 32  # a page object, its content stream and their cross-reference entries
MAX_BOOKMARKS = 100_000
MAX_BOOKMARK_DEPTH = 100
MAX_FORM_DEPTH = 3  # form XObjects looked into for an image
# the information dictionary's entries Folio reads
INFO_KEYS = ("Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate")


class PdfFile(ABC):
    """The open file: its page count and what Folio reads besides the text layer.

    ``outline``, ``labels`` and ``metadata`` never raise: what cannot be read is logged as
    a warning that names the file and what is lost, and left out.
    """

    backend: Backend

    def __init__(self, path: Path, password: str | None, n_pages: int, encrypted: bool) -> None:
        self.path = path
        self.source = str(path)
        self.password = password
        self.n_pages = n_pages
        self.encrypted = encrypted
        self._pypdf: Any = None
        self._pypdf_error: ExtractionError | None = None

    @abstractmethod
    def outline(self) -> list[OutlineItem]:
        """The bookmarks that point at a page, in document order, level 1 at the top."""

    @abstractmethod
    def labels(self) -> list[str | None]:
        """Each page's label (its number, "1", "2"…, when the PDF defines none)."""

    @abstractmethod
    def metadata(self) -> dict[str, str]:
        """The information dictionary's ``INFO_KEYS``, whitespace collapsed; "" when absent."""

    @abstractmethod
    def page_has_images(self, index: int) -> bool:
        """Whether the page draws an image (a scanned page does)."""

    def pypdf(self) -> Any:
        """pypdf's ``PdfReader`` of the file, opened on first use; an ``ExtractionError``
        when pypdf cannot read it."""
        if self._pypdf is None and self._pypdf_error is None:
            try:
                self._pypdf = open_pypdf(self.path, self.password)
            except ExtractionError as exc:
                self._pypdf_error = exc
        if self._pypdf_error is not None:
            raise self._pypdf_error
        return self._pypdf

    def close(self) -> None:
        """Release the file."""
        self._pypdf = None

    def __enter__(self) -> PdfFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_pdf(path: Path, password: str | None = None) -> PdfFile:
    """The PDF opened by PDFium, or by pypdf when PDFium cannot open it or its page tree
    fails Folio's checks. A typed error when neither can: ``EncryptedError`` (password),
    ``EmptyDocumentError`` (no pages) or ``CorruptFileError``."""
    src = str(path)
    try:
        return PdfiumFile.open(path, password)
    except _Refused as exc:
        why = exc.reason
    try:
        pdf = PypdfFile.open(path, password)
    except (EncryptedError, EmptyDocumentError):
        raise
    except ExtractionError as exc:
        theirs = exc.reason
        if theirs.startswith(_UNREADABLE + " (") and theirs.endswith(")"):
            theirs = theirs[len(_UNREADABLE) + 2 : -1]
        raise CorruptFileError(src, f"{_UNREADABLE} (PDFium: {why}; pypdf: {theirs})") from exc
    log.warning("%s: PDFium cannot read it (%s); using pypdf's text layer and structure", src, why)
    return pdf


# --- PDFium ----------------------------------------------------------------------------------

_NO_PAGES = "no page found"
_UNREADABLE = "not a readable PDF"


class _Refused(Exception):
    """PDFium cannot open the file, or its page tree fails Folio's checks: pypdf may try."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _load_error(code: int | None) -> str:
    import pypdfium2.raw as c

    return {
        c.FPDF_ERR_FILE: "the file cannot be read",
        c.FPDF_ERR_FORMAT: "not in PDF format or damaged",
        c.FPDF_ERR_PAGE: "page not found or content error",
        c.FPDF_ERR_UNKNOWN: "unknown error",
    }.get(code or 0, _NO_PAGES)


def page_count_problem(n_pages: int, size: int) -> str | None:
    """Why a page count is not believed: more than ``MAX_PAGES``, or more pages than a
    file of ``size`` bytes holds (a lying /Count, a page tree naming one page many times)."""
    if n_pages > MAX_PAGES:
        return f"the page tree claims {n_pages:,} pages, more than the {MAX_PAGES:,} allowed"
    if n_pages * MIN_PAGE_BYTES > size:
        return (
            f"the page tree claims {n_pages:,} pages, more than a file of {size:,} bytes holds"
            f" (a page takes {MIN_PAGE_BYTES} bytes at least)"
        )
    return None


class PdfiumFile(PdfFile):
    backend: Backend = "pdfium"

    def __init__(self, path: Path, password: str | None, doc: Any) -> None:
        import pypdfium2.raw as c

        super().__init__(path, password, len(doc), c.FPDF_GetSecurityHandlerRevision(doc) != -1)
        self.doc = doc

    @classmethod
    def open(cls, path: Path, password: str | None) -> PdfiumFile:
        import pypdfium2
        import pypdfium2.raw as c

        src = str(path)
        try:
            doc = pypdfium2.PdfDocument(path, password=password)
        except pypdfium2.PdfiumError as exc:
            if exc.err_code == c.FPDF_ERR_PASSWORD:
                if password:
                    raise EncryptedError(src, "the password given does not open it") from exc
                raise EncryptedError(
                    src, "password protected (the PDF needs a user password)"
                ) from exc
            if exc.err_code == c.FPDF_ERR_SECURITY:
                raise EncryptedError(src, "encrypted with a security handler PDFium lacks") from exc
            raise _Refused(_load_error(exc.err_code)) from exc
        problem = page_count_problem(len(doc), path.stat().st_size)
        if problem is not None:
            doc.close()
            raise _Refused(problem)
        return cls(path, password, doc)

    def close(self) -> None:
        super().close()
        self.doc.close()

    def outline(self) -> list[OutlineItem]:
        try:
            return _bookmarks(self.doc, self.n_pages)
        except _OutlineTooLarge as exc:
            log.warning("%s: outline ignored (%s); headings come from the text", self.source, exc)
            return []

    def labels(self) -> list[str | None]:
        import pypdfium2.raw as c

        out: list[str | None] = []
        for i in range(self.n_pages):
            n = c.FPDF_GetPageLabel(self.doc, i, None, 0)
            if n <= 0:  # no /PageLabels: the page's number, as pypdf gave it
                out.append(str(i + 1))
                continue
            buf = ctypes.create_string_buffer(n)
            c.FPDF_GetPageLabel(self.doc, i, buf, n)
            out.append(_utf16(buf.raw, n))
        return out

    def metadata(self) -> dict[str, str]:
        import pypdfium2.raw as c

        out: dict[str, str] = {}
        for key in INFO_KEYS:
            tag = key.encode("ascii") + b"\0"
            n = c.FPDF_GetMetaText(self.doc, tag, None, 0)
            buf = ctypes.create_string_buffer(max(n, 2))
            c.FPDF_GetMetaText(self.doc, tag, buf, n)
            out[key] = " ".join(_utf16(buf.raw, n).split())
        return out

    def page_has_images(self, index: int) -> bool:
        import pypdfium2.raw as c

        try:
            page = self.doc[index]
        except Exception:
            return False
        try:
            count = c.FPDFPage_CountObjects(page)
            return any(_draws_image(c.FPDFPage_GetObject(page, k), 0) for k in range(count))
        finally:
            page.close()


def _utf16(raw: bytes, n: int) -> str:
    """A PDFium string buffer of ``n`` bytes, its 2-byte terminator included."""
    return raw[: max(n - 2, 0)].decode("utf-16-le", "replace")


def _draws_image(obj: Any, depth: int) -> bool:
    import pypdfium2.raw as c

    kind = c.FPDFPageObj_GetType(obj)
    if kind == c.FPDF_PAGEOBJ_IMAGE:
        return True
    if kind != c.FPDF_PAGEOBJ_FORM or depth >= MAX_FORM_DEPTH:
        return False
    count = c.FPDFFormObj_CountObjects(obj)
    return any(_draws_image(c.FPDFFormObj_GetObject(obj, k), depth + 1) for k in range(count))


class _OutlineTooLarge(Exception):
    pass


def _bookmarks(doc: Any, n_pages: int) -> list[OutlineItem]:
    """The outline, depth first, as pypdf read it: bookmarks without a title or a page in
    the document are left out (their children stay, one level deeper than their parent)."""
    import pypdfium2.raw as c

    items: list[OutlineItem] = []
    seen: set[int] = set()
    stack: list[tuple[Any, int]] = [(c.FPDFBookmark_GetFirstChild(doc, None), 0)]
    while stack:
        bm, depth = stack.pop()
        key = ctypes.cast(bm, ctypes.c_void_p).value
        if not key or key in seen:  # the end of a list, or a cycle
            continue
        seen.add(key)
        if len(seen) > MAX_BOOKMARKS:
            raise _OutlineTooLarge(f"more than {MAX_BOOKMARKS:,} bookmarks")
        if depth >= MAX_BOOKMARK_DEPTH:
            raise _OutlineTooLarge(f"bookmarks nested more than {MAX_BOOKMARK_DEPTH} deep")
        stack.append((c.FPDFBookmark_GetNextSibling(doc, bm), depth))
        stack.append((c.FPDFBookmark_GetFirstChild(doc, bm), depth + 1))
        title = clean_heading(_bookmark_title(bm))
        dest = _destination(doc, bm)
        page = c.FPDFDest_GetDestPageIndex(doc, dest) if dest else -1
        if title and 0 <= page < n_pages:
            items.append(OutlineItem(depth + 1, title, page, _top(dest)))
    return items


def _bookmark_title(bm: Any) -> str:
    import pypdfium2.raw as c

    n = c.FPDFBookmark_GetTitle(bm, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    c.FPDFBookmark_GetTitle(bm, buf, n)
    return _utf16(buf.raw, n)


def _destination(doc: Any, bm: Any) -> Any:
    """The bookmark's destination: its /Dest, else its GoTo action's."""
    import pypdfium2.raw as c

    dest = c.FPDFBookmark_GetDest(doc, bm)
    if dest:
        return dest
    action = c.FPDFBookmark_GetAction(bm)
    if action and c.FPDFAction_GetType(action) == c.PDFACTION_GOTO:
        return c.FPDFAction_GetDest(doc, action)
    return None


def _top(dest: Any) -> float | None:
    """The destination's top (the y the view scrolls to), when its kind gives one."""
    import pypdfium2.raw as c

    n = ctypes.c_ulong()
    pos = (c.FS_FLOAT * 4)()
    mode = c.FPDFDest_GetView(dest, n, pos)
    if mode == c.PDFDEST_VIEW_XYZ:  # [left top zoom], each may be null
        has_x, has_y, has_zoom = c.FPDF_BOOL(), c.FPDF_BOOL(), c.FPDF_BOOL()
        x, y, zoom = c.FS_FLOAT(), c.FS_FLOAT(), c.FS_FLOAT()
        ok = c.FPDFDest_GetLocationInPage(dest, has_x, has_y, has_zoom, x, y, zoom)
        return pdf_number(y.value) if ok and has_y.value else None
    if mode in (c.PDFDEST_VIEW_FITH, c.PDFDEST_VIEW_FITBH) and n.value >= 1:  # [top]
        return pdf_number(pos[0])
    if mode == c.PDFDEST_VIEW_FITR and n.value >= 4:  # [left bottom right top]
        return pdf_number(pos[3])
    return None


def pdf_number(x: float) -> float:
    """The number as the file writes it: PDFium hands coordinates over as 32-bit floats
    (656.917 comes back 656.9169921875); the shortest decimal with the same float is it."""
    want = struct.pack("<f", x)
    for digits in range(8):
        r = round(x, digits)
        if struct.pack("<f", r) == want:
            return r
    return float(x)


# --- pypdf -----------------------------------------------------------------------------------


def open_pypdf(path: Path, password: str | None = None) -> Any:
    """A decrypted ``pypdf.PdfReader`` with pages, or a typed error (encrypted, corrupt,
    empty). pypdf's hardening limits stay in force."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    src = str(path)
    try:
        reader = PdfReader(path, strict=False)
    except Exception as exc:  # pypdf raises many kinds on damaged input
        raise CorruptFileError(src, f"{_UNREADABLE} ({_why(exc)})") from exc
    if reader.is_encrypted:
        try:
            ok = reader.decrypt(password or "")
        except DependencyError as exc:
            raise EncryptedError(
                src, "AES-encrypted PDF; install 'cryptography' to open it"
            ) from exc
        except Exception as exc:
            raise EncryptedError(src, f"encrypted PDF that cannot be opened ({exc})") from exc
        if not ok:
            raise EncryptedError(src, "password protected (the PDF needs a user password)")
    try:
        n = len(reader.pages)
    except Exception as exc:
        raise CorruptFileError(src, f"damaged page tree ({_why(exc)})") from exc
    if n == 0:
        raise EmptyDocumentError(src, "the PDF has no pages")
    return reader


def _why(exc: Exception) -> str:
    from pypdf.errors import PdfReadError

    if isinstance(exc, PdfReadError | ValueError | KeyError | TypeError | IndexError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class PypdfFile(PdfFile):
    backend: Backend = "pypdf"

    @classmethod
    def open(cls, path: Path, password: str | None) -> PypdfFile:
        reader = open_pypdf(path, password)
        pdf = cls(path, password, len(reader.pages), bool(reader.is_encrypted))
        pdf._pypdf = reader
        return pdf

    def outline(self) -> list[OutlineItem]:
        reader = self._pypdf
        items: list[OutlineItem] = []

        def walk(nodes: Sequence[Any], depth: int) -> None:
            for node in nodes:
                if isinstance(node, list):
                    walk(node, depth + 1)
                    continue
                try:
                    title = clean_heading(str(node.title or ""))
                    page = reader.get_destination_page_number(node)
                except Exception:
                    continue
                if not title or page is None or page < 0:
                    continue
                items.append(OutlineItem(depth + 1, title, int(page), _pypdf_top(node)))

        try:
            walk(reader.outline, 0)
        except Exception as exc:
            log.warning(
                "%s: outline unreadable (%s); headings come from the text", self.source, exc
            )
            return []
        return items

    def labels(self) -> list[str | None]:
        try:
            return list(self._pypdf.page_labels)
        except Exception as exc:
            log.warning(
                "%s: page labels unreadable (%s); pages keep their numbers", self.source, exc
            )
            return [None] * self.n_pages

    def metadata(self) -> dict[str, str]:
        try:
            info = self._pypdf.metadata
        except Exception as exc:
            log.warning(
                "%s: metadata unreadable (%s); no title or author from it", self.source, exc
            )
            info = None
        return {key: _info_str(info, "/" + key) for key in INFO_KEYS}

    def page_has_images(self, index: int) -> bool:
        try:
            res = self._pypdf.pages[index].get("/Resources")
            xobjects = res.get_object().get("/XObject") if res is not None else None
            if xobjects is None:
                return False
            xobjects = xobjects.get_object()
            return any(xobjects[n].get_object().get("/Subtype") == "/Image" for n in xobjects)
        except Exception:
            return False


def _pypdf_top(node: Any) -> float | None:
    try:
        raw = node.get("/Top")
        return float(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None


def _info_str(info: Any, key: str) -> str:
    try:
        v = info.get(key) if info is not None else None
    except Exception:
        return ""
    return " ".join(str(v).split()) if v is not None else ""


__all__ = [
    "INFO_KEYS",
    "MAX_PAGES",
    "MIN_PAGE_BYTES",
    "PdfFile",
    "PdfiumFile",
    "PypdfFile",
    "open_pdf",
    "open_pypdf",
    "page_count_problem",
    "pdf_number",
]
