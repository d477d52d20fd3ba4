"""Per-line checks of the PDF passes that look at a line's end or first word before its
pattern or its tokens: each gives what the full reading gives (property tests against
the reading they replace)."""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.extract.boilerplate import _LAST_NUMBER, _trailing_number
from pipeline.extract.pdf.headings import _OutlineSearch, _read_as_lines, body_size
from pipeline.extract.pdf.layout import _SENTENCE_END, Line, ends_sentence
from pipeline.extract.pdf.statements import (
    CHAR_WIDTH,
    _cell_values,
    _is_value,
    _tokens,
    _Value,
)
from pipeline.text.titles import title_chars

# the characters the checks turn on, and some that are near them
_LINE = st.text(alphabet=' \n\t.!?:;…"”’)]ivxlcIVXLCa7٣$€%,-—()*NAn/', max_size=24) | st.text(
    max_size=24
)


@given(_LINE)
@example("end.\n")
@example("\n")
def test_a_sentence_end_as_the_pattern_finds_it(text: str) -> None:
    assert ends_sentence(text) == (_SENTENCE_END.search(text) is not None)


def _trailing_number_by_pattern(text: str) -> bool:
    """``_trailing_number`` as it read every line: the pattern searched first."""
    m = _LAST_NUMBER.search(text)
    if m is None:
        return False
    title = text[: m.start()]
    return (
        len(title) >= 2
        and "\n" not in title
        and any(c.isalnum() and not c.isdecimal() for c in title[:-1])
    )


@given(_LINE)
@example("Introduction 12")
@example("Preface xiv")
@example("Chapter ٣")
@example("Title 12\n")
def test_a_trailing_page_number_as_the_pattern_finds_it(text: str) -> None:
    assert _trailing_number(text) == _trailing_number_by_pattern(text)


def _cell_values_by_tokens(x: float, text: str, size: float) -> list[_Value] | None:
    """``_cell_values`` as it read every cell: all its tokens first."""
    words = _tokens(text)
    if not words or not all(_is_value(w) for _, w in words):
        return None
    width = CHAR_WIDTH * size
    return [_Value(w, x + (off + len(w) / 2) * width) for off, w in words]


@given(_LINE)
@example("$ 1,234")
@example("12 %")
@example("(57) 12")
@example("Revenue 12")
@example("% 12")
@example("—")
def test_a_cell_of_values_as_its_tokens_tell(text: str) -> None:
    assert _cell_values(10.0, text, 9.0) == _cell_values_by_tokens(10.0, text, 9.0)


@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from([9.0, 9.2, 9.3, 10.0, 12.1, 0.0, -0.0]), st.text(max_size=5)),
            max_size=6,
        ),
        max_size=4,
    )
)
def test_the_body_size_as_a_counter_finds_it(pages: list[list[tuple[float, str]]]) -> None:
    lines = [[Line(t, 0.0, 0.0, s, False, False) for s, t in page] for page in pages]
    sizes: Counter[float] = Counter()
    for page in lines:
        for ln in page:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
    assert body_size(lines) == (sizes.most_common(1)[0][0] if sizes else 0.0)


def _may_read_as_by_window(lines: list[str], i: int, key: str) -> bool:
    """What ``_read_as_lines`` replaced, per window: the ``title_chars`` of lines ``i``,
    ``i..i+1``, ``i..i+2`` in turn, one of them ending in ``key``."""
    chars = ""
    for j in range(i, min(i + 3, len(lines))):
        chars += title_chars(lines[j])
        if chars.endswith(key):
            return True
    return False


_TITLE_LINE = st.text(alphabet="ab A.-1 ß", max_size=6)


@given(st.lists(_TITLE_LINE, max_size=8), st.text(alphabet="ab1s", max_size=4))
@example(["a", "", "b", "ab"], "ab")  # a line without word characters inside a window
@example(["aa", "a"], "aa")  # overlapping occurrences
def test_the_windows_that_may_read_as_a_title_as_each_window_tells(
    texts: list[str], key: str
) -> None:
    lines = [Line(t, 0.0, 0.0, 10.0, False, False) for t in texts]
    search = _OutlineSearch([lines], 10.0, {})
    got = _read_as_lines(search, 0, key)
    want = {i for i in range(len(texts)) if _may_read_as_by_window(texts, i, key)}
    assert (set(range(len(texts))) if got is None else got) == want
