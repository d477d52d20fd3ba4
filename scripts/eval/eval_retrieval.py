#!/usr/bin/env python3
"""Retrieval evaluation: Folio's ``retrieve`` beside BM25, dense and RRF baselines, one run.

Question sets (under ``--qa-root``, default ``$FOLIO_DATA/corpus/qa``):

- ``chunking-eval`` — Chroma's chunking-evaluation set: ``corpora/*.md`` and
  ``questions_df.csv`` (question, references = exact character spans of the corpus file).
  Metric *ref-in-context*: every reference span has >= 90% of its characters inside the
  union of the context's character ranges in the right document.
- ``financebench-dev`` — 47 FinanceBench questions over 39 SEC filings (``pdfs/*.pdf``,
  ``questions.jsonl``; ``evidence_page_num`` is 0-based, ``doc_name`` is the PDF stem).
  Metrics: *page-hit* — some context item from the right document lies (partly) on an
  evidence page (1-based page = evidence_page_num + 1; an item's pages come from its
  character range and the extracted ``Document.pages``, for every method alike);
  *evidence-in-context* — for every evidence passage of the question, >= 90% of its distinct
  word 5-grams (lowercased ``\\w+`` runs) occur in the context items of the right document.
  Also printed: how many evidence pages keep the statement's numbers after extraction.
- ``docugami-10q`` — 195 open analyst questions over 20 10-Q filings (``pdfs/*.pdf``,
  ``qna_data.csv``: reviewed answers, no evidence spans). The filings a question needs are
  those its answer cites among those its ``Source Docs`` glob matches. Metrics:
  *figure recall* — the share of the answer's figures (amounts and ratios; years, dates and
  one-digit numbers left out) printed in context items from those filings (answers
  without figures are left out); *answer words* — the share of the answer's content words
  found in the context; *every filing* — every needed filing has an item in the context
  (the Multi-Doc questions' coverage).
- ``covid-qa`` — COVID-QA's experts' questions over 92 scientific articles (Markdown files
  and ``questions.jsonl`` built by ``scripts/devsets/build_qa_set.py`` under ``$FOLIO_EVAL_DATA``;
  eval/covid-qa). The evidence is the answer's exact span of its article; metric
  *ref-in-context* as for chunking-eval.

Question sets, their types and the fixed tuning/report split (by company for filings, by
corpus file otherwise; ``eval/splits.json``) are in ``scripts/eval/qa_sets.py``. Every table is
printed for all questions, for each half, and per question type and kind within each half;
rules are tuned on the tuning half and kept only when the report half agrees.

Per set, all of its documents form ONE library: one ingest into a fresh embedded Typesense
server in a temporary ``FOLIO_HOME`` (stopped by pid at the end, also on error, Ctrl-C or
SIGTERM); questions carry no document filter, so retrieval must find the document itself.

Methods, each at budgets of 1,000 / 2,000 / 4,000 true WordPiece tokens (all-MiniLM
``tokenizer.json``, no special tokens, truncation and padding off):

- Folio: ``retrieve(store, question, budget, counter=<exact WordPiece>, mode=m)`` for each mode
  the installed Folio offers (``lexical``; ``dense`` and ``hybrid`` only when
  ``pipeline.embed.dense_available()``); a ``retrieve`` without a ``mode`` keyword runs once
  as mode ``default``. Folio's budget also pays for each item's citation header.
- Baselines over the same extracted text (``pipeline.extract_file(path).text``), split per
  document by a recursive character splitter (separators ``\\n\\n``, ``\\n``, ``". "``, ``" "``,
  ``""``) into chunks of at most 400 WordPiece tokens, no overlap; the whole library's chunks
  are ranked and packed in rank order while they fit (a chunk that does not fit is skipped and
  smaller ones after it still may). ``BM25`` is bm25s with its default tokenizer and English
  stop words (only chunks scoring > 0), ``BM25+stem`` adds PyStemmer's English stemmer,
  ``dense`` ranks by cosine of ``pipeline.embed.load_embedder()`` vectors and ``RRF`` fuses
  the BM25 and dense rankings (k = 60, top 1,000 of each).

Printed per set: one table (rows = methods, columns = metric@budget), paired differences at
2,000 tokens of each Folio mode (and the best one) against the best baseline with a 95%
bootstrap interval (10,000 resamples of questions, fixed seed), Folio ``retrieve`` latency
p50/p95 per mode (in-process, server round trip included), ingest time and chunk counts.
"Best" is picked on the same questions, so its difference is slightly optimistic.

Examples::

    python scripts/eval/eval_retrieval.py                            # both sets, tables
    python scripts/eval/eval_retrieval.py --limit 40 --sets chunking-eval
    python scripts/eval/eval_retrieval.py --json > /tmp/eval.json --details /tmp/eval.jsonl
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import inspect
import json
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402  (scripts/ is on the path)
from qa_sets import (  # noqa: E402
    HALVES,
    HOLDOUT,
    LOADERS,
    Evidence,
    Question,
    answer_text,
    figures,
    printed_figures,
    read_split,
    with_halves,
)
from stats import percentile  # noqa: E402

from pipeline.text.stopwords import FUNCTION_WORDS  # noqa: E402

DEFAULT_QA_ROOT = data_dir() / "corpus" / "qa"
DEFAULT_TOKENIZER = data_dir() / "tokenizers" / "all-MiniLM-L6-v2.tokenizer.json"
SETS = tuple(LOADERS)
BUDGETS = (1000, 2000, 4000)
CI_BUDGET = 2000
MIN_SHARE = 0.9  # of a reference's characters / an evidence's 5-grams / a page's numbers
NGRAM = 5
CHUNK_TOKENS = 400
SEPARATORS = ("\n\n", "\n", ". ", " ", "")
RRF_K = 60
RRF_DEPTH = 1000
RESAMPLES = 10_000
SEED = 20240601
EMBED_BATCH = 256
METRIC_NAMES = {
    "ref_in_context": "ref-in-context",
    "page_hit": "page-hit",
    "evidence_in_context": "evidence-in-context",
    "doc_hit": "right doc",
    "figure_recall": "figure recall",
    "answer_support": "answer words",
    "all_sources": "every filing",
}

Span = tuple[int, int]
T = TypeVar("T")


# --------------------------------------------------------------------------- span metrics


def merge(spans: Iterable[Span]) -> list[Span]:
    """Sorted, disjoint, non-empty ranges covering the same characters as ``spans``."""
    out: list[Span] = []
    for s, e in sorted((int(a), int(b)) for a, b in spans if b > a):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def length(spans: Iterable[Span]) -> int:
    return sum(e - s for s, e in merge(spans))


def intersection(a: Iterable[Span], b: Iterable[Span]) -> int:
    """Characters in both unions."""
    xs, ys = merge(a), merge(b)
    i = j = total = 0
    while i < len(xs) and j < len(ys):
        lo, hi = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        if hi > lo:
            total += hi - lo
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass(frozen=True, slots=True)
class Scores:
    recall: float
    precision: float
    iou: float


def span_scores(retrieved: Sequence[Span], relevant: Sequence[Span]) -> Scores:
    """Character-level recall, precision and IoU of ``retrieved`` against ``relevant``
    (overlapping ranges count once)."""
    inter = intersection(retrieved, relevant)
    rel, ret = length(relevant), length(retrieved)
    union = rel + ret - inter
    return Scores(
        recall=inter / rel if rel else 0.0,
        precision=inter / ret if ret else 0.0,
        iou=inter / union if union else 0.0,
    )


def refs_in_context(
    refs: Sequence[Span], context: Sequence[Span], min_share: float = MIN_SHARE
) -> bool:
    """Every non-empty reference has at least ``min_share`` of its characters in the union
    of the context ranges."""
    ctx = merge(context)
    return all(intersection([(s, e)], ctx) >= min_share * (e - s) for s, e in refs if e > s)


# --------------------------------------------------------------------------- text metrics

_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\(?\d(?:[\d,.]*\d)?\)?")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ngrams(ws: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(ws[i : i + n]) for i in range(len(ws) - n + 1)}


def ngram_coverage(evidence: str, texts: Iterable[str], n: int = NGRAM) -> float:
    """Share of the evidence's distinct word ``n``-grams found in any of ``texts`` (each text
    on its own: no n-gram spans two texts). An evidence shorter than ``n`` words is one gram
    of its length; one with no words counts as covered."""
    ws = words(evidence)
    if not ws:
        return 1.0
    k = min(n, len(ws))
    want = ngrams(ws, k)
    have: set[tuple[str, ...]] = set()
    for t in texts:
        have |= ngrams(words(t), k)
    return len(want & have) / len(want)


def numbers(text: str) -> set[str]:
    """Numeric tokens as a statement prints them: ``1,577``, ``(370)``, ``12.5``, ``2018``."""
    return set(_NUMBER.findall(text))


def is_table_row(line: str) -> bool:
    return bool(_TABLE_ROW.match(line))


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True, slots=True)
class Doc:
    name: str  # corpus id / PDF stem: what the questions call it
    path: Path
    doc_id: str  # sha256 of the file, Folio's doc_id
    text: str
    pages: tuple[tuple[int, int, int], ...] = ()  # (1-based number, char_start, char_end)

    def page_text(self, number: int) -> str | None:
        for n, s, e in self.pages:
            if n == number:
                return self.text[s:e]
        return None


def pages_of(span: Span, pages: Sequence[tuple[int, int, int]]) -> set[int]:
    """Numbers of the pages whose character range shares a character with ``span``."""
    a, b = span
    return {n for n, s, e in pages if s < b and a < e}


def _extract(path: str) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    from pipeline import extract_file

    doc = extract_file(path)
    return doc.text, tuple((p.number, p.char_start, p.char_end) for p in doc.pages)


def load_docs(paths: Sequence[Path], workers: int) -> dict[str, Doc]:
    """Extract every file (in ``workers`` processes when more than one) as Folio does."""
    from pipeline.ingest.files import file_sha256

    if workers > 1 and len(paths) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            got = list(pool.map(_extract, [str(p) for p in paths]))
    else:
        got = [_extract(str(p)) for p in paths]
    return {
        p.stem: Doc(p.stem, p, file_sha256(p), text, pages)
        for p, (text, pages) in zip(paths, got, strict=True)
    }


# --------------------------------------------------------------------------- question sets


SET_METRICS = {
    "chunking-eval": ("ref_in_context",),
    "financebench-dev": ("page_hit", "evidence_in_context"),
    "docugami-10q": ("figure_recall", "answer_support", "all_sources"),
    "fairytaleqa": ("ref_in_context",),
    "covid-qa": ("ref_in_context",),
}


def spread(items: Sequence[T], limit: int | None) -> list[T]:
    """``limit`` items evenly spread over the sequence (so every document is sampled)."""
    if not limit or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def locate(content: str, text: str) -> Span | None:
    """Where ``content`` (paragraphs apart by blank lines) stands in an extracted text,
    which may have marked one of its lines as a heading (``# `` before it)."""
    paragraphs = [re.escape(p) for p in content.split("\n\n")]
    found = re.search(r"(?:#{1,6} )?" + r"\n\n(?:#{1,6} )?".join(paragraphs), text)
    return found.span() if found else None


def with_refs(questions: Sequence[Question], texts: dict[str, str]) -> list[Question]:
    """Questions whose evidence is text (``contents``) with no offsets get the spans of
    that text in their document's extracted text (the contents become those spans' text,
    so ``check_alignment`` holds; one not found is left out of both and counted there)."""
    out = []
    for q in questions:
        if q.refs or not q.contents:
            out.append(q)
            continue
        spans = [locate(c, texts.get(q.doc, "")) for c in q.contents]
        found = [s for s in spans if s]
        out.append(
            replace(
                q,
                refs=tuple(found),
                contents=tuple(texts[q.doc][a:b] for a, b in found),
                missing=len(spans) - len(found),
            )
        )
    return out


def check_alignment(questions: Sequence[Question], texts: dict[str, str]) -> list[dict[str, Any]]:
    """References whose offsets do not select their content in the extracted text."""
    bad: list[dict[str, Any]] = []
    for q in questions:
        text = texts.get(q.doc)
        for (s, e), content in zip(q.refs, q.contents, strict=True):
            if text is None or text[s:e] != content:
                bad.append(
                    {
                        "question": q.index,
                        "doc": q.doc,
                        "start": s,
                        "end": e,
                        "expected": content[:80],
                        "found": (text or "")[s:e][:80],
                    }
                )
    return bad


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True, slots=True)
class Item:
    """One piece of a context: a character range of a document's extracted text."""

    doc: str  # Doc.name; "" for a document outside the set
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Packed:
    items: tuple[Item, ...]
    tokens: int


def page_hit(q: Question, items: Sequence[Item], doc: Doc) -> bool:
    want = {e.page for e in q.evidence}
    return any(want & pages_of((it.start, it.end), doc.pages) for it in items if it.doc == q.doc)


def evidence_in_context(q: Question, items: Sequence[Item]) -> bool:
    texts = [it.text for it in items if it.doc == q.doc]
    return all(ngram_coverage(e.text, texts) >= MIN_SHARE for e in q.evidence)


def figure_recall(q: Question, items: Sequence[Item]) -> float:
    """Share of the answer's figures printed in the context items of its source documents;
    nan for an answer without figures (left out of the mean)."""
    want = figures(q.answer)
    if not want:
        return math.nan
    have: set[str] = set()
    for it in items:
        if it.doc in q.docs:
            have |= printed_figures(it.text)
    return len(want & have) / len(want)


def answer_support(q: Question, items: Sequence[Item]) -> float:
    """Share of the answer's content words (three letters or more, no function words, no
    numbers) found anywhere in the context."""
    want = {w for w in words(answer_text(q.answer)) if _content_word(w)}
    if not want:
        return math.nan
    have: set[str] = set()
    for it in items:
        have |= set(words(it.text))
    return len(want & have) / len(want)


def _content_word(w: str) -> bool:
    return len(w) >= 3 and not w.isdigit() and w not in FUNCTION_WORDS


def all_sources(q: Question, items: Sequence[Item]) -> float:
    """1.0 when every document the answer rests on has an item in the context."""
    return float(set(q.docs) <= {it.doc for it in items})


def score(q: Question, items: Sequence[Item], docs: dict[str, Doc]) -> dict[str, float]:
    """Every metric of the question's set (1.0 / 0.0 for hits; nan where a question has
    nothing to measure), whether any item comes from a right document, and the reference
    character recall for span questions."""
    doc_hit = float(any(it.doc in q.docs for it in items))
    if q.answer:
        return {
            "figure_recall": figure_recall(q, items),
            "answer_support": answer_support(q, items),
            "all_sources": all_sources(q, items),
            "doc_hit": doc_hit,
        }
    if q.evidence:
        return {
            "page_hit": float(page_hit(q, items, docs[q.doc])),
            "evidence_in_context": float(evidence_in_context(q, items)),
            "doc_hit": doc_hit,
        }
    spans = [(it.start, it.end) for it in items if it.doc == q.doc]
    return {
        "ref_in_context": float(refs_in_context(q.refs, spans)),
        "ref_recall": span_scores(spans, q.refs).recall,
        "doc_hit": doc_hit,
    }


# --------------------------------------------------------------------------- baselines


class BatchCounter(Protocol):
    def count_many(self, texts: list[str]) -> list[int]: ...


def _cut(text: str, lo: int, hi: int, sep: str) -> list[Span]:
    """``[lo, hi)`` cut after every ``sep`` (kept at the end of its piece), or into single
    characters for ``sep == ""``; the pieces are contiguous and cover ``[lo, hi)``."""
    if not sep:
        return [(i, i + 1) for i in range(lo, hi)]
    out: list[Span] = []
    start = lo
    while (at := text.find(sep, start, hi)) != -1:
        out.append((start, at + len(sep)))
        start = at + len(sep)
    if start < hi:
        out.append((start, hi))
    return out


def _split(
    text: str, lo: int, hi: int, seps: Sequence[str], counter: BatchCounter, limit: int
) -> list[Span]:
    level = next(i for i, s in enumerate(seps) if not s or text.find(s, lo, hi) != -1)
    pieces = _cut(text, lo, hi, seps[level])
    costs = counter.count_many([text[a:b] for a, b in pieces])
    out: list[Span] = []
    run: Span | None = None
    used = 0
    for (a, b), c in zip(pieces, costs, strict=True):
        if run is not None and used + c > limit:
            out.append(run)
            run, used = None, 0
        if c > limit and level + 1 < len(seps):
            out += _split(text, a, b, seps[level + 1 :], counter, limit)
            continue
        run, used = ((run[0] if run else a), b), used + c
    if run is not None:
        out.append(run)
    return out


def _strip(text: str, span: Span) -> Span | None:
    a, b = span
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if b > a else None


def split_recursive(
    text: str,
    counter: BatchCounter,
    limit: int = CHUNK_TOKENS,
    separators: Sequence[str] = SEPARATORS,
) -> list[Span]:
    """Recursive character splitting with offsets: ``[start, end)`` chunks of ``text`` in
    order, no overlap, whitespace trimmed, whitespace-only chunks dropped.

    The text is cut at the first separator that occurs in it (the separator stays with the
    piece before it); pieces are merged greedily while their summed token counts stay within
    ``limit``; a piece over ``limit`` is split again with the next separators. All
    separators but ``""`` end in whitespace, where WordPiece counts add up exactly."""
    spans = _split(text, 0, len(text), separators, counter, limit) if text else []
    return [s for s in (_strip(text, sp) for sp in spans) if s is not None]


@dataclass(frozen=True, slots=True)
class Chunks:
    items: tuple[Item, ...]
    tokens: tuple[int, ...]


def build_chunks(docs: dict[str, Doc], counter: BatchCounter, limit: int) -> Chunks:
    items = [
        Item(d.name, a, b, d.text[a:b])
        for d in docs.values()
        for a, b in split_recursive(d.text, counter, limit)
    ]
    tokens = counter.count_many([it.text for it in items]) if items else []
    return Chunks(tuple(items), tuple(tokens))


def pack(ranked: Iterable[int], costs: Sequence[int], budget: int) -> list[int]:
    """Indices in rank order while they fit ``budget``; one that does not fit is skipped and
    the ones after it may still fit."""
    out: list[int] = []
    used = 0
    for i in ranked:
        if used + costs[i] <= budget:
            out.append(i)
            used += costs[i]
            if used == budget:
                break
    return out


def rrf(rankings: Sequence[Sequence[int]], k: int = RRF_K, depth: int = RRF_DEPTH) -> list[int]:
    """Reciprocal rank fusion: sum of 1 / (k + rank) over the top ``depth`` of each ranking
    (ranks from 1); ties by index."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for pos, i in enumerate(ranking[:depth], 1):
            score[i] = score.get(i, 0.0) + 1.0 / (k + pos)
    return sorted(score, key=lambda i: (-score[i], i))


Ranker = Callable[[str], list[int]]


def bm25_ranker(texts: Sequence[str], stem: bool) -> Ranker:
    """bm25s with its default tokenizer and English stop words (optionally PyStemmer's
    English stemmer); ranks the chunks that score above zero."""
    import bm25s

    stemmer: Any = None
    if stem:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    corpus = bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, show_progress=False)
    retriever.index(corpus, show_progress=False)

    def rank(query: str) -> list[int]:
        q = bm25s.tokenize(
            [query], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        if not q:
            return []
        scores = np.asarray(retriever.get_scores(q))
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order[scores[order] > 0]]

    return rank


class Embedder(Protocol):
    def embed(self, texts: list[str], kind: str = ...) -> npt.NDArray[np.float32]: ...


def embed_all(embedder: Embedder, texts: Sequence[str], batch: int = EMBED_BATCH) -> Any:
    parts = [embedder.embed(list(texts[i : i + batch])) for i in range(0, len(texts), batch)]
    return np.vstack(parts) if parts else np.zeros((0, 0), dtype=np.float32)


def dense_ranker(embedder: Embedder, matrix: Any) -> Ranker:
    """Chunks by cosine to the question (the vectors are L2-normalised: a dot product)."""

    def rank(query: str) -> list[int]:
        q = embedder.embed([query], "query")[0]  # the model's query prompt, if it has one
        return [int(i) for i in np.argsort(-(matrix @ q), kind="stable")]

    return rank


def load_dense() -> tuple[Embedder | None, str]:
    """The embedder of ``pipeline.embed`` when it exists and says it is available."""
    try:
        mod = importlib.import_module("pipeline.embed")
    except ImportError as exc:
        return None, f"pipeline.embed not importable ({exc})"
    available = getattr(mod, "dense_available", None)
    if available is None or not available():
        return None, "pipeline.embed.dense_available() is missing or False"
    embedder: Embedder = mod.load_embedder()
    return embedder, ""


# --------------------------------------------------------------------------- methods


Runner = Callable[[str, Sequence[int]], dict[int, Packed]]


@dataclass(slots=True)
class Method:
    name: str
    run: Runner
    folio: bool = False
    ms: list[float] = field(default_factory=list)  # Folio: one per retrieve call


def folio_modes(retrieve: Callable[..., Any], dense: bool) -> list[str]:
    if "mode" not in inspect.signature(retrieve).parameters:
        return ["default"]
    return ["lexical", "dense", "hybrid"] if dense else ["lexical"]


def folio_method(store: Any, mode: str, counter: Any, names: dict[str, str]) -> Method:
    """Folio's ``retrieve`` in ``mode``; ``names`` maps doc_id to Doc.name."""
    from pipeline.retrieve import retrieve

    kwargs: dict[str, Any] = {} if mode == "default" else {"mode": mode}
    ms: list[float] = []

    def run(query: str, budgets: Sequence[int]) -> dict[int, Packed]:
        out: dict[int, Packed] = {}
        for b in budgets:
            t0 = time.perf_counter()
            ctx = retrieve(store, query, b, counter=counter, **kwargs)
            ms.append((time.perf_counter() - t0) * 1000)
            items = tuple(
                Item(
                    names.get(it.citation.doc_id, ""),
                    it.citation.char_start,
                    it.citation.char_end,
                    it.text,
                )
                for it in ctx.items
            )
            out[b] = Packed(items, ctx.tokens)
        return out

    return Method(f"Folio {mode}", run, folio=True, ms=ms)


def baseline_method(name: str, rank: Ranker, chunks: Chunks) -> Method:
    def run(query: str, budgets: Sequence[int]) -> dict[int, Packed]:
        ranked = rank(query)
        out: dict[int, Packed] = {}
        for b in budgets:
            picked = pack(ranked, chunks.tokens, b)
            out[b] = Packed(
                tuple(chunks.items[i] for i in picked), sum(chunks.tokens[i] for i in picked)
            )
        return out

    return Method(name, run)


def chunk_vectors(embedder: Embedder, texts: Sequence[str], cache: Path | None) -> Any:
    """The chunks' vectors, read from ``cache`` when it holds them for these very texts."""
    named = "\0".join([getattr(embedder, "name", ""), *texts])
    key = hashlib.sha256(named.encode()).hexdigest()[:16]
    path = cache / f"baseline-vectors-{key}.npy" if cache else None
    if path and path.exists():
        return np.load(path)
    matrix = embed_all(embedder, texts)
    if path:
        np.save(path, matrix)
    return matrix


def baseline_methods(
    chunks: Chunks, embedder: Embedder | None, cache: Path | None, log: Callable[[str], None]
) -> list[Method]:
    texts = [it.text for it in chunks.items]
    # cached: RRF ranks the same question again right after BM25 and dense did
    bm25 = functools.lru_cache(maxsize=2)(bm25_ranker(texts, stem=False))
    out = [baseline_method("BM25", bm25, chunks)]
    try:
        out.append(baseline_method("BM25+stem", bm25_ranker(texts, stem=True), chunks))
    except ImportError as exc:
        log(f"note: BM25+stem skipped, PyStemmer not importable ({exc})")
    if embedder is None:
        return out
    t0 = time.perf_counter()
    matrix = chunk_vectors(embedder, texts, cache)
    dense = functools.lru_cache(maxsize=2)(dense_ranker(embedder, matrix))
    log(f"  vectors of {len(texts)} baseline chunks in {time.perf_counter() - t0:.1f} s")
    out.append(baseline_method("dense", dense, chunks))
    out.append(baseline_method("RRF(BM25,dense)", lambda q: rrf([bm25(q), dense(q)]), chunks))
    return out


# --------------------------------------------------------------------------- statistics


def mean(values: Sequence[float]) -> float:
    """The mean of the values that are numbers (nan: the question measures nothing)."""
    xs = [v for v in values if not math.isnan(v)]
    return sum(xs) / len(xs) if xs else math.nan


def bootstrap_ci(
    diffs: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95
) -> tuple[float, float, float]:
    """Mean of paired differences and its percentile bootstrap interval (questions
    resampled with replacement)."""
    x = np.asarray(diffs, dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, 2_000_000 // x.size)  # bounded memory for the index matrix
    for lo in range(0, resamples, step):
        n = min(step, resamples - lo)
        means[lo : lo + n] = x[rng.integers(0, x.size, size=(n, x.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(x.mean()), float(low), float(high)


# --------------------------------------------------------------------------- extraction check


@dataclass(frozen=True, slots=True)
class NumberCheck:
    doc: str
    page: int
    numbers: int  # distinct numeric tokens of the evidence passage
    found: int  # of those, present in the extracted text of the evidence page
    lines: int  # lines of the extracted page holding a found number
    table_lines: int  # of those, markdown table rows


def number_check(doc: Doc, ev: Evidence) -> NumberCheck:
    want = numbers(ev.text)
    page = doc.page_text(ev.page) or ""
    found = want & numbers(page)
    lines = [ln for ln in page.splitlines() if numbers(ln) & found]
    return NumberCheck(
        doc.name,
        ev.page,
        len(want),
        len(found),
        len(lines),
        sum(1 for ln in lines if is_table_row(ln)),
    )


def extraction_report(questions: Sequence[Question], docs: dict[str, Doc]) -> dict[str, Any]:
    """How much of each evidence page survives extraction: its numbers, its 5-grams."""
    seen: dict[tuple[str, int], NumberCheck] = {}
    gram_page = gram_doc = total = 0
    for q in questions:
        doc = docs[q.doc]
        for ev in q.evidence:
            total += 1
            page = doc.page_text(ev.page) or ""
            gram_page += ngram_coverage(ev.text, [page]) >= MIN_SHARE
            gram_doc += ngram_coverage(ev.text, [doc.text]) >= MIN_SHARE
            seen.setdefault((doc.name, ev.page), number_check(doc, ev))
    checks = list(seen.values())
    good = [c for c in checks if c.numbers and c.found >= MIN_SHARE * c.numbers]
    return {
        "evidence_passages": total,
        "passages_5gram_on_page": gram_page,
        "passages_5gram_in_doc": gram_doc,
        "evidence_pages": len(checks),
        "pages_with_numbers": sum(1 for c in checks if c.numbers),
        "pages_numbers_found": len(good),
        "lines_with_numbers": sum(c.lines for c in good),
        "table_row_lines": sum(c.table_lines for c in good),
        "pages_with_table_rows": sum(1 for c in good if c.table_lines),
        "pages": [
            {
                "doc": c.doc,
                "page": c.page,
                "numbers": c.numbers,
                "found": c.found,
                "lines": c.lines,
                "table_lines": c.table_lines,
            }
            for c in checks
        ],
    }


# --------------------------------------------------------------------------- the run


@contextmanager
def embedded_store(keep: Path | None = None) -> Iterator[Any]:
    """An embedded Typesense server in a FOLIO_HOME, stopped by its pid on leaving, also on an
    exception or KeyboardInterrupt. The home is temporary and removed unless ``keep`` names
    it: then the library stays, and the next run's ingest only adds what changed."""
    from pipeline.index import server
    from pipeline.index.settings import ServerSettings
    from pipeline.index.store import Store

    home = keep or Path(tempfile.mkdtemp(prefix="folio-eval-"))
    home.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get("FOLIO_HOME")
    os.environ["FOLIO_HOME"] = str(home)  # nothing may fall back to the user's data dir
    try:
        running = server.start(home)
        yield Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
    finally:
        server.stop(home)
        if keep is None:
            shutil.rmtree(home, ignore_errors=True)
        if previous is None:
            os.environ.pop("FOLIO_HOME", None)
        else:
            os.environ["FOLIO_HOME"] = previous


@dataclass(slots=True)
class SetRun:
    name: str
    questions: list[Question]
    docs: dict[str, Doc]
    meta: dict[str, Any]
    methods: list[Method] = field(default_factory=list)
    # scores[method][budget][metric] = one value per question, in question order
    scores: dict[str, dict[int, dict[str, list[float]]]] = field(default_factory=dict)
    tokens: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    misaligned: dict[str, int] = field(default_factory=dict)


def ingest_library(store: Any, paths: Sequence[Path], workers: int | None) -> dict[str, Any]:
    from pipeline import make_config
    from pipeline.ingest import IngestOptions, ingest

    t0 = time.perf_counter()
    report = ingest([str(p) for p in paths], make_config({}), store, IngestOptions(workers=workers))
    seconds = time.perf_counter() - t0
    if report.interrupted:
        raise KeyboardInterrupt
    if report.failed:
        reasons = "; ".join(f"{f.path} ({f.stage}): {f.reason}" for f in report.failed)
        raise RuntimeError(f"ingest failed: {reasons}")
    return {
        "ingest_s": seconds,
        "sections": report.sections,
        "snippets": report.snippets,
        "pages": report.pages,
        "files": len(report.ingested),
        "duplicates": len(report.duplicates),
    }


def record(run: SetRun, method: Method, q: Question, packed: dict[int, Packed]) -> None:
    for b, p in packed.items():
        for metric, value in score(q, p.items, run.docs).items():
            run.scores[method.name].setdefault(b, {}).setdefault(metric, []).append(value)
        run.tokens[method.name].setdefault(b, []).append(p.tokens)
        run.misaligned[method.name] += sum(
            1 for it in p.items if it.doc and run.docs[it.doc].text[it.start : it.end] != it.text
        )


def evaluate(run: SetRun, budgets: Sequence[int], log: Callable[[str], None]) -> None:
    for m in run.methods:
        run.scores[m.name], run.tokens[m.name], run.misaligned[m.name] = {}, {}, 0
    for m in run.methods:  # untimed warm-up: connection set-up, cold caches
        if m.folio:
            for q in run.questions[:3]:
                m.run(q.text, budgets[:1])
            m.ms.clear()
    for n, q in enumerate(run.questions, 1):
        for m in run.methods:
            record(run, m, q, m.run(q.text, budgets))
        if n % 50 == 0 or n == len(run.questions):
            log(f"  {n}/{len(run.questions)} questions")


def load_set(
    name: str, qa_root: Path, holdout: bool, log: Callable[[str], None]
) -> tuple[list[Path], dict[str, Doc], list[Question]]:
    """Set ``name``: its files, their extracted documents, and its questions with their
    half and their evidence located (the held-out ones only with ``holdout``)."""
    sub, loader = LOADERS[name]
    paths, questions = loader(qa_root / sub)
    t0 = time.perf_counter()
    docs = load_docs(paths, os.cpu_count() or 1)
    log(f"{name}: extracted {len(docs)} documents in {time.perf_counter() - t0:.1f} s")
    missing = sorted({d for q in questions for d in q.docs} - set(docs))
    if missing:
        raise RuntimeError(f"{name}: no document for {', '.join(missing)}")
    texts = {d.name: d.text for d in docs.values()}
    questions = with_refs(with_halves(name, questions, read_split()), texts)
    if not holdout:  # kept unread until the end (eval/splits.json)
        questions = [q for q in questions if q.half != HOLDOUT]
    return paths, docs, questions


def run_set(
    name: str,
    qa_root: Path,
    counter: Any,
    embedder: Embedder | None,
    args: argparse.Namespace,
    log: Callable[[str], None],
) -> SetRun:
    from pipeline.retrieve import retrieve

    paths, docs, all_questions = load_set(name, qa_root, args.holdout, log)
    questions = spread(all_questions, args.limit)
    run = SetRun(name, questions, docs, {"documents": len(docs), "questions": len(questions)})
    run.meta["evidence_not_found"] = sum(q.missing for q in all_questions)
    run.meta["alignment_mismatches"] = check_alignment(
        all_questions, {d.name: d.text for d in docs.values()}
    )
    if any(q.evidence for q in all_questions):
        run.meta["extraction"] = extraction_report(all_questions, docs)
    t0 = time.perf_counter()
    chunks = build_chunks(docs, counter, args.chunk_tokens)
    run.meta["baseline_chunks"] = len(chunks.items)
    run.meta["baseline_chunk_tokens_mean"] = mean([float(t) for t in chunks.tokens])
    home = args.home / name if args.home else None
    if home:
        home.mkdir(parents=True, exist_ok=True)
    run.methods = baseline_methods(chunks, embedder, home, log)
    log(f"  {len(chunks.items)} baseline chunks indexed in {time.perf_counter() - t0:.1f} s")
    names = {d.doc_id: d.name for d in docs.values()}
    with embedded_store(home) as store:
        run.meta.update(ingest_library(store, paths, args.workers))
        log(f"  ingest {run.meta['ingest_s']:.1f} s")
        modes = folio_modes(retrieve, embedder is not None)
        folio = [
            folio_method(store, m, counter, names)
            for m in modes
            if not args.folio_modes or m in args.folio_modes
        ]
        run.methods = folio + run.methods
        load_before = os.getloadavg()[0]
        evaluate(run, args.budgets, log)
        run.meta["loadavg"] = [load_before, os.getloadavg()[0]]
    return run


# --------------------------------------------------------------------------- reporting


def subsets(run: SetRun) -> dict[str, list[int]]:
    """The questions of each report, by position: all, each half, and within each half
    each question type and each kind of document (when kinds are not the types)."""
    qs = run.questions
    out: dict[str, list[int]] = {"all": list(range(len(qs)))}
    halves = [h for h in (*HALVES, HOLDOUT) if any(q.half == h for q in qs)]
    for half in halves:
        out[half] = [n for n, q in enumerate(qs) if q.half == half]
    for half in halves:
        for label, key in (("type", "qtype"), ("kind", "kind")):
            if label == "kind" and all(q.kind == q.qtype for q in qs):
                continue
            for value in sorted({getattr(q, key) for q in qs}):
                picked = [n for n in out[half] if getattr(qs[n], key) == value]
                if picked:
                    out[f"{half} / {label}: {value}"] = picked
    return out


def pick(values: Sequence[float], idx: Sequence[int]) -> list[float]:
    return [values[n] for n in idx]


def best(run: SetRun, metric: str, folio: bool, budget: int, idx: Sequence[int]) -> Method:
    pool = [m for m in run.methods if m.folio == folio]
    return max(pool, key=lambda m: mean(pick(run.scores[m.name][budget][metric], idx)))


def paired(run: SetRun, budget: int, idx: Sequence[int]) -> list[dict[str, Any]]:
    """Each Folio mode (and the best) minus the best baseline, per metric, in points, over
    the questions ``idx`` (those where the metric measures something)."""
    out: list[dict[str, Any]] = []
    if not any(m.folio for m in run.methods) or all(m.folio for m in run.methods):
        return out
    for metric in SET_METRICS[run.name]:
        base = best(run, metric, folio=False, budget=budget, idx=idx)
        top = best(run, metric, folio=True, budget=budget, idx=idx)
        folio = [m for m in run.methods if m.folio]
        b = pick(run.scores[base.name][budget][metric], idx)
        for m, label in [(top, f"{top.name} (best mode)"), *((m, m.name) for m in folio)]:
            a = pick(run.scores[m.name][budget][metric], idx)
            pairs = [(x, y) for x, y in zip(a, b, strict=True) if not math.isnan(x + y)]
            d, lo, hi = bootstrap_ci([100 * (x - y) for x, y in pairs])
            out.append(
                {
                    "metric": metric,
                    "folio": label,
                    "baseline": base.name,
                    "budget": budget,
                    "n": len(pairs),
                    "diff": d,
                    "ci95": [lo, hi],
                    "folio_pct": 100 * mean(a),
                    "baseline_pct": 100 * mean(b),
                }
            )
    return out


def percent_table(
    run: SetRun, budgets: Sequence[int], idx: Sequence[int]
) -> dict[str, dict[str, dict[str, float]]]:
    return {
        m.name: {
            metric: {str(b): 100 * mean(pick(run.scores[m.name][b][metric], idx)) for b in budgets}
            for metric in run.scores[m.name][budgets[0]]
        }
        for m in run.methods
    }


def latency(run: SetRun) -> dict[str, dict[str, float]]:
    return {
        m.name: {"calls": len(m.ms), "p50": percentile(m.ms, 50), "p95": percentile(m.ms, 95)}
        for m in run.methods
        if m.folio
    }


def summary(run: SetRun, budgets: Sequence[int]) -> dict[str, Any]:
    tokens = {
        m.name: {str(b): mean([float(t) for t in run.tokens[m.name][b]]) for b in budgets}
        for m in run.methods
    }
    parts = {
        label: {
            "questions": len(idx),
            "table_pct": percent_table(run, budgets, idx),
            "paired": paired(run, CI_BUDGET, idx) if CI_BUDGET in budgets and idx else [],
        }
        for label, idx in subsets(run).items()
    }
    return {
        "meta": run.meta,
        "metrics": list(SET_METRICS[run.name]),
        "table_pct": parts["all"]["table_pct"],
        "tokens_mean": tokens,
        "paired": parts["all"]["paired"],
        "subsets": parts,
        "latency_ms": latency(run),
        "misaligned_items": run.misaligned,
    }


def details(run: SetRun, budgets: Sequence[int]) -> Iterator[dict[str, Any]]:
    for n, q in enumerate(run.questions):
        yield {
            "set": run.name,
            "index": q.index,
            "question": q.text,
            "doc": q.doc,
            "sources": list(q.docs),
            "type": q.qtype,
            "kind": q.kind,
            "half": q.half,
            "methods": {
                m.name: {
                    str(b): {
                        **{k: v[n] for k, v in run.scores[m.name][b].items()},
                        "tokens": run.tokens[m.name][b][n],
                    }
                    for b in budgets
                }
                for m in run.methods
            },
        }


def table(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Plain-text table; ``align`` has one of ``<``/``>`` per column."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [f"{c:{a}{w}}" for c, a, w in zip(row, align, widths, strict=True)]
        lines.append("  " + "  ".join(cells).rstrip())
        if n == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    return lines


def f1(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1f}"


def signed(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:+.1f}"


def render_set(name: str, s: dict[str, Any], budgets: Sequence[int]) -> list[str]:
    meta = s["meta"]
    out = [
        f"{name} — {meta['questions']} questions, {meta['documents']} documents in one library",
        f"  Folio ingest {meta['ingest_s']:.1f} s: {meta['sections']} sections, "
        f"{meta['snippets']} snippets, {meta['pages']} pages; baseline: "
        f"{meta['baseline_chunks']} recursive chunks, "
        f"{meta['baseline_chunk_tokens_mean']:.0f} WordPiece tokens on average",
    ]
    if meta["alignment_mismatches"]:
        out.append(f"  reference spans not matching the text: {len(meta['alignment_mismatches'])}")
    bad = {k: v for k, v in s["misaligned_items"].items() if v}
    if bad:
        out.append(f"  context items whose text is not text[start:end]: {bad}")
    out += render_metrics(s["metrics"], s["table_pct"], budgets)
    out.append("")
    head = ["context made of", *(f"right doc %@{b}" for b in budgets)]
    head += [f"tokens@{b}" for b in budgets]
    rows = [head]
    for method, metrics in s["table_pct"].items():
        rows.append(
            [method]
            + [f1(metrics["doc_hit"][str(b)]) for b in budgets]
            + [f"{s['tokens_mean'][method][str(b)]:.0f}" for b in budgets]
        )
    out += table(rows, "<" + ">" * (len(head) - 1))
    out += render_paired(s["paired"])
    for half in (h for h in (*HALVES, HOLDOUT) if h in s["subsets"]):
        part = s["subsets"][half]
        out += ["", f"  {half} half: {part['questions']} questions"]
        out += render_metrics(s["metrics"], part["table_pct"], budgets)
        out += render_paired(part["paired"])
    out += render_types(s, CI_BUDGET)
    out.append("")
    rows = [["Folio retrieve latency (ms)", "calls", "p50", "p95"]]
    for method, st in s["latency_ms"].items():
        rows.append([method, str(st["calls"]), f1(st["p50"]), f1(st["p95"])])
    out += table(rows, "<>>>")
    la = meta["loadavg"]
    out.append(f"  load average {la[0]:.2f} before / {la[1]:.2f} after the queries")
    if "extraction" in meta:
        out += render_extraction(meta["extraction"])
    return out


def render_metrics(
    metrics: Sequence[str], pct: dict[str, dict[str, dict[str, float]]], budgets: Sequence[int]
) -> list[str]:
    head = ["method"] + [f"{METRIC_NAMES[m]} %@{b}" for m in metrics for b in budgets]
    rows = [head]
    for method, values in pct.items():
        rows.append([method] + [f1(values[m][str(b)]) for m in metrics for b in budgets])
    return table(rows, "<" + ">" * (len(head) - 1))


def render_paired(pairs: Sequence[dict[str, Any]]) -> list[str]:
    if not pairs:
        return []
    out = [
        "",
        f"  paired differences at {CI_BUDGET} tokens, Folio − best baseline, points "
        f"[95% bootstrap CI, {RESAMPLES:,} resamples, seed {SEED}]",
    ]
    rows = [["metric", "Folio", "baseline", "n", "Folio %", "base %", "diff", "95% CI"]]
    for p in pairs:
        rows.append(
            [
                METRIC_NAMES[p["metric"]],
                p["folio"],
                p["baseline"],
                str(p["n"]),
                f1(p["folio_pct"]),
                f1(p["baseline_pct"]),
                signed(p["diff"]),
                f"[{signed(p['ci95'][0])}, {signed(p['ci95'][1])}]",
            ]
        )
    return out + table(rows, "<<<>>>>>")


def render_types(s: dict[str, Any], budget: int) -> list[str]:
    """Per half, per question type and kind: each method's score at ``budget``."""
    parts = {k: v for k, v in s["subsets"].items() if " / " in k}
    if not parts:
        return []
    methods = list(s["table_pct"])
    out: list[str] = []
    for metric in s["metrics"]:
        out += ["", f"  {METRIC_NAMES[metric]} %@{budget} per question type and kind"]
        rows = [["questions", "n", *methods]]
        for label, part in parts.items():
            values = part["table_pct"]
            rows.append(
                [label, str(part["questions"])]
                + [f1(values[m][metric][str(budget)]) for m in methods]
            )
        out += table(rows, "<" + ">" * (len(methods) + 1))
    return out


def render_extraction(x: dict[str, Any]) -> list[str]:
    return [
        "",
        f"  extraction check over all {x['evidence_passages']} evidence passages "
        f"({x['evidence_pages']} distinct evidence pages):",
        f"    passages with >= 90% of their 5-grams in the extracted text of their page: "
        f"{x['passages_5gram_on_page']}, anywhere in the document: {x['passages_5gram_in_doc']}"
        " (the ceiling of evidence-in-context)",
        f"    evidence pages with numbers: {x['pages_with_numbers']}; with >= 90% of the "
        f"passage's numbers in the page's extracted text: {x['pages_numbers_found']}",
        f"    on those pages, lines holding the numbers: {x['lines_with_numbers']}, "
        f"inside markdown table rows (|...|): {x['table_row_lines']} "
        f"(pages with any such row: {x['pages_with_table_rows']})",
    ]


def render(report: dict[str, Any], budgets: Sequence[int]) -> str:
    meta = report["meta"]
    out = [
        "Folio retrieval evaluation — budgets in true WordPiece tokens "
        f"({Path(meta['tokenizer']).name}); baselines: recursive chunks of <= "
        f"{meta['chunk_tokens']} tokens, no overlap",
        f"machine: {meta['cpus']} CPUs; Folio modes: {', '.join(meta['folio_modes'])}",
    ]
    out += [f"note: {n}" for n in meta["notes"]]
    for name, s in report["sets"].items():
        out.append("")
        out += render_set(name, s, budgets)
    out.append("")
    out.append(f"total run time {meta['seconds']:.1f} s")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main


def parse_ints(raw: str) -> list[int]:
    values = sorted({int(x) for x in raw.split(",") if x.strip()})
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {raw!r}")
    return values


def parse_sets(raw: str) -> list[str]:
    names = [x.strip() for x in raw.split(",") if x.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"sets are {', '.join(SETS)}; got {raw!r}")
    return names


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--qa-root", type=Path, default=DEFAULT_QA_ROOT, help="default: %(default)s")
    ap.add_argument("--sets", type=parse_sets, default=list(SETS), help="comma-separated")
    ap.add_argument("--budgets", type=parse_ints, default=list(BUDGETS), help="e.g. 1000,2000")
    ap.add_argument("--limit", type=int, default=None, help="N questions per set, evenly spread")
    ap.add_argument("--tokenizer", type=Path, default=DEFAULT_TOKENIZER, help="WordPiece file")
    ap.add_argument("--chunk-tokens", type=int, default=CHUNK_TOKENS, help="baseline chunks")
    ap.add_argument("--workers", type=int, default=None, help="Folio ingest worker processes")
    ap.add_argument(
        "--folio-modes",
        type=lambda raw: [x.strip() for x in raw.split(",") if x.strip()],
        default=[],
        help="only these of Folio's modes (comma-separated; default: every mode offered)",
    )
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument(
        "--home",
        type=Path,
        default=None,
        help="keep each set's library (and baseline vectors) under HOME/<set> for later runs",
    )
    ap.add_argument("--details", type=Path, default=None, help="per-question JSONL to FILE")
    ap.add_argument(
        "--holdout",
        action="store_true",
        help="also ask the questions eval/splits.json holds out (once, at the end of a piece "
        "of work: they are kept unread until then)",
    )
    return ap.parse_args(argv)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # unwinds through embedded_store, which stops the server


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may download a model
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    signal.signal(signal.SIGTERM, _terminate)
    from pipeline.chunk.tokens import WordPieceCounter
    from pipeline.retrieve import retrieve

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t_start = time.perf_counter()
    counter = WordPieceCounter(str(args.tokenizer))
    embedder, why = load_dense()
    notes = [] if embedder else [f"dense baseline, RRF and Folio dense/hybrid skipped: {why}"]
    for n in notes:
        log(f"note: {n}")
    report: dict[str, Any] = {"sets": {}}
    runs: list[SetRun] = []
    try:
        for name in args.sets:
            run = run_set(name, args.qa_root.resolve(), counter, embedder, args, log)
            runs.append(run)
            report["sets"][name] = summary(run, args.budgets)
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    report["meta"] = {
        "qa_root": str(args.qa_root),
        "tokenizer": str(args.tokenizer),
        "chunk_tokens": args.chunk_tokens,
        "budgets": args.budgets,
        "limit": args.limit,
        "cpus": os.cpu_count(),
        "folio_modes": folio_modes(retrieve, embedder is not None),
        "notes": notes,
        "min_share": MIN_SHARE,
        "seconds": time.perf_counter() - t_start,
    }
    if args.details:
        with args.details.open("w", encoding="utf-8") as fh:
            for run in runs:
                for row in details(run, args.budgets):
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render(report, args.budgets), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
