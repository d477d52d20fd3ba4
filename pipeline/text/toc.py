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
from .titles import norm_title

MAX_ENTRY_CHARS = 100
MIN_ENTRIES = 3
MIN_SHARE = 0.5  # of the block's lines whose titles come back in the body
MAX_GAP = 2  # blank lines allowed between two entries of one block
MAX_MISSES = 5
_LEADER = re.compile(r"(?:\s*[.·…]){2,}\s*\S*$|\s{2,}(?:\d{1,4}|[ivxlc]{1,7})$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TocEntry:
    line: int  # the entry's line in the contents block
    indent: int
    title: str
    target: int  # the body line it names


def entry_title(line: str) -> str:
    """An entry's title without dot leaders or a trailing page number."""
    return _LEADER.sub("", line).strip()


def standalone(lines: Sequence[str], i: int) -> bool:
    return (
        bool(lines[i].strip())
        and (i == 0 or not lines[i - 1].strip())
        and (i + 1 >= len(lines) or not lines[i + 1].strip())
    )


def find_toc(lines: Sequence[str], start: int = 0) -> list[TocEntry]:
    """The entries of the best contents block at or after line ``start`` (most entries
    found in the body), each with the body line it names; [] when there is none."""
    where: dict[str, list[int]] = {}
    for i in range(start, len(lines)):
        if standalone(lines, i) and len(lines[i]) <= MAX_ENTRY_CHARS:
            where.setdefault(norm_title(lines[i]), []).append(i)
    best: list[TocEntry] = []
    i = start
    while i < len(lines):
        block, end = _block(lines, i, where)
        if len(block) > len(best):
            best = block
        i = max(end, i + 1)
    return best


def _block(lines: Sequence[str], i: int, where: dict[str, list[int]]) -> tuple[list[TocEntry], int]:
    """The contents block starting at line ``i``, if one does, and the line after it.

    The block runs over short lines while titles keep coming back in the body: it ends at
    a long line, at a heading one of its entries named, after ``MAX_GAP`` blank lines or
    after ``MAX_MISSES`` entries in a row that name nothing (an entry may: its heading was
    reworded in the body).
    """
    hits: list[int] = []
    keys: set[str] = set()
    tried = tried_at_last = blanks = misses = 0
    for j in range(i, len(lines)):
        text = lines[j].strip()
        if not text:
            blanks += 1
            if blanks > MAX_GAP:
                break
            continue
        blanks = 0
        if len(text) > MAX_ENTRY_CHARS:
            break
        key = norm_title(entry_title(text))
        if key in keys and standalone(lines, j):
            break  # the body has begun: a heading an entry named
        if key and any(k > j + 1 for k in where.get(key, ())):
            tried += 1
            hits.append(j)
            keys.add(key)
            tried_at_last, misses = tried, 0
        elif is_page_number(text):
            continue
        elif not hits or misses >= MAX_MISSES:
            break
        else:
            tried += 1
            misses += 1
    end = (hits[-1] + 1) if hits else i + 1
    # a block repeating its lines is body text (a refrain), not contents
    distinct = len({lines[h].strip() for h in hits})
    if distinct < MIN_ENTRIES or distinct < MIN_SHARE * tried_at_last:
        return [], end
    return _targets(lines, hits, end, where), end


def _targets(
    lines: Sequence[str], hits: list[int], end: int, where: dict[str, list[int]]
) -> list[TocEntry]:
    """Each entry's body line: of the lines after the block carrying the entry's title
    (numbering folded), the choice that names the most entries in order (a longest
    increasing run, so one entry matched too far ahead cannot hide the rest)."""
    items: list[tuple[int, int]] = []  # (body line, entry); an entry's lines descending
    for n, h in enumerate(hits):
        later = where[norm_title(entry_title(lines[h].strip()))]
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
        entries.append(TocEntry(h, indent, entry_title(lines[h].strip()), t))
    return entries if len(entries) >= MIN_ENTRIES else []
