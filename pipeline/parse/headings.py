"""Flat text: paragraphs by blank lines, headings by ATX lines or by the heading-line
heuristics (``text.heading_lines``)."""

from __future__ import annotations

import re
from array import array

from ..model import Block, BlockKind
from ..text.fences import find_fences
from ..text.heading_lines import ATX, MIN_HEADINGS, find_headings
from ..text.labels import MAX_HEADING_CHARS
from ..text.lines import line_index, line_starts, trim_end

_PIPE_TABLE = re.compile(
    r"\|[^\n]*\|[ \t]*\n\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*(\n|$)"
)
_PARA_SPLIT = re.compile(r"\n[ \t]*\n")


def parse_text(src: str, *, heuristics: bool | None = None) -> tuple[list[Block], array[int], int]:
    """Blocks of flat text: paragraphs separated by blank lines; ATX lines are headings.

    ``heuristics=None`` applies the mode rule: ATX headings when there are at least
    three, else heading heuristics. Returns blocks, the line-start table and the
    number of ATX headings seen.
    """
    starts = line_starts(src)
    blocks: list[Block] = []
    pos = 0
    for fence in [*find_fences(src), None]:
        end = fence.start if fence is not None else len(src)
        _text_blocks(src, pos, end, starts, blocks)
        if fence is not None:
            first = line_index(starts, fence.start) + 1
            last = line_index(starts, fence.end - 1) + 1
            blocks.append(Block("code", fence.start, fence.end, first, last, lang=fence.lang))
            pos = fence.end
    atx = sum(1 for b in blocks if b.kind == "heading")
    use_heuristics = atx < MIN_HEADINGS if heuristics is None else heuristics
    if use_heuristics:
        blocks = apply_heuristics(src, blocks)
    return blocks, starts, atx


def _text_blocks(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    """Paragraphs and heading lines of ``src[start:end]``, a stretch without fences."""
    pos = start
    for m in [*_PARA_SPLIT.finditer(src, start, end), None]:
        stop = m.start() if m is not None else end
        _paragraph_blocks(src, pos, stop, starts, out)
        if m is not None:
            pos = m.end()


def _paragraph_blocks(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    """Split one blank-line-delimited paragraph into heading lines and text runs."""
    seg = src[start:end]
    if not seg.strip():
        return
    # Leading whitespace lines belong to no block.
    lead = len(seg) - len(seg.lstrip("\n \t"))
    start = src.rfind("\n", 0, start + lead) + 1 if lead else start
    start = max(start, 0)
    run_start: int | None = None
    pos = start
    while pos < end:
        eol = src.find("\n", pos, end)
        line_end = end if eol == -1 else eol
        line = src[pos:line_end]
        m = ATX.match(line) if line.lstrip().startswith("#") else None
        if m:
            if run_start is not None:
                _emit(src, run_start, pos, starts, out)
                run_start = None
            first = line_index(starts, pos)
            out.append(
                Block(
                    "heading",
                    pos,
                    trim_end(src, pos, line_end),
                    first + 1,
                    first + 1,
                    level=len(m.group(1)),
                    title=m.group(2).strip(),
                )
            )
        elif run_start is None and line.strip():
            run_start = pos
        pos = line_end + 1
    if run_start is not None:
        _emit(src, run_start, end, starts, out)


def _emit(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    end = trim_end(src, start, end)
    if end <= start:
        return
    # Extractors emit recovered tables as GFM pipe tables: header, separator, rows.
    kind: BlockKind = "table" if _PIPE_TABLE.match(src, start, end) else "paragraph"
    out.append(
        Block(kind, start, end, line_index(starts, start) + 1, line_index(starts, end - 1) + 1)
    )


def apply_heuristics(src: str, blocks: list[Block]) -> list[Block]:
    """Single-line paragraphs that ``find_headings`` names become heading blocks; a
    setext heading no heading could be (see ``stray_setext``) becomes a paragraph."""
    found = {i + 1: (level, title) for i, level, title in find_headings(src.split("\n"))}
    out = [stray_setext(b) for b in blocks]
    for idx, b in enumerate(blocks):
        hit = found.get(b.line_start) if b.line_start == b.line_end else None
        if b.kind == "paragraph" and hit is not None:
            out[idx] = Block("heading", b.start, b.end, b.line_start, b.line_end, *hit)
    return out


def stray_setext(b: Block) -> Block:
    """A markdown heading underlined (setext) whose text runs over more than one line or
    past a heading's length, in a text with too few markdown headings to be marked up:
    a paragraph over a stray ``=`` or ``-`` line (a formula's, a rule's), not a heading."""
    setext = b.kind == "heading" and b.line_end > b.line_start
    if setext and (b.line_end - b.line_start > 1 or len(b.title) > MAX_HEADING_CHARS):
        return Block("paragraph", b.start, b.end, b.line_start, b.line_end)
    return b
