"""Markdown (and MDX) to typed top-level blocks with exact char and line offsets.

markdown-it-py does the CommonMark block parsing (fences, setext headings, lazy
continuation, HTML blocks, GFM tables, front matter); we only read the top-level
token maps and turn line ranges into char ranges of the source.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from ..model import Block, BlockKind
from ..text.lines import line_index, line_starts, trim_end
from .mdx import use_mdx

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
_SPACES = re.compile(r"\s+")
_HEADING_ID = re.compile(r"\s*\{\s*#[^}]*\}\s*$")
_WRAPPED = re.compile(r"(\*\*|__|\*|_)(.+)\1")
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n)+")
_FRONT_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_MDX_ESM = re.compile(r"(?:import|export)\b")
_MDX_COMPONENT = re.compile(r"<(?:[A-Z][\w.]*|>)|\{")


# Sources larger than this are parsed in windows so markdown-it's token list (about
# 12x the text in memory) stays bounded; see ``parse_markdown``. Small enough that a
# window's tokens are not kept long: a megabyte of them lived through the collector's
# full passes, each also walking every block found so far (a fifth of the time of a
# document of many short sections); large enough that re-parsing the block each window
# cuts costs little.
WINDOW_CHARS = 1 << 17


@lru_cache(maxsize=4)
def _parser(front_matter: bool = True, mdx: bool = False) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": 64}).enable("table")
    if front_matter:
        md.use(front_matter_plugin)
    if mdx:
        use_mdx(md)
    # Block structure only: inline parsing is most of markdown-it's cost and we never use
    # it. Link reference definitions become paragraphs (their URLs would only be
    # normalized for inline links, which we do not resolve).
    md.disable(["inline", "text_join", "reference"])
    return md


def parse_markdown(src: str, *, mdx: bool = False) -> tuple[list[Block], array[int]]:
    """Top-level blocks of ``src`` (already newline-normalized) and its line-start table.

    Large sources are parsed window by window. Between two top-level blocks the
    CommonMark block parser carries no state (reference definitions only matter to
    inline parsing), so each window keeps every block but its last, which may have
    been cut by the window's end, and the next window starts on that block's line.
    """
    starts = line_starts(src)
    n_lines = len(starts) - 1
    blocks: list[Block] = []
    line = 0
    window = WINDOW_CHARS
    if src.startswith("---"):
        # Front matter that the first window cut would be read as a rule and text.
        close = _FRONT_CLOSE.search(src, 3)
        if close is not None:
            window = max(window, close.end() + 1)
    while line < n_lines:
        stop = bisect_left(starts, starts[line] + window, lo=line)
        last_window = stop >= n_lines
        stop = min(stop, n_lines)
        text = src[starts[line] : starts[stop] - 1] if not last_window else src[starts[line] :]
        found = _top_blocks(src, text, line, starts, mdx, first_window=line == 0)
        if last_window:
            blocks.extend(found)
            break
        if len(found) < 2:
            window = _wider(src, starts, line, stop, found, window)
            continue
        blocks.extend(found[:-1])
        line = found[-1].line_start - 1
        window = WINDOW_CHARS
    return _fill_gaps(src, blocks, starts), starts


def _wider(
    src: str, starts: array[int], line: int, stop: int, found: list[Block], window: int
) -> int:
    """The next window for a block that the window starting at ``line`` (and ending
    before line ``stop``) cut. A paragraph ends by the next blank line: the window
    reaches the line after it, so the paragraph is parsed once more, not once per
    widening (a megabyte of link reference definitions is one paragraph). Anything
    else is widened by 8, not 2: each retry parses the block again, and doubling
    parsed it 2.5 times over."""
    if not found or found[0].kind != "paragraph":
        return window * 8
    blank = _BLANK_RUN.search(src, starts[stop] - 1)
    # Past the start of the line after the blank run, so bisect takes that line in (or,
    # without a blank line, at the sentinel: the rest of the text).
    end = blank.end() + 1 if blank is not None else len(src) + 1
    return end - starts[line]


def _top_blocks(
    src: str, text: str, line0: int, starts: array[int], mdx: bool, *, first_window: bool
) -> list[Block]:
    """Blocks of one window whose text begins at line index ``line0`` of ``src``."""
    tokens = _parser(first_window, mdx).parse(text)
    blocks: list[Block] = []
    for i, tok in enumerate(tokens):
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            continue
        kind = _SIMPLE_KINDS.get(tok.type) or _OPEN_KINDS.get(tok.type)
        if kind is None:
            continue
        first, last = tok.map[0] + line0, tok.map[1] + line0
        start = starts[first]
        end = trim_end(src, start, starts[last] - 1 if last < len(starts) - 1 else len(src))
        extra: dict[str, Any] = {}
        if tok.type == "heading_open":
            extra = {"level": int(tok.tag[1]), "title": _clean_title(tokens[i + 1].content)}
        elif tok.type == "fence":
            extra = {"lang": tok.info.strip().split(" ")[0] if tok.info.strip() else ""}
        elif tok.type == "front_matter" and start != 0:
            kind = "paragraph"
        if mdx and kind in ("paragraph", "html"):
            head = src[start : start + 64].lstrip()
            if _MDX_ESM.match(head):
                kind = "mdx_esm"
            elif _MDX_COMPONENT.match(head):
                kind = "mdx_component"
        line_end = max(first + 1, _line_end(starts, end, first))
        blocks.append(Block(kind, start, end, first + 1, line_end, **extra))
    return blocks


def _line_end(starts: array[int], end: int, first: int) -> int:
    """1-based line of the last char before ``end`` (scanning forward from ``first``)."""
    line = first
    while starts[line + 1] <= end - 1:
        line += 1
    return line + 1


def _clean_title(raw: str) -> str:
    title = _SPACES.sub(" ", raw).strip()
    # Heading ids such as `{#anchor}` and trailing emphasis markers are not part of the title.
    title = _HEADING_ID.sub("", title)
    wrapped = _WRAPPED.fullmatch(title)
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
            gend = trim_end(src, gstart, limit)
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
