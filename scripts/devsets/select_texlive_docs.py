#!/usr/bin/env python3
"""Select, by a fixed rule, PDF manuals of TeX Live's Debian documentation packages for
the ``pdftotext`` kinds of the flat-text dev set (eval/flat-text/README.md, *TeX Live
manuals*). Nothing here reads how Folio scores.

    python scripts/devsets/select_texlive_docs.py --debs DIR --work DIR [--count 30]
        [--json selection.json] [--log rejects.tsv]

``--debs``: the ``.deb`` files ``apt-get download texlive-*-doc`` left; each is unpacked
under ``--work`` (``dpkg-deb -x``) unless already there. A PDF under
``usr/share/doc/texlive-doc/`` is a candidate when:

- its licence (the package's ``Licenses.gz``, from the TeX Catalogue) is a free one of
  ``FREE`` (``other-free``, ``collection`` and unknown entries are skipped);
- its family (the folder under ``texlive-doc/TREE/``) is none of ``ALREADY`` (documents
  the pdftotext kinds hold already: hyperref, beamer, biblatex, ...);
- 10 to 300 pages, none of the first three landscape (slides);
- an outline (``outline_truth.outline_entries``, the truth as built) of >= 8 entries on
  >= 2 levels;
- ``pdftotext`` gives > 500 characters a page on average;
- English: >= 15 % of its words are among ``ENGLISH`` (common English function words).

Then, in order of sha1 of the path, packages in turn (round robin, by name): each turn
takes from its package the first candidate whose document class (``\\documentclass`` of a
``.tex``/``.dtx`` of the same stem beside it, else ``unknown``) is the least taken so far,
at most ``PER_FAMILY`` per family, until ``--count`` are taken.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from pypdf import PdfReader

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from devset_texlive import DOC_ROOT, licence_of, licence_table  # noqa: E402
from outline_truth import outline_entries  # noqa: E402

from pipeline.ingest.files import file_sha256  # noqa: E402

FREE = re.compile(
    r"^(lppl[\d.a-c]*|gpl[\d+]*|lgpl[\d.+]*|fdl|mit|bsd\d?|pd|ofl|knuth|apache2|cc0"
    r"|cc-by(-sa)?-\d|x11|isc|artistic\d?|gfl|gfsl)$"
)
ALREADY = {"hyperref", "beamer", "biblatex", "minted", "nicematrix", "piton", "kaobook"}
ALREADY |= {"tufte-latex"}
ENGLISH = {"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "with"}
ENGLISH |= {"be", "on", "are", "this", "by", "or", "an", "can", "you", "if", "not", "which"}
ENGLISH |= {"from", "at", "will", "use", "used", "when", "all", "these", "may", "one", "has"}
ENGLISH |= {"have", "must", "also"}
PER_FAMILY = 1  # the brief allows 2; one gives more layouts


@dataclass(frozen=True)
class Measures:
    """What the checks measured of a PDF that passed them."""

    pages: int
    entries: int
    levels: int
    chars_per_page: int
    english: float


@dataclass(frozen=True)
class Candidate:
    """A PDF that passed every check, with what the manifest records of it."""

    package: str
    version: str
    deb_sha256: str
    path: str
    sha256: str
    family: str
    licence: str
    doc_class: str
    measures: Measures


def unpack(deb: Path, work: Path) -> Path:
    target = work / deb.stem
    if not (target / "usr").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    return target


def doc_class(pdf: Path) -> str:
    for suffix in (".tex", ".dtx"):
        src = pdf.with_suffix(suffix)
        if src.is_file():
            text = src.read_text(encoding="latin-1")
            if m := re.search(
                r"^[^%\n]*\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}", text, re.M
            ):
                return m.group(1).strip()
    return "unknown"


def english_share(text: str) -> float:
    words = re.findall(r"[a-z]+", text.lower())
    return sum(w in ENGLISH for w in words) / max(1, len(words))


def check_pdf(pdf: Path) -> tuple[str | None, Measures | None]:
    """Why ``pdf`` is not taken (None: taken) and its measures."""
    try:
        reader = PdfReader(pdf)
        pages = len(reader.pages)
        if not 10 <= pages <= 300:
            return f"{pages} pages", None
        for page in reader.pages[:3]:
            w, h = float(page.mediabox.width), float(page.mediabox.height)
            if (page.rotation or 0) % 180:
                w, h = h, w
            if w > h:
                return "landscape page", None
        outline = outline_entries(pdf)
    except Exception as exc:  # a PDF pypdf cannot read is skipped, named in the log
        return f"unreadable: {type(exc).__name__}", None
    levels = len({e["level"] for e in outline})
    if len(outline) < 8 or levels < 2:
        return f"outline {len(outline)} entries, {levels} levels", None
    proc = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True)
    text = proc.stdout.decode("utf-8", "replace")
    per_page = len(text) / pages
    if per_page <= 500:
        return f"{per_page:.0f} chars/page", None
    share = english_share(text)
    if share < 0.15:
        return f"english share {share:.3f}", None
    return None, Measures(pages, len(outline), levels, int(per_page), round(share, 3))


def candidates(deb: Path, work: Path, log: list[str]) -> list[Candidate]:
    package, version, _ = deb.name.split("_")
    root = unpack(deb, work)
    licences = licence_table(
        next((root / "usr/share/doc" / package).glob("Licenses.gz")).read_bytes()
    )
    deb_sha = file_sha256(deb)
    out = []
    for pdf in sorted((root / DOC_ROOT).rglob("*.pdf")):
        path = str(pdf.relative_to(root))
        if pdf.is_symlink() or not pdf.is_file():
            log.append(f"{package}\t{path}\tnot a regular file")
            continue
        family = path.removeprefix(DOC_ROOT).split("/")[1]
        found = licence_of(licences, path)
        tags = found[1].split() if found else []
        if not tags or not all(FREE.match(t) for t in tags):
            log.append(f"{package}\t{path}\tlicence {found}")
            continue
        if family in ALREADY:
            log.append(f"{package}\t{path}\talready in the set")
            continue
        why, measures = check_pdf(pdf)
        if why or measures is None:
            log.append(f"{package}\t{path}\t{why}")
            continue
        tag = " ".join(tags)
        sha = file_sha256(pdf)
        out.append(
            Candidate(package, version, deb_sha, path, sha, family, tag, doc_class(pdf), measures)
        )
    return out


def select(pool: list[Candidate], count: int) -> list[Candidate]:
    """Round robin over the packages, sha1 order within each, the least taken class."""
    by_package: dict[str, list[Candidate]] = {}
    for c in sorted(pool, key=lambda c: hashlib.sha1(c.path.encode()).hexdigest()):
        by_package.setdefault(c.package, []).append(c)
    taken: list[Candidate] = []
    classes: Counter[str] = Counter()
    families: Counter[str] = Counter()
    while len(taken) < count and any(by_package.values()):
        for package in sorted(by_package):
            left = [c for c in by_package[package] if families[c.family] < PER_FAMILY]
            by_package[package] = left
            if not left or len(taken) >= count:
                continue
            pick = min(left, key=lambda c: classes[c.doc_class])  # first of the least taken
            left.remove(pick)
            taken.append(pick)
            classes[pick.doc_class] += 1
            families[pick.family] += 1
    return taken


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--debs", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--json", type=Path, help="write the selection here")
    ap.add_argument("--log", type=Path, help="write each PDF not taken, and why, here")
    args = ap.parse_args(argv)
    log: list[str] = []
    pool: list[Candidate] = []
    for deb in sorted(args.debs.glob("texlive-*-doc_*_all.deb")):
        found = candidates(deb, args.work, log)
        print(f"{deb.name}: {len(found)} candidates", file=sys.stderr)
        pool += found
    chosen = select(pool, args.count)
    if args.log:
        args.log.write_text("\n".join(log) + "\n", encoding="utf-8")
    rows = [asdict(c) for c in chosen]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    reasons = Counter(re.sub(r"[\d.]+ ?", "", line.split("\t")[2])[:24] for line in log)
    print(
        f"{len(pool)} candidates, {len(chosen)} taken; not taken: {dict(reasons)}", file=sys.stderr
    )
    for c in chosen:
        m = c.measures
        print(f"{c.package}\t{c.family}\t{c.doc_class}\t{m.pages}\t{m.entries}\t{c.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
