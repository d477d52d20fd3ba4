#!/usr/bin/env python3
"""How well and how fast Folio reads scanned PDFs (OCR with Tesseract) on this machine.

python scripts/check/check_ocr.py [PDF...] [--pages N] [--dpi D] [--json]

A PDF with a text layer (on at least half its pages) is made into a scan of its first N
pages (each page rendered by PDFium at D dpi in grey, the images saved as an image-only
PDF by Pillow), and both are
extracted through Folio (``extract_file``): the word accuracy of the scan's text against
the original's. A PDF without one (a scan) is extracted as it is (no truth: no accuracy).
Each row gives the pages OCRed, the seconds and pages per second of the whole extraction
of the scan, the CPU seconds per OCRed page (a measure that the machine's other work does
not change much), and the 1-minute load average before and after (os.getloadavg()): the
wall-clock rate falls when the cores are shared with other jobs.

Word accuracy: the words (``\\w+``, NFKC, lower-cased) the scan gives, counted as a multiset
overlap with the original's, over the original's word count — the share of the original's
words that came back (words the OCR adds are not counted against it).

Default PDFs: the corpus's scan (ocr-multipage-scan.pdf) and the first N pages of a
corpus text PDF (tufte-sample-handout.pdf: prose with side notes and figures).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

from pipeline.extract import extract_file  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"
DEFAULTS = (CORPUS / "ocr-multipage-scan.pdf", CORPUS / "tufte-sample-handout.pdf")
_WORD = re.compile(r"\w+")


def words(text: str) -> Counter[str]:
    """The text's words, lower-cased, with their counts. NFKC first: a text layer writes
    math italic letters (𝐴, U+1D434) that a scan can only show as the letter (A)."""
    return Counter(w.lower() for w in _WORD.findall(unicodedata.normalize("NFKC", text)))


def word_accuracy(original: str, read: str) -> float:
    """The share of the original's words found in ``read`` (a multiset overlap)."""
    want = words(original)
    total = sum(want.values())
    if not total:
        return 1.0
    return sum((want & words(read)).values()) / total


def page_range(src: Path, pages: int, out: Path) -> Path:
    """The first ``pages`` pages of ``src`` as a PDF of their own, text layer kept."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(src)
    part = pypdfium2.PdfDocument.new()
    part.import_pages(doc, list(range(min(pages, len(doc)))))
    part.save(out)
    part.close()
    doc.close()
    return out


def make_scan(src: Path, out: Path, *, pages: int | None = None, dpi: float = 300.0) -> Path:
    """An image-only PDF of ``src``'s first ``pages`` pages (all when ``None``): each page
    rendered in grey at ``dpi`` and saved by Pillow at that resolution, so the scan's
    pages have the original's size."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(src)
    n = len(doc) if pages is None else min(pages, len(doc))
    images = []
    for i in range(n):
        page = doc[i]
        images.append(page.render(scale=dpi / 72.0, grayscale=True).to_pil())
        page.close()
    doc.close()
    images[0].save(out, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return out


@dataclass(frozen=True)
class Row:
    pdf: str
    pages: int  # pages of the document extracted
    ocr_pages: int  # of them, read by OCR
    seconds: float  # the whole extraction of the scan
    pages_per_s: float  # OCRed pages a second
    cpu_per_page: float  # CPU seconds (this process, its pool and Tesseract) per OCRed page
    accuracy: float | None  # word accuracy against the text layer (a made scan only)
    words: int  # the original's words (a made scan), else the words read
    load_before: float
    load_after: float


def check(path: Path, pages: int, dpi: float, work: Path) -> Row:
    """One row: ``path`` itself when it has no text layer, else a scan made of it."""
    truth: str | None = None
    scan = path
    if not _is_scan(path):
        part = page_range(path, pages, work / f"{path.stem}.text.pdf")
        truth = extract_file(part).text
        scan = make_scan(part, work / f"{path.stem}.scan.pdf", dpi=dpi)
    load_before = os.getloadavg()[0]
    started, cpu = time.perf_counter(), _cpu()
    doc = extract_file(scan)
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    ocr = len(doc.info.extra.get("ocr_pages", []))
    return Row(
        pdf=path.name if truth is None else f"{path.name} (first {pages} pages, {dpi:g} dpi)",
        pages=len(doc.pages),
        ocr_pages=ocr,
        seconds=round(seconds, 2),
        pages_per_s=round(ocr / seconds, 3) if seconds else 0.0,
        cpu_per_page=round(cpu / ocr, 2) if ocr else 0.0,
        accuracy=None if truth is None else round(word_accuracy(truth, doc.text), 4),
        words=sum(words(truth if truth is not None else doc.text).values()),
        load_before=round(load_before, 2),
        load_after=round(os.getloadavg()[0], 2),
    )


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (Tesseract, the
    pool's workers and theirs)."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _is_scan(path: Path) -> bool:
    """Most pages have no text layer (fewer than 5 characters)."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(path)
    try:
        blank = sum(len(page.get_textpage().get_text_range().strip()) < 5 for page in doc)
        return blank * 2 >= len(doc)
    finally:
        doc.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdfs", nargs="*", type=Path, default=list(DEFAULTS))
    ap.add_argument("--pages", type=int, default=5, help="pages of a text PDF to scan")
    ap.add_argument("--dpi", type=float, default=300.0, help="resolution of a made scan")
    ap.add_argument("--json", action="store_true", help="rows as JSON")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="folio-check-ocr-") as tmp:
        rows = [check(p, args.pages, args.dpi, Path(tmp)) for p in args.pdfs]
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=1))
        return 0
    print(f"{'pdf':52} pages ocr   secs  pages/s cpu/page accuracy  words load")
    for r in rows:
        acc = "-" if r.accuracy is None else f"{r.accuracy:.2%}"
        print(
            f"{r.pdf:52} {r.pages:5} {r.ocr_pages:3} {r.seconds:6.1f} {r.pages_per_s:8.3f}"
            f" {r.cpu_per_page:8.2f} {acc:>8} {r.words:6} {r.load_before:.1f}→{r.load_after:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
