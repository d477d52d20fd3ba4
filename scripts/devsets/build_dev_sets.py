#!/usr/bin/env python3
"""Rebuild the two structure dev sets from public repository snapshots and check every
file against the sha256 its MANIFEST.json gives.

    python scripts/devsets/build_dev_sets.py --mirrors /work/.mirror [--out DIR] [--check]
        [--only SUBSTRING]

- ``eval/flat-text``: per document ``flat-text/docs/NAME.txt.gz`` (the text, UTF-8,
  gzip) and ``NAME.truth.json``, made per kind as eval/flat-text/README.md describes
  (``devset_texts``, ``devset_truth``, ``devset_gutenberg``).
- ``eval/pdf-outline``: per file ``pdf-outline/FILE.pdf`` as committed in its repository
  and ``FILE.outline.json``, its bookmarks (``outline_truth.outline_entries``).

The sources are read at the manifest's pinned commits from ``--mirrors`` (one git snapshot
per repository, ``OWNER+NAME/repo``, as ``fetch github:OWNER/NAME`` leaves it). A file
is written under ``--out`` (default ``$FOLIO_DATA/dev``) only when its bytes have the
manifest's sha256; a missing mirror, a file that differs (named with both hashes) or a
tool that is missing is reported, and the exit status is 1. ``--check`` builds nothing
and checks the files already under ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from data_dir import data_dir  # noqa: E402
from devset_gutenberg import gutenberg_truth  # noqa: E402
from devset_sources import DevSetError, Mirrors, Source  # noqa: E402
from devset_texlive import DebSource, texlive_pdf  # noqa: E402
from devset_texts import (  # noqa: E402
    decode_gutenberg,
    epub_text,
    makeinfo_version,
    mdbook_text,
    pandoc_file_text,
    pandoc_text,
    pdftotext_text,
    texinfo_text,
    tool_version,
)
from devset_truth import rfc_truth  # noqa: E402
from outline_truth import outline_entries  # noqa: E402

FLAT = ROOT / "eval" / "flat-text" / "MANIFEST.json"
PDF = ROOT / "eval" / "pdf-outline" / "MANIFEST.json"
Entry = dict[str, Any]
# JSON indent of the truth files as the set was first written (part of their sha256)
TRUTH_INDENT = {"rfc": 0, "epub": 0, "manual": 0, "gutenberg": 1, "texinfo": 1}
TRUTH_INDENT |= {"pdftotext": 1, "pdftotext-layout": 1, "pandoc": 1}
# the exporter each kind is written by, whose version the manifest records (``tool_version``)
TOOLS = {"pdftotext": "pdftotext", "pdftotext-layout": "pdftotext", "pandoc": "pandoc"}
_OUTLINED = "pdf-outline/"  # a pdftotext source: a file of the PDF outline set, as built
_CORPUS = "corpus/pdf/"  # or an outlined PDF of the shared corpus ($FOLIO_DATA/corpus)
_TEXLIVE = "texlive-"  # or a PDF of a TeX Live documentation .deb (devset_texlive)


@dataclass(frozen=True)
class Expected:
    """One file of a dev set: where it goes under ``--out`` and its manifest sha256
    (for a gzipped text also that of the text inside, to tell the two apart)."""

    path: str
    sha256: str
    plain_sha256: str | None = None

    def mismatch(self, data: bytes) -> str | None:
        """Why ``data`` is not this file, or None if it is."""
        got = sha256(data)
        if got == self.sha256:
            return None
        why = f"sha256 {got}, manifest {self.sha256}"
        if self.plain_sha256 is None:
            return why
        plain = sha256(gzip.decompress(data))
        if plain == self.plain_sha256:
            return f"{why}: the text is the same, its gzip bytes differ (another zlib?)"
        return f"{why}: the text differs (sha256 {plain}, manifest {self.plain_sha256})"


@dataclass(frozen=True)
class Problem:
    """Why a file is not (or not correctly) under ``--out``."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gzip_text(text: str, header_name: str | None) -> bytes:
    """The text gzipped at level 9 with mtime 0; ``header_name``, when the manifest has
    one, is the file name stored in the gzip header (the texinfo texts were written
    through ``gzip.GzipFile`` with a name, the others by ``gzip.compress``)."""
    data = text.encode("utf-8")
    if header_name is None:
        return gzip.compress(data, 9, mtime=0)
    buf = io.BytesIO()
    with gzip.GzipFile(header_name, "wb", 9, buf, mtime=0) as g:
        g.write(data)
    return buf.getvalue()


def truth_json(truth: list[Entry], indent: int) -> bytes:
    return (json.dumps(truth, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")


# ---------- the flat-text set ----------


def flat_expected(entry: Entry) -> tuple[Expected, Expected]:
    base = f"flat-text/docs/{entry['name']}"
    return (
        Expected(f"{base}.txt.gz", entry["sha256_text"], entry["sha256_plain"]),
        Expected(f"{base}.truth.json", entry["sha256_truth"]),
    )


def outlined_pdf(source: str, out: Path) -> tuple[bytes, list[Entry]]:
    """A PDF of the outline set and its outline, read from ``out`` as that set's build
    left them, checked against its manifest's sha256 (``pdf-outline/FILE.pdf ...``)."""
    file = source.split()[0].removeprefix(_OUTLINED)
    entry = next((e for e in load_manifests("")[1] if e["file"] == file), None)
    if entry is None:
        raise DevSetError(f"{file}: not in {PDF}")
    for exp in pdf_expected(entry):
        if (problem := check_file(out, exp)) is not None:
            raise DevSetError(f"{problem} (build the pdf-outline set first)")
    pdf, js = ((out / exp.path).read_bytes() for exp in pdf_expected(entry))
    return pdf, json.loads(js)


def corpus_file(source: str, truth_suffix: str) -> tuple[Path, bytes]:
    """A file of the shared corpus (``corpus/pdf/FILE.pdf ...``, ``corpus/epub/FILE.epub
    ...``) and its truth file's bytes, each checked against the sha256 the corpus
    MANIFEST.json gives."""
    corpus = data_dir() / "corpus"
    name = source.split()[0].removeprefix("corpus/")
    items = json.loads((corpus / "MANIFEST.json").read_text(encoding="utf-8"))["items"]
    known = {i["path"]: i["sha256"] for i in items}
    truth = name.rsplit(".", 1)[0] + truth_suffix
    for path in (name, truth):
        data = (corpus / path).read_bytes()
        if path in known and sha256(data) != known[path]:
            raise DevSetError(f"corpus/{path}: sha256 {sha256(data)}, manifest {known[path]}")
    return corpus / name, (corpus / truth).read_bytes()


def texlive_file(entry: Entry, debs: Path | None) -> tuple[bytes, list[Entry]]:
    """A PDF manual of a TeX Live documentation package, read from its ``.deb`` under
    ``debs`` (both checked against the manifest's sha256), and its outline, read as
    ``build_pdf`` reads the outline set's."""
    if debs is None:
        raise DevSetError(f"{entry['source'].split()[0]}: give --texlive-debs DIR")
    source = DebSource.parse(entry["source"])
    same_deb = [DebSource.parse(e["source"]) for e in load_manifests("")[0] if _is_texlive(e)]
    wanted = tuple(s.path for s in same_deb if s.package == source.package)
    pdf = texlive_pdf(debs, source, entry["sha256_deb"], entry["sha256_pdf"], wanted)
    with tempfile.TemporaryDirectory(prefix="folio-devset-pdf-") as tmp:
        path = Path(tmp) / source.path.rsplit("/", 1)[-1]
        path.write_bytes(pdf)
        return pdf, outline_entries(path)


def _is_texlive(entry: Entry) -> bool:
    return str(entry["source"]).startswith(_TEXLIVE)


def text_and_truth(
    entry: Entry, mirrors: Mirrors, out: Path, debs: Path | None = None
) -> tuple[str, list[Entry]]:
    """The document's text and truth, made as its kind says."""
    kind = entry["kind"]
    if kind in ("pdftotext", "pdftotext-layout"):
        source = entry["source"]
        if source.startswith(_CORPUS):
            path, outline_json = corpus_file(source, ".outline.json")
            pdf, outline = path.read_bytes(), json.loads(outline_json)
        elif _is_texlive(entry):
            pdf, outline = texlive_file(entry, debs)
        else:
            pdf, outline = outlined_pdf(source, out)
        return pdftotext_text(pdf, outline, layout=kind == "pdftotext-layout")
    if kind == "pandoc" and entry["source"].startswith("corpus/epub/"):
        epub, toc = corpus_file(entry["source"], ".toc.json")
        return pandoc_file_text(epub, json.loads(toc))
    src = Source.parse(entry["source"])
    if kind == "pandoc":
        return pandoc_text(mirrors, src)
    if kind == "rfc":
        xml = mirrors.read(Source.parse(entry["truth"]))
        return mirrors.read(src).decode("utf-8", "replace"), rfc_truth(xml)
    if kind == "gutenberg":
        html = mirrors.read(Source.parse(entry["truth"]))
        return decode_gutenberg(mirrors.read(src)), gutenberg_truth(html, entry["truth_rule"])
    if kind == "epub":
        return epub_text(mirrors, src)
    if kind == "manual":
        return mdbook_text(mirrors, src, entry["book_title"])
    if kind == "texinfo":
        return texinfo_text(mirrors, src, entry["stub_files"])
    raise DevSetError(f"{entry['name']}: unknown kind {kind!r}")


def build_flat(
    entry: Entry, mirrors: Mirrors, out: Path, debs: Path | None = None
) -> list[tuple[Expected, bytes]]:
    text, truth = text_and_truth(entry, mirrors, out, debs)
    gz, js = flat_expected(entry)
    return [
        (gz, gzip_text(text, entry.get("gzip_header_name"))),
        (js, truth_json(truth, TRUTH_INDENT[entry["kind"]])),
    ]


def makeinfo_warning(flat: list[Entry]) -> str | None:
    """A warning when the texinfo texts are written by another makeinfo than the one
    the manifest's were (its output, line breaks included, changes between versions)."""
    wanted = {e["makeinfo_version"] for e in flat if e["kind"] == "texinfo"}
    if not wanted:
        return None
    try:
        here = makeinfo_version()
    except DevSetError as exc:
        return str(exc)
    if wanted == {here}:
        return None
    then = ", ".join(sorted(wanted))
    return f"makeinfo {here} here, {then} for the manifest: the texinfo texts may differ"


def tool_warnings(flat: list[Entry]) -> list[str]:
    """Warnings when an exporter kind's texts are written by another version of its tool
    than the manifest records (``tool_version``)."""
    out = []
    for tool in sorted(set(TOOLS.values())):
        wanted = {e["tool_version"] for e in flat if TOOLS.get(e["kind"]) == tool}
        if not wanted:
            continue
        try:
            here = tool_version(tool)
        except DevSetError as exc:
            out.append(str(exc))
            continue
        if wanted != {here}:
            then = ", ".join(sorted(wanted))
            out.append(f"{tool} {here} here, {then} for the manifest: its texts may differ")
    return out


# ---------- the PDF outline set ----------


def pdf_expected(entry: Entry) -> tuple[Expected, Expected]:
    stem = entry["file"].removesuffix(".pdf")
    return (
        Expected(f"pdf-outline/{entry['file']}", entry["sha256"]),
        Expected(f"pdf-outline/{stem}.outline.json", entry["sha256_outline"]),
    )


def build_pdf(entry: Entry, mirrors: Mirrors) -> list[tuple[Expected, bytes]]:
    data = mirrors.read(Source(entry["repo"], entry["commit"], entry["path"]))
    with tempfile.TemporaryDirectory(prefix="folio-devset-pdf-") as tmp:
        path = Path(tmp) / entry["file"]
        path.write_bytes(data)
        outline = outline_entries(path)
    pdf, js = pdf_expected(entry)
    return [(pdf, data), (js, truth_json(outline, 1))]


# ---------- driving ----------


@dataclass(frozen=True)
class Job:
    """One manifest entry: its files and how to build them."""

    name: str
    expected: tuple[Expected, ...]
    build: Callable[[], list[tuple[Expected, bytes]]]


def load_manifests(only: str) -> tuple[list[Entry], list[Entry]]:
    """The flat-text and PDF manifest entries whose name contains ``only``."""
    flat = json.loads(FLAT.read_text(encoding="utf-8"))
    pdfs = json.loads(PDF.read_text(encoding="utf-8"))["files"]
    return [e for e in flat if only in e["name"]], [e for e in pdfs if only in e["file"]]


def jobs(
    flat: list[Entry], pdfs: list[Entry], mirrors: Mirrors, out: Path, debs: Path | None = None
) -> list[Job]:
    """The PDF outline set first: the pdftotext kinds are made from its files."""
    return [
        *(Job(e["file"], pdf_expected(e), partial(build_pdf, e, mirrors)) for e in pdfs),
        *(
            Job(e["name"], flat_expected(e), partial(build_flat, e, mirrors, out, debs))
            for e in flat
        ),
    ]


def check_file(out: Path, exp: Expected) -> Problem | None:
    path = out / exp.path
    if not path.is_file():
        return Problem(exp.path, "missing")
    why = exp.mismatch(path.read_bytes())
    return None if why is None else Problem(exp.path, why)


def build_job(job: Job, out: Path) -> list[Problem]:
    """Build the job's files and write those whose sha256 is the manifest's."""
    try:
        built = job.build()
    except DevSetError as exc:
        return [Problem(", ".join(e.path for e in job.expected), f"not built: {exc}")]
    problems = []
    for exp, data in built:
        if why := exp.mismatch(data):
            problems.append(Problem(exp.path, f"built, not written: {why}"))
            continue
        target = out / exp.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, help="folder of OWNER+NAME/repo git snapshots")
    ap.add_argument("--out", type=Path, default=data_dir() / "dev", help="default: %(default)s")
    ap.add_argument("--check", action="store_true", help="only check the files under --out")
    ap.add_argument("--only", default="", help="substring of entry names to keep")
    ap.add_argument(
        "--texlive-debs",
        type=Path,
        help="folder of the texlive-*-doc .deb files (apt-get download), for their PDFs",
    )
    args = ap.parse_args(argv)
    if not args.check and args.mirrors is None:
        ap.error("--mirrors is needed to build (or --check to only check)")
    if str(args.out).startswith("$"):  # data_dir() without $FOLIO_DATA set
        ap.error(f"set FOLIO_DATA or give --out (not {args.out})")
    flat, pdfs = load_manifests(args.only)
    todo = jobs(flat, pdfs, Mirrors(args.mirrors or Path()), args.out, args.texlive_debs)
    warnings = [] if args.check else [w for w in [makeinfo_warning(flat)] if w]
    for warning in warnings + ([] if args.check else tool_warnings(flat)):
        print(f"warning: {warning}", file=sys.stderr)
    problems: list[Problem] = []
    for job in todo:
        if args.check:
            found = [p for exp in job.expected if (p := check_file(args.out, exp))]
        else:
            found = build_job(job, args.out)
        problems += found
        print(f"{'ok  ' if not found else 'FAIL'} {job.name}", file=sys.stderr)
    for p in problems:
        print(p)
    files = sum(len(j.expected) for j in todo)
    verb = "checked" if args.check else "built"
    print(f"{files} files {verb} under {args.out}: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
