"""PDF → Document: lines with layout, boilerplate removed, headings, paragraphs.

The file is opened by PDFium (``document.py``: pypdf only where PDFium cannot read it);
the text layer is PDFium's (``pdfium.py``; pypdf's visitor path stays available as
``layer="pypdf"``), and so are the outline, page labels, metadata and encryption. A page
without a text layer that draws an image (a scan) is read by Tesseract (``ocr.py``) when
it is installed; its lines then go the way of every other page's.

Headings, best first: the PDF outline (bookmarks placed on their pages), font-size
evidence, flat-text heuristics (``pipeline.text.heading_lines.find_headings``). The text is
flat (``markup="text"``): paragraphs separated by blank lines, headings as ATX lines.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ...errors import (
    CorruptFileError,
    EmptyDocumentError,
    ExtractionError,
    NoTextLayerError,
)
from ...model import Document, HeadingMode, OutlineEntry, Page, SourceInfo
from ...shared.collector import collector_paused
from ...shared.limits import die_with_parent
from ...text.heading_lines import find_headings
from ..boilerplate import BoilerplateResult, detect_boilerplate
from ..gfm import pipe_table
from . import ocr
from .contents import heading_entries, printed_contents
from .document import PdfFile, PdfiumFile, open_pdf, open_pypdf
from .headings import (
    HeadingPlan,
    Placed,
    clean_heading,
    plan_from_fonts,
    plan_from_outline,
)
from .layout import (
    Line,
    LineCollector,
    PageFailure,
    PageLines,
    PageStats,
    Vocabulary,
    continues,
    join_lines,
    page_stats,
)
from .pdfium import RangeRead, pages_lines
from .statements import find_statements
from .tables import Table, find_tables
from .title import pdf_title

log = logging.getLogger("folio.extract")

PARALLEL_MIN_PAGES = 48  # below this a process pool costs more than it saves
TextLayer = Literal["pdfium", "pypdf"]
_ESCAPE_HASH = re.compile(r"^(\s{0,3})#", re.MULTILINE)
_BACKTICKS = re.compile(r"`{3,}")
MONO_GLYPH_EM = 0.6  # advance width of a monospaced glyph, in font sizes
# one monospaced line alone is code when it holds syntax, not when it is a bare name (an
# option or a file set as a label)
_CODE_SIGN = re.compile(r"[{}()\[\];=<>\\|$@]|::|->|\w\.\w+\(")


# --- per-page extraction (runs in worker processes for large files) ----------------------


def _page_lines(page: Any) -> list[Line]:
    collector = LineCollector()
    page.extract_text(visitor_text=collector)
    return collector.finish()


def _extract_range(
    path: str, password: str | None, start: int, stop: int, layer: TextLayer = "pdfium"
) -> RangeRead:
    """Worker: lines of pages ``start..stop``; a ``PageFailure`` in place of a bad page."""
    if layer == "pdfium":
        with collector_paused():
            return _pdfium_range(Path(path), password, start, stop)
    try:
        reader = open_pypdf(Path(path), password)
    except Exception as exc:  # the main process opened it: this one should too
        return RangeRead([PageFailure.of(exc)] * (stop - start), None)
    return RangeRead([_extract_one(reader, i) for i in range(start, stop)], None)


def _pdfium_range(
    path: Path, password: str | None, start: int, stop: int, symbols: bool = False
) -> RangeRead:
    from .pdfium import open_document, pages_lines

    try:
        doc = open_document(path, password)
    except Exception as exc:  # the main process opened it: this one should too
        return RangeRead([PageFailure.of(exc)] * (stop - start), None)
    try:
        return pages_lines(doc, start, stop, symbols=symbols)
    finally:
        doc.close()


def _extract_one(reader: Any, i: int) -> PageLines:
    try:
        return _page_lines(reader.pages[i])
    except Exception as exc:
        return PageFailure.of(exc)


def default_workers(n_pages: int, least: int = PARALLEL_MIN_PAGES) -> int:
    """Processes worth starting: one per idle core, up to 4, from ``least`` pages.

    The pool's own cost is small (each worker re-opens the file: ~0.3 s for a 350-page
    manual; pickling the lines back: ~0.15 s), so it pays whenever a core is idle: with
    PDFium, 2 processes read the corpus PDFs in 4.05 s against 5.09 s in-line (the
    46-page kaobook manual 0.22 s against 0.28 s). On a machine already busy (1-minute
    load ≥ cores) a second process only takes turns with the first, so the pages are
    read in-line. The output is the same either way.
    """
    if n_pages < least:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    idle = int(cores - load + 1.0)  # this process is one of the runnable ones
    return max(1, min(cores, 4, idle))


def extract_lines(
    path: Path,
    pdf: PdfFile,
    *,
    workers: int | None = None,
    password: str | None = None,
    layer: TextLayer = "pdfium",
) -> list[PageLines]:
    """Lines of every page, in order; a page that failed gives a ``PageFailure``. The main
    process reads its share through ``pdf`` (PDFium's document, or pypdf's reader for
    ``layer="pypdf"``); worker processes open the file again."""
    n = pdf.n_pages
    if workers is None:
        workers = default_workers(n)
    workers = min(workers, n)

    def here(a: int, b: int, symbols: bool = False) -> RangeRead:
        if layer == "pypdf":
            reader = pdf.pypdf()
            return RangeRead([_extract_one(reader, i) for i in range(a, b)], None)
        if isinstance(pdf, PdfiumFile):
            return pages_lines(pdf.doc, a, b, symbols=symbols)
        return _pdfium_range(path, password, a, b, symbols)

    if workers <= 1 or n < 2:
        return here(0, n).pages
    # the main process reads the first share itself; the pool reads the others
    bounds = [round(n * k / workers) for k in range(workers + 1)]
    ranges = [(bounds[k], bounds[k + 1]) for k in range(workers) if bounds[k] < bounds[k + 1]]
    try:
        pool = ProcessPoolExecutor(
            max_workers=len(ranges) - 1, initializer=die_with_parent, initargs=(os.getpid(),)
        )
        with pool:
            futures = [
                pool.submit(_extract_range, str(path), password, a, b, layer) for a, b in ranges[1:]
            ]
            reads = [here(*ranges[0]), *(fut.result() for fut in futures)]
    except (OSError, RuntimeError) as exc:  # no processes here: do it in-line
        log.info("process pool unavailable (%s); extracting in one process", exc)
        return here(0, n).pages
    return _as_read_in_order(ranges, reads, here)


def _as_read_in_order(
    ranges: list[tuple[int, int]], reads: list[RangeRead], read: Callable[..., RangeRead]
) -> list[PageLines]:
    """The pages as one process reading them in order gives them, whatever the number of
    workers: a range read apart did not know that an earlier page had shown a math-symbol
    font, so its pages up to its own first such page are read again as after one."""
    out: list[PageLines] = []
    seen = False
    for (a, b), got in zip(ranges, reads, strict=True):
        pages = got.pages
        if seen and got.symbols_from != a:
            end = b if got.symbols_from is None else got.symbols_from
            pages = read(a, end, symbols=True).pages + pages[end - a :]
        out.extend(pages)
        seen = seen or got.symbols_from is not None
    return out


# --- assembly ------------------------------------------------------------------------------


class TextBuilder:
    """Appends blocks of (page, text) pieces and keeps the page map and outline honest."""

    def __init__(self, n_pages: int) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.page_start: list[int | None] = [None] * n_pages
        self.outline: list[OutlineEntry] = []

    def _mark(self, page: int) -> None:
        if 0 <= page < len(self.page_start) and self.page_start[page] is None:
            self.page_start[page] = self.pos

    def _put(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)

    def _sep(self) -> None:
        if self.pos:
            self._put("\n\n")

    def heading(self, page: int, level: int, title: str) -> None:
        self._sep()
        self._mark(page)
        self.outline.append(OutlineEntry(level, title, page + 1, self.pos))
        self._put("#" * level + " " + title)

    def table(self, page: int, markdown: str) -> None:
        self._sep()
        self._mark(page)
        self._put(markdown)

    def paragraph(self, pieces: Sequence[tuple[int, str]], vocab: Vocabulary, mono: bool) -> None:
        if not pieces:
            return
        self._sep()
        # join, remembering where each page's first piece starts in the joined string
        starts: list[tuple[int, int]] = []
        if mono:
            joined = ""
            for page, text in pieces:
                if not joined:
                    starts.append((page, 0))
                    joined = text
                    continue
                joined += "\n" + text
                starts.append((page, len(joined) - len(text)))
        else:
            joined, offsets = join_lines([text for _, text in pieces], vocab)
            starts = [(page, off) for (page, _), off in zip(pieces, offsets, strict=True)]
        escaped = _ESCAPE_HASH.sub(r"\1\\#", joined) if "#" in joined else joined
        if escaped != joined:  # offsets shift by one per escaped line start
            shifts = [m.start() for m in _ESCAPE_HASH.finditer(joined)]
            starts = [(pg, off + sum(1 for s in shifts if s < off)) for pg, off in starts]
        for page, off in starts:
            if 0 <= page < len(self.page_start) and self.page_start[page] is None:
                self.page_start[page] = self.pos + off
        self._put(escaped)

    def code(self, pieces: Sequence[tuple[int, str]]) -> None:
        """A code listing as a fenced block (longer fences when the code holds one)."""
        if not pieces:
            return
        self._sep()
        body = "\n".join(text for _, text in pieces)
        fence = "`" * max(3, 1 + max((len(m) for m in _BACKTICKS.findall(body)), default=0))
        offset = len(fence) + 1
        for page, text in pieces:
            if 0 <= page < len(self.page_start) and self.page_start[page] is None:
                self.page_start[page] = self.pos + offset
            offset += len(text) + 1
        self._put(f"{fence}\n{body}\n{fence}")

    def finish(self, labels: Sequence[str | None]) -> tuple[str, tuple[Page, ...]]:
        text = "".join(self.parts)
        n = len(self.page_start)
        starts: list[int] = [0] * n
        nxt = len(text)
        for i in range(n - 1, -1, -1):
            s = self.page_start[i]
            nxt = min(nxt, s) if s is not None else nxt
            starts[i] = nxt
        if n:
            starts[0] = 0
        pages = tuple(
            Page(
                number=i + 1,
                label=labels[i] if i < len(labels) else None,
                char_start=starts[i],
                char_end=starts[i + 1] if i + 1 < n else len(text),
            )
            for i in range(n)
        )
        return text, pages


def indent_code(
    pieces: Sequence[tuple[int, str]], edges: Sequence[tuple[float, float]]
) -> list[tuple[int, str]]:
    """Code lines with their indentation back: a monospaced glyph is about 0.6 em wide, so
    a line's offset from the listing's leftmost line, in glyph widths, is its indent."""
    left = min(x for x, _ in edges)
    out: list[tuple[int, str]] = []
    for (page, text), (x, size) in zip(pieces, edges, strict=True):
        width = MONO_GLYPH_EM * size if size > 0 else 1.0
        out.append((page, " " * max(0, round((x - left) / width)) + text))
    return out


@dataclass(slots=True)
class _Paragraph:
    """The paragraph being gathered. Mutable: lines join it until a break writes it out.

    ``edges`` keeps each line's left edge and font size (a code listing's indentation);
    ``prev`` is the last line taken, for the continuation test.
    """

    vocab: Vocabulary  # the document's words, for undoing hyphenation when lines join
    pieces: list[tuple[int, str]] = field(default_factory=list)
    edges: list[tuple[float, float]] = field(default_factory=list)
    mono: bool = False
    prev: Line | None = None
    prev_page: int = -1

    def add(self, page: int, line: Line) -> None:
        if not self.pieces:
            self.mono = line.mono
        self.pieces.append((page, line.text))
        self.edges.append((line.x, line.size))
        self.prev, self.prev_page = line, page

    def flush(self, b: TextBuilder) -> None:
        """Write the paragraph (a monospaced one as code) and start an empty one."""
        pieces = self.pieces
        if self.mono and pieces and (len(pieces) > 1 or _CODE_SIGN.search(pieces[0][1])):
            b.code(indent_code(pieces, self.edges))
        else:
            b.paragraph(pieces, self.vocab, self.mono)
        self.pieces, self.edges, self.prev = [], [], None


@dataclass(frozen=True, slots=True)
class _PageParts:
    """One page's lines and what they become besides paragraphs, by line index: headings
    taken from lines (``at``), headings inserted before a line, tables by first line, and
    table captions (first line → the table's first line)."""

    index: int
    lines: Sequence[Line]
    stats: PageStats
    at: dict[int, Placed]
    inserted: dict[int, list[tuple[int, str]]]
    tables: dict[int, Table]
    captions: dict[int, int]


def assemble(
    pages: Sequence[Sequence[Line]], plan: HeadingPlan, n_pages: int, labels: Sequence[str | None]
) -> tuple[str, tuple[Page, ...], tuple[OutlineEntry, ...]]:
    b = TextBuilder(n_pages)
    para = _Paragraph(Vocabulary(ln.text for lines in pages for ln in lines))
    for p, lines in enumerate(pages):
        _assemble_page(b, para, _page_parts(p, lines, plan))
    para.flush(b)
    text, page_map = b.finish(labels)
    return text, page_map, tuple(b.outline)


def _page_parts(p: int, lines: Sequence[Line], plan: HeadingPlan) -> _PageParts:
    at = plan.at.get(p, {})
    inserted = plan.inserted.get(p, {})
    # lines that carry a heading are not read as table rows
    blocked = {i + k for i, pl in at.items() for k in range(pl.span)} | set(inserted)
    tables, captions = _page_tables(lines, blocked)
    return _PageParts(p, lines, page_stats(lines), at, inserted, tables, captions)


def _assemble_page(b: TextBuilder, para: _Paragraph, page: _PageParts) -> None:
    """A page's lines in order: inserted headings, tables, headings and paragraph lines.

    A paragraph may go on from the page before; a table caption stays a paragraph of its
    own up to its table.
    """
    p = page.index
    skip_until = caption_end = -1
    inserted = page.inserted
    for i, line in enumerate(page.lines):
        if i in inserted:
            _insert_headings(b, para, page, i)
        if i < skip_until:
            continue
        if i in page.captions:
            para.flush(b)
            caption_end = page.captions[i]
        table = page.tables.get(i)
        if table is not None:
            para.flush(b)
            b.table(p, pipe_table(table.rows))
            skip_until = table.end
            continue
        placed = page.at.get(i)
        if placed is not None:
            skip_until = _place_heading(b, para, page, i, placed)
            continue
        prev = para.prev
        if prev is not None and not (
            i < caption_end or continues(prev, line, page.stats, same_page=para.prev_page == p)
        ):
            para.flush(b)
        para.add(p, line)
    _insert_headings(b, para, page, len(page.lines))


def _insert_headings(b: TextBuilder, para: _Paragraph, page: _PageParts, i: int) -> None:
    """The headings inserted before line ``i`` (no line carries their title)."""
    for level, title in page.inserted.get(i, ()):
        para.flush(b)
        b.heading(page.index, level, title)


def _place_heading(b: TextBuilder, para: _Paragraph, page: _PageParts, i: int, pl: Placed) -> int:
    """Write the heading taken from the lines at ``i``; the index of the first line after
    it. A run-in heading's line goes on as the first line of a paragraph."""
    para.flush(b)
    b.heading(page.index, pl.level, pl.title)
    if pl.split:
        line = page.lines[i]
        rest = line.text[pl.split :].lstrip(" .:—–")
        if rest:
            para.add(page.index, line._replace(text=rest))
            return i + 1
    return i + pl.span


def _page_tables(
    lines: Sequence[Line], blocked: set[int]
) -> tuple[dict[int, Table], dict[int, int]]:
    """A page's tables by first line (numeric tables first, then other column layouts),
    and the first caption line of each numeric table that has one → its first line."""
    if not any(ln.cells for ln in lines):
        return {}, {}
    statements = find_statements(lines, blocked)
    taken = blocked | {k for st in statements.values() for k in range(st.caption, st.end)}
    tables = {i: Table(st.end, st.rows) for i, st in statements.items()}
    tables.update(find_tables(lines, taken))
    return tables, {st.caption: i for i, st in statements.items() if st.caption < i}


def _heuristic_plan(pages: Sequence[Sequence[Line]]) -> HeadingPlan:
    """The flat-text heading heuristics over the pages' lines."""
    flat: list[tuple[int, int]] = []
    texts: list[str] = []
    for p, lines in enumerate(pages):
        for i, ln in enumerate(lines):
            flat.append((p, i))
            texts.append(ln.text)
    plan = HeadingPlan()
    for idx, level, title in find_headings(texts):
        if 0 <= idx < len(flat):
            p, i = flat[idx]
            plan.place(p, i, Placed(max(1, min(int(level), 6)), clean_heading(str(title))))
    return plan


# the information dictionary's descriptive entries, in the order the metadata lists them
_INFO_FIELDS = (
    ("subject", "Subject"),
    ("keywords", "Keywords"),
    ("creator", "Creator"),
    ("producer", "Producer"),
    ("created", "CreationDate"),
)

# the name scripts/eval/eval_structure.py imports
open_reader = open_pdf


def read_pdf(
    path: str | Path,
    *,
    use_outline: bool = True,
    password: str | None = None,
    workers: int | None = None,
    layer: TextLayer = "pdfium",
) -> Document:
    """Extract a PDF: the text layer read by PDFium (or pypdf), the structure (outline,
    page labels, metadata, encryption) by PDFium (``document.py`` says when pypdf reads
    instead). Raises a typed ``ExtractionError``."""
    # the collector resumes once ``_read_pdf``'s lines are freed: its first pass then walks
    # the document alone, not every line and run read (0.6% of a read on the bench PDFs)
    with collector_paused():
        return _read_pdf(Path(path), str(path), use_outline, password, workers, layer)


def _read_pdf(
    p: Path,
    source: str,
    use_outline: bool,
    password: str | None,
    workers: int | None,
    layer: TextLayer,
) -> Document:
    with open_pdf(p, password) as pdf:
        layer = _text_layer(pdf, layer)
        read = _read_pages(p, pdf, workers=workers, password=password, layer=layer)
        read = _ocr_scans(pdf, read)
        _require_text(pdf, read)
        bp = detect_boilerplate([[ln.text for ln in lines] for lines in read.pages])
        kept = [[read.pages[k][i] for i in idxs] for k, idxs in enumerate(bp.kept_indices)]
        heads = _plan_headings(pdf, kept, bp, use_outline=use_outline)
        text, page_map, outline = assemble(kept, heads.plan, pdf.n_pages, pdf.labels())
        if not text.strip():
            raise EmptyDocumentError(pdf.source, "no text left after removing page boilerplate")
        fields = pdf.metadata()
        extra: dict[str, Any] = {
            "metadata_title": fields["Title"],
            **{name: fields[key] for name, key in _INFO_FIELDS},
            "outline_entries": heads.outline_entries,
            "outline_found": heads.plan.found if heads.mode == "outline" else None,
            "encrypted": pdf.encrypted,
        }
        if read.failed:
            extra["damaged_pages"] = [n for n, _ in read.failed]
        if read.ocr:
            extra["ocr_pages"] = list(read.ocr)
        info = SourceInfo(read.layer, fields["Author"], pdf.n_pages, bp.removed, extra)
    return Document(
        text=text + "\n",
        source=source,
        format="pdf",
        markup="text",
        title=pdf_title(fields["Title"], read.pages[:2], p.stem),
        heading_mode=heads.mode,
        pages=_extend_last(page_map, len(text) + 1),
        outline=outline,
        info=info,
    )


def _text_layer(pdf: PdfFile, asked: TextLayer) -> TextLayer:
    """The layer to read: pypdf's for a file only pypdf opened; PDFium's when pypdf's was
    asked for and pypdf cannot read the file (a warning says so)."""
    if pdf.backend == "pypdf":
        return "pypdf"
    if asked == "pypdf":
        try:
            pdf.pypdf()
        except ExtractionError as exc:
            log.warning(
                "%s: pypdf cannot read it (%s); using PDFium's text layer", pdf.source, exc.reason
            )
            return "pdfium"
    return asked


@dataclass(frozen=True, slots=True)
class _PagesRead:
    pages: list[list[Line]]  # a damaged page has no lines
    failed: list[tuple[int, PageFailure]]  # (1-based page number, why) of each damaged page
    layer: TextLayer  # the text layer that read them
    ocr: tuple[int, ...] = ()  # 1-based numbers of the pages Tesseract read
    unread: tuple[int, ...] = ()  # those of the image-only pages OCR could not read
    no_ocr: str = ""  # why OCR could not read them


def _read_pages(
    path: Path, pdf: PdfFile, *, workers: int | None, password: str | None, layer: TextLayer
) -> _PagesRead:
    """Every page's lines; an error when no page could be read."""
    src = pdf.source
    results = extract_lines(path, pdf, workers=workers, password=password, layer=layer)
    if layer == "pdfium" and all(isinstance(r, PageFailure) for r in results):
        # PDFium opened the file but read none of its pages (damage the two libraries
        # tolerate differently): pypdf's text layer is the fallback, the metadata says so
        first = results[0]
        why = first.reason if isinstance(first, PageFailure) else ""
        try:
            pdf.pypdf()
        except ExtractionError as exc:
            raise CorruptFileError(
                src, f"no page could be read (PDFium: {why}; pypdf: {exc.reason})"
            ) from exc
        log.warning("%s: PDFium read no page (%s); using pypdf's text layer", src, why)
        layer = "pypdf"
        results = extract_lines(path, pdf, workers=workers, password=password, layer=layer)
    failed = [(i + 1, r) for i, r in enumerate(results) if isinstance(r, PageFailure)]
    pages: list[list[Line]] = [r if isinstance(r, list) else [] for r in results]
    if failed and len(failed) == pdf.n_pages:
        raise CorruptFileError(src, f"no page could be read ({failed[0][1].reason})")
    if failed:
        some = [(n, f.reason) for n, f in failed[:3]]
        log.warning("%s: %d damaged page(s) skipped: %s", src, len(failed), some)
    return _PagesRead(pages, failed, layer)


def _ocr_scans(pdf: PdfFile, read: _PagesRead) -> _PagesRead:
    """The pages without a text layer that draw an image, read by OCR; the other pages
    as they were. Without OCR they stay empty, and the result says why."""
    damaged = {n - 1 for n, _ in read.failed}
    scans = [
        i
        for i, lines in enumerate(read.pages)
        if i not in damaged
        and sum(len(ln.text) for ln in lines) < ocr.MIN_CHARS
        and pdf.page_has_images(i)
    ]
    if not scans:
        return read
    why = ocr.unavailable() if isinstance(pdf, PdfiumFile) else _NO_RENDER
    if why is not None or not isinstance(pdf, PdfiumFile):  # only PDFium renders pages
        return replace(read, unread=tuple(i + 1 for i in scans), no_ocr=why or _NO_RENDER)
    # a page costs Tesseract seconds: a second process pays from two pages
    workers = default_workers(len(scans), least=2)
    got = ocr.ocr_pages(pdf.doc, scans, pdf.source, workers=workers, password=pdf.password)
    pages = [got.get(i, lines) for i, lines in enumerate(read.pages)]
    return replace(read, pages=pages, ocr=tuple(i + 1 for i in scans))


_NO_RENDER = "PDFium cannot open the file, and only PDFium renders its pages"


def _require_text(pdf: PdfFile, read: _PagesRead) -> None:
    """A typed error for a scan (mostly blank pages that hold images) or a file with no
    text, saying why OCR did not read it; a warning for image-only pages left unread in a
    file that has text."""
    src, n_pages = pdf.source, pdf.n_pages
    chars = [sum(len(ln.text) for ln in lines) for lines in read.pages]
    total = sum(chars)
    blank = [i for i, c in enumerate(chars) if c < ocr.MIN_CHARS]
    if total == 0 or (len(blank) >= max(1, n_pages // 2) and total < 60 * n_pages):
        if read.unread:
            raise NoTextLayerError(
                src,
                f"no text layer (a scanned PDF?), and OCR is not available ({read.no_ocr});"
                f" to read it, {ocr.INSTALL_HINT}",
            )
        if total == 0 and read.ocr:
            raise NoTextLayerError(
                src, f"no text layer, and OCR found no text on its {len(read.ocr)} image page(s)"
            )
        if total == 0:
            raise EmptyDocumentError(src, "the PDF contains no text")
    if read.unread:
        log.warning(
            "%s: %d page(s) without a text layer not read (%s): OCR is not available (%s);"
            " to read them, %s",
            src, len(read.unread), _pages_named(read.unread), read.no_ocr, ocr.INSTALL_HINT,
        )  # fmt: skip


def _pages_named(numbers: Sequence[int], most: int = 5) -> str:
    """``page 3`` or ``pages 3, 7, 9 …``."""
    shown = ", ".join(str(n) for n in numbers[:most]) + (" …" if len(numbers) > most else "")
    return f"page {shown}" if len(numbers) == 1 else f"pages {shown}"


@dataclass(frozen=True, slots=True)
class _Headings:
    plan: HeadingPlan
    mode: HeadingMode
    outline_entries: int  # bookmarks read (none when the outline is not used)


def _plan_headings(
    pdf: PdfFile, kept: Sequence[Sequence[Line]], bp: BoilerplateResult, *, use_outline: bool
) -> _Headings:
    """The first source that finds headings: the outline, font sizes (a printed contents
    page, removed as boilerplate, guiding them), then the flat-text heuristics."""
    items = pdf.outline() if use_outline else []
    if items:
        plan = plan_from_outline(kept, items)
        if len(plan):
            return _Headings(plan, "outline", len(items))
    contents = printed_contents(heading_entries(_contents_pages(bp)))
    fonts = plan_from_fonts(kept, contents=contents)
    if len(fonts):
        return _Headings(fonts, "fonts", len(items))
    return _Headings(_heuristic_plan(kept), "heuristic", len(items))


def _contents_pages(bp: BoilerplateResult) -> list[list[tuple[str, bool]]]:
    """Each page's lines in reading order as ``(text, is a contents entry)``: the kept lines
    and the removed ones, so a list's title tells which entries below it belong to it."""
    pages: list[list[tuple[int, str, bool]]] = [
        [(i, text, False) for i, text in zip(idxs, texts, strict=True)]
        for idxs, texts in zip(bp.kept_indices, bp.kept, strict=True)
    ]
    for r in bp.removed:
        if r.page is not None and r.line is not None and 0 < r.page <= len(pages):
            pages[r.page - 1].append((r.line, r.text, r.kind == "toc"))
    return [[(text, entry) for _, text, entry in sorted(lines)] for lines in pages]


def _extend_last(pages: tuple[Page, ...], end: int) -> tuple[Page, ...]:
    if not pages:
        return pages
    last = pages[-1]
    return (*pages[:-1], Page(last.number, last.label, last.char_start, end))


__all__ = ["ExtractionError", "TextBuilder", "extract_lines", "open_reader", "read_pdf"]
