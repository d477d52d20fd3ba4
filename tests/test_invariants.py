"""The invariant checker itself: each kind of violation is caught."""

from __future__ import annotations

from dataclasses import replace

from pipeline import Chunk, chunk_markdown, make_config
from pipeline.invariants import check_chunks

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
