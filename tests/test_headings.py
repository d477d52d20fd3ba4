"""Flat-text heading heuristics and the markdown-or-heuristic mode rule."""

from __future__ import annotations

import pytest

from pipeline import chunk_markdown, chunk_text
from pipeline.parse.headings import find_headings, heading_level, parse_text


@pytest.mark.parametrize(
    "line",
    [
        "Chapter 7",
        "CHAPTER VII",
        "Chapter Seven: The Return",
        "Part II",
        "Appendix A",
        "Section 3",
        "1.2.3 Scope of the Work",
        "THE ADVENTURE OF THE SPECKLED BAND",
        "The Red-Headed League",
    ],
)
def test_heading_candidates(line: str) -> None:
    assert heading_level(line) is not None


@pytest.mark.parametrize(
    "line",
    [
        "It was late.",
        "He said no, and left.",
        "The cat sat on the mat",
        "Yes, Sir.",
        "and then there were none",
        "1. Put the kettle on.",
        "x" * 120,
        "A very Long Title That Goes On And On With Far Too Many Words In It Here",
    ],
)
def test_short_sentences_are_not_headings(line: str) -> None:
    assert heading_level(line) is None


def test_levels_rebased_and_standalone_required() -> None:
    lines = ["PART I", "", "Chapter 1", "", "Text follows here.", "Chapter 2", "glued", ""]
    found = find_headings(lines)
    assert [(i, level) for i, level, _ in found] == [(0, 1), (2, 2)]


def test_parse_text_atx_mode_and_heuristic_mode() -> None:
    src = "# One\n\ntext\n\n# Two\n\ntext\n\n# Three\n\nCHAPTER IV\n\ntext\n"
    blocks, _, atx = parse_text(src)
    assert atx == 3
    assert [b.title for b in blocks if b.kind == "heading"] == ["One", "Two", "Three"]
    heur, _, _ = parse_text("CHAPTER IV\n\nSome text here.\n\nCHAPTER V\n\nMore.\n")
    assert [b.title for b in heur if b.kind == "heading"] == ["CHAPTER IV", "CHAPTER V"]


def test_mode_rule_in_chunk_metadata() -> None:
    md = "# A\n\nx\n\n## B\n\ny\n\n## C\n\nz\n"
    assert {c.heading_mode for c in chunk_markdown(md)} == {"markdown"}
    few = "# Only One\n\nCHAPTER II\n\nbody text here.\n"
    assert {c.heading_mode for c in chunk_markdown(few)} == {"heuristic"}
    body = "\n\n".join(["It goes on and on, as stories do, for quite a while."] * 60)
    txt = f"CHAPTER I\n\n{body}\n\nCHAPTER II\n\n{body}\n"
    chunks = chunk_text(txt, source="book.txt")
    assert {c.heading_mode for c in chunks} == {"heuristic"}
    snippets = [c for c in chunks if c.tier == "snippet"]
    assert any(c.breadcrumb[-1] == "CHAPTER II" for c in snippets)


def test_pipe_tables_in_flat_text_are_table_blocks() -> None:
    rows = "\n".join(f"| r{i} | {i} |" for i in range(200))
    src = f"Intro text.\n\n| name | n |\n|---|---|\n{rows}\n\nNot | a table here.\n"
    blocks, _, _ = parse_text(src)
    assert [b.kind for b in blocks] == ["paragraph", "table", "paragraph"]
    chunks = chunk_text(src)
    tables = [c for c in chunks if c.contains_table]
    assert tables and all(c.table_headers == ("name", "n") for c in tables)
    assert all("| name | n |\n|---|---|" in c.text for c in tables)
