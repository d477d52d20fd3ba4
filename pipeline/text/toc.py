"""Flat text: a table-of-contents block as evidence for the headings of the body.

A contents block is a run of short lines near each other whose titles come back later as
lines standing alone (blank line before and after), in the same order. When a book has
one, its entries say which body lines are headings and at what level (by indentation, or
by the pattern family of the entry when the block is flush left); the block's own lines
stay text.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass

from .candidates import Candidate, gather
from .columns import PairedColumns
from .entries import (
    entry_length,
    entry_title,
    is_prose,
    numbered_key,
    page_locator,
    page_of,
    section_number,
    title_column,
)
from .furniture import is_page_number
from .labels import bare_numeral
from .layout import page_head, standalone
from .side_columns import SideColumns, side_columns
from .titles import entry_key
from .toc_targets import Targets
from .views import LazyLines

MIN_ENTRIES = 3
MIN_SHARE = 0.5  # of the block's lines whose titles come back in the body
MAX_GAP = 2  # blank lines allowed between two entries of one block
MAX_MISSES = 5
MIN_SECOND = 0.8  # of the longest block's entries, in a second contents block


@dataclass(frozen=True, slots=True)
class TocEntry:
    line: int  # the entry's line in the contents block
    indent: int
    column: int  # where the title starts, after a leading number
    title: str
    target: int  # the body line it names


def named_lines(where: Mapping[str, list[int]], title: str) -> list[int]:
    """The body lines an entry's title names, in order: standalone lines of its title,
    and lines of its section number and title (see ``numbered_key``)."""
    found = where.get(entry_key(title), [])
    numbered = numbered_key(title)
    more = where.get(numbered, []) if numbered else []
    return sorted({*found, *more}) if more else found


def find_toc(
    lines: Sequence[str],
    start: int = 0,
    furniture: frozenset[int] = frozenset(),
    candidates: Mapping[int, Candidate] | None = None,
) -> list[TocEntry]:
    """The entries of the best contents block at or after line ``start`` (most entries
    found in the body), each with the body line it names; [] when there is none.
    ``furniture`` lines (running heads and feet) are passed over, so a block can run
    across a page break. An entry names one of the ``candidates`` (gathered from
    ``start`` when not given)."""
    if candidates is None:
        candidates = gather(lines, start, furniture)
    targets = Targets(candidates)  # once: every block tried names the same lines
    best = _best_block(lines, start, furniture, targets)
    for side in side_columns(lines, start):
        # each column names at most one entry a row: fewer rows cannot make more entries
        if 2 * len(side.rows) <= len(best):
            continue
        both = _side_by_side(side, start, furniture, targets)
        if len(both) > len(best):
            best = both
    return best


def _side_by_side(
    side: SideColumns, start: int, furniture: frozenset[int], targets: Targets
) -> list[TocEntry]:
    """The entries of a contents block set in two columns side by side, the left column's
    then the right's, when each column is a block of its own and the right one's headings
    follow the left one's; [] otherwise."""
    # searched within the block's rows only: a -layout paper splits lines on every page,
    # and a search of the whole text per block grew with blocks x lines (4-150x slower)
    first = max(start, side.rows.start)
    left = _best_block(side.left, first, furniture, targets, within=side.rows)
    if not left:
        return []
    right = _best_block(side.right, first, furniture, targets, within=side.rows)
    if not right:
        return []
    return [*left, *right] if left[-1].target < right[0].target else []


def _best_block(
    lines: Sequence[str],
    start: int,
    furniture: frozenset[int],
    targets: Targets,
    within: range | None = None,
) -> list[TocEntry]:
    """The entries of the best contents block of ``lines`` (see ``find_toc``), of the
    blocks whose entries all lie ``within`` those lines when given."""
    # a contents block printed in columns is read with its numbers put back before its
    # titles, its lines of numbers passed over as a page's furniture is, and so are running
    # heads. Blocks tried from every line read every line: then all are read at once; a
    # side-column view's blocks, tried from its rows, read its lines as they reach them
    # (its rows and what follows them, not the rest of a long text).
    read = PairedColumns(lines, start)
    if within is None:
        joined, passed, numbers = _read_all(read, start, furniture)
    else:
        joined, passed, numbers = _read_lazily(read, start, furniture)
    stop = None if within is None else within.stop  # no block starts past the rows
    blocks = _blocks(joined, start, passed, numbers, targets.where, stop)
    # A second contents block about as long as the first (an export's printed contents,
    # then the edition's own as lines standing alone) holds no headings: its lines are no
    # entry's body line. Shorter blocks are left alone: headings set close together, that
    # come back later in the text, can look like one.
    most = max((len(b) for b in blocks), default=0)
    listed = frozenset(e.line for b in blocks if len(b) >= MIN_SECOND * most for e in b)
    if len(listed) > most:
        blocks = _blocks(joined, start, passed, numbers, targets.without(listed), stop)
    if within is not None:
        blocks = [b for b in blocks if all(e.line in within for e in b)]
    return max(blocks, key=len, default=[])


def _read_all(
    read: PairedColumns, start: int, furniture: frozenset[int]
) -> tuple[Sequence[str], Container[int], Container[int]]:
    """The lines as read (see ``_best_block``), the lines passed over (``furniture``, the
    columns' numbers, running heads) and the page numbers, from ``start`` on, at once."""
    joined = list(read)
    heads = {j for j in range(start, len(joined)) if page_head(joined, j)}
    numbers = frozenset(j for j in range(start, len(joined)) if is_page_number(joined[j]))
    return joined, furniture | read.numbers() | heads, numbers


def _read_lazily(
    read: PairedColumns, start: int, furniture: frozenset[int]
) -> tuple[Sequence[str], Container[int], Container[int]]:
    """As ``_read_all``, each line read when first asked for."""
    tested = range(start, len(read))
    passed = LazyLines(
        tested,
        lambda j: j in furniture or read.is_number(j) or page_head(read, j),
        others=furniture,
    )
    return read, passed, LazyLines(tested, lambda j: is_page_number(read[j]))


def _blocks(
    lines: Sequence[str],
    start: int,
    furniture: Container[int],
    numbers: Container[int],
    where: Mapping[str, list[int]],
    stop: int | None = None,
) -> list[list[TocEntry]]:
    """Every contents block starting at or after line ``start`` (and before ``stop``),
    its entries naming lines of ``where``; ``furniture`` lines are passed over, and
    ``numbers`` (a page's number) are no entry."""
    blocks = []
    looks: dict[int, tuple[str, int] | None] = {}  # a line's look, shared by the blocks tried
    i = start
    while i < (len(lines) if stop is None else min(stop, len(lines))):
        block, end = _block(lines, i, where, furniture, looks, numbers)
        if block:
            blocks.append(block)
        i = max(end, i + 1)
    return blocks


def _block(
    lines: Sequence[str],
    i: int,
    where: Mapping[str, list[int]],
    furniture: Container[int],
    looks: dict[int, tuple[str, int] | None],
    numbers: Container[int],
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
    numeral = None  # the value of the entry line before, when a bare numeral
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
        look = _entry_look(lines, j, where, looks)
        if look is None:
            break
        before = numeral
        numeral = bare_numeral(text) if lines[j][:1] == " " else None
        numeral = numeral if _counting(numeral, before) else None
        if j in numbers and numeral is None:
            continue  # "107", "ii", "II": a page's number, no entry (nor the body's heading)
        key, last_named = look
        if numeral is None and _figures(text):
            key = ""  # "20.02.", "2015/05/20": a figure's or a table's figures, no title
        # "39 Page numbers" after "27 Page numbers" is another entry, not the body's heading
        seen = numbered_key(text) or key
        if seen in keys and standalone(lines, j) and not page_locator(text):
            break  # the body has begun: a heading an entry named (a page number repeats)
        if key and last_named > j + 1:
            tried += 1
            hits.append(j)
            # a numbered entry's title alone, the number on a line above it ("\f1", then
            # "Introduction": a chapter's opening page), is the body's heading too
            keys.update({seen, key})
            tried_at_last, misses = tried, 0
            page = max(page, page_of(lines[j]) or 0)
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


def _entry_look(
    lines: Sequence[str],
    j: int,
    where: Mapping[str, list[int]],
    looks: dict[int, tuple[str, int] | None],
) -> tuple[str, int] | None:
    """Line ``j`` as a contents entry: its title key and the last body line it names (-1
    for none), or None when it is too long or reads as prose. Kept in ``looks``: every
    line is tried as the start of a block, and the blocks tried overlap."""
    if j not in looks:
        text = lines[j].strip()
        if not entry_length(text) or is_prose(text):
            looks[j] = None
        else:
            title = entry_title(text)
            named = named_lines(where, title)
            looks[j] = (entry_key(title), named[-1] if named else -1)
    return looks[j]


# a section number alone ("15.5.", plain pdftotext printing it apart from its title):
# no part of it zero-padded, as a date's or a time's are
_SECTION_ALONE = re.compile(r"(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2}))*\.?")


def _figures(text: str) -> bool:
    """Whether a line holds no letter and is no section number: figures, no entry's title
    ("20.02.", "2015/05/20")."""
    return not any(ch.isalpha() for ch in text) and _SECTION_ALONE.fullmatch(text) is None


def _counting(value: int | None, before: int | None) -> bool:
    """Whether an indented bare numeral entry counts sections ("1", "2", "3" of a poem,
    "I", "II" under a story): "1" under a title, or one more than the counting numeral
    right before it. Page numbers are not indented in plain pdftotext's columns, nor
    counted from 1 under a title."""
    if value is None:
        return False
    return (value == 1 and before is None) or (before is not None and value == before + 1)


def _before_furniture(lines: Sequence[str], j: int, furniture: Container[int]) -> bool:
    """Whether only blank lines (at most a page's bottom margin) lie between line ``j`` and a
    running head or foot, or a page's number over the next page's form feed (pdftotext
    -layout's contents running over several pages)."""
    k = j
    while k < len(lines) and k - j < 8 and not lines[k].strip():
        k += 1
    if k in furniture:
        return True
    return k + 1 < len(lines) and is_page_number(lines[k]) and lines[k + 1].startswith("\f")


def _in_number_order(lines: Sequence[str], hits: list[int]) -> list[int]:
    """The entry lines in the order of their section numbers, when the block printed them
    otherwise: plain pdftotext reads a contents set in two columns across them, so "4
    Author Guide" and its sections come before "3 User Guide"'s. An unnumbered entry keeps
    its place after the numbered one before it."""
    keys = []
    numbers = []
    last: tuple[int, ...] = ()
    for h in hits:
        if (number := section_number(lines[h].lstrip("\f"))) is not None:
            last = number
            numbers.append(last)
        keys.append((last, h))
    if len(set(numbers)) < len(numbers) or all(a <= b for a, b in itertools.pairwise(keys)):
        return hits  # in order, or numbered again from 1 (several books' contents)
    return [h for _, h in sorted(keys)]


def _targets(
    lines: Sequence[str], hits: list[int], end: int, where: Mapping[str, list[int]]
) -> list[TocEntry]:
    """Each entry's body line: of the lines after the block carrying the entry's title
    (numbering folded), the choice that names the most entries in order (a longest
    increasing run, so one entry matched too far ahead cannot hide the rest)."""
    hits = _in_number_order(lines, hits)
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
        row = lines[h].lstrip("\f")  # a page break before an entry is no indentation
        indent = len(row) - len(row.lstrip())
        entries.append(TocEntry(h, indent, title_column(row), entry_title(row.strip()), t))
    return entries if len(entries) >= MIN_ENTRIES else []
