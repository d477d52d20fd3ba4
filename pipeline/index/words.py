"""The words BM25 counts: lower case, stopwords out, Snowball stems.

One function serves the index and the query, so both see the same terms."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 1,577 -> 1577, as questions write it
_WORD = re.compile(r"[^\W_]+")
_PARTS = re.compile(r"[^\W\d_]+|\d+")  # fy2018 -> fy, 2018

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself me more most my no nor not of off on once only or other our ours out over own same
    she should so some such than that the their theirs them then there these they this those
    through to too under until up very was we were what whats when where which while who whom
    whose why will with would you your yours according mentioned mention described describe
    discussed regarding given specific particular""".split()  # noqa: SIM905
)


@cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def _split(word: str) -> list[str]:
    """A word, plus its letter and digit runs when it mixes them (``fy2018``); runs of
    one character carry no meaning alone (``3m`` stays whole)."""
    parts = _PARTS.findall(word)
    if len(parts) < 2:
        return [word]
    return [word, *(p for p in parts if len(p) > 1)]


def words(text: str) -> list[str]:
    """The stemmed terms of ``text`` in order (repeats kept: BM25 counts them)."""
    raw = _WORD.findall(_THOUSANDS.sub("", text.lower()))
    kept = [p for w in raw for p in _split(w) if p not in STOPWORDS and (len(p) > 1 or p.isdigit())]
    stems: list[str] = _stemmer().stemWords(kept)
    return stems


def query_words(text: str) -> list[str]:
    """The distinct terms of a question, in order."""
    return list(dict.fromkeys(words(text)))
