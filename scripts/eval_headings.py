#!/usr/bin/env python3
"""Score detected headings against the corpus ground truth.

PDFs: ``<stem>.outline.json`` ([{level, title, page (0-based)}]), scored twice: with the
outline and with ``--no-outline`` (font / heuristic fallback). EPUBs: ``<stem>.toc.json``
([{level, title, href}]), with and without the nav. A detected heading is an ATX line of
the extracted text; it matches a truth entry with the same normalized title (case,
spacing, numbering and punctuation folded) on the same page ±1 (PDF), in order, once.

Also, when ``pipeline.chunk_document`` exists: the share of section chunks whose page
range contains the page of their own heading.

    python scripts/eval_headings.py [--corpus ../shared/corpus] [--json out.json] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.errors import ExtractionError  # noqa: E402
from pipeline.extract.dispatch import extract_path  # noqa: E402
from pipeline.model import Document  # noqa: E402

_NUM = re.compile(
    r"^(?:(?:chapter|part|section|appendix|kapitel|teil|lecture)\b\.?\s*)?"
    r"(?:(?:\d+|[ivxlc]+|[a-z])(?:[.\-]\d+)*\.?(?:\s+|$))?",
    re.IGNORECASE,
)
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def norm(title: str) -> str:
    s = unicodedata.normalize("NFKD", title).casefold().strip()
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"^[\W_]+", "", s)
    while True:
        nxt = _NUM.sub("", s, count=1).strip()
        if nxt == s or not re.sub(r"[\W_]+", "", nxt):
            break
        s = nxt
    key = re.sub(r"[\W_]+", "", s)
    return key or re.sub(r"[\W_]+", "", title.casefold())


@dataclass
class Score:
    name: str
    truth: int = 0
    detected: int = 0
    matched: int = 0
    level_ok: int = 0
    mode: str = ""
    error: str = ""
    seconds: float = 0.0
    chunk_page: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched / self.detected if self.detected else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def level_acc(self) -> float:
        return self.level_ok / self.matched if self.matched else 0.0


def detected_headings(doc: Document) -> list[tuple[int, str, int | None]]:
    """(level, title, page 0-based or None) for each ATX heading line of the text."""
    out: list[tuple[int, str, int | None]] = []
    pages = doc.pages
    k = 0
    for m in _ATX.finditer(doc.text):
        page: int | None = None
        if pages:
            while k + 1 < len(pages) and pages[k].char_end <= m.start():
                k += 1
            page = pages[k].number - 1
        out.append((len(m.group(1)), m.group(2), page))
    return out


def score(
    name: str, truth: list[dict[str, Any]], found: list[tuple[int, str, int | None]], paged: bool
) -> Score:
    s = Score(name, truth=len(truth), detected=len(found))
    keys = [norm(t) for _, t, _ in found]
    used = [False] * len(found)
    start = 0
    for entry in truth:
        key = norm(str(entry.get("title", "")))
        tpage = entry.get("page")
        hit = None
        for order in (range(start, len(found)), range(0, start)):
            for j in order:
                if used[j] or keys[j] != key:
                    continue
                fpage = found[j][2]
                if (
                    paged
                    and tpage is not None
                    and fpage is not None
                    and abs(fpage - int(tpage)) > 1
                ):
                    continue
                hit = j
                break
            if hit is not None:
                break
        if hit is None:
            continue
        used[hit] = True
        start = hit + 1
        s.matched += 1
        if found[hit][0] == int(entry.get("level", 0)):
            s.level_ok += 1
    return s


def chunk_page_metric(doc: Document) -> float | None:
    try:
        import pipeline
    except ImportError:
        return None
    chunk_document = getattr(pipeline, "chunk_document", None)
    if chunk_document is None or not doc.pages:
        return None
    heads: dict[str, list[int]] = {}
    for _, title, page in detected_headings(doc):
        if page is not None:
            heads.setdefault(" ".join(title.split()), []).append(page + 1)
    total = ok = 0
    for ch in chunk_document(doc):
        if getattr(ch, "tier", "") != "section" or not getattr(ch, "section_title", ""):
            continue
        pages = heads.get(" ".join(str(ch.section_title).split()))
        if not pages or ch.page_start is None or ch.page_end is None:
            continue
        total += 1
        ok += any(ch.page_start <= p <= ch.page_end for p in pages)
    return ok / total if total else None


def run_one(path: Path, truth_path: Path, *, use_outline: bool, paged: bool) -> Score:
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    try:
        doc = extract_path(path, pdf_backend="pypdf", use_outline=use_outline)
    except ExtractionError as exc:
        s = Score(path.name, truth=len(truth), error=f"{type(exc).__name__}: {exc.reason}")
        s.seconds = time.perf_counter() - t0
        return s
    s = score(path.name, truth, detected_headings(doc), paged)
    s.seconds = time.perf_counter() - t0
    s.mode = str(doc.heading_mode or "")
    s.chunk_page = chunk_page_metric(doc)
    return s


def table(title: str, rows: list[Score]) -> str:
    out = [f"\n## {title}\n"]
    out.append(
        "| file | mode | truth | found | matched | precision | recall | F1 | level acc"
        " | chunk-page | s |"
    )
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cp = f"{r.chunk_page:.2f}" if r.chunk_page is not None else "-"
        if r.error:
            out.append(
                f"| {r.name} | error | {r.truth} | 0 | 0 | - | 0.00 | - | - | - | "
                f"{r.seconds:.1f} |  ← {r.error}"
            )
            continue
        out.append(
            f"| {r.name} | {r.mode} | {r.truth} | {r.detected} | {r.matched} | {r.precision:.2f} |"
            f" {r.recall:.2f} | {r.f1:.2f} | {r.level_acc:.2f} | {cp} | {r.seconds:.1f} |"
        )
    tot = Score("overall (micro)")
    for r in rows:
        tot.truth += r.truth
        tot.detected += r.detected
        tot.matched += r.matched
        tot.level_ok += r.level_ok
    ok = [r for r in rows if not r.error]
    macro_f1 = sum(r.f1 for r in ok) / len(ok) if ok else 0.0
    out.append(
        f"| **overall (micro)** | | {tot.truth} | {tot.detected} | {tot.matched} |"
        f" **{tot.precision:.2f}** | **{tot.recall:.2f}** | **{tot.f1:.2f}** |"
        f" {tot.level_acc:.2f} | | |"
    )
    out.append(f"| macro F1 over {len(ok)} readable files | | | | | | | {macro_f1:.2f} | | | |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--only", default="", help="substring of file names to keep")
    ap.add_argument("--json", type=Path, help="write all scores here")
    ap.add_argument("--skip-epub", action="store_true")
    ap.add_argument("--skip-pdf", action="store_true")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    results: dict[str, list[Score]] = {}
    if not args.skip_pdf:
        pdfs = sorted(
            (p, p.with_name(p.stem + ".outline.json"))
            for p in (args.corpus / "pdf").glob("*.pdf")
            if p.with_name(p.stem + ".outline.json").is_file() and args.only in p.name
        )
        for label, use in (("PDF, with outline", True), ("PDF, --no-outline", False)):
            results[label] = [run_one(p, t, use_outline=use, paged=True) for p, t in pdfs]
            print(table(label, results[label]), flush=True)
    if not args.skip_epub:
        epubs = sorted(
            (p, p.with_name(p.stem + ".toc.json"))
            for p in (args.corpus / "epub").glob("*.epub")
            if p.with_name(p.stem + ".toc.json").is_file() and args.only in p.name
        )
        for label, use in (("EPUB, with nav", True), ("EPUB, --no-outline", False)):
            results[label] = [run_one(p, t, use_outline=use, paged=False) for p, t in epubs]
            print(table(label, results[label]), flush=True)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    k: [
                        {
                            "file": r.name,
                            "mode": r.mode,
                            "truth": r.truth,
                            "detected": r.detected,
                            "matched": r.matched,
                            "precision": r.precision,
                            "recall": r.recall,
                            "f1": r.f1,
                            "level_accuracy": r.level_acc,
                            "chunk_page": r.chunk_page,
                            "error": r.error,
                            "seconds": r.seconds,
                        }
                        for r in v
                    ]
                    for k, v in results.items()
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
