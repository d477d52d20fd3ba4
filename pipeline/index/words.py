"""The words BM25 counts: lower case, stopwords out, Snowball stems.

One function serves the index and the query, so both see the same terms."""

from __future__ import annotations

import re
from functools import cache
from itertools import chain
from typing import Any

from ..text.stopwords import SEARCH_STOPWORDS

# 1,577 -> 1577, as questions write it; the comma first, so the scan looks for it alone
# (a lookbehind first was tried at every character: 14x slower)
_THOUSANDS = re.compile(r",(?<=\d,)(?=\d{3}(?!\d))")
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


class _Terms(dict[str, tuple[str, ...]]):
    """Each word's terms (its parts kept, stemmed), made once per process: words repeat
    (most of a text is a few thousand of them), and making them word by word was most
    of the time an ingest spends on a snippet's terms. Emptied when it grows large."""

    def __missing__(self, word: str) -> tuple[str, ...]:
        if len(self) >= _MEMO_WORDS:
            self.clear()
        stem = _stemmer().stemWord
        kept = tuple(
            stem(p)
            for p in _split(word)
            if p not in SEARCH_STOPWORDS and (len(p) > 1 or p.isdigit())
        )
        self[word] = kept
        return kept


_MEMO_WORDS = 200_000  # distinct words kept (a few tens of MB at most)
_terms = _Terms()


def words(text: str) -> list[str]:
    """The stemmed terms of ``text`` in order (repeats kept: BM25 counts them)."""
    raw = _WORD.findall(_THOUSANDS.sub("", text.lower()))
    return list(chain.from_iterable(map(_terms.__getitem__, raw)))


def query_words(text: str) -> list[str]:
    """The distinct terms of a question, in order."""
    return list(dict.fromkeys(words(text)))
