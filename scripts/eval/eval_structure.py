#!/usr/bin/env python3
"""Book structure against the EPUB nav: nesting, breadcrumbs, duplicates and markup.

For each EPUB of ``<corpus>/epub`` with a ``<stem>.toc.json`` ([{level, title, href}], the
nav as truth), the book is extracted and chunked as ``folio chunk`` would; so is its
flat-text edition (``flat_text``: the title, a contents block, the body without markup,
read as a ``.txt`` file) against the same truth; and so is each PDF of ``<corpus>/pdf``
with an ``<stem>.outline.json`` read with ``--no-outline`` (outline as truth, matched on
the same page ±1). Then:

- recall: the share of the top two TOC levels found as a heading line with the same
  normalized title (``eval_headings.norm``), in order, *nested as in the TOC*: the nearest
  enclosing heading of the found line is the one found for the entry's TOC parent (or
  neither has a parent);
- precision: of the heading lines at depth one or two of the found heading tree (only depth
  one when the TOC is flat), the share that are such a TOC entry;
- breadcrumb: over every chunk (both tiers) after the first found entry, the share whose
  breadcrumb holds the title of the TOC entry (top two levels) it falls under: the last one
  whose heading line starts at or before the chunk, or, when the chunk holds the heading
  lines of several entries (small sections packed together), the deepest entry enclosing
  them all; a chunk holding several top-level entries is counted apart ("spanning");
- duplicates: heading lines repeating the one before (the same title with case and
  punctuation folded, or the same normalized title with nothing between the two lines);
- breadcrumb duplicates: chunks whose breadcrumb repeats an item in the next one (the same
  words, case and punctuation aside: ``Georgia > GEORGIA > Climate``);
- markup: titles (heading lines, breadcrumb items, section titles) holding markup
  characters (``*``, a backtick, an emphasis ``_``, a backslash escape, an HTML entity or tag).

Entries pointing at the navigation document are left out of the truth: Folio drops that
document from the text as table-of-contents boilerplate.

    python scripts/eval/eval_structure.py [--corpus $FOLIO_DATA/corpus] [--only NAME]
        [--json out.json] [--extra DIR ...] [--split eval/pdf-outline/split.json]

``--extra`` adds the outlined PDFs of another folder; ``--split`` reports the PDFs of each
half apart (see ``eval_headings.py``).

Goals (issue 13): EPUB recall ≥ 0.98, breadcrumb ≥ 0.95, 0 duplicates, 0 markup; flat
text recall ≥ 0.90 and precision ≥ 0.80 on every book.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import tempfile
import time
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import add_corpus  # noqa: E402  (scripts/ is on the path)
from eval_headings import (  # noqa: E402  (scripts/ on path)
    Found,
    detected_headings,
    load_split,
    match,
    norm,
)

from pipeline import chunk_document  # noqa: E402
from pipeline.errors import ExtractionError  # noqa: E402
from pipeline.extract.dispatch import extract_path  # noqa: E402
from pipeline.extract.pdf.reader import extract_lines, open_reader  # noqa: E402
from pipeline.model import Chunk, Document  # noqa: E402
from pipeline.parse.headings import parse_text  # noqa: E402
from pipeline.text.fences import fenced_lines  # noqa: E402

MARKUP = re.compile(
    r"[*`]|\\[^\w\s]|&(?:#\d+|#x[0-9a-f]+|[a-z]+);|</?[a-z][^>]*>|(?<!\w)_|_(?!\w)", re.I
)


@dataclass
class BookScore:
    name: str
    truth: int = 0  # TOC entries of the top two levels
    detected: int = 0  # heading lines at depth <= 2 (1 for a flat TOC)
    nested: int = 0  # truth entries found, nested as in the TOC
    precise: int = 0  # of ``detected``, those that are a top-two TOC entry
    crumb_ok: int = 0
    crumb_n: int = 0
    chapter_ok: int = 0  # chunks whose breadcrumb holds their top-level entry's title
    chapter_n: int = 0
    spanning: int = 0  # chunks holding several top-level entries: not counted
    duplicates: int = 0
    crumb_duplicates: int = 0  # chunks whose breadcrumb repeats an item in the next one
    markup: int = 0
    markup_examples: tuple[str, ...] = ()
    headings: int = 0
    chunks: int = 0
    mode: str = ""
    error: str = ""
    seconds: float = 0.0
    mono_lines: int = 0  # PDFs: lines set in a monospaced font (code listings)
    mono_fenced: int = 0  # ... of which the text holds inside a fenced code block

    @property
    def recall(self) -> float:
        return self.nested / self.truth if self.truth else 0.0

    @property
    def precision(self) -> float:
        return self.precise / self.detected if self.detected else 0.0

    @property
    def crumb(self) -> float:
        return self.crumb_ok / self.crumb_n if self.crumb_n else 0.0

    @property
    def chapter(self) -> float:
        return self.chapter_ok / self.chapter_n if self.chapter_n else 0.0


def duplicates(found: list[Found], text: str) -> int:
    """Heading lines repeating the one before: the same title (case and punctuation folded),
    or the same normalized title with nothing but space between the two lines."""
    count = 0
    for a, b in itertools.pairwise(found):
        same = _fold(a.title) == _fold(b.title)
        adjacent = not text[a.start : b.start].split("\n", 1)[-1].strip()
        count += same or (adjacent and norm(a.title) == norm(b.title))
    return count


def _fold(title: str) -> str:
    return re.sub(r"[\W_]+", "", title.casefold())


def parents(levels: list[int]) -> list[int]:
    """Index of each item's nearest earlier item with a lower level (-1 for none)."""
    out: list[int] = []
    stack: list[int] = []
    for i, lvl in enumerate(levels):
        while stack and levels[stack[-1]] >= lvl:
            stack.pop()
        out.append(stack[-1] if stack else -1)
        stack.append(i)
    return out


def depths(levels: list[int]) -> list[int]:
    par = parents(levels)
    out: list[int] = []
    for p in par:
        out.append(1 if p < 0 else out[p] + 1)
    return out


def structure_scores(
    s: BookScore,
    truth: list[dict[str, Any]],
    found: list[Found],
    chunks: list[Chunk],
    text: str,
    *,
    paged: bool = False,
) -> None:
    """Fill ``s`` from the truth TOC, the heading lines found and the chunks (``paged``:
    a PDF outline, matched on the same page ±1 too)."""
    t_levels = [int(e["level"]) for e in truth]
    t_depth = depths(t_levels)
    t_parent = parents(t_levels)
    top = {t for t, d in enumerate(t_depth) if d <= 2}
    f_levels = [f.level for f in found]
    f_parent = parents(f_levels)
    f_depth = depths(f_levels)
    pairs = match(truth, found, paged=paged)  # found index -> truth index
    of_truth = {t: j for j, t in pairs.items()}
    nested = {
        t
        for t in top
        if t in of_truth
        and (
            (t_parent[t] < 0 and f_parent[of_truth[t]] < 0)
            or (t_parent[t] >= 0 and f_parent[of_truth[t]] == of_truth.get(t_parent[t], -2))
        )
    }
    s.truth = len(top)
    s.nested = len(nested)
    limit = min(2, max(t_depth, default=1))
    counted = [j for j, d in enumerate(f_depth) if d <= limit]
    s.detected = len(counted)
    s.precise = sum(1 for j in counted if pairs.get(j) in top)
    s.headings = len(found)
    s.duplicates = duplicates(found, text)
    s.crumb_duplicates = sum(
        any(_fold(a) == _fold(b) for a, b in itertools.pairwise(c.breadcrumb)) for c in chunks
    )
    titles = [f.title for f in found]
    titles += [t for c in chunks for t in (*c.breadcrumb[1:], c.section_title)]
    bad = sorted({t for t in titles if MARKUP.search(t)})
    s.markup = len(bad)
    s.markup_examples = tuple(bad[:3])
    anchors = sorted((found[of_truth[t]].start, t) for t in top if t in of_truth)
    s.chunks = len(chunks)
    for c in chunks:
        entry = entry_of(c, anchors, t_parent)
        if entry is None:
            continue
        if entry < 0:
            s.spanning += 1
            continue
        crumbs = {norm(b) for b in c.breadcrumb}
        s.crumb_n += 1
        s.crumb_ok += norm(str(truth[entry]["title"])) in crumbs
        s.chapter_n += 1
        s.chapter_ok += norm(str(truth[ancestry(entry, t_parent)[-1]]["title"])) in crumbs


def entry_of(c: Chunk, anchors: list[tuple[int, int]], parent: list[int]) -> int | None:
    """The TOC entry chunk ``c`` falls under: the one whose heading line is last at or before
    its start, or, when heading lines of entries lie inside it (small sections packed
    together), the deepest entry enclosing them all. None before the first entry, -1 when
    the chunk spans top-level entries."""
    starts = [a for a, _ in anchors]
    lo = bisect_left(starts, c.char_start)
    hi = bisect_left(starts, c.char_end)
    inside = [t for _, t in anchors[lo:hi]]
    if not inside:
        k = bisect_right(starts, c.char_start) - 1
        return anchors[k][1] if k >= 0 else None
    chains = [ancestry(t, parent) for t in inside]
    common = [t for t in chains[0] if all(t in ch for ch in chains[1:])]
    return common[0] if common else -1


def ancestry(t: int, parent: list[int]) -> list[int]:
    """``t`` and its TOC ancestors, deepest first."""
    out = [t]
    while parent[out[-1]] >= 0:
        out.append(parent[out[-1]])
    return out


def run_one(path: Path, truth_path: Path) -> BookScore:
    s = BookScore(path.name)
    t0 = time.perf_counter()
    try:
        doc = extract_path(path)
    except ExtractionError as exc:
        s.error = f"{type(exc).__name__}: {exc.reason}"
        return s
    s.mode = str(doc.heading_mode or "")
    truth = _truth(path, truth_path, doc)
    structure_scores(s, truth, detected_headings(doc), chunk_document(doc), doc.text)
    s.seconds = time.perf_counter() - t0
    return s


_IMAGE_LINE = re.compile(r"^\(image: [^\n]*\)$", re.M)
_ATX_MARK = re.compile(r"^ {0,3}#{1,6}[ \t]+", re.M)
_INLINE = re.compile(r"\*\*|\*|\\(?=[^\w\s])|(?<!\w)_|_(?!\w)")


def flat_text(doc: Document, truth: list[dict[str, Any]]) -> str:
    """The book as a plain-text edition would print it: the title, a contents block (one
    line per TOC entry, indented four spaces a level as a nested nav list reads), then
    the body with heading markers, inline markup and image placeholders removed."""
    top = min((int(e["level"]) for e in truth), default=1)
    contents = "\n".join("    " * (int(e["level"]) - top) + str(e["title"]) for e in truth)
    body = _INLINE.sub("", _ATX_MARK.sub("", _IMAGE_LINE.sub("", doc.text)))
    body = re.sub(r"\n{3,}", "\n\n", body)
    return f"{doc.title}\n\nContents\n\n{contents}\n\n{body}"


def text_headings(doc: Document) -> list[Found]:
    """The heading blocks the chunker reads in a flat text (ATX lines or heuristics)."""
    blocks = parse_text(doc.text)[0]
    return [Found(b.level, b.title, None, b.start) for b in blocks if b.kind == "heading"]


def run_text(path: Path, truth_path: Path, tmp: Path) -> BookScore:
    """The flat-text edition of an EPUB, written to ``tmp`` and read as a ``.txt`` file."""
    truth = _truth(path, truth_path, extract_path(path))
    s = BookScore(path.stem + ".txt")
    t0 = time.perf_counter()
    txt = tmp / (path.stem + ".txt")
    txt.write_text(flat_text(extract_path(path), truth), encoding="utf-8")
    doc = extract_path(txt)
    s.mode = str(doc.heading_mode or "")
    structure_scores(s, truth, text_headings(doc), chunk_document(doc), doc.text)
    s.seconds = time.perf_counter() - t0
    return s


def run_pdf(path: Path, truth_path: Path) -> BookScore:
    """A PDF read with ``--no-outline`` (font evidence), its outline as truth."""
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    s = BookScore(path.name)
    t0 = time.perf_counter()
    try:
        doc = extract_path(path, pdf_backend="pdfium", use_outline=False)
    except ExtractionError as exc:
        s.error = f"{type(exc).__name__}: {exc.reason}"
        return s
    s.mode = str(doc.heading_mode or "")
    found = detected_headings(doc)
    structure_scores(s, truth, found, chunk_document(doc), doc.text, paged=True)
    s.mono_lines, s.mono_fenced = code_recovered(path, doc)
    s.seconds = time.perf_counter() - t0
    return s


def code_recovered(path: Path, doc: Document) -> tuple[int, int]:
    """(lines of the PDF set in a monospaced font, those the text holds in a fenced block)."""
    lines = extract_lines(path, open_reader(path), workers=1)
    mono = [ln.text.strip() for page in lines if isinstance(page, list) for ln in page if ln.mono]
    text = doc.text.split("\n")
    fenced = {text[i].strip() for i in fenced_lines(doc.text)}
    return len(mono), sum(1 for t in mono if t in fenced)


def code_table(rows: list[BookScore]) -> str:
    out = ["| file | monospaced lines | in fenced code | share |", "|---|---:|---:|---:|"]
    for r in rows:
        if r.mono_lines:
            out.append(
                f"| {r.name} | {r.mono_lines} | {r.mono_fenced}"
                f" | {r.mono_fenced / r.mono_lines:.3f} |"
            )
    total = sum(r.mono_lines for r in rows)
    fenced = sum(r.mono_fenced for r in rows)
    out.append(f"| **all** | {total} | {fenced} | **{fenced / max(1, total):.3f}** |")
    return "\n".join(out)


def _truth(path: Path, truth_path: Path, doc: Document) -> list[dict[str, Any]]:
    """The TOC entries, less those pointing at the navigation document (dropped from the
    text as table-of-contents boilerplate)."""
    truth: list[dict[str, Any]] = json.loads(truth_path.read_text(encoding="utf-8"))
    return without_nav(truth, doc)


def without_nav(truth: list[dict[str, Any]], doc: Document) -> list[dict[str, Any]]:
    """The TOC entries of an EPUB's ``doc`` less those whose ``href`` points at its
    navigation document (dropped from the text as table-of-contents boilerplate)."""
    nav_doc = str(doc.info.extra.get("nav_source", "")).partition(":")[2]
    return [e for e in truth if not (nav_doc and _same_file(e.get("href"), nav_doc))]


def _same_file(href: object, name: str) -> bool:
    target = str(href or "").split("#", 1)[0]
    return bool(target) and (name == target or name.endswith("/" + target))


def table(rows: list[BookScore]) -> str:
    out = [
        "| file | mode | TOC top-2 | found (nested) | recall | depth≤2 lines | precision"
        " | breadcrumb (ok/n) | spanning | duplicates | crumb dups | markup | s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.error:
            out.append(f"| {r.name} | error | {r.truth} | | | | | | | | | | |  ← {r.error}")
            continue
        out.append(
            f"| {r.name} | {r.mode} | {r.truth} | {r.nested} | {r.recall:.3f} | {r.detected}"
            f" | {r.precision:.3f} | {r.crumb:.3f} ({r.crumb_ok}/{r.crumb_n}) | {r.spanning}"
            f" | {r.duplicates} | {r.crumb_duplicates}"
            f" | {r.markup} | {r.seconds:.1f} |"
        )
    ok = [r for r in rows if not r.error]
    if ok:
        truth = sum(r.truth for r in ok)
        n = sum(r.crumb_n for r in ok)
        out.append(
            f"| **all** | | {truth} | {sum(r.nested for r in ok)}"
            f" | **{sum(r.nested for r in ok) / max(1, truth):.3f}**"
            f" | {sum(r.detected for r in ok)}"
            f" | **{sum(r.precise for r in ok) / max(1, sum(r.detected for r in ok)):.3f}**"
            f" | **{sum(r.crumb_ok for r in ok) / max(1, n):.3f}** | {sum(r.spanning for r in ok)}"
            f" | {sum(r.duplicates for r in ok)} | {sum(r.crumb_duplicates for r in ok)}"
            f" | {sum(r.markup for r in ok)} | |"
        )
    examples = [f"{r.name}: {list(r.markup_examples)}" for r in ok if r.markup_examples]
    if examples:
        out.append("\nMarkup in titles, e.g.: " + "; ".join(examples))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_corpus(ap)
    ap.add_argument("--only", default="", help="substring of file names to keep")
    ap.add_argument("--json", type=Path, help="write all scores here")
    ap.add_argument(
        "--extra", type=Path, action="append", default=[], help="another folder of outlined PDFs"
    )
    ap.add_argument("--split", type=Path, help="JSON {tuning: [names], report: [names]}")
    args = ap.parse_args(argv)
    epubs = sorted(
        (p, p.with_name(p.stem + ".toc.json"))
        for p in (args.corpus / "epub").glob("*.epub")
        if p.with_name(p.stem + ".toc.json").is_file() and args.only in p.name
    )
    pdfs = sorted(
        (
            (p, p.with_name(p.stem + ".outline.json"))
            for folder in (args.corpus / "pdf", *args.extra)
            for p in folder.glob("*.pdf")
            if p.with_name(p.stem + ".outline.json").is_file() and args.only in p.name
        ),
        key=lambda pt: pt[0].name,
    )
    if not epubs and not pdfs:
        print(
            f"no EPUB with a .toc.json nor PDF with an .outline.json under {args.corpus}",
            file=sys.stderr,
        )
        return 2
    rows: list[BookScore] = []
    if epubs:
        nav = [run_one(p, t) for p, t in epubs]
        print("## EPUB structure, nav as truth\n")
        print(table(nav), flush=True)
        with tempfile.TemporaryDirectory(prefix="folio-flat-") as tmp:
            flat = [run_text(p, t, Path(tmp)) for p, t in epubs]
        print("\n## The same books as flat text (.txt), nav as truth\n")
        print(table(flat), flush=True)
        rows += nav + flat
    if pdfs:
        paged = [run_pdf(p, t) for p, t in pdfs]
        print("\n## PDFs with --no-outline (font evidence), outline as truth\n")
        print(table(paged), flush=True)
        split = load_split(args.split)
        for half in ("tuning", "report") if split else ():
            group = [r for r in paged if split.get(r.name) == half]
            if group:
                print(f"\n## PDFs with --no-outline, {half} half\n")
                print(table(group), flush=True)
        print("\n## PDF code listings: monospaced lines recovered as fenced code\n")
        print(code_table(paged), flush=True)
        rows += paged
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    asdict(r)
                    | {"recall": r.recall, "precision": r.precision, "breadcrumb": r.crumb}
                    for r in rows
                ],
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
