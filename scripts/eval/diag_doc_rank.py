#!/usr/bin/env python3
"""Where Folio lexical loses the right document against BM25 (#39), tuning half only.

Per question of a set's tuning half (``--limit`` spread as ``eval_retrieval.py`` does, then
the tuning half kept): the rank of the right document's first unit in each ranking
(Folio lexical's snippets before packing, BM25's 400-token chunks, and variants that
swap one difference at a time), and the distinct documents of each 2,000-token context
(Folio ``retrieve`` in lexical mode; BM25's chunks packed in rank order). For the questions
BM25's context holds the right document and Folio's does not, the snippets that outrank
it with their signals: body BM25, lead BM25 (x ``LEAD_WEIGHT``) and title pull.

Variants (each ranks units and is read by the rank of the right document's first unit):

- ``folio``: ``rank.lexical`` as ``retrieve`` uses it (deeper than its pool of 50);
  ``folio-lead0`` / ``folio-pull0`` / ``folio-body``: without the lead, the pull, both;
  ``folio-all-words``: every title word the question shares pulls (``NAMES_ONLY`` off).
- ``bm25``: the baseline (bm25s, its tokenizer, English stop words, k1 1.5, b 0.75).
- ``bm25-k1.2``: the baseline at tantivy's k1.
- ``bm25-folio-words``: bm25s over the baseline chunks, terms by Folio's ``words``.
- ``bm25s-snippets``: bm25s (its tokenizer) over Folio's snippets' retrieval text;
  ``bm25s-snippets-bare``: the same without the ``[DOC: …]`` prefix line.
- ``bm25s-snippets-folio-words``: bm25s over Folio's snippets, Folio's terms, k1 1.2.

Each ranking is read twice: the rank of the right document's first unit, and its rank
among distinct documents (several units of one document count once).

    .venv/bin/python scripts/eval/diag_doc_rank.py --home /tmp/diag39/home \\
        --sets covid-qa,fairytaleqa --limit 400 --out /tmp/diag39/rank.jsonl

``--home`` holds the libraries ``eval_retrieval.py --home`` kept (use a copy: the
embedded server is started on it and stopped by its pid at the end).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared

import eval_retrieval as ev
import rooms  # noqa: F401  (puts every room of scripts/ on the path)
from data_dir import data_dir
from eval_loso import constant_set

DEPTH = 1000  # Folio snippets ranked per question (its pool is 50)
BUDGET = 2000
Ranking = Callable[[str], list[str]]  # a question -> documents of the ranked units


def first_rank(docs: Sequence[str], wanted: Sequence[str]) -> int | None:
    """1-based rank of the first unit of a wanted document (None: not ranked)."""
    return next((n for n, d in enumerate(docs, 1) if d in wanted), None)


def bm25s_docs(
    tokens: list[list[str]], owners: Sequence[str], k1: float
) -> Callable[[list[str]], list[str]]:
    """bm25s over units already split into terms: the question's terms -> the documents
    of the ranked units."""
    import bm25s

    retriever = bm25s.BM25(k1=k1)
    retriever.index(tokens, show_progress=False)
    vocab = {t for ts in tokens for t in ts}

    def rank(query_terms: list[str]) -> list[str]:
        q = [t for t in dict.fromkeys(query_terms) if t in vocab]
        if not q:
            return []
        scores = np.asarray(retriever.get_scores(q))
        order = np.argsort(-scores, kind="stable")
        return [owners[int(i)] for i in order[scores[order] > 0]]

    return rank


def bm25s_split(texts: Sequence[str]) -> list[list[str]]:
    """bm25s's own tokenizer and English stop words, as terms."""
    import bm25s

    out = bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)
    return [list(t) for t in out]


def bare(retrieval_text: str) -> str:
    """The retrieval text without its ``[DOC: …]`` prefix line."""
    if retrieval_text.startswith("[DOC: "):
        return retrieval_text.partition("\n\n")[2]
    return retrieval_text


def rankings(
    store: Any, chunks: ev.Chunks, names: dict[str, str], k1: float
) -> dict[str, Callable[[str], list[str]]]:
    """Every variant, each a question -> the documents of its ranked units."""
    from pipeline.index.filters import Filters
    from pipeline.index.schema import CHUNKS
    from pipeline.index.side_index import current
    from pipeline.index.words import words

    rank_mod = importlib.import_module("pipeline.retrieve.rank")

    index = current(store)
    assert index is not None
    snippets = store.export(CHUNKS, "tier:=snippet", include="id,doc_id,retrieval_text")
    owners = [names.get(str(s["doc_id"]), "") for s in snippets]
    texts = [str(s.get("retrieval_text") or "") for s in snippets]
    chunk_owners = [it.doc for it in chunks.items]
    chunk_texts = [it.text for it in chunks.items]
    base = ev.bm25_ranker(chunk_texts, stem=False)

    def folio(query: str) -> list[str]:
        found = rank_mod.lexical(index, query, Filters(tier="snippet"), DEPTH)
        return [names.get(r.doc_id, "") for r in found]

    def without(*consts: str) -> Callable[[str], list[str]]:
        def run(query: str) -> list[str]:
            with constant_set(consts[0], 0.0):
                if len(consts) == 1:
                    return folio(query)
                with constant_set(consts[1], 0.0):
                    return folio(query)

        return run

    lead, pull = "pipeline.index.lexical.LEAD_WEIGHT", "pipeline.retrieve.rank.FOCUS_WEIGHT"

    def bm25s_query(query: str) -> list[str]:
        return bm25s_split([query])[0]

    on_chunks_k = bm25s_docs(bm25s_split(chunk_texts), chunk_owners, 1.2)
    on_chunks_fw = bm25s_docs([words(t) for t in chunk_texts], chunk_owners, k1)
    on_snip = bm25s_docs(bm25s_split(texts), owners, 1.5)
    on_snip_bare = bm25s_docs(bm25s_split([bare(t) for t in texts]), owners, 1.5)
    on_snip_fw = bm25s_docs([words(t) for t in texts], owners, k1)
    return {
        "folio": folio,
        "folio-lead0": without(lead),
        "folio-pull0": without(pull),
        "folio-body": without(lead, pull),
        "folio-all-words": without("pipeline.retrieve.rank.NAMES_ONLY"),
        "bm25": lambda q: [chunk_owners[i] for i in base(q)],
        "bm25-k1.2": lambda q: on_chunks_k(bm25s_query(q)),
        "bm25-folio-words": lambda q: on_chunks_fw(words(q)),
        "bm25s-snippets": lambda q: on_snip(bm25s_query(q)),
        "bm25s-snippets-bare": lambda q: on_snip_bare(bm25s_query(q)),
        "bm25s-snippets-folio-words": lambda q: on_snip_fw(words(q)),
    }


def signals(store: Any, query: str, names: dict[str, str], top: int = 5) -> list[dict[str, Any]]:
    """Folio lexical's best ``top`` snippets with their body, lead and pull scores (the
    body by a body-only search within the snippet's document; the lead the rest)."""
    from pipeline.index.filters import Filters
    from pipeline.index.side_index import current
    from pipeline.index.words import query_words, words

    rank_mod = importlib.import_module("pipeline.retrieve.rank")

    index = current(store)
    assert index is not None
    terms = query_words(query)
    pulls = rank_mod.focus(index.docs, words(query), index.elsewhere)
    out = []
    for r in rank_mod.lexical(index, query, Filters(tier="snippet"), top):
        body = index.search(terms, [], {}, Filters(tier="snippet", doc=r.doc_id), 200)
        b = next((m.score for m in body if m.id == r.id), 0.0)
        boost = rank_mod.FOCUS_WEIGHT * pulls.get(r.doc_id, 0.0)
        out.append(
            {
                "doc": names.get(r.doc_id, ""),
                "score": round(r.score, 2),
                "body": round(b, 2),
                "lead": round(r.score - b - boost, 2),
                "pull": round(boost, 2),
            }
        )
    return out


def run_set(name: str, args: argparse.Namespace, counter: Any, out: Any) -> None:
    from pipeline.retrieve import retrieve

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    _, docs, questions = ev.load_set(name, args.qa_root, False, log)
    tuning = [q for q in ev.spread(questions, args.limit) if q.half == "tuning"]
    chunks = ev.build_chunks(docs, counter, ev.CHUNK_TOKENS)
    names = {d.doc_id: d.name for d in docs.values()}
    titles = {d.name: d.text.lstrip("# ").split("\n", 1)[0][:80] for d in docs.values()}
    base = ev.bm25_ranker([it.text for it in chunks.items], stem=False)
    with ev.embedded_store(args.home / name) as store:
        ranks = rankings(store, chunks, names, args.k1)
        for n, q in enumerate(tuning, 1):
            row: dict[str, Any] = {"set": name, "q": q.text, "doc": q.doc, "index": q.index}
            ranked = {v: f(q.text) for v, f in ranks.items()}
            row["ranks"] = {v: first_rank(d, q.docs) for v, d in ranked.items()}
            # among distinct documents, in the order their first unit comes
            row["doc_ranks"] = {
                v: first_rank(list(dict.fromkeys(d)), q.docs) for v, d in ranked.items()
            }
            ctx = retrieve(store, q.text, BUDGET, counter=counter, mode="lexical")
            row["folio_docs"] = list(
                dict.fromkeys(names.get(i.citation.doc_id, "") for i in ctx.items)
            )
            row["folio_items"] = len(ctx.items)
            packed = ev.pack(base(q.text), chunks.tokens, BUDGET)
            row["bm25_docs"] = list(dict.fromkeys(chunks.items[i].doc for i in packed))
            row["folio_hit"] = any(d in q.docs for d in row["folio_docs"])
            row["bm25_hit"] = any(d in q.docs for d in row["bm25_docs"])
            if row["bm25_hit"] and not row["folio_hit"]:
                row["top"] = signals(store, q.text, names)
                row["titles"] = {
                    d: titles.get(d, "") for d in {q.doc, *(t["doc"] for t in row["top"])}
                }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            if n % 25 == 0:
                log(f"  {name}: {n}/{len(tuning)}")


def summary(path: Path) -> list[str]:
    """The tables of a JSONL this script wrote: per set and ranking, the share of
    questions whose right document's first unit (and, after ``|``, the document among
    distinct documents) is at rank 1, in the top 5 and 20; contexts' documents."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    out = []
    for name in dict.fromkeys(r["set"] for r in rows):
        got = [r for r in rows if r["set"] == name]
        out.append(f"{name}: {len(got)} tuning questions; unit @1 @5 @20 | document @1 @5 @20")
        for v in got[0]["ranks"]:
            cells = [
                " ".join(
                    f"{100 * sum(1 for r in got if (r[key][v] or 10**9) <= k) / len(got):5.1f}"
                    for k in (1, 5, 20)
                )
                for key in ("ranks", "doc_ranks")
            ]
            out.append(f"  {v:28s} {cells[0]} | {cells[1]}")
        for who in ("folio", "bm25"):
            docs = [len(r[f"{who}_docs"]) for r in got]
            hit = 100 * sum(r[f"{who}_hit"] for r in got) / len(got)
            out.append(
                f"  {who}: right document in context {hit:.1f}, documents per context "
                f"{sum(docs) / len(docs):.2f} (median {sorted(docs)[len(docs) // 2]})"
            )
        lost = [r for r in got if r["bm25_hit"] and not r["folio_hit"]]
        pulled = sum(1 for r in lost if r["top"][0]["pull"] > 0)
        led = sum(1 for r in lost if r["top"][0]["lead"] > 0.01)
        out.append(
            f"  BM25 finds, Folio lexical misses: {len(lost)} (the best snippet carries a "
            f"pull in {pulled}, a lead score in {led}); the reverse: "
            f"{sum(1 for r in got if r['folio_hit'] and not r['bm25_hit'])}"
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="a copy of eval_retrieval --home")
    ap.add_argument("--qa-root", type=Path, default=data_dir() / "corpus" / "qa")
    ap.add_argument("--sets", type=lambda s: s.split(","), default=["covid-qa", "fairytaleqa"])
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--k1", type=float, default=1.2, help="bm25s over Folio's terms")
    ap.add_argument("--out", type=Path, required=True, help="per-question JSONL")
    ap.add_argument("--summary", action="store_true", help="only print the tables of --out")
    args = ap.parse_args(argv)
    if args.summary:
        print("\n".join(summary(args.out)))
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from pipeline.chunk.tokens import WordPieceCounter

    counter = WordPieceCounter(str(ev.DEFAULT_TOKENIZER))
    with args.out.open("w", encoding="utf-8") as out:
        for name in args.sets:
            run_set(name, args, counter, out)
    print("\n".join(summary(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
