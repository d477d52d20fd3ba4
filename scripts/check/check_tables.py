"""How much of each FinanceBench evidence page's numbers Folio's PDF text keeps, and how
many of them land in pipe-table rows rather than flat text.

python scripts/check/check_tables.py [DATASET_DIR] [--only SUBSTRING]

For every distinct (document, evidence page) of ``questions.jsonl`` (pages are 0-based):
the numbers of ``evidence_text`` (two or more digits; ``$``, commas and parentheses
ignored) counted as a multiset, how many of them occur in the extracted text of that page,
and how many of those occur on a pipe-table row (a line starting with ``|``). A page is a
*table page* when at least half of its found numbers are in table rows.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from pipeline import extract_file

DEFAULT = Path(__file__).resolve().parents[3] / "shared/corpus/qa/financebench-dev"
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> Counter[str]:
    """Numbers with at least two digits, commas dropped (``(1,577)`` → ``1577``)."""
    out: Counter[str] = Counter()
    for m in _NUMBER.finditer(text):
        n = m.group().replace(",", "").rstrip(".")
        if sum(ch.isdigit() for ch in n) >= 2:
            out[n] += 1
    return out


def evidence_pages(dataset: Path) -> dict[str, dict[int, str]]:
    """doc name → 0-based page → evidence text (the longest one given for that page)."""
    out: dict[str, dict[int, str]] = defaultdict(dict)
    for line in (dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        for ev in q["evidence"]:
            page, text = int(ev["evidence_page_num"]), ev["evidence_text"]
            if len(text) > len(out[q["doc_name"]].get(page, "")):
                out[q["doc_name"]][page] = text
    return out


def check_page(page_text: str, evidence: str) -> tuple[int, int, int]:
    """(numbers in the evidence, found in the page text, found on table rows)."""
    want = numbers(evidence)
    rows = "\n".join(ln for ln in page_text.splitlines() if ln.startswith("|"))
    have, in_rows = numbers(page_text), numbers(rows)
    found = sum(min(k, have[n]) for n, k in want.items())
    tabled = sum(min(k, in_rows[n]) for n, k in want.items())
    return sum(want.values()), found, tabled


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--only", default="", help="documents whose name contains this")
    args = ap.parse_args()
    totals = Counter[str]()
    print(f"{'document':40} {'page':>4} {'nums':>5} {'found':>6} {'rows':>5}")
    for doc, pages in sorted(evidence_pages(args.dataset).items()):
        if args.only not in doc:
            continue
        d = extract_file(args.dataset / "pdfs" / f"{doc}.pdf", pdf_backend="pdfium")
        for page, evidence in sorted(pages.items()):
            p = d.pages[page]
            n, found, tabled = check_page(d.text[p.char_start : p.char_end], evidence)
            print(f"{doc:40} {page:4} {n:5} {found:6} {tabled:5}")
            totals.update(nums=n, found=found, rows=tabled, pages=1)
            totals["table_pages"] += found > 0 and tabled * 2 >= found
    n = max(totals["nums"], 1)
    print(
        f"\n{totals['pages']} evidence pages, {totals['nums']} numbers: "
        f"{totals['found']} found ({totals['found'] / n:.0%}), "
        f"{totals['rows']} on table rows ({totals['rows'] / n:.0%}), "
        f"{totals['found'] - totals['rows']} in flat text; "
        f"{totals['table_pages']} table pages"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
