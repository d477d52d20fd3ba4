#!/usr/bin/env python3
"""How far can any reader of the flat text get on the ``manual`` kind (eval/flat-text)?

A ``manual`` text is an mdBook's pages in SUMMARY.md order with their Markdown marks
stripped (``devset_texts.mdbook_text``); its truth is SUMMARY.md, the book's navigation.
This script gives a reader that knows every heading line exactly, read from the pages'
Markdown, and scores what it would output with ``eval_structure.structure_scores``:

- every heading at its Markdown level (what the Markdown itself says);
- every heading at one level (what a text with no marks can say of levels);
- the first heading of each page only, at one level;
- the first heading of each page at its SUMMARY.md level (the truth's own nesting).

A rule that reads the text can do no better than the reader that knows the lines and
their Markdown levels, unless it knows which lines open a page and how SUMMARY.md nests
the pages, which the text does not print.

    python scripts/eval/manual_ceiling.py --mirrors /work/.mirror --docs /tmp/dev/flat-text/docs
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: F401  (puts every room of scripts/ on the path)
from devset_sources import Mirrors, Source
from devset_texts import md_plain
from devset_truth import summary_entries
from eval_headings import Found
from eval_structure import BookScore, structure_scores

ROOT = Path(__file__).resolve().parents[2]
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*)$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Heading:
    md_level: int  # its number of #
    title: str  # as the flat text prints it
    opens_page: bool
    summary_level: int  # its page's level in SUMMARY.md
    start: int  # offset in the flat text


def page_headings(md: str, plain: str, offset: int, summary_level: int) -> list[Heading]:
    """The ATX headings of one page (outside fences), placed in its flat text."""
    out: list[Heading] = []
    fence, at = False, 0
    for line in md.split("\n"):
        if _FENCE.match(line):
            fence = not fence
            continue
        m = None if fence else _ATX.match(line)
        if m is None:
            continue
        title = md_plain(m.group(2).strip()).strip()
        i = plain.find(title, at)
        if title and i >= 0:
            at = i + len(title)
            out.append(Heading(len(m.group(1)), title, not out, summary_level, offset + i))
    return out


def book_headings(mirrors: Mirrors, entry: dict[str, Any], text: str) -> list[Heading]:
    """Every heading of the book, placed in ``text`` as ``mdbook_text`` wrote it (checked)."""
    src = Source.parse(entry["source"].split()[0])
    base = src.path.rstrip("/")
    present = set(mirrors.files(src))
    summary = mirrors.read(src.at(f"{base}/SUMMARY.md")).decode("utf-8")
    parts, heads = [entry["book_title"], ""], []
    offset = len(entry["book_title"]) + 2
    for level, _name, href in summary_entries(summary):
        path = f"{base}/{href}"
        if path not in present:
            continue
        md = mirrors.read(src.at(path)).decode("utf-8", "replace")
        plain = md_plain(md)
        heads += page_headings(md, plain, offset, level)
        parts.append(plain)
        offset += len(plain) + 1
    if "\n".join(parts) != text:
        raise SystemExit(f"{entry['name']}: the text is not the one the manifest builds")
    return heads


def readers(heads: list[Heading]) -> dict[str, list[Found]]:
    """What each reader outputs."""
    return {
        "every heading, Markdown levels": [
            Found(h.md_level, h.title, None, h.start) for h in heads
        ],
        "every heading, one level": [Found(1, h.title, None, h.start) for h in heads],
        "page titles, one level": [Found(1, h.title, None, h.start) for h in heads if h.opens_page],
        "page titles, SUMMARY levels": [
            Found(h.summary_level, h.title, None, h.start) for h in heads if h.opens_page
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="the snapshots (fetch tool)")
    ap.add_argument("--docs", type=Path, required=True, help="the built flat-text docs")
    args = ap.parse_args()
    manifest = json.loads((ROOT / "eval/flat-text/MANIFEST.json").read_text(encoding="utf-8"))
    mirrors = Mirrors(args.mirrors)
    print("| text | half | reader | headings | recall | precision |")
    print("|---|---|---|---:|---:|---:|")
    for entry in manifest:
        if entry.get("kind") != "manual":
            continue
        name = entry["name"]
        with gzip.open(args.docs / f"{name}.txt.gz", "rt", encoding="utf-8") as f:
            text = f.read()
        truth = json.loads((args.docs / f"{name}.truth.json").read_text(encoding="utf-8"))
        for reader, found in readers(book_headings(mirrors, entry, text)).items():
            s = BookScore(name)
            structure_scores(s, truth, found, [], text)
            recall, precision = s.nested / max(1, s.truth), s.precise / max(1, s.detected)
            row = f"| {name} | {entry['half']} | {reader} | {len(found)} |"
            print(f"{row} {recall:.3f} | {precision:.3f} |")


if __name__ == "__main__":
    main()
