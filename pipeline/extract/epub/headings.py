"""Where the headings of an EPUB go: the nav is the backbone.

A nav entry becomes a heading where its target is met (or before the first real content of
its file). A heading of the XHTML equal to the entry it meets (case, markup and numbering
folded) is merged with it; every other heading of a file the nav points at nests below the
last entry placed in that file, keeping the relative depth of its tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...text import titles
from .nav import NavEntry
from .pages import MARKS

MAX_LEVEL = 6
# "Chapter 1: Title" as "Chapter 1. Title", so the numbering folds away as in norm_title
_NUMBER_COLON = re.compile(r"^(\W*(?:\w+\s+)?(?:\d+|[ivxlc]+)):(?=\s)", re.IGNORECASE)


def norm_title(text: str) -> str:
    """The key a heading and a nav entry are compared on."""
    return titles.norm_title(_NUMBER_COLON.sub(r"\1.", text, count=1))


@dataclass(frozen=True, slots=True)
class MdBlock:
    kind: str  # "heading" | "para"
    text: str  # markdown, page marks included
    level: int = 0
    title: str = ""


@dataclass(slots=True)
class _Scope:
    """The nav entry the headings of the current file nest below."""

    entry: NavEntry | None = None
    tag_level: int | None = None  # tag level of the XHTML heading merged with ``entry``
    base: int | None = None  # tag level of the first other heading below ``entry``
    fresh: bool = False  # no heading placed since ``entry``


@dataclass(slots=True)
class BookOut:
    """The markdown blocks of a whole book, with the headings placed as they arrive."""

    blocks: list[MdBlock] = field(default_factory=list)
    pending: list[NavEntry] = field(default_factory=list)
    scope: _Scope = field(default_factory=_Scope)
    last_key: str = ""  # normalized title of the last heading placed
    seen_part: bool = False  # a part marker was met: chapter markers go one level down
    file_start: int = 0

    def start_file(self, entries: list[NavEntry]) -> None:
        self.pending = list(entries)
        self.scope = _Scope()
        self.file_start = len(self.blocks)

    def end_file(self, leftover: list[NavEntry], title: str, book_key: str) -> None:
        """Entries never met go at the end; a file with no heading at all is named by its
        ``<title>`` unless that repeats the book title or the heading before it."""
        for e in [*self.pending, *leftover]:
            self.place_nav(e)
        self.pending = []
        own = self.blocks[self.file_start :]
        if not own or any(b.kind == "heading" for b in own):
            return
        key = norm_title(title) if title else ""
        if key and key not in (book_key, self.last_key):
            self.last_key = key
            self.blocks.insert(self.file_start, _heading_block(1, title))

    def para(self, text: str) -> None:
        if not text.strip():
            return
        # a nav target flushes before real content, not before a page number or a rule
        if self.pending and (len(text) >= 40 or len(text.split()) >= 6):
            self.flush_pending()
        self.blocks.append(MdBlock("para", text))

    def flush_pending(self) -> None:
        for e in self.pending:
            self.place_nav(e)
        self.pending = []

    def place_nav(self, e: NavEntry, marks: str = "") -> None:
        self.scope = _Scope(entry=e, fresh=True)
        self._emit(e.level, e.title, marks)

    def heading(self, tag_level: int, title: str, navs: list[NavEntry], marks: str = "") -> None:
        """An XHTML heading (or chapter marker) of tag level ``tag_level`` whose element
        holds the targets ``navs``."""
        pending = self.pending + navs
        self.pending = []
        match = _matching(pending, title) if title else None
        if match is not None:  # entries before it, it with this heading, entries after it
            k = pending.index(match)
            for e in pending[:k]:
                self.place_nav(e, marks)
                marks = ""
            self.place_nav(match, marks)
            self.scope.tag_level = tag_level
            for e in pending[k + 1 :]:
                self.place_nav(e)
            return
        for e in pending:
            self.place_nav(e, marks)
            marks = ""
        key = norm_title(title) if title else ""
        s = self.scope
        if key and s.entry is not None and s.fresh and key == norm_title(s.entry.title):
            s.tag_level = tag_level  # the entry's own heading, after an epigraph
            key = ""
        if not key or (key == self.last_key and self._nothing_since_heading()):
            if marks:
                self.blocks.append(MdBlock("para", marks))
            return
        self._emit(self._level(tag_level), title, marks)
        s.fresh = False

    def _nothing_since_heading(self) -> bool:
        """Whether no text came after the last heading (page marks aside)."""
        for b in reversed(self.blocks):
            if b.kind == "heading":
                return True
            if MARKS.sub("", b.text).strip():
                return False
        return False

    def _level(self, tag_level: int) -> int:
        s = self.scope
        if s.entry is None:
            return tag_level
        if s.base is None:
            s.base = tag_level
        # below the entry's own heading, or level with it when the file's sub-heads use
        # the same tag as its title
        base = s.base if s.tag_level is None else min(s.base, s.tag_level + 1)
        return s.entry.level + 1 + max(0, tag_level - base)

    def _emit(self, level: int, title: str, marks: str) -> None:
        marks += "".join(MARKS.findall(title))
        title = " ".join(MARKS.sub("", title).replace("#", " ").split())
        if title:
            self.blocks.append(_heading_block(level, title, marks))
            self.last_key = norm_title(title)
        elif marks:
            self.blocks.append(MdBlock("para", marks))


def _heading_block(level: int, title: str, marks: str = "") -> MdBlock:
    lvl = max(1, min(level, MAX_LEVEL))
    return MdBlock("heading", marks + "#" * lvl + " " + title, lvl, title)


def _matching(pending: list[NavEntry], title: str) -> NavEntry | None:
    """The waiting entry this heading stands for: the same normalized title, else the last
    entry whose title begins with the heading's words ("190" for "190 A Four-Leaved
    Clover", whose title the next heading then repeats)."""
    key = norm_title(title)
    hit = next((e for e in pending if norm_title(e.title) == key), None)
    if hit is None:
        head = " ".join(title.casefold().split())
        starts = [e for e in pending if _begins_with(e.title.casefold(), head)]
        hit = starts[-1] if starts else None
    return hit


def _begins_with(text: str, head: str) -> bool:
    return bool(head) and text.startswith(head) and not text[len(head) : len(head) + 1].isalnum()
