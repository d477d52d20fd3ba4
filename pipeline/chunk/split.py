"""Split one block that exceeds a budget into pieces along its natural seams.

Code splits by lines (the opening fence and language repeated, every piece closed),
tables by rows (header and separator repeated), lists by top-level items, quotes by
paragraphs, prose by sentences then words then characters. Table rows and code lines
are never cut: a single one over budget becomes an ``oversized`` piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..model import Block
from .units import Unit

Count = Callable[[str], int]
Range = tuple[int, int]

_FENCE_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"( {0,3})(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE_BLANK = re.compile(r"[ \t]*>?[ \t]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"')\]”’]*\s+")
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
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < end:
        out.append((pos, end))
    return out


def _chars(src: str, start: int, end: int, budget: int, count: Count) -> list[Range]:
    """Hard character cuts, halving until each piece fits."""
    if end - start <= 1 or count(src[start:end]) <= budget:
        return [(start, end)]
    mid = (start + end) // 2
    return _chars(src, start, mid, budget, count) + _chars(src, mid, end, budget, count)


def _refine(src: str, r: Range, budget: int, count: Count) -> list[Range]:
    """Finer seams for a prose range over budget: lines, sentences, words, characters."""
    start, end = r
    parts = _lines(src, start, end)
    if len(parts) > 1:
        return parts
    for sep in (_SENTENCE_END, _SPACE):
        parts = _by_regex(src, start, end, sep)
        if len(parts) > 1:
            return parts
    return _chars(src, start, end, budget, count)


def _group(
    src: str,
    atoms: list[tuple[int, int, bool]],
    budget: int,
    count: Count,
    dress: Callable[[int, int], tuple[str, str]],
) -> Iterator[Unit]:
    """Greedy runs of atoms whose dressed text fits ``budget``; atoms flagged
    splittable are refined when one alone is over budget. Runs are planned on summed
    atom counts and then counted whole: a counter that charges for the joins (BPE
    counts newlines) gives atoms back until the run really fits."""
    queue = list(reversed(atoms))
    run: list[tuple[int, int, bool]] = []
    run_tokens = 0

    def emit(oversized: bool = False) -> Unit:
        s, e = run[0][0], run[-1][1]
        prefix, suffix = dress(s, e)
        return Unit(-1, s, e, count(prefix + src[s:e] + suffix), prefix, suffix, oversized)

    def flush() -> Unit:
        unit = emit()
        while unit.tokens > budget and len(run) > 1:
            queue.append(run.pop())  # it opens the next run
            unit = emit()
        run.clear()
        return unit

    while queue:
        s, e, splittable = queue.pop()
        t = count(src[s:e])
        if run and run_tokens + t + _dress_cost(dress, run[0][0], e, count) > budget:
            yield flush()
            run_tokens = 0
        if not run and t + _dress_cost(dress, s, e, count) > budget:
            finer = _refine(src, (s, e), budget, count) if splittable else [(s, e)]
            if len(finer) > 1:
                queue.extend(reversed([(a, b, True) for a, b in finer]))
                continue
            run.append((s, e, splittable))
            yield emit(oversized=True)
            run.clear()
            continue
        run.append((s, e, splittable))
        run_tokens += t
    if run:
        yield flush()


def _dress_cost(dress: Callable[[int, int], tuple[str, str]], s: int, e: int, count: Count) -> int:
    prefix, suffix = dress(s, e)
    return count(prefix) + count(suffix) if prefix or suffix else 0


def split_block(
    src: str, block: Block, index: int, r: Range, budget: int, count: Count
) -> list[Unit]:
    """Pieces of ``src[r[0]:r[1]]`` (a range inside ``block``) that each fit ``budget``."""
    start, end = r
    kind = block.kind
    # matched in place: a copy of the block per call made a 50 MB one-line block quadratic
    fence = _FENCE_OPEN.match(src, block.start, block.end) if kind == "code" else None

    def plain(s: int, e: int) -> tuple[str, str]:
        return "", ""

    dress: Callable[[int, int], tuple[str, str]] = plain
    atoms: list[tuple[int, int, bool]]
    if fence is not None:
        lines = _lines(src, start, end)
        first_eol = src.find("\n", block.start, block.end)
        open_line = src[block.start : first_eol if first_eol != -1 else block.end]
        last_line = src[src.rfind("\n", block.start, block.end) + 1 : block.end]
        marker = fence.group(2)
        closed = (
            first_eol != -1
            and last_line.strip().startswith(marker[0] * len(marker))
            and (set(last_line.strip()) == {marker[0]})
        )
        close_start = src.rfind("\n", block.start, block.end) + 1 if closed else block.end
        closing = fence.group(1) + marker

        def dress_code(s: int, e: int) -> tuple[str, str]:
            # An unclosed fence stays unclosed in its last piece, as in the source.
            prefix = "" if s <= block.start else open_line + "\n"
            suffix = "" if e >= block.end else "\n" + closing
            return prefix, suffix

        dress = dress_code
        # The fence lines never stand alone: glue them to their neighbours.
        if len(lines) >= 2 and lines[0][0] == block.start:
            lines[0:2] = [(lines[0][0], lines[1][1])]
        if closed and len(lines) >= 2 and lines[-1][0] == close_start:
            lines[-2:] = [(lines[-2][0], lines[-1][1])]
        atoms = [(s, e, False) for s, e in lines]
    elif kind == "table":
        lines = _lines(src, start, end)
        header_end = _nth_line_end(src, block.start, block.end, 2)
        header = src[block.start : header_end]

        def dress_table(s: int, e: int) -> tuple[str, str]:
            return ("" if s < header_end else header + "\n"), ""

        dress = dress_table
        if lines and lines[0][0] == block.start and len(lines) >= 2:
            # Header + separator form one atom; the first row goes with them.
            glue = 3 if len(lines) >= 3 else 2
            lines[0:glue] = [(lines[0][0], lines[glue - 1][1])]
        atoms = [(s, e, False) for s, e in lines]
    elif kind == "list":
        atoms = [(s, e, True) for s, e in _items(src, start, end)]
    elif kind == "quote":
        atoms = [(s, e, True) for s, e in _quote_paragraphs(src, start, end)]
    elif kind == "code":  # indented code: lines are safe seams, never cut inside
        atoms = [(s, e, False) for s, e in _lines(src, start, end)]
    else:
        atoms = [(s, e, True) for s, e in _refine(src, r, budget, count)]
    pieces = list(_group(src, atoms, budget, count, dress))
    return [Unit(index, p.start, p.end, p.tokens, p.prefix, p.suffix, p.oversized) for p in pieces]


def _nth_line_end(src: str, start: int, end: int, n: int) -> int:
    pos = start
    for _ in range(n):
        eol = src.find("\n", pos, end)
        if eol == -1:
            return end
        pos = eol + 1
    return pos - 1


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
