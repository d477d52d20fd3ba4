"""Print pages of an EPUB: page-list anchors carried through the conversion as marks.

Each anchor travels as one private-use character (U+F0000 + the page's index) and is taken
out, as an offset, when the text is assembled.
"""

from __future__ import annotations

import re
from typing import Any

from ...model import Page
from .dom import SKIP, local, text_of
from .nav import PageTarget

MARK_BASE = 0xF0000
MARK_MAX = 0xFFFFD
MARKS = re.compile("[\U000f0000-\U000ffffd]+")
_BLOCK_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d{1,9}[.)]\s+|\|\s?)?$")


def mark_pages(
    root: Any, body: Any, name: str, page_list: list[PageTarget], removed: list[str]
) -> int:
    """Put each page anchor of this file into the tree as its mark character; count them.

    A page-break element that prints its own page number (``<span epub:type="pagebreak">
    169</span>``) loses that number: it is page boilerplate, recorded in ``removed``.
    """
    wanted: dict[str, list[int]] = {}
    n = 0
    for k, t in enumerate(page_list):
        if t.file != name or k > MARK_MAX - MARK_BASE:
            continue
        if not t.fragment:
            body.text = chr(MARK_BASE + k) + (body.text or "")
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
        marks = "".join(chr(MARK_BASE + k) for k in ids)
        if local(el) in SKIP or local(el) in {"hr", "img", "br"}:
            el.tail = marks + (el.tail or "")  # the element itself is not rendered
        else:
            printed = text_of(el)
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


def take_marks(text: str, base: int, found: dict[int, int]) -> str:
    """``text`` without its page marks; each mark's offset (``base`` + position) recorded.

    A mark in front of a block's first content (after ``## ``, ``- ``, ``> ``…) stands
    for the block's start; a mark between two spaces takes one of them with it.
    """
    parts: list[str] = []
    size = 0
    i = 0
    for m in MARKS.finditer(text):
        chunk = text[i : m.start()]
        parts.append(chunk)
        size += len(chunk)
        first_line = "\n" not in "".join(parts)
        at = 0 if first_line and _BLOCK_PREFIX.match("".join(parts)) else size
        for ch in m.group():
            found.setdefault(ord(ch) - MARK_BASE, base + at)
        i = m.end()
        if m.start() > 0 and text[m.start() - 1] == " " and i < len(text) and text[i] == " ":
            i += 1
    parts.append(text[i:])
    return "".join(parts)


def page_map(page_list: list[PageTarget], found: dict[int, int], end: int) -> tuple[Page, ...]:
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
