"""Checks of the DESIGN invariants over one document's chunks (used by tests and scripts)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .config import ChunkConfig
from .model import Chunk

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")


def check_chunks(
    src: str,
    chunks: Sequence[Chunk],
    config: ChunkConfig | None = None,
    *,
    excluded: Sequence[tuple[int, int]] = (),
) -> list[str]:
    """Violations of invariants 1-3 (offsets, coverage, budget, fences, rows).

    ``excluded`` are source ranges legitimately left out of sections (frontmatter
    kept as metadata).
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
        if _unbalanced_fence(c.text) and not _ends_unclosed_source_fence(src, c.char_end):
            problems.append(f"{tag}: code fence left open")
    problems.extend(_coverage(src, sections, excluded))
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


def _unbalanced_fence(text: str) -> bool:
    marker = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if not m:
            continue
        run = m.group(1)
        if not marker:
            marker = run
        elif run[0] == marker[0] and len(run) >= len(marker) and not m.group(2).strip():
            marker = ""
    return bool(marker)


def _ends_unclosed_source_fence(src: str, end: int) -> bool:
    """The chunk ends where the source does, inside a fence the source never closes."""
    return not src[end:].strip() and _unbalanced_fence(src)
