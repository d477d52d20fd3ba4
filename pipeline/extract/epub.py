"""EPUB → markdown Document: spine order, XHTML converted, headings checked against the nav.

Everything is read from the zip in memory (ebooklib); nothing is written to disk and no
external resource (DTD, stylesheet, image URL) is ever fetched.
"""

from __future__ import annotations

import logging
import posixpath
import re
import zipfile
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag

from ..errors import EmptyDocumentError
from ..model import Document, OutlineEntry, Page
from ..parse.boilerplate import empty_record
from .errors import CorruptFileError, DrmProtectedError
from .pdf_headings import norm_title

log = logging.getLogger("folio.extract")

FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
# zip-bomb guards, checked on the declared sizes before anything is inflated (zipfile
# never inflates an entry past its declared size, so the declared sizes bound memory)
MAX_ENTRY_BYTES = 256 << 20
MAX_TOTAL_BYTES = 1 << 30
MAX_ENTRIES = 50_000
MAX_RATIO = 200  # uncompressed / compressed, for entries over RATIO_FLOOR
RATIO_FLOOR = 16 << 20
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCK = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "header",
        "hgroup",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "ul",
        *_HEADINGS,
    }
)
_SKIP = frozenset({"head", "script", "style", "template", "svg", "math", "object", "iframe"})
_WS = re.compile(r"[ \t\r\n\u00a0]+")
# page-list anchors travel through the conversion as one private-use character each
# (U+F0000 + the page's index) and are taken out, as offsets, when the text is assembled
_MARK_BASE = 0xF0000
_MARK_MAX = 0xFFFFD
_MARKS = re.compile("[\U000f0000-\U000ffffd]+")
_LEADING_MARKER = re.compile(
    "^(\\s*[\U000f0000-\U000ffffd]*)([#>+*\\-=]|\\d{1,9}[.)])(?=\\s|$)", re.MULTILINE
)
_BLOCK_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d{1,9}[.)]\s+|\|\s?)?$")
_INLINE_ESCAPE = re.compile(r"([\\`*<\[\]])")


def _local(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def _attr(el: Any, name: str) -> str:
    for k, v in el.attrib.items():
        if k == name or k.endswith("}" + name):
            return str(v)
    return ""


def _parse_xml(data: bytes) -> Any:
    from lxml import etree, html  # type: ignore[import-untyped,unused-ignore]

    parser = etree.XMLParser(
        recover=True, resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        try:
            root = html.fromstring(data)
        except (etree.ParserError, ValueError):
            return None
    return root


# --- zip safety ----------------------------------------------------------------------------


def check_zip(path: Path) -> None:
    """Raise ``CorruptFileError`` for a zip bomb (by declared sizes and ratios).

    Nothing is ever extracted to disk: entries are read into memory by name, so an
    entry named ``../../x`` or ``/etc/x`` is only a name.
    """
    src = str(path)
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise CorruptFileError(src, f"damaged EPUB zip ({exc})") from exc
    if len(infos) > MAX_ENTRIES:
        raise CorruptFileError(src, f"zip bomb? {len(infos)} entries (limit {MAX_ENTRIES})")
    total = 0
    for info in infos:
        size = info.file_size
        total += size
        if size > MAX_ENTRY_BYTES:
            raise CorruptFileError(
                src,
                f"zip bomb? entry {info.filename!r} declares {size >> 20} MB uncompressed "
                f"(limit {MAX_ENTRY_BYTES >> 20} MB)",
            )
        if size > RATIO_FLOOR and size > MAX_RATIO * max(1, info.compress_size):
            raise CorruptFileError(
                src,
                f"zip bomb? entry {info.filename!r} inflates {size // max(1, info.compress_size)}"
                f"x to {size >> 20} MB",
            )
    if total > MAX_TOTAL_BYTES:
        raise CorruptFileError(
            src,
            f"zip bomb? {total >> 20} MB uncompressed in all (limit {MAX_TOTAL_BYTES >> 20} MB)",
        )


# --- DRM -----------------------------------------------------------------------------------


def check_drm(path: Path) -> None:
    """Raise ``DrmProtectedError`` when content (not just fonts) is encrypted."""
    src = str(path)
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "META-INF/rights.xml" in names:
                raise DrmProtectedError(src, "DRM-protected EPUB (META-INF/rights.xml)")
            if "META-INF/encryption.xml" not in names:
                return
            root = _parse_xml(zf.read("META-INF/encryption.xml"))
    except zipfile.BadZipFile as exc:
        raise CorruptFileError(src, f"damaged EPUB zip ({exc})") from exc
    if root is None:
        raise DrmProtectedError(src, "EPUB with an unreadable META-INF/encryption.xml")
    algos = {_attr(el, "Algorithm") for el in root.iter() if _local(el) == "encryptionmethod"}
    if algos - FONT_OBFUSCATION:
        raise DrmProtectedError(src, "DRM-protected EPUB (content encrypted)")


# --- nav -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NavEntry:
    level: int
    title: str
    file: str | None  # href relative to the OPF directory, without fragment
    fragment: str


def _text(el: Any) -> str:
    return _WS.sub(" ", "".join(el.itertext())).strip()


def _nav_from_xhtml(root: Any, base: str) -> list[NavEntry]:
    navs = [el for el in root.iter() if _local(el) == "nav"]
    toc = next((n for n in navs if "toc" in _attr(n, "type").split()), navs[0] if navs else None)
    if toc is None:
        return []
    out: list[NavEntry] = []

    def walk_list(ol: Any, level: int) -> None:
        for li in ol:
            if _local(li) != "li":
                continue
            label = next((c for c in li if _local(c) in {"a", "span"}), None)
            if label is not None:
                href = _attr(label, "href") if _local(label) == "a" else ""
                out.append(_entry(level, _text(label), href, base))
            for c in li:
                if _local(c) in {"ol", "ul"}:
                    walk_list(c, level + 1)

    for c in toc.iter():
        if _local(c) in {"ol", "ul"}:
            walk_list(c, 1)
            break
    return out


def _nav_from_ncx(root: Any, base: str) -> list[NavEntry]:
    out: list[NavEntry] = []

    def walk(el: Any, level: int) -> None:
        for c in el:
            if _local(c) != "navpoint":
                continue
            label = next((x for x in c.iter() if _local(x) == "text"), None)
            content = next((x for x in c if _local(x) == "content"), None)
            out.append(
                _entry(
                    level,
                    _text(label) if label is not None else "",
                    _attr(content, "src") if content is not None else "",
                    base,
                )
            )
            walk(c, level + 1)

    nav_map = next((x for x in root.iter() if _local(x) == "navmap"), None)
    if nav_map is not None:
        walk(nav_map, 1)
    return out


def _entry(level: int, title: str, href: str, base: str) -> NavEntry:
    if not href:
        return NavEntry(level, title, None, "")
    target, frag = urldefrag(href)
    file = posixpath.normpath(posixpath.join(base, unquote(target))) if target else None
    return NavEntry(level, title, file, unquote(frag))


@dataclass(frozen=True, slots=True)
class PageTarget:
    label: str
    file: str | None
    fragment: str


def _page_list_from_xhtml(root: Any, base: str) -> list[PageTarget]:
    """The ``<nav epub:type="page-list">`` of an EPUB 3 navigation document."""
    nav = next(
        (
            el
            for el in root.iter()
            if _local(el) == "nav" and "page-list" in _attr(el, "type").split()
        ),
        None,
    )
    if nav is None:
        return []
    out: list[PageTarget] = []
    for a in nav.iter():
        if _local(a) == "a" and _attr(a, "href"):
            e = _entry(0, _text(a), _attr(a, "href"), base)
            out.append(PageTarget(e.title, e.file, e.fragment))
    return out


def _page_list_from_ncx(root: Any, base: str) -> list[PageTarget]:
    """The ``<pageList>`` of an NCX."""
    out: list[PageTarget] = []
    for el in root.iter():
        if _local(el) != "pagetarget":
            continue
        label = next((x for x in el.iter() if _local(x) == "text"), None)
        content = next((x for x in el if _local(x) == "content"), None)
        src = _attr(content, "src") if content is not None else ""
        if not src:
            continue
        text = _text(label) if label is not None else _attr(el, "value")
        e = _entry(0, text, src, base)
        out.append(PageTarget(e.title, e.file, e.fragment))
    return out


def _mark_pages(
    root: Any, body: Any, name: str, page_list: list[PageTarget], removed: list[str]
) -> int:
    """Put each page anchor of this file into the tree as its mark character; count them.

    A page-break element that prints its own page number (``<span epub:type="pagebreak">
    169</span>``) loses that number: it is page boilerplate, recorded in ``removed``.
    """
    wanted: dict[str, list[int]] = {}
    n = 0
    for k, t in enumerate(page_list):
        if t.file != name or k > _MARK_MAX - _MARK_BASE:
            continue
        if not t.fragment:
            body.text = chr(_MARK_BASE + k) + (body.text or "")
            n += 1
        else:
            wanted.setdefault(t.fragment, []).append(k)
    if not wanted:
        return n
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        ids = wanted.pop(el.get("id") or "", None)
        if ids is None:
            continue
        marks = "".join(chr(_MARK_BASE + k) for k in ids)
        if _local(el) in _SKIP or _local(el) in {"hr", "img", "br"}:
            el.tail = marks + (el.tail or "")  # the element itself is not rendered
        else:
            printed = _text(el)
            label = page_list[ids[0]].label
            if (
                printed
                and len(el) == 0
                and printed.strip("[]() ").casefold()
                in {
                    label.casefold(),
                    f"page {label}".casefold(),
                    f"p. {label}".casefold(),
                }
            ):
                removed.append(printed)
                el.text = marks
            else:
                el.text = marks + (el.text or "")
        n += len(ids)
        if not wanted:
            break
    return n


def _take_marks(text: str, base: int, found: dict[int, int]) -> str:
    """``text`` without its page marks; each mark's offset (``base`` + position) recorded.

    A mark in front of a block's first content (after ``## ``, ``- ``, ``> ``…) stands
    for the block's start; a mark between two spaces takes one of them with it.
    """
    parts: list[str] = []
    size = 0
    i = 0
    for m in _MARKS.finditer(text):
        chunk = text[i : m.start()]
        parts.append(chunk)
        size += len(chunk)
        first_line = "\n" not in "".join(parts)
        at = 0 if first_line and _BLOCK_PREFIX.match("".join(parts)) else size
        for ch in m.group():
            found.setdefault(ord(ch) - _MARK_BASE, base + at)
        i = m.end()
        if m.start() > 0 and text[m.start() - 1] == " " and i < len(text) and text[i] == " ":
            i += 1
    parts.append(text[i:])
    return "".join(parts)


def _page_map(page_list: list[PageTarget], found: dict[int, int], end: int) -> tuple[Page, ...]:
    """Pages in page-list order; a page whose anchor was never met starts where the next does."""
    n = len(page_list)
    starts: list[int] = [0] * n
    nxt = end
    for k in range(n - 1, -1, -1):
        at = found.get(k)
        nxt = min(nxt, at) if at is not None else nxt
        starts[k] = nxt
    if n:
        starts[0] = 0
    for k in range(1, n):  # reading order wins over a page-list out of order
        starts[k] = max(starts[k], starts[k - 1])
    return tuple(
        Page(
            number=k + 1,
            label=page_list[k].label or None,
            char_start=starts[k],
            char_end=starts[k + 1] if k + 1 < n else end,
        )
        for k in range(n)
    )


# --- XHTML → markdown ------------------------------------------------------------------------


@dataclass(slots=True)
class _Out:
    blocks: list[tuple[str, str, int, str]] = field(default_factory=list)  # kind, text, lvl, title
    pending: list[NavEntry] = field(default_factory=list)
    last_match: tuple[int, int] | None = None  # (html level, nav level) of the last nav heading

    def flush_pending(self) -> None:
        for e in self.pending:
            self.heading(e.level, e.title, from_nav=True)
        self.pending = []

    def heading(self, level: int, title: str, *, from_nav: bool = False, marks: str = "") -> None:
        marks += "".join(_MARKS.findall(title))
        title = " ".join(_MARKS.sub("", title).replace("#", " ").split())
        if title:
            lvl = max(1, min(level, 6))
            self.blocks.append(("heading", marks + "#" * lvl + " " + title, lvl, title))
        elif marks:
            self.blocks.append(("para", marks, 0, ""))

    def para(self, text: str) -> None:
        if text.strip():
            # a nav target flushes before real content, not before a page number or a rule
            if self.pending and (len(text) >= 40 or len(text.split()) >= 6):
                self.flush_pending()
            self.blocks.append(("para", text, 0, ""))


def _escape_inline(text: str) -> str:
    return _INLINE_ESCAPE.sub(r"\\\1", text)


def _inline(el: Any, *, code: bool = False) -> str:
    """Markdown of an element's inline content (text, emphasis, code, links as text)."""
    parts: list[str] = []
    if el.text:
        parts.append(el.text if code else _escape_inline(el.text))
    for c in el:
        parts.append(_render_child(c, code=code))
        if c.tail:
            parts.append(c.tail if code else _escape_inline(c.tail))
    return "".join(parts)


def _render_child(c: Any, *, code: bool = False) -> str:
    """One inline element (without its tail) as markdown."""
    tag = _local(c)
    if tag in _SKIP or not tag:
        return ""
    if tag == "br":
        return "\n"
    if tag == "img":
        alt = _WS.sub(" ", _attr(c, "alt")).strip()
        return f"(image: {_escape_inline(alt)})" if alt else ""
    if tag in {"code", "kbd", "samp", "tt"} and not code:
        inner = _WS.sub(" ", "".join(c.itertext()))
        ticks = "``" if "`" in inner else "`"
        return f"{ticks}{inner}{ticks}" if inner.strip() else ""
    if tag in {"em", "i", "cite", "var", "dfn"} and not code:
        inner = _inline(c).strip()
        return f"*{inner}*" if inner else ""
    if tag in {"strong", "b"} and not code:
        inner = _inline(c).strip()
        return f"**{inner}**" if inner else ""
    return _inline(c, code=code)


def _clean_para(text: str) -> str:
    lines = [_WS.sub(" ", ln).strip() for ln in text.split("\n")]
    out = "\n".join(ln for ln in lines if ln)
    return _LEADING_MARKER.sub(lambda m: m.group(1) + "\\" + m.group(2), out)


def _has_block_child(el: Any) -> bool:
    return any(_local(c) in _BLOCK or _local(c) == "img" for c in el)


class _Converter:
    def __init__(self, targets: dict[str, list[NavEntry]], out: _Out) -> None:
        self.targets = targets
        self.out = out

    def ids_at(self, el: Any, *, deep: bool) -> list[NavEntry]:
        found: list[NavEntry] = []
        nodes: Iterator[Any] = el.iter() if deep else iter([el])
        for node in nodes:
            i = node.get("id") if isinstance(node.tag, str) else None
            if i and i in self.targets:
                found.extend(self.targets.pop(i))
        return found

    def heading(self, el: Any, level: int) -> None:
        title = _WS.sub(" ", _inline(el)).strip()
        marks = "".join(_MARKS.findall(title))
        title = _MARKS.sub("", title).strip()
        navs = self.ids_at(el, deep=True)
        pending = self.out.pending + navs
        self.out.pending = []
        if not title:
            for e in pending:
                self.out.heading(e.level, e.title, from_nav=True, marks=marks)
                marks = ""
            if marks:
                self.out.blocks.append(("para", marks, 0, ""))
            return
        key = norm_title(title)
        match = next((e for e in pending if norm_title(e.title) == key), None)
        if match is None and pending:
            match = pending[-1] if len(pending) == 1 else None
        for e in pending:
            if e is not match:
                self.out.heading(e.level, e.title, from_nav=True)
        if match is not None:
            self.out.last_match = (level, match.level)
            nav_key = norm_title(match.title)
            if nav_key != key and nav_key.startswith(key):
                title = match.title  # "190" + nav "190 A Four-Leaved Clover"
            self.out.heading(match.level, title, marks=marks)
            return
        lm = self.out.last_match
        if lm is not None and level > lm[0]:
            level = lm[1] + (level - lm[0])
        self.out.heading(level, title, marks=marks)

    def block(self, el: Any) -> None:
        tag = _local(el)
        if not tag or tag in _SKIP:
            return
        if tag in _HEADINGS:
            self.heading(el, _HEADINGS[tag])
            return
        self.out.pending.extend(self.ids_at(el, deep=False))
        if tag == "hr":
            return
        if tag == "img":
            alt = _WS.sub(" ", _attr(el, "alt")).strip()
            if alt:
                self.out.para(f"(image: {_escape_inline(alt)})")
            return
        if tag in {"ul", "ol"}:
            self.out.pending.extend(self.ids_at(el, deep=True))
            text = "\n".join(self.list_lines(el, 0))
            self.out.para(text)
            return
        if tag == "table":
            self.out.pending.extend(self.ids_at(el, deep=True))
            self.out.para(self.table(el))
            return
        if tag == "pre":
            self.out.pending.extend(self.ids_at(el, deep=True))
            code = "".join(el.itertext()).strip("\n")
            fence = "```"
            while fence in code:
                fence += "`"
            lang = ""
            for c in [el, *list(el)]:
                m = re.search(r"(?:language|lang)-([\w+#-]+)", _attr(c, "class"))
                if m:
                    lang = m.group(1)
                    break
            self.out.para(f"{fence}{lang}\n{code}\n{fence}")
            return
        if tag == "blockquote":
            sub = _Out(pending=self.out.pending)
            self.out.pending = []
            _Converter(self.targets, sub).children(el)
            for kind, text, lvl, title in sub.blocks:
                if kind == "heading":
                    self.out.blocks.append((kind, text, lvl, title))
                else:
                    self.out.para("\n".join("> " + ln if ln else ">" for ln in text.split("\n")))
            self.out.pending.extend(sub.pending)
            return
        if not _has_block_child(el):
            self.out.pending.extend(self.ids_at(el, deep=True))
            self.out.para(_clean_para(_inline(el)))
            return
        self.children(el)

    def children(self, el: Any) -> None:
        buf: list[str] = []
        if el.text and el.text.strip():
            buf.append(_escape_inline(el.text))
        for c in el:
            tag = _local(c)
            if tag in _BLOCK or tag == "img" or tag in _SKIP:
                if buf:
                    self.out.para(_clean_para("".join(buf)))
                    buf = []
                self.block(c)
            elif tag:
                self.out.pending.extend(self.ids_at(c, deep=True))
                buf.append(_render_child(c))
            if c.tail and c.tail.strip():
                buf.append(_escape_inline(c.tail))
        if buf:
            self.out.para(_clean_para("".join(buf)))

    def list_lines(self, el: Any, depth: int) -> list[str]:
        ordered = _local(el) == "ol"
        lines: list[str] = []
        n = 0
        for li in el:
            if _local(li) != "li":
                continue
            n += 1
            marker = f"{n}." if ordered else "-"
            pad = "   " * depth if ordered else "  " * depth
            nested = [c for c in li if _local(c) in {"ul", "ol"}]
            text = _clean_para(_inline_flat(li, skip=("ul", "ol"))).replace("\n", " ")
            lines.append(f"{pad}{marker} {text}".rstrip())
            for sub in nested:
                lines.extend(self.list_lines(sub, depth + 1))
        return lines

    def table(self, el: Any) -> str:
        rows: list[list[str]] = []
        for tr in el.iter():
            if _local(tr) != "tr":
                continue
            cells: list[str] = []
            for td in tr:
                if _local(td) not in {"td", "th"}:
                    continue
                text = _clean_para(_inline_flat(td)).replace("\n", " ").replace("|", "\\|")
                cells.append(text)
                span = _attr(td, "colspan")
                if span.isdigit():
                    cells.extend([""] * (min(int(span), 50) - 1))
            if cells:
                rows.append(cells)
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines)


def _inline_flat(el: Any, skip: tuple[str, ...] = ()) -> str:
    """Inline markdown of an element, flattening any block children into spaces."""
    parts: list[str] = []
    if el.text:
        parts.append(_escape_inline(el.text))
    for c in el:
        tag = _local(c)
        if tag in skip:
            pass
        elif tag in _BLOCK:
            parts.append(" " + _inline_flat(c) + " ")
        else:
            parts.append(_render_child(c))
        if c.tail:
            parts.append(_escape_inline(c.tail))
    return "".join(parts)


# --- the reader ------------------------------------------------------------------------------


def _meta(book: Any, name: str) -> list[str]:
    try:
        return [" ".join(str(v).split()) for v, _ in book.get_metadata("DC", name) if v]
    except Exception:
        return []


class _MissingPackage(Exception):
    """The package document (OPF) named by container.xml is not in the zip."""


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
                    raise _MissingPackage(name) from None
                missing.append(name)
                return b""
            return data

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = Reader(src, {"ignore_ncx": False})
        book = reader.load()
        reader.process()
    return book, missing


def read_epub(path: str | Path, *, use_nav: bool = True) -> Document:
    p = Path(path)
    src = str(path)
    check_zip(p)
    check_drm(p)
    try:
        book, missing_files = _load_book(src)
    except ImportError as exc:
        raise CorruptFileError(src, "reading EPUB needs ebooklib: pip install ebooklib") from exc
    except MemoryError:
        raise
    except _MissingPackage as exc:
        raise CorruptFileError(
            src, f"not a readable EPUB: its package document {exc} is missing"
        ) from exc
    except Exception as exc:
        raise CorruptFileError(src, f"not a readable EPUB ({type(exc).__name__}: {exc})") from exc
    if missing_files:
        log.warning(
            "%s: %d file(s) named in the manifest are missing: %s",
            src,
            len(missing_files),
            missing_files[:3],
        )

    opf_dir = posixpath.dirname(getattr(book, "FOLDER_NAME", "") or "")
    items = {it.get_name(): it for it in book.get_items()}
    nav_item = next((it for it in items.values() if type(it).__name__ == "EpubNav"), None)
    ncx_item = next(
        (it for it in items.values() if it.media_type == "application/x-dtbncx+xml"), None
    )
    nav: list[NavEntry] = []
    nav_source = ""
    for it, kind in ((nav_item, "nav"), (ncx_item, "ncx")):
        if it is None or nav:
            continue
        root = _parse_xml(getattr(it, "content", None) or it.get_content())
        if root is None:
            continue
        base = posixpath.dirname(it.get_name())
        nav = _nav_from_xhtml(root, base) if kind == "nav" else _nav_from_ncx(root, base)
        nav_source = f"{kind}:{it.get_name()}"
    page_list: list[PageTarget] = []
    page_list_source = ""
    for it, kind in ((nav_item, "nav"), (ncx_item, "ncx")):
        if it is None or page_list:
            continue
        root = _parse_xml(getattr(it, "content", None) or it.get_content())
        if root is None:
            continue
        base = posixpath.dirname(it.get_name())
        page_list = (
            _page_list_from_xhtml(root, base) if kind == "nav" else _page_list_from_ncx(root, base)
        )
        page_list_source = f"{kind}:{it.get_name()}" if page_list else ""
    # entries without a link point where their first child points
    fixed: list[NavEntry] = []
    for i, e in enumerate(nav):
        if e.file is None:
            nxt = next((x for x in nav[i + 1 :] if x.file is not None), None)
            if nxt is None:
                continue
            e = NavEntry(e.level, e.title, nxt.file, nxt.fragment)
        fixed.append(e)
    nav = [e for e in fixed if e.title]
    del opf_dir

    spine_docs: list[Any] = []
    for idref, _linear in book.spine:
        it = book.get_item_with_id(idref)
        if it is None or it is nav_item:
            continue
        if it.media_type not in {"application/xhtml+xml", "text/html", "application/html"}:
            continue
        spine_docs.append(it)

    out = _Out()
    printed_numbers: list[str] = []
    removed_nav = (
        1 if nav_item is not None and any(idref == nav_item.id for idref, _ in book.spine) else 0
    )
    for it in spine_docs:
        name = it.get_name()
        raw = getattr(it, "content", None) or it.get_content()  # as stored, head included
        if not raw:
            continue  # missing from the zip (logged above) or empty
        root = _parse_xml(raw)
        if root is None:
            log.warning("%s: unreadable chapter %s skipped", src, name)
            continue
        body = next((el for el in root.iter() if _local(el) == "body"), root)
        if page_list:
            _mark_pages(root, body, name, page_list, printed_numbers)
        targets: dict[str, list[NavEntry]] = {}
        file_entries: list[NavEntry] = []
        if use_nav:
            for e in nav:
                if e.file == name:
                    if e.fragment:
                        targets.setdefault(e.fragment, []).append(e)
                    else:
                        file_entries.append(e)
        start = len(out.blocks)
        out.pending = list(file_entries)
        out.last_match = None
        conv = _Converter(targets, out)
        conv.children(body)
        leftover = out.pending + [e for es in targets.values() for e in es]
        out.pending = []
        for e in leftover:  # targets never met: at the end of the chapter
            out.heading(e.level, e.title, from_nav=True)
        chapter = out.blocks[start:]
        if chapter and not any(k == "heading" for k, *_ in chapter):
            title = _chapter_title(root) or posixpath.splitext(posixpath.basename(name))[0]
            out.blocks.insert(start, ("heading", f"# {title}", 1, title))

    parts: list[str] = []
    outline: list[OutlineEntry] = []
    found: dict[int, int] = {}
    waiting: list[int] = []  # marks of blocks left empty: they start the next block
    pos = 0
    for kind, text, lvl, title in out.blocks:
        here: dict[int, int] = {}
        if page_list:
            text = _take_marks(text, pos + (2 if parts else 0), here)
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
        if kind == "heading":
            outline.append(OutlineEntry(lvl, title, None, pos))
        parts.append(text)
        pos += len(text)
    for k in waiting:
        found.setdefault(k, pos)
    text_out = "".join(parts)
    if not text_out.strip():
        raise EmptyDocumentError(src, "the EPUB has no text")
    if all(kind == "heading" for kind, *_ in out.blocks):
        raise EmptyDocumentError(src, "the EPUB has no text (only headings from its navigation)")
    pages = _page_map(page_list, found, len(text_out) + 1) if page_list else ()
    if pages:
        starts = [pg.char_start for pg in pages]
        outline = [
            OutlineEntry(
                e.level,
                e.title,
                pages[max(0, bisect_right(starts, e.char_start or 0) - 1)].number,
                e.char_start,
            )
            for e in outline
        ]
    titles = _meta(book, "title")
    authors = _meta(book, "creator")
    title = titles[0] if titles else p.stem
    boiler = empty_record()
    if removed_nav:
        boiler["counts"]["toc"] = removed_nav
        boiler["removed"].append(
            {
                "page": None,
                "line": None,
                "kind": "toc",
                "text": f"navigation document {nav_item.get_name() if nav_item else ''}",
            }
        )
    if printed_numbers:
        boiler["counts"]["page_number"] = len(printed_numbers)
        boiler["removed"].extend(
            {"page": None, "line": None, "kind": "page_number", "text": t} for t in printed_numbers
        )
    return Document(
        text=text_out + "\n",
        source=src,
        format="epub",
        markup="markdown",
        title=title,
        heading_mode="outline" if use_nav and nav else "markdown",
        pages=pages,
        outline=tuple(outline),
        metadata={
            "title": title,
            "subtitle": titles[1] if len(titles) > 1 else "",
            "author": ", ".join(authors),
            "language": (_meta(book, "language") or [""])[0],
            "publisher": (_meta(book, "publisher") or [""])[0],
            "identifier": (_meta(book, "identifier") or [""])[0],
            "date": (_meta(book, "date") or [""])[0],
            "page_count": len(pages) if pages else None,
            "page_list_source": page_list_source,
            "page_list_entries": len(page_list),
            "page_anchors_missing": len(page_list) - len(found) if page_list else 0,
            "chapters": len(spine_docs),
            "missing_files": missing_files,
            "nav_entries": len(nav),
            "nav_source": nav_source,
            "backend": "epub",
            "heading_mode": "outline" if use_nav and nav else "markdown",
            "boilerplate": boiler,
        },
    )


def _chapter_title(root: Any) -> str:
    t = next((el for el in root.iter() if _local(el) == "title"), None)
    return _text(t) if t is not None else ""


__all__ = ["NavEntry", "check_drm", "read_epub"]
