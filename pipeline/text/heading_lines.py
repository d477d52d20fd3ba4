"""Heading lines of flat text: ATX lines, and lines that stand alone and look like titles
(``Chapter 7``, ``PART II``, ``Appendix A``, ``1.2.3 Title``, ALL CAPS, short Title
Case); ordinary short sentences (terminal punctuation, lowercase content words) are not.
A contents block, when the text has one, names the headings instead."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .fences import fenced_lines
from .labels import (
    MAX_HEADING_CHARS,
    NUMBER_WORDS,
    ORDINALS,
    ROMAN,
    bare_numeral,
    label_keyword,
    label_only,
    numeral_sequences,
    title_after,
)
from .titles import same_words, title_case
from .toc import TocEntry, find_toc, is_prose, running_lines, standalone
from .underlines import underlined_headings

ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
# what may follow a label's number: nothing, or its title after a space or a dash ("PART
# I.--DRILL.", "CHAPTER II.—THE RIVER", the old printers' way)
_TITLE_AFTER = r"(?:\s.*|\s*(?:--|—|–).*)?$"
# the divisions above chapters: "Part II", "BOOK THE FIRST", "Part First.", "Volume 2",
# "EPOCH THE THIRD."
_PART = re.compile(
    r"(?i:part|book|volume|epoch)\s+"
    rf"(?:\d+|{ROMAN}|(?i:{NUMBER_WORDS})|(?i:(?:the\s+)?(?:{ORDINALS})))\b[.:]?{_TITLE_AFTER}"
)
_CHAPTER = re.compile(
    rf"(?i:chapter|chap\.|appendix|section|lecture|lesson)\s*(?<=\s|\.)(?:\d+(?:\.\d+)*|{ROMAN}|[A-Z]|(?i:{NUMBER_WORDS}))\b[.:]?{_TITLE_AFTER}"
)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+([A-Z][^\n]{1,78})$")
_QUOTED_SENTENCE = re.compile(r"[.!?][\"”’']$")
_PAGE_REFERENCE = re.compile(r",\s*\d{1,4}(?:[-–]\d{1,4})?$")
_END_PUNCT = (".", ",", ";", ":", "!", "?", "—", "-", '"', "”", ")")
# "THE PRESIDENT: That's the proposal.", "MR. SMITH: (Laughter.)": a speaker's name in
# capitals, a colon, then what is said (a sentence or a stage direction)
_SPEAKER = re.compile(r"(?:[A-Z][A-Z'’.\-]*\s+){0,3}[A-Z][A-Z'’.\-]+:\s+(?:\(|.*[.!?)\"”]$)")
# "... the wealthy. (Applause.)": a line that ends in a parenthetical sentence
_STAGE_DIRECTION = re.compile(r"\([^()]*[.!?]\)[.!?]?$")
_CLOSERS = {"(": ")", "[": "]"}
MIN_HEADINGS = 3  # fewer markdown (ATX) headings than this: the heuristics decide
MAX_HEADING_WORDS = 12
MAX_NUMBERED_TITLE_WORDS = 6  # "2. Second Day.": a title; a longer one reads as a sentence


def heading_level(line: str) -> tuple[int, str] | None:
    """(level, title) if a standalone line looks like a heading, else None.

    Levels: Part 1; Chapter/Appendix/ALL CAPS 2; numbered ``1.2`` by depth + 1;
    Title Case 3. The caller rebases levels so the top one found becomes 1.
    """
    text = line.strip()
    if not text or len(text) > MAX_HEADING_CHARS or "\t" in text:
        return None
    if _PAGE_REFERENCE.search(text):
        return None  # "Bach, C.P.E., 180, 185": an index entry's page numbers
    if _PART.match(text):
        return 1, text
    if _CHAPTER.match(text):
        return 2, text
    if enclosed(text) or _SPEAKER.match(text) or _STAGE_DIRECTION.search(text):
        return None  # "(223 KB EPS).", "[Illustration]", dialogue: asides, not titles
    m = _NUMBERED.match(text)
    if m and title_case(m.group(2)) and not m.group(2).rstrip().endswith((".", ",", ";")):
        return min(6, m.group(1).count(".") + 2), text
    words = text.split()
    letters = [c for c in text if c.isalpha()]
    caps = len(letters) >= 3 and all(c.isupper() for c in letters)
    if caps and len(words) <= 8 and text.endswith(".") and not text.endswith(".."):
        return 2, text  # "PREFACE.", "EPOCH THE FIRST.": capitals, a printer's period
    if _QUOTED_SENTENCE.search(text):
        return None  # 'IV. "Thunder-storm."': a quotation's sentence, not a title
    if len(words) > MAX_HEADING_WORDS or text.endswith(_END_PUNCT[:6]):
        return None
    if len(letters) < 2:
        return None
    if caps:
        return 2, text
    if len(words) <= 8 and title_case(text) and words[0][:1].isupper():
        return 3, text
    return None


def enclosed(text: str) -> bool:
    """Whether a line is wholly in parentheses or brackets (a trailing period aside):
    "(223 KB EPS).", "(Applause.)", "[Illustration]" are asides, never titles; "(a) Scope"
    is not enclosed."""
    body = text.rstrip(".,;:!?")
    closer = _CLOSERS.get(body[:1])
    if closer is None:
        return False
    depth = 0
    for k, ch in enumerate(body):
        depth += (ch == body[0]) - (ch == closer)
        if depth == 0:
            return k == len(body) - 1
    return False


@dataclass(frozen=True, slots=True)
class HeadingLine:
    line: int
    level: int
    title: str
    title_line: int | None = None  # a line joined to the heading: a label's title, an underline
    title_end: int | None = None  # the last line joined, when a title wraps onto a second


def find_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of the heading lines of a flat text (see
    ``find_heading_lines``; a joined title line is left where it is)."""
    return [(h.line, h.level, h.title) for h in find_heading_lines(lines)]


def find_heading_lines(lines: list[str]) -> list[HeadingLine]:
    """The heading lines of a flat text.

    Underlined titles (a row of ``*``, ``=``, ``-`` below), when the text has at least
    ``MIN_HEADINGS``, are the headings, ranked by underline character. Else a contents
    block, when the text has one, names the headings (its own lines stay text);
    otherwise lines that stand alone (blank or no line before and after) and look like
    headings are. The title line at the top is never a heading. Levels come from the
    contents' indentation or from each pattern family's rank, the same through the book,
    renumbered densely from 1.
    """
    first = title_line(lines)
    start = 0 if first is None else first[0] + 1
    code = fenced_lines("\n".join(lines))
    lines = ["" if i in code else line for i, line in enumerate(lines)]
    start, end = body_bounds(lines, start)
    lines = [line if start <= i < end else "" for i, line in enumerate(lines)]
    top = next((line.strip() for line in lines if line.strip()), "")
    # the document's title, underlined at the top or again over its top node, is no heading
    underlined = [u for u in underlined_headings(lines, start) if u.title != top]
    if len(underlined) >= MIN_HEADINGS:  # underlines are evidence enough, as ATX marks are
        dense_rank = {r: n + 1 for n, r in enumerate(sorted({u.rank for u in underlined}))}
        return [HeadingLine(u.line, dense_rank[u.rank], u.title, u.line + 1) for u in underlined]
    furniture = frozenset(running_lines(lines))
    toc = find_toc(lines, start, furniture)
    if toc:
        ranks = _toc_ranks(toc)
        found = [
            (e.target, rank, lines[e.target].strip()) for e, rank in zip(toc, ranks, strict=True)
        ]
        found = sorted(
            found
            + _unlisted_labels(lines, toc[-1].line + 1, found)
            + _unlisted_numerals(lines, toc[-1].line + 1, found)
        )
    else:
        found = _standalone_headings(lines, start)
    joined = join_labels(lines, found, named=frozenset(e.target for e in toc))
    if first is not None and not toc:  # a contents entry names a half-title as a heading
        joined = _drop_half_title(lines, joined, first[1])
    dense = {level: n + 1 for n, level in enumerate(sorted({h.level for h in joined}))}
    return [replace(h, level=dense[h.level]) for h in joined]


def _standalone_headings(lines: list[str], start: int) -> list[tuple[int, int, str]]:
    """Lines standing alone that look like headings; bare numerals ("XIV") only in
    sequence (``labels.numeral_sequences``), at the chapter rank."""
    found: list[tuple[int, int, str]] = []
    numerals: list[tuple[int, int]] = []
    numbered: list[tuple[int, int]] = []
    for i in range(start, len(lines)):
        if (
            standalone(lines, i)
            and not in_short_run(lines, i)
            and not is_prose(lines[i])
            and heads_text(lines, i)
        ):
            value = bare_numeral(lines[i])
            if value is not None:
                numerals.append((i, value))
                continue
            hit = heading_level(lines[i])
            if hit is not None:
                found.append((i, hit[0], hit[1]))
            elif (value := numbered_title(lines[i])) is not None:
                numbered.append((i, value))
    for series in (numerals, numbered):
        chapters = numeral_sequences(series)
        found += [(i, 2, lines[i].strip()) for i, _ in series if i in chapters]
    return _drop_empty(lines, sorted(found))


def numbered_title(line: str) -> int | None:
    """The number of a short Title Case line numbered "N." that ends with a period ("2.
    Second Day."), else None. Alone such a line may be a list item's sentence; in a
    sequence (1, 2, 3…, see ``numeral_sequences``) it is a chapter."""
    m = _NUMBERED.match(line.strip())
    if m is None or "." in m.group(1):
        return None
    title = m.group(2).rstrip()
    short = len(title.split()) <= MAX_NUMBERED_TITLE_WORDS
    return int(m.group(1)) if short and title.endswith(".") and title_case(title) else None


_SEPARATOR = re.compile(r"[\W_]+")


def _drop_empty(lines: list[str], found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Headings that head no text: one followed by a separator line ("*   *   *"), or by a
    heading of its own rank that heads none either; a dedication's lines ("TO", "W.J.
    HENDERSON", "WHO HAS HELPED ME…", then stars) are set like headings but head nothing."""
    at = {i: level for i, level, _ in found}
    empty: set[int] = set()
    for i, level, _ in reversed(found):
        j = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        rule = j is None or _SEPARATOR.fullmatch(lines[j].strip()) is not None
        if rule or (j in empty and at[j] == level):
            empty.add(i)
    return [h for h in found if h[0] not in empty]


def _unlisted_labels(
    lines: list[str], start: int, found: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Label lines ("CHAPTER IV.") of a series the contents block named, whose own entry
    it missed (reworded in the body), at the rank of the series' named members: a
    contents entry names a chapter's label line or the title line right after it."""
    labels = {
        i: kw
        for i in range(start, len(lines))
        if standalone(lines, i) and (kw := _series_keyword(lines[i])) is not None
    }
    rank: dict[str, int] = {}
    named: set[int] = set()
    for i, level, _ in found:
        p = i if i in labels else _label_before(lines, i)
        if p is not None and p in labels:
            named.add(p)
            rank[labels[p]] = min(level, rank.get(labels[p], level))
    return [
        (i, rank[kw], lines[i].strip()) for i, kw in labels.items() if kw in rank and i not in named
    ]


_LABEL_DASH = re.compile(r"(\S+)\s+\S+?\.?\s*(?:--|—|–)\s*\S")


def _series_keyword(line: str) -> str | None:
    """The keyword of a label line, alone ("CHAPTER IV.") or with its title after a dash
    ("PART I.--DRILL."): the series it belongs to. A label then a space is not enough:
    "Chapter 4 also covers…" opens a paragraph."""
    kw = label_keyword(line)
    if kw is not None:
        return kw
    text = line.strip()
    m = _LABEL_DASH.match(text)
    if m and (_PART.match(text) or _CHAPTER.match(text)):
        return m.group(1).casefold()
    return None


def _unlisted_numerals(
    lines: list[str], start: int, found: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """A bare numeral line ("IX") that fills a gap in a series the contents block named
    (VIII named before, X after, no heading between them, no other IX there): a chapter
    whose entry it missed (an entry wrapped onto two lines), at the named numerals' rank."""
    numerals = {
        i: v
        for i in range(start, len(lines))
        if standalone(lines, i) and (v := bare_numeral(lines[i])) is not None
    }
    named: list[tuple[int, int]] = []  # (line, value)
    levels = []
    for i, level, _ in found:
        p = i if i in numerals else _label_before(lines, i)
        if p is not None and p in numerals:
            named.append((p, numerals[p]))
            levels.append(level)
    headings = sorted(i for i, _, _ in found)
    out = []
    for (a, va), (b, vb) in itertools.pairwise(sorted(named)):
        gap = [i for i, v in numerals.items() if a < i < b and v == va + 1]
        between = bisect_left(headings, b) - bisect_right(headings, a)
        if vb == va + 2 and len(gap) == 1 and between <= 1:  # only b's own title line
            out.append((gap[0], min(levels), lines[gap[0]].strip()))
    return out


_SUBTITLE = re.compile(r"\s*(?:[,:;(]|--|—)")


def _drop_half_title(lines: list[str], found: list[HeadingLine], title: str) -> list[HeadingLine]:
    """The book's title printed again over its first chapter, with no text of its own
    (a half-title: "How to Listen to Music" from "Title: How to Listen to Music, 7th ed."),
    is the title, not a heading."""
    main = _SUBTITLE.split(title, maxsplit=1)[0]
    out = []
    for h, nxt in zip(found, [*found[1:], None], strict=False):  # the last has no next
        last = max(h.line, h.title_line or 0, h.title_end or 0)
        bare = nxt is not None and not any(s.strip() for s in lines[last + 1 : nxt.line])
        if not (bare and same_words(main, h.title)):
            out.append(h)
    return out


MAX_MARGIN = 3  # blank lines beyond this many are all one wide margin


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


def join_labels(
    lines: list[str], found: list[tuple[int, int, str]], named: frozenset[int] = frozenset()
) -> list[HeadingLine]:
    """Headings whose line is only a numbering label ("CHAPTER I.", "II") take the short
    title line after them ("CHAPTER I. The Old Mint."); a heading right after an unnamed
    label line moves up to it the same way (a contents block named the title only)."""
    at = {i: (level, title) for i, level, title in found}
    out: list[HeadingLine] = []
    consumed: set[int] = set()
    for i, level, title in found:
        if i in consumed:
            continue
        if label_only(lines[i]):
            hit = title_after(lines, i)
            if hit is not None:
                consumed.update(range(hit.title_line, hit.title_end + 1))
                level = min(level, at.get(hit.title_line, (level, ""))[0])
                out.append(HeadingLine(i, level, hit.title, hit.title_line, hit.title_end))
                continue
        p = _label_before(lines, i)
        hit = title_after(lines, p, named=i in named) if p is not None and p not in at else None
        if p is not None and hit is not None and hit.title_line == i:
            out.append(HeadingLine(p, level, hit.title, i, hit.title_end))
            continue
        out.append(HeadingLine(i, level, title))
    return out


def _label_before(lines: list[str], i: int) -> int | None:
    """The label line standing alone just before line ``i`` (blank lines between), if any."""
    p = i - 1
    while p >= 0 and i - p <= 4 and not lines[p].strip():
        p -= 1
    if p < 0 or p == i - 1 or not standalone(lines, p) or not label_only(lines[p]):
        return None
    return p


_BOOK_START = re.compile(r"^\*{3} ?START OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
_BOOK_END = re.compile(r"^\*{3} ?END OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
SHORT_LINE = 60
MIN_RUN = 4


def body_bounds(lines: Sequence[str], start: int) -> tuple[int, int]:
    """The lines that can hold headings: inside a Project Gutenberg edition's start and end
    marker lines (its header and licence are not the book), else all from ``start``."""
    begin = next((i + 1 for i, ln in enumerate(lines) if _BOOK_START.match(ln)), start)
    end = next((i for i in range(begin, len(lines)) if _BOOK_END.match(lines[i])), len(lines))
    return max(start, begin), end


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

    text = lines[i].strip()
    if _PART.match(text) or _CHAPTER.match(text) or _NUMBERED.match(text):
        return False  # a numbered heading is evidence enough
    return short(i) and 1 + neighbours(-1) + neighbours(1) >= MIN_RUN


def _toc_ranks(toc: list[TocEntry]) -> list[int]:
    """Each entry's rank: by indentation when the block is indented (unless only
    right-aligned numbers move the line starts: "   I.", "  II.", " III.", see
    ``_right_aligned``), else by the pattern family of its title (entries of no numbered
    family rank with the shallowest one, numbered ones under parts as chapters)."""
    if len({e.indent for e in toc}) > 1 and not _right_aligned(toc):
        # a part sits above every chapter, whatever the indentation: "Part Fourth." and
        # "Chapter I." both flush left (sub-entries indented under the chapters), or the
        # parts centred over flush-left chapters
        arabic = {e.indent for e in toc if _ARABIC_ENTRY.match(e.title)}
        keys = [(not _part_entry(e, arabic), e.indent) for e in toc]
        dense = {k: n for n, k in enumerate(sorted(set(keys)))}
        return [dense[k] for k in keys]
    families = [_family(e.title) for e in toc]
    if 1 in families:  # numbered entries under parts ("PART II." then "III. FAIRIES") are chapters
        families = [
            2 if f is None and numbered(e) else f for e, f in zip(toc, families, strict=True)
        ]
    top = min((f for f in families if f is not None), default=0)
    return [top if f is None else f for f in families]


_ARABIC_ENTRY = re.compile(r"\d+\.?\s")
_ROMAN_ENTRY = re.compile(r"[IVX]{1,5}\.?\s")  # not C, D, L, M: an appendix's letter


def _part_entry(entry: TocEntry, arabic: set[int]) -> bool:
    """Whether an entry is a part: "Part II" ("Book", "Volume"), or numbered in roman
    beside chapters numbered in arabic at its indentation ("I   Basic techniques" over "1
    Introduction", as typeset books print their contents)."""
    if _PART.match(entry.title):
        return True
    return entry.indent in arabic and _ROMAN_ENTRY.match(entry.title) is not None


def _right_aligned(toc: list[TocEntry]) -> bool:
    """Whether the block's indentation is only right-aligned numbers: two numbered
    entries in a row that start in different columns always start their titles in one
    ("   I.", "  II.", " III."), each series in its own (a second series of narrower
    numbers sits further left), and no numbered entry steps in to a title column of its
    own as a sub-entry does."""
    aligned = False
    for a, b in itertools.pairwise(toc):
        if not (numbered(a) and numbered(b)) or a.indent == b.indent:
            continue
        if a.column != b.column:
            return False
        aligned = True
    return aligned or len({e.column for e in toc}) == 1


def numbered(entry: TocEntry) -> bool:
    """Whether an entry starts with a number (its title starts after it)."""
    return entry.column > entry.indent


def _family(title: str) -> int | None:
    """Rank of a title's numbering family: Part 1, Chapter/Appendix 2, ``N.M`` by depth."""
    if _PART.match(title):
        return 1
    if _CHAPTER.match(title):
        return 2
    m = _NUMBERED.match(title)
    return m.group(1).count(".") + 2 if m else None


_META_TITLE = re.compile(r"^\s*title:\s*(\S.*?)\s*$", re.IGNORECASE)
TITLE_SEARCH_LINES = 40


def title_line(lines: Sequence[str]) -> tuple[int, str] | None:
    """The document's title and its line: a ``Title:`` line near the top (Project
    Gutenberg's header), else a first line that stands alone, reads like a title and is
    not a chapter heading (``Chapter 1``, ``Part II``, ``1.2 Scope``)."""
    for i, line in enumerate(lines[:TITLE_SEARCH_LINES]):
        m = _META_TITLE.match(line)
        if m:
            return i, m.group(1)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not standalone(lines, first):
        return None
    text = lines[first].strip()
    if len(text) > MAX_HEADING_CHARS or text.endswith(_END_PUNCT[:3]) or text.startswith("#"):
        return None
    if _PART.match(text) or _CHAPTER.match(text) or _NUMBERED.match(text):
        return None
    return first, text
