"""The plain texts of the flat-text dev set, per kind (eval/flat-text/README.md): the
published ``.txt`` (RFCs, Gutenberg), an EPUB sample zipped and written as text by
``eval_structure.flat_text``, an mdBook manual's markdown written as plain text, a
Texinfo manual written by ``makeinfo --plaintext``. Each returns the text and its truth.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from devset_sources import DevSetError, Mirrors, Source
from devset_truth import LINK, nav_truth, summary_entries, texinfo_truth

Entry = dict[str, Any]


def decode_gutenberg(raw: bytes) -> str:
    """A Gutenberg ``.txt``: UTF-8 if it is, else Latin-1; CRLF line ends as LF."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.replace("\r\n", "\n")


# ---------- EPUB samples ----------


def zip_epub(mirrors: Mirrors, folder: Source, target: Path) -> None:
    """The sample's files zipped as an EPUB: ``mimetype`` first and stored, the rest in
    git's order, deflated."""
    prefix = folder.path.rstrip("/") + "/"
    with zipfile.ZipFile(target, "w") as z:
        mimetype = zipfile.ZipInfo("mimetype")
        z.writestr(mimetype, "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for path in mirrors.files(folder):
            rel = path[len(prefix) :]
            if rel != "mimetype":
                data = mirrors.read(folder.at(path))
                z.writestr(rel, data, compress_type=zipfile.ZIP_DEFLATED)


def epub_text(mirrors: Mirrors, folder: Source) -> tuple[str, list[Entry]]:
    """The sample read by Folio and written as a plain-text edition; truth from its nav
    document, less the entries pointing at the nav itself (as the text drops them)."""
    from eval_structure import flat_text, without_nav

    from pipeline.extract.dispatch import extract_path

    with tempfile.TemporaryDirectory(prefix="folio-devset-epub-") as tmp:
        # named as the sample's folder: Folio reads no title from the file name, but the
        # name is part of what was built
        path = Path(tmp) / (folder.path.rstrip("/").rsplit("/", 1)[-1] + ".epub")
        zip_epub(mirrors, folder, path)
        with zipfile.ZipFile(path) as z:
            toc = nav_truth(z)
        doc = extract_path(path)
    truth = without_nav(toc, doc)
    return flat_text(doc, truth), [{"level": e["level"], "title": e["title"]} for e in truth]


# ---------- mdBook manuals ----------


def md_plain(md: str) -> str:
    """Markdown as plain text: heading marks, emphasis, links, HTML tags, link definitions
    and mdBook directives removed; fenced code indented four spaces, its fences dropped."""
    out: list[str] = []
    fence: str | None = None
    for line in md.split("\n"):
        if m := re.match(r"^\s*(`{3,}|~{3,})", line):
            fence = None if fence else m.group(1)
            continue
        if fence:
            out.append("    " + line)
            continue
        if re.match(r"^\s*\{\{#", line):
            continue
        line = re.sub(r"^ {0,3}#{1,6}\s+", "", line)
        line = re.sub(r"\s*\{#[^}]*\}\s*$", "", line)
        line = LINK.sub(r"\1", line)
        line = re.sub(r"^\[[^\]]+\]:\s*\S+.*$", "", line)
        line = re.sub(r"</?[a-zA-Z][^>]*>", "", line)
        line = re.sub(r"\*\*|(?<!\w)[*_]|[*_](?!\w)|`", "", line)
        out.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def mdbook_text(mirrors: Mirrors, folder: Source, title: str) -> tuple[str, list[Entry]]:
    """The book's title, then its chapters in SUMMARY.md order as plain text; truth from
    SUMMARY.md (items whose file is not in the repository are left out of both)."""
    base = folder.path.rstrip("/")
    present = set(mirrors.files(folder))
    summary = mirrors.read(folder.at(f"{base}/SUMMARY.md")).decode("utf-8")
    parts, truth = [title, ""], []
    for level, name, href in summary_entries(summary):
        path = f"{base}/{href}"
        if path in present:
            truth.append({"level": level, "title": name})
            parts.append(md_plain(mirrors.read(folder.at(path)).decode("utf-8", "replace")))
    return "\n".join(parts), truth


# ---------- Texinfo manuals ----------


def makeinfo_version() -> str:
    """The installed ``makeinfo``'s version ("6.8"), or a clear error if there is none."""
    try:
        out = subprocess.run(
            ["makeinfo", "--version"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise DevSetError(f"makeinfo (GNU texinfo) is needed for the texinfo kind: {exc}") from exc
    m = re.search(r"\(GNU texinfo\) (\S+)", out)
    return m.group(1) if m else out.split("\n", 1)[0]


def _checkout(mirrors: Mirrors, folder: Source, into: Path, stubs: dict[str, str]) -> None:
    """The folder's files written under ``into``, then the stub files (what ``configure``
    would write, e.g. ``version.texi``)."""
    prefix = folder.path.rstrip("/") + "/"
    for path in mirrors.files(folder):
        target = into / path[len(prefix) :]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(mirrors.read(folder.at(path)))
    for name, text in stubs.items():
        (into / name).write_text(text, encoding="utf-8")


def texinfo_text(
    mirrors: Mirrors, manual: Source, stubs: dict[str, str]
) -> tuple[str, list[Entry]]:
    """``makeinfo --plaintext --no-split`` of the manual (its folder checked out, the
    stubs written); truth from its sectioning commands, ``@include``s read in place."""
    folder_path, _, name = manual.path.rpartition("/")
    with tempfile.TemporaryDirectory(prefix="folio-devset-texi-") as tmp:
        doc = Path(tmp)
        _checkout(mirrors, manual.at(folder_path + "/"), doc, stubs)
        proc = subprocess.run(
            ["makeinfo", "--plaintext", "--no-split", "-o", "-", name],
            cwd=doc,
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise DevSetError(f"{manual}: makeinfo failed: {err}")

        def read(include: str) -> str:
            return (doc / include).read_text(encoding="utf-8", errors="replace")

        truth = texinfo_truth(name, read)
    return proc.stdout.decode("utf-8"), truth


# ---------- the exporters users run: pdftotext, pandoc ----------


def tool_version(tool: str) -> str:
    """The installed exporter's version ("22.12.0" for pdftotext, "2.17.1.1" for pandoc),
    or a clear error naming the package when it is missing: its output (line breaks,
    wrapping) changes between versions, so the manifest records the one it was made by."""
    flag = "-v" if tool == "pdftotext" else "--version"
    try:
        proc = subprocess.run([tool, flag], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        package = "poppler-utils" if tool == "pdftotext" else tool
        raise DevSetError(f"{tool} ({package}) is needed for the {tool} kinds: {exc}") from exc
    out = proc.stdout + proc.stderr
    m = re.search(rf"{tool}(?: version)? (\S+)", out)
    return m.group(1) if m else out.split("\n", 1)[0]


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise DevSetError(f"{what}: {cmd[0]} failed: {err}")
    return proc.stdout.decode("utf-8")


def pdftotext_text(pdf: bytes, outline: list[Entry], *, layout: bool) -> tuple[str, list[Entry]]:
    """``pdftotext -enc UTF-8 [-layout] FILE -`` of an outlined PDF, as a user gets a
    ``.txt`` of it (form feeds between pages kept); truth: its outline's levels and titles."""
    with tempfile.TemporaryDirectory(prefix="folio-devset-pdf-") as tmp:
        path = Path(tmp) / "book.pdf"
        path.write_bytes(pdf)
        flags = ["-layout"] if layout else []
        text = _run(["pdftotext", "-enc", "UTF-8", *flags, str(path), "-"], "PDF")
    return text, [{"level": e["level"], "title": e["title"]} for e in outline]


def pandoc_file_text(epub: Path, toc: list[Entry]) -> tuple[str, list[Entry]]:
    """``pandoc -f epub -t plain`` of an EPUB file with its nav truth (``toc.json``), less
    the entries pointing at the nav itself, as for the ``epub`` kind."""
    from eval_structure import without_nav

    from pipeline.extract.dispatch import extract_path

    truth = without_nav(toc, extract_path(epub))
    text = _run(["pandoc", "-f", "epub", "-t", "plain", str(epub)], str(epub))
    return text, [{"level": e["level"], "title": e["title"]} for e in truth]


def pandoc_text(mirrors: Mirrors, folder: Source) -> tuple[str, list[Entry]]:
    """``pandoc -f epub -t plain`` of the sample zipped as an EPUB (pandoc's defaults:
    wrapped at 72 columns, headings as their text); truth from its nav document, less the
    entries pointing at the nav itself, as for the ``epub`` kind."""
    from eval_structure import without_nav

    from pipeline.extract.dispatch import extract_path

    with tempfile.TemporaryDirectory(prefix="folio-devset-pandoc-") as tmp:
        path = Path(tmp) / (folder.path.rstrip("/").rsplit("/", 1)[-1] + ".epub")
        zip_epub(mirrors, folder, path)
        with zipfile.ZipFile(path) as z:
            toc = nav_truth(z)
        truth = without_nav(toc, extract_path(path))
        text = _run(["pandoc", "-f", "epub", "-t", "plain", str(path)], str(folder))
    return text, [{"level": e["level"], "title": e["title"]} for e in truth]
