"""What in XHTML is a heading besides ``<h1>``–``<h6>``, and what a heading says in plain text.

Chapter markers: a short leaf element with a chapter-ish class (``<div class="chapter">
CHAPTER I</div>``) or whose whole text is a chapter line (``CHAPTER I.``, ``Chapter 3: The
Pool``, ``BOOK II``). Admonition labels (``<div class="note"><h3>note</h3>``) look like
headings but are not.
"""

from __future__ import annotations

import re
from typing import Any

from ...text.titles import plain_title
from .dom import SKIP, attr, local

PART_CLASSES = frozenset({"part", "part-title", "parttitle", "book", "book-title", "booktitle"})
CHAPTER_CLASSES = frozenset(
    {
        "chapter",
        "chapter-title",
        "chaptertitle",
        "chapter-head",
        "chapterhead",
        "chapter-heading",
        "chapter-number",
        "chapnum",
        "title",
    }
)
_NUMBER = (
    r"(?:\d{1,3}|[ivxlcdm]{1,8}|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|first"
    r"|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)"
)
CHAPTER_LINE = re.compile(
    rf"^(chapter|book|part)\s+{_NUMBER}\b\.?(?:\s*[:.—–-]\s*(\S.*))?$", re.IGNORECASE
)
MAX_MARKER_CHARS = 100
MAX_MARKER_WORDS = 14
MAX_SUBTITLE_WORDS = 10
_SENTENCE_INSIDE = re.compile(r"[.!?]\s")
ADMONITIONS = frozenset({"note", "caution", "warning", "tip", "important", "hint", "danger"})


def heading_text(el: Any) -> str:
    """The plain text of a heading element: no markup, no permalink or note-reference
    anchors; page marks (private-use characters) are kept for the caller."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(node.text)
        for c in node:
            if not _dropped(c):
                walk(c)
            if c.tail:
                parts.append(c.tail)

    walk(el)
    return plain_title("".join(parts))


def _dropped(el: Any) -> bool:
    tag = local(el)
    if not tag or tag in SKIP:
        return True
    if tag != "a":
        return False
    if "noteref" in attr(el, "type").split():
        return True
    text = "".join(el.itertext())
    return attr(el, "href").startswith("#") and not any(ch.isalnum() for ch in text)


def marker_kind(el: Any, text: str) -> str:
    """``"part"``, ``"chapter"`` or ``""``: what kind of chapter marker the leaf block ``el``
    with plain text ``text`` is."""
    if not text or len(text) > MAX_MARKER_CHARS or len(text.split()) > MAX_MARKER_WORDS:
        return ""
    classes = set(attr(el, "class").casefold().split())
    if classes & PART_CLASSES:
        return "part"
    if classes & CHAPTER_CLASSES:
        return "chapter"
    m = CHAPTER_LINE.match(text)
    if m is None:
        return ""
    return "chapter" if m.group(1).casefold() == "chapter" else "part"


def is_label_only(text: str) -> bool:
    """``CHAPTER I`` with no title after it: the title may be the next short block."""
    m = CHAPTER_LINE.match(text)
    return m is not None and not m.group(2)


def subtitle(text: str) -> bool:
    """Whether a block's text reads as a chapter's title rather than its first sentence."""
    words = text.split()
    return (
        0 < len(words) <= MAX_SUBTITLE_WORDS
        and text[0].isalpha()
        and text[0].upper() == text[0]
        and not text.endswith((",", ";", ":"))
        and not _SENTENCE_INSIDE.search(text)
    )


def join_subtitle(label: str, sub: str) -> str:
    return f"{label} {sub}" if label.endswith((".", ":")) else f"{label}: {sub}"


def is_admonition_label(el: Any, text: str) -> bool:
    """A note/caution/… box's label set as a heading inside the box."""
    word = text.strip(" :").casefold()
    if word not in ADMONITIONS:
        return False
    parent = el.getparent()
    if parent is None:
        return False
    marks = f"{attr(parent, 'class')} {attr(parent, 'title')} {attr(parent, 'type')}".casefold()
    return word in re.split(r"[\W_]+", marks)
