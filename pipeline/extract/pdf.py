"""PDF → Document: lines with layout, boilerplate removed, headings, paragraphs.

The text layer is read by PDFium (``pdfium_text``; pypdf's visitor path stays available
as ``layer="pypdf"``); outline, page labels, metadata and encryption come from pypdf.

Headings, best first: the PDF outline (bookmarks placed on their pages), font-size
evidence, flat-text heuristics (``pipeline.text.heading_lines.find_headings``). The text is
flat (``markup="text"``): paragraphs separated by blank lines, headings as ATX lines.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Literal

from ..errors import (
    CorruptFileError,
    EmptyDocumentError,
    EncryptedError,
    ExtractionError,
    NoTextLayerError,
)
from ..limits import die_with_parent
from ..model import Document, HeadingMode, OutlineEntry, Page
from ..text.heading_lines import find_headings
from .boilerplate import detect_boilerplate
from .gfm import pipe_table
from .layout import Line, LineCollector, continues, join_pair, page_stats, vocabulary
from .pdf_contents import printed_contents
from .pdf_headings import (
    HeadingPlan,
    OutlineItem,
    Placed,
    clean_heading,
    plan_from_fonts,
    plan_from_outline,
)
from .pdf_statements import find_statements
from .pdf_tables import Table, find_tables
from .pdf_title import pdf_title

log = logging.getLogger("folio.extract")

PARALLEL_MIN_PAGES = 48  # below this a process pool costs more than it saves
TextLayer = Literal["pdfium", "pypdf"]
_ESCAPE_HASH = re.compile(r"^(\s{0,3})#", re.MULTILINE)
_BACKTICKS = re.compile(r"`{3,}")
MONO_GLYPH_EM = 0.6  # advance width of a monospaced glyph, in font sizes
# one monospaced line alone is code when it holds syntax, not when it is a bare name (an
# option or a file set as a label)
_CODE_SIGN = re.compile(r"[{}()\[\];=<>\\|$@]|::|->|\w\.\w+\(")
_NO_TEXT_HINT = "no text layer — scanned? try the marker backend (--pdf-backend marker)"


# --- opening -------------------------------------------------------------------------------


def open_reader(path: Path, password: str | None = None) -> Any:
    """A decrypted ``PdfReader`` or a typed error (encrypted, corrupt)."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

    src = str(path)
    try:
        reader = PdfReader(path, strict=False)
    except (PdfReadError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise CorruptFileError(src, f"not a readable PDF ({exc})") from exc
    except Exception as exc:  # pypdf raises many kinds on damaged input
        raise CorruptFileError(src, f"not a readable PDF ({type(exc).__name__}: {exc})") from exc
    if reader.is_encrypted:
        try:
            ok = reader.decrypt(password or "")
        except DependencyError as exc:
            raise EncryptedError(
                src, "AES-encrypted PDF; install 'cryptography' to open it"
            ) from exc
        except (FileNotDecryptedError, NotImplementedError, PdfReadError) as exc:
            raise EncryptedError(src, f"encrypted PDF that cannot be opened ({exc})") from exc
        except Exception as exc:
            raise EncryptedError(src, f"encrypted PDF that cannot be opened ({exc})") from exc
        if not ok:
            raise EncryptedError(src, "password protected (the PDF needs a user password)")
    try:
        n = len(reader.pages)
    except Exception as exc:
        raise CorruptFileError(src, f"damaged page tree ({type(exc).__name__}: {exc})") from exc
    if n == 0:
        raise EmptyDocumentError(src, "the PDF has no pages")
    return reader


# --- per-page extraction (runs in worker processes for large files) ----------------------


def _page_lines(page: Any) -> list[Line]:
    collector = LineCollector()
    page.extract_text(visitor_text=collector)
    return collector.finish()


def _page_has_images(page: Any) -> bool:
    try:
        res = page.get("/Resources")
        xobjects = res.get_object().get("/XObject") if res is not None else None
        if xobjects is None:
            return False
        xobjects = xobjects.get_object()
        return any(xobjects[name].get_object().get("/Subtype") == "/Image" for name in xobjects)
    except Exception:
        return False


def _extract_range(
    path: str, password: str | None, start: int, stop: int, layer: TextLayer = "pdfium"
) -> list[Any]:
    """Worker: lines of pages ``start..stop``; an error message in place of a bad page."""
    if layer == "pdfium":
        return _pdfium_range(Path(path), password, start, stop)
    reader = open_reader(Path(path), password)
    return [_extract_one(reader, i) for i in range(start, stop)]


def _pdfium_range(path: Path, password: str | None, start: int, stop: int) -> list[Any]:
    from .pdfium_text import open_document, pages_lines

    try:
        doc = open_document(path, password)
    except Exception as exc:  # pypdf opened it: PDFium's view of a damaged file differs
        return [f"{type(exc).__name__}: {exc}"] * (stop - start)
    try:
        return pages_lines(doc, start, stop)
    finally:
        doc.close()


def _extract_one(reader: Any, i: int) -> list[Line] | str:
    try:
        return _page_lines(reader.pages[i])
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def default_workers(n_pages: int) -> int:
    """Processes worth starting: one per idle core, up to 4, from ``PARALLEL_MIN_PAGES``.

    The pool's own cost is small (each worker re-opens the file: ~0.3 s for a 350-page
    manual; pickling the lines back: ~0.15 s), so it pays whenever a core is idle: with
    PDFium, 2 processes read the corpus PDFs in 4.05 s against 5.09 s in-line (the
    46-page kaobook manual 0.22 s against 0.28 s). On a machine already busy (1-minute
    load ≥ cores) a second process only takes turns with the first, so the pages are
    read in-line. The output is the same either way.
    """
    if n_pages < PARALLEL_MIN_PAGES:
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
    reader: Any,
    *,
    workers: int | None = None,
    password: str | None = None,
    layer: TextLayer = "pdfium",
) -> list[list[Line] | str]:
    """Lines of every page, in order; a page that failed gives its error message instead."""
    n = len(reader.pages)
    if workers is None:
        workers = default_workers(n)
    workers = min(workers, n)

    def here(a: int, b: int) -> list[list[Line] | str]:
        if layer == "pdfium":
            return _pdfium_range(path, password, a, b)
        return [_extract_one(reader, i) for i in range(a, b)]

    if workers <= 1 or n < 2:
        return here(0, n)
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
            out = here(*ranges[0])
            for fut in futures:
                out.extend(fut.result())
    except (OSError, RuntimeError) as exc:  # no processes here: do it in-line
        log.info("process pool unavailable (%s); extracting in one process", exc)
        return here(0, n)
    return out


# --- outline -------------------------------------------------------------------------------


def read_outline(reader: Any) -> list[OutlineItem]:
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
            top: float | None
            try:
                raw_top = node.get("/Top")
                top = float(raw_top) if raw_top is not None else None
            except (TypeError, ValueError):
                top = None
            items.append(OutlineItem(depth + 1, title, int(page), top))

    try:
        walk(reader.outline, 0)
    except Exception as exc:
        log.info("unreadable PDF outline ignored: %s", exc)
        return []
    return items


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

    def paragraph(self, pieces: Sequence[tuple[int, str]], vocab: set[str], mono: bool) -> None:
        if not pieces:
            return
        self._sep()
        # join, remembering where each page's first piece starts in the joined string
        joined = ""
        starts: list[tuple[int, int]] = []
        for page, text in pieces:
            if not joined:
                starts.append((page, 0))
                joined = text
                continue
            new = joined + "\n" + text if mono else join_pair(joined, text, vocab)
            starts.append((page, len(new) - len(text)))
            joined = new
        escaped = _ESCAPE_HASH.sub(r"\1\\#", joined)
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


def assemble(
    pages: Sequence[Sequence[Line]], plan: HeadingPlan, n_pages: int, labels: Sequence[str | None]
) -> tuple[str, tuple[Page, ...], tuple[OutlineEntry, ...]]:
    vocab = vocabulary(ln.text for lines in pages for ln in lines)
    b = TextBuilder(n_pages)
    para: list[tuple[int, str]] = []
    para_x: list[tuple[float, float]] = []  # each line's left edge and font size
    para_mono = False
    prev: Line | None = None
    prev_page = -1

    def flush() -> None:
        nonlocal para, para_x, prev
        if para_mono and para and (len(para) > 1 or _CODE_SIGN.search(para[0][1])):
            b.code(indent_code(para, para_x))
        else:
            b.paragraph(para, vocab, para_mono)
        para, para_x = [], []
        prev = None

    for p, lines in enumerate(pages):
        stats = page_stats(lines)
        at = plan.at.get(p, {})
        inserted = plan.inserted.get(p, {})
        blocked = {i + k for i, pl in at.items() for k in range(pl.span)} | set(inserted)
        tables, captions = _page_tables(lines, blocked)
        skip_until = caption_end = -1
        for i, line in enumerate(lines):
            for level, title in inserted.get(i, ()):
                flush()
                b.heading(p, level, title)
            if i < skip_until:
                continue
            if i in captions:  # a table's title and units: a paragraph of their own
                flush()
                caption_end = captions[i]
            table = tables.get(i)
            if table is not None:
                flush()
                b.table(p, pipe_table(table.rows))
                skip_until = table.end
                continue
            placed: Placed | None = at.get(i)
            if placed is not None:
                flush()
                b.heading(p, placed.level, placed.title)
                skip_until = i + placed.span
                if placed.split:
                    rest = line.text[placed.split :].lstrip(" .:—–")
                    if rest:
                        line = line._replace(text=rest)
                        skip_until = i + 1
                        para, para_mono, prev, prev_page = [(p, rest)], line.mono, line, p
                        para_x = [(line.x, line.size)]
                continue
            if prev is not None and not (
                i < caption_end or continues(prev, line, stats, same_page=prev_page == p)
            ):
                flush()
            if not para:
                para_mono = line.mono
            para.append((p, line.text))
            para_x.append((line.x, line.size))
            prev, prev_page = line, p
        for level, title in inserted.get(len(lines), ()):
            flush()
            b.heading(p, level, title)
    flush()
    text, page_map = b.finish(labels)
    return text, page_map, tuple(b.outline)


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


def _metadata_str(info: Any, key: str) -> str:
    try:
        v = info.get(key) if info is not None else None
    except Exception:
        return ""
    return " ".join(str(v).split()) if v is not None else ""


def read_pdf(
    path: str | Path,
    *,
    use_outline: bool = True,
    password: str | None = None,
    workers: int | None = None,
    layer: TextLayer = "pdfium",
) -> Document:
    """Extract a PDF: the text layer read by PDFium (or pypdf), the structure (outline,
    page labels, metadata, encryption) by pypdf. Raises a typed ``ExtractionError``."""
    p = Path(path)
    src = str(path)
    reader = open_reader(p, password)
    n_pages = len(reader.pages)
    results = extract_lines(p, reader, workers=workers, password=password, layer=layer)
    if layer == "pdfium" and all(isinstance(r, str) for r in results):
        # PDFium could not read a file pypdf opened (damage they tolerate differently):
        # pypdf's own text layer is the fallback, and the metadata says so.
        log.warning("%s: PDFium read no page (%s); using pypdf's text layer", src, results[0])
        layer = "pypdf"
        results = extract_lines(p, reader, workers=workers, password=password, layer=layer)
    failed = [(i + 1, r) for i, r in enumerate(results) if isinstance(r, str)]
    pages: list[list[Line]] = [r if isinstance(r, list) else [] for r in results]
    if failed and len(failed) == n_pages:
        raise CorruptFileError(src, f"no page could be read ({failed[0][1]})")
    if failed:
        log.warning("%s: %d damaged page(s) skipped: %s", src, len(failed), failed[:3])

    chars = [sum(len(ln.text) for ln in lines) for lines in pages]
    total = sum(chars)
    blank = [i for i, c in enumerate(chars) if c < 5]
    if total == 0 or (len(blank) >= max(1, n_pages // 2) and total < 60 * n_pages):
        if any(_page_has_images(reader.pages[i]) for i in blank[:20]):
            raise NoTextLayerError(src, _NO_TEXT_HINT)
        if total == 0:
            raise EmptyDocumentError(src, "the PDF contains no text")

    bp = detect_boilerplate([[ln.text for ln in lines] for lines in pages])
    kept: list[list[Line]] = [[pages[p][i] for i in idxs] for p, idxs in enumerate(bp.kept_indices)]

    mode: HeadingMode = "heuristic"
    plan: HeadingPlan | None = None
    outline_items = read_outline(reader) if use_outline else []
    if outline_items:
        plan = plan_from_outline(kept, outline_items)
        mode = "outline"
    if plan is None or not len(plan):
        contents = printed_contents(r.text for r in bp.removed if r.kind == "toc")
        fonts = plan_from_fonts(kept, contents=contents)
        if len(fonts):
            plan, mode = fonts, "fonts"
    if plan is None or not len(plan):
        plan = _heuristic_plan(kept)
        mode = "heuristic"

    try:
        labels: list[str | None] = list(reader.page_labels)
    except Exception:
        labels = [None] * n_pages
    text, page_map, outline = assemble(kept, plan, n_pages, labels)
    if not text.strip():
        raise EmptyDocumentError(src, "no text left after removing page boilerplate")

    info = None
    try:
        info = reader.metadata
    except Exception:
        info = None
    meta_title = _metadata_str(info, "/Title")
    title = pdf_title(meta_title, pages[:2], p.stem)
    metadata: dict[str, Any] = {
        "title": title,
        "metadata_title": meta_title,
        "author": _metadata_str(info, "/Author"),
        "subject": _metadata_str(info, "/Subject"),
        "keywords": _metadata_str(info, "/Keywords"),
        "creator": _metadata_str(info, "/Creator"),
        "producer": _metadata_str(info, "/Producer"),
        "created": _metadata_str(info, "/CreationDate"),
        "page_count": n_pages,
        "backend": layer,
        "heading_mode": mode,
        "outline_entries": len(outline_items),
        "outline_found": plan.found if mode == "outline" else None,
        "encrypted": bool(reader.is_encrypted),
        "boilerplate": bp.to_metadata(),
    }
    if failed:
        metadata["damaged_pages"] = [n for n, _ in failed]
    return Document(
        text=text + "\n",
        source=src,
        format="pdf",
        markup="text",
        title=title,
        heading_mode=mode,
        pages=_extend_last(page_map, len(text) + 1),
        outline=outline,
        metadata=metadata,
    )


def _extend_last(pages: tuple[Page, ...], end: int) -> tuple[Page, ...]:
    if not pages:
        return pages
    last = pages[-1]
    return (*pages[:-1], Page(last.number, last.label, last.char_start, end))


__all__ = ["ExtractionError", "TextBuilder", "open_reader", "read_outline", "read_pdf"]
