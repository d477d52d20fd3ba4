"""Markdown (and MDX) to typed top-level blocks with exact char and line offsets.

markdown-it-py does the CommonMark block parsing (fences, setext headings, lazy
continuation, HTML blocks, GFM tables, front matter); we only read the top-level
token maps and turn line ranges into char ranges of the source.
"""

from __future__ import annotations

import re
from array import array
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from ..model import Block, BlockKind
from .lines import line_index, line_starts

_SIMPLE_KINDS: dict[str, BlockKind] = {
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "hr": "hr",
    "front_matter": "frontmatter",
}
_OPEN_KINDS: dict[str, BlockKind] = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
}
_MDX_ESM = re.compile(r"(?:import|export)\b")
_MDX_COMPONENT = re.compile(r"<(?:[A-Z][\w.]*|>)|\{")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": 64}).enable("table").use(front_matter_plugin)
    # Block structure only: inline parsing is most of markdown-it's cost and we never use it.
    md.disable(["inline", "text_join"])
    return md


def parse_markdown(src: str, *, mdx: bool = False) -> tuple[list[Block], array[int]]:
    """Top-level blocks of ``src`` (already newline-normalized) and its line-start table."""
    starts = line_starts(src)
    tokens = _parser().parse(src)
    blocks: list[Block] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            i += 1
            continue
        first, last = tok.map
        start = starts[first]
        end = _trim_end(src, start, starts[last] - 1 if last < len(starts) - 1 else len(src))
        kind = _SIMPLE_KINDS.get(tok.type) or _OPEN_KINDS.get(tok.type)
        if kind is None:
            i += 1
            continue
        extra: dict[str, Any] = {}
        if tok.type == "heading_open":
            extra = {"level": int(tok.tag[1]), "title": _clean_title(tokens[i + 1].content)}
        elif tok.type == "fence":
            extra = {"lang": tok.info.strip().split(" ")[0] if tok.info.strip() else ""}
        elif tok.type == "front_matter" and start != 0:
            kind = "paragraph"
        if mdx and kind in ("paragraph", "html"):
            head = src[start : start + 64]
            if _MDX_ESM.match(head):
                kind = "mdx_esm"
            elif _MDX_COMPONENT.match(head):
                kind = "mdx_component"
        blocks.append(
            Block(
                kind, start, end, first + 1, max(first + 1, _line_end(starts, end, first)), **extra
            )
        )
        i += 1
    return _fill_gaps(src, blocks, starts), starts


def _trim_end(src: str, start: int, end: int) -> int:
    end = max(start, min(end, len(src)))
    while end > start and src[end - 1] in " \t\n":
        end -= 1
    return end


def _line_end(starts: array[int], end: int, first: int) -> int:
    """1-based line of the last char before ``end`` (scanning forward from ``first``)."""
    line = first
    while starts[line + 1] <= end - 1:
        line += 1
    return line + 1


def _clean_title(raw: str) -> str:
    title = re.sub(r"\s+", " ", raw).strip()
    # Heading ids such as `{#anchor}` and trailing emphasis markers are not part of the title.
    title = re.sub(r"\s*\{\s*#[^}]*\}\s*$", "", title)
    wrapped = re.fullmatch(r"(\*\*|__|\*|_)(.+)\1", title)
    return wrapped.group(2).strip() if wrapped else title


def _fill_gaps(src: str, blocks: list[Block], starts: array[int]) -> list[Block]:
    """Text no token claims (link reference definitions) becomes paragraph blocks."""
    out: list[Block] = []
    pos = 0
    for block in [*blocks, None]:
        limit = block.start if block is not None else len(src)
        gap = src[pos:limit]
        if gap.strip():
            lead = len(gap) - len(gap.lstrip())
            gstart = pos + lead
            gstart = src.rfind("\n", 0, gstart) + 1
            gend = _trim_end(src, gstart, limit)
            first = line_index(starts, gstart)
            out.append(Block("paragraph", gstart, gend, first + 1, _line_end(starts, gend, first)))
        if block is not None:
            out.append(block)
            pos = block.end
    return out


def table_headers(src: str, block: Block) -> tuple[str, ...]:
    """Header cells of a GFM table block (escaped pipes kept as text)."""
    eol = src.find("\n", block.start, block.end)
    return split_row(src[block.start : block.end if eol == -1 else eol])


def split_row(line: str) -> tuple[str, ...]:
    cells = re.split(r"(?<!\\)\|", line.strip())
    if cells and cells[0].strip() == "":
        cells = cells[1:]
    if cells and cells[-1].strip() == "":
        cells = cells[:-1]
    return tuple(c.strip().replace("\\|", "|") for c in cells)
