"""XHTML of one spine document → markdown blocks, headings placed against the nav."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..gfm import pipe_table
from .dom import BLOCK, HEADINGS, SKIP, WS, attr, local
from .headings import BookOut, MdBlock
from .markers import (
    heading_text,
    is_admonition_label,
    is_label_only,
    join_subtitle,
    marker_kind,
    subtitle,
)
from .nav import NavEntry
from .pages import MARKS

_LEADING_MARKER = re.compile(
    "^(\\s*[\U000f0000-\U000ffffd]*)([#>+*\\-=]|\\d{1,9}[.)])(?=\\s|$)", re.MULTILINE
)
_INLINE_ESCAPE = re.compile(r"([\\`*<\[\]])")
_MARKER_TAGS = frozenset({"p", "div", "header", "hgroup", "section", "article"})


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
    tag = local(c)
    if tag in SKIP or not tag:
        return ""
    if tag == "br":
        return "\n"
    if tag == "img":
        alt = WS.sub(" ", attr(c, "alt")).strip()
        return f"(image: {_escape_inline(alt)})" if alt else ""
    if tag in {"code", "kbd", "samp", "tt"} and not code:
        inner = WS.sub(" ", "".join(c.itertext()))
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
    lines = [WS.sub(" ", ln).strip() for ln in text.split("\n")]
    out = "\n".join(ln for ln in lines if ln)
    return _LEADING_MARKER.sub(lambda m: m.group(1) + "\\" + m.group(2), out)


def _has_block_child(el: Any) -> bool:
    return any(local(c) in BLOCK or local(c) == "img" for c in el)


class Converter:
    """One spine document's body into ``out``; ``targets`` are the nav entries pointing at
    fragments of this document, by id (taken as they are met)."""

    def __init__(self, targets: dict[str, list[NavEntry]], out: BookOut) -> None:
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
        text = heading_text(el)
        marks = "".join(MARKS.findall(text))
        text = MARKS.sub("", text).strip()
        navs = self.ids_at(el, deep=True)
        if is_admonition_label(el, text):
            self.out.pending.extend(navs)
            self.out.para(marks + _escape_inline(text))
            return
        self.out.heading(level, text, navs, marks)

    def marker(self, el: Any, kind: str, text: str, nxt: Any) -> bool:
        """Place the chapter marker ``el`` (plain text ``text``); a bare ``CHAPTER I`` takes
        the short title block ``nxt`` along. Whether it did."""
        if kind == "part":
            self.out.seen_part = True
        level = 2 if kind == "chapter" and self.out.seen_part else 1
        navs = self.ids_at(el, deep=True)
        sub = ""
        if nxt is not None and is_label_only(MARKS.sub("", text)) and not _has_block_child(nxt):
            sub = heading_text(nxt)
            if subtitle(MARKS.sub("", sub)) and not marker_kind(nxt, MARKS.sub("", sub)):
                navs += self.ids_at(nxt, deep=True)
            else:
                sub = ""
        title = join_subtitle(text, sub) if sub else text
        marks = "".join(MARKS.findall(title))
        self.out.heading(level, MARKS.sub("", title).strip(), navs, marks)
        return bool(sub)

    def block(self, el: Any, nxt: Any = None) -> bool:
        """Convert the block ``el``; whether it took ``nxt``, the block after it, along."""
        tag = local(el)
        if not tag or tag in SKIP:
            return False
        if tag in HEADINGS:
            self.heading(el, HEADINGS[tag])
            return False
        if tag in _MARKER_TAGS and not _has_block_child(el):
            text = heading_text(el)
            kind = marker_kind(el, MARKS.sub("", text))
            if kind:
                return self.marker(el, kind, text, nxt)
        self._block(el, tag)
        return False

    def _block(self, el: Any, tag: str) -> None:
        self.out.pending.extend(self.ids_at(el, deep=False))
        if tag == "hr":
            return
        if tag == "img":
            alt = WS.sub(" ", attr(el, "alt")).strip()
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
                m = re.search(r"(?:language|lang)-([\w+#-]+)", attr(c, "class"))
                if m:
                    lang = m.group(1)
                    break
            self.out.para(f"{fence}{lang}\n{code}\n{fence}")
            return
        if tag == "blockquote":
            start = len(self.out.blocks)
            self.children(el)
            blocks = self.out.blocks
            for k in range(start, len(blocks)):
                if blocks[k].kind == "para":
                    lines = blocks[k].text.split("\n")
                    blocks[k] = MdBlock("para", "\n".join("> " + ln if ln else ">" for ln in lines))
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
        kids = list(el)
        skip = False
        for k, c in enumerate(kids):
            if skip:
                skip = False
                continue
            tag = local(c)
            if tag in BLOCK or tag == "img" or tag in SKIP:
                if buf:
                    self.out.para(_clean_para("".join(buf)))
                    buf = []
                skip = self.block(c, _next_block(kids, k))
                if skip and kids[k + 1].tail and kids[k + 1].tail.strip():
                    buf.append(_escape_inline(kids[k + 1].tail))
            elif tag:
                self.out.pending.extend(self.ids_at(c, deep=True))
                buf.append(_render_child(c))
            if c.tail and c.tail.strip():
                buf.append(_escape_inline(c.tail))
        if buf:
            self.out.para(_clean_para("".join(buf)))

    def list_lines(self, el: Any, depth: int) -> list[str]:
        ordered = local(el) == "ol"
        lines: list[str] = []
        n = 0
        for li in el:
            if local(li) != "li":
                continue
            n += 1
            marker = f"{n}." if ordered else "-"
            pad = "   " * depth if ordered else "  " * depth
            nested = [c for c in li if local(c) in {"ul", "ol"}]
            text = _clean_para(_inline_flat(li, skip=("ul", "ol"))).replace("\n", " ")
            lines.append(f"{pad}{marker} {text}".rstrip())
            for sub in nested:
                lines.extend(self.list_lines(sub, depth + 1))
        return lines

    def table(self, el: Any) -> str:
        rows: list[list[str]] = []
        for tr in el.iter():
            if local(tr) != "tr":
                continue
            cells: list[str] = []
            for td in tr:
                if local(td) not in {"td", "th"}:
                    continue
                cells.append(_clean_para(_inline_flat(td)).replace("\n", " "))
                span = attr(td, "colspan")
                if span.isdigit():
                    cells.extend([""] * (min(int(span), 50) - 1))
            if cells:
                rows.append(cells)
        return pipe_table(rows) if rows else ""


def _next_block(kids: list[Any], k: int) -> Any:
    """The element right after ``kids[k]`` when nothing but space lies between them."""
    if k + 1 >= len(kids) or (kids[k].tail and kids[k].tail.strip()):
        return None
    nxt = kids[k + 1]
    return nxt if local(nxt) in BLOCK else None


def _inline_flat(el: Any, skip: tuple[str, ...] = ()) -> str:
    """Inline markdown of an element, flattening any block children into spaces."""
    parts: list[str] = []
    if el.text:
        parts.append(_escape_inline(el.text))
    for c in el:
        tag = local(c)
        if tag in skip:
            pass
        elif tag in BLOCK:
            parts.append(" " + _inline_flat(c) + " ")
        else:
            parts.append(_render_child(c))
        if c.tail:
            parts.append(_escape_inline(c.tail))
    return "".join(parts)
