"""The words BM25 counts: lower case, stopwords out, Snowball stems.

One function serves the index and the query, so both see the same terms."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ..text.stopwords import SEARCH_STOPWORDS

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 1,577 -> 1577, as questions write it
_WORD = re.compile(r"[^\W_]+")
_PARTS = re.compile(r"[^\W\d_]+|\d+")  # fy2018 -> fy, 2018


@cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def runs(word: str) -> list[str]:
    """A word's letter and digit runs: ``fy2018`` -> ``fy``, ``2018``."""
    found: list[str] = _PARTS.findall(word)
    return found


def _split(word: str) -> list[str]:
    """A word, plus its letter and digit runs when it mixes them (``fy2018``); runs of
    one character carry no meaning alone (``3m`` stays whole)."""
    if word.isalpha() or word.isdecimal():  # one run: most words, no regex call
        return [word]
    parts = runs(word)
    if len(parts) < 2:
        return [word]
    return [word, *(p for p in parts if len(p) > 1)]


def words(text: str) -> list[str]:
    """The stemmed terms of ``text`` in order (repeats kept: BM25 counts them)."""
    raw = _WORD.findall(_THOUSANDS.sub("", text.lower()))
    kept = [
        p
        for w in raw
        for p in _split(w)
        if p not in SEARCH_STOPWORDS and (len(p) > 1 or p.isdigit())
    ]
    stems: list[str] = _stemmer().stemWords(kept)
    return stems


def query_words(text: str) -> list[str]:
    """The distinct terms of a question, in order."""
    return list(dict.fromkeys(words(text)))
