"""Heading lines of flat text, in three steps: the lines that may be headings are gathered
once with what each reads as (``candidates``), what the rest of the text says about each
is collected (``evidence``: a contents entry naming it, a series it belongs to, a run of
numerals, how it is set off), and one function weighs that per line (``decide``); the
decided headings are then settled against each other (``settle``: labels joined with
their titles, headings of no text dropped). Underlined titles, when a text has enough,
are the headings instead, as ATX lines are in markdown."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .candidates import gather, with_looks
from .decide import Mode, decide
from .evidence import collect
from .fences import fenced_lines
from .labels import MAX_HEADING_CHARS
from .layout import body_bounds, running_lines, standalone
from .navigation import linked_headings
from .settle import HeadingLine, dense_ranks, drop_empty, drop_half_title, join_labels
from .shapes import END_PUNCT, heading_level, numbering
from .toc import find_toc
from .underlines import underlined_headings

__all__ = ["ATX", "MIN_HEADINGS", "HeadingLine", "find_heading_lines", "heading_level"]

ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
MIN_HEADINGS = 3  # fewer markdown (ATX) headings than this: the heuristics decide


def find_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of the heading lines of a flat text (see
    ``find_heading_lines``; a joined title line is left where it is)."""
    return [(h.line, h.level, h.title) for h in find_heading_lines(lines)]


def find_heading_lines(lines: list[str]) -> list[HeadingLine]:
    """The heading lines of a flat text.

    Underlined titles (a row of ``*``, ``=``, ``-`` below), when the text has at least
    ``MIN_HEADINGS``, are the headings, ranked by underline character. Else what speaks
    for the whole text decides each candidate line (``decide``): navigation links ("Next
    topic: …", at least ``MIN_HEADINGS``) naming headings and their depth; else a
    contents block, when the text has one (its own lines stay text); otherwise lines
    that stand alone (blank or no line before and after) and look like headings. The
    title line at the top is never a heading. Levels come from the links' depth, the
    contents' indentation or each pattern family's rank, renumbered densely from 1.
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
    candidates = gather(lines, start, furniture)
    links = linked_headings(lines, candidates)
    toc = [] if len(links) >= MIN_HEADINGS else find_toc(lines, start, furniture, candidates)
    mode: Mode = "links" if len(links) >= MIN_HEADINGS else "contents" if toc else "looks"
    if mode == "looks":  # nothing names the headings: their looks and setting will
        candidates = with_looks(lines, candidates)
    # links too few to decide are no evidence (they would switch off numbered sections)
    evidence = collect(lines, candidates, toc, links if mode == "links" else {})
    found = [
        (i, rank, c.text)
        for i, c in sorted(candidates.items())
        if (rank := decide(c, evidence[i], mode=mode)) is not None
    ]
    if mode == "looks":
        found = drop_empty(lines, found)
    named = frozenset(links) if mode == "links" else frozenset(e.target for e in toc)
    joined = join_labels(lines, candidates, found, named=named)
    if first is not None and mode == "looks":  # a contents entry names a half-title as a heading
        joined = drop_half_title(lines, joined, first[1])
    return dense_ranks(joined)


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
    if len(text) > MAX_HEADING_CHARS or text.endswith(END_PUNCT[:3]) or text.startswith("#"):
        return None
    if numbering(text):
        return None
    return first, text
