"""The one decision per flat-text line (``text/decide.py``): candidates gathered from real
lines, evidence collected from them, the precedence of ``decide`` as its docstring gives it."""

from __future__ import annotations

from dataclasses import replace

from pipeline.text.candidates import gather, with_looks
from pipeline.text.decide import CHAPTER_RANK, decide
from pipeline.text.evidence import Evidence, collect

TEXT = """An opening paragraph, before the first chapter.
I

I

The first chapter's text runs on.

II

The second chapter's text runs on.

III

The third chapter's text runs on.
"""


def test_candidates_are_gathered_once_with_their_looks() -> None:
    lines = TEXT.split("\n")
    found = with_looks(lines, gather(lines))
    numeral = found[3]
    assert (numeral.text, numeral.standalone, numeral.numeral, numeral.label) == (
        "I",
        True,
        1,
        True,
    )
    assert 1 not in found  # a numeral run into a paragraph stands alone nowhere
    assert found[5].shape is None and found[5].prose is False  # a sentence in lowercase


def test_numerals_in_sequence_are_chapters_without_a_contents_block() -> None:
    lines = TEXT.split("\n")
    found = with_looks(lines, gather(lines))
    evidence = collect(lines, found, [], {})
    assert [i for i, c in found.items() if decide(c, evidence[i], mode="looks")] == [3, 7, 11]
    assert all(decide(found[i], evidence[i], mode="looks") == CHAPTER_RANK for i in (3, 7, 11))


def test_a_numeral_alone_is_no_chapter() -> None:
    lines = TEXT.split("\n")
    c = with_looks(lines, gather(lines))[3]
    assert decide(c, Evidence(set_off=True, in_sequence=False), mode="looks") is None


def test_a_contents_block_decides_and_a_look_does_not() -> None:
    lines = TEXT.split("\n")
    c = replace(with_looks(lines, gather(lines))[3], shape=2)  # as if it looked like a chapter
    assert decide(c, Evidence(set_off=True), mode="contents") is None
    assert decide(c, Evidence(contents_rank=4), mode="contents") == 4
    assert decide(c, Evidence(series_rank=3), mode="contents") == 3
    assert decide(c, Evidence(contents_rank=1, gap_rank=3), mode="contents") == 1


def test_a_line_not_set_off_is_no_heading_whatever_it_looks_like() -> None:
    lines = TEXT.split("\n")
    c = replace(with_looks(lines, gather(lines))[3], numeral=None, shape=1)
    assert decide(c, Evidence(set_off=False), mode="looks") is None
    assert decide(c, Evidence(set_off=True), mode="looks") == 1
