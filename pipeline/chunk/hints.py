"""Content hints and table metadata of a chunk, from the kinds of its blocks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Block
from ..parse.blocks import table_headers

HINT_OF_KIND = {
    "paragraph": "prose",
    "table": "table",
    "code": "code",
    "list": "list",
    "quote": "quote",
}
HINT_ORDER = ("prose", "table", "code", "list", "quote")
# A kind needs this share of a chunk's tokens to count as carrying real weight.
WEIGHT_SHARE = 0.2
PRESENT_SHARE = 0.05
# A paragraph this short right before a table is its title or caption (a PDF
# statement's "Consolidated Balance Sheets $ in millions, except per share amounts").
MAX_CAPTION = 200
MAX_HEADERS = 300  # characters of header cells in the retrieval prefix


@dataclass(frozen=True, slots=True)
class Hints:
    content_hints: tuple[str, ...]
    contains_table: bool
    table_columns: int
    table_headers: tuple[str, ...]
    table_text: str  # the retrieval prefix's [TABLE: …]: caption — header cells


def chunk_hints(src: str, blocks: Sequence[Block], parts: Sequence[tuple[int, int]]) -> Hints:
    """``parts`` are (block index, tokens) of the chunk's units.

    A kind is listed when present with at least 5% of the tokens (tables and code
    whenever present: a small table is still what a "tables about X" search wants);
    ``mixed`` is added when two or more kinds each carry 20%.
    """
    weight: dict[str, int] = {}
    total = 0
    first_table: int | None = None
    for index, tokens in parts:
        block = blocks[index]
        hint = HINT_OF_KIND.get(block.kind)
        total += tokens
        if hint is None:
            continue
        weight[hint] = weight.get(hint, 0) + tokens
        if block.kind == "table" and first_table is None:
            first_table = index
    total = max(total, 1)
    hints = [
        h
        for h in HINT_ORDER
        if h in weight and (h in ("table", "code") or weight[h] / total >= PRESENT_SHARE)
    ]
    if sum(1 for h in hints if weight[h] / total >= WEIGHT_SHARE) > 1:
        hints.append("mixed")
    if not hints:
        hints = ["prose"]
    if first_table is None:
        return Hints(tuple(hints), False, 0, (), "")
    headers = table_headers(src, blocks[first_table])
    text = table_text(src, blocks, first_table)
    return Hints(tuple(hints), True, len(headers), headers, text)


def table_caption(src: str, blocks: Sequence[Block], index: int) -> str:
    """The short paragraph right before table block ``index``, if there is one."""
    prev = blocks[index - 1] if index > 0 else None
    if prev is None or prev.kind != "paragraph" or prev.end - prev.start > 4 * MAX_CAPTION:
        return ""
    text = " ".join(src[prev.start : prev.end].split())
    return text if len(text) <= MAX_CAPTION else ""


def table_text(src: str, blocks: Sequence[Block], index: int) -> str:
    """What a chunk holding table block ``index`` (or any part of it) says about it:
    caption, then the non-empty header cells (years, periods, units)."""
    cells = " | ".join(h for h in table_headers(src, blocks[index]) if h)
    if len(cells) > MAX_HEADERS:
        cut = cells.rfind(" | ", 0, MAX_HEADERS)
        cells = cells[: cut if cut > 0 else MAX_HEADERS] + " …"
    return " — ".join(p for p in (table_caption(src, blocks, index), cells) if p)
