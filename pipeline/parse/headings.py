"""Flat text: paragraphs by blank lines, headings by ATX lines or by heuristics.

The heuristics look for lines that stand alone and look like titles (``Chapter 7``,
``PART II``, ``Appendix A``, ``1.2.3 Title``, ALL CAPS, short Title Case) and
reject ordinary short sentences (terminal punctuation, lowercase content words).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence

from ..model import Block, BlockKind
from .fences import fenced_lines, find_fences
from .lines import line_index, line_starts
from .text_toc import TocEntry, find_toc, standalone

ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_PIPE_TABLE = re.compile(
    r"\|[^\n]*\|[ \t]*\n\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*(\n|$)"
)
_PARA_SPLIT = re.compile(r"\n[ \t]*\n")
_ROMAN = r"[IVXLCDM]+"
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
)
_PART = re.compile(rf"(?i:part|book)\s+(?:\d+|{_ROMAN}|(?i:{_NUMBER_WORDS}))\b[.:]?(?:\s.*)?$")
_CHAPTER = re.compile(
    rf"(?i:chapter|appendix|section|lecture|lesson)\s+(?:\d+(?:\.\d+)*|{_ROMAN}|[A-Z]|(?i:{_NUMBER_WORDS}))\b[.:]?(?:\s.*)?$"
)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+([A-Z][^\n]{1,78})$")
_SMALL_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "in",
        "into",
        "nor",
        "of",
        "on",
        "or",
        "over",
        "per",
        "the",
        "to",
        "up",
        "via",
        "vs",
        "with",
    ]
)
_END_PUNCT = (".", ",", ";", ":", "!", "?", "—", "-", '"', "”", ")")
MAX_HEADING_CHARS = 90
MIN_HEADINGS = 3  # fewer markdown (ATX) headings than this: the heuristics decide
MAX_HEADING_WORDS = 12


def heading_level(line: str) -> tuple[int, str] | None:
    """(level, title) if a standalone line looks like a heading, else None.

    Levels: Part 1; Chapter/Appendix/ALL CAPS 2; numbered ``1.2`` by depth + 1;
    Title Case 3. The caller rebases levels so the top one found becomes 1.
    """
    text = line.strip()
    if not text or len(text) > MAX_HEADING_CHARS or "\t" in text:
        return None
    if _PART.match(text):
        return 1, text
    if _CHAPTER.match(text):
        return 2, text
    m = _NUMBERED.match(text)
    if m and _title_like(m.group(2)) and not m.group(2).rstrip().endswith((".", ",", ";")):
        return min(6, m.group(1).count(".") + 2), text
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith(_END_PUNCT[:6]):
        return None
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2:
        return None
    if all(c.isupper() for c in letters) and len(letters) >= 3:
        return 2, text
    if len(words) <= 8 and _title_like(text) and words[0][:1].isupper():
        return 3, text
    return None


def _title_like(text: str) -> bool:
    words = [w.strip("()[]'\"“”‘’") for w in text.split()]
    content = [w for w in words if w and w.lower() not in _SMALL_WORDS]
    if not content:
        return False
    capital = sum(1 for w in content if w[0].isupper() or w[0].isdigit())
    return capital == len(content)


def find_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, title) of the heading lines of a flat text.

    A contents block, when the text has one, names the headings (its own lines stay text);
    otherwise lines that stand alone (blank or no line before and after) and look like
    headings are. The title line at the top is never a heading. Levels come from the
    contents' indentation or from each pattern family's rank, the same through the book,
    renumbered densely from 1.
    """
    first = title_line(lines)
    start = 0 if first is None else first[0] + 1
    code = fenced_lines("\n".join(lines))
    lines = ["" if i in code else line for i, line in enumerate(lines)]
    toc = find_toc(lines, start)
    if toc:
        ranks = _toc_ranks(toc)
        found = [
            (e.target, rank, lines[e.target].strip()) for e, rank in zip(toc, ranks, strict=True)
        ]
    else:
        found = []
        for i in range(start, len(lines)):
            if standalone(lines, i):
                hit = heading_level(lines[i])
                if hit is not None:
                    found.append((i, hit[0], hit[1]))
    dense = {level: n + 1 for n, level in enumerate(sorted({lvl for _, lvl, _ in found}))}
    return [(i, dense[level], title) for i, level, title in found]


def _toc_ranks(toc: list[TocEntry]) -> list[int]:
    """Each entry's rank: by indentation when the block is indented, else by the pattern
    family of its title (entries of no numbered family rank with the shallowest one)."""
    if len({e.indent for e in toc}) > 1:
        return [e.indent for e in toc]
    families = [_family(e.title) for e in toc]
    top = min((f for f in families if f is not None), default=0)
    return [top if f is None else f for f in families]


def _family(title: str) -> int | None:
    """Rank of a title's numbering family: Part 1, Chapter/Appendix 2, ``N.M`` by depth."""
    if _PART.match(title):
        return 1
    if _CHAPTER.match(title):
        return 2
    m = _NUMBERED.match(title)
    return m.group(1).count(".") + 2 if m else None


_META_TITLE = re.compile(r"^\s*title:\s*(\S.*?)\s*$", re.IGNORECASE)
TITLE_SEARCH_LINES = 40


def title_line(lines: Sequence[str]) -> tuple[int, str] | None:
    """The document's title and its line: a ``Title:`` line near the top (Project
    Gutenberg's header), else a first line that stands alone, reads like a title and is
    not a chapter heading (``Chapter 1``, ``Part II``, ``1.2 Scope``)."""
    for i, line in enumerate(lines[:TITLE_SEARCH_LINES]):
        m = _META_TITLE.match(line)
        if m:
            return i, m.group(1)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not standalone(lines, first):
        return None
    text = lines[first].strip()
    if len(text) > MAX_HEADING_CHARS or text.endswith(_END_PUNCT[:3]) or text.startswith("#"):
        return None
    if _PART.match(text) or _CHAPTER.match(text) or _NUMBERED.match(text):
        return None
    return first, text


def parse_text(src: str, *, heuristics: bool | None = None) -> tuple[list[Block], array[int], int]:
    """Blocks of flat text: paragraphs separated by blank lines; ATX lines are headings.

    ``heuristics=None`` applies the mode rule: ATX headings when there are at least
    three, else heading heuristics. Returns blocks, the line-start table and the
    number of ATX headings seen.
    """
    starts = line_starts(src)
    blocks: list[Block] = []
    pos = 0
    for fence in [*find_fences(src), None]:
        end = fence.start if fence is not None else len(src)
        _text_blocks(src, pos, end, starts, blocks)
        if fence is not None:
            first = line_index(starts, fence.start) + 1
            last = line_index(starts, fence.end - 1) + 1
            blocks.append(Block("code", fence.start, fence.end, first, last, lang=fence.lang))
            pos = fence.end
    atx = sum(1 for b in blocks if b.kind == "heading")
    use_heuristics = atx < MIN_HEADINGS if heuristics is None else heuristics
    if use_heuristics:
        blocks = apply_heuristics(src, blocks)
    return blocks, starts, atx


def _text_blocks(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    """Paragraphs and heading lines of ``src[start:end]``, a stretch without fences."""
    pos = start
    for m in [*_PARA_SPLIT.finditer(src, start, end), None]:
        stop = m.start() if m is not None else end
        _paragraph_blocks(src, pos, stop, starts, out)
        if m is not None:
            pos = m.end()


def _paragraph_blocks(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    """Split one blank-line-delimited paragraph into heading lines and text runs."""
    seg = src[start:end]
    if not seg.strip():
        return
    # Leading whitespace lines belong to no block.
    lead = len(seg) - len(seg.lstrip("\n \t"))
    start = src.rfind("\n", 0, start + lead) + 1 if lead else start
    start = max(start, 0)
    run_start: int | None = None
    pos = start
    while pos < end:
        eol = src.find("\n", pos, end)
        line_end = end if eol == -1 else eol
        line = src[pos:line_end]
        m = ATX.match(line) if line.lstrip().startswith("#") else None
        if m:
            if run_start is not None:
                _emit(src, run_start, pos, starts, out)
                run_start = None
            first = line_index(starts, pos)
            out.append(
                Block(
                    "heading",
                    pos,
                    _rstrip(src, pos, line_end),
                    first + 1,
                    first + 1,
                    level=len(m.group(1)),
                    title=m.group(2).strip(),
                )
            )
        elif run_start is None and line.strip():
            run_start = pos
        pos = line_end + 1
    if run_start is not None:
        _emit(src, run_start, end, starts, out)


def _rstrip(src: str, start: int, end: int) -> int:
    while end > start and src[end - 1] in " \t\n":
        end -= 1
    return end


def _emit(src: str, start: int, end: int, starts: array[int], out: list[Block]) -> None:
    end = _rstrip(src, start, end)
    if end <= start:
        return
    # Extractors emit recovered tables as GFM pipe tables: header, separator, rows.
    kind: BlockKind = "table" if _PIPE_TABLE.match(src, start, end) else "paragraph"
    out.append(
        Block(kind, start, end, line_index(starts, start) + 1, line_index(starts, end - 1) + 1)
    )


def apply_heuristics(src: str, blocks: list[Block]) -> list[Block]:
    """Single-line paragraphs that ``find_headings`` names become heading blocks."""
    found = {i + 1: (level, title) for i, level, title in find_headings(src.split("\n"))}
    if not found:
        return blocks
    out = list(blocks)
    for idx, b in enumerate(blocks):
        hit = found.get(b.line_start) if b.line_start == b.line_end else None
        if b.kind == "paragraph" and hit is not None:
            out[idx] = Block("heading", b.start, b.end, b.line_start, b.line_end, *hit)
    return out
