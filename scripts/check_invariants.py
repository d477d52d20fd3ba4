"""Chunk real files and check the DESIGN invariants; exit 1 on any violation.

python scripts/check_invariants.py PATH... [--preset medium] [--overlap medium]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pipeline import ExtractionError, extract_file, make_config
from pipeline.chunk.tiers import chunk_document
from pipeline.invariants import check_chunks
from pipeline.parse.blocks import parse_markdown

SUFFIXES = {".md", ".mdx", ".markdown", ".txt", ".pdf", ".epub"}


def files_under(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.suffix.lower() in SUFFIXES))
        else:
            out.append(p)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--preset", default="medium")
    ap.add_argument("--overlap", default="medium")
    ap.add_argument("--tokenizer", default=None, help="exact tokenizer file")
    args = ap.parse_args()
    config = make_config(
        {"preset": args.preset, "overlap": args.overlap}
        | ({"tokenizer": args.tokenizer} if args.tokenizer else {})
    )
    files = files_under(args.paths)
    bad = n_chunks = 0
    t0 = time.perf_counter()
    for f in files:
        try:
            doc = extract_file(f)
        except ExtractionError as exc:
            print(f"{f}: not extracted ({type(exc).__name__}: {exc.reason})", file=sys.stderr)
            continue
        chunks = chunk_document(doc, config)
        again = chunk_document(doc, config)
        n_chunks += len(chunks)
        excluded: list[tuple[int, int]] = []
        if doc.markup == "markdown" and config.frontmatter != "include":
            blocks, _ = parse_markdown(doc.text)
            excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
        problems = check_chunks(doc.text, chunks, config, excluded=excluded, markup=doc.markup)
        if [c.to_dict() for c in chunks] != [c.to_dict() for c in again]:
            problems.append("determinism: a second run gave different chunks")
        if problems:
            bad += 1
            print(f"{f}: {len(problems)} violation(s)")
            for p in problems[:20]:
                print(f"  {p}")
    dt = time.perf_counter() - t0
    print(
        f"{len(files)} files, {n_chunks} chunks, {bad} file(s) with violations ({dt:.1f}s)",
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
