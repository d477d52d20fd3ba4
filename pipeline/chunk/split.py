"""Split one block that exceeds a budget into pieces along its natural seams.

Code splits by lines (the opening fence and language repeated, every piece closed),
tables by rows (header and separator repeated, compactly: ``rows.compact_header``), lists
by top-level items, quotes by paragraphs, prose by sentences then words then characters.
A line still over budget is cut inside: a table row at its cells, then sentences, then
words, each part repeating the header and the row's key cell; a code line at whitespace,
a part that ends inside the line marked with a continuation; list items and quote
paragraphs at sentences, then words, then characters, a part that starts inside a line
repeating the item's or quote's marker. Only a single word over budget in a table row or
a code line stays whole, as an ``oversized`` piece.
"""

from __future__ import annotations

import itertools
import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator

from ..model import Block
from .rows import CUT, ROW_CLOSE, Range, Row, compact_header
from .tokens import Slices
from .units import Unit

Count = Callable[[str], int]
Joins = Callable[[str], bool]
SlicesAt = Callable[[int, int], Slices | None]
Dress = Callable[[int, int], tuple[str, str]]
Refine = Callable[[int, int], list[Range]]

CODE_CONTINUATION = " \\"  # ends a code part cut inside a line: the line goes on in the next
INDENTED_CODE = "    "  # opens a part of an indented code line, so it stays code

_FENCE_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"( {0,3})(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE_MARK = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+")
_QUOTE_BLANK = re.compile(r"[ \t]*>?[ \t]*$")
# The seam is the whitespace (the last group) after a sentence's end and its closers.
_SENTENCE_END = re.compile(r"[.!?。！？][\"')\]”’]*(\s+)")
_SPACE = re.compile(r"\s+")


def _lines(src: str, start: int, end: int) -> list[Range]:
    out: list[Range] = []
    pos = start
    while pos < end:
        eol = src.find("\n", pos, end)
        stop = end if eol == -1 else eol
        if src[pos:stop].strip():
            out.append((pos, stop))
        pos = stop + 1
    return out


def _by_regex(src: str, start: int, end: int, sep: re.Pattern[str]) -> list[Range]:
    out: list[Range] = []
    pos = start
    for m in sep.finditer(src, start, end):
        seam_start, seam_end = m.span(sep.groups)
        if seam_start > pos:
            out.append((pos, seam_start))
        pos = seam_end
    if pos < end:
        out.append((pos, end))
    return out


def _seams(src: str, start: int, end: int, sep: re.Pattern[str]) -> list[Range]:
    """``_by_regex`` keeping the range's own ends, so a line's start (its indentation)
    and end stay in the first and last piece."""
    out = _by_regex(src, start, end, sep)
    if out:
        out[0] = (start, out[0][1])
        out[-1] = (out[-1][0], end)
    return out


def _line_start(src: str, floor: int, pos: int) -> int:
    return max(floor, src.rfind("\n", floor, pos) + 1)


def _mid_line(src: str, block: Block, s: int) -> bool:
    return s > block.start and src[s - 1] != "\n"


class LineCounts:
    """Counts of the non-blank lines of ``src[start:end]`` (one block), for a counter
    whose count over a newline is the sum of the counts either side (``Estimator``): a
    run of whole lines is then a difference of two prefix sums. A block split for its
    section and again for its snippets asked for each of its lines three times, and
    every time a cold count where the estimator's memo was too small for the block."""

    __slots__ = ("_cum", "_ends", "_starts")

    def __init__(self, src: str, start: int, end: int, count: Count) -> None:
        lines = _lines(src, start, end)
        self._starts = array("q", [s for s, _ in lines])
        self._ends = array("q", [e for _, e in lines])
        self._cum = array("q", [0])
        self._cum.extend(itertools.accumulate(count(src[s:e]) for s, e in lines))

    @property
    def total(self) -> int:
        return self._cum[-1]

    def get(self, s: int, e: int) -> int | None:
        """The count of ``src[s:e]`` if it runs from a line's start to a line's end."""
        starts, ends = self._starts, self._ends
        k = bisect_left(starts, s)
        if k == len(starts) or starts[k] != s:
            return None
        j = bisect_left(ends, e, k)
        if j == len(ends) or ends[j] != e:
            return None
        return self._cum[j + 1] - self._cum[k]


class _Counts:
    """Token counts of ranges of ``src``, each range counted once per split: cutting a
    block asks for the same ranges again (to cut them, to group them, to emit them).
    ``joins(gap)`` tells when a count over ``gap`` is the sum of the counts either side;
    ``lines`` are the block's line counts, when known; ``slices_at`` gives ``Slices`` for
    character cuts."""

    __slots__ = ("_joins", "_lines", "_seen", "count", "slices_at", "src")

    def __init__(
        self,
        src: str,
        count: Count,
        joins: Joins | None = None,
        lines: LineCounts | None = None,
        slices_at: SlicesAt | None = None,
    ) -> None:
        self.src = src
        self.count = count
        self._joins = joins
        self._lines = lines
        self.slices_at = slices_at
        self._seen: dict[Range, int] = {}

    def of(self, s: int, e: int) -> int:
        n = self._seen.get((s, e))
        if n is None:
            n = self._lines.get(s, e) if self._lines is not None else None
            if n is None:
                n = self._seen[s, e] = self.count(self.src[s:e])
        return n

    def known(self, r: Range, tokens: int) -> None:
        self._seen[r] = tokens

    def of_run(self, run: list[Range]) -> int:
        """Count from the first range's start to the last one's end: the sum of the
        ranges' counts where every gap between them joins additively (a run counted
        again as a whole made each character of a long block counted twice more)."""
        s, e = run[0][0], run[-1][1]
        if len(run) == 1 or (s, e) in self._seen or not self._adds_up(run):
            return self.of(s, e)
        n = self._seen[s, e] = sum(self.of(*r) for r in run)
        return n

    def _adds_up(self, ranges: list[Range]) -> bool:
        """Whether the count over ``ranges`` (and the gaps between) is their sum."""
        joins, src = self._joins, self.src
        return joins is not None and all(
            joins(src[a[1] : b[0]]) for a, b in itertools.pairwise(ranges)
        )

    def derive(self, r: Range, parts: list[Range]) -> None:
        """Where ``r``'s count is known and its ``parts`` (its text but whitespace) join
        additively, the longest part's count is what the others leave of it: only they
        are counted (a megabyte-long word after a short one was counted again whole)."""
        total = self._seen.get(r)
        if total is None or not self._adds_up(parts):
            return
        longest = max(parts, key=lambda p: p[1] - p[0])
        if longest not in self._seen:
            self._seen[longest] = total - sum(self.of(*p) for p in parts if p != longest)


def _chars(counts: _Counts, start: int, end: int, budget: int) -> list[Range]:
    """Hard character cuts into pieces of even length, as many as the range's count
    needs, each shrunk until it fits: the range is counted about twice in all (halving
    it counted it once per level, and a 5 MB line without a space took minutes)."""
    total = counts.of(start, end)
    if end - start <= 1 or total <= budget:
        return [(start, end)]
    slices = counts.slices_at(start, end) if counts.slices_at is not None else None
    count = slices.count if slices is not None else counts.of
    even = -(-(end - start) // -(-total // budget))
    out: list[Range] = []
    pos = start
    while pos < end:
        size = min(even, end - pos)
        t = count(pos, pos + size)
        while t > budget and size > 1:
            size = max(1, min(size - 1, size * budget // t))
            t = count(pos, pos + size)
        out.append((pos, pos + size))
        counts.known(out[-1], t)  # grouping asks for it next
        pos += size
    return out


def _refine(counts: _Counts, r: Range, budget: int) -> list[Range]:
    """Finer seams for a prose range over budget: lines, sentences, words, characters."""
    src, (start, end) = counts.src, r
    parts = _lines(src, start, end)
    if len(parts) > 1:
        counts.derive(r, parts)
        return parts
    for sep in (_SENTENCE_END, _SPACE):
        parts = _by_regex(src, start, end, sep)
        if len(parts) > 1:
            counts.derive(r, parts)
            return parts
    return _chars(counts, start, end, budget)


def _group(
    counts: _Counts, atoms: list[Range], budget: int, dress: Dress, refine: Refine
) -> Iterator[Unit]:
    """Greedy runs of atoms whose dressed text fits ``budget``; an atom over budget on
    its own is replaced by ``refine``'s finer ranges (which then fill the current run),
    or kept whole as ``oversized`` when it has none. Runs are planned on summed atom
    counts and then counted whole: a counter that charges for the joins (BPE counts
    newlines) gives atoms back until the run really fits."""
    src, count = counts.src, counts.count
    queue = list(reversed(atoms))
    run: list[Range] = []
    run_tokens = 0

    def emit(oversized: bool = False) -> Unit:
        s, e = run[0][0], run[-1][1]
        prefix, suffix = dress(s, e)
        t = count(prefix + src[s:e] + suffix) if prefix or suffix else counts.of_run(run)
        return Unit(-1, s, e, t, prefix, suffix, oversized)

    def flush() -> Unit:
        unit = emit()
        while unit.tokens > budget and len(run) > 1:
            queue.append(run.pop())  # it opens the next run
            unit = emit()
        run.clear()
        return unit

    while queue:
        s, e = queue.pop()
        t = counts.of(s, e)
        if run and run_tokens + t + _dress_cost(dress, run[0][0], e, count) <= budget:
            run.append((s, e))
            run_tokens += t
            continue
        if t + _dress_cost(dress, s, e, count) > budget:
            finer = refine(s, e)
            if len(finer) > 1:
                queue.extend(reversed(finer))
                continue
        if run:  # close the run first; the atoms it gives back go before this one
            queue.append((s, e))
            yield flush()
            run_tokens = 0
            continue
        run.append((s, e))
        run_tokens += t
        if t + _dress_cost(dress, s, e, count) > budget:
            yield emit(oversized=True)
            run.clear()
            run_tokens = 0
    if run:
        yield flush()


def _dress_cost(dress: Dress, s: int, e: int, count: Count) -> int:
    prefix, suffix = dress(s, e)
    return count(prefix) + count(suffix) if prefix or suffix else 0


def split_block(
    src: str,
    block: Block,
    index: int,
    r: Range,
    budget: int,
    count: Count,
    *,
    cover: bool = True,
    tokens: int | None = None,
    joins: Joins | None = None,
    lines: LineCounts | None = None,
    slices_at: SlicesAt | None = None,
) -> list[Unit]:
    """Pieces of ``src[r[0]:r[1]]`` (a range inside ``block``) that each fit ``budget``.

    With ``cover`` every non-blank character of the range is in a piece. Without it
    (snippets, which need not tile their section) a table whose header and separator
    lines would take more than half the budget leaves its separator out: each piece
    repeats a compact header instead. ``tokens`` is the range's count, when known;
    ``joins`` is the counter's ``Estimator.joins``, when it has one, ``lines`` the
    block's line counts under it and ``slices_at(s, e)`` the ``Slices`` holding a run
    without whitespace, when it can have them."""
    if budget < 1:  # even cuts of a negative size would never end
        raise ValueError(f"split_block: budget {budget} < 1")
    kind = block.kind
    counts = _Counts(src, count, joins, lines, slices_at)
    if tokens is not None:
        counts.known(r, tokens)

    def prose(s: int, e: int) -> list[Range]:
        return _refine(counts, (s, e), budget)

    def plain(s: int, e: int) -> tuple[str, str]:
        return "", ""

    dress: Dress = plain
    refine: Refine = prose
    if kind == "table":
        atoms, dress, refine = _table(src, block, r, budget, count, cover)
    elif kind == "code":
        atoms, dress, refine = _code(src, block, r)
    elif kind == "list":
        atoms, dress = _items(src, *r), _marker_dress(src, block, _list_marker)
    elif kind == "quote":
        atoms, dress = _quote_paragraphs(src, *r), _marker_dress(src, block, _quote_marker)
    else:
        atoms = _refine(counts, r, budget)
    pieces = list(_group(counts, atoms, budget, dress, refine))
    return [Unit(index, p.start, p.end, p.tokens, p.prefix, p.suffix, p.oversized) for p in pieces]


def _table(
    src: str, block: Block, r: Range, budget: int, count: Count, cover: bool
) -> tuple[list[Range], Dress, Refine]:
    """Rows as atoms; the header and separator go with the first row unless they would
    crowd it out (then the header row is a row of its own and, without ``cover``, the
    separator is left to the section)."""
    header_row_end = _line_end(src, block.start, block.end)
    header_end = _line_end(src, min(header_row_end + 1, block.end), block.end)
    head, sep = compact_header(src, block)
    costly = 2 * count(src[block.start : header_end]) > budget
    dropped = costly and not cover
    rows: dict[int, Row] = {}

    def row(s: int) -> Row:
        start = _line_start(src, block.start, s)
        got = rows.get(start)
        if got is None:
            got = rows[start] = Row.at(src, start, _line_end(src, start, block.end))
        return got

    def dress(s: int, e: int) -> tuple[str, str]:
        mid_end = e < block.end and src[e] != "\n" and src[e - 1] != "|"
        suffix = ROW_CLOSE if mid_end else ""
        if _mid_line(src, block, s):
            return f"{head}\n{sep}\n{row(s).lead(s)}", suffix
        if s == block.start:
            return (f"{head}\n{sep}\n" if dropped else ""), suffix
        if s == header_row_end + 1:  # the verbatim separator follows: repeat the header row
            return head + "\n", suffix
        return f"{head}\n{sep}\n", suffix

    def refine(s: int, e: int) -> list[Range]:
        lines = _lines(src, s, e)
        if len(lines) > 1 or header_row_end < s < header_end:  # the separator is not cut
            return lines
        seams: tuple[Callable[[], list[Range]], ...] = (
            lambda: row(s).cells(src, s, e),
            lambda: _seams(src, s, e, _SENTENCE_END),
            lambda: _seams(src, s, e, _SPACE),
        )
        for seam in seams:
            parts = _no_lone_close(src, seam())
            if len(parts) > 1:
                return parts
        return [(s, e)]

    atoms = _lines(src, *r)
    if not costly and len(atoms) >= 2 and atoms[0][0] == block.start:
        glue = 3 if len(atoms) >= 3 else 2
        atoms[0:glue] = [(atoms[0][0], atoms[glue - 1][1])]
    elif dropped and header_end < block.end:
        # the compact header stands in for the separator, and for the header row too
        # when it holds all of it
        left_out = {(header_row_end + 1, header_end)}
        if CUT not in head:
            left_out.add((block.start, header_row_end))
        atoms = [a for a in atoms if a not in left_out]
    return atoms, dress, refine


def _no_lone_close(src: str, parts: list[Range]) -> list[Range]:
    """A row's closing pipe never makes a piece of its own."""
    if len(parts) > 1 and src[parts[-1][0] : parts[-1][1]].strip() == "|":
        parts[-2:] = [(parts[-2][0], parts[-1][1])]
    return parts


def _line_end(src: str, start: int, end: int) -> int:
    eol = src.find("\n", start, end)
    return end if eol == -1 else eol


def _code(src: str, block: Block, r: Range) -> tuple[list[Range], Dress, Refine]:
    """Lines as atoms (fence lines glued to their neighbours); a line over budget is
    cut at whitespace, the part that ends inside it marked with a continuation."""
    first_eol = src.find("\n", block.start, block.end)
    open_end = first_eol if first_eol != -1 else block.end
    open_line = src[block.start : open_end]
    close_start = src.rfind("\n", block.start, block.end) + 1
    last_line = src[close_start : block.end].strip()
    # matched in place: a copy of the block per call made a 50 MB one-line block quadratic
    fence = _FENCE_OPEN.match(src, block.start, block.end)
    fenced = fence is not None
    marker = fence.group(2) if fence else ""
    closed = fenced and first_eol != -1 and set(last_line) == {marker[0]}
    closed = closed and len(last_line) >= len(marker)
    closing = (fence.group(1) + marker) if fence else ""

    def dress(s: int, e: int) -> tuple[str, str]:
        mid_end = e < block.end and src[e] != "\n"
        if not fenced:
            prefix = INDENTED_CODE if _mid_line(src, block, s) else ""
            return prefix, CODE_CONTINUATION if mid_end else ""
        # An unclosed fence stays unclosed in its last piece, as in the source.
        prefix = "" if s <= block.start else open_line + "\n"
        suffix = "" if e >= block.end else "\n" + closing
        return prefix, (CODE_CONTINUATION + suffix if mid_end else suffix)

    def refine(s: int, e: int) -> list[Range]:
        lines = _lines(src, s, e)
        if len(lines) > 1 or (fenced and s < open_end) or (closed and s >= close_start):
            return lines  # the fence lines are repeated, never cut
        return _seams(src, s, e, _SPACE)

    atoms = _lines(src, *r)
    if fenced:
        # The fence lines never stand alone: glue them to their neighbours.
        if len(atoms) >= 2 and atoms[0][0] == block.start:
            atoms[0:2] = [(atoms[0][0], atoms[1][1])]
        if closed and len(atoms) >= 2 and atoms[-1][0] == close_start:
            atoms[-2:] = [(atoms[-2][0], atoms[-1][1])]
    return atoms, dress, refine


def _marker_dress(src: str, block: Block, marker: Callable[[str, Block, int], str]) -> Dress:
    """A part that starts inside a line repeats the marker (list item, quote) it is under."""

    def dress(s: int, e: int) -> tuple[str, str]:
        return (marker(src, block, s) if _mid_line(src, block, s) else ""), ""

    return dress


def _list_marker(src: str, block: Block, s: int) -> str:
    """The marker of the nearest item line at or before ``s`` (nested items included)."""
    pos = _line_start(src, block.start, s)
    while True:
        m = _LIST_ITEM.match(src, pos)
        if m is not None or pos <= block.start:
            return (m.group(0).strip() if m else "-") + " "
        pos = _line_start(src, block.start, pos - 1)


def _quote_marker(src: str, block: Block, s: int) -> str:
    m = _QUOTE_MARK.match(src, _line_start(src, block.start, s))
    if m is None or not m.group(0).strip():
        m = _QUOTE_MARK.match(src, block.start)
    return (m.group(0).strip() if m else ">") + " "


def _items(src: str, start: int, end: int) -> list[Range]:
    """Top-level list items: lines with a list marker at the list's own indentation."""
    lines = _lines(src, start, end)
    if not lines:
        return []
    m = _LIST_ITEM.match(src, lines[0][0])
    indent = len(m.group(1)) if m else 0
    out: list[Range] = []
    item_start = lines[0][0]
    prev_end = lines[0][1]
    for s, e in lines[1:]:
        m = _LIST_ITEM.match(src, s)
        if m and len(m.group(1)) == indent:
            out.append((item_start, prev_end))
            item_start = s
        prev_end = e
    out.append((item_start, prev_end))
    return out


def _quote_paragraphs(src: str, start: int, end: int) -> list[Range]:
    out: list[Range] = []
    para: Range | None = None
    pos = start
    while pos < end:
        eol = src.find("\n", pos, end)
        stop = end if eol == -1 else eol
        if _QUOTE_BLANK.match(src, pos, stop):
            if para is not None:
                out.append(para)
                para = None
        else:
            para = (pos, stop) if para is None else (para[0], stop)
        pos = stop + 1
    if para is not None:
        out.append(para)
    return out
