"""Flat text: a table-of-contents block as evidence for the headings of the body.

A contents block is a run of short lines near each other whose titles come back later as
lines standing alone (blank line before and after), in the same order. When a book has
one, its entries say which body lines are headings and at what level (by indentation, or
by the pattern family of the entry when the block is flush left); the block's own lines
stay text.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from .furniture import is_page_number
from .titles import entry_key

MAX_ENTRY_CHARS = 100
MAX_LABELLED_CHARS = 160  # a numbered entry's title may run long
MIN_ENTRIES = 3
MIN_SHARE = 0.5  # of the block's lines whose titles come back in the body
MAX_GAP = 2  # blank lines allowed between two entries of one block
MAX_MISSES = 5
MIN_SECOND = 0.8  # of the longest block's entries, in a second contents block
_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z])\.?\s+(?=\S)", re.IGNORECASE)
_SENTENCE_END = (".", ",", ";", ":", "!")
MAX_ENTRY_WORDS = 14
_CODE = re.compile(r"[;{}]\s*$|::|->|=>|\(\)")
_COLUMNS = re.compile(r"\S\s{3,}\S.*\S\s{3,}\S")
_TWO_COLUMNS = re.compile(r"\S\s{3,}\S")
_ROMAN_PAGE = re.compile(r"(?<!\S)[ivxlc]{1,7}(?!\S)")  # a front-matter page number
MIN_REPEATS = 4
_LABELLED = re.compile(
    r"^\s*(?:(?:chapter|chap\.|part|book|section|appendix)\s+\S|\d+(?:\.\d+)*\.?\s)", re.IGNORECASE
)
# the gap before a contents line's page number, and the word that may open it ("_Page_ 4")
_PAGE_GAP = r"\s{2,}(?:_?(?:page|p\.)_?\s*)?"
# dot leaders, or a page number after a gap ("   12", "   xiv", "   _Page_ 4", "   p. 4"), or
# a range of them ("   31-47": regulations and reports list paragraphs, "   12–15" pages)
_RANGE_END = r"(?:\s?[-–]\s?\d{1,4})?"
_LOCATOR = rf"(?:\d{{1,4}}{_RANGE_END}|[ivxlc]{{1,7}})"
_LEADER = re.compile(rf"(?:\s*[.·…]){{2,}}\s*\S*$|{_PAGE_GAP}{_LOCATOR}$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TocEntry:
    line: int  # the entry's line in the contents block
    indent: int
    column: int  # where the title starts, after a leading number
    title: str
    target: int  # the body line it names


def title_column(line: str) -> int:
    """Where an entry's title starts, after any leading number: right-aligned numbers
    ("   I.", "  II.", " III.") shift the line start, not the title."""
    m = _NUMBER.match(line)
    return m.end() if m else len(line) - len(line.lstrip())


def running_lines(lines: Sequence[str]) -> set[int]:
    """Running heads and feet of paged plain text (an RFC's "RFC 8446   TLS   August 2018"
    and "Rescorla   Standards Track   [Page 5]"): lines laid out in three columns, or in
    two at the top of a page (``pdftotext -layout``'s "\\fxiv        Contents"), that come
    back, numbers aside, at least ``MIN_REPEATS`` times."""
    keys: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if _COLUMNS.search(line) or (line.startswith("\f") and _TWO_COLUMNS.search(line)):
            # numbers aside, its columns in any order: left and right pages swap them
            key = _ROMAN_PAGE.sub("#", re.sub(r"\d+", "#", line.strip()))
            keys.setdefault("   ".join(sorted(re.split(r"\s{3,}", key))), []).append(i)
    return {i for found in keys.values() if len(found) >= MIN_REPEATS for i in found}


def is_prose(line: str) -> bool:
    """A line that reads as code or as a sentence, not a contents entry or a heading: code
    punctuation, very many words, a colon's lead-in, or a long sentence's end."""
    title = entry_title(line)
    words = title.split()
    if _CODE.search(line):
        return True
    if _LABELLED.match(line):
        return len(words) > 2 * MAX_ENTRY_WORDS  # "Chapter 120. The Deck Towards ... Watch."
    return (
        len(words) > MAX_ENTRY_WORDS
        or (len(words) > 3 and title.endswith(":"))
        or (len(words) > 10 and title.endswith(_SENTENCE_END))
    )


def entry_length(line: str) -> bool:
    """Whether a line is short enough for a contents entry; a numbered one may be longer
    ("3.1.4 Positioning of Consecutive Opening Brackets, Closing Brackets, Commas, …")."""
    text = line.strip()
    limit = MAX_LABELLED_CHARS if _LABELLED.match(text) else MAX_ENTRY_CHARS
    return len(text) <= limit


def entry_title(line: str) -> str:
    """An entry's title without dot leaders or a trailing page number."""
    return _LEADER.sub("", line).strip()


def standalone(lines: Sequence[str], i: int) -> bool:
    return (
        bool(lines[i].strip())
        and (i == 0 or not lines[i - 1].strip())
        and (i + 1 >= len(lines) or not lines[i + 1].strip())
    )


# a section number and its title, as exporters of typeset books set a heading: "2.1 Package
# manager", "1.1. What is a program?"
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+(\S.*)$")


def page_top(line: str) -> bool:
    """Whether a line opens a page of paged text (after a form feed) in one column: set off
    by the page break as a heading is by blank lines (pdftotext prints a chapter's title
    so); a running head is laid out in two columns, or repeats (``running_lines``)."""
    return line.startswith("\f") and bool(line.strip()) and not _TWO_COLUMNS.search(line)


def numbered_key(text: str) -> str | None:
    """The key of a line numbered as a section, number included ("2.1 packagemanager"), or
    None. pdftotext runs a typeset heading into its text (no blank line after it): such a
    line is a heading only when a contents entry carries the same number and title."""
    m = _SECTION_NUMBER.match(text)
    return f"{m.group(1)} {entry_key(m.group(2))}" if m else None


def named_lines(where: dict[str, list[int]], title: str) -> list[int]:
    """The body lines an entry's title names, in order: standalone lines of its title,
    and lines of its section number and title (see ``numbered_key``)."""
    found = where.get(entry_key(title), [])
    numbered = numbered_key(title)
    more = where.get(numbered, []) if numbered else []
    return sorted({*found, *more}) if more else found


def find_toc(
    lines: Sequence[str], start: int = 0, furniture: frozenset[int] = frozenset()
) -> list[TocEntry]:
    """The entries of the best contents block at or after line ``start`` (most entries
    found in the body), each with the body line it names; [] when there is none.
    ``furniture`` lines (running heads and feet) are passed over, so a block can run
    across a page break."""
    blocks = _blocks(lines, start, furniture, frozenset())
    # A second contents block about as long as the first (an export's printed contents,
    # then the edition's own as lines standing alone) holds no headings: its lines are no
    # entry's body line. Shorter blocks are left alone: headings set close together, that
    # come back later in the text, can look like one.
    most = max((len(b) for b in blocks), default=0)
    listed = frozenset(e.line for b in blocks if len(b) >= MIN_SECOND * most for e in b)
    if len(listed) > most:
        blocks = _blocks(lines, start, furniture, listed)
    return max(blocks, key=len, default=[])


def _blocks(
    lines: Sequence[str], start: int, furniture: frozenset[int], listed: frozenset[int]
) -> list[list[TocEntry]]:
    """Every contents block at or after line ``start``, its entries naming standalone
    lines that are not ``listed`` (lines of a contents block)."""
    where: dict[str, list[int]] = {}
    run_in: set[int] = set()  # numbered lines opening a block, text straight after them
    for i in range(start, len(lines)):
        if i in listed or not entry_length(lines[i]):
            continue
        numbered = numbered_key(lines[i])
        if standalone(lines, i) or (page_top(lines[i]) and i not in furniture):
            where.setdefault(entry_key(lines[i]), []).append(i)
        elif numbered and (i == 0 or not lines[i - 1].strip() or i - 1 in run_in):
            run_in.add(i)
        else:
            continue
        if numbered:
            where.setdefault(numbered, []).append(i)
    blocks = []
    i = start
    while i < len(lines):
        block, end = _block(lines, i, where, furniture)
        if block:
            blocks.append(block)
        i = max(end, i + 1)
    return blocks


def _block(
    lines: Sequence[str], i: int, where: dict[str, list[int]], furniture: frozenset[int]
) -> tuple[list[TocEntry], int]:
    """The contents block starting at line ``i``, if one does, and the line after it.

    The block runs over short lines while titles keep coming back in the body: it ends at
    a long line, at a heading one of its entries named, after ``MAX_GAP`` blank lines or
    after ``MAX_MISSES`` entries in a row that name nothing (an entry may: its heading was
    reworded in the body).
    """
    hits: list[int] = []
    keys: set[str] = set()
    tried = tried_at_last = blanks = misses = page = 0
    for j in range(i, len(lines)):
        text = lines[j].strip()
        if j in furniture:
            blanks = 0
            continue
        if not text:
            if _before_furniture(lines, j, furniture):
                continue  # the blank lines of a page break
            blanks += 1
            if blanks > MAX_GAP:
                break
            continue
        blanks = 0
        if not entry_length(text) or is_prose(text):
            break
        key = entry_key(entry_title(text))
        if key in keys and standalone(lines, j):
            break  # the body has begun: a heading an entry named
        if key and any(k > j + 1 for k in named_lines(where, entry_title(text))):
            tried += 1
            hits.append(j)
            keys.add(key)
            tried_at_last, misses = tried, 0
            page = max(page, page_of(lines[j]) or 0)
        elif is_page_number(text):
            continue
        elif not hits or misses >= MAX_MISSES:
            break
        elif (p := page_of(lines[j])) is not None and p >= page:
            # a printed page number, in order, marks a contents line whatever the body
            # calls it (a run-in sub-heading, a reworded title): it neither ends the block
            # nor counts against its share of entries found; numbers out of order are a
            # table's or a listing's
            page = p
        else:
            tried += 1
            misses += 1
    end = (hits[-1] + 1) if hits else i + 1
    # a block repeating its lines is body text (a refrain), not contents
    distinct = len({lines[h].strip() for h in hits})
    if distinct < MIN_ENTRIES or distinct < MIN_SHARE * tried_at_last:
        return [], end
    return _targets(lines, hits, end, where), end


_PAGE_AT_END = re.compile(rf"{_PAGE_GAP}(\d{{1,4}}){_RANGE_END}$", re.IGNORECASE)  # a range's first


def page_of(line: str) -> int | None:
    """The page number printed at the end of a contents line ("Bronze      49"), if any."""
    m = _PAGE_AT_END.search(line.rstrip())
    return int(m.group(1)) if m else None


def _before_furniture(lines: Sequence[str], j: int, furniture: frozenset[int]) -> bool:
    """Whether only blank lines (at most a page's bottom margin) lie between line ``j`` and a
    running head or foot."""
    k = j
    while k < len(lines) and k - j < 8 and not lines[k].strip():
        k += 1
    return k in furniture


def _targets(
    lines: Sequence[str], hits: list[int], end: int, where: dict[str, list[int]]
) -> list[TocEntry]:
    """Each entry's body line: of the lines after the block carrying the entry's title
    (numbering folded), the choice that names the most entries in order (a longest
    increasing run, so one entry matched too far ahead cannot hide the rest)."""
    items: list[tuple[int, int]] = []  # (body line, entry); an entry's lines descending
    for n, h in enumerate(hits):
        later = named_lines(where, entry_title(lines[h].strip()))
        items.extend((t, n) for t in reversed(later[bisect_right(later, end) :]))
    tails: list[int] = []  # body line ending the best run of each length
    tail_item: list[int] = []
    back = [-1] * len(items)
    for k, (t, _) in enumerate(items):
        pos = bisect_left(tails, t)
        back[k] = tail_item[pos - 1] if pos else -1
        if pos == len(tails):
            tails.append(t)
            tail_item.append(k)
        else:
            tails[pos], tail_item[pos] = t, k
    chain: list[int] = []
    k = tail_item[-1] if tail_item else -1
    while k >= 0:
        chain.append(k)
        k = back[k]
    entries = []
    for k in reversed(chain):
        t, n = items[k]
        h = hits[n]
        indent = len(lines[h]) - len(lines[h].lstrip())
        entries.append(
            TocEntry(h, indent, title_column(lines[h]), entry_title(lines[h].strip()), t)
        )
    return entries if len(entries) >= MIN_ENTRIES else []
