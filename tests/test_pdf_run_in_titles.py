"""A run-in title at the start of a line: the quick look at the line's first letter
rejects only lines the full test rejects."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.extract.pdf import headings
from pipeline.extract.pdf.headings import _run_in_split


def _full(line: str, title: str) -> int:
    """``_run_in_split`` without the first-letter look (as it was before it)."""
    key = headings._ascii_key(title)
    if key is not None:
        low = headings._fold(line)
        if not headings._may_open(low, key):
            return 0
        end = headings._folded_match_end(low, title)
        if end is None or end >= len(line):
            return 0
        rest = line[end:]
        if not rest[:1].isspace() and rest[:1] not in {".", ":", "—", "–"}:
            return 0
        return end
    return _run_in_split(line, title)  # a title not all ASCII: not looked at first


@given(
    st.text(alphabet="Ab iIVx1. \tİΣ:", max_size=20),
    st.text(alphabet="Ab iIx1 ", min_size=0, max_size=8),
)
@example("1.2 Intro text", "Intro")
@example("  İntro. more", "intro")
@example("x Intro. more", "Intro")
@example("Σ intro", " ")
def test_first_letter_look_rejects_only_what_the_full_test_rejects(line: str, title: str) -> None:
    assert _run_in_split(line, title) == _full(line, title)
