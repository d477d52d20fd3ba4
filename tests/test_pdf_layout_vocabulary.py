"""The dehyphenation vocabulary: one pass over all lines finds what a pass per line finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.extract.pdf.layout import _WORD, vocabulary

# letters whose case folding changes length or adds a combining mark, hyphens, digits,
# blanks and line breaks: where a joined pass could differ from one per line
_ALPHABET = "aZß-İﬁ1 _\n\t·é"


def _per_line(lines: list[str]) -> set[str]:
    vocab: set[str] = set()
    for line in lines:
        vocab.update(w.casefold() for w in _WORD.findall(line))
    return vocab


@given(st.lists(st.text(alphabet=_ALPHABET, max_size=20), max_size=8))
def test_vocabulary_matches_a_pass_per_line(lines: list[str]) -> None:
    assert vocabulary(lines) == _per_line(lines)


def test_no_word_spans_two_lines() -> None:
    assert vocabulary(["well-", "known Straße"]) == {"well", "known", "strasse"}
