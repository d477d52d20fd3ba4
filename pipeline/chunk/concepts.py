"""Deterministic salient terms (TF-IDF against the same document) and retrieval text."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from operator import mul

from ..text.stopwords import CONCEPT_STOPWORDS
from .tokens import TokenCounter

# Bounded: an open ``{#`` with no ``}`` after it scanned the rest of the text, once per ``{#``.
_MARKUP = re.compile(r"<[^>\n]{1,200}>|https?://\S+|\{\s*#[^{}\n]{0,200}\}")
_TERM = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
# A longer "term" is data (base64, hashes), not a concept; kept, every chunk of its
# section would carry (and count) a megabyte-long prefix.
MAX_TERM_CHARS = 48
_FEW_TERMS = 32


def term_counts(text: str) -> Counter[str]:
    """Counts of candidate terms (lowercased words of 3+ chars, stopwords dropped)."""
    # Tags, URLs and heading anchors are markup, not what the text is about.
    words = _TERM.findall(_MARKUP.sub(" ", text).lower())
    # A list, not a generator, counted in C; a term starts with a letter: never all digits.
    return Counter(
        [w for w in words if 3 <= len(w) <= MAX_TERM_CHARS and w not in CONCEPT_STOPWORDS]
    )


def top_terms(tf: Counter[str], df: Counter[str], n_units: int, k: int) -> tuple[str, ...]:
    """The ``k`` terms with the highest sublinear TF-IDF, ties broken alphabetically."""
    if k <= 0 or not tf:
        return ()
    idf_base = 1 + n_units
    if len(tf) <= _FEW_TERMS:
        # Most sections of a document of many short sections have a handful of terms:
        # scoring them one by one costs less than setting up the tables below.
        scored = sorted((_tf_weight(n) * _idf_weight(df[t], idf_base), t) for t, n in tf.items())
        return tuple(term for _, term in scored[:k])
    # A score depends on two small integers: its factors are computed once per distinct
    # value and the terms are scored in C (a section's distinct words can be 100k+).
    dfs = list(map(df.__getitem__, tf))
    tf_part = {n: _tf_weight(n) for n in set(tf.values())}
    idf_part = {d: _idf_weight(d, idf_base) for d in set(dfs)}
    scores = map(mul, map(tf_part.__getitem__, tf.values()), map(idf_part.__getitem__, dfs))
    return tuple(term for _, term in heapq.nsmallest(k, zip(scores, tf, strict=True)))


def _tf_weight(n: int) -> float:
    """Sublinear term frequency, negated: the best terms sort first."""
    return -(1 + math.log(n))


def _idf_weight(d: int, idf_base: int) -> float:
    return math.log(idf_base / (1 + d) + 1)


def retrieval_prefix(
    doc_title: str,
    path: Sequence[str],
    concepts: Sequence[str],
    table: str = "",
) -> str:
    parts = [f"[DOC: {doc_title}]"]
    if path:
        parts.append(f"[PATH: {' > '.join(path)}]")
    if table:
        parts.append(f"[TABLE: {table}]")
    if concepts:
        parts.append(f"[CONCEPTS: {', '.join(concepts)}]")
    return " ".join(parts) + "\n\n"


_PART = re.compile(r"\[(DOC|PATH|TABLE|CONCEPTS): (.*?)\](?= \[(?:PATH|TABLE|CONCEPTS): |$)")


def _prefix_parts(
    retrieval_text: str, title: str, drop: Collection[str] = ("DOC",)
) -> tuple[list[tuple[str, str]], str]:
    """The parts of a retrieval prefix (kind, text) but those of a kind in ``drop``, and
    the path's first step when it is ``title`` (the document's first heading is its
    title); and the text after the prefix. No prefix: no parts, the text itself."""
    if not retrieval_text.startswith("[DOC: "):
        return [], retrieval_text
    first, _, rest = retrieval_text.partition("\n\n")
    parts = []
    for kind, value in _PART.findall(first):
        if kind == "PATH" and title:
            steps = value.split(" > ")
            value = " > ".join(steps[1:] if _folded(steps[0]) == _folded(title) else steps)
        if kind not in drop and value:
            parts.append((kind, value))
    return parts, rest


def prefix_lead(
    retrieval_text: str, title: str = "", kinds: Collection[str] = ("PATH", "TABLE")
) -> str:
    """What a chunk is titled by: the path and table parts of its retrieval prefix
    (``retrieval_prefix``'s first line; ``kinds`` for fewer), without the document title
    and concepts; with ``title``, a path that opens with it loses that step too."""
    parts, _ = _prefix_parts(retrieval_text, title)
    return " ".join(value for kind, value in parts if kind in kinds)


def prefix_without(retrieval_text: str, drop: Collection[str], title: str = "") -> str:
    """The retrieval text without the prefix parts of a kind in ``drop`` (``DOC``,
    ``PATH``, ``TABLE``, ``CONCEPTS``) and, with ``title``, without the path's first step
    when that is the title: e.g. what a chunk says and where in its document it stands,
    but not which document."""
    if not retrieval_text.startswith("[DOC: ") or not (drop or title):
        return retrieval_text
    parts, rest = _prefix_parts(retrieval_text, title, drop)
    return " ".join(f"[{kind}: {value}]" for kind, value in parts) + "\n\n" + rest


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def fit_prefix(
    doc_title: str,
    path: Sequence[str],
    concepts: Sequence[str],
    table: str,
    body_tokens: int,
    budget: int,
    counter: TokenCounter,
) -> tuple[str, int]:
    """The retrieval text, with the prefix shortened until it fits ``budget``:
    concepts go first (last to first), then the table's caption and headers, then the
    middle of the path, and last the longest title is cut (a "heading" can be a whole
    paragraph).
    Returns the prefix and the total count (``body_tokens`` + the prefix's)."""
    concepts = list(concepts)
    middle = list(path[1:-1])
    keep = len(middle)
    titles: list[str] = []
    while True:
        shown = list(path)
        if len(path) > 2 and keep < len(middle):
            left, right = middle[: (keep + 1) // 2], middle[len(middle) - keep // 2 :]
            shown = [path[0], *left, "…", *(right if keep // 2 else []), path[-1]]
        if titles:
            doc_title, *shown = titles
        prefix = retrieval_prefix(doc_title, shown, concepts, table)
        total = body_tokens + counter.count(prefix)
        if total <= budget:
            return prefix, total
        if concepts:
            concepts.pop()
        elif table:
            table = ""
        elif keep > 0:
            keep -= 1
        else:
            titles = _clip_longest([doc_title, *shown])
            if not titles:
                return prefix, total


def _clip_longest(titles: list[str]) -> list[str]:
    """``titles`` with the longest one cut to half its length (an ellipsis marks the cut),
    or [] when every title is down to a few characters."""
    i = max(range(len(titles)), key=lambda k: len(titles[k]))
    if len(titles[i]) <= 4:
        return []
    keep = len(titles[i]) // 2
    return [*titles[:i], titles[i][:keep].rstrip() + "…", *titles[i + 1 :]]
