"""The invariant checker itself: each kind of violation is caught."""

from __future__ import annotations

from dataclasses import replace

from pipeline import Chunk, chunk_markdown, make_config
from pipeline.chunk.invariants import check_chunks

CODE = "```py\n" + "\n".join(f"value_{i} = compute({i}, 'abcdefgh')" for i in range(300)) + "\n```"
SRC = "# Title\n\nIntro paragraph here.\n\n" + CODE + "\n\nThe end.\n"


def chunks() -> list[Chunk]:
    return chunk_markdown(SRC)


def test_clean_output_passes() -> None:
    assert check_chunks(SRC, chunks()) == []


def test_offset_mismatch_is_caught() -> None:
    cs = chunks()
    cs[1] = replace(cs[1], char_start=cs[1].char_start + 1)
    assert any("does not match" in p for p in check_chunks(SRC, cs))


def test_budget_violation_is_caught() -> None:
    cs = chunks()
    cs[1] = replace(cs[1], est_tokens=10_000)
    assert any("tokens > max" in p for p in check_chunks(SRC, cs))


def test_coverage_gap_is_caught() -> None:
    cs = [c for c in chunks() if not (c.tier == "section" and c.chunk_index == 1)]
    assert any("coverage" in p for p in check_chunks(SRC, cs))


def test_cut_fence_without_repeat_is_caught() -> None:
    cs = chunks()
    piece = next(c for c in cs if c.prefix_chars)
    bad = replace(piece, text=piece.text[piece.prefix_chars :], prefix_chars=0)
    cs[cs.index(piece)] = bad
    assert any("opening fence" in p for p in check_chunks(SRC, cs))


def test_snippet_outside_parent_is_caught() -> None:
    cs = chunks()
    sections = [c for c in cs if c.tier == "section"]
    snippet = next(c for c in cs if c.tier == "snippet" and c.parent_id == sections[-1].id)
    cs[cs.index(snippet)] = replace(snippet, parent_id=sections[0].id)
    assert any("not inside its parent" in p for p in check_chunks(SRC, cs, make_config()))


ROW = "| key | " + " ".join(f"Sentence {i} is here." for i in range(400)) + " |"
TABLE = "| Name | Text |\n|---|---|\n" + ROW + "\n| next | short |\n"
LINE = "```sh\n" + " ".join(f"--flag-{i}=value" for i in range(900)) + "\n```\n"


def _mid_row_part(cs: list[Chunk]) -> Chunk:
    return next(c for c in cs if c.tier == "snippet" and c.prefix_chars and c.suffix_chars)


def test_split_row_parts_pass_and_a_part_without_its_key_is_caught() -> None:
    cs = chunk_markdown(TABLE)
    assert check_chunks(TABLE, cs) == []
    part = _mid_row_part(cs)
    header, lead = "| Name | Text |\n|---|---|\n", "| key | "
    assert part.text.startswith(header + lead)
    bad = replace(part, text=header + part.text[len(header + lead) :], prefix_chars=len(header))
    assert any("repeat its key" in p for p in check_chunks(TABLE, [bad]))


def test_split_row_part_not_closed_is_caught() -> None:
    cs = chunk_markdown(TABLE)
    part = _mid_row_part(cs)
    bad = replace(part, text=part.text[: -part.suffix_chars], suffix_chars=0)
    assert any("not closed" in p for p in check_chunks(TABLE, [bad]))


def test_split_table_with_another_header_is_caught() -> None:
    cs = chunk_markdown(TABLE)
    part = _mid_row_part(cs)
    bad = replace(part, text=part.text.replace("| Name |", "| Nom |", 1))
    assert any("repeat its header" in p for p in check_chunks(TABLE, [bad]))


def test_cut_code_line_without_continuation_is_caught() -> None:
    cs = chunk_markdown(LINE)
    assert check_chunks(LINE, cs) == []
    part = next(c for c in cs if c.tier == "snippet" and c.suffix_chars > len("\n```"))
    assert part.text.endswith(" \\\n```")
    bad = replace(part, text=part.text[: -len(" \\\n```")] + "\n```", suffix_chars=4)
    assert any("continuation" in p for p in check_chunks(LINE, [bad]))
