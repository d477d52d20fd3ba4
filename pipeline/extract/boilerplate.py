"""Detect page boilerplate in paginated text: pure functions over per-page line lists.

Kinds: ``page_number`` (a bare number at the top or bottom of a page), ``running_header``
(the same line, digits normalized, at the top or bottom of more than three pages, and on
a good share of the pages it spans; or an edge line beginning or ending with the printed
page number, the same offset from the physical page on many pages), ``toc``
(table-of-contents entries: dot leaders, or trailing page numbers on a contents page),
``index`` (back-of-book index pages) and ``copyright`` (copyright / all-rights-reserved /
ISBN lines in the front or back matter).

Body text that merely resembles these is kept: a number in the middle of a page, one line
ending in a number, a sentence that mentions copyright on page 50.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model import BoilerplateKind, RemovedLine
from ..text.furniture import DOT_LEADER, ROMAN, is_page_number

EDGE_LINES = 2  # non-empty lines at the top and at the bottom of a page that count as edges
MIN_REPEAT_PAGES = 4  # a running header is on more than three pages
MIN_REPEAT_DENSITY = 0.3  # ... and on this share of the pages between its first and last

# the page number ending a contents entry: the last word, after white space
_LAST_NUMBER = re.compile(r"\s+(?:\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7})$")


_NUMERAL_ENDS = frozenset("ivxlcIVXLC")


def _trailing_number(text: str) -> bool:
    """``text`` is a title ending in a page number: what
    ``^.*[^\\W\\d_].*?\\S\\s+(?:\\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7})$`` matches, in linear
    time (that pattern backtracks quadratically on every line that does not end in a
    number): the number is the last word, and the title before it holds a letter before
    its last character and no line break."""
    last = text[-1:]  # what the pattern can end on (``$`` before a final line break too)
    if not (last.isdecimal() or last in _NUMERAL_ENDS or last == "\n"):
        return False
    m = _LAST_NUMBER.search(text)
    if m is None:
        return False
    title = text[: m.start()]
    return (
        len(title) >= 2
        and "\n" not in title
        and any(c.isalnum() and not c.isdecimal() for c in title[:-1])
    )


# a number after another number ("Inventories (509) (387) 57"): a row of figures, not
# a contents entry's page number
_FIGURES = re.compile(r"[\d)%—–-]\s+\S+$")
CONTENTS_TITLE = re.compile(
    r"^(?:table\s+of\s+)?contents?$|^inhaltsverzeichnis$|^inhalt$|^sommaire$|^table des matières$",
    re.IGNORECASE,
)
_INDEX_TITLE = re.compile(
    r"^(?:general\s+|subject\s+|author\s+|name\s+)?index(?:\s+of\s+\w+)?$|^register$|^stichwortverzeichnis$",
    re.IGNORECASE,
)
_INDEX_ENTRY = re.compile(
    r"^.{1,120}?(?:[\s,.:]|\.{2,})\s*(?:\d{1,4}[a-z]?|[ivxlc]{1,6})"
    r"(?:\s*(?:[,;–\-]|\s)\s*(?:\d{1,4}[a-z]?|[ivxlc]{1,6}))*\s*$"
)
_INDEX_MISC = re.compile(r"^(?:[A-Z]|[A-Z][a-z]?|(?:see(?:\s+also)?\b).*)$", re.IGNORECASE)
_COPYRIGHT = re.compile(
    r"(?:^|\s)(?:©|\(c\)|copyright\s+(?:©|\(c\)|(?:1[5-9]|20)\d{2}\b))"
    r"|all\s+rights\s+reserved",
    re.IGNORECASE,
)
_ISBN = re.compile(
    r"^(?:(?:print|e-?book|hardcover|paperback|pdf)\s*)?[:(]?\s*e?ISBN(?:-1[03])?\b"
    r"[\s:]*(?:1[03][\s:]+)?[\dXx][\d\-\s‐–Xx]{8,}",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_ROMAN_TOKEN = re.compile(rf"\b(?=[ivxlc]+\b){ROMAN}\b")
_SPACES = re.compile(r"\s+")


def _leaders(text: str) -> bool:
    """Whether ``text`` holds the four leader characters ``DOT_LEADER`` needs at least (a
    count is a tenth of its match on a line without them)."""
    return text.count(".") + text.count("·") + text.count("…") >= 4


def _collapse(text: str) -> str:
    """``text`` with each run of blanks one space; as it is when its only blanks are single
    spaces (every other character ``\\s`` matches is not printable)."""
    if "  " not in text and text.isprintable():
        return text
    return _SPACES.sub(" ", text)


@dataclass(frozen=True, slots=True)
class BoilerplateResult:
    """Which lines of which pages are boilerplate, and the lines that remain."""

    kept: tuple[tuple[str, ...], ...]
    kept_indices: tuple[tuple[int, ...], ...]
    removed: tuple[RemovedLine, ...]

    def removed_set(self) -> frozenset[tuple[int, int]]:
        """``(page, line)`` pairs removed, page 1-based."""
        return frozenset(
            (r.page, r.line) for r in self.removed if r.page is not None and r.line is not None
        )


def normalize_repeated(line: str) -> str:
    """The key under which running headers compare: case and digits folded."""
    s = _SPACES.sub(" ", line.strip()).casefold()
    s = _DIGITS.sub("#", s)
    return _ROMAN_TOKEN.sub("#", s)


def _edge_positions(lines: Sequence[str], edge: int) -> tuple[list[int], list[int]]:
    nonempty = [i for i, s in enumerate(lines) if s.strip()]
    return nonempty[:edge], nonempty[-edge:] if nonempty else []


_HEAD_NUMBER = re.compile(r"^(\d{1,4})\s+\S.*|.*\S\s+(\d{1,4})$")
# "Chapter 1" opening a chapter on printed page 1 is a label, not a running head
_LABEL = re.compile(r"^(?:chapter|part|book|appendix|section|lecture)\.?\s+\d+$", re.IGNORECASE)


def _numbered_heads(
    pages: Sequence[Sequence[str]],
    edges: Sequence[tuple[list[int], list[int]]],
    taken: Mapping[tuple[int, int], str],
) -> list[tuple[int, int]]:
    """Edge lines that begin or end with the printed page number ("4.2 Adding new methods
    53"): the number minus the physical page is the same offset on many pages, which a
    number that is part of a title or a sentence is not."""
    by_offset: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for p, lines in enumerate(pages):
        top, bottom = edges[p]
        for i in {*top[:1], *bottom[-1:]}:
            text = lines[i].strip()
            m = _HEAD_NUMBER.match(text)
            if (p, i) not in taken and m and len(text) <= 160 and not _LABEL.match(text):
                by_offset[int(m.group(1) or m.group(2)) - p].append((p, i))
    if not by_offset:
        return []
    found = max(by_offset.values(), key=len)
    pages_at = {p for p, _ in found}
    span = max(pages_at) - min(pages_at) + 1
    if len(pages_at) < MIN_REPEAT_PAGES or len(pages_at) / span < MIN_REPEAT_DENSITY:
        return []
    return found


Marks = dict[tuple[int, int], BoilerplateKind]  # (page, line) -> what the line is


def detect_boilerplate(
    pages: Sequence[Sequence[str]], *, edge_lines: int = EDGE_LINES
) -> BoilerplateResult:
    """Classify lines of ``pages`` (one list of lines per physical page) as boilerplate:
    each kind in turn, a line taken by one kind is not looked at by the next."""
    edges = [_edge_positions(lines, edge_lines) for lines in pages]
    kind_of: Marks = {}
    _mark_page_numbers(pages, edges, kind_of)
    # running heads that print the page number beside a title that changes
    kind_of.update(dict.fromkeys(_numbered_heads(pages, edges, kind_of), "running_header"))
    _mark_repeated_edges(pages, edges, kind_of)
    _mark_front_and_back_matter(pages, kind_of)
    return _split(pages, kind_of)


def _mark_page_numbers(
    pages: Sequence[Sequence[str]], edges: Sequence[tuple[list[int], list[int]]], kind_of: Marks
) -> None:
    """A bare page number as the first or last line of a page."""
    for p, lines in enumerate(pages):
        top, bottom = edges[p]
        for i in {*top[:1], *bottom[-1:]}:
            if is_page_number(lines[i]):
                kind_of[(p, i)] = "page_number"


# the ASCII characters that are not letters (``str.isalpha``)
_ASCII_NON_LETTER = bytes(c for c in range(128) if not chr(c).isalpha())


def _three_letters(text: str) -> bool:
    """Whether ``text`` holds three letters or more; an ASCII text counted through a byte
    table (a tenth of the time of a count per character)."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _ASCII_NON_LETTER)) >= 3
    return sum(ch.isalpha() for ch in text) >= 3


def _mark_repeated_edges(
    pages: Sequence[Sequence[str]], edges: Sequence[tuple[list[int], list[int]]], kind_of: Marks
) -> None:
    """Running headers and footers: the same normalized edge line on many pages."""
    seen: dict[tuple[str, str], dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for p, lines in enumerate(pages):
        top, bottom = edges[p]
        for where, idxs in (("top", top), ("bottom", bottom)):
            for i in idxs:
                text = lines[i].strip()
                if (p, i) in kind_of or len(text) > 160 or not _three_letters(text):
                    continue
                seen[(where, normalize_repeated(text))][p].append(i)
    for by_page in seen.values():
        span = max(by_page) - min(by_page) + 1
        if len(by_page) < MIN_REPEAT_PAGES or len(by_page) / span < MIN_REPEAT_DENSITY:
            continue
        for p, idxs in by_page.items():
            for i in idxs:
                kind_of[(p, i)] = "running_header"


@dataclass(frozen=True, slots=True)
class _Page:
    """The lines of one page not marked yet, as the contents, index and copyright rules
    read them."""

    number: int  # physical, from 0
    count: int  # pages in the document
    texts: dict[int, str]  # line index -> text with spacing collapsed
    dots: list[int]  # dot-leader lines

    @classmethod
    def of(cls, p: int, lines: Sequence[str], count: int, kind_of: Marks) -> _Page:
        texts = {
            i: _collapse(t)
            for i, s in enumerate(lines)
            if (t := s.strip()) and (p, i) not in kind_of
        }
        dots = [i for i, t in texts.items() if _leaders(t) and DOT_LEADER.match(t)]
        return cls(p, count, texts, dots)

    def trailing(self) -> list[int]:
        """Lines ending in a page number (not a row of figures), dot leaders aside: read
        only where a contents page may be (most pages are not looked at for it)."""
        dots = set(self.dots)
        return [
            i
            for i, t in self.texts.items()
            if i not in dots and _trailing_number(t) and not _FIGURES.search(t)
        ]

    def titled(self, title: re.Pattern[str]) -> bool:
        return any(title.match(t) for t in list(self.texts.values())[:5])

    def index_lines(self) -> list[int]:
        return [
            i
            for i, t in self.texts.items()
            if _INDEX_ENTRY.match(t) or _INDEX_MISC.match(t) or i in self.dots
        ]


def _mark_front_and_back_matter(pages: Sequence[Sequence[str]], kind_of: Marks) -> None:
    """Table-of-contents entries, back-of-book index pages and copyright lines."""
    in_index = False
    for p, lines in enumerate(pages):
        page = _Page.of(p, lines, len(pages), kind_of)
        if not page.texts:
            continue
        in_index = _index_continues(page, in_index)
        if in_index:
            for i, t in page.texts.items():
                if not _INDEX_TITLE.match(t):
                    kind_of[(p, i)] = "index"
            continue
        _mark_contents(page, kind_of)
        if p < 5 or p >= len(pages) - 2:
            _mark_copyright(page, kind_of)


def _index_continues(page: _Page, in_index: bool) -> bool:
    """An index starts on a titled page in the back matter and runs while pages look like
    index entries."""
    starts = page.number >= page.count * 0.6 and page.titled(_INDEX_TITLE)
    if not (starts or in_index):  # neither rule can hold: the entries are not read
        return False
    index_like = page.index_lines()
    share = len(index_like) / len(page.texts)
    if starts and share >= 0.5 and len(index_like) >= 6:
        return True
    return in_index and share >= 0.5 and len(index_like) >= 4


def _mark_contents(page: _Page, kind_of: Marks) -> None:
    """A contents page (mostly entries, in the front matter or titled so): its entries
    and the wrapped titles between them. Elsewhere only dot leaders, two or more."""
    front = page.number < max(15, page.count // 5)
    p = page.number
    contents = front or page.titled(CONTENTS_TITLE)
    trailing = page.trailing() if contents else []
    tocish = len(page.dots) + len(trailing)
    if contents and tocish >= 4 and tocish / len(page.texts) >= 0.5:
        marked = sorted({*page.dots, *trailing})
        for i in marked:
            kind_of[(p, i)] = "toc"
        for a, b in itertools.pairwise(marked):
            for i in range(a + 1, b):
                t = page.texts.get(i)
                if t is not None and len(t) <= 90 and not CONTENTS_TITLE.match(t):
                    kind_of[(p, i)] = "toc"
    elif len(page.dots) >= 2:
        for i in page.dots:
            kind_of[(p, i)] = "toc"


def _mark_copyright(page: _Page, kind_of: Marks) -> None:
    for i, t in page.texts.items():
        free = (page.number, i) not in kind_of and len(t) <= 160
        if free and (_COPYRIGHT.search(t) or _ISBN.search(t)):
            kind_of[(page.number, i)] = "copyright"


def _split(pages: Sequence[Sequence[str]], kind_of: Marks) -> BoilerplateResult:
    """The lines kept per page (with their indices) and the lines removed."""
    kept: list[tuple[str, ...]] = []
    kept_idx: list[tuple[int, ...]] = []
    removed: list[RemovedLine] = []
    marked = {p for p, _ in kind_of}  # most pages lose no line: kept whole
    for p, lines in enumerate(pages):
        if p not in marked:
            kept.append(tuple(lines))
            kept_idx.append(tuple(range(len(lines))))
            continue
        ks: list[str] = []
        ki: list[int] = []
        for i, line in enumerate(lines):
            kind = kind_of.get((p, i))
            if kind is None:
                ks.append(line)
                ki.append(i)
            else:
                removed.append(RemovedLine(page=p + 1, line=i, kind=kind, text=line.strip()))
        kept.append(tuple(ks))
        kept_idx.append(tuple(ki))
    return BoilerplateResult(kept=tuple(kept), kept_indices=tuple(kept_idx), removed=tuple(removed))


__all__ = ["CONTENTS_TITLE", "BoilerplateResult", "detect_boilerplate", "normalize_repeated"]
