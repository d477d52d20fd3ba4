"""The order in which ranked snippets enter a context: for a question about several
periods, one after another of the documents it is about before any repeats."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from ..index.lexical import DocInfo
from ..index.words import words
from .rank import Ranked, file_stem, named

COVER_DEPTH = 20  # ranked snippets whose documents a question about several periods covers

# A question spans several periods when it names them in the plural ("over the reported
# quarters", "in these 10-Qs", "across years") or asks for a course in time ("over time",
# "trends", "historical"). Checked on the question's words only, in any kind of document.
_SPAN = re.compile(
    r"\b(?:quarters|periods|years|filings|reports|10-?qs|10-?ks|over time|trends?"
    r"|historical(?:ly)?|each (?:quarter|period|year))\b",
    re.I,
)


def spans_periods(query: str) -> bool:
    return _SPAN.search(query) is not None


SERIES_OVERLAP = 0.5  # Jaccard of title words for two documents to be of one series


def covered(docs: Sequence[DocInfo], query: str, top: str | None) -> frozenset[str]:
    """The documents a question about several periods is about (none for any other
    question): the ones it names when it names any; when it names none, the series of
    ``top``, the best-ranked document ("How have net sales changed over the reported
    quarters?" in a library of one company's reports)."""
    if not spans_periods(query):
        return frozenset()
    chosen = named(docs, query)
    if chosen or top is None:
        return chosen
    return series(docs, top)


def series(docs: Sequence[DocInfo], doc_id: str) -> frozenset[str]:
    """``doc_id`` and the documents titled like it: at least half their title and
    file-name words in common, numbers aside ("Acme quarterly report Q1" and "... Q2";
    not a hockey article and a speech)."""
    titles = _titles(tuple(docs))
    mine = titles.get(doc_id, frozenset())
    return frozenset(
        d for d, ws in titles.items() if d == doc_id or _jaccard(mine, ws) >= SERIES_OVERLAP
    )


@lru_cache(maxsize=4)
def _titles(docs: tuple[DocInfo, ...]) -> dict[str, frozenset[str]]:
    """Each document's title and file-name words, letters only (once per catalog)."""
    return {
        d.doc_id: frozenset(w for w in words(f"{d.title} {file_stem(d.path)}") if w.isalpha())
        for d in docs
    }


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def by_document(
    ranked: Sequence[Ranked], depth: int | None = None, among: Collection[str] | None = None
) -> list[Ranked]:
    """The first ``depth`` snippets of the documents ``among`` (default: all) taken one
    document at a time (each document's best, in the order the documents first appear,
    then each one's second best, ...), the rest after them as ranked. ``depth`` is
    ``COVER_DEPTH`` when not given, read at each call (eval_loso.py varies it)."""
    head = [
        r
        for r in ranked[: COVER_DEPTH if depth is None else depth]
        if among is None or r.doc_id in among
    ]
    taken = {r.id for r in head}
    tail = [r for r in ranked if r.id not in taken]
    queues: dict[str, list[Ranked]] = {}
    for r in head:
        queues.setdefault(r.doc_id, []).append(r)
    out: list[Ranked] = []
    while any(queues.values()):
        for q in queues.values():
            if q:
                out.append(q.pop(0))
    return out + tail


def arrange(ranked: Sequence[Ranked], query: str, scope: Collection[str] = ()) -> list[Ranked]:
    """The order in which the ranked snippets enter a context: as ranked, or, for a
    question about several periods of the documents in ``scope`` (``covered``), those
    documents' snippets one document at a time, ahead of the rest (docugami-10q
    Multi-Doc, tuning half: the context held every filing the answer needs for 54% of
    questions at 4,000 tokens, 77% after; report half 64% -> 82%). Grouping by section
    instead was measured and lost (figure recall 43 -> 29 on the tuning half): a long
    section's many weak snippets outweighed the one that answers.

    Only the documents in scope are spread: "How many new jobs were created in the first
    three years mentioned in the address?" is about one speech, and spreading it over
    every document of its top 20 put a hockey article and a malaria paper before the
    speech's second snippet, which held the answer (chunking-eval)."""
    if not spans_periods(query) or len(set(scope)) < 2:
        return list(ranked)
    return by_document(ranked, among=set(scope))
