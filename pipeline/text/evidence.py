"""What the rest of a flat text says about each candidate line (``candidates``): a contents
entry naming it, a series of labels or numerals the contents named that it belongs to, a
run of numerals counting up through it, how it is set off. Each kind of evidence is one
small function here; ``decide`` weighs them."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .candidates import Candidate, label_before, text_before
from .entries import is_prose, section_number
from .labels import ROMAN, numeral_sequences, numeral_value, title_after
from .layout import ends_early
from .shapes import PART
from .toc import TocEntry
from .toc_ranks import toc_ranks


@dataclass(frozen=True, slots=True)
class Evidence:
    contents_rank: int | None = None  # a contents entry names the line, at this rank
    series_rank: int | None = None  # a label line ("CHAPTER IV.") of a series the contents named
    gap_rank: int | None = None  # a bare numeral filling the one gap in a named series
    in_sequence: bool = False  # a bare numeral or "N. Title." in a run counting up by one
    set_off: bool = False  # alone, between paragraphs, heading the text under it
    link_depth: int | None = None  # a "Next topic" link names the line; its depth
    chapter_rank: int | None = None  # a chapter of a numbered series the contents left out
    numeral_rank: int | None = None  # a numeral of a run that divides the titles over it
    section_rank: int | None = None  # "2 Fonts" run into its text, in a run of such numbers


def collect(
    lines: Sequence[str],
    candidates: Mapping[int, Candidate],
    toc: list[TocEntry],
    links: Mapping[int, int],
) -> dict[int, Evidence]:
    """The evidence for every candidate, by line. A contents block, when there is one,
    speaks for the lines after it; without one the runs of numbered lines do; ``links``
    are the depths of the lines navigation links name (``navigation``)."""
    contents = named_by_contents(toc, lines, candidates)
    after = max(e.line for e in toc) + 1 if toc else len(lines)
    series = named_series(lines, candidates, after, contents)
    gaps = numeral_gaps(lines, candidates, after, contents)
    runs = set() if toc else in_sequence(candidates)
    chapters = unnamed_chapters(lines, candidates, after, contents)
    under = numerals_under_titles(lines, candidates, runs)
    sections = {} if toc or links else numbered_sections(lines, candidates)
    return {
        i: Evidence(
            contents.get(i),
            series.get(i),
            gaps.get(i),
            i in runs,
            set_off(c),
            links.get(i),
            chapters.get(i),
            under if i in runs else None,
            sections.get(i),
        )
        for i, c in candidates.items()
    }


def named_by_contents(
    toc: list[TocEntry], lines: Sequence[str], candidates: Mapping[int, Candidate]
) -> dict[int, int]:
    """The body lines the contents entries name, each with its entry's rank. An entry
    whose body line sits under a page-opening part label ("\\fPart I", then "Basic
    techniques") is a part, above every chapter, when its contents line did not say so
    (plain pdftotext prints the part's numeral on a line of its own)."""
    ranks = toc_ranks(toc)
    parts = {
        k
        for k, e in enumerate(toc)
        if e.target > 0
        and candidates[e.target].under_label
        and (label := text_before(lines, e.target)) is not None
        and PART.match(lines[label].strip())
    }
    others = [r for k, r in enumerate(ranks) if k not in parts]
    if parts and others and min(others) <= max(ranks[k] for k in parts):
        ranks = [0 if k in parts else r - min(others) + 1 for k, r in enumerate(ranks)]
    return {e.target: rank for e, rank in zip(toc, ranks, strict=True)}


MIN_UNNAMED = 5  # chapters counting up before a series the contents left out is one
# "Chapter 1. Loomings.": a chapter's label with its title on the line
_CHAPTER_NUMBER = re.compile(rf"(?i:chapter|chap\.)\s+(\d{{1,3}}|{ROMAN})\b[.:]?\s+\w")


def unnamed_chapters(
    lines: Sequence[str], candidates: Mapping[int, Candidate], after: int, named: dict[int, int]
) -> dict[int, int]:
    """Chapters counting up by one, each label with its title ("Chapter 1. Loomings.",
    "Chapter 2. The Carpet-Bag."), at least ``MIN_UNNAMED`` standing alone after the
    contents, when the contents names none of them and fewer headings than they are (a
    brief contents of the front matter and "Begin Reading", as an ebook prints it): at
    the rank of its top entries."""
    labels = {label_before(lines, candidates, i) for i in named}
    if not named or any(_CHAPTER_NUMBER.match(lines[i].strip()) for i in {*named, *labels} if i):
        return {}  # the contents names the series (or the titles under its labels)
    values = []
    for i, c in sorted(candidates.items()):
        m = _CHAPTER_NUMBER.match(c.text) if i >= after and c.standalone else None
        if m is not None and (value := numeral_value(m.group(1))) is not None:
            values.append((i, value))
    if len({v for _, v in values}) < len(values):
        return {}  # a number printed again: running heads ("Chapter 2. Variables" a page)
    chain = numeral_sequences(values)
    if len(chain) < MIN_UNNAMED or len(chain) <= len(named):
        return {}  # a contents naming more than the series has them inside one of its entries
    return dict.fromkeys(chain, min(named.values()))


def numerals_under_titles(
    lines: Sequence[str], candidates: Mapping[int, Candidate], runs: set[int]
) -> int | None:
    """The rank of the runs of bare numerals that divide the titles over them: each run's
    "I" stands right under a title set as a heading and heads text, with no title of its
    own ("A Scandal in Bohemia", "I", then the story's first paragraph): one rank below
    the lowest such title. None otherwise: a numeral with its title after it ("I",
    "_Introduction_") is a chapter's label, whatever stands over it."""
    firsts = [i for i in runs if candidates[i].numeral == 1]
    titles = []
    for i in firsts:
        p = i - 1
        while p >= 0 and not lines[p].strip():
            p -= 1
        c = candidates.get(p)
        if c is None or c.shape is None or not set_off(c) or title_after(lines, i):
            return None
        titles.append(c.shape)
    return max(titles) + 1 if titles else None


SECTION_RANK = 2  # a chapter's, as ``shapes.heading_level`` ranks "2 Fonts"


def numbered_sections(lines: Sequence[str], candidates: Mapping[int, Candidate]) -> dict[int, int]:
    """Numbered headings with no contents block to name them (a paper or a short manual:
    pdftotext prints "2 Fonts" with its text straight after, or "3 An example file" in
    sentence case between blank lines): lines opening a paragraph, numbered "N Title" (a
    capital after the number), set off or ending before the text's width
    (``layout.ends_early``), whose numbers count up by one in a run of at least
    ``labels.MIN_SEQUENCE``; and the "N.M Title" lines between chapter N and the next, a
    rank below. A numbered list's items run on without blank lines, or stand between
    blank lines with nothing under them ("1 Download the archive", "", "2 Unpack it"), a
    numbered step is a sentence, and a numbered note's first line runs to the text's
    width."""
    tops: list[tuple[int, int]] = []
    subs: list[tuple[int, tuple[int, ...]]] = []
    for i, c in sorted(candidates.items()):
        if not (c.section_key and c.after_blank and c.entry_sized) or c.short_run:
            continue
        if not (set_off(c) if c.standalone else ends_early(lines, i)):
            continue  # an item of a list; a paragraph's first line, wrapped at full width
        row = lines[i].lstrip("\f")
        number = section_number(row)
        title = row.split(None, 1)[1] if number is not None else ""
        if number is None or not title[:1].isupper() or is_prose(row):
            continue
        if title.rstrip().endswith((".", ",", ";", ":")):
            continue  # "1. Install the package here.": a numbered step, a sentence
        if len(number) == 1:
            tops.append((i, number[0]))
        else:
            subs.append((i, number))
    chapters = sorted(numeral_sequences(_heading_text(lines, tops)))
    if not chapters:
        return {}
    value = dict(tops)
    out = dict.fromkeys(chapters, SECTION_RANK)
    for a, b in zip(chapters, [*chapters[1:], len(lines)], strict=True):
        for i, number in subs:
            if a < i < b and number[0] == value[a]:
                out[i] = SECTION_RANK + len(number) - 1
    return out


def _heading_text(lines: Sequence[str], tops: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The numbered lines of ``tops`` with text under them before the next one (a list's
    items set apart by blank lines have none)."""
    ends = [i for i, _ in tops[1:]] + [len(lines)] if tops else []
    return [
        (i, n)
        for (i, n), end in zip(tops, ends, strict=True)
        if any(lines[j].strip(" \f") for j in range(i + 1, end))
    ]


def set_off(c: Candidate) -> bool:
    """Whether a line is set as a heading: alone between blank lines, not an item of a list
    or an index, not prose, no wider margin below it than above (``layout.heads_text``)."""
    return c.standalone and not c.short_run and not c.prose and c.heads_text


def named_series(
    lines: Sequence[str], candidates: Mapping[int, Candidate], after: int, named: dict[int, int]
) -> dict[int, int]:
    """Label lines ("CHAPTER IV.") from line ``after`` on of a series the contents named,
    whose own entry it missed (reworded in the body), at the rank of the series' named
    members: a contents entry names a chapter's label line or the title line right after
    it."""
    labels = {
        i: c.keyword
        for i, c in candidates.items()
        if i >= after and c.standalone and c.keyword is not None
    }
    rank: dict[str, int] = {}
    members: set[int] = set()
    for i, level in named.items():
        p = i if i in labels else label_before(lines, candidates, i)
        if p is not None and p in labels:
            members.add(p)
            rank[labels[p]] = min(level, rank.get(labels[p], level))
    return {i: rank[kw] for i, kw in labels.items() if kw in rank and i not in members}


def numeral_gaps(
    lines: Sequence[str], candidates: Mapping[int, Candidate], after: int, named: dict[int, int]
) -> dict[int, int]:
    """A bare numeral line ("IX") from line ``after`` on that fills a gap in a series the
    contents named (VIII named before, X after, no heading between them, no other IX
    there): a chapter whose entry it missed (an entry wrapped onto two lines), at the
    named numerals' rank."""
    numerals = {
        i: c.numeral
        for i, c in candidates.items()
        if i >= after and c.standalone and c.numeral is not None
    }
    members: list[tuple[int, int]] = []  # (line, value)
    levels = []
    for i, level in named.items():
        p = i if i in numerals else label_before(lines, candidates, i)
        if p is not None and p in numerals:
            members.append((p, numerals[p]))
            levels.append(level)
    headings = sorted(named)
    out = {}
    for (a, va), (b, vb) in itertools.pairwise(sorted(members)):
        gap = [i for i, v in numerals.items() if a < i < b and v == va + 1]
        between = bisect_left(headings, b) - bisect_right(headings, a)
        if vb == va + 2 and len(gap) == 1 and between <= 1:  # only b's own title line
            out[gap[0]] = min(levels)
    return out


def in_sequence(candidates: Mapping[int, Candidate]) -> set[int]:
    """The set-off lines in runs counting up by one (``labels.numeral_sequences``): bare
    numerals ("XIV"), and apart from them short numbered titles ending in a period ("2.
    Second Day.") that look like no other heading."""
    numerals: list[tuple[int, int]] = []
    numbered: list[tuple[int, int]] = []
    for i, c in sorted(candidates.items()):
        if not set_off(c):
            continue
        if c.numeral is not None:
            numerals.append((i, c.numeral))
        elif c.shape is None and c.numbered_title is not None:
            numbered.append((i, c.numbered_title))
    return numeral_sequences(numerals) | numeral_sequences(numbered)
