"""Checks of the invariants of docs/design.md over one document's chunks (tests, scripts)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from ..model import Block, Chunk
from ..parse.blocks import parse_markdown, split_row, table_headers
from ..parse.headings import parse_text
from ..shared.config import ChunkConfig
from .rows import CUT
from .split import CODE_CONTINUATION

_MARKUP_ONLY = " \t\n>"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_SEPARATOR = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


def check_chunks(
    src: str,
    chunks: Sequence[Chunk],
    config: ChunkConfig | None = None,
    *,
    excluded: Sequence[tuple[int, int]] = (),
    markup: str = "markdown",
) -> list[str]:
    """Violations of invariants 1-3 (offsets, coverage, budget, fences, rows).

    ``excluded`` are source ranges legitimately left out of sections (frontmatter
    kept as metadata). Row checks apply to the pipe tables of flat text too. ``markup``:
    ``markdown``, ``mdx`` (parsed with the MDX block rules, as the chunker did) or ``text``.
    """
    config = config or ChunkConfig()
    problems: list[str] = []
    sections = [c for c in chunks if c.tier == "section"]
    by_id = {c.id: c for c in sections}
    for c in chunks:
        tag = f"{c.tier} {c.chunk_index}"
        inner = c.text[c.prefix_chars : len(c.text) - c.suffix_chars]
        if inner != src[c.char_start : c.char_end]:
            problems.append(f"{tag}: text does not match src[{c.char_start}:{c.char_end}]")
        if c.char_end <= c.char_start:
            problems.append(f"{tag}: empty range [{c.char_start}:{c.char_end}]")
        maximum = config.section_max if c.tier == "section" else config.snippet_max
        if c.est_tokens > maximum and not c.oversized:
            problems.append(f"{tag}: {c.est_tokens} tokens > max {maximum} and not oversized")
        if not c.retrieval_text.endswith(c.text):
            problems.append(f"{tag}: retrieval_text does not end with text")
        if c.tier == "snippet":
            parent = by_id.get(c.parent_id or "")
            if parent is None:
                problems.append(f"{tag}: parent {c.parent_id} is not a section")
            elif not (parent.char_start <= c.char_start and c.char_end <= parent.char_end):
                problems.append(f"{tag}: not inside its parent section")
    # Flat text has no code fences, but extractors emit the tables they recover as pipe tables.
    blocks = (
        parse_text(src, heuristics=False)[0]
        if markup == "text"
        else parse_markdown(src, mdx=markup == "mdx")[0]
    )
    problems.extend(_cut_blocks(src, chunks, blocks))
    problems.extend(_coverage(src, sections, excluded))
    problems.extend(_snippet_coverage(src, chunks, blocks))
    return problems


def _snippet_coverage(src: str, chunks: Sequence[Chunk], blocks: Sequence[Block]) -> list[str]:
    """Every non-blank character in a section is in some snippet (a section's leading
    overlap is in the previous section's), except a table's header and separator lines,
    which a snippet may carry as its compact prefix instead; blank quote lines between
    split quote paragraphs count as blank."""
    heads = [(b.start, _nth_eol(src, b, 2)) for b in blocks if b.kind == "table"]
    spans = sorted((c.char_start, c.char_end) for c in chunks if c.tier == "snippet")
    problems: list[str] = []
    pos = 0
    for sec in sorted((c.char_start, c.char_end) for c in chunks if c.tier == "section"):
        pos = max(pos, sec[0])
        k = bisect_right(spans, (pos, pos))
        for start, end in [*spans[max(0, k - 1) :], (sec[1], sec[1])]:
            if start >= sec[1] and pos >= sec[1]:
                break
            gap = [src[a:b] for a, b in _outside(pos, min(start, sec[1]), heads)]
            if "".join(gap).strip(_MARKUP_ONLY):
                problems.append(f"coverage: src[{pos}:{start}] is in a section but in no snippet")
            pos = max(pos, end)
            if pos >= sec[1]:
                break
    return problems


def _nth_eol(src: str, b: Block, n: int) -> int:
    pos = b.start
    for _ in range(n):
        eol = src.find("\n", pos, b.end)
        if eol == -1:
            return b.end
        pos = eol + 1
    return pos - 1


def _outside(start: int, end: int, skip: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``[start, end)`` minus the sorted ranges ``skip``."""
    out: list[tuple[int, int]] = []
    k = max(0, bisect_right(skip, (start, start)) - 1)
    pos = start
    while pos < end and k < len(skip):
        a, b = skip[k]
        k += 1
        if b <= pos:
            continue
        if a >= end:
            break
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < end:
        out.append((pos, end))
    return out


def _cut_blocks(src: str, chunks: Sequence[Chunk], blocks: Sequence[Block]) -> list[str]:
    """A chunk that cuts a fenced code block carries the opening fence line (prefix) and
    a closing fence (suffix) on the cut sides; one that starts inside a table repeats its
    header (see ``_table_part``). A chunk starts or ends inside a line of either only
    where that line alone was over budget, and then says so."""
    problems: list[str] = []
    cut = [b for b in blocks if b.kind in ("code", "table")]
    starts = [b.start for b in cut]
    for c in chunks:
        tag = f"{c.tier} {c.chunk_index}"
        k = max(0, bisect_right(starts, c.char_start) - 1)
        while k < len(cut) and cut[k].start < c.char_end:
            b = cut[k]
            k += 1
            if b.end <= c.char_start:
                continue
            inner_start, inner_end = c.char_start > b.start, c.char_end < b.end
            edges = (
                inner_start,
                inner_start and src[c.char_start - 1] != "\n",
                inner_end and c.char_end < len(src) and src[c.char_end] != "\n",
            )
            check = _table_part if b.kind == "table" else _code_part
            problems.extend(f"{tag}: {p}" for p in check(src, b, c, *edges))
    return problems


def _code_part(
    src: str, b: Block, c: Chunk, inner_start: bool, mid_start: bool, mid_end: bool
) -> list[str]:
    """A cut code line: the part that ends inside it carries the continuation marker, the
    part that starts inside it a prefix (the opening fence, or an indent for indented code)."""
    out: list[str] = []
    eol = src.find("\n", b.start, b.end)
    head = src[b.start : b.end if eol == -1 else eol]
    fenced = bool(_FENCE.match(head))
    if fenced and inner_start and not c.text.startswith(head + "\n"):
        out.append("split code does not repeat its opening fence")
    if fenced and c.char_end < b.end and not _FENCE.match(c.text.rsplit("\n", 1)[-1]):
        out.append("split code is not closed")
    if mid_start and not c.prefix_chars:
        out.append("starts mid-line inside a code block without a prefix")
    if mid_end and not c.text[len(c.text) - c.suffix_chars :].startswith(CODE_CONTINUATION):
        out.append("ends mid-line inside a code block without the continuation marker")
    return out


def _table_part(
    src: str, b: Block, c: Chunk, inner_start: bool, mid_start: bool, mid_end: bool
) -> list[str]:
    """A part of a table repeats its header row (cells trimmed, a long one cut at a word
    and marked …) and a separator line; a part of a row cut inside repeats the row's key
    cell with an empty cell per column skipped, and ends with a pipe."""
    out: list[str] = []
    if inner_start or (c.char_start == b.start and c.prefix_chars):
        lines = c.text.split("\n", 2)
        cells, header = split_row(lines[0]), table_headers(src, b)
        same = len(cells) == len(header) and all(map(_same_or_cut, cells, header))
        if not same or len(lines) < 2 or not _SEPARATOR.fullmatch(lines[1]):
            out.append("split table does not repeat its header")
    if mid_start:
        row_start = max(b.start, src.rfind("\n", b.start, c.char_start) + 1)
        lead = c.text[: c.prefix_chars].rsplit("\n", 1)[-1]
        mine, theirs = split_row(lead + "x"), split_row(src[row_start : c.char_start] + "x")
        if len(mine) != len(theirs) or (len(theirs) > 1 and not _same_or_cut(mine[0], theirs[0])):
            out.append("a part of a split row does not repeat its key in the row's columns")
    if mid_end and not c.text.endswith("|"):
        out.append("a part of a split row is not closed")
    return out


def _same_or_cut(repeated: str, cell: str) -> bool:
    return repeated == cell or (
        repeated.endswith(CUT) and cell.startswith(repeated.removesuffix(CUT).rstrip())
    )


def _coverage(
    src: str, sections: Sequence[Chunk], excluded: Sequence[tuple[int, int]]
) -> list[str]:
    problems: list[str] = []
    pos = 0
    ranges = sorted([*((c.char_start, c.char_end) for c in sections), *excluded])
    for start, end in ranges:
        if start < pos and end <= pos:
            continue
        gap = src[pos:start] if start > pos else ""
        if gap.strip():
            problems.append(f"coverage: src[{pos}:{start}] is in no section: {gap[:40]!r}")
        pos = max(pos, end)
    if src[pos:].strip():
        problems.append(f"coverage: src[{pos}:] is in no section: {src[pos : pos + 40]!r}")
    starts = [c.char_start for c in sections]
    if starts != sorted(starts):
        problems.append("coverage: sections are not in document order")
    return problems
