#!/usr/bin/env python3
"""Pages per second of Folio's OCR vs bare single-thread Tesseract on the same page images.

The floor is the ``tesseract`` program alone (``OMP_THREAD_LIMIT=1``, hOCR out, ``--dpi``
as Folio passes it) on each page image Folio would hand it: the page rendered by PDFium in
grey at ``ocr.page_dpi`` and saved beforehand, uncompressed (PGM: no decoding to pay).
Folio is ``extract_file`` of the whole PDF in this process (the reader's OCR pool off:
one page at a time, the per-page comparison), so it also pays opening the file, rendering
(decoding each page's scan: the bare run is handed it decoded), guessing the type's height
from the ink, handing the image over, reading the hOCR and building the document. What each
side reads: the floor every page image as rendered at ``page_dpi``, once, whatever its type
size (as Tesseract alone would be given it); Folio makes its own choices (``ocr.ocr_page``:
a page of type taller than 100 px is read shrunk to 50 px rows, a second read where its
guess was wrong), so a page of large type costs Folio less Tesseract time than the floor:
on the corpus scan, the poster page (4000 px square at 133 dpi; Folio reads it at 1619 px).
Interleaved (floor,
Folio, floor, ...), best of ``--repeat``, wall seconds and CPU seconds (this process and
its children); the load average before and after. Goal (issue #42): Folio ≥ 90% of the
floor's pages per second. ``--workers 0`` lets the reader use its default pool instead.
``--per-page`` adds each page's CPU seconds: the floor's one read of its image, and Folio's
``ocr.ocr_page`` (render, guess, its read or reads, with the image sizes it handed over).

    python scripts/bench/bench_ocr.py [PDF] [--repeat 3] [--workers 1] [--per-page]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import load_average, text_table  # noqa: E402  (scripts/ is on the path)

from pipeline.extract import extract_file  # noqa: E402
from pipeline.extract.pdf import ocr, reader  # noqa: E402
from pipeline.extract.pdf.pdfium import open_document  # noqa: E402

SCAN = ROOT.parent / "shared" / "corpus" / "pdf" / "ocr-multipage-scan.pdf"


def page_images(pdf: Path, pages: list[int], out: Path) -> list[tuple[Path, float]]:
    """Each page as Folio renders it for Tesseract, saved as PGM, with its dpi."""
    doc = open_document(pdf)
    images = []
    try:
        for i in pages:
            page = doc[i]
            dpi = ocr.page_dpi(page)
            path = out / f"page-{i}.pgm"
            page.render(scale=dpi / 72.0, grayscale=True).to_pil().save(path)
            page.close()
            images.append((path, dpi))
    finally:
        doc.close()
    return images


def bare(images: list[tuple[Path, float]]) -> None:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    for path, dpi in images:
        cmd = ["tesseract", str(path), "stdout", "-l", ocr.LANG, "--dpi", str(round(dpi)), "hocr"]
        subprocess.run(cmd, env=env, check=True, capture_output=True)


def per_page(pdf: Path, images: list[tuple[Path, float]], pages: list[int], repeat: int) -> None:
    """Each page's CPU seconds, best of ``repeat``: the floor's read, Folio's ``ocr_page``."""
    import pytesseract

    sizes: list[str] = []
    real = pytesseract.image_to_pdf_or_hocr

    def noted(image: Any, **kwargs: Any) -> Any:  # the image sizes Folio hands over
        sizes.append(f"{image.width}x{image.height}")
        return real(image, **kwargs)

    pytesseract.image_to_pdf_or_hocr = noted
    doc = open_document(pdf)
    rows = []
    try:
        for i, image in zip(pages, images, strict=True):
            page = doc[i]
            floor = folio = float("inf")
            for _ in range(repeat):
                sizes.clear()
                floor = min(floor, measure(partial(bare, [image]))[0])
                folio = min(folio, measure(partial(ocr.ocr_page, page))[0])
            page.close()
            rows.append((str(i + 1), f"{floor:.2f}", f"{folio:.2f}", ", ".join(sizes)))
    finally:
        doc.close()
        pytesseract.image_to_pdf_or_hocr = real
    head = ("page", "floor CPU s", "Folio ocr_page CPU s", "Folio's reads")
    print(text_table(head, rows, right={0, 1, 2}))


def cpu() -> float:
    """CPU seconds of this process and of its waited-for children (Tesseract)."""
    own = time.process_time()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + kids.ru_utime + kids.ru_stime


def measure(fn: Callable[[], object]) -> tuple[float, float]:
    c0, w0 = cpu(), time.perf_counter()
    fn()
    return cpu() - c0, time.perf_counter() - w0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdf", type=Path, nargs="?", default=SCAN)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (3)")
    ap.add_argument("--workers", type=int, default=1, help="OCR processes (0: reader's default)")
    ap.add_argument("--per-page", action="store_true", help="each page's CPU seconds too")
    args = ap.parse_args(argv)
    why = ocr.unavailable()
    if why:
        print(f"OCR cannot run here: {why}", file=sys.stderr)
        return 2
    if args.workers > 0:
        workers = args.workers
        reader.default_workers = lambda n_pages, least=0: min(workers, max(n_pages, 1))
    # 1-based in the document info
    pages = [n - 1 for n in extract_file(args.pdf).info.extra.get("ocr_pages", [])]
    if not pages:
        print(f"{args.pdf}: no page is read by OCR", file=sys.stderr)
        return 2
    print(f"{args.pdf.name}: {len(pages)} OCR pages; cores {os.cpu_count()}, load before: "
          f"{load_average()}, Folio OCR workers: {args.workers or 'default policy'}, "
          f"best of {args.repeat}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench_ocr_") as tmp:
        images = page_images(args.pdf, pages, Path(tmp))
        best = [float("inf")] * 4  # floor cpu, floor wall, Folio cpu, Folio wall
        for _ in range(args.repeat):
            fc, fw = measure(lambda: bare(images))
            xc, xw = measure(lambda: extract_file(args.pdf))
            best = [min(b, v) for b, v in zip(best, (fc, fw, xc, xw), strict=True)]
        if args.per_page:
            per_page(args.pdf, images, pages, args.repeat)
    fc, fw, xc, xw = best
    n = len(pages)
    rows = [
        ("bare tesseract (1 thr)", f"{fc:.2f}", f"{fw:.2f}", f"{n / fw:.3f}"),
        ("Folio extract_file", f"{xc:.2f}", f"{xw:.2f}", f"{n / xw:.3f}"),
    ]
    print(text_table(("", "CPU s", "wall s", "pages/s (wall)"), rows, right={1, 2, 3}))
    print(f"load after: {load_average()}")
    print(f"Folio: {fw / xw:.0%} of bare Tesseract's pages per second (wall), "
          f"{fc / xc:.0%} per CPU second (goal ≥ 90%)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
