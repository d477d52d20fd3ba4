"""Chunk real files and check the invariants of docs/design.md; exit 1 on any violation.

python scripts/check/check_invariants.py PATH... [--preset medium] [--overlap medium]
    [--tokenizer FILE] [--window TOKENIZER_JSON]

With ``--window``, also count every snippet's retrieval_text (what the embedding model
reads) with that WordPiece tokenizer, truncation and padding off, and report per PATH the
share of snippets over the snippet max (512 at medium): the embedding window.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: F401  (puts every room of scripts/ on the path)
from common import files_under

from pipeline import ChunkConfig, ExtractionError, chunk_document, extract_file, make_config
from pipeline.chunk.invariants import check_chunks
from pipeline.chunk.tokens import WordPieceCounter
from pipeline.model import Chunk, Document
from pipeline.parse.blocks import parse_markdown
from pipeline.parse.document import uses_mdx

SUFFIXES = {".md", ".mdx", ".markdown", ".txt", ".pdf", ".epub"}


@dataclass(slots=True)
class Window:
    """Snippets of one PATH argument against the embedding window."""

    snippets: int = 0
    over: int = 0
    largest: int = 0
    oversized: int = 0


def check_document(doc: Document, config: ChunkConfig) -> tuple[list[Chunk], list[str]]:
    """One document's chunks and its invariant violations (determinism included)."""
    chunks = chunk_document(doc, config)
    again = chunk_document(doc, config)
    excluded: list[tuple[int, int]] = []
    markup = "mdx" if doc.markup == "markdown" and uses_mdx(doc, config) else doc.markup
    if markup != "text" and config.frontmatter != "include":
        blocks, _ = parse_markdown(doc.text, mdx=markup == "mdx")
        excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
    problems = check_chunks(doc.text, chunks, config, excluded=excluded, markup=markup)
    if [c.to_dict() for c in chunks] != [c.to_dict() for c in again]:
        problems.append("determinism: a second run gave different chunks")
    return chunks, problems


def measure(chunks: list[Chunk], wordpiece: WordPieceCounter, limit: int, into: Window) -> None:
    snippets = [c for c in chunks if c.tier == "snippet"]
    counts = wordpiece.count_many([c.retrieval_text for c in snippets]) if snippets else []
    into.snippets += len(snippets)
    into.over += sum(n > limit for n in counts)
    into.largest = max([into.largest, *counts])
    into.oversized += sum(c.oversized for c in snippets)


def report(windows: dict[str, Window], limit: int, counter: str) -> None:
    print(f"\nsnippets over {limit} true WordPiece tokens (retrieval_text), counter: {counter}")
    print(
        f"{'corpus':<40} {'snippets':>9} {'over':>6} {'share':>8} {'largest':>8} {'oversized':>9}"
    )
    for path, w in windows.items():
        share = 100 * w.over / w.snippets if w.snippets else 0.0
        print(
            f"{path:<40} {w.snippets:>9} {w.over:>6} {share:>7.3f}% {w.largest:>8} {w.oversized:>9}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--preset", default="medium")
    ap.add_argument("--overlap", default="medium")
    ap.add_argument("--tokenizer", default=None, help="exact tokenizer file")
    ap.add_argument("--window", default=None, help="WordPiece tokenizer.json to measure with")
    args = ap.parse_args()
    config = make_config(
        {"preset": args.preset, "overlap": args.overlap}
        | ({"tokenizer": args.tokenizer} if args.tokenizer else {})
    )
    wordpiece = WordPieceCounter(args.window) if args.window else None
    windows: dict[str, Window] = {}
    n_files = bad = n_chunks = 0
    t0 = time.perf_counter()
    for path in args.paths:
        window = windows[path] = Window()
        for f in files_under(path, SUFFIXES):
            n_files += 1
            try:
                doc = extract_file(f)
            except ExtractionError as exc:
                print(f"{f}: not extracted ({type(exc).__name__}: {exc.reason})", file=sys.stderr)
                continue
            chunks, problems = check_document(doc, config)
            n_chunks += len(chunks)
            if wordpiece is not None:
                measure(chunks, wordpiece, config.snippet_max, window)
            if problems:
                bad += 1
                print(f"{f}: {len(problems)} violation(s)")
                for p in problems[:20]:
                    print(f"  {p}")
    dt = time.perf_counter() - t0
    if wordpiece is not None:
        report(
            windows, config.snippet_max, args.tokenizer or f"estimator ({config.estimator_bias})"
        )
    print(
        f"{n_files} files, {n_chunks} chunks, {bad} file(s) with violations ({dt:.1f}s)",
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
