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
    if len({e.indent for e in toc}) > 1 and not _right_aligned(toc):
        # a part sits above every chapter, whatever the indentation: "Part Fourth." and
        # "Chapter I." both flush left (sub-entries indented under the chapters), or the
        # parts centred over flush-left chapters
        arabic = {e.indent for e in toc if _ARABIC_ENTRY.match(e.title)}
        keys = [(not _part_entry(e, arabic), e.indent) for e in toc]
        dense = {k: n for n, k in enumerate(sorted(set(keys)))}
        return [dense[k] for k in keys]
    families = [family(e.title) for e in toc]
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
