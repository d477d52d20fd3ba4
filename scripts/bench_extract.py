#!/usr/bin/env python3
"""Pages per second of Folio's PDF reader vs a plain pypdf ``extract_text()`` loop.

For each corpus PDF, in the same run: (a) the plain loop
``[p.extract_text() for p in PdfReader(f).pages]``, (b) ``read_pdf`` on one core
(PDFium text layer + layout + boilerplate + headings + paragraphs), (c) ``read_pdf`` as it
runs by default (a process pool over the idle cores from 48 pages on; see
``pipeline.extract.pdf.reader.default_workers``: none when the machine's load already fills its
cores). Goal: (b) ≤ 1.5× (a); (c) faster than (a). ``--force-pool`` makes (c) always use
``--workers`` processes, to measure the pool itself on a loaded machine.

    python scripts/bench_extract.py [--corpus $FOLIO_DATA/corpus] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import add_corpus  # noqa: E402  (scripts/ is on the path)

from pipeline.errors import ExtractionError  # noqa: E402
from pipeline.extract.pdf.reader import read_pdf  # noqa: E402


def plain_loop(path: Path) -> int:
    from pypdf import PdfReader

    reader = PdfReader(path)
    n = 0
    for page in reader.pages:
        page.extract_text()
        n += 1
    return n


def timed(fn: object, *args: object, repeat: int = 1, **kw: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kw)  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus(ap)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workers", type=int, default=min(os.cpu_count() or 1, 2))
    ap.add_argument(
        "--force-pool", action="store_true", help="(c) uses the pool even below the page threshold"
    )
    args = ap.parse_args(argv)
    pdfs = sorted((args.corpus / "pdf").glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {args.corpus / 'pdf'}", file=sys.stderr)
        return 2
    from pipeline.extract.pdf.reader import PARALLEL_MIN_PAGES, default_workers

    print(
        f"cores: {os.cpu_count()}, load (1 min): {os.getloadavg()[0]:.1f}, (c): "
        + (
            f"{args.workers} workers forced"
            if args.force_pool
            else f"default policy, now {default_workers(10**6)} worker(s) from "
            f"{PARALLEL_MIN_PAGES} pages"
        )
        + "\n"
    )
    print("| file | pages | plain s | folio 1-core s | ratio | folio default s | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    tot = [0, 0.0, 0.0, 0.0]
    for f in pdfs:
        try:
            pages = plain_loop(f)
            a = timed(plain_loop, f, repeat=args.repeat)
            b = timed(read_pdf, f, workers=1, repeat=args.repeat)
            c = timed(
                read_pdf, f, workers=args.workers if args.force_pool else None, repeat=args.repeat
            )
        except ExtractionError as exc:
            print(f"| {f.name} | - | - | - | - | - | - |  ← {type(exc).__name__}")
            continue
        tot[0] += pages
        tot[1] += a
        tot[2] += b
        tot[3] += c
        print(f"| {f.name} | {pages} | {a:.2f} | {b:.2f} | {b / a:.2f} | {c:.2f} | {c / a:.2f} |")
    n, a, b, c = tot
    print(
        f"| **total** | {n} | {a:.2f} ({n / a:.0f} p/s) | {b:.2f} ({n / b:.0f} p/s) |"
        f" **{b / a:.2f}** | {c:.2f} ({n / c:.0f} p/s) | **{c / a:.2f}** |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
