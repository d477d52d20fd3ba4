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


@dataclass(frozen=True, slots=True)
class Hints:
    content_hints: tuple[str, ...]
    contains_table: bool
    table_columns: int
    table_headers: tuple[str, ...]


def chunk_hints(src: str, blocks: Sequence[Block], parts: Sequence[tuple[int, int]]) -> Hints:
    """``parts`` are (block index, tokens) of the chunk's units.

    A kind is listed when present with at least 5% of the tokens (tables and code
    whenever present: a small table is still what a "tables about X" search wants);
    ``mixed`` is added when two or more kinds each carry 20%.
    """
    weight: dict[str, int] = {}
    total = 0
    first_table: Block | None = None
    for index, tokens in parts:
        block = blocks[index]
        hint = HINT_OF_KIND.get(block.kind)
        total += tokens
        if hint is None:
            continue
        weight[hint] = weight.get(hint, 0) + tokens
        if block.kind == "table" and first_table is None:
            first_table = block
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
    headers = table_headers(src, first_table) if first_table is not None else ()
    return Hints(tuple(hints), first_table is not None, len(headers), headers)
