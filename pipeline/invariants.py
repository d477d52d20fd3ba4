"""Checks of the DESIGN invariants over one document's chunks (used by tests and scripts)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from .config import ChunkConfig
from .model import Chunk
from .parse.blocks import parse_markdown

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")


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
    kept as metadata). Fence and row checks apply to markdown (flat text has none).
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
    if markup == "markdown":
        problems.extend(_cut_blocks(src, chunks))
    problems.extend(_coverage(src, sections, excluded))
    return problems


def _cut_blocks(src: str, chunks: Sequence[Chunk]) -> list[str]:
    """A chunk that cuts a fenced code block carries the opening fence line (prefix) and
    a closing fence (suffix) on the cut sides; a cut table keeps its header and is cut
    only between rows."""
    problems: list[str] = []
    blocks, _ = parse_markdown(src)
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
            eol = src.find("\n", b.start, b.end)
            head = src[b.start : b.end if eol == -1 else eol]
            fenced = b.kind == "code" and bool(_FENCE.match(head))
            inner_start, inner_end = c.char_start > b.start, c.char_end < b.end
            if inner_start and src[c.char_start - 1] != "\n":
                problems.append(f"{tag}: starts mid-line inside a {b.kind} block")
            if inner_end and c.char_end < len(src) and src[c.char_end] != "\n":
                problems.append(f"{tag}: ends mid-line inside a {b.kind} block")
            if fenced and inner_start and not c.text.startswith(head + "\n"):
                problems.append(f"{tag}: split code does not repeat its opening fence")
            if fenced and inner_end and not _FENCE.match(c.text.rsplit("\n", 1)[-1]):
                problems.append(f"{tag}: split code is not closed")
            if b.kind == "table" and inner_start:
                header = "\n".join(src[b.start : b.end].split("\n", 2)[:2])
                if not c.text.startswith(header + "\n"):
                    problems.append(f"{tag}: split table does not repeat its header")
    return problems


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


