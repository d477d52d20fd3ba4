#!/usr/bin/env python3
"""Write each PDF's outline (bookmarks) as heading ground truth: ``<stem>.outline.json``.

The format is the corpus's: ``[{"level": 1 = top, "title": str, "page": 0-based}]``, depth
first, bookmarks without a title or a resolvable page left out. PDFs without an outline get
no file (and are named on stderr).

    python scripts/devsets/outline_truth.py DIR [DIR ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import PdfReadError


def outline_entries(path: Path) -> list[dict[str, Any]]:
    """The bookmarks of ``path``, depth first, as ``{level, title, page}``."""
    reader = PdfReader(path)
    out: list[dict[str, Any]] = []

    def walk(items: list[Any], level: int) -> None:
        for it in items:
            if isinstance(it, list):
                walk(it, level + 1)
                continue
            title = " ".join(str(it.title or "").split())
            try:
                page = reader.get_destination_page_number(it)
            except Exception:  # a broken destination: the entry is left out
                page = None
            if title and page is not None and page >= 0:
                out.append({"level": level, "title": title, "page": page})

    walk(reader.outline, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args(argv)
    for folder in args.dirs:
        for pdf in sorted(folder.glob("*.pdf")):
            try:
                entries = outline_entries(pdf)
            except PdfReadError as exc:
                print(f"{pdf}: unreadable ({exc})", file=sys.stderr)
                continue
            if not entries:
                print(f"{pdf}: no outline", file=sys.stderr)
                continue
            target = pdf.with_name(pdf.stem + ".outline.json")
            target.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
            pages = len(PdfReader(pdf).pages)
            print(f"{pdf.name}: {len(entries)} entries, {pages} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
