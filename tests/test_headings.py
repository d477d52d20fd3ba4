"""Flat-text heading heuristics and the markdown-or-heuristic mode rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import chunk_file, chunk_markdown, chunk_text
from pipeline.extract.dispatch import extract_path
from pipeline.parse.headings import parse_text
from pipeline.text.heading_lines import find_headings, heading_level, title_line


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


CONTENTS = """Contents

Part One
    Chapter 1. The Start
    Chapter 2. The Middle
Part Two
    Chapter 3. The End"""


def _book(contents: str) -> str:
    words = "It was day {}, and the reader went on through it. "
    body = "\n\n".join(words.format(n) * 30 for n in range(8))
    chapters = [
        "Part One",
        "Chapter 1. The Start",
        "A Small Detour",
        "Chapter 2. The Middle",
        "Part Two",
        "Chapter 3. The End",
    ]
    text = "\n\n".join(f"{c}\n\n{body}" for c in chapters)
    return f"A Book of Days\n\nby Some One\n\n{contents}\n\n{text}\n"


def test_contents_block_names_the_headings_and_stays_text() -> None:
    toc = CONTENTS
    lines = _book(toc).split("\n")
    found = find_headings(lines)
    assert [(lines[i].strip(), level) for i, level, _ in found] == [
        ("Part One", 1),
        ("Chapter 1. The Start", 2),
        ("Chapter 2. The Middle", 2),
        ("Part Two", 1),
        ("Chapter 3. The End", 2),
    ]
    assert all(i > 10 for i, _, _ in found)  # none of the contents lines


def test_title_comes_from_the_first_line_not_the_first_heading() -> None:
    chunks = chunk_text(_book("Some words before the first part begins."), source="b.txt")
    assert {c.doc_title for c in chunks} == {"A Book of Days"}
    assert all("A Book of Days" not in c.breadcrumb[1:] for c in chunks)
    assert title_line(["Title: Moby Dick", "Author: H. Melville", "", "CHAPTER 1"]) == (
        0,
        "Moby Dick",
    )
    assert title_line(["CHAPTER I", "", "It begins."]) is None


def test_pattern_families_keep_their_level_through_the_book() -> None:
    lines = _book("").split("\n")
    levels = {lines[i].strip(): level for i, level, _ in find_headings(lines)}
    assert levels["Part One"] == levels["Part Two"] == 1
    assert levels["Chapter 1. The Start"] == levels["Chapter 3. The End"] == 2
    assert levels["A Small Detour"] == 3


def test_flat_text_extract_prints_the_headings_the_chunker_reads(tmp_path: Path) -> None:
    toc = CONTENTS
    path = tmp_path / "book.txt"
    path.write_text(_book(toc))
    doc = extract_path(path)
    assert doc.title == "A Book of Days"
    atx = [ln for ln in doc.text.split("\n") if ln.startswith("#")]
    assert atx == [
        "# Part One",
        "## Chapter 1. The Start",
        "## Chapter 2. The Middle",
        "# Part Two",
        "## Chapter 3. The End",
    ]
    assert [(o.level, doc.text[o.char_start :].split("\n", 1)[0]) for o in doc.outline] == [
        (len(line) - len(line.lstrip("#")), line) for line in atx
    ]
    crumbs = {c.breadcrumb for c in chunk_file(path)}
    assert ("A Book of Days", "Part Two", "Chapter 3. The End") in crumbs


def test_fenced_code_in_flat_text_is_one_code_block() -> None:
    code = "```java\npublic static void main(String[] args) {\n\n    # not a heading\n}\n```"
    src = f"CHAPTER I\n\nSome words.\n\n{code}\n\nCHAPTER II\n\nMore words.\n"
    blocks, _, _ = parse_text(src)
    kinds = [(b.kind, b.title or b.lang) for b in blocks]
    assert kinds == [
        ("heading", "CHAPTER I"),
        ("paragraph", ""),
        ("code", "java"),
        ("heading", "CHAPTER II"),
        ("paragraph", ""),
    ]
    fence = next(b for b in blocks if b.kind == "code")
    assert src[fence.start : fence.end] == code
    chunks = chunk_text(src)
    assert any("code" in c.content_hints for c in chunks)
    assert parse_text("```\nnever closed\n\nCHAPTER I\n")[0][0].kind == "paragraph"
