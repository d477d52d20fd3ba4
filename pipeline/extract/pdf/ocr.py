"""OCR of the PDF pages that have no text layer: PDFium renders the page, Tesseract reads it.

Only a page without text (fewer than ``MIN_CHARS`` characters in its text layer) that
draws an image is read; the other pages keep their text layer. The page is rendered at
its scan's own resolution (the embedded image's pixels over its size on the page, which
PDFium reports as the image's dpi), clamped to ``MIN_DPI``..``MAX_DPI`` and to
``MAX_PIXELS``. Tesseract's hOCR gives each line's box, baseline and row height; they
become the same ``Line`` records the text layer gives (PDF points, y upwards), so the
page's paragraphs, page boundaries and page labels are made as for any other page.

Tesseract is an outside program (Debian: ``tesseract-ocr`` and ``tesseract-ocr-eng``),
called through pytesseract (the ``ocr`` extra). When either is missing, ``unavailable``
says which and how to install it; the reader decides whether that is an error.
"""

from __future__ import annotations

import logging
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .layout import Line, clean_text

if TYPE_CHECKING:  # Pillow comes with the ocr extra (pytesseract needs it)
    from PIL import Image

log = logging.getLogger("folio.extract")

LANG = "eng"  # Tesseract's language data (Debian: tesseract-ocr-eng)
MIN_CHARS = 5  # a page with fewer characters in its text layer has no text layer
MIN_DPI, MAX_DPI = 200.0, 400.0  # below 200 Tesseract misreads small type; above 400 gains nothing
MAX_PIXELS = 16_000_000  # A4 at 400 dpi; a larger page (a poster) is rendered at a lower dpi
# Tesseract misreads very large type (a 66-point line at 133 dpi, 120 px high: "9000" came
# back "QOQO"): a page whose lines are mostly taller than MAX_ROW_PX is read shrunk
MAX_ROW_PX, TARGET_ROW_PX = 100.0, 50.0
PROGRESS_EVERY_S = 10.0  # a long scan says how far it is at most this often
INSTALL_HINT = (
    "install Tesseract (`apt install tesseract-ocr tesseract-ocr-eng`, or your platform's "
    "package) and its binding (`pip install 'folio-pipeline[ocr]'`)"
)
_TITLE_FIELD = re.compile(r"(\w+) ([^;]*)")
_LINE_CLASSES = frozenset({"ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"})


def unavailable() -> str | None:
    """Why OCR cannot run here (the binding, the program or its English data missing),
    ``None`` when it can. Asked anew each time: it runs ``tesseract`` twice (~20 ms)."""
    try:
        import pytesseract
    except ImportError:
        return "the pytesseract package is not installed"
    try:
        pytesseract.get_tesseract_version()
        langs = pytesseract.get_languages()
    except pytesseract.TesseractNotFoundError:
        return f"the tesseract program ({pytesseract.pytesseract.tesseract_cmd}) is not found"
    except (OSError, pytesseract.TesseractError) as exc:
        return f"the tesseract program does not run ({exc})"
    if LANG not in langs:
        return f"Tesseract has no {LANG!r} language data (Debian: tesseract-ocr-{LANG})"
    return None


@dataclass(frozen=True, slots=True)
class Scale:
    """A rendered page: ``dpi`` pixels an inch, ``height`` in points (for y upwards)."""

    dpi: float
    height: float

    @property
    def pt(self) -> float:
        """Points per pixel."""
        return 72.0 / self.dpi


def page_dpi(page: Any) -> float:
    """The resolution to render ``page`` at: that of its largest image on the page,
    clamped to ``MIN_DPI``..``MAX_DPI``, then lowered to keep within ``MAX_PIXELS``."""
    import pypdfium2.raw as c

    best_area, dpi = 0.0, MIN_DPI
    for obj in page.get_objects(filter=(c.FPDF_PAGEOBJ_IMAGE,), max_depth=3):
        left, bottom, right, top = obj.get_bounds()
        area = (right - left) * (top - bottom)
        meta = obj.get_metadata()
        if area > best_area and meta.horizontal_dpi > 0:
            best_area, dpi = area, max(meta.horizontal_dpi, meta.vertical_dpi)
    dpi = min(max(dpi, MIN_DPI), MAX_DPI)
    width, height = page.get_size()
    pixels = width * height * (dpi / 72.0) ** 2
    if pixels > MAX_PIXELS:
        dpi *= (MAX_PIXELS / pixels) ** 0.5
    return dpi


def ocr_page(page: Any) -> list[Line]:
    """The lines Tesseract reads on a ``pypdfium2.PdfPage``, in its reading order.

    Large type is read shrunk to ``TARGET_ROW_PX``, once: its height is guessed from the
    rendered image's ink (``ink.row_px``) before the read. The read checks the guess: lines
    far smaller than aimed at (the ink was a figure's, not type's) are read again as
    rendered, lines still taller than ``MAX_ROW_PX`` again smaller."""
    from . import ink  # Pillow: with the ocr extra

    dpi = page_dpi(page)
    # grey is all Tesseract reads (it binarises); a third of the memory of RGB
    image = page.render(scale=dpi / 72.0, grayscale=True).to_pil()
    height = page.get_size()[1]
    guess = ink.row_px(image, dpi)
    scale = TARGET_ROW_PX / guess if guess > MAX_ROW_PX else 1.0
    lines, row = _read(image, dpi, scale, height)
    if scale < 1.0 and row < TARGET_ROW_PX / 2:
        scale = 1.0
        lines, row = _read(image, dpi, scale, height)
    if row > MAX_ROW_PX:
        lines, _ = _read(image, dpi, scale * TARGET_ROW_PX / row, height)
    return lines


def _read(image: Image.Image, dpi: float, scale: float, height: float) -> tuple[list[Line], float]:
    """The lines of ``image`` (rendered at ``dpi``, ``height`` points high) read at
    ``scale`` times its size, and their median row height in pixels (0.0 without lines)."""
    import pytesseract
    from PIL import Image

    if scale < 1.0:  # shrunk here: rendering the page again decodes its image again
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image, dpi = image.resize(size, Image.Resampling.BOX), dpi * scale
    # handed over uncompressed (pytesseract saves the image to a file for the program):
    # a PNG cost a tenth of a Tesseract page to write and as much again to read back
    image.format = "PPM"  # a grey image is written as PGM
    # Tesseract's own threads take turns with the other processes on a busy machine
    # (3.5x slower at load 6 on 2 cores): one thread each, unless the user says otherwise
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    hocr = pytesseract.image_to_pdf_or_hocr(
        image, lang=LANG, extension="hocr", config=f"--dpi {round(dpi)}"
    )
    lines = hocr_lines(hocr, Scale(dpi, height))
    sizes = sorted(ln.size for ln in lines)
    return lines, sizes[len(sizes) // 2] * dpi / 72.0 if sizes else 0.0


def hocr_lines(hocr: bytes, scale: Scale) -> list[Line]:
    """Tesseract's hOCR lines as ``Line`` records in PDF points: x the line's left edge,
    y its baseline there, size its row height (ascender to descender)."""
    root = ET.fromstring(hocr)
    out: list[Line] = []
    for el in root.iter():
        if el.get("class") not in _LINE_CLASSES:
            continue
        words = [w for w in _words(el) if w]
        text = clean_text(" ".join(words))
        if not text:
            continue
        fields = _title(el.get("title", ""))
        x0, _y0, _x1, y1 = (float(v) for v in fields["bbox"].split())
        offset = float(fields.get("baseline", "0 0").split()[1])
        size = float(fields.get("x_size", "0")) * scale.pt
        y = scale.height - (y1 + offset) * scale.pt
        out.append(Line(text, round(x0 * scale.pt, 1), round(y, 1), round(size, 1), False, False))
    return out


def _words(line: ET.Element) -> Iterator[str]:
    for el in line.iter():
        if el.get("class") == "ocrx_word":
            yield "".join(el.itertext()).strip()


def _title(title: str) -> dict[str, str]:
    """hOCR's ``title`` properties: ``bbox 1 2 3 4; x_size 39`` → {"bbox": "1 2 3 4", …}."""
    return {m.group(1): m.group(2).strip() for m in _TITLE_FIELD.finditer(title)}


PageRead = list[Line] | str  # a page's lines, or why Tesseract failed on it


def ocr_pages(
    doc: Any, indices: Sequence[int], source: str, *, workers: int = 1, password: str | None = None
) -> dict[int, list[Line]]:
    """The lines of the pages ``indices`` (0-based) of an open ``PdfDocument`` read from
    ``source``: in this process, or by ``workers`` processes that open the file again (a
    page costs seconds: a pool pays from two pages on). A long run logs how far it is,
    from this process (the ingest's console shows log lines above its progress bar). A
    page Tesseract fails on is left empty, with a warning."""
    out: dict[int, list[Line]] = {}
    started = said = time.monotonic()
    log.info("%s: OCR of %d page(s) without a text layer (Tesseract)", source, len(indices))
    workers = min(workers, len(indices))
    for done, (i, got) in enumerate(_read_all(doc, indices, source, workers, password), 1):
        if isinstance(got, str):  # Tesseract's failure on one page costs that page only
            log.warning("%s: OCR failed on page %d (%s)", source, i + 1, got)
            got = []
        out[i] = got
        now = time.monotonic()
        if now - said >= PROGRESS_EVERY_S and done < len(indices):
            rate = done / (now - started)
            log.info("%s: OCR %d of %d pages (%.2f pages/s)", source, done, len(indices), rate)
            said = now
    return out


def _read_all(
    doc: Any, indices: Sequence[int], source: str, workers: int, password: str | None
) -> Iterator[tuple[int, PageRead]]:
    """(index, what was read) for each page, in order."""
    if workers <= 1:
        for i in indices:
            yield i, _read_one(doc, i)
        return
    from concurrent.futures import ProcessPoolExecutor

    from ...shared.limits import die_with_parent

    pool = ProcessPoolExecutor(workers, initializer=die_with_parent, initargs=(os.getpid(),))
    done = 0
    try:
        with pool:
            jobs = [(source, password, i) for i in indices]
            for i, got in zip(indices, pool.map(_read_in_worker, jobs), strict=True):
                yield i, got
                done += 1
    except (OSError, RuntimeError) as exc:  # no processes here, or a worker died
        log.info("%s: OCR process pool failed (%s); reading on in one process", source, exc)
        for i in indices[done:]:
            yield i, _read_one(doc, i)


def _read_one(doc: Any, i: int) -> PageRead:
    try:
        page = doc[i]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    try:
        return ocr_page(page)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        page.close()


def _read_in_worker(job: tuple[str, str | None, int]) -> PageRead:
    """A pool worker's page: the file opened anew (PDFium's handles stay in their process);
    a failure comes back as text, logged by the parent."""
    from .pdfium import open_document

    path, password, i = job
    try:
        doc = open_document(Path(path), password)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    try:
        return _read_one(doc, i)
    finally:
        doc.close()


__all__ = ["INSTALL_HINT", "MIN_CHARS", "hocr_lines", "ocr_page", "ocr_pages", "page_dpi"]
