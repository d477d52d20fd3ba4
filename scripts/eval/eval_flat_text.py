#!/usr/bin/env python3
"""Flat-text structure on the dev set of ``eval/flat-text`` (RFCs, Project Gutenberg
books, EPUB text exports, mdBook manuals), truth from each document's own XML, HTML or
navigation: per document, per kind and per half (tuning / report).

Each text is read as a ``.txt`` file (``extract_path``) and chunked as ``folio chunk``
would; it is scored with the metrics of ``scripts/eval/eval_structure.py``: recall and
precision of the top two truth levels, breadcrumb (the chunk's own top-two entry) and
chapter ancestry (the chunk's top-level entry in its breadcrumb).

    python scripts/eval/eval_flat_text.py [--set eval/flat-text] [--half tuning|report|holdout]
        [--only NAME] [--json out.json]

Truth entries may carry a numbering ``label`` (see eval/flat-text/README.md and
``eval_headings.match``): a joined "CHAPTER I. Title" entry matches a found heading of
the joined or the bare title; a bare label matches a found heading that starts with it.

Goal: recall ≥ 0.90, precision ≥ 0.90 and chapter ancestry ≥ 0.90 on every kind of the
report half.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402
from eval_structure import BookScore, structure_scores, text_headings  # noqa: E402

from pipeline import chunk_document  # noqa: E402
from pipeline.extract.dispatch import extract_path  # noqa: E402


def score_one(name: str, text: str, truth: list[dict[str, Any]], tmp: Path) -> BookScore:
    """One text read as a ``.txt`` file and scored against its truth."""
    s = BookScore(name)
    t0 = time.perf_counter()
    path = tmp / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    doc = extract_path(path)
    s.mode = str(doc.heading_mode or "")
    structure_scores(s, truth, text_headings(doc), chunk_document(doc), doc.text)
    s.seconds = time.perf_counter() - t0
    return s


def summary(rows: list[BookScore]) -> tuple[float, float, float, float]:
    """Micro-averaged recall, precision, breadcrumb and chapter ancestry of ``rows``."""
    truth = sum(r.truth for r in rows)
    detected = sum(r.detected for r in rows)
    crumb = sum(r.crumb_n for r in rows)
    chapter = sum(r.chapter_n for r in rows)
    return (
        sum(r.nested for r in rows) / max(1, truth),
        sum(r.precise for r in rows) / max(1, detected),
        sum(r.crumb_ok for r in rows) / max(1, crumb),
        sum(r.chapter_ok for r in rows) / max(1, chapter),
    )


def doc_table(rows: list[tuple[str, str, BookScore]]) -> str:
    out = [
        "| document | kind | half | truth top-2 | recall | depth≤2 lines | precision"
        " | breadcrumb | chapter ancestry |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, half, r in rows:
        out.append(
            f"| {r.name} | {kind} | {half} | {r.truth} | {r.recall:.3f} | {r.detected}"
            f" | {r.precision:.3f} | {r.crumb:.3f} | {r.chapter:.3f} |"
        )
    return "\n".join(out)


def group_table(rows: list[tuple[str, str, BookScore]]) -> str:
    out = [
        "| half | kind | docs | recall | precision | breadcrumb | chapter ancestry"
        " | worst doc (recall / precision / chapter) |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    halves = sorted({h for _, h, _ in rows}, reverse=True)  # tuning, report
    for half in [*halves, "all"]:
        kinds = sorted({k for k, h, _ in rows if half in ("all", h)})
        for kind in [*kinds, "all"]:
            group = [r for k, h, r in rows if half in ("all", h) and kind in ("all", k)]
            if not group:
                continue
            rec, prec, crumb, chap = summary(group)
            worst = min(group, key=lambda r: min(r.recall, r.precision, r.chapter))
            out.append(
                f"| {half} | {kind} | {len(group)} | {rec:.3f} | {prec:.3f} | {crumb:.3f}"
                f" | {chap:.3f} | {worst.name} ({worst.recall:.2f} / {worst.precision:.2f}"
                f" / {worst.chapter:.2f}) |"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--set", type=Path, default=ROOT / "eval" / "flat-text", help="MANIFEST, split")
    ap.add_argument(
        "--docs",
        type=Path,
        default=data_dir() / "dev" / "flat-text" / "docs",
        help="the texts and truth files (data, not in the repository; default: %(default)s)",
    )
    ap.add_argument("--half", choices=("tuning", "report", "holdout"), help="score one half only")
    ap.add_argument("--only", default="", help="substring of document names to keep")
    ap.add_argument("--json", type=Path, help="write all scores here")
    args = ap.parse_args(argv)
    manifest = json.loads((args.set / "MANIFEST.json").read_text(encoding="utf-8"))
    halves = json.loads((args.set / "split.json").read_text(encoding="utf-8"))["halves"]
    docs = [
        m
        for m in manifest
        if args.only in m["name"] and (args.half is None or halves[m["name"]] == args.half)
    ]
    if not docs:
        print(f"no document of {args.set} matches", file=sys.stderr)
        return 2
    rows: list[tuple[str, str, BookScore]] = []
    with tempfile.TemporaryDirectory(prefix="folio-flat-set-") as tmp:
        for m in sorted(docs, key=lambda m: (halves[m["name"]], m["kind"], m["name"])):
            base = args.docs / m["name"]
            text = gzip.decompress(base.with_suffix(".txt.gz").read_bytes()).decode("utf-8")
            truth = json.loads(base.with_suffix(".truth.json").read_text(encoding="utf-8"))
            rows.append(
                (m["kind"], halves[m["name"]], score_one(m["name"], text, truth, Path(tmp)))
            )
    print("## Flat-text dev set, per document\n")
    print(doc_table(rows))
    print("\n## Per half and kind (micro-averaged)\n")
    print(group_table(rows))
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    asdict(r)
                    | {"kind": k, "half": h, "recall": r.recall, "precision": r.precision}
                    | {"breadcrumb": r.crumb, "chapter": r.chapter}
                    for k, h, r in rows
                ],
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
