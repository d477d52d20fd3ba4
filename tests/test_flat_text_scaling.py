"""The contents search of flat text reads each line a bounded number of times, however many
two-column blocks a text holds: ``pdftotext -layout`` prints a table or a formula on most
pages of a paper in lines split as a two-column contents is, and reading the whole text
again for each of them (copying it, pairing its columns of numbers, finding its running
heads, indexing its candidate headings) made the search grow with the square of the text's
length. Lines and candidates read are counted, not seconds: the count does not depend on
the machine."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload

from pipeline.text.candidates import Candidate, gather
from pipeline.text.side_columns import side_columns
from pipeline.text.toc import find_toc

PROSE = "   The method visits every node of the graph once and keeps the cheapest path."


class _Counted(Sequence[str]):
    """A text's lines that count how many times one is read."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.reads = 0

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        got = self.lines[i]
        self.reads += len(got) if isinstance(i, slice) else 1
        return got


class _CountedMap(Mapping[int, Candidate]):
    """A text's candidates that count how many times one is read."""

    def __init__(self, candidates: dict[int, Candidate]) -> None:
        self.candidates = candidates
        self.reads = 0

    def __len__(self) -> int:
        return len(self.candidates)

    def __iter__(self) -> Iterator[int]:
        for i in self.candidates:
            self.reads += 1
            yield i

    def __getitem__(self, i: int) -> Candidate:
        self.reads += 1
        return self.candidates[i]


def _paper(pages: int) -> list[str]:
    """A paper as ``pdftotext -layout`` prints it: on every page a section's title, prose
    and a table whose rows read as a two-column contents ("Step 1     1       Cost 1")."""
    lines = ["A Paper", ""]
    for p in range(1, pages + 1):
        lines += [f"\f{p}.  Section {p}", "", *[PROSE] * 6, ""]
        lines += [f"      Step {r:<10}{r:>3}       Cost {r:<10}{2 * r:>3}" for r in (1, 2, 3)]
        lines += ["", *[PROSE] * 6, "", f"{p:>40}", ""]
    return lines


def _reads_per_line(pages: int) -> tuple[float, float]:
    """How many times the contents search reads each line and each candidate of a paper."""
    lines = _paper(pages)
    assert len(side_columns(lines)) == pages  # a two-column block on every page
    counted, candidates = _Counted(lines), _CountedMap(gather(lines, 1))
    find_toc(counted, 1, frozenset(), candidates)
    return counted.reads / len(lines), candidates.reads / len(candidates)


def test_the_contents_search_reads_each_line_a_bounded_number_of_times() -> None:
    # four times the pages, four times the two-column blocks: each line and each candidate
    # is read about as often (quadratic, the longer text's were read four times as often)
    short, long = _reads_per_line(25), _reads_per_line(100)
    assert long[0] < 1.25 * short[0]
    assert long[1] < 1.25 * short[1]
