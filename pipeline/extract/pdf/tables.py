"""Tables in a PDF page's lines: runs of rows whose cells sit in the same columns.

pypdf gives no table structure, only where each run of text starts. ``LineCollector``
keeps the horizontally separate runs of a line as its ``cells``; a table is three or more
consecutive lines with the same number (≥ 2) of cells, each cell inside the column band
that the first row (the header) opens, most columns left-aligned to within a few points,
rows evenly stacked, and cells short. Anything less clear stays text: a missed table
costs a little structure, a garbage table costs the reader's trust.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from .layout import Line

MIN_ROWS = 3
MAX_CELL = 80  # characters: longer runs are prose, not cells


class Table(NamedTuple):
    end: int  # exclusive line index
    rows: tuple[tuple[str, ...], ...]  # header first


def _fits(line: Line, anchors: Sequence[float], tol: float) -> bool:
    cells = line.cells
    if len(cells) != len(anchors) or line.mono:
        return False
    if abs(cells[0][0] - anchors[0]) > tol:
        return False
    for k, (x, _) in enumerate(cells):
        lo = anchors[k] - tol
        hi = anchors[k + 1] - tol if k + 1 < len(anchors) else float("inf")
        if not lo <= x < hi:
            return False
    return True


def _continues_cell(line: Line, anchors: Sequence[float], tol: float) -> bool:
    return not line.cells and line.x >= anchors[1] - tol


def _plausible(rows: Sequence[Line], anchors: Sequence[float], tol: float) -> bool:
    texts = [t for r in rows for _, t in r.cells]
    if any(len(t) > MAX_CELL for t in texts):
        return False
    mean = sum(len(t) for t in texts) / len(texts)
    ncols = len(anchors)
    if mean > (25 if ncols == 2 else 40):  # two columns of prose set side by side
        return False
    if sum(1 for r in rows if r.cells[-1][1].endswith("-")) >= 2:  # hyphenated prose
        return False
    # most columns start at the same x on every row (the rest may be right-aligned)
    stable = sum(
        1 for k in range(ncols) if all(abs(r.cells[k][0] - anchors[k]) <= tol for r in rows)
    )
    if stable * 2 < ncols:
        return False
    # a cell edge that cuts a token ("page (" | "3)", "b" | "-heads"): runs of one
    # phrase placed apart, not columns
    for r in rows:
        for (_, a), (_, b) in zip(r.cells, r.cells[1:], strict=False):
            if a[-1:] in _OPENING or b[:1] in _CLOSING or (b[:1] in "-‐" and b[1:2].isalpha()):
                return False
    # a header row of text, not a lone number line
    return any(any(ch.isalpha() for ch in t) for _, t in rows[0].cells)


_OPENING = frozenset("([{/-‐–")
_CLOSING = frozenset(")]},.;:!?%")


def find_tables(lines: Sequence[Line], blocked: Collection[int] = ()) -> dict[int, Table]:
    """Start line index → table, for every clear table among a page's lines."""
    out: dict[int, Table] = {}
    n = len(lines)
    i = 0
    while i < n:
        head = lines[i]
        if i in blocked or len(head.cells) < 2 or head.mono:
            i += 1
            continue
        anchors = [x for x, _ in head.cells]
        tol = max(2.0, head.size * 0.3)
        rows = [head]
        j = i + 1
        while j < n and j not in blocked:
            ln = lines[j]
            if not _fits(ln, anchors, tol):
                break
            dy = rows[-1].y - ln.y
            if not 0 < dy <= 3.5 * max(ln.size, rows[-1].size, 1.0):
                break
            rows.append(ln)
            j += 1
        # a next line that starts inside a later column continues the last row's cell
        # (a wrapped cell): that row is incomplete, leave it to the text
        while len(rows) >= MIN_ROWS and j < n and _continues_cell(lines[j], anchors, tol):
            rows.pop()
            j -= 1
            if len(rows) < MIN_ROWS:
                break
        if len(rows) >= MIN_ROWS and _plausible(rows, anchors, tol):
            out[i] = Table(j, tuple(tuple(t for _, t in r.cells) for r in rows))
            i = j
        else:
            i += 1
    return out


__all__ = ["Table", "find_tables"]
