#!/usr/bin/env python3
"""Pages per second of Folio's PDF extraction vs the least any PDF text pipeline does.

The floor is a bare PDFium text loop (pypdfium2: open the file, ``get_textpage()
.get_text_range()`` on every page, close). Folio is ``pipeline.extract.extract_file``
(PDFium text layer + layout + boilerplate + headings + outline + paragraphs) read in this
process: the reader's process pool is off (``--workers 1``, the default) so that both
sides are measured on the same core. Measured in one process, interleaved (per file:
floor, Folio, floor, Folio, ...), the best of ``--repeat`` runs of each, in CPU seconds
(``time.process_time``) and wall seconds; the load average is printed before and after.
Goal (issue #42): Folio ≥ 50% of the floor's pages per second in CPU time.

Files: ``--corpus``/pdf/*.pdf and every ``--extra`` folder's PDFs. A file of which half the
pages or more hold fewer than 5 non-blank characters in their text layer (a scan Folio
would OCR) is left out and named: OCR speed is not text-layer speed.

    python scripts/bench/bench_extract.py [--corpus $FOLIO_DATA/corpus]
        [--extra $FOLIO_DATA/dev/pdf-outline ...] [--repeat 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import add_corpus, load_average, text_table  # noqa: E402  (scripts/ is on the path)

from pipeline.errors import ExtractionError  # noqa: E402
from pipeline.extract import extract_file  # noqa: E402
from pipeline.extract.pdf import reader  # noqa: E402


def floor_loop(path: Path) -> tuple[int, int]:
    """Pages of the bare PDFium text loop, and how many hold fewer than 5 non-blank
    characters (what Folio would OCR if they draw an image)."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(path))
    pages = bare = 0
    try:
        for i in range(len(doc)):
            page = doc[i]
            tp = page.get_textpage()
            bare += len("".join(tp.get_text_range().split())) < 5
            tp.close()
            page.close()
            pages += 1
    finally:
        doc.close()
    return pages, bare


def measure(fn: Callable[[Path], object], path: Path) -> tuple[float, float]:
    """CPU and wall seconds of one call."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn(path)
    return time.process_time() - c0, time.perf_counter() - w0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus(ap)
    ap.add_argument("--extra", type=Path, nargs="*", default=[], help="more PDF folders")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (3)")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes the reader may use (1: in-line, the CPU comparison; 0: its default)",
    )
    args = ap.parse_args(argv)
    pdfs = sorted((args.corpus / "pdf").glob("*.pdf"))
    for folder in args.extra:
        pdfs += sorted(folder.glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {args.corpus / 'pdf'}", file=sys.stderr)
        return 2
    if args.workers > 0:
        workers = args.workers
        reader.default_workers = lambda n_pages, least=0: min(workers, max(n_pages, 1))
    print(
        f"cores: {os.cpu_count()}, load before: {load_average()}, reader workers: "
        f"{args.workers or 'default policy'}, best of {args.repeat}\n"
    )
    rows: list[list[str]] = []
    tot = [0, 0.0, 0.0, 0.0, 0.0]  # pages, floor cpu, floor wall, folio cpu, folio wall
    left_out: list[str] = []
    for f in pdfs:
        pages, bare = floor_loop(f)
        if 2 * bare >= pages:
            left_out.append(f.name)
            continue
        best = [float("inf")] * 4
        try:
            for _ in range(args.repeat):
                fc, fw = measure(floor_loop, f)
                xc, xw = measure(extract_file, f)
                best = [min(b, v) for b, v in zip(best, (fc, fw, xc, xw), strict=True)]
        except ExtractionError as exc:
            left_out.append(f"{f.name} ({type(exc).__name__})")
            continue
        fc, fw, xc, xw = best
        tot = [tot[0] + pages, tot[1] + fc, tot[2] + fw, tot[3] + xc, tot[4] + xw]
        rows.append(
            [f.name, str(pages), f"{fc:.3f}", f"{xc:.3f}", f"{fc / xc:.0%}", f"{fw:.3f}",
             f"{xw:.3f}", f"{fw / xw:.0%}"]
        )  # fmt: skip
    n, fc, fw, xc, xw = tot
    if n:
        rows.append(
            ["total", str(n), f"{fc:.2f} ({n / fc:.0f} p/s)", f"{xc:.2f} ({n / xc:.0f} p/s)",
             f"{fc / xc:.0%}", f"{fw:.2f} ({n / fw:.0f} p/s)", f"{xw:.2f} ({n / xw:.0f} p/s)",
             f"{fw / xw:.0%}"]
        )  # fmt: skip
    header = ["file", "pages", "floor CPU s", "Folio CPU s", "share", "floor wall s",
              "Folio wall s", "share"]  # fmt: skip
    print(text_table(header, rows, right=range(1, 8)))
    if left_out:
        print("\nleft out (no text layer to speak of, or unreadable): " + ", ".join(left_out))
    print(f"\nload after: {load_average()}")
    if n:
        print(f"Folio: {fc / xc:.0%} of the floor's pages per CPU second (goal ≥ 50%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
