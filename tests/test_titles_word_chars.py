"""``norm_title``'s word characters: the byte-table path for ASCII text keeps what the
``[\\W_]+`` pattern keeps."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.text.titles import _NON_WORD, _word_chars, norm_title


@given(st.text(max_size=40) | st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_word_chars_drop_what_the_non_word_pattern_matches(text: str) -> None:
    assert _word_chars(text) == _NON_WORD.sub("", text)


def test_word_chars_on_every_ascii_character() -> None:
    for c in range(128):
        assert _word_chars(chr(c)) == _NON_WORD.sub("", chr(c))


def test_titles_fold_as_before() -> None:
    assert norm_title("Chapter 3 1.2 Foo") == "foo"
    assert norm_title("A. Appendix") == "appendix"
    assert norm_title("  — Über   die Straße!") == "überdiestrasse"
