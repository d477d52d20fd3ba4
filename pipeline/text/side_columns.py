"""A contents block set in two columns side by side, as ``pdftotext -layout`` prints a
typeset two-column contents: each line holds an entry of the left column, its page
number, a wide gap and an entry of the right column ("1 Beuronese Art      1       3
Areas of Use      6"). Read as two views of the text, the left column's rows alone and
the right column's alone, each is a contents block of its own, the left one first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .views import LineView

# a left entry's page number, a gap of at least three spaces, then the right column's text
_SPLIT = re.compile(r"\s*\S.*?\S\s+(?:\d{1,4}|[ivxlc]{1,7})\s{3,}(?=\S)")
MIN_ROWS = 2  # lines split so before a block is read as two columns
MAX_SKEW = 6  # columns the right column's entries may start apart (sub-entries indented)
MAX_APART = 12  # lines between two split lines of one block (right column only between)


@dataclass(frozen=True, slots=True)
class SideColumns:
    rows: range  # the block's lines
    left: Sequence[str]  # the text, the block's lines cut to their left column
    right: Sequence[str]  # the text, the block's lines holding only their right column


def side_columns(lines: Sequence[str], start: int = 0) -> list[SideColumns]:
    """The two-column blocks from line ``start`` on: runs of at least ``MIN_ROWS`` lines
    split after a page number, at most ``MAX_APART`` lines apart, whose right columns
    start within ``MAX_SKEW`` columns of each other."""
    splits = [(i, m.end()) for i in range(start, len(lines)) if (m := _SPLIT.match(lines[i]))]
    out = []
    run: list[tuple[int, int]] = []
    for i, col in [*splits, (len(lines) + MAX_APART + 1, 0)]:
        if run and (i - run[-1][0] > MAX_APART or abs(col - run[0][1]) > MAX_SKEW):
            if len(run) >= MIN_ROWS:
                out.append(_views(lines, run[0][0], run[-1][0] + 1, min(c for _, c in run)))
            run = []
        run.append((i, col))
    return out


def _views(lines: Sequence[str], a: int, b: int, edge: int) -> SideColumns:
    """The block of lines ``a`` to ``b`` cut at column ``edge``: a line whose text crosses
    it (no space just before it) stays whole in the left view. The right column keeps
    the left one's margin, so that the two rank their entries alike by indentation."""
    left, right = [], []
    for line in lines[a:b]:
        cut = len(line) > edge and line[edge - 1 : edge] == " "
        left.append(line[:edge].rstrip() if cut else line)
        right.append(line[edge:] if cut else "")
    rows = [row for row in left if row.strip()]
    margin = " " * min((len(r) - len(r.lstrip(" \f")) for r in rows), default=0)
    right = [margin + r if r.strip() else "" for r in right]
    return SideColumns(range(a, b), _Rows(lines, a, left), _Rows(lines, a, right))


class _Rows(LineView):
    """The text with its lines from ``first`` on replaced by ``rows``."""

    def __init__(self, lines: Sequence[str], first: int, rows: list[str]) -> None:
        super().__init__(lines)
        self.first, self.rows = first, rows

    def line(self, i: int) -> str:
        k = i - self.first
        return self.rows[k] if 0 <= k < len(self.rows) else self.lines[i]
