"""Heading lines of flat text: ATX lines, and lines that stand alone and look like titles
(``Chapter 7``, ``PART II``, ``Appendix A``, ``1.2.3 Title``, ALL CAPS, short Title
Case); ordinary short sentences (terminal punctuation, lowercase content words) are not.
A contents block, when the text has one, names the headings instead."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .fences import fenced_lines
from .toc import TocEntry, find_toc, standalone

ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_ROMAN = r"[IVXLCDM]+"
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
)
_PART = re.compile(rf"(?i:part|book)\s+(?:\d+|{_ROMAN}|(?i:{_NUMBER_WORDS}))\b[.:]?(?:\s.*)?$")
_CHAPTER = re.compile(
    rf"(?i:chapter|appendix|section|lecture|lesson)\s+(?:\d+(?:\.\d+)*|{_ROMAN}|[A-Z]|(?i:{_NUMBER_WORDS}))\b[.:]?(?:\s.*)?$"
)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+([A-Z][^\n]{1,78})$")
_SMALL_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "in",
        "into",
        "nor",
        "of",
        "on",
        "or",
        "over",
        "per",
        "the",
        "to",
        "up",
        "via",
        "vs",
        "with",
    ]
)
_END_PUNCT = (".", ",", ";", ":", "!", "?", "—", "-", '"', "”", ")")
MAX_HEADING_CHARS = 90
MIN_HEADINGS = 3  # fewer markdown (ATX) headings than this: the heuristics decide
MAX_HEADING_WORDS = 12


def heading_level(line: str) -> tuple[int, str] | None:
    """(level, title) if a standalone line looks like a heading, else None.

    Levels: Part 1; Chapter/Appendix/ALL CAPS 2; numbered ``1.2`` by depth + 1;
    Title Case 3. The caller rebases levels so the top one found becomes 1.
    """
    text = line.strip()
    if not text or len(text) > MAX_HEADING_CHARS or "\t" in text:
        return None
    if _PART.match(text):
        return 1, text
    if _CHAPTER.match(text):
        return 2, text
    m = _NUMBERED.match(text)
    if m and _title_like(m.group(2)) and not m.group(2).rstrip().endswith((".", ",", ";")):
        return min(6, m.group(1).count(".") + 2), text
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith(_END_PUNCT[:6]):
        return None
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2:
        return None
    if all(c.isupper() for c in letters) and len(letters) >= 3:
        return 2, text
    if len(words) <= 8 and _title_like(text) and words[0][:1].isupper():
        return 3, text
    return None


def _title_like(text: str) -> bool:
    words = [w.strip("()[]'\"“”‘’") for w in text.split()]
    content = [w for w in words if w and w.lower() not in _SMALL_WORDS]
    if not content:
        return False
    capital = sum(1 for w in content if w[0].isupper() or w[0].isdigit())
    return capital == len(content)


def find_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of the heading lines of a flat text.

    A contents block, when the text has one, names the headings (its own lines stay text);
    otherwise lines that stand alone (blank or no line before and after) and look like
    headings are. The title line at the top is never a heading. Levels come from the
    contents' indentation or from each pattern family's rank, the same through the book,
    renumbered densely from 1.
    """
    first = title_line(lines)
    start = 0 if first is None else first[0] + 1
    code = fenced_lines("\n".join(lines))
    lines = ["" if i in code else line for i, line in enumerate(lines)]
    toc = find_toc(lines, start)
    if toc:
        ranks = _toc_ranks(toc)
        found = [
            (e.target, rank, lines[e.target].strip()) for e, rank in zip(toc, ranks, strict=True)
        ]
    else:
        found = []
        for i in range(start, len(lines)):
            if standalone(lines, i):
                hit = heading_level(lines[i])
                if hit is not None:
                    found.append((i, hit[0], hit[1]))
    dense = {level: n + 1 for n, level in enumerate(sorted({lvl for _, lvl, _ in found}))}
    return [(i, dense[level], title) for i, level, title in found]


def _toc_ranks(toc: list[TocEntry]) -> list[int]:
    """Each entry's rank: by indentation when the block is indented, else by the pattern
    family of its title (entries of no numbered family rank with the shallowest one)."""
    if len({e.indent for e in toc}) > 1:
        return [e.indent for e in toc]
    families = [_family(e.title) for e in toc]
    top = min((f for f in families if f is not None), default=0)
    return [top if f is None else f for f in families]


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
