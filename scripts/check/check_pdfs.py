#!/usr/bin/env python3
"""Robustness run over real PDFs: extract and chunk each one as an ingest would, and count
what became of them.

python scripts/check/check_pdfs.py PATH... [--from FILE] [--workers N] [--timeout S]
                             [--memory-mb MB] [--pdf-backend B] [--list] [--json]

PATH is a PDF or a folder (its ``*.pdf``, recursively); ``--from FILE`` adds the paths
listed in FILE, one a line (``-`` for standard input: ``find DIR -name '*.pdf' | python
scripts/check/check_pdfs.py --from -``). Each file goes through Folio's extract stage
(``extract_file``) and the chunker in a supervised worker process with a wall-clock limit
and an address-space cap, as ``folio ingest`` runs it, so a hang or a blow-up costs that
file only. Each file is

- ingested: a document with chunks (by which text layer, with which headings);
- empty: the file holds no text to index (no text layer: a scan; no text at all; no chunk);
- failed: any other error, the time limit, the memory limit or a crash.

The table gives the count per outcome and reason (the reason with the file's path and its
numbers taken out, so one kind of failure is one row); ``--list`` adds every file that is
not ingested with its full reason, and every warning logged while reading one that was.
Exit status: 0, or 1 when a file failed.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

from pipeline.model import Stage  # noqa: E402
from pipeline.shared.limits import DEFAULT_MAX_MEMORY_MB, supervise  # noqa: E402

EMPTY_ERRORS = ("EmptyDocumentError", "NoTextLayerError")
_NUMBER = re.compile(r"\d[\d,.]*")


@dataclass
class Outcome:
    path: str
    outcome: str  # ingested | empty | failed
    reason: str  # why (the error's reason), or how it was read when ingested
    pages: int = 0
    chunks: int = 0
    outline: int = 0  # outline entries of the document
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


class _Kept(logging.Handler):
    """The warnings logged while one file is read, in the worker."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def check_one(backend: str, path: str, _note: Any) -> Outcome:
    """Extract and chunk one file (in a worker process)."""
    import pipeline
    from pipeline.errors import ExtractionError

    kept = _Kept()
    logging.getLogger().addHandler(kept)
    t0 = time.perf_counter()
    try:
        doc = pipeline.extract_file(path, pdf_backend=backend)
        chunks = pipeline.chunk_document(doc, pipeline.make_config())
    except ExtractionError as exc:
        kind = type(exc).__name__
        outcome = "empty" if kind in EMPTY_ERRORS else "failed"
        return Outcome(path, outcome, f"{kind}: {exc.reason}", seconds=time.perf_counter() - t0)
    finally:
        logging.getLogger().removeHandler(kept)
    seconds = time.perf_counter() - t0
    if not chunks:
        return Outcome(path, "empty", "no chunk", len(doc.pages), seconds=seconds)
    how = f"{doc.info.backend} text layer, {doc.heading_mode} headings"
    if doc.info.extra.get("damaged_pages"):
        how += ", damaged pages skipped"
    return Outcome(
        path, "ingested", how, len(doc.pages), len(chunks), len(doc.outline), seconds, kept.messages
    )


def _failed(path: str, stage: Stage, reason: str) -> Outcome:
    return Outcome(path, "failed", f"{stage}: {reason}")


def find_pdfs(paths: list[str], listed: str | None) -> list[str]:
    """The PDFs named or found under the folders named, in order, each once."""
    names = list(paths)
    if listed is not None:
        text = sys.stdin.read() if listed == "-" else Path(listed).read_text()
        names += [line for line in text.splitlines() if line.strip()]
    out: list[str] = []
    for name in names:
        p = Path(name)
        found = sorted(str(f) for f in p.rglob("*") if f.suffix.lower() == ".pdf" and f.is_file())
        out += found if p.is_dir() else [name]
    return list(dict.fromkeys(out))


def reason_key(r: Outcome) -> str:
    """The reason with the path and numbers taken out, so that one kind is one row."""
    reason = r.reason.replace(r.path, "FILE")
    return _NUMBER.sub("N", reason)[:110]


def table(results: list[Outcome]) -> str:
    rows = Counter((r.outcome, reason_key(r)) for r in results)
    order = {"ingested": 0, "empty": 1, "failed": 2}
    lines = ["| outcome | reason | files |", "|---|---|---:|"]
    for (outcome, reason), n in sorted(rows.items(), key=lambda kv: (order[kv[0][0]], -kv[1])):
        lines.append(f"| {outcome} | {reason} | {n} |")
    totals = Counter(r.outcome for r in results)
    lines.append(
        f"\n{len(results)} PDFs: "
        + ", ".join(f"{totals[k]} {k}" for k in ("ingested", "empty", "failed"))
    )
    return "\n".join(lines)


def details(results: list[Outcome]) -> str:
    out: list[str] = []
    for r in results:
        if r.outcome != "ingested":
            out.append(f"{r.outcome}: {r.path}: {r.reason}")
    for r in results:
        for w in r.warnings:
            out.append(f"warning: {r.path}: {w}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("paths", nargs="*", metavar="PATH", help="PDF files or folders")
    ap.add_argument("--from", dest="listed", metavar="FILE", help="paths one a line (- stdin)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file (300)")
    ap.add_argument(
        "--memory-mb", type=int, default=DEFAULT_MAX_MEMORY_MB, help="address space per worker"
    )
    ap.add_argument("--pdf-backend", default="auto", help="auto | pdfium | pypdf | marker")
    ap.add_argument("--list", action="store_true", help="every file not ingested, warnings")
    ap.add_argument("--json", action="store_true", help="one JSON record per file")
    args = ap.parse_args(argv)
    pdfs = find_pdfs(args.paths, args.listed)
    if not pdfs:
        ap.error("no PDF found")
    logging.getLogger().addHandler(logging.NullHandler())  # the workers' logs: kept per file
    t0 = time.perf_counter()
    results = list(
        supervise(
            partial(check_one, args.pdf_backend),
            pdfs,
            _failed,
            workers=args.workers,
            timeout=args.timeout,
            memory_mb=args.memory_mb,
        )
    )
    results.sort(key=lambda r: pdfs.index(r.path))
    if args.json:
        for r in results:
            print(json.dumps(asdict(r)))
        return 1 if any(r.outcome == "failed" for r in results) else 0
    print(table(results))
    print(f"wall clock {time.perf_counter() - t0:.1f} s, {args.workers} workers")
    if args.list:
        print()
        print(details(results))
    return 1 if any(r.outcome == "failed" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
