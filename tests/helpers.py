"""Shared test helpers."""

from __future__ import annotations

from pipeline import Chunk, ChunkConfig
from pipeline.invariants import check_chunks
from pipeline.parse.blocks import parse_markdown


def assert_invariants(
    src: str, chunks: list[Chunk], config: ChunkConfig | None = None, markup: str = "markdown"
) -> None:
    config = config or ChunkConfig()
    excluded: list[tuple[int, int]] = []
    if markup == "markdown" and config.frontmatter != "include":
        blocks, _ = parse_markdown(src)
        excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
    problems = check_chunks(src, chunks, config, excluded=excluded, markup=markup)
    assert not problems, problems[:10]


def sections(chunks: list[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.tier == "section"]


def snippets(chunks: list[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.tier == "snippet"]
