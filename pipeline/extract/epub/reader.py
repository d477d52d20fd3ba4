"""EPUB → markdown Document: spine order, XHTML converted, headings placed against the nav.

Everything is read from the zip in memory (ebooklib); nothing is written to disk and no
external resource (DTD, stylesheet, image URL) is ever fetched.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import CorruptFileError, EmptyDocumentError
from ...model import Document, HeadingMode, OutlineEntry, Page, RemovedLine, SourceInfo
from ...text.titles import norm_title, plain_title
from .dom import local, parse_xml, text_of
from .headings import BookOut, MdBlock
from .nav import Nav, NavEntry, read_nav
from .pages import mark_pages, page_map, take_marks
from .safety import check_drm, check_zip
from .xhtml import Converter

log = logging.getLogger("folio.extract")

_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/html"})


def _meta(book: Any, name: str) -> list[str]:
    try:
        return [" ".join(str(v).split()) for v, _ in book.get_metadata("DC", name) if v]
    except Exception:
        return []


def _load_book(src: str) -> tuple[Any, list[str]]:
    """The ebooklib book, and the manifest files missing from the zip (read as empty:
    a spine that names a missing file loses that chapter, not the whole book)."""
    import warnings

    from ebooklib import epub  # type: ignore[import-untyped,unused-ignore]

    missing: list[str] = []

    class Reader(epub.EpubReader):  # type: ignore[misc]
        def read_file(self, name: str) -> bytes:
            try:
                data: bytes = super().read_file(name)
            except KeyError:
                if name == "META-INF/container.xml" or not self.opf_file:
                    raise
                if name == self.opf_file:
                    msg = f"not a readable EPUB: its package document {name} is missing"
                    raise CorruptFileError(src, msg) from None
                missing.append(name)
                return b""
            return data

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = Reader(src, {"ignore_ncx": False})
        book = reader.load()
        reader.process()
    return book, missing


def _open_book(src: str) -> tuple[Any, list[str]]:
    """``_load_book`` with every failure as a ``CorruptFileError`` naming the file."""
    try:
        book, missing_files = _load_book(src)
    except ImportError as exc:
        raise CorruptFileError(src, "reading EPUB needs ebooklib: pip install ebooklib") from exc
    except MemoryError:
        raise
    except CorruptFileError:
        raise
    except Exception as exc:
        raise CorruptFileError(src, f"not a readable EPUB ({type(exc).__name__}: {exc})") from exc
    if missing_files:
        log.warning(
            "%s: %d file(s) named in the manifest are missing: %s",
            src,
            len(missing_files),
            missing_files[:3],
        )
    return book, missing_files


def _spine_docs(book: Any, nav_item: Any) -> list[Any]:
    """The XHTML documents of the spine, in reading order, the nav document left out."""
    docs: list[Any] = []
    for idref, _linear in book.spine:
        it = book.get_item_with_id(idref)
        if it is not None and it is not nav_item and it.media_type in _HTML_TYPES:
            docs.append(it)
    return docs


def _targets(
    nav: tuple[NavEntry, ...], name: str
) -> tuple[dict[str, list[NavEntry]], list[NavEntry]]:
    """The nav entries pointing into file ``name``: by fragment id, and at the file itself."""
    targets: dict[str, list[NavEntry]] = {}
    whole: list[NavEntry] = []
    for e in nav:
        if e.file == name:
            if e.fragment:
                targets.setdefault(e.fragment, []).append(e)
            else:
                whole.append(e)
    return targets, whole


def _convert_spine(
    src: str, docs: list[Any], nav: Nav, book_title: str, use_nav: bool
) -> tuple[list[MdBlock], list[str]]:
    """Markdown blocks of the whole spine, and the printed page numbers taken out."""
    out = BookOut()
    printed_numbers: list[str] = []
    book_key = norm_title(book_title)
    for it in docs:
        name = it.get_name()
        raw = getattr(it, "content", None) or it.get_content()  # as stored, head included
        if not raw:
            continue  # missing from the zip (logged above) or empty
        root = parse_xml(raw)
        if root is None:
            log.warning("%s: unreadable chapter %s skipped", src, name)
            continue
        body = next((el for el in root.iter() if local(el) == "body"), root)
        if nav.page_list:
            mark_pages(root, body, name, list(nav.page_list), printed_numbers)
        targets, whole = _targets(nav.entries, name) if use_nav else ({}, [])
        out.start_file(whole)
        Converter(targets, out).children(body)
        leftover = [e for es in targets.values() for e in es]  # never met: at the end
        out.end_file(leftover, _title_tag(root), book_key)
    return out.blocks, printed_numbers


def _title_tag(root: Any) -> str:
    t = next((el for el in root.iter() if local(el) == "title"), None)
    return plain_title(text_of(t)) if t is not None else ""


@dataclass(frozen=True, slots=True)
class _Text:
    text: str
    outline: tuple[OutlineEntry, ...]
    page_starts: dict[int, int]  # page-list index -> offset where its anchor was met


def _assemble(blocks: list[MdBlock], paged: bool) -> _Text:
    """The blocks joined by blank lines, page marks taken out as offsets."""
    parts: list[str] = []
    outline: list[OutlineEntry] = []
    found: dict[int, int] = {}
    waiting: list[int] = []  # marks of blocks left empty: they start the next block
    pos = 0
    for b in blocks:
        here: dict[int, int] = {}
        text = take_marks(b.text, pos + (2 if parts else 0), here) if paged else b.text
        if not text.strip():
            waiting.extend(here)
            continue
        if parts:
            parts.append("\n\n")
            pos += 2
        for k in waiting:
            found.setdefault(k, pos)
        waiting = []
        for k, at in here.items():
            found.setdefault(k, at)
        if b.kind == "heading":
            outline.append(OutlineEntry(b.level, b.title, None, pos))
        parts.append(text)
        pos += len(text)
    for k in waiting:
        found.setdefault(k, pos)
    return _Text("".join(parts), tuple(outline), found)


def _paged_outline(
    outline: tuple[OutlineEntry, ...], pages: tuple[Page, ...]
) -> tuple[OutlineEntry, ...]:
    if not pages:
        return outline
    starts = [pg.char_start for pg in pages]
    return tuple(
        OutlineEntry(
            e.level,
            e.title,
            pages[max(0, bisect_right(starts, e.char_start or 0) - 1)].number,
            e.char_start,
        )
        for e in outline
    )


def _boilerplate(
    nav_item: Any, in_spine: bool, printed_numbers: list[str]
) -> tuple[RemovedLine, ...]:
    """The navigation document when the spine holds it, and printed page numbers."""
    nav = f"navigation document {nav_item.get_name() if nav_item else ''}"
    toc = (RemovedLine(None, None, "toc", nav),) if in_spine else ()
    return toc + tuple(RemovedLine(None, None, "page_number", t) for t in printed_numbers)


def read_epub(path: str | Path, *, use_nav: bool = True) -> Document:
    p = Path(path)
    src = str(path)
    check_zip(p)
    check_drm(p)
    book, missing_files = _open_book(src)
    items = list(book.get_items())
    nav_item = next((it for it in items if type(it).__name__ == "EpubNav"), None)
    ncx_item = next((it for it in items if it.media_type == "application/x-dtbncx+xml"), None)
    nav = read_nav(nav_item, ncx_item)
    titles = _meta(book, "title")
    title = titles[0] if titles else p.stem
    docs = _spine_docs(book, nav_item)
    blocks, printed_numbers = _convert_spine(src, docs, nav, title, use_nav)
    assembled = _assemble(blocks, bool(nav.page_list))
    if not assembled.text.strip():
        raise EmptyDocumentError(src, "the EPUB has no text")
    if all(b.kind == "heading" for b in blocks):
        raise EmptyDocumentError(src, "the EPUB has no text (only headings from its navigation)")
    text = assembled.text
    pages = (
        page_map(list(nav.page_list), assembled.page_starts, len(text) + 1) if nav.page_list else ()
    )
    mode: HeadingMode = "outline" if use_nav and nav.entries else "markdown"
    in_spine = nav_item is not None and any(idref == nav_item.id for idref, _ in book.spine)
    extra = _book_meta(book, titles) | {
        "page_list_source": nav.page_list_source,
        "page_list_entries": len(nav.page_list),
        "page_anchors_missing": (
            len(nav.page_list) - len(assembled.page_starts) if nav.page_list else 0
        ),
        "chapters": len(docs),
        "missing_files": missing_files,
        "nav_entries": len(nav.entries),
        "nav_source": nav.source,
    }
    info = SourceInfo(
        backend="epub",
        author=", ".join(_meta(book, "creator")),
        page_count=len(pages) if pages else None,
        boilerplate=_boilerplate(nav_item, in_spine, printed_numbers),
        extra=extra,
    )
    return Document(
        text=text + "\n",
        source=src,
        format="epub",
        markup="markdown",
        title=title,
        heading_mode=mode,
        pages=pages,
        outline=_paged_outline(assembled.outline, pages),
        info=info,
    )


def _book_meta(book: Any, titles: list[str]) -> dict[str, Any]:
    """The Dublin Core fields of the package document (the author is typed apart)."""
    return {
        "subtitle": titles[1] if len(titles) > 1 else "",
        "language": (_meta(book, "language") or [""])[0],
        "publisher": (_meta(book, "publisher") or [""])[0],
        "identifier": (_meta(book, "identifier") or [""])[0],
        "date": (_meta(book, "date") or [""])[0],
    }


__all__ = ["NavEntry", "check_drm", "read_epub"]
