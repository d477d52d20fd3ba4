#!/usr/bin/env python3
"""Retrieval benchmark on the chunking-evaluation QA set (Chroma's ``chunking_evaluation``).

The set is five corpora (``corpora/*.md``: chatlogs, finance, pubmed, state_of_the_union,
wikitexts) and 472 questions (``questions_df.csv``: question, references = JSON list of
``{content, start_index, end_index}``, corpus_id) whose reference spans are exact character
ranges of the corpus file.

What one run does:

1. checks that every reference lines up: ``text[start:end] == content`` for the text Folio
   extracts from the corpus file (for ``.md`` that is the file itself) — mismatches are
   reported, and such references are still scored by their offsets;
2. starts a fresh embedded Typesense server in a temporary ``FOLIO_HOME`` and ingests the
   corpora with ``pipeline.ingest.ingest`` (default chunk config unless ``--preset``);
3. for every question, searches the snippets of its corpus document
   (``Filters(tier="snippet", doc=<sha256 of the corpus file>)``) and scores the top-k
   snippets (k = 1, 3, 5, 10) with the evaluation's token-level metrics, counted in
   characters as the evaluation's own code does: retrieved = union of the top-k snippets'
   ``[char_start, char_end)``, relevant = union of the reference ranges;
   recall = |ret ∩ rel| / |rel|, precision = |ret ∩ rel| / |ret|, IoU = |ret ∩ rel| / |ret ∪ rel|;
4. calls ``retrieve`` for every question at each budget (1000 / 2000 / 4000 tokens) with
   ``Filters(doc=...)`` and counts a question as *fully in context* when every reference
   span lies inside the union of the returned items' citation ranges (same document);
5. times every ``search`` and ``retrieve`` call (``perf_counter``, client round trip included)
   and prints p50/p95;
6. stops the server (also on error or Ctrl-C) and removes the temporary home.

Differences from the published evaluation, to keep in mind when reading the baselines:
they embed chunks and questions (``text-embedding-3-large`` or ``all-MiniLM-L6-v2``) and
search all five corpora at once; Folio here is Typesense keyword search restricted to the
question's corpus. Their precision/IoU denominators add up retrieved chunk lengths without
merging overlaps (``precision_paper``/``iou_paper`` in ``--json`` reproduce that); the tables
here use the union, as above. Chunk sizes: theirs in cl100k tokens, Folio's in its own
estimator's tokens.

Examples::

    python scripts/eval_retrieval.py                       # all questions, tables
    python scripts/eval_retrieval.py --limit 50            # quick run (evenly spread sample)
    python scripts/eval_retrieval.py --json > out.json
    python scripts/eval_retrieval.py --budgets 1000,2000,4000 --k 1,3,5,10 --details q.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QA = ROOT.parent / "shared" / "corpus" / "qa" / "chunking_evaluation"

if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

Span = tuple[int, int]

# Published baselines: Smith & Troynikov, "Evaluating Chunking Strategies for Retrieval",
# Chroma technical report, July 2024, https://research.trychroma.com/evaluating-chunking
# (code and data: https://github.com/brandonstarxel/chunking_evaluation, MIT; its README has
# no result table). Results section: mean ± sd in %, over all queries and corpora, n=5
# retrieved chunks, *embedding* retrieval over all corpora at once; sizes in cl100k tokens
# (mean chunk size in brackets in the paper). First table: OpenAI text-embedding-3-large;
# second table: sentence-transformers all-MiniLM-L6-v2 (it has no 400/800 rows).
# Fields: label, size, overlap, model, (recall, sd), (precision, sd), (iou, sd).
MeanSd = tuple[float, float]
_BASELINE_ROWS: tuple[tuple[str, int, int, str, MeanSd, MeanSd, MeanSd], ...] = (
    ("Recursive", 800, 400, "text-embedding-3-large", (85.4, 34.9), (1.5, 1.3), (1.5, 1.3)),
    ("Recursive", 400, 200, "text-embedding-3-large", (88.1, 31.6), (3.3, 2.7), (3.3, 2.7)),
    ("Recursive", 400, 0, "text-embedding-3-large", (89.5, 29.7), (3.6, 3.2), (3.6, 3.2)),
    ("Recursive", 200, 0, "text-embedding-3-large", (88.1, 30.1), (7.0, 5.6), (6.9, 5.6)),
    ("Recursive", 200, 0, "all-MiniLM-L6-v2", (75.7, 40.7), (6.5, 6.2), (6.5, 6.1)),
)
BASELINE_K = 5

GOAL_COVERAGE_BUDGET = 2000
GOAL_COVERAGE = 85.0  # % of questions with every reference span inside the context
GOAL_SEARCH_P95_MS = 50.0
GOAL_RETRIEVE_P95_MS = 150.0


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
    precision_paper: float  # retrieved lengths summed without merging overlaps
    iou_paper: float


def span_scores(retrieved: Sequence[Span], relevant: Sequence[Span]) -> Scores:
    """Token-level (here: character-level) recall, precision and IoU of ``retrieved``
    against ``relevant``, as fractions in [0, 1]."""
    inter = intersection(retrieved, relevant)
    rel, ret = length(relevant), length(retrieved)
    union = rel + ret - inter
    # The evaluation's own code: precision over the plain sum of retrieved chunk lengths,
    # IoU over that sum plus the reference characters no retrieved chunk touched.
    ret_sum = sum(max(0, e - s) for s, e in retrieved)
    missed = rel - inter
    return Scores(
        recall=inter / rel if rel else 0.0,
        precision=inter / ret if ret else 0.0,
        iou=inter / union if union else 0.0,
        precision_paper=inter / ret_sum if ret_sum else 0.0,
        iou_paper=inter / (ret_sum + missed) if ret_sum + missed else 0.0,
    )


def fully_covered(refs: Sequence[Span], context: Sequence[Span]) -> bool:
    """Every reference span lies inside the union of the context ranges."""
    ctx = merge(context)
    return all(e <= s or any(a <= s and e <= b for a, b in ctx) for s, e in refs)


def first_hit_rank(ranked: Sequence[Span], refs: Sequence[Span]) -> int | None:
    """1-based rank of the first span that touches a reference, None if none does."""
    for n, span in enumerate(ranked, 1):
        if intersection([span], refs):
            return n
    return None


def full_cover_rank(ranked: Sequence[Span], refs: Sequence[Span]) -> int | None:
    """Smallest k whose top-k union holds every reference span, None if no k does."""
    for k in range(1, len(ranked) + 1):
        if fully_covered(refs, ranked[:k]):
            return k
    return None


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]); nan for no values."""
    if not values:
        return math.nan
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    m = sum(values) / len(values)
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / len(values))  # population, as np.std


# --------------------------------------------------------------------------- the QA set


@dataclass(frozen=True, slots=True)
class Question:
    index: int
    text: str
    corpus: str
    refs: tuple[Span, ...]
    contents: tuple[str, ...]


def load_questions(qa: Path) -> list[Question]:
    path = qa / "questions_df.csv"
    out: list[Question] = []
    with path.open(encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh)):
            refs = json.loads(row["references"])
            out.append(
                Question(
                    index=n,
                    text=row["question"],
                    corpus=row["corpus_id"],
                    refs=tuple((int(r["start_index"]), int(r["end_index"])) for r in refs),
                    contents=tuple(str(r["content"]) for r in refs),
                )
            )
    return out


def spread(items: Sequence[Question], limit: int | None) -> list[Question]:
    """``limit`` questions evenly spread over the file (so every corpus is sampled)."""
    if not limit or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def check_alignment(questions: Sequence[Question], texts: dict[str, str]) -> list[dict[str, Any]]:
    """References whose offsets do not select their content in the extracted text."""
    bad: list[dict[str, Any]] = []
    for q in questions:
        text = texts.get(q.corpus)
        for (s, e), content in zip(q.refs, q.contents, strict=True):
            if text is None or text[s:e] != content:
                bad.append(
                    {
                        "question": q.index,
                        "corpus": q.corpus,
                        "start": s,
                        "end": e,
                        "expected": content[:80],
                        "found": (text or "")[s:e][:80],
                    }
                )
    return bad


# --------------------------------------------------------------------------- running


@dataclass(slots=True)
class Result:
    question: Question
    found: int = 0
    ranked: list[Span] = field(default_factory=list)
    scores: dict[int, Scores] = field(default_factory=dict)
    covered: dict[int, bool] = field(default_factory=dict)
    context_recall: dict[int, float] = field(default_factory=dict)
    context_tokens: dict[int, int] = field(default_factory=dict)
    context_items: dict[int, int] = field(default_factory=dict)
    search_ms: float = 0.0
    retrieve_ms: dict[int, float] = field(default_factory=dict)


def evaluate(
    store: Any,
    questions: Sequence[Question],
    doc_ids: dict[str, str],
    ks: Sequence[int],
    budgets: Sequence[int],
    *,
    progress: bool = False,
) -> list[Result]:
    from pipeline.retrieve import Filters, rank, retrieve, search

    depth = max(ks)
    results: list[Result] = []
    # Untimed warm-up: the first requests pay for connection set-up and cold caches.
    warm_doc = next(iter(doc_ids.values()))
    for q in questions[:3]:
        search(store, q.text, Filters(tier="snippet", doc=warm_doc), per_page=depth)
        retrieve(store, q.text, budgets[0], Filters(doc=warm_doc))
    for n, q in enumerate(questions, 1):
        doc = doc_ids[q.corpus]
        r = Result(q)
        t0 = time.perf_counter()
        res = search(store, q.text, Filters(tier="snippet", doc=doc), per_page=depth)
        r.search_ms = (time.perf_counter() - t0) * 1000
        r.found = res.found
        # Top-k by the ranking retrieve uses (BM25 over per-word candidates); `search`
        # above is timed as the people-facing query it is.
        best = rank(store, q.text, Filters(tier="snippet", doc=doc), k=depth)
        r.ranked = [(h.char_start, h.char_end) for h in best if h.doc_id == doc]
        for k in ks:
            r.scores[k] = span_scores(r.ranked[:k], q.refs)
        for budget in budgets:
            t0 = time.perf_counter()
            ctx = retrieve(store, q.text, budget, Filters(doc=doc))
            r.retrieve_ms[budget] = (time.perf_counter() - t0) * 1000
            spans = [
                (it.citation.char_start, it.citation.char_end)
                for it in ctx.items
                if it.citation.doc_id == doc
            ]
            r.covered[budget] = fully_covered(q.refs, spans)
            r.context_recall[budget] = span_scores(spans, q.refs).recall
            r.context_tokens[budget] = ctx.tokens
            r.context_items[budget] = len(ctx.items)
        results.append(r)
        if progress and (n % 50 == 0 or n == len(questions)):
            print(f"  {n}/{len(questions)} questions", file=sys.stderr)
    return results


def summarize(
    results: Sequence[Result], ks: Sequence[int], budgets: Sequence[int]
) -> dict[str, Any]:
    def pct(values: Iterable[float]) -> dict[str, float]:
        m, sd = mean_sd([100 * v for v in values])
        return {"mean": m, "sd": sd}

    out: dict[str, Any] = {"questions": len(results), "top_k": {}, "context": {}}
    for k in ks:
        s = [r.scores[k] for r in results]
        out["top_k"][str(k)] = {
            "recall": pct(x.recall for x in s),
            "precision": pct(x.precision for x in s),
            "iou": pct(x.iou for x in s),
            "precision_paper": pct(x.precision_paper for x in s),
            "iou_paper": pct(x.iou_paper for x in s),
            "hit": 100 * sum(1 for x in s if x.recall > 0) / max(1, len(s)),
            "all_refs": 100 * sum(1 for x in s if x.recall >= 1.0) / max(1, len(s)),
        }
    for b in budgets:
        out["context"][str(b)] = {
            "fully_in_context": 100 * sum(r.covered[b] for r in results) / max(1, len(results)),
            "recall": pct(r.context_recall[b] for r in results),
            "tokens_mean": mean_sd([r.context_tokens[b] for r in results])[0],
            "items_mean": mean_sd([r.context_items[b] for r in results])[0],
            "empty": sum(1 for r in results if r.context_items[b] == 0),
            # Questions whose reference is not fully in context, by where it was lost:
            # no snippet touching a reference in search's top results at all (ranking),
            # or search found one but the packed context lacks (part of) the reference.
            "missed_not_in_search": sum(
                1
                for r in results
                if not r.covered[b] and first_hit_rank(r.ranked, r.question.refs) is None
            ),
            "missed_in_search": sum(
                1
                for r in results
                if not r.covered[b] and first_hit_rank(r.ranked, r.question.refs) is not None
            ),
        }
    found = [r.found for r in results]
    out["search_found"] = {
        "zero": sum(1 for f in found if f == 0),
        "under_k": {str(k): sum(1 for f in found if f < k) for k in ks},
        "median": percentile(found, 50),
    }
    return out


def latency(results: Sequence[Result], budgets: Sequence[int]) -> dict[str, dict[str, float]]:
    def stats(xs: Sequence[float]) -> dict[str, float]:
        return {
            "calls": len(xs),
            "p50": percentile(xs, 50),
            "p95": percentile(xs, 95),
            "max": max(xs) if xs else math.nan,
        }

    out = {"search": stats([r.search_ms for r in results])}
    for b in budgets:
        out[f"retrieve@{b}"] = stats([r.retrieve_ms[b] for r in results])
    out["retrieve"] = stats([r.retrieve_ms[b] for r in results for b in budgets])
    return out


def details(results: Sequence[Result]) -> Iterable[dict[str, Any]]:
    for r in results:
        q = r.question
        yield {
            "index": q.index,
            "corpus": q.corpus,
            "question": q.text,
            "refs": [list(s) for s in q.refs],
            "found": r.found,
            "ranked": [list(s) for s in r.ranked],
            "first_hit_rank": first_hit_rank(r.ranked, q.refs),
            "full_cover_rank": full_cover_rank(r.ranked, q.refs),
            "scores": {
                str(k): {"recall": s.recall, "precision": s.precision, "iou": s.iou}
                for k, s in r.scores.items()
            },
            "covered": {str(b): c for b, c in r.covered.items()},
            "context_recall": {str(b): c for b, c in r.context_recall.items()},
            "context_tokens": {str(b): c for b, c in r.context_tokens.items()},
            "context_items": {str(b): c for b, c in r.context_items.items()},
            "search_ms": r.search_ms,
            "retrieve_ms": {str(b): t for b, t in r.retrieve_ms.items()},
        }


def snippet_sizes(store: Any) -> list[int]:
    """``est_tokens`` of every indexed snippet."""
    sizes: list[int] = []
    page = 1
    while True:
        res = store.search(
            "folio_chunks",
            {
                "q": "*",
                "filter_by": "tier:=snippet",
                "page": page,
                "per_page": 250,
                "include_fields": "est_tokens",
            },
        )
        hits = res.get("hits", [])
        sizes += [int(h["document"]["est_tokens"]) for h in hits]
        if not hits or len(sizes) >= int(res.get("found", 0)):
            return sizes
        page += 1


# --------------------------------------------------------------------------- printing


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


def ms(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1f}"


def f1(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.1f}"


def pm(d: dict[str, float]) -> str:
    return f"{f1(d['mean'])} ± {f1(d['sd'])}"


def block(
    name: str, s: dict[str, Any], ks: Sequence[int], budgets: Sequence[int], extra: str = ""
) -> list[str]:
    lines = [f"{name} — {s['questions']} questions{extra}"]
    rows = [
        [
            "top-k snippets",
            "recall %",
            "precision %",
            "IoU %",
            "any ref hit %",
            "all refs in top-k %",
        ]
    ]
    for k in ks:
        t = s["top_k"][str(k)]
        rows.append(
            [
                f"k={k}",
                f1(t["recall"]["mean"]),
                f1(t["precision"]["mean"]),
                f1(t["iou"]["mean"]),
                f1(t["hit"]),
                f1(t["all_refs"]),
            ]
        )
    lines += table(rows, "<>>>>>")
    depth = max(ks)
    rows = [
        [
            "retrieve budget",
            "refs fully in context %",
            "context recall %",
            "tokens used (mean)",
            "items (mean)",
            "empty",
            f"missed: no ref in search top-{depth}",
            "missed: ref in ranked top-k",
        ]
    ]
    for b in budgets:
        c = s["context"][str(b)]
        rows.append(
            [
                str(b),
                f1(c["fully_in_context"]),
                f1(c["recall"]["mean"]),
                f"{c['tokens_mean']:.0f}",
                f"{c['items_mean']:.1f}",
                str(c["empty"]),
                str(c["missed_not_in_search"]),
                str(c["missed_in_search"]),
            ]
        )
    lines.append("")
    lines += table(rows, "<>>>>>>>")
    sf = s["search_found"]
    under = ", ".join(f"<{k}: {v}" for k, v in sf["under_k"].items())
    lines.append(
        f"  snippets matched per question (search 'found'): median {sf['median']:.0f}, "
        f"zero: {sf['zero']}, {under}"
    )
    return lines


def render(report: dict[str, Any], ks: Sequence[int], budgets: Sequence[int]) -> str:
    out: list[str] = []
    meta = report["meta"]
    out.append(f"Folio retrieval benchmark — {meta['qa']}")
    out.append(
        f"{meta['questions']} questions on {len(meta['corpora'])} corpora; index: "
        f"{meta['sections']} sections, {meta['snippets']} snippets (config {meta['config']}), "
        f"ingest {meta['ingest_s']:.1f} s"
    )
    la = meta["loadavg"]
    out.append(
        f"machine: {meta['cpus']} CPUs, load average {la[0]:.2f} before / {la[1]:.2f} after the "
        "timed queries (other processes skew the latency numbers)"
    )
    al = report["alignment"]
    out.append(
        f"reference spans: {al['checked']} checked, {len(al['mismatched'])} do not satisfy "
        "text[start:end] == content"
    )
    out.append(
        "metrics count characters; retrieved = union of the top-k snippets of the question's "
        "corpus document (Typesense keyword search)"
    )
    out.append("")
    for corpus, s in report["corpora"].items():
        c = meta["corpora"][corpus]
        extra = f"; {c['sections']} sections, {c['snippets']} snippets, {c['chars']:,} chars"
        out += block(corpus, s, ks, budgets, extra)
        out.append("")
    out += block("OVERALL", report["overall"], ks, budgets)
    out.append("")

    k = BASELINE_K
    ov = report["overall"]["top_k"].get(str(k))
    out.append(f"Comparison at k={k} (mean ± sd, %, over all questions)")
    rows = [["chunks / retrieval", "recall", "precision", "IoU"]]
    if ov is not None:
        rows.append(
            [
                f"Folio snippets ~{meta['snippet_tokens']:.0f} est. tokens, keyword+BM25 ranking "
                "in the question's corpus (this run)",
                pm(ov["recall"]),
                pm(ov["precision"]),
                pm(ov["iou"]),
            ]
        )
        rows.append(
            [
                "  same, precision/IoU computed as the paper's code (overlaps not merged)",
                "",
                pm(ov["precision_paper"]),
                pm(ov["iou_paper"]),
            ]
        )
    else:
        rows.append([f"Folio (k={k} not measured; add it to --k)", "n/a", "n/a", "n/a"])
    for label, size, overlap, model, rec, prec, iou in _BASELINE_ROWS:
        rows.append(
            [
                f"{label}CharacterTextSplitter {size} tok, overlap {overlap} — {model} "
                "(embedding retrieval, their paper)",
                f"{rec[0]:.1f} ± {rec[1]:.1f}",
                f"{prec[0]:.1f} ± {prec[1]:.1f}",
                f"{iou[0]:.1f} ± {iou[1]:.1f}",
            ]
        )
    out += table(rows, "<>>>")
    out.append(
        "  baselines: Smith & Troynikov, Chroma technical report, July 2024 "
        "(research.trychroma.com/evaluating-chunking), n=5, all corpora searched at once, "
        "sizes in cl100k tokens; per-corpus numbers were not published."
    )
    out.append("")

    lat = report["latency"]
    rows = [["latency (ms)", "calls", "p50", "p95", "max", "goal"]]
    for name, st in lat.items():
        goal = ""
        if name == "search":
            goal = f"p95 < {GOAL_SEARCH_P95_MS:.0f}: " + (
                "PASS" if st["p95"] < GOAL_SEARCH_P95_MS else "FAIL"
            )
        elif name == "retrieve":
            goal = f"p95 < {GOAL_RETRIEVE_P95_MS:.0f}: " + (
                "PASS" if st["p95"] < GOAL_RETRIEVE_P95_MS else "FAIL"
            )
        label = name if name != "retrieve" else "retrieve (all budgets)"
        rows.append([label, str(st["calls"]), ms(st["p50"]), ms(st["p95"]), ms(st["max"]), goal])
    out += table(rows, "<>>>><")
    cov = report["overall"]["context"].get(str(GOAL_COVERAGE_BUDGET))
    out.append("")
    if cov is None:
        out.append(f"goal: budget {GOAL_COVERAGE_BUDGET} not measured (add it to --budgets)")
    else:
        verdict = "PASS" if cov["fully_in_context"] >= GOAL_COVERAGE else "FAIL"
        out.append(
            f"goal: at budget {GOAL_COVERAGE_BUDGET}, >= {GOAL_COVERAGE:.0f}% of questions have "
            f"their reference fully in context: {cov['fully_in_context']:.1f}% {verdict}"
        )
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main


def parse_ints(raw: str) -> list[int]:
    values = sorted({int(x) for x in raw.split(",") if x.strip()})
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers, got {raw!r}")
    return values


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--qa",
        type=Path,
        default=DEFAULT_QA,
        help="the QA set: corpora/*.md and questions_df.csv (default: %(default)s)",
    )
    ap.add_argument("--k", type=parse_ints, default=[1, 3, 5, 10], help="top-k, e.g. 1,3,5,10")
    ap.add_argument(
        "--budgets",
        type=parse_ints,
        default=[1000, 2000, 4000],
        help="retrieve budgets in tokens, e.g. 1000,2000,4000",
    )
    ap.add_argument(
        "--limit", type=int, default=None, help="only N questions, evenly spread over the set"
    )
    ap.add_argument(
        "--preset",
        choices=("small", "medium", "large"),
        default=None,
        help="chunk preset (default: the default config)",
    )
    ap.add_argument("--workers", type=int, default=None, help="ingest worker processes")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument(
        "--details",
        type=Path,
        default=None,
        help="write one JSON line per question (ranks, spans, coverage) to FILE",
    )
    args = ap.parse_args(argv)

    qa = args.qa.resolve()
    corpora_dir = qa / "corpora"
    if not (qa / "questions_df.csv").is_file() or not corpora_dir.is_dir():
        print(f"error: {qa} needs questions_df.csv and corpora/", file=sys.stderr)
        return 2

    from pipeline import extract_file, make_config
    from pipeline.index import server
    from pipeline.index.settings import ServerSettings
    from pipeline.index.store import Store
    from pipeline.ingest import ingest
    from pipeline.library import file_sha256

    all_questions = load_questions(qa)
    files = {p.stem: p for p in sorted(corpora_dir.glob("*.md"))}
    missing = sorted({q.corpus for q in all_questions} - set(files))
    if missing:
        print(f"error: no corpus file for {', '.join(missing)} in {corpora_dir}", file=sys.stderr)
        return 2
    texts = {name: extract_file(path).text for name, path in files.items()}
    mismatched = check_alignment(all_questions, texts)
    questions = spread(all_questions, args.limit)
    doc_ids = {name: file_sha256(path) for name, path in files.items()}
    config = make_config({"preset": args.preset} if args.preset else {})

    home = Path(tempfile.mkdtemp(prefix="folio-eval-"))
    os.environ["FOLIO_HOME"] = str(home)  # nothing may fall back to the user's data dir
    try:
        running = server.start(home)
        store = Store(ServerSettings(nodes=(running.node,), api_key=running.api_key))
        t0 = time.perf_counter()
        report = ingest([str(corpora_dir)], config, store, workers=args.workers)
        ingest_s = time.perf_counter() - t0
        if report.failed:
            for f in report.failed:
                print(f"error: ingest failed: {f.path} ({f.stage}): {f.reason}", file=sys.stderr)
            return 1
        counts: dict[str, dict[str, int]] = {}
        for name, doc in doc_ids.items():
            counts[name] = {
                tier + "s": store.count("folio_chunks", f"doc_id:={doc} && tier:={tier}")
                for tier in ("section", "snippet")
            }
        snippet_tokens = mean_sd(snippet_sizes(store))[0]
        load_before = os.getloadavg()[0]
        results = evaluate(store, questions, doc_ids, args.k, args.budgets, progress=not args.json)
        load_after = os.getloadavg()[0]
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        server.stop(home)
        shutil.rmtree(home, ignore_errors=True)

    by_corpus: dict[str, list[Result]] = {}
    for r in results:
        by_corpus.setdefault(r.question.corpus, []).append(r)
    out: dict[str, Any] = {
        "meta": {
            "qa": str(qa),
            "questions": len(results),
            "config": "preset " + (args.preset or "medium (default)"),
            "ingest_s": ingest_s,
            "sections": report.sections,
            "snippets": report.snippets,
            "snippet_tokens": snippet_tokens,
            "corpora": {
                name: {"doc_id": doc_ids[name], "chars": len(texts[name]), **counts[name]}
                for name in sorted(files)
            },
            "unit": "characters",
            "cpus": os.cpu_count(),
            "loadavg": [load_before, load_after],
            "k": args.k,
            "budgets": args.budgets,
        },
        "alignment": {"checked": sum(len(q.refs) for q in all_questions), "mismatched": mismatched},
        "corpora": {
            name: summarize(rs, args.k, args.budgets) for name, rs in sorted(by_corpus.items())
        },
        "overall": summarize(results, args.k, args.budgets),
        "latency": latency(results, args.budgets),
        "baselines": [
            {
                "splitter": f"{label}CharacterTextSplitter",
                "size": size,
                "overlap": overlap,
                "embedding": model,
                "k": BASELINE_K,
                "recall": {"mean": rec[0], "sd": rec[1]},
                "precision": {"mean": prec[0], "sd": prec[1]},
                "iou": {"mean": iou[0], "sd": iou[1]},
                "source": "embedding retrieval, their paper: "
                "https://research.trychroma.com/evaluating-chunking",
            }
            for label, size, overlap, model, rec, prec, iou in _BASELINE_ROWS
        ],
    }
    if args.details:
        with args.details.open("w", encoding="utf-8") as fh:
            for row in details(results):
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(render(out, args.k, args.budgets), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
