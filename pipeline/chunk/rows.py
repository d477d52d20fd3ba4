"""Table rows for the splitter: the compact header a split table repeats, the lead that
names the row a part of a split row belongs to, and the seams inside a row."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import pairwise

from ..model import Block
from ..parse.blocks import split_row, table_headers

Range = tuple[int, int]

ROW_CLOSE = " |"  # closes a part of a row cut inside a cell
REPEAT_CHARS = 80  # a header or key cell repeated in a prefix is cut to this, at a word
CUT = "…"
_PIPE = re.compile(r"(?<!\\)\|")
_NONSPACE = re.compile(r"\S")
_ALIGN = re.compile(r"\s*(:?)-*(:?)\s*")


def _short(cell: str) -> str:
    if len(cell) <= REPEAT_CHARS:
        return cell
    cut = cell.rfind(" ", 0, REPEAT_CHARS)
    return cell[: cut if cut > 0 else REPEAT_CHARS].rstrip() + " " + CUT


def compact_header(src: str, block: Block) -> tuple[str, str]:
    """The header row (cells trimmed and shortened) and a minimal separator that keeps
    each column's alignment: padding and long dash runs cost tokens (WordPiece counts
    every dash) and say nothing."""
    cells = [_short(c).replace("|", "\\|") for c in table_headers(src, block)]
    first_eol = src.find("\n", block.start, block.end)
    second_eol = src.find("\n", first_eol + 1, block.end) if first_eol != -1 else -1
    sep_line = src[first_eol + 1 : second_eol if second_eol != -1 else block.end]
    aligns = [_ALIGN.fullmatch(c) for c in split_row(sep_line)]
    seps = [f"{m.group(1)}---{m.group(2)}" if m else "---" for m in aligns]
    seps = (seps + ["---"] * len(cells))[: len(cells)]
    return "| " + " | ".join(cells) + " |", "|" + "|".join(seps) + "|"


@dataclass(frozen=True, slots=True)
class Row:
    """One row line: its key (first) cell as repeated, whether it opens with a pipe, and
    its separator pipes (neither the opening nor the closing one)."""

    key: str
    opened: bool
    seps: tuple[int, ...]

    @classmethod
    def at(cls, src: str, start: int, end: int) -> Row:
        first = _NONSPACE.search(src, start, end)
        pipes = [m.start() for m in _PIPE.finditer(src, start, end)]
        opened = bool(pipes) and first is not None and pipes[0] == first.start()
        if opened:
            pipes = pipes[1:]
        if pipes and not src[pipes[-1] + 1 : end].strip():
            pipes = pipes[:-1]
        key = src[start : pipes[0]] if pipes else ""
        if len(key) > REPEAT_CHARS:
            key = ("| " if opened else "") + _short(key.strip().removeprefix("|").strip()) + " "
        return cls(key, opened, tuple(pipes))

    def lead(self, s: int) -> str:
        """What opens a part starting at ``s`` inside the row: the key cell and an empty
        cell per column skipped, so the part's cells stay in their columns."""
        if not self.seps or s < self.seps[0]:
            return "| " if self.opened else ""
        return self.key + "| " * bisect_left(self.seps, s)

    def cells(self, src: str, s: int, e: int) -> list[Range]:
        """``[s, e)`` cut before each separator pipe inside it; the whitespace before a cut
        is left out, and the last piece keeps ``e`` (a row's end stays a line end)."""
        bounds = [s, *(p for p in self.seps if s < p < e), e]
        out = [(a, len(src[a:b].rstrip()) + a) for a, b in pairwise(bounds)]
        out[-1] = (out[-1][0], e)
        return out
