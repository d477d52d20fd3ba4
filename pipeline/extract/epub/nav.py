"""The EPUB's table of contents (EPUB 3 nav or NCX) and its page list, as flat entries."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urldefrag

from ...text.titles import plain_title
from .dom import attr, local, parse_xml, text_of


@dataclass(frozen=True, slots=True)
class NavEntry:
    level: int
    title: str
    file: str | None  # href relative to the OPF directory, without fragment
    fragment: str


def _nav_from_xhtml(root: Any, base: str) -> list[NavEntry]:
    navs = [el for el in root.iter() if local(el) == "nav"]
    toc = next((n for n in navs if "toc" in attr(n, "type").split()), navs[0] if navs else None)
    if toc is None:
        return []
    out: list[NavEntry] = []

    def walk_list(ol: Any, level: int) -> None:
        for li in ol:
            if local(li) != "li":
                continue
            label = next((c for c in li if local(c) in {"a", "span"}), None)
            if label is not None:
                href = attr(label, "href") if local(label) == "a" else ""
                out.append(_entry(level, text_of(label), href, base))
            for c in li:
                if local(c) in {"ol", "ul"}:
                    walk_list(c, level + 1)

    for c in toc.iter():
        if local(c) in {"ol", "ul"}:
            walk_list(c, 1)
            break
    return out


def _nav_from_ncx(root: Any, base: str) -> list[NavEntry]:
    out: list[NavEntry] = []

    def walk(el: Any, level: int) -> None:
        for c in el:
            if local(c) != "navpoint":
                continue
            label = next((x for x in c.iter() if local(x) == "text"), None)
            content = next((x for x in c if local(x) == "content"), None)
            out.append(
                _entry(
                    level,
                    text_of(label) if label is not None else "",
                    attr(content, "src") if content is not None else "",
                    base,
                )
            )
            walk(c, level + 1)

    nav_map = next((x for x in root.iter() if local(x) == "navmap"), None)
    if nav_map is not None:
        walk(nav_map, 1)
    return out


def _entry(level: int, title: str, href: str, base: str) -> NavEntry:
    title = plain_title(title)
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
            if local(el) == "nav" and "page-list" in attr(el, "type").split()
        ),
        None,
    )
    if nav is None:
        return []
    out: list[PageTarget] = []
    for a in nav.iter():
        if local(a) == "a" and attr(a, "href"):
            e = _entry(0, text_of(a), attr(a, "href"), base)
            out.append(PageTarget(e.title, e.file, e.fragment))
    return out


def _page_list_from_ncx(root: Any, base: str) -> list[PageTarget]:
    """The ``<pageList>`` of an NCX."""
    out: list[PageTarget] = []
    for el in root.iter():
        if local(el) != "pagetarget":
            continue
        label = next((x for x in el.iter() if local(x) == "text"), None)
        content = next((x for x in el if local(x) == "content"), None)
        src = attr(content, "src") if content is not None else ""
        if not src:
            continue
        text = text_of(label) if label is not None else attr(el, "value")
        e = _entry(0, text, src, base)
        out.append(PageTarget(e.title, e.file, e.fragment))
    return out


@dataclass(frozen=True, slots=True)
class Nav:
    """What the navigation of an EPUB gives: TOC entries and print-page targets."""

    entries: tuple[NavEntry, ...] = ()
    source: str = ""  # "nav:NAME" or "ncx:NAME"
    page_list: tuple[PageTarget, ...] = ()
    page_list_source: str = ""


def read_nav(nav_item: Any, ncx_item: Any) -> Nav:
    """TOC and page list from the EPUB 3 navigation document, else from the NCX."""
    entries: list[NavEntry] = []
    source = ""
    pages: list[PageTarget] = []
    pages_source = ""
    for it, kind in ((nav_item, "nav"), (ncx_item, "ncx")):
        if it is None or (entries and pages):
            continue
        root = parse_xml(getattr(it, "content", None) or it.get_content())
        if root is None:
            continue
        base = posixpath.dirname(it.get_name())
        if not entries:
            entries = _nav_from_xhtml(root, base) if kind == "nav" else _nav_from_ncx(root, base)
            source = f"{kind}:{it.get_name()}"
        if not pages:
            pages = (
                _page_list_from_xhtml(root, base)
                if kind == "nav"
                else _page_list_from_ncx(root, base)
            )
            pages_source = f"{kind}:{it.get_name()}" if pages else ""
    return Nav(tuple(_linked(entries)), source, tuple(pages), pages_source)


def _linked(nav: list[NavEntry]) -> list[NavEntry]:
    """Entries with a title; one without a link points where its first linked successor does."""
    fixed: list[NavEntry] = []
    for i, e in enumerate(nav):
        if e.file is None:
            nxt = next((x for x in nav[i + 1 :] if x.file is not None), None)
            if nxt is None:
                continue
            e = NavEntry(e.level, e.title, nxt.file, nxt.fragment)
        fixed.append(e)
    return [e for e in fixed if e.title]
