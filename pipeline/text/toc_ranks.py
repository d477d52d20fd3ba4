"""The rank of each entry of a contents block: by indentation when the block is indented,
else by its numbering family (Part, Chapter, ``N.M``)."""

from __future__ import annotations

import itertools
import re

from .shapes import PART, family
from .toc import TocEntry


def toc_ranks(toc: list[TocEntry]) -> list[int]:
    """Each entry's rank: by indentation when the block is indented (unless only
    right-aligned numbers move the line starts: "   I.", "  II.", " III.", see
    ``_right_aligned``), else by the pattern family of its title (entries of no numbered
    family rank with the shallowest one, numbered ones under parts as chapters)."""
    chained = _chain_ranks(toc)
    if chained is not None:
        return chained
    if len({e.indent for e in toc}) > 1 and not _right_aligned(toc):
        # a part sits above every chapter, whatever the indentation: "Part Fourth." and
        # "Chapter I." both flush left (sub-entries indented under the chapters), or the
        # parts centred over flush-left chapters
        arabic = {e.indent for e in toc if _ARABIC_ENTRY.match(e.title)}
        keys = [(not _part_entry(e, arabic), e.indent) for e in toc]
        dense = {k: n for n, k in enumerate(sorted(set(keys)))}
        return [dense[k] for k in keys]
    families = [_family(e) for e in toc]
    if 1 in families:  # numbered entries under parts ("PART II." then "III. FAIRIES") are chapters
        families = [
            2 if f is None and numbered(e) else f for e, f in zip(toc, families, strict=True)
        ]
    top = min((f for f in families if f is not None), default=0)
    if top > _SUBSECTION:  # only "1.1" entries numbered: the plain titles over them are
        top -= 1  # their chapters, whose numbers were printed apart ("1", "Was ist Syntax?")
    return [top if f is None else f for f in families]


_SUBSECTION = 2  # ``shapes.family`` of "1 Title"; "1.1 Title" is 3


# a section number's chain: "2.", "2.1.", "A.3", "10.13." (a letter only first: an appendix)
_CHAIN = re.compile(r"(?:\d{1,3}|[A-Z](?=\.\d|\.\s))(?:\.\d{1,3})*\.?\s")
_MIN_CHAINED = 3  # sub-entries numbered N.M before a chain outranks the indentation


def _chain_ranks(toc: list[TocEntry]) -> list[int] | None:
    """Ranks by the depth of each entry's section number, when the block's numbers are
    chains ("2." over "2.1.") and its indentation contradicts them: pdftotext -layout
    sets each page of a contents in its own columns, so "3.8." sits six columns in where
    "3.7." sat three. Unnumbered entries ("Preface", "Index") take the rank of the
    numbered ones at their indentation, else the top; parts stay above."""
    depth = [_chain_depth(e) for e in toc]
    if sum(d >= 2 for d in depth) < _MIN_CHAINED or 2 * sum(d > 0 for d in depth) < len(toc):
        return None
    indents: dict[int, set[int]] = {}
    for e, d in zip(toc, depth, strict=True):
        if d:
            indents.setdefault(d, set()).add(e.indent)
    if all(len(v) == 1 for v in indents.values()):
        return None  # the indentation says the same: its ranks stand
    at: dict[int, list[int]] = {}
    for e, d in zip(toc, depth, strict=True):
        if d:
            at.setdefault(e.indent, []).append(d)
    ranks = [
        d or (max(set(at[e.indent]), key=at[e.indent].count) if e.indent in at else 1)
        for e, d in zip(toc, depth, strict=True)
    ]
    arabic = {e.indent for e in toc if _ARABIC_ENTRY.match(e.title)}
    parts = [_part_entry(e, arabic) for e in toc]
    return [0 if p else r - (not any(parts)) for p, r in zip(parts, ranks, strict=True)]


def _family(entry: TocEntry) -> int | None:
    """An entry's numbering family (``shapes.family``), a section number's depth too when
    the title after it is in lower case ("4.9. docstring", a program's name)."""
    found = family(entry.title)
    if found is None and (depth := _chain_depth(entry)) >= 2:
        return depth + 1
    return found


def _chain_depth(entry: TocEntry) -> int:
    """How many numbers an entry's section number chains ("2.1." two), 0 for none."""
    m = _CHAIN.match(entry.title)
    return m.group(0).count(".") + (not m.group(0).rstrip().endswith(".")) if m else 0


_ARABIC_ENTRY = re.compile(r"\d+\.?\s")
_ROMAN_ENTRY = re.compile(r"[IVX]{1,5}\.?\s")  # not C, D, L, M: an appendix's letter


def _part_entry(entry: TocEntry, arabic: set[int]) -> bool:
    """Whether an entry is a part: "Part II" ("Book", "Volume"), or numbered in roman
    beside chapters numbered in arabic at its indentation ("I   Basic techniques" over "1
    Introduction", as typeset books print their contents)."""
    if PART.match(entry.title):
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
