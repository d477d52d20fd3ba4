"""The terms BM25 counts (``index.words``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.index.words import _split, words

_PARTS = re.compile(r"[^\W\d_]+|\d+")
FIXTURES = Path(__file__).parent / "fixtures"


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


def words_one_by_one(text: str) -> list[str]:
    """What ``words`` made before it kept each word's terms: every part of every word
    filtered and stemmed in the text's order."""
    from pipeline.index.words import _stemmer
    from pipeline.text.stopwords import SEARCH_STOPWORDS

    raw = re.findall(r"[^\W_]+", re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text.lower()))
    kept = [
        p
        for w in raw
        for p in _split(w)
        if p not in SEARCH_STOPWORDS and (len(p) > 1 or p.isdigit())
    ]
    stems: list[str] = _stemmer().stemWords(kept)
    return stems


@given(st.text())
def test_words_are_those_made_one_by_one(text: str) -> None:
    assert words(text) == words_one_by_one(text)


def test_words_of_real_documents_are_those_made_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pipeline.extract import extract_file
    from pipeline.index import words as module

    monkeypatch.setattr(module, "_MEMO_WORDS", 500)  # emptied on the way too
    documents = [
        *(f for f in sorted((FIXTURES / "extract").iterdir()) if f.suffix in (".pdf", ".epub")),
        *sorted((FIXTURES / "golden").glob("*-*.md")),  # not LICENSES.md
    ]
    for f in documents:
        text = extract_file(f).text
        assert len(text) > 1000
        assert words(text) == words_one_by_one(text)
    assert len(documents) >= 6
