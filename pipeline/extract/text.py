"""Markdown, MDX and plain text: the decoded file is the document (for plain text, with the
headings found marked as ATX lines)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from ..errors import EmptyDocumentError, EncodingError
from ..model import Document, OutlineEntry
from ..text.heading_lines import ATX, MIN_HEADINGS, find_heading_lines, title_line

MARKDOWN_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".mdx": "mdx"}
TEXT_SUFFIXES = {".txt": "text", ".text": "text"}


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 (BOM dropped, UTF-16 by BOM), newlines normalized to ``\\n``."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise EncodingError(path, f"invalid UTF-16 at byte {exc.start}") from exc
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise EncodingError(
                path, f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"
            ) from exc
    # CommonMark: NUL is read as U+REPLACEMENT CHARACTER (same length: offsets hold)
    return normalize_newlines(text.removeprefix("\ufeff")).replace("\x00", "\ufffd")


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text_document(path: Path, fmt: str) -> Document:
    text = decode_text(path.read_bytes(), str(path))
    if not text.strip():
        raise EmptyDocumentError(str(path), "the file holds only whitespace")
    if fmt == "text":
        return flat_text_document(text, str(path))
    return Document(text=text, source=str(path), format=fmt, markup="markdown")


_ATX_MARK = re.compile(r"^( {0,3})#")
_COMMENT_END = (".", "!", "?", ":", ";", ")")


def atx_heading(line: str) -> bool:
    """Whether a plain text's ATX line reads as a markdown heading, not as a program's
    comment that a plain-text export of a listing printed at the margin: "# compute the
    percentage" (lowercase), "# WRONG!", "# inside class Time:" (a sentence's or a
    lead-in's punctuation) are comments."""
    m = ATX.match(line)
    if m is None:
        return False
    title = m.group(2)
    return not title[:1].islower() and not title.endswith(_COMMENT_END)


_BARE_MARK = re.compile(r" {0,3}#[ \t]*$")


def comment_blocks(lines: list[str]) -> frozenset[int]:
    """The lines of a program's comment blocks: runs of adjacent ``#`` lines holding a bare
    ``#`` (a Perl or shell script framing its comments, "# Language", "#", "# $language = …",
    as pdftotext prints a listing). A markdown heading stands on a line of its own, and
    no heading is empty."""
    marked = [_ATX_MARK.match(line) is not None for line in lines]
    out: set[int] = set()
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and marked[j]:
            j += 1
        if j - i >= 2 and any(_BARE_MARK.match(lines[k]) for k in range(i, j)):
            out.update(range(i, j))
        i = max(j, i + 1)
    return frozenset(out)


def flat_text_document(text: str, source: str) -> Document:
    """Flat text with its headings decided here, as ATX lines, so that what ``folio
    extract`` prints is the structure the chunker reads. A text that already has enough
    ATX lines keeps them as they are."""
    lines = text.split("\n")
    first = title_line(lines)
    title = first[1] if first else ""
    block = comment_blocks(lines)
    atx = [atx_heading(line) and i not in block for i, line in enumerate(lines)]
    if sum(atx) >= MIN_HEADINGS:
        return Document(text, source, "text", "text", title, heading_mode="markdown")
    # a program's comments ("# compute the percentage") stay text, not ATX headings
    comment = [ATX.match(line) is not None and not a for line, a in zip(lines, atx, strict=True)]
    lines = [_ATX_MARK.sub(r"\1\\#", ln) if c else ln for ln, c in zip(lines, comment, strict=True)]
    found = find_heading_lines(lines)
    # the heuristics decided every heading: a "#" line they did not take ("# WRONG" in a
    # listing) is text too, not a heading the chunker would read over theirs
    lines = [_ATX_MARK.sub(r"\1\\#", ln) if ATX.match(ln) else ln for ln in lines]
    for h in found:
        lines[h.line] = "#" * h.level + " " + h.title
        if h.title_line is not None:  # "CHAPTER I." + "The Old Mint.": one heading line
            for k in range(h.title_line, (h.title_end or h.title_line) + 1):
                lines[k] = ""
    starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
    outline = tuple(OutlineEntry(h.level, h.title, None, starts[h.line]) for h in found)
    return Document("\n".join(lines), source, "text", "text", title, "heuristic", outline=outline)
