"""The terms BM25 counts (``index.words``)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.index.words import _split, words

_PARTS = re.compile(r"[^\W\d_]+|\d+")


def split_by_runs(word: str) -> list[str]:
    """What ``_split`` said before its one-run shortcut: the word, plus its letter and
    digit runs of two characters or more when it has several."""
    parts = _PARTS.findall(word)
    return [word] if len(parts) < 2 else [word, *(p for p in parts if len(p) > 1)]


@given(st.from_regex(r"[^\W_]+", fullmatch=True))
def test_a_word_splits_as_its_runs_say(word: str) -> None:
    # Letters of any script, digits of any script, and the other numerals \w holds
    # ("²", "Ⅻ"): the shortcut for one run must agree with reading the runs.
    assert _split(word) == split_by_runs(word)


def test_mixed_words_keep_their_runs_and_plain_ones_stay_whole() -> None:
    assert words("FY2018 revenue of 3M, 1,577 units") == [
        "fy2018",
        "fy",
        "2018",
        "revenu",
        "3m",
        "1577",
        "unit",
    ]
