"""Where a line of flat text sits among its neighbours: alone between blank lines, at the
top of a page, its margins above and below, in a run of short lines (a list, an index,
verse), on a running head or foot, inside a Project Gutenberg edition's book."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .furniture import is_dot_leader, is_page_number
from .shapes import numbering

_COLUMNS = re.compile(r"\S\s{3,}\S.*\S\s{3,}\S")
_TWO_COLUMNS = re.compile(r"\S\s{3,}\S")
_ROMAN_PAGE = re.compile(r"(?<!\S)[ivxlc]{1,7}(?!\S)")  # a front-matter page number
MIN_REPEATS = 4
MAX_MARGIN = 3  # blank lines beyond this many are all one wide margin
SHORT_LINE = 60
MIN_RUN = 4
_BOOK_START = re.compile(r"^\*{3} ?START OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
_BOOK_END = re.compile(r"^\*{3} ?END OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)


def standalone(lines: Sequence[str], i: int) -> bool:
    """Whether line ``i`` has text and a blank line (or none) before and after it."""
    return (
        bool(lines[i].strip())
        and (i == 0 or not lines[i - 1].strip())
        and (i + 1 >= len(lines) or not lines[i + 1].strip())
    )


def page_top(line: str) -> bool:
    """Whether a line opens a page of paged text (after a form feed) in one column: set off
    by the page break as a heading is by blank lines (pdftotext prints a chapter's title
    so); a running head is laid out in two columns, or repeats (``running_lines``)."""
    return line.startswith("\f") and bool(line.strip()) and not _TWO_COLUMNS.search(line)


def running_lines(lines: Sequence[str]) -> set[int]:
    """Running heads and feet of paged plain text (an RFC's "RFC 8446   TLS   August 2018"
    and "Rescorla   Standards Track   [Page 5]"): lines laid out in three columns, or in
    two at the top of a page (``pdftotext -layout``'s "\\fxiv        Contents"), that come
    back, numbers aside, at least ``MIN_REPEATS`` times. A contents line with dot leaders
    is none, however often its title comes back ("   3.12.   Debugging . . . .   31" in
    every chapter of a textbook)."""
    keys: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if (
            _COLUMNS.search(line) or (line.startswith("\f") and _TWO_COLUMNS.search(line))
        ) and not is_dot_leader(line):
            # numbers aside, its columns in any order: left and right pages swap them
            key = _ROMAN_PAGE.sub("#", re.sub(r"\d+", "#", line.strip()))
            keys.setdefault("   ".join(sorted(re.split(r"\s{3,}", key))), []).append(i)
    return {i for found in keys.values() if len(found) >= MIN_REPEATS for i in found}


HEAD_REACH = 120  # lines either side where a running head's section title is printed


def page_head(lines: Sequence[str], i: int) -> bool:
    """Whether a line opening a page is its running head: plain pdftotext prints the head
    ("\\f4.9. docstring") and then the page's number on a line of its own, and the title
    it repeats stands in the text near it. A chapter's title over its number ("\\fModels",
    "3") is printed once."""
    if not lines[i].startswith("\f"):
        return False
    j = i + 1
    while j < len(lines) and j - i <= 2 and not lines[j].strip():
        j += 1
    if not (j < len(lines) and j > i + 1 and is_page_number(lines[j])):
        return False
    text = lines[i].strip()
    near = range(max(0, i - HEAD_REACH), min(len(lines), i + HEAD_REACH))
    return any(k != i and lines[k].strip() == text for k in near)


def heads_text(lines: Sequence[str], i: int) -> bool:
    """Whether standalone line ``i`` is set as a heading of what follows: no wider
    margin below it than above, and text after it. A signature under a preface ("ISAAK
    WALTON.", one blank line above, three below), a title page's lines and a closing
    "FINIS." are set off below, not above."""

    def margin(step: int) -> int | None:
        j = i + step
        while 0 <= j < len(lines) and not lines[j].strip():
            j += step
        if not 0 <= j < len(lines):
            return None
        return min(MAX_MARGIN, abs(j - i) - 1)

    above, below = margin(-1), margin(1)
    if below is None:
        return False  # nothing follows: an end mark, not a heading
    return above is None or above >= below


def in_short_run(lines: Sequence[str], i: int) -> bool:
    """Line ``i`` sits in a run of at least ``MIN_RUN`` short lines (at most one blank
    line between two): a list, an index, a table of figures, verse or an example, whose
    lines are items, not headings. A heading stands between paragraphs."""

    def short(j: int) -> bool:  # indented lines are code or a quotation, not items
        line = lines[j] if 0 <= j < len(lines) else ""
        text = line.strip()
        return (
            0 < len(text) <= SHORT_LINE
            and not line.startswith("    ")
            and not text.endswith((".", "!", "?", '"', "”"))  # sentences: prose
        )

    def neighbours(step: int) -> int:
        n, j = 0, i + step
        while True:
            if short(j):
                n, j = n + 1, j + step
            elif 0 <= j < len(lines) and not lines[j].strip() and short(j + step):
                j += step
            else:
                return n

    if numbering(lines[i].strip()):
        return False  # a numbered heading is evidence enough
    return short(i) and 1 + neighbours(-1) + neighbours(1) >= MIN_RUN


def body_bounds(lines: Sequence[str], start: int) -> tuple[int, int]:
    """The lines that can hold headings: inside a Project Gutenberg edition's start and end
    marker lines (its header and licence are not the book), else all from ``start``."""
    begin = next((i + 1 for i, ln in enumerate(lines) if _BOOK_START.match(ln)), start)
    end = next((i for i in range(begin, len(lines)) if _BOOK_END.match(lines[i])), len(lines))
    return max(start, begin), end


WRAP_REACH = 40  # lines either side whose longest gives the width a text is wrapped at


def ends_early(lines: Sequence[str], i: int) -> bool:
    """Whether line ``i`` ends before the width its text is wrapped at, so the next line's
    first word would have fitted on it: a heading run into its text ("2 Fonts", then its
    paragraph), not a paragraph's first line."""
    if i + 1 >= len(lines) or not lines[i + 1].strip():
        return True
    near = range(max(0, i - WRAP_REACH), min(len(lines) - 1, i + WRAP_REACH))
    width = max((len(lines[k].rstrip()) for k in near if lines[k + 1].strip()), default=0)
    return len(lines[i].rstrip()) + 1 + len(lines[i + 1].split()[0]) <= width
