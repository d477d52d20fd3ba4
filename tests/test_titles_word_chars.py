"""``norm_title``'s word characters: the byte-table path for ASCII text keeps what the
``[\\W_]+`` pattern keeps; its numbering and ``entry_key``'s footnote mark found as the
patterns first written found them."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.text.titles import (
    _FOOTNOTE_MARK,
    _LEADING_NON_WORD,
    _NON_WORD,
    _NUMBERING,
    _word_chars,
    entry_key,
    norm_title,
    title_chars,
)


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


def _norm_title_by_substitution(text: str) -> str:
    """``norm_title`` as it read before the numbering was found by ``match``: the pattern
    substituted, the result stripped and compared with the text."""
    s = _LEADING_NON_WORD.sub("", text.casefold().strip())
    while True:
        nxt = _NUMBERING.sub("", s, count=1).strip()
        if nxt == s or not _word_chars(nxt):
            break
        s = nxt
    return _word_chars(s) or _word_chars(text.casefold())


_TITLE_PARTS = st.sampled_from(
    ["Chapter", "part", "Appendix", "1", "2.3", "iv", "A", "a", ".", "-", " ", "  ", "\t",
     "Foo", "bar", "§", "—", "1.2.", "x", "_", "Ⅻ", "½"]
)  # fmt: skip


@given(st.lists(_TITLE_PARTS, max_size=8).map("".join) | st.text(max_size=30))
def test_norm_title_finds_the_numbering_as_the_substitution_did(text: str) -> None:
    assert norm_title(text) == _norm_title_by_substitution(text)


_TITLE_TEXT = st.lists(_TITLE_PARTS, max_size=8).map("".join) | st.text(max_size=30)


@given(_TITLE_TEXT, _TITLE_TEXT)
def test_a_title_key_ends_the_title_characters_of_its_text(a: str, b: str) -> None:
    """What ``headings._may_read_as`` rests on: ``norm_title`` of a window of lines ends
    the lines' ``title_chars`` one after the other."""
    assert title_chars(a).endswith(norm_title(a))
    assert title_chars(a + " " + b) == title_chars(a) + title_chars(b)
    assert title_chars(a + " " + b).endswith(norm_title(a + " " + b))


# entry_key's footnote mark as the pattern read before it was tried only where a run of
# blanks begins (tried at each blank, a long run cost its length squared)
_MARK_AT_EVERY_BLANK = re.compile(r"\s*\[(?:\d{1,3}|[a-z*†‡])\]$", re.IGNORECASE)
_MARK_PARTS = st.sampled_from(
    ["Stone", "STONE.", " ", "   ", "\t", "\u3000", "[8]", "[123]", "[a]", "[*]", "[", "]",
     "8", "ſ"]
)  # fmt: skip


@given(st.lists(_MARK_PARTS, max_size=10).map("".join) | st.text(max_size=30))
def test_the_footnote_mark_is_found_as_when_tried_at_every_blank(text: str) -> None:
    assert _FOOTNOTE_MARK.sub("", text) == _MARK_AT_EVERY_BLANK.sub("", text)


def test_a_footnote_mark_after_a_wide_gap_is_set_aside() -> None:
    assert entry_key("STONE." + " " * 40 + "[8]") == "stone"
    assert norm_title(" ".join(["1"] * 500) + " Foo") == "foo"  # every numbering dropped
